#!/usr/bin/env bash
# `cnnmap simulate` from the command line: usage errors exit 1 with one line; files it
# cannot simulate (missing, not JSON, an overlay or multi design) exit 2 naming the
# file; a streaming design of LeNet and an nn2FPGA design of ResNet8 simulate with the
# JSON keys of cli.md (positive cycle counts, no stream fuller than its depth, the same
# figures twice); --fifo-depths auto -o writes a design that simulates to the same
# interval; -o of a latency-driven design (no stream depths) exits 2 and writes nothing.
# usage: test_simulate_cli.sh CNNMAP SHARED_DIR TEST_MODELS_DIR
set -u
cnnmap=$1 shared=$2 models=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one_line_from=1
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
lenet=$models/zoo/lenet_zoo.onnx
resnet8=$shared/models/resnet8_a8w8b16.onnx
need_shared "$resnet8"
# A failing command writes nothing into out_dir.
mkdir "$tmp/out_dir"
expect_after_failure() { [ -z "$(ls "$tmp/out_dir")" ]; }
out=$tmp/out_dir/design.json

# ---- usage ----
expect 1 "no design" -- simulate
expect 1 "two designs" -- simulate a.json b.json
for f in 0 -1 abc 1e9 1000001 ''; do
  expect 1 "--frames '$f'" -- simulate "$tmp/none.json" --frames "$f"
done
expect 1 "--frames without a value" -- simulate "$tmp/none.json" --frames
expect 1 "bad --fifo-depths" -- simulate "$tmp/none.json" --fifo-depths deep
expect 1 "unknown option" -- simulate "$tmp/none.json" --bogus
expect 1 "empty -o" -- simulate "$tmp/none.json" -o ''
expect 0 "--help" -- simulate --help
check "--help prints the usage" grep -q 'usage: cnnmap simulate' "$tmp/out"

# ---- files it cannot simulate ----
names_file() { grep -qF "$1" "$tmp/err"; }
expect 2 "missing file" -- simulate "$tmp/none.json"
check "the missing file is named" names_file "$tmp/none.json"
echo 'not json {' >"$tmp/bad.json"
expect 2 "not JSON" -- simulate "$tmp/bad.json"
check "the bad file is named" names_file "$tmp/bad.json"
expect 0 "an overlay design" -- overlay "$lenet" --board zc706 -o "$tmp/overlay.json"
expect 2 "simulate an overlay design" -- simulate "$tmp/overlay.json"
check "the overlay file is named" names_file "$tmp/overlay.json"
expect 0 "a multi design" -- multi --board zc706 --model "$lenet" --model "$lenet" \
  -o "$tmp/multi.json"
expect 2 "simulate a multi design" -- simulate "$tmp/multi.json" --json
check "the multi file is named" names_file "$tmp/multi.json"
echo '{"nodes": []}' >"$tmp/unnamed.json"
expect 2 "simulate a JSON file that names no design" -- simulate "$tmp/unnamed.json"
check "it says the file names no design" \
  grep -qF "$tmp/unnamed.json: not a cnnmap design file (no known \"format\")" "$tmp/err"

# ---- a streaming design (fpgaConvNet, rule optimiser) ----
# json_ok FILE FRAMES MODE: the keys of cli.md and the command's own, positive figures,
# no stream above its depth
json_ok() {
  $py - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
frames, mode = int(sys.argv[2]), sys.argv[3]
for k in ("architecture", "clock_mhz", "frames", "fifo_depths", "simulated", "analytic",
          "difference", "deadlock", "partitions", "tasks", "streams", "iterations", "cycles",
          "time_s"):
    assert k in d, k
assert d["frames"] == frames and d["fifo_depths"] == mode and d["deadlock"] is False, d["frames"]
assert "deadlock_cycle" not in d
for side in ("simulated", "analytic"):
    f = d[side]
    assert set(f) == {"latency_cycles", "interval_cycles", "latency_s", "interval_s"}, f
    for k in ("latency_cycles", "interval_cycles"):
        assert isinstance(f[k], int) and f[k] > 0, (side, k, f[k])
    assert abs(f["latency_s"] - f["latency_cycles"] / (d["clock_mhz"] * 1e6)) <= 1e-9 * f["latency_s"]
s, a = d["simulated"], d["analytic"]
for k in ("latency", "interval"):
    want = s[k + "_cycles"] / a[k + "_cycles"] - 1
    assert abs(d["difference"][k] - want) <= 1e-8 * max(1, abs(want)), (d["difference"], want)
assert d["iterations"] > 0 and d["cycles"] > 0 and d["time_s"] >= 0
assert d["partitions"], "no partitions"
for p in d["partitions"]:
    assert set(p) == {"label", "frames", "before_cycles", "simulated", "analytic"}, p
assert d["tasks"], "no tasks"
for t in d["tasks"]:
    assert set(t) == {"name", "kind", "partition", "iterations", "busy", "starved_cycles",
                      "blocked_cycles", "stalled_by", "simulated_cycles", "analytic_cycles"}, t
    assert 0 <= t["busy"] <= 1 + 1e-12 and t["iterations"] > 0, t
    assert 0 <= t["partition"] < len(d["partitions"]), t
for st in d["streams"]:
    assert set(st) == {"name", "partition", "depth", "design_depth", "max_occupancy",
                       "first_word_cycle", "last_word_cycle"}, st
    assert st["max_occupancy"] >= 0
    # every word a stream carries is read before the partition's last output word is
    assert st["first_word_cycle"] <= st["last_word_cycle"], st
    if frames == 1:
        part = d["partitions"][st["partition"]]
        assert st["last_word_cycle"] <= part["simulated"]["latency_cycles"], (st, part)
    assert st["depth"] == 0 or st["max_occupancy"] <= st["depth"], st
    if mode == "design":
        assert st["depth"] == st["design_depth"], st
EOF
}
# without_time FILE: the JSON object without its time key
without_time() {
  $py -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("time_s"); print(json.dumps(d, sort_keys=True))' "$1"
}

expect 0 "optimise LeNet (fpgaConvNet partitions)" -- optimise "$lenet" --board zc706 \
  --no-weights-reloading -o "$tmp/lenet.json" --quiet
expect 0 "simulate LeNet --json" -- simulate "$tmp/lenet.json" --json --quiet
cp "$tmp/out" "$tmp/lenet_sim.json"
check "LeNet: the JSON of cli.md, positive figures" json_ok "$tmp/lenet_sim.json" 4 design
check "LeNet: a streaming design" grep -q '"architecture": "streaming"' "$tmp/lenet_sim.json"
expect 0 "simulate LeNet again" -- simulate "$tmp/lenet.json" --json --quiet
check "LeNet: the same figures twice" [ "$(without_time "$tmp/out")" = "$(without_time "$tmp/lenet_sim.json")" ]
expect 0 "simulate LeNet --frames 2" -- simulate "$tmp/lenet.json" --frames 2 --json
check "LeNet: two frames" json_ok "$tmp/out" 2 design
expect 0 "simulate LeNet --frames 1" -- simulate "$tmp/lenet.json" --frames 1 --json
check "LeNet, one frame: no interval measured, none compared" $py -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["frames"] == 1 and d["simulated"]["latency_cycles"] > 0, d["simulated"]
if d["simulated"]["interval_cycles"] == 0:
    assert d["difference"]["interval"] is None, d["difference"]
' "$tmp/out"
# one frame: each stream's last word is written by the partition's last output word,
# and the stream the partition's output leaves by ends there (the sink reads it at once)
check "LeNet, one frame: the streams' last words within each partition's latency" $py -c '
import json, sys
d = json.load(open(sys.argv[1]))
for i, p in enumerate(d["partitions"]):
    ends = [s["last_word_cycle"] for s in d["streams"] if s["partition"] == i]
    lat = p["simulated"]["latency_cycles"]
    assert ends and max(ends) <= lat and max(ends) >= lat - 2, (i, lat, ends)
' "$tmp/out"
expect 0 "simulate LeNet --fifo-depths auto" -- simulate "$tmp/lenet.json" --fifo-depths auto --json
check "LeNet auto: the JSON of cli.md" json_ok "$tmp/out" 4 auto
# more room never delays a max-plus schedule: the unbounded interval is the least
check "LeNet auto: no longer an interval than at the design's depths" $py -c '
import json, sys
a, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["simulated"]["interval_cycles"] <= d["simulated"]["interval_cycles"], (a["simulated"], d["simulated"])
' "$tmp/out" "$tmp/lenet_sim.json"
expect 0 "simulate LeNet (text)" -- simulate "$tmp/lenet.json"
check "text: the summary and the three tables" $py -c '
import sys
t = open(sys.argv[1]).read()
for w in ("architecture  streaming", "latency       simulated", "interval      simulated",
          "deadlock      no", "\npartition ", "\ntask ", "\nstream "):
    assert w in t, w
' "$tmp/out"

# ---- a latency-driven design (fpgaConvNet with weights reloading) ----
# (CIFAR-10 quick: LeNet's one-partition streaming design is now the faster)
expect 0 "optimise CIFAR-10 quick (latency-driven)" -- optimise "$models/zoo/cifar10_quick.onnx" \
  --board zc706 -o "$tmp/lenet_ld.json" --quiet
check "CIFAR-10 quick's latency-driven design" grep -q '"cnnmap-latency-design"' "$tmp/lenet_ld.json"
expect 0 "simulate CIFAR-10 quick latency-driven --json" -- simulate "$tmp/lenet_ld.json" --json --quiet
check "CIFAR-10 quick latency-driven: the JSON of cli.md" json_ok "$tmp/out" 4 design
check "CIFAR-10 quick latency-driven: the architecture" grep -q '"architecture": "latency_driven"' "$tmp/out"
# streaming designs record depths since (test_simulate_fifo_cli.sh); latency-driven ones do not
expect 2 "-o of a latency-driven design (no stream depths in its file)" -- \
  simulate "$tmp/lenet_ld.json" -o "$out"
check "-o refused names the design" names_file "$tmp/lenet_ld.json"

# ---- an nn2FPGA design: FIFO sizing written back ----
expect 0 "optimise ResNet8 (nn2FPGA)" -- optimise "$resnet8" --board kv260 --backend nn2fpga \
  -o "$tmp/r8.json" --quiet
expect 0 "simulate ResNet8 --json" -- simulate "$tmp/r8.json" --json --quiet
cp "$tmp/out" "$tmp/r8_sim.json"
check "ResNet8: the JSON of cli.md, positive figures" json_ok "$tmp/r8_sim.json" 4 design
expect 0 "simulate ResNet8 --fifo-depths auto -o" -- simulate "$tmp/r8.json" --fifo-depths auto \
  -o "$out" --json --quiet
cp "$tmp/out" "$tmp/r8_auto.json"
check "ResNet8 auto: the JSON of cli.md" json_ok "$tmp/r8_auto.json" 4 auto
check "ResNet8 auto: no longer an interval than at the design's depths" $py -c '
import json, sys
d, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["simulated"]["interval_cycles"] <= d["simulated"]["interval_cycles"], (a["simulated"], d["simulated"])
' "$tmp/r8_sim.json" "$tmp/r8_auto.json"
check "the sized design was written" [ -s "$out" ]
expect 0 "evaluate the sized design" -- evaluate "$out" --json
expect 0 "simulate the sized design" -- simulate "$out" --json --quiet
check "the sized design simulates with its sized depths to the same interval" $py -c '
import json, sys
a, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert s["simulated"]["interval_cycles"] == a["simulated"]["interval_cycles"], (s["simulated"], a["simulated"])
assert s["simulated"]["latency_cycles"] == a["simulated"]["latency_cycles"]
# the accelerator input and output streams are not in the design file
diff = [x["name"] for x, y in zip(s["streams"], a["streams"]) if x["depth"] != y["depth"]]
assert set(diff) <= {"in", "out"}, diff
' "$tmp/r8_auto.json" "$tmp/out"

# ---- a deadlock: every FIFO of the sized design cut to one word ----
$py -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in d["fifo_depths"]:
    d["fifo_depths"][k] = 1
json.dump(d, open(sys.argv[2], "w"))
' "$out" "$tmp/r8_dl.json"
rm -f "$out"
"$cnnmap" simulate "$tmp/r8_dl.json" --json -o "$out" >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
check "deadlock: exit 3" [ $rc -eq 3 ]
check "deadlock: one line naming the file and the cycle" $py -c '
import sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1 and lines[0].startswith("cnnmap: " + sys.argv[2] + ": deadlock: "), lines
assert " waits for " in lines[0], lines
' "$tmp/err" "$tmp/r8_dl.json"
check "deadlock: the figures are still printed" $py -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["deadlock"] is True and " waits for " in d["deadlock_cycle"], d["deadlock"]
' "$tmp/out"
check "deadlock: no design written" [ ! -e "$out" ]

finish
