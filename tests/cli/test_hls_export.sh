#!/usr/bin/env bash
# HLS generation on the command line (issue 14): `export --format hls` of an nn2FPGA
# design writes a project whose C simulation (threaded dataflow, streams bounded to the
# exported depths) reproduces `cnnmap run` bit for bit on random frames, built with the
# C++ compiler given; refusals (a non-empty folder without --force, a design of another
# architecture, a model without Quant annotations) are exit 2 with one line and leave no
# folder behind. Shrinking a skip FIFO below what the design computed makes the
# simulation stop and name the blocked stream.
# usage: test_hls_export.sh CNNMAP SHARED_DIR CXX MODEL BOARD VECTORS [SANITIZE_FLAGS]
set -u
cnnmap=$1 shared=$2 cxx=$3 model=$shared/models/$4 board=$5 vectors=$6 sanitize=${7:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_shared "$model"
err_has() { grep -qF -- "$1" "$tmp/err"; }

expect 0 "optimise -o writes the design" -- optimise "$model" --board "$board" --backend nn2fpga -o "$tmp/d.json"
expect 0 "export --format hls" -- export "$tmp/d.json" --format hls -o "$tmp/prj" --test-vectors "$vectors"
cp "$tmp/out" "$tmp/out0"
check "the project has its parts" test -f "$tmp/prj/src/cnnmap_top.cpp" -a -f "$tmp/prj/Makefile" \
  -a -f "$tmp/prj/run_hls.tcl" -a -f "$tmp/prj/include/hls_stream.h" -a -f "$tmp/prj/tests/expected.npy"
check "the top function is a dataflow region of the design's tasks" \
  grep -q "CM_DATAFLOW_BEGIN(cnnmap_top)" "$tmp/prj/src/cnnmap_top.cpp"
check "no temporary folder is left" test -z "$(ls "$tmp" | grep -F '.tmp-')"

# The C simulation: bit-identical to cnnmap run on every frame.
csim_check "$tmp/prj" "$cxx" "$sanitize" "$vectors" ""
check "no compiler warning" test -z "$(grep -i 'warning:' "$tmp/make.log")"

# The same inputs through cnnmap run give the expected file byte for byte.
expect 0 "cnnmap run on the test inputs" -- run "$model" --input "$tmp/prj/tests/inputs.npy" -o "$tmp/run.npy" --quiet
check "tests/expected.npy is cnnmap run's output" cmp -s "$tmp/run.npy" "$tmp/prj/tests/expected.npy"
check "csim writes the same bytes" cmp -s "$tmp/run.npy" "$tmp/prj/tests/outputs.npy"

# The checking mode catches a real fault: the first skip FIFO at half the depth the design
# computed (CM_CSIM_DEPTHS overrides a depth without rebuilding).
grep '^skip FIFO' "$tmp/out0" >"$tmp/skips"
check "export names each skip FIFO's stream and depth, equal to the design's" \
  test -s "$tmp/skips" -a -z "$(grep -vE 'stream s[0-9]+.*: ([0-9]+) activations in [0-9]+ words \(the design.s: \1\)' "$tmp/skips")"
skip=$(sed -nE '1s/.*stream (s[0-9]+).* in ([0-9]+) words.*/\1 \2/p' "$tmp/skips")
if [ -n "$skip" ]; then
  set -- $skip
  CM_CSIM_DEPTHS="$1=$(($2 / 2))" "$tmp/prj/csim" "$tmp/prj/tests/inputs.npy" "$tmp/o.npy" >"$tmp/out" 2>"$tmp/err"
  code=$?
  check "a skip FIFO at half its depth deadlocks the simulation (exit $code)" test "$code" -ne 0
  check "the report names the skip stream" grep -q "stream '$1'" "$tmp/err"
  check "no output file from a deadlocked run" test ! -e "$tmp/o.npy"
fi

# Refusals.
mkdir "$tmp/full" && touch "$tmp/full/keep"
expect 2 "a non-empty folder without --force" -- export "$tmp/d.json" --format hls -o "$tmp/full"
check "the folder is untouched" test -f "$tmp/full/keep" -a "$(ls "$tmp/full")" = keep
expect 0 "--force replaces it" -- export "$tmp/d.json" --format hls -o "$tmp/full" --force --test-vectors 1
check "the old contents are gone" test ! -f "$tmp/full/keep" -a -f "$tmp/full/Makefile"
expect 0 "a fpgaConvNet design" -- optimise "$model" --board "$board" --backend fpgaconvnet \
  --no-weights-reloading -o "$tmp/f.json"
expect 2 "hls of a streaming design" -- export "$tmp/f.json" --format hls -o "$tmp/x"
check "names the architecture" err_has "nn2fpga design file"
lenet=$shared/models/lenet.onnx
expect 0 "a float model on nn2fpga" -- optimise "$lenet" --board "$board" --backend nn2fpga -o "$tmp/l.json"
expect 2 "hls of a model without Quant annotations" -- export "$tmp/l.json" --format hls -o "$tmp/y"
check "names the layer and why" err_has "Quant"
check "no folder is left" test ! -e "$tmp/y" -a -z "$(ls "$tmp" | grep -F '.tmp-')"
expect 2 "a design file that does not exist" -- export "$tmp/none.json" --format hls -o "$tmp/w"
check "says it cannot open it" err_has "cannot open"
# Models the integer flow cannot take exactly: each refusal names the node and why.
# edit_model OUT PYTHON: the model with the statement applied to m (the ModelProto).
edit_model() {
  /usr/bin/python3 - "$model" "$1" "$2" <<'PY'
import sys, onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1])
init = {i.name: i for i in m.graph.initializer}
def set_init(name, value):
    init[name].CopyFrom(numpy_helper.from_array(value, name))
exec(sys.argv[3])
onnx.save(m, sys.argv[2])
PY
}
refuse() { # DESCRIPTION MODEL TEXT
  expect 0 "$1: optimise" -- optimise "$2" --board "$board" --backend nn2fpga -o "$tmp/e.json"
  expect 2 "$1: export" -- export "$tmp/e.json" --format hls -o "$tmp/e"
  check "$1: says '$3'" err_has "$3"
  check "$1: no folder is left" test ! -e "$tmp/e" -a -z "$(ls "$tmp" | grep -F '.tmp-')"
}
edit_model "$tmp/scale.onnx" '
q = next(n for n in m.graph.node if n.op_type == "Quant" and n.input[0] not in init and
         n.input[0] != m.graph.input[0].name)
import numpy as np
set_init(q.input[1], np.array(init[q.input[1]].float_data or numpy_helper.to_array(init[q.input[1]]), dtype=np.float32) * np.float32(0.75))'
refuse "a scale that is not a power of two" "$tmp/scale.onnx" "power of two"
edit_model "$tmp/pads.onnx" '
c = next(n for n in m.graph.node if n.op_type == "Conv" and any(a.name == "pads" and list(a.ints) == [1, 1, 1, 1] for a in n.attribute))
for a in c.attribute:
    if a.name == "pads": a.ints[:] = [0, 0, 2, 2]'
refuse "asymmetric padding" "$tmp/pads.onnx" "asymmetric padding"
expect 1 "--test-vectors 0" -- export "$tmp/d.json" --format hls -o "$tmp/z" --test-vectors 0
finish
