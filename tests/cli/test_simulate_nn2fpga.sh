#!/usr/bin/env bash
# nn2FPGA stream depths from the simulator to the HLS project (issue 15): `simulate
# --fifo-depths auto -o` writes "fifo_depths" into the design; `export --format hls` of
# that design puts exactly those depths into the top function's depth pragmas, and the
# project's C simulation (threaded dataflow, every stream bounded to its depth) runs
# bit-identical to `cnnmap run` without blocking; simulating the written design at its
# own depths gives the interval the sizing kept. Bad "fifo_depths" (a stream the
# generated top function does not declare, a depth below 1, not an object) are exit 2
# naming the file and the field.
# usage: test_simulate_nn2fpga.sh CNNMAP SHARED_DIR CXX MODEL BOARD VECTORS [SANITIZE_FLAGS]
set -u
cnnmap=$1 shared=$2 cxx=$3 model=$shared/models/$4 board=$5 vectors=$6 sanitize=${7:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_shared "$model"
py() { /usr/bin/python3 - "$@"; }

expect 0 "optimise -o writes the design" -- optimise "$model" --board "$board" --backend nn2fpga -o "$tmp/d.json"
expect 0 "simulate --fifo-depths auto -o" -- simulate "$tmp/d.json" --fifo-depths auto -o "$tmp/auto.json" --json
cp "$tmp/out" "$tmp/auto_run.json"
check "the sized design has fifo_depths for generated streams only" py "$tmp/auto.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])).get("fifo_depths", {})
sys.exit(0 if d and all(k.startswith("s") and v >= 1 for k, v in d.items()) and "in" not in d else 1)
PY

# The export takes those depths, stream by stream.
expect 0 "export of the sized design" -- export "$tmp/auto.json" --format hls -o "$tmp/prj" --test-vectors "$vectors"
check "every depth pragma is the design's fifo_depths" py "$tmp/auto.json" "$tmp/prj/src/cnnmap_top.cpp" <<'PY'
import json, re, sys
want = json.load(open(sys.argv[1]))["fifo_depths"]
got = dict(re.findall(r"CM_STREAM_DEPTH\((s\d+), (\d+)\)", open(sys.argv[2]).read()))
sys.exit(0 if {k: int(v) for k, v in got.items()} == want else 1)
PY
csim_check "$tmp/prj" "$cxx" "$sanitize" "$vectors" "at the sized depths"

# The written design simulates at its own depths as sized.
expect 0 "simulate the sized design at its depths" -- simulate "$tmp/auto.json" --json
check "same interval and no deadlock at the written depths" py "$tmp/auto_run.json" "$tmp/out" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
same = a["simulated"]["interval_cycles"] == b["simulated"]["interval_cycles"]
sys.exit(0 if same and not b["deadlock"] else 1)
PY

# Bad fifo_depths.
edit() { py "$tmp/d.json" "$tmp/bad.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["fifo_depths"] = json.loads(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
edit '{"s9999": 4}'
expect 2 "an unknown stream" -- evaluate "$tmp/bad.json"
check "the message names the file, the field and the stream" grep -q "bad.json: fifo_depths: no stream \"s9999\"" "$tmp/err"
edit '{"s1": 0}'
expect 2 "a depth of 0" -- simulate "$tmp/bad.json"
check "the message names the file and the stream" grep -q "bad.json: fifo_depths: \"s1\"" "$tmp/err"
edit '[1, 2]'
expect 2 "fifo_depths not an object" -- export "$tmp/bad.json" --format hls -o "$tmp/prj2"
check "no project from a bad design" test ! -e "$tmp/prj2"
finish
