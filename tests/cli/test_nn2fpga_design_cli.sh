#!/usr/bin/env bash
# nn2FPGA design files on the command line (issue 14): `optimise --backend nn2fpga -o`
# writes a design file that `evaluate` reads back and prints exactly as optimise
# printed (tables and --json, the search's time included), `export --format report-md`
# turns into a Markdown report and the streaming formats refuse; a hand edit that
# breaks a constraint is exit 3 naming the layer or resource, a malformed one exit 2,
# and no failure leaves an output file.
# usage: test_nn2fpga_design_cli.sh CNNMAP SHARED_DIR
set -u
cnnmap=$1 shared=$2
r8=$shared/models/resnet8_a8w8b16.onnx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_shared "$r8"

err_has() { grep -qF -- "$1" "$tmp/err"; }

# edit IN OUT PYTHON: the design file IN with the Python statement applied to d (its
# layers by name in L) written to OUT.
edit() {
  /usr/bin/python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
L = {l["name"]: l for l in d["layers"]}
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
EOF
}

d=$tmp/design.json
# ---- 1. optimise -o, then evaluate: the same text and the same JSON ----
expect 0 "optimise -o" -- optimise "$r8" --board kv260 --backend nn2fpga -o "$d"
cp "$tmp/out" "$tmp/optimise.txt"
check "design file written" test -s "$d"
check "design file format" grep -q '"format": "cnnmap-nn2fpga-design"' "$d"
expect 0 "evaluate" -- evaluate "$d"
check "evaluate prints what optimise printed" cmp -s "$tmp/out" "$tmp/optimise.txt"
check "the output has the tables" grep -q '^period S' "$tmp/out"

expect 0 "optimise -o --json" -- optimise "$r8" --board kv260 --backend nn2fpga --optimiser exact --objective latency -o "$d" --json
cp "$tmp/out" "$tmp/optimise.json"
expect 0 "evaluate --json" -- evaluate "$d" --json
check "evaluate --json equals optimise --json" cmp -s "$tmp/out" "$tmp/optimise.json"
check "the design file holds the summary and the options" /usr/bin/python3 -c '
import json, sys
s, d = (json.load(open(f)) for f in sys.argv[1:3])
assert d["version"] == 1 and d["board"] == "kv260" and d["model_path"].startswith("/")
assert d["solver"] == "exact" and d["objective"] == "latency" and d["batch"] == 1
assert d["temporal_reuse"] is True and d["loop_merge"] is True and d["default_bits"] == 8
# The file holds reals to 17 digits, the printed object to 10.
def same(a, b):
    if isinstance(a, float):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b
for k, v in s.items():
    assert k == "board" or same(v, d[k]), k
assert [l["ow_par"] for l in s["layers"]] == [l["ow_par"] for l in d["layers"]]
' "$tmp/optimise.json" "$d"

# A design file moved with its model keeps working (model_path relative to its folder).
mkdir "$tmp/moved"
cp "$r8" "$tmp/moved/"
edit "$d" "$tmp/moved/design.json" 'd["model_path"] = "resnet8_a8w8b16.onnx"'
expect 0 "evaluate a moved design" -- evaluate "$tmp/moved/design.json" --json
check "moved design: same figures" cmp -s "$tmp/out" "$tmp/optimise.json"

# ---- 2. export ----
expect 0 "export report-md" -- export "$d" --format report-md -o "$tmp/report.md"
check "report: summary" grep -q '^# resnet8_a8w8b16 on Kria KV260 (nn2fpga)' "$tmp/report.md"
check "report: layer table" grep -q '^| Conv_1 | conv |' "$tmp/report.md"
check "report: skip buffers" grep -q '^## Skip buffers' "$tmp/report.md"
for f in fpgaconvnet finn hls4ml; do
  expect 2 "export $f refused" -- export "$d" --format "$f" -o "$tmp/x.$f"
  check "export $f: says which formats" err_has "an nn2fpga design exports as hls, report-md or report-html"
  check "export $f: no file" test ! -e "$tmp/x.$f"
done

# ---- 3. hand edits: exit 3 naming the layer or resource, exit 2 for bad input ----
expect_after_failure() { test ! -e "$tmp/edit.md"; }
edit "$d" "$tmp/e1.json" 'L["Conv_1"]["ow_par"] = 3'
expect 3 "evaluate: ow_par does not divide" -- evaluate "$tmp/e1.json"
check "names the layer and the constraint" err_has "$tmp/e1.json: layer Conv_1: ow_par 3 does not divide the output width 32"
expect 3 "export: ow_par does not divide" -- export "$tmp/e1.json" --format report-md -o "$tmp/edit.md"
expect 3 "evaluate --json: ow_par does not divide" -- evaluate "$tmp/e1.json" --json

edit "$d" "$tmp/e2.json" '
for l in d["layers"]:
    l["ow_par"], l["ich_par"] = l["out_shape"][2], l["in_shape"][0]
    l["och_par"] = l["out_shape"][0] if l["kind"] == "conv" else 1'
expect 3 "evaluate: every factor at its maximum" -- evaluate "$tmp/e2.json"
check "names DSPs and the board" grep -qE "DSPs [0-9]+ exceed the board's 1248 \(kv260\)" "$tmp/err"

edit "$d" "$tmp/e3.json" 'L["MaxPool_0"]["och_par"] = 2'
expect 3 "evaluate: och_par on a pool" -- evaluate "$tmp/e3.json"
check "och_par on a pool named" err_has "layer MaxPool_0: och_par 2 must be 1"

edit "$d" "$tmp/e4.json" 'L["Conv_2"]["name"] = "Conv_42"'
expect 2 "evaluate: unknown layer" -- evaluate "$tmp/e4.json"
check "unknown layer named" err_has "unknown layer 'Conv_42'"
edit "$d" "$tmp/e5.json" 'L["Conv_2"]["ich_par"] = 0'
expect 2 "evaluate: factor 0" -- evaluate "$tmp/e5.json"
check "factor 0 names layer and key" err_has 'layer Conv_2: "ich_par" must be an integer'
edit "$d" "$tmp/e6.json" 'd["batch"] = 0'
expect 2 "evaluate: batch 0" -- evaluate "$tmp/e6.json"
edit "$d" "$tmp/e7.json" 'd["clock_mhz"] = 1e9'
expect 2 "evaluate: clock out of range" -- evaluate "$tmp/e7.json"
edit "$d" "$tmp/e8.json" 'd["layers"].append(d["layers"][0])'
expect 2 "evaluate: duplicate layer" -- evaluate "$tmp/e8.json"
check "duplicate named" err_has "layer 'Conv_0' is listed twice"
# The skip FIFOs are sized as the generated dataflow needs them for the design's unroll
# factors, and the file records the depths: one word less would deadlock (the HLS
# export test shows it in C simulation), more is the user's choice.
check "the design records each skip FIFO" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = {k["name"]: k for k in d["skip_connections"]}
assert d["skip_storage"]["sized_by"] == "dataflow"
assert all(k["fifo"]["words"] > 0 and k["fifo"]["activations"] ==
           k["fifo"]["words"] * k["fifo"]["activations_per_word"] for k in s.values())
assert d["skip_storage"]["bram18"] == sum(k["fifo"]["bram18"] for k in s.values())
' "$d"
edit "$d" "$tmp/e9.json" '
s = d["skip_connections"][0]; s["fifo"]["words"] -= 1'
expect 3 "evaluate: a skip FIFO below what the dataflow needs" -- evaluate "$tmp/e9.json"
check "names the skip and the words" grep -qE "skip connection Add_0: a FIFO of [0-9]+ words is below the [0-9]+ its dataflow needs" "$tmp/err"
edit "$d" "$tmp/e10.json" '
s = d["skip_connections"][0]; s["fifo"]["words"] += 1000'
expect 0 "evaluate: a larger skip FIFO" -- evaluate "$tmp/e10.json" --json
check "a larger FIFO is kept and costed" /usr/bin/python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
fa, fb = a["skip_connections"][0]["fifo"], b["skip_connections"][0]["fifo"]
assert fb["words"] == fa["words"] + 1000 and fb["bram18"] > fa["bram18"]
assert b["resources"]["BRAM18"] - a["resources"]["BRAM18"] == fb["bram18"] - fa["bram18"]
' "$d" "$tmp/out"
# Hand-worked depths of Add_0 (identity skip over Conv_1 -> Conv_2, 3x3, pad 1, on a
# 16 x 32 x 32 map; the skip taps Conv_1's window buffer, so one word per tap group):
# before the add takes skip pixel (r, c), Conv_2 must have read Conv_1's output up to
# (r+1, c+1), so the taps up to there have been written and those from (r, c) not taken.
# - Conv_1 ow_par 1, ich_par 16 (a word: 1 pixel x 16 channels), Conv_2 ow_par 1:
#   (r+1)*32 + c+1 - (r*32 + c) + 1 = 34 pixels = 34 words.
# - Conv_1 ow_par 32, ich_par 1 (a word: a row of 32 pixels x 1 channel), Conv_2 ow_par
#   32: rows r and r+1, 2 groups x 16 channels = 32 words.
# Beyond that deadlock bound the FIFO holds what Conv_1's window buffer reads at once (it
# reads while it writes the windows of the groups before, so without it the tap waits on
# the add at every row and the interval is lost): one pixel group of its own packing,
# 1 word (1 pixel x 16 channels) and 16 words (a row x 1 channel, 16 channels): 35, 48.
for case in "1 16 1 35" "32 1 32 48"; do
  set -- $case
  edit "$d" "$tmp/hand.json" "
for n, (o, i) in {'Conv_1': ($1, $2), 'Conv_2': ($3, 1)}.items():
    L[n]['ow_par'], L[n]['ich_par'], L[n]['och_par'] = o, i, 1
for s in d['skip_connections']:
    s.pop('fifo')"
  expect 0 "evaluate sizes the skip FIFOs of new factors ($case)" -- evaluate "$tmp/hand.json" --json
  check "Add_0's FIFO by hand: $4 words" /usr/bin/python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["skip_connections"][0]
assert s["name"] == "Add_0" and s["fifo"]["words"] == int(sys.argv[2]), s
' "$tmp/out" "$4"
done
edit "$d" "$tmp/e11.json" 'd["skip_connections"][0]["fifo"]["words"] = "many"'
expect 2 "evaluate: FIFO words not a number" -- evaluate "$tmp/e11.json"
check "names the skip and the key" err_has 'skip connection Add_0: fifo: "words" must be an integer'

edit "$d" "$tmp/e12.json" 'd["skip_connections"][1]["fifo"] = 64'
expect 2 "evaluate: fifo not an object" -- evaluate "$tmp/e12.json"
check "names the skip and says what fifo must be" err_has 'skip connection Add_1: fifo: must be an object'
edit "$d" "$tmp/e13.json" 'd["skip_connections"][2]["name"] = "Add_9"'
expect 2 "evaluate: a skip connection the model does not have" -- evaluate "$tmp/e13.json"
check "names the unknown skip connection" err_has 'skip connection Add_9: no such residual add in the model'

head -c 300 "$d" >"$tmp/trunc.json"
expect 2 "evaluate: truncated file" -- evaluate "$tmp/trunc.json"
expect 2 "export: truncated file" -- export "$tmp/trunc.json" --format report-md -o "$tmp/edit.md"

# ---- 4. no output file after a failure ----
printf '{"name": "fewdsp", "display_name": "Few DSP", "part": "x", "memory": "x", "resources": {"LUT": 4000, "FF": 8000, "DSP": 20, "BRAM": 300, "URAM": 0}, "bram_unit": "BRAM18", "clock_mhz": 100.0, "bandwidth_gbps": 1.0, "peak_bandwidth_gbps": 1.0, "reconfiguration_s": 0.1, "reconfiguration_estimated": true}' >"$tmp/fewdsp.json"
expect 3 "optimise on a board without enough DSPs" -- optimise "$r8" --board "$tmp/fewdsp.json" --backend nn2fpga -o "$tmp/fail.json"
check "no design file after failure" test ! -e "$tmp/fail.json"


# warnings (issue 20): a float model's layers are costed at the default width, and both
# the JSON and the text say so; a QONNX model's design has none
expect 0 "nn2fpga on a float model" -- optimise "$shared/models/lenet.onnx" --board zc706 \
  --backend nn2fpga --json
check "the float model's JSON warns of default bits" /usr/bin/python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["warnings"]
assert len(w) == 1 and "no Quant annotation" in w[0] and "8 bits" in w[0], w
' "$tmp/out"
expect 0 "nn2fpga on a float model, text" -- optimise "$shared/models/lenet.onnx" --board zc706 \
  --backend nn2fpga
check "the text warns too" grep -q "^warning      some layers have no Quant annotation" "$tmp/out"
expect 0 "nn2fpga on ResNet8" -- optimise "$r8" --board zc706 --backend nn2fpga --json
check "a QONNX model has no warning" /usr/bin/python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["warnings"] == []
' "$tmp/out"
finish
