#!/usr/bin/env bash
# `cnnmap compare`: every architecture present with figures or a reason, each figure the
# one its own command prints for the same model and board, the best marked; usage and
# input errors; exit 3 when no architecture fits.
# Usage: test_compare_cli.sh CNNMAP SHARED_DIR MODELS_DIR
cnnmap=$1 shared=$2 models=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
lenet=$models/zoo/lenet_zoo.onnx
resnet8=$shared/models/resnet8_a8w8b16.onnx
need_shared "$resnet8"

expect 0 "compare LeNet" -- compare "$lenet" --board zc706 --json
cp "$tmp/out" "$tmp/lenet.json"
expect 0 "fpgaConvNet's partitioned design alone" -- optimise "$lenet" --board zc706 \
  --optimiser exact --no-weights-reloading --json --quiet
cp "$tmp/out" "$tmp/lenet_fcn.json"
expect 0 "the overlay alone" -- overlay "$lenet" --board zc706 --json
cp "$tmp/out" "$tmp/lenet_overlay.json"
check "LeNet: every architecture has figures or a reason; the best is the lowest latency; \
figures equal the commands' own" $py -c '
import json, sys
c = json.load(open(sys.argv[1]))
fcn = json.load(open(sys.argv[2]))
ov = json.load(open(sys.argv[3]))
cands = c["candidates"]
assert [(x["architecture"], x["backend"]) for x in cands] == [
    ("streaming", "fpgaconvnet"), ("streaming", "finn"), ("streaming", "hls4ml"),
    ("latency_driven", "fpgaconvnet"), ("nn2fpga", "nn2fpga"), ("overlay", "dynamap")], cands
for x in cands:
    assert x["feasible"] and x["latency_s"] > 0 or x["reason"], x
    if x["feasible"]:
        assert x["lower_bound_s"] is None or x["lower_bound_s"] <= x["latency_s"] * (1 + 1e-12), x
feasible = [i for i, x in enumerate(cands) if x["feasible"]]
best = min(feasible, key=lambda i: cands[i]["latency_s"])
assert c["best"] == best, (c["best"], best)
assert cands[0]["latency_s"] == fcn["latency_s"], (cands[0]["latency_s"], fcn["latency_s"])
assert cands[0]["optimal"] and cands[0]["lower_bound_s"] == fcn["lower_bound_s"]
assert cands[5]["latency_s"] == ov["latency_s"]
assert "not quantised" in cands[4]["reason"]
assert c["model"] == "lenet_zoo" and c["board"] == "zc706" and c["objective"] == "latency"
' "$tmp/lenet.json" "$tmp/lenet_fcn.json" "$tmp/lenet_overlay.json"

expect 0 "compare ResNet8 (QONNX)" -- compare "$resnet8" --board zc706 --json
cp "$tmp/out" "$tmp/resnet8.json"
expect 0 "nn2FPGA alone" -- optimise "$resnet8" --board zc706 --backend nn2fpga \
  --objective latency --json
cp "$tmp/out" "$tmp/resnet8_n2.json"
expect 0 "the latency-driven flow alone" -- optimise "$resnet8" --board zc706 \
  --backend fpgaconvnet --objective latency --optimiser exact --json --quiet
cp "$tmp/out" "$tmp/resnet8_ld.json"
check "ResNet8: nn2FPGA and the latency-driven flow (skip connections through memory) map it \
with their own commands' figures" $py -c '
import json, sys
c = json.load(open(sys.argv[1]))
n2 = json.load(open(sys.argv[2]))
n = c["candidates"][4]
assert n["feasible"] and n["latency_s"] == n2["latency_s"], (n, n2["latency_s"])
assert n["resources"]["DSP"] == n2["resources"]["DSP"]
ld, own = c["candidates"][3], json.load(open(sys.argv[3]))["latency_driven"]
assert ld["available"] and ld["feasible"] and ld["optimal"], ld
assert ld["latency_s"] == own["latency_s"], (ld, own)
assert all(ld["resources"][k] == own["resources"][k] for k in ("DSP", "BRAM18", "LUT", "FF"))
' "$tmp/resnet8.json" "$tmp/resnet8_n2.json" "$tmp/resnet8_ld.json"

expect 0 "text table" -- compare "$lenet" --board zc706 --only finn,overlay
check "text: the best row is starred and unsearched rows say so" $py -c '
import sys
t = open(sys.argv[1]).read()
rows = [l for l in t.splitlines() if l[:2] in ("* ", "  ") and ("streaming" in l or "overlay" in l or "nn2fpga " in l or "latency_driven" in l)]
assert len(rows) == 6, rows
assert sum(l.startswith("*") for l in rows) == 1
assert "best       " in t
' "$tmp/out"

expect 0 "throughput objective" -- compare "$lenet" --board zc706 --objective throughput \
  --batch 8 --only fpgaconvnet,latency-driven --json
check "throughput: the best is the highest throughput; batch 8 recorded" $py -c '
import json, sys
c = json.load(open(sys.argv[1]))
assert c["objective"] == "throughput" and c["batch"] == 8
f = [i for i, x in enumerate(c["candidates"]) if x["feasible"]]
assert c["best"] == max(f, key=lambda i: c["candidates"][i]["throughput_fps"])
' "$tmp/out"

# a board with one DSP and one BRAM: nothing fits, the table still prints
cat >"$tmp/tiny.json" <<'EOF'
{"name": "tiny", "display_name": "Tiny", "part": "none", "memory": "none",
 "resources": {"LUT": 1000, "FF": 2000, "DSP": 1, "BRAM": 1, "URAM": 0}, "bram_unit": "BRAM18",
 "clock_mhz": 100.0, "bandwidth_gbps": 1.0, "peak_bandwidth_gbps": 1.0,
 "reconfiguration_s": 0.01, "reconfiguration_estimated": true}
EOF
"$cnnmap" compare "$lenet" --board "$tmp/tiny.json" --json >"$tmp/out" 2>"$tmp/err"
code=$?
check "no architecture fits: exit 3, one line, the table on stdout" \
  bash -c '[ '$code' -eq 3 ] && [ "$(wc -l <"$1")" -eq 1 ] && grep -q "no architecture fits" "$1" \
    && /usr/bin/python3 -c "import json,sys; c=json.load(open(sys.argv[1])); assert c[\"best\"] is None" "$2"' \
  _ "$tmp/err" "$tmp/out"

# -o writes the best design, which evaluate and export read as its architecture's file
expect 0 "compare -o" -- compare "$resnet8" --board zc706 --json -o "$tmp/best.json"
cp "$tmp/out" "$tmp/best_compare.json"
expect 0 "evaluate the best design" -- evaluate "$tmp/best.json" --json
check "the best design's file evaluates to the figures compare printed" $py -c '
import json, sys
c = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))
best = c["candidates"][c["best"]]
assert e["latency_s"] == best["latency_s"], (e["latency_s"], best["latency_s"])
assert e["resources"]["DSP"] == best["resources"]["DSP"]
' "$tmp/best_compare.json" "$tmp/out"
expect 0 "export the best design" -- export "$tmp/best.json" --format report-md -o "$tmp/best.md"
check "its report names the model" grep -q "resnet8_a8w8b16" "$tmp/best.md"
"$cnnmap" compare "$lenet" --board "$tmp/tiny.json" --only fpgaconvnet,overlay -o "$tmp/none.json" \
  >/dev/null 2>"$tmp/err"
check "no architecture fits: exit 3 and no design written" \
  bash -c '[ $1 -eq 3 ] && [ ! -e "$2" ] && grep -q "no design written" "$3"' _ $? "$tmp/none.json" "$tmp/err"
expect 1 "-o ''" -- compare "$lenet" --board zc706 -o ''

expect 1 "no board" -- compare "$lenet"
expect 1 "unknown architecture" -- compare "$lenet" --board zc706 --only finn,fpga
expect 1 "unknown objective" -- compare "$lenet" --board zc706 --objective speed
expect 1 "two models" -- compare "$lenet" "$lenet" --board zc706
expect 2 "missing model" -- compare "$tmp/none.onnx" --board zc706
expect 2 "unknown board" -- compare "$lenet" --board nosuchboard
finish
