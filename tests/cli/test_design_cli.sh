#!/usr/bin/env bash
# Command-line tests of optimise, evaluate and export (cli.md): exit codes, one-line
# errors, no output file after a failure, and `evaluate` printing exactly what
# `optimise` printed. usage: test_design_cli.sh CNNMAP SHARED_DIR
set -u
cnnmap=$1 shared=$2
model=$shared/models/lenet.onnx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# run CODE DESCRIPTION ARGS...: runs cnnmap and checks the exit code; for codes >= 2,
# stderr must be one line starting "cnnmap: ".
run() {
  local code=$1 what=$2; shift 2
  "$cnnmap" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  local got=$? ok=1
  [ "$got" -eq "$code" ] || ok=0
  if [ "$code" -ge 2 ]; then
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^cnnmap: ' "$tmp/err" || ok=0
  fi
  if [ $ok -eq 1 ]; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: $what: exit $got (want $code)"; sed 's/^/  stderr: /' "$tmp/err" | head -5
  fi
}
check() {
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $what"; fi
}

run 0 "optimise help" optimise --help
check "optimise usage" grep -q 'usage: cnnmap optimise' "$tmp/out"
run 0 "evaluate help" evaluate --help
run 0 "export help" export --help
run 1 "optimise without board" optimise "$model" --optimiser none
run 1 "unknown backend" optimise "$model" --board zc706 --backend verilog
run 1 "unknown objective" optimise "$model" --board zc706 --objective speed
run 1 "bad batch" optimise "$model" --board zc706 --batch 0
run 1 "missing option value" optimise "$model" --board
run 2 "unknown board" optimise "$model" --board nosuchboard --optimiser none
run 2 "missing model" optimise "$tmp/none.onnx" --board zc706 --optimiser none

for backend in fpgaconvnet finn hls4ml; do
  d=$tmp/$backend.json
  run 0 "optimise $backend" optimise "$model" --board zc706 --backend "$backend" --optimiser none -o "$d" --json
  cp "$tmp/out" "$tmp/optimise.json"
  cp "$tmp/out" "$tmp/optimise_$backend.json"
  check "$backend design written" test -s "$d"
  run 0 "evaluate $backend" evaluate "$d" --json
  check "$backend: evaluate prints what optimise printed" /usr/bin/python3 -c '
import json, sys
# The latency-driven search (fpgaconvnet) runs again in evaluate: only its own time
# may differ.
def strip(d):
    ld = d.get("latency_driven")
    if isinstance(ld, dict):
        ld.pop("time_s", None)
        for v in ld.values():
            if isinstance(v, dict):
                v.pop("time_s", None)
    return d
a, b = (strip(json.load(open(f))) for f in sys.argv[1:3])
assert a == b
' "$tmp/out" "$tmp/optimise.json"
  run 0 "export $backend" export "$d" --format "$backend" -o "$tmp/$backend.export.json"
  check "$backend export written" test -s "$tmp/$backend.export.json"
done
check "summary keys" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ["model", "board", "backend", "objective", "batch", "clock_mhz", "feasible", "latency_s",
          "latency_cycles", "throughput_fps", "gops", "partitions", "resources", "board_resources",
          "optimiser"]:
    assert k in d, k
assert d["board"] == "zc706" and d["backend"] == "hls4ml" and d["feasible"] is True
assert set(d["resources"]) >= {"DSP", "BRAM18", "URAM", "LUT", "FF"}
assert abs(d["throughput_fps"] * d["latency_s"] - d["batch"]) < 1e-9
# hls4ml, every kernel folding 1: conv2 reads 12x12 pixels, RF = 20*25*50 = 25000
conv2 = [n for n in d["nodes"] if n["name"] == "convolution1"][0]
assert conv2["parameters"]["ReuseFactor"] == 25000 and conv2["cycles"] == 144 * 25000
' "$tmp/optimise.json"
run 0 "export finn-v0.6" export "$tmp/finn.json" --format finn-v0.6 -o "$tmp/finn.export.json"
check "finn export keyed by FINN node name" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["StreamingFCLayer_Batch_0"]["PE"] == 1 and d["StreamingFCLayer_Batch_0"]["SIMD"] == 1
assert "ConvolutionInputGenerator_0" in d
' "$tmp/finn.export.json"

# LeNet's 400K 16-bit weights do not fit a ZedBoard on fpgaConvNet: exit 3, the layer
# and the resource named, no design file left behind.
run 3 "lenet on zedboard" optimise "$model" --board zedboard --optimiser none --no-weights-reloading -o "$tmp/z.json"
check "infeasible names the resource" grep -q 'BRAM18.*innerProduct' "$tmp/err"
check "no design file after failure" test ! -e "$tmp/z.json"
run 1 "export format of another backend" export "$tmp/finn.json" --format hls4ml -o "$tmp/x.json" 
run 1 "unknown export format" export "$tmp/finn.json" --format verilog -o "$tmp/x.json"
check "no export file after failure" test ! -e "$tmp/x.json"

# The rule optimiser (the default) and its design file.
run 0 "resource-minimal, partitioned space" optimise "$model" --board zc706 --optimiser none --no-weights-reloading --json
cp "$tmp/out" "$tmp/none_nowr.json"
run 0 "rule on lenet zc706" optimise "$model" --board zc706 --no-weights-reloading -o "$tmp/rule.json" --json
check "rule design is feasible and faster than the resource-minimal one" /usr/bin/python3 -c '
import json, sys
rule = json.load(open(sys.argv[1]))
init = json.load(open(sys.argv[2]))
assert rule["feasible"] and rule["optimiser"]["name"] == "rule"
assert rule["latency_s"] < init["latency_s"] / 10, (rule["latency_s"], init["latency_s"])
' "$tmp/out" "$tmp/none_nowr.json"
run 0 "evaluate rule design" evaluate "$tmp/rule.json"
run 3 "rule on lenet zedboard" optimise "$model" --board zedboard --quiet --no-weights-reloading
check "rule infeasible names the layer" grep -q 'innerProduct' "$tmp/err"
# With weights reloading (the default at batch 1) LeNet fits a ZedBoard: the
# latency-driven design loads the dense layer's weights in pieces.
run 0 "lenet on zedboard, latency-driven" optimise "$model" --board zedboard --json
check "latency-driven design chosen" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["chosen"] == "latency_driven" and d["feasible"], d["chosen"]
assert d["latency_driven"]["feasible"] and len(d["latency_driven"]["schedule"]) >= 1
assert d["latency_s"] == d["latency_driven"]["latency_s"]
' "$tmp/out"

# Hand-edited design files (the partitioned design alone: --no-weights-reloading).
run 0 "throughput-space design" optimise "$model" --board zc706 --optimiser none --no-weights-reloading -o "$tmp/fpgaconvnet.json"
edit() { /usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
$1
json.dump(d, open(sys.argv[2], 'w'))
" "$tmp/fpgaconvnet.json" "$tmp/edited.json"; }
edit 'd["nodes"][1]["channel_in_folding"] = 3'
run 3 "folding not a factor" evaluate "$tmp/edited.json"
check "violation names node and constraint" grep -q 'pooling.*channel factor' "$tmp/err"
edit 'd["nodes"][1]["channel_in_folding"] = 4; d["nodes"][1]["channel_out_folding"] = 2'
run 3 "intra matching" evaluate "$tmp/edited.json"
check "intra violation named" grep -q 'intra folding matching' "$tmp/err"
edit 'd["nodes"][1]["name"] = "nosuch"'
run 2 "unknown node" evaluate "$tmp/edited.json"
check "unknown node named" grep -q "unknown node 'nosuch'" "$tmp/err"
edit 'd["board"] = "nosuchboard"'
run 2 "wrong board" evaluate "$tmp/edited.json"
edit 'del d["nodes"][3]'
run 2 "missing node" evaluate "$tmp/edited.json"
edit 'd["nodes"][2]["partition"] = 1'
run 2 "partition out of order" evaluate "$tmp/edited.json"
edit 'd["weights_reloading"] = "yes"'
run 2 "weights_reloading not a boolean" evaluate "$tmp/edited.json"
check "names the key" grep -q 'weights_reloading' "$tmp/err"
run 1 "evaluate unknown option" evaluate "$tmp/fpgaconvnet.json" --frob
printf '{"format": "cnnmap-design",' >"$tmp/broken.json"
run 2 "truncated design file" evaluate "$tmp/broken.json"
run 2 "missing design file" evaluate "$tmp/none.json"
run 1 "evaluate without design" evaluate

# The nn2fpga backend (issue 5): summary keys, residual switches, float models, a board
# with too few DSPs (exit 3 naming DSP, no report left behind).
r8=$shared/models/resnet8_a8w8b16.onnx
run 0 "nn2fpga resnet8" optimise "$r8" --board kv260 --backend nn2fpga --json -o "$tmp/n2.json"
check "nn2fpga summary and own keys" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ["model", "board", "backend", "objective", "batch", "clock_mhz", "feasible", "latency_s",
          "latency_cycles", "throughput_fps", "gops", "partitions", "resources", "board_resources",
          "optimiser", "period_cycles", "phases", "layers", "skip_connections", "skip_storage"]:
    assert k in d, k
assert d["backend"] == "nn2fpga" and d["optimal"] and len(d["phases"]) == 2
assert d["skip_storage"]["bits_after"] < d["skip_storage"]["bits_before"]
assert json.load(open(sys.argv[2]))["period_cycles"] == d["period_cycles"]
' "$tmp/out" "$tmp/n2.json"
run 0 "nn2fpga without residual rewrites" optimise "$r8" --board kv260 --backend nn2fpga --json --no-temporal-reuse --no-loop-merge
check "nn2fpga storage unchanged when both are off" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["skip_storage"]["bits_after"] == d["skip_storage"]["bits_before"]
assert len(d["layers"]) == 11
' "$tmp/out"
run 0 "nn2fpga exact" optimise "$r8" --board ultra96-v2 --backend nn2fpga --optimiser exact
check "nn2fpga table" grep -q 'period S' "$tmp/out"
run 0 "nn2fpga float model" optimise "$model" --board zedboard --backend nn2fpga --bits 8
check "nn2fpga float warning" grep -q 'warning: .*Quant' "$tmp/err"
run 1 "nn2fpga rule refused" optimise "$r8" --board kv260 --backend nn2fpga --optimiser rule
sed 's/"DSP": 220/"DSP": 20/; s/"name": "zedboard"/"name": "fewdsp"/' "$(dirname "$0")/../../boards/zedboard.json" >"$tmp/fewdsp.json"
run 3 "nn2fpga too few DSPs" optimise "$r8" --board "$tmp/fewdsp.json" --backend nn2fpga -o "$tmp/n2fail.json"
check "nn2fpga infeasible names DSP" grep -q 'DSP' "$tmp/err"
check "nn2fpga no report after failure" test ! -e "$tmp/n2fail.json"

# multi (f-CNNx): two LeNets sharing one ZC706.
run 0 "multi help" multi --help
check "multi usage" grep -q 'usage: cnnmap multi' "$tmp/out"
run 1 "multi with one model" multi --board zc706 --model "$model"
run 1 "multi bad fps" multi --board zc706 --model "$model:fast" --model "$model"
run 1 "multi zero fps" multi --board zc706 --model "$model:0" --model "$model"
run 1 "multi zero bandwidth" multi --board zc706 --model "$model" --model "$model" --bandwidth 0
run 1 "multi unknown scheduler" multi --board zc706 --model "$model" --model "$model" --scheduler greedy
run 2 "multi missing model" multi --board zc706 --model "$model" --model "$tmp/none.onnx" -o "$tmp/multi.json"
check "no design after a failure" test ! -e "$tmp/multi.json"
printf '{"name": "tiny", "display_name": "Tiny", "part": "x", "memory": "x", "resources": {"LUT": 4000, "FF": 8000, "DSP": 20, "BRAM": 30, "URAM": 0}, "bram_unit": "BRAM18", "clock_mhz": 100.0, "bandwidth_gbps": 1.0, "peak_bandwidth_gbps": 1.0, "reconfiguration_s": 0.1, "reconfiguration_estimated": true}' >"$tmp/tiny.json"
run 3 "multi too many for the board" multi --board "$tmp/tiny.json" --model "$model" --model "$model" --model "$model" -o "$tmp/multi.json"
check "infeasible names a resource" grep -Eq 'DSP|BRAM18|LUT|FF|no engine fits' "$tmp/err"
check "no design after infeasible" test ! -e "$tmp/multi.json"
run 0 "multi two lenets" multi --board zc706 --model "$model:1000" --model "$model" --bandwidth 0.5 --json -o "$tmp/multi.json" --report-md "$tmp/multi.md"
check "multi json keys" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"board", "objective", "objective_value", "bandwidth_gbps", "models", "baseline", "schedule", "time_s"}, sorted(d)
assert d["objective"] == "fps" and d["bandwidth_gbps"] == 0.5 and len(d["models"]) == 2
for m in d["models"]:
    assert set(m) == {"model", "target_fps", "fps", "gops", "resources"}
    assert set(m["resources"]) == {"DSP", "BRAM18", "LUT", "FF"}
    assert 0 < m["fps"] <= m["target_fps"] * (1 + 1e-9)
assert d["models"][0]["target_fps"] <= 1000
assert set(d["baseline"]) == {"objective_value", "models"}
assert d["objective_value"] <= d["baseline"]["objective_value"] + 1e-12
for s in d["schedule"]:
    assert set(s) == {"model", "subgraph", "start_s", "slowdown", "slots"}
    assert 0 < s["slowdown"] <= 1 and s["slots"] >= 1
' "$tmp/out"
check "multi design has the slot table" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "cnnmap-multi-design" and len(d["slot_table"]) >= 2
assert all(t["slots"] >= 1 and t["rounds"] >= 0 for t in d["slot_table"])
' "$tmp/multi.json"
check "multi report has the slot table" grep -q 'slot table' "$tmp/multi.md"
cp "$tmp/out" "$tmp/multi1"
run 0 "multi again" multi --board zc706 --model "$model:1000" --model "$model" --bandwidth 0.5 --json
check "multi deterministic" /usr/bin/python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
del a["time_s"], b["time_s"]
assert a == b
' "$tmp/multi1" "$tmp/out"
run 0 "multi ilp" multi --board zc706 --model "$model" --model "$model" --objective throughput --scheduler ilp --json
run 0 "export a multi design as report-md" export "$tmp/multi.json" --format report-md -o "$tmp/multi2.md"
check "exported report equals multi's" cmp -s <(grep -v 'joint design' "$tmp/multi.md") <(grep -v 'joint design' "$tmp/multi2.md")
/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["inputs"]; json.dump(d, open(sys.argv[2], "w"))' "$tmp/multi.json" "$tmp/multi_noinputs.json"
run 2 "multi design without its inputs" export "$tmp/multi_noinputs.json" --format report-md -o "$tmp/x.md"
check "no report after failure" test ! -e "$tmp/x.md"
run 2 "report-md of a missing file" export "$tmp/none.json" --format report-md -o "$tmp/x.md"
run 0 "export a streaming design as report-md" export "$tmp/finn.json" --format report-md -o "$tmp/finn.md"
check "streaming report lists the nodes" grep -q 'StreamingFCLayer_Batch_0' "$tmp/finn.md"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
