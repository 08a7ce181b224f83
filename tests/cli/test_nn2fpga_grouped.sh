#!/usr/bin/env bash
# nn2FPGA grouped convolutions (issue 16) on the command line, on the shared QONNX
# ResNet-8 with three grouped convolutions (tests/models/make_grouped.py): the cost model
# works each grouped layer's figures out as eq. 4.8 over a group's channels (checked here
# by hand from the design's own factors), a factor that divides the layer's channels but
# not a group's is refused, the HLS project's C simulation is bit-identical to `cnnmap
# run`, and the cycle-level simulation runs at the design's period.
# usage: test_nn2fpga_grouped.sh CNNMAP MODEL BOARD CXX VECTORS [SANITIZE_FLAGS]
set -u
cnnmap=$1 model=$2 board=$3 cxx=$4 vectors=$5 sanitize=${6:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
py=/usr/bin/python3
need_shared "$model"

# The importer keeps the groups; the MACs are a group's channels' (hand count: Conv_1
# 32*32 pixels x 16 filters x 4 channels x 9 taps).
expect 0 "inspect" -- inspect "$model" --json
check "Conv_1: 4 groups, 589,824 MACs" $py -c '
import json, sys
layers = {l["name"]: l for l in json.load(open(sys.argv[1]))["layers"]}
assert layers["Conv_1"]["groups"] == 4 and layers["Conv_1"]["macs"] == 32 * 32 * 16 * 4 * 9, layers["Conv_1"]
assert layers["Conv_5"]["groups"] == 8 and layers["Conv_6"]["groups"] == 2
' "$tmp/out"

expect 0 "optimise --backend nn2fpga -o" -- optimise "$model" --board "$board" --backend nn2fpga -o "$tmp/d.json" --json
cp "$tmp/out" "$tmp/opt.json"
check "each grouped layer: factors divide a group's channels, Lc is eq. 4.8 over them" $py -c '
import json, sys
d = json.load(open(sys.argv[1]))
grouped = [l for l in d["layers"] if l["groups"] > 1]
assert sorted(l["name"] for l in grouped) == ["Conv_1", "Conv_5", "Conv_6"], grouped
for l in grouped:
    g = l["groups"]
    (ich, _, _), (och, oh, ow), (fh, fw) = l["in_shape"], l["out_shape"], l["kernel"]
    assert (ich // g) % l["ich_par"] == 0 and (och // g) % l["och_par"] == 0, l
    lc = oh * ow * och * (ich // g) // (l["ow_par"] * l["och_par"] * l["ich_par"]) + l["ich_par"] * fh * fw
    assert l["lc"] == lc, (l["name"], l["lc"], lc)
    assert l["lc"] <= d["period_cycles"]
# loop merge keeps to ungrouped convolutions: Conv_7 (the 1x1 shortcut beside the grouped
# Conv_6) is a task of its own, Conv_4 is fused into the ungrouped Conv_3
names = [l["name"] for l in d["layers"]]
assert "Conv_7" in names and "Conv_3+Conv_4" in names, names
' "$tmp/opt.json"
expect 0 "evaluate the design" -- evaluate "$tmp/d.json"

# A factor that divides the layer's 16 input channels but not a group's 4 is infeasible.
$py - "$tmp/d.json" "$tmp/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for l in d["layers"]:
    if l["name"] == "Conv_1":
        l["ich_par"] = 8
json.dump(d, open(sys.argv[2], "w"))
PY
expect 3 "evaluate: ich_par 8 on Conv_1's groups of 4" -- evaluate "$tmp/bad.json"
check "names the layer and a group's channels" grep -q "Conv_1: ich_par 8 does not divide the input channels of a group 4" "$tmp/err"

# The generated project: bit-identical to cnnmap run on random frames.
expect 0 "export --format hls" -- export "$tmp/d.json" --format hls -o "$tmp/prj" --test-vectors "$vectors"
check "the grouped engine is instantiated with its groups" \
  grep -qE 'cm::conv<.*, 4>\(' "$tmp/prj/src/cnnmap_top.cpp"
csim_check "$tmp/prj" "$cxx" "$sanitize" "$vectors" "of the grouped design"
expect 0 "cnnmap run on the test inputs" -- run "$model" --input "$tmp/prj/tests/inputs.npy" -o "$tmp/run.npy" --quiet
check "csim writes cnnmap run's bytes" cmp -s "$tmp/run.npy" "$tmp/prj/tests/outputs.npy"

# The cycle-level simulation of the same tasks: no deadlock at the generated depths and
# the interval within 1 % of the period S.
expect 0 "simulate" -- simulate "$tmp/d.json" --frames 3 --json --quiet
check "simulated interval within 1 % of S, no deadlock" $py -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["deadlock"] is False, s
assert abs(s["difference"]["interval"]) <= 0.01, s["difference"]
' "$tmp/out"
finish
