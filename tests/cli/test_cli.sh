#!/usr/bin/env bash
# Checks cnnmap's command-line contract: usage: test_cli.sh CNNMAP SHARED_DIR SOURCE_DIR
set -u
cnnmap=$1 shared=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"



expect 0 "version" -- --version
check "version text" grep -q '^cnnmap [0-9]\+\.[0-9]\+\.[0-9]\+$' "$tmp/out"
expect 0 "help" -- --help
check "help lists commands" grep -q 'inspect' "$tmp/out"
expect 0 "inspect help" -- inspect --help
check "inspect help text" grep -q 'usage: cnnmap inspect' "$tmp/out"
expect 0 "boards help" -- boards --help
expect 1 "no command" --
expect 1 "unknown command" -- frobnicate
expect 1 "unknown option" -- inspect --frob "$shared/models/lenet.onnx"
expect 1 "missing model argument" -- inspect
expect 1 "boards takes no argument" -- boards extra

expect 2 "missing file" -- inspect "$tmp/nope.onnx"
check "message names the file" grep -q "nope.onnx" "$tmp/err"
: >"$tmp/empty.onnx"
expect 2 "empty file" -- inspect "$tmp/empty.onnx"
check "empty file message" grep -q "empty.onnx: empty file" "$tmp/err"
head -c 4096 /dev/urandom >"$tmp/random.onnx"
expect 2 "random bytes" -- inspect "$tmp/random.onnx"
head -c 20000 "$shared/models/resnet8_a8w8b16.onnx" >"$tmp/truncated.onnx"
expect 2 "truncated model" -- inspect "$tmp/truncated.onnx"
expect 2 "directory" -- inspect "$tmp"

expect 0 "inspect table" -- inspect "$shared/models/resnet8_a8w8b16.onnx"
check "table totals" grep -q 'total: 21 layers, 12501632 MACs' "$tmp/out"
expect 0 "inspect json" -- inspect --json "$shared/models/resnet8_a8w8b16.onnx"
check "inspect json keys" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["model"] == "resnet8_a8w8b16" and d["input"] == [3, 32, 32]
assert d["totals"] == dict(d["totals"], layers=21, macs=12501632, params=77706)
keys = {"name", "op", "inputs", "in_shape", "out_shape", "kernel", "stride", "pad", "groups",
        "macs", "params", "weight_bits", "act_bits"}
for l in d["layers"]:
    assert keys <= set(l), keys - set(l)
conv = d["layers"][0]
assert conv["op"] == "conv" and conv["out_shape"] == [16, 32, 32] and conv["pad"] == [1, 1, 1, 1]
assert conv["macs"] == 16 * 32 * 32 * 3 * 9 and conv["weight_bits"] == 8
add = [l for l in d["layers"] if l["op"] == "add"][0]
assert len(add["inputs"]) == 2
' "$tmp/out"
expect 0 "bundled model" -- inspect "$src/models/cifar10_quick.onnx"

expect 0 "boards table" -- boards
check "boards table lists zc706" grep -q '^zc706 ' "$tmp/out"
expect 0 "boards json" -- boards --json
check "boards json" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = {b["name"] for b in d["boards"]}
assert names == {"zedboard", "pynq-z2", "zc706", "ultra96-v2", "kv260", "zcu104", "zcu102",
                 "u200", "u250"}, names
zc706 = [b for b in d["boards"] if b["name"] == "zc706"][0]
assert zc706["resources"] == {"DSP": 900, "BRAM18": 1090, "URAM": 0, "LUT": 218600, "FF": 437200}
' "$tmp/out"

# overlay (DYNAMAP): help, bad options and files, JSON keys, same output every run.
demo="$src/models/cifar10_quick.onnx"
expect 0 "overlay help" -- overlay --help
check "overlay help text" grep -q 'usage: cnnmap overlay' "$tmp/out"
expect 1 "overlay without board" -- overlay "$demo"
expect 1 "overlay unknown algorithm" -- overlay "$demo" --board u200 --algorithms im2col,fft
check "unknown algorithm named" grep -q "'fft'" "$tmp/err"
expect 1 "overlay bad dsp limit" -- overlay "$demo" --board u200 --dsp-limit many
expect 3 "overlay dsp limit 0" -- overlay "$demo" --board u200 --dsp-limit 0
check "dsp limit 0 names DSP" grep -q "DSP" "$tmp/err"
expect 3 "overlay dsp limit too small" -- overlay "$demo" --board u200 --dsp-limit 3
check "too small names DSP" grep -q "DSP" "$tmp/err"
expect 3 "overlay winograd only" -- overlay "$demo" --board u200 --algorithms winograd
expect 2 "overlay missing model" -- overlay "$tmp/nope.onnx" --board u200
check "overlay names the model" grep -q "nope.onnx" "$tmp/err"
expect 2 "overlay random model" -- overlay "$tmp/random.onnx" --board u200
echo '{"name": "broken"' >"$tmp/board.json"
expect 2 "overlay bad board file" -- overlay "$demo" --board "$tmp/board.json"
check "overlay names the board" grep -q "board.json" "$tmp/err"
expect 0 "overlay table" -- overlay "$demo" --board u200 --dsp-limit 6084
check "overlay table array" grep -q 'systolic array [0-9]* x [0-9]*' "$tmp/out"
cp "$tmp/out" "$tmp/overlay1"
expect 0 "overlay again" -- overlay "$demo" --board u200 --dsp-limit 6084
check "overlay same output" cmp -s "$tmp/out" "$tmp/overlay1"
expect 0 "overlay json" -- overlay "$demo" --board u200 --dsp-limit 6084 --json
check "overlay json keys" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert {"model", "board", "clock_mhz", "array", "latency_s", "gops", "optimal", "layers",
        "baselines", "time_s"} <= set(d), d.keys()
assert d["board"] == "u200" and d["clock_mhz"] == 286.0 and d["optimal"] is True
assert d["array"][0] * d["array"][1] <= 6084
assert set(d["baselines"]) == {"im2col", "kn2row", "winograd", "greedy"}
assert all(d["latency_s"] <= v * (1 + 1e-12) for v in d["baselines"].values())
total = 0
for l in d["layers"]:
    assert {"name", "algorithm", "dataflow", "compute_s", "transition_s", "utilisation"} <= set(l)
    assert l["algorithm"] in ("im2col", "kn2row", "winograd", "pool", "eltwise")
    assert (l["dataflow"] in ("NS", "WS", "IS")) == (l["algorithm"] in ("im2col", "kn2row", "winograd"))
    total += l["compute_s"] + l["transition_s"]
assert abs(total - d["latency_s"]) <= 1e-9 * d["latency_s"]
' "$tmp/out"

# fpgaConvNet on the latency objective with exact (issue 13): a printed lower bound
# covers the designs it was proven for and never exceeds the answer; optimiser none
# gives each flow's resource-minimal design.
expect 0 "exact, latency objective" -- optimise "$src/models/cifar10_quick.onnx" --board zedboard --optimiser exact --json
check "the lower bound is below the answer and says what it covers" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
# exact searches both flows, so its bound covers their union, within 1% of the answer
assert d["lower_bound_covers"] == ["throughput_driven", "latency_driven"], d["lower_bound_covers"]
assert d["latency_s"] / 1.01 <= d["lower_bound_s"] <= d["latency_s"] * (1 + 1e-9)
if d["chosen"] == "latency_driven":
    t = d["throughput_driven"]
    assert "lower_bound_s" not in t or t["lower_bound_s"] <= t["latency_s"] * (1 + 1e-9)
    ld = d["latency_driven"]
    assert ld["latency_s"] == d["latency_s"]
' "$tmp/out"
expect 0 "exact, latency objective, text" -- optimise "$src/models/cifar10_quick.onnx" --board zedboard --optimiser exact
check "the text says what each lower bound covers" bash -c 'grep -q "the lower bound above covers the throughput-driven designs only" "$1" && grep -q "^lower bound .* over both flows" "$1"' _ "$tmp/out"
expect 0 "none, latency objective" -- optimise "$src/models/cifar10_quick.onnx" --board zedboard --optimiser none --json
check "none: the latency-driven minimal point" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["latency_driven"]
assert all(b["coarse"] == 1 and b["macc"] == 1 for b in d["blocks"] if b["kind"] == "Convolution")
assert len(d["schedule"]) >= 5 and d["stopped_early"] is False
' "$tmp/out"

# A full disk: the answer that cannot be written is a failure (exit 4, one line), for a
# small answer, which stdout's buffer holds until exit, as for a large one.
for format in --json ""; do
  "$cnnmap" inspect "$shared/models/lenet.onnx" $format >/dev/full 2>"$tmp/err"
  full_rc=$?
  check "inspect $format > /dev/full exits 4 (got $full_rc)" [ "$full_rc" -eq 4 ]
  check "inspect $format > /dev/full says so in one line" \
    grep -qx 'cnnmap: cannot write to standard output' "$tmp/err"
done

# The design file is saved before the answer is printed: when the answer cannot be
# written, the command fails as above and removes the file (LeNet on fpgaConvNet with
# weights reloading compares the two flows, without it it does not).
for flow in "" --no-weights-reloading; do
  for format in --json "" --csv; do
    rm -f "$tmp/full.json"
    "$cnnmap" optimise "$shared/models/lenet.onnx" --board zc706 $flow $format \
      -o "$tmp/full.json" >/dev/full 2>"$tmp/err"
    full_rc=$?
    check "optimise $flow $format -o F > /dev/full exits 4 (got $full_rc)" [ "$full_rc" -eq 4 ]
    check "optimise $flow $format -o F > /dev/full says so in one line" \
      grep -qx 'cnnmap: cannot write to standard output' "$tmp/err"
    check "optimise $flow $format -o F > /dev/full leaves no file" [ ! -e "$tmp/full.json" ]
    check "optimise $flow $format -o F > /dev/full: one line on stderr" \
      [ "$(wc -l <"$tmp/err")" -eq 1 ]
  done
done

# Every other command that writes files beside its answer ends the same way: exit 4, the
# one line, and none of its files left (before, compare, simulate and multi in text exited
# 4 without a word, and every one of them left its files).
lenet=$shared/models/lenet.onnx
"$cnnmap" optimise "$lenet" --board zc706 --backend finn -o "$tmp/finn.json" >/dev/null 2>&1
/usr/bin/python3 -c 'import numpy, sys; numpy.save(sys.argv[1], numpy.zeros((1, 1, 28, 28), numpy.float32))' \
  "$tmp/x.npy"
full_cases=(
  "overlay|overlay $lenet --board u200 -o F1"
  "overlay --json|overlay $lenet --board u200 -o F1 --json"
  "nn2fpga|optimise $shared/models/resnet8_a8w8b16.onnx --board kv260 --backend nn2fpga -o F1"
  "nn2fpga --json|optimise $shared/models/resnet8_a8w8b16.onnx --board kv260 --backend nn2fpga -o F1 --json"
  "nn2fpga --csv|optimise $shared/models/resnet8_a8w8b16.onnx --board kv260 --backend nn2fpga -o F1 --csv"
  "multi|multi --board zc706 --model $lenet --model $lenet -o F1 --report-md F2"
  "multi --json|multi --board zc706 --model $lenet --model $lenet -o F1 --report-md F2 --json"
  "compare|compare $lenet --board zc706 --time-limit 2 -o F1"
  "compare --json|compare $lenet --board zc706 --time-limit 2 -o F1 --json"
  "simulate|simulate $tmp/finn.json -o F1"
  "simulate --json|simulate $tmp/finn.json -o F1 --json"
  "sweep|sweep $lenet --board zc706 --steps 2 -o F1.csv"
  "run|run $lenet --input $tmp/x.npy -o F1"
  "run --json|run $lenet --input $tmp/x.npy -o F1 --json"
)
for case in "${full_cases[@]}"; do
  name=${case%%|*} cmd=${case#*|}
  cmd=${cmd//F1/$tmp/full1} cmd=${cmd//F2/$tmp/full2}
  rm -f "$tmp/full1"* "$tmp/full2"*
  # shellcheck disable=SC2086  # the case's words
  "$cnnmap" $cmd >/dev/full 2>"$tmp/err"
  full_rc=$?
  check "$name > /dev/full exits 4 (got $full_rc)" [ "$full_rc" -eq 4 ]
  check "$name > /dev/full says so in one line" \
    grep -qx 'cnnmap: cannot write to standard output' "$tmp/err"
  check "$name > /dev/full: one line on stderr" [ "$(wc -l <"$tmp/err")" -eq 1 ]
  # (F1.csv too: sweep's output)
  check "$name > /dev/full leaves no file" \
    bash -c 'shopt -s nullglob; f=("$1"* "$2"*); [ ${#f[@]} -eq 0 ]' _ "$tmp/full1" "$tmp/full2"
done

# A failed command removes only a file it wrote. An output that is a device, or a
# symbolic link to one, was written through and stays: as root, `-o /dev/null` of a
# command whose answer could not be printed deleted /dev/null itself.
ln -s /dev/null "$tmp/null_link"
nodes=("$tmp/null_link")
if mknod "$tmp/null_dev" c 1 3 2>/dev/null; then # root (as in CI): a device of its own
  nodes+=("$tmp/null_dev")
fi
for node in "${nodes[@]}"; do
  "$cnnmap" optimise "$lenet" --board zc706 -o "$node" >/dev/full 2>"$tmp/err"
  full_rc=$?
  check "optimise -o ${node##*/} > /dev/full exits 4 (got $full_rc)" [ "$full_rc" -eq 4 ]
  check "optimise -o ${node##*/} > /dev/full leaves it in place" \
    bash -c '[ -L "$1" ] || [ -c "$1" ]' _ "$node"
  "$cnnmap" multi --board zc706 --model "$lenet" --model "$lenet" -o "$node" \
    --report-md /dev/full >/dev/null 2>"$tmp/err"
  check "multi -o ${node##*/} --report-md /dev/full leaves it in place" \
    bash -c '[ -L "$1" ] || [ -c "$1" ]' _ "$node"
done

finish
