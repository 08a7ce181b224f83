#!/usr/bin/env bash
# FIFO depths of streaming designs from the command line (issue 15) and simulate's time
# limit (issue 21): for LeNet on each streaming backend, `simulate --fifo-depths auto -o`
# writes "fifo_depths", and the written design simulated at its own depths (the default
# --fifo-depths design) runs at exactly the analytic interval, with the recorded depths;
# evaluate counts the FIFOs' memory; the FINN export carries inFIFODepths; a bad
# "fifo_depths" is exit 2 naming the file and the field; FIFOs that push a design over
# its board are exit 3 naming the resource with nothing written; --time-limit cuts a
# long simulation (exit 3, "stopped_early", "partial", "warnings", nothing written).
# usage: test_simulate_fifo_cli.sh CNNMAP SOURCE_DIR TEST_MODELS_DIR
set -u
cnnmap=$1 src=$2 models=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
lenet=$models/zoo/lenet_zoo.onnx
mkdir "$tmp/out_dir"
expect_after_failure() { [ -z "$(ls "$tmp/out_dir")" ]; }
names_file() { grep -qF "$1" "$tmp/err"; }

for b in fpgaconvnet finn hls4ml; do
  d=$tmp/lenet_$b.json auto=$tmp/lenet_${b}_auto.json
  expect 0 "$b: optimise LeNet" -- optimise "$lenet" --board u250 --backend $b \
    --no-weights-reloading -o "$d" --quiet
  expect 0 "$b: evaluate it" -- evaluate "$d" --json
  cp "$tmp/out" "$tmp/eval_before.json"
  expect 0 "$b: simulate --fifo-depths auto -o" -- simulate "$d" --fifo-depths auto -o "$auto" \
    --json --quiet
  cp "$tmp/out" "$tmp/sim_auto.json"
  expect 0 "$b: simulate the written design at its own depths" -- simulate "$auto" --json --quiet
  cp "$tmp/out" "$tmp/sim_design.json"
  check "$b: the written design runs at the analytic interval with the recorded depths" $py -c '
import json, sys
f, a, s = (json.load(open(p)) for p in sys.argv[1:4])
rec = f["fifo_depths"]
assert rec and all(isinstance(v, int) and v >= 1 for v in rec.values()), rec
assert s["fifo_depths"] == "design"
assert s["simulated"]["interval_cycles"] == s["analytic"]["interval_cycles"], s["simulated"]
assert s["simulated"]["interval_cycles"] == a["simulated"]["interval_cycles"]
assert s["simulated"]["latency_cycles"] == a["simulated"]["latency_cycles"]
for st in s["streams"]:
    assert st["design_depth"] == rec[st["name"]], st
assert "stopped_early" not in s and "warnings" not in s
' "$auto" "$tmp/sim_auto.json" "$tmp/sim_design.json"
  expect 0 "$b: evaluate the written design" -- evaluate "$auto" --json
  check "$b: evaluate counts the FIFOs (more LUT or BRAM18, nothing less)" $py -c '
import json, sys
b, a = (json.load(open(p))["resources"] for p in sys.argv[1:3])
assert all(a[k] >= b[k] for k in b), (b, a)
assert a["LUT"] + a["BRAM18"] > b["LUT"] + b["BRAM18"], (b, a)
' "$tmp/eval_before.json" "$tmp/out"
done

# ---- FINN export: the recorded depths as FINN's node attributes, in beats ----
finn_auto=$tmp/lenet_finn_auto.json
expect 0 "export the sized FINN design" -- export "$finn_auto" --format finn-v0.6 -o "$tmp/finn_cfg.json"
check "FINN export: inFIFODepths/outFIFODepths are the recorded words in beats" $py -c '
import json, math, sys
cfg, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rec = d["fifo_depths"]
seen = 0
for name, words in rec.items():
    u, v = name.split("->")
    if u == "in" or v == "out" or ":" in name:
        continue
    simd = cfg[v].get("SIMD", None)
    if simd is None or "MaxPool" in v:
        continue
    assert cfg[v]["inFIFODepths"][0] == math.ceil(words / simd), (name, cfg[v])
    seen += 1
assert seen >= 3, seen
' "$tmp/finn_cfg.json" "$finn_auto"

# ---- bad "fifo_depths": exit 2 naming the file and the field ----
fpga_auto=$tmp/lenet_fpgaconvnet_auto.json
bad_case() { # CODE DESCRIPTION PYTHON-EDIT
  $py -c '
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
' "$fpga_auto" "$tmp/bad.json" "$3"
  expect "$1" "$2 (simulate)" -- simulate "$tmp/bad.json" --quiet
  check "$2: names the file and the field" sh -c "grep -qF '$tmp/bad.json' '$tmp/err' && grep -q fifo_depths '$tmp/err'"
  expect "$1" "$2 (evaluate)" -- evaluate "$tmp/bad.json"
}
bad_case 2 "an unknown stream" 'd["fifo_depths"]["conv1->fc2"] = 4'
bad_case 2 "a depth of 0" 'd["fifo_depths"]["pool1->conv2"] = 0'
bad_case 2 "a fractional depth" 'd["fifo_depths"]["pool1->conv2"] = 2.5'
bad_case 2 "a depth past 2^30" 'd["fifo_depths"]["pool1->conv2"] = 2**31'
bad_case 2 "not an object" 'd["fifo_depths"] = [1, 2]'

# ---- FIFOs over the board: exit 3 naming the resource, nothing written ----
# a U250 with exactly the BRAM18 the hls4ml design uses before its FIFOs
$py -c '
import json, sys
board = json.load(open(sys.argv[1]))
used = json.load(open(sys.argv[2]))["resources"]
board["name"] = "tight"
board["resources"]["BRAM"] = used["BRAM18"]
json.dump(board, open(sys.argv[3], "w"))
d = json.load(open(sys.argv[4]))
d["board"] = sys.argv[3]
json.dump(d, open(sys.argv[5], "w"))
' "$src/boards/u250.json" "$tmp/eval_before.json" "$tmp/tight.json" "$tmp/lenet_hls4ml.json" \
  "$tmp/tight_design.json"
expect 0 "hls4ml on the tight board fits before its FIFOs" -- evaluate "$tmp/tight_design.json"
expect 3 "simulate auto -o over the board" -- simulate "$tmp/tight_design.json" \
  --fifo-depths auto -o "$tmp/out_dir/over.json" --quiet
check "over the board: names BRAM18" grep -q 'BRAM18' "$tmp/err"
$py -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["board"] = sys.argv[2]
json.dump(d, open(sys.argv[3], "w"))
' "$tmp/lenet_hls4ml_auto.json" "$tmp/tight.json" "$tmp/over_design.json"
# (evaluate prints the infeasible design's tables on stdout, so not `expect`)
"$cnnmap" evaluate "$tmp/over_design.json" >"$tmp/out" 2>"$tmp/err"
check "evaluate a design its FIFOs push over the board: exit 3" [ $? -eq 3 ]
check "evaluate: one line naming BRAM18" sh -c "[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q 'needs [0-9]* BRAM18' '$tmp/err'"

# ---- --time-limit ----
for t in 0 -1 abc ''; do
  expect 1 "--time-limit '$t'" -- simulate "$tmp/lenet_fpgaconvnet.json" --time-limit "$t"
done
# (not `expect`, which wants stdout empty on failure: this one prints its partial figures)
"$cnnmap" simulate "$tmp/lenet_fpgaconvnet.json" --frames 1000000 --time-limit 0.05 --json \
  --quiet -o "$tmp/out_dir/cut.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "time limit: exit 3" [ $rc -eq 3 ]
check "time limit: one line naming the file and the limit" $py -c '
import sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1 and lines[0].startswith("cnnmap: " + sys.argv[2] + ": the time limit of 0.05 s"), lines
assert "no design written" in lines[0], lines
' "$tmp/err" "$tmp/lenet_fpgaconvnet.json"
check "time limit: the JSON marks the figures partial" $py -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["stopped_early"] is True and d["partial"] is True and d["time_limit_s"] == 0.05, d
assert d["warnings"] and "time limit" in d["warnings"][0], d["warnings"]
assert d["deadlock"] is False
assert d["time_s"] < 5, d["time_s"]
' "$tmp/out"
check "time limit: nothing written" [ ! -e "$tmp/out_dir/cut.json" ]
expect 0 "the default time limit does not cut LeNet" -- simulate "$tmp/lenet_fpgaconvnet.json" --json --quiet
check "a finished run has no stopped_early key" $py -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert "stopped_early" not in d and "partial" not in d and "warnings" not in d, d.keys()
' "$tmp/out"
expect 0 "--help documents the default" -- simulate --help
check "--help: --time-limit and its default" grep -q 'time-limit S.*default 60' "$tmp/out"

finish
