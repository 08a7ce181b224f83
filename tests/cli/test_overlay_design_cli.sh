#!/usr/bin/env bash
# Overlay design files on the command line: `overlay -o` writes a design file that
# `evaluate` reads back without searching and prints as overlay printed it (tables, and
# --json apart from the time keys), `export --format report-md` turns into a Markdown
# report and the other formats refuse; a hand edit that breaks a constraint is exit 3
# naming the layer or resource, a malformed one exit 2, and no failure leaves a file.
# usage: test_overlay_design_cli.sh CNNMAP TEST_MODELS_DIR
set -u
cnnmap=$1 models=$2
alexnet=$models/zoo/alexnet_fe.onnx
inception=$models/zoo/inception_v4.onnx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_shared "$alexnet"
need_shared "$inception"

err_has() { grep -qF -- "$1" "$tmp/err"; }

# A failing command leaves no output file behind.
expect_after_failure() { [ ! -e "$tmp/out.json" ] && [ ! -e "$tmp/r.md" ]; }

# edit IN OUT PYTHON: the design file IN with the statement applied to d (its layers by
# name in L) written to OUT.
edit() {
  /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
L = {l["name"]: l for l in d["layers"]}
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}

# same_json A B: the same object apart from the time keys.
same_json() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for o in (a, b):
    o.pop("time_s", None)
sys.exit(0 if a == b else 1)
PY
}

# ---- 1. overlay -o, then evaluate: the same text and the same JSON, on two models ----
for m in alexnet inception; do
  model=${!m} d=$tmp/$m.json
  expect 0 "$m: overlay -o --json" -- overlay "$model" --board u200 --dsp-limit 6084 -o "$d" --json
  cp "$tmp/out" "$tmp/$m.overlay.json"
  check "$m: design file written" test -s "$d"
  check "$m: design file format" grep -q '"format": "cnnmap-overlay-design"' "$d"
  expect 0 "$m: evaluate --json" -- evaluate "$d" --json
  check "$m: evaluate --json equals overlay --json apart from time" same_json "$tmp/out" "$tmp/$m.overlay.json"
  expect 0 "$m: overlay" -- overlay "$model" --board u200 --dsp-limit 6084
  cp "$tmp/out" "$tmp/$m.overlay.txt"
  expect 0 "$m: evaluate" -- evaluate "$d"
  check "$m: evaluate prints what overlay printed" cmp -s "$tmp/out" "$tmp/$m.overlay.txt"
done
d=$tmp/alexnet.json
check "the design file holds the options and the mapping" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and d["board"] == "u200" and d["model_path"].startswith("/")
assert d["dsp_limit"] == 6084 and d["algorithms"] == ["im2col", "kn2row", "winograd"]
assert d["array"] == [95, 64] and d["array_forced"] is False and d["winograd"] == [2, 3]
assert d["resources"] == {"DSP": 6080, "BRAM18": 95 + 64 + 2 * 95}
assert all(l["algorithm"] in ("im2col", "kn2row", "winograd", "pool") for l in d["layers"])
assert d["formats"][0]["vertex"] == "input"
' "$d"

# A forced array and a subset of the algorithms are recorded and evaluated again.
expect 0 "overlay --array --algorithms -o" -- overlay "$alexnet" --board zc706 --array 16x20 --algorithms im2col,kn2row -o "$tmp/forced.json" --json
cp "$tmp/out" "$tmp/forced.overlay.json"
expect 0 "evaluate a forced array" -- evaluate "$tmp/forced.json" --json
check "forced: evaluate --json equals overlay --json" same_json "$tmp/out" "$tmp/forced.overlay.json"
check "forced: recorded" grep -q '"array_forced": true' "$tmp/forced.json"

# ---- 2. hand edits ----
edit "$d" "$tmp/e.json" 'L["conv1"]["algorithm"] = "winograd"'
expect 3 "Winograd on a stride-4 layer" -- evaluate "$tmp/e.json"
check "exit 3 names the layer and the constraint" err_has "layer 'conv1' (conv, kernel 11x11, stride 4): winograd does not apply"
edit "$d" "$tmp/e.json" 'd["array"] = [100, 100]'
expect 3 "an array beyond the DSP limit" -- evaluate "$tmp/e.json"
check "exit 3 names the resource" err_has "DSP: a 100x100 array needs 10000 DSPs, the limit is 6084"
edit "$d" "$tmp/e.json" 'd["algorithms"] = ["im2col"]; L["conv2"]["algorithm"] = "kn2row"'
expect 3 "an algorithm not allowed" -- evaluate "$tmp/e.json"
check "exit 3 names the allowed set" err_has "layer 'conv2': kn2row is not among the allowed algorithms (im2col)"
edit "$d" "$tmp/e.json" 'L["conv2"]["algorithm"] = "fft"'
expect 2 "an unknown algorithm" -- evaluate "$tmp/e.json"
check "exit 2 names the file and the field" err_has "$tmp/e.json: layer conv2: \"algorithm\": unknown algorithm 'fft'"
edit "$d" "$tmp/e.json" 'L["conv2"]["name"] = "conv99"'
expect 2 "an unknown layer" -- evaluate "$tmp/e.json"
check "exit 2 names the layer" err_has "unknown layer 'conv99'"
edit "$d" "$tmp/e.json" 'd["layers"] = [l for l in d["layers"] if l["name"] != "conv3"]'
expect 2 "a missing layer" -- evaluate "$tmp/e.json"
check "exit 2 names the missing layer" err_has "layer 'conv3' is missing from the mapping"
edit "$d" "$tmp/e.json" 'd["array"] = [95]'
expect 2 "a malformed array" -- evaluate "$tmp/e.json"
edit "$d" "$tmp/e.json" 'L["conv2"]["dataflow"] = "WS"'
expect 0 "another dataflow is costed" -- evaluate "$tmp/e.json" --json
check "and the mapping is no longer called optimal" grep -q '"optimal": false' "$tmp/out"

# ---- 3. export ----
expect 0 "export report-md" -- export "$d" --format report-md -o "$tmp/r.md"
check "the report has the array, the baselines and the layers" grep -q '^- systolic array: 95 x 64' "$tmp/r.md"
check "the report's layer table" grep -q '^| conv1 | conv | im2col | NS | 11775 |' "$tmp/r.md"
check "the report's baselines" grep -q '^| im2col only |' "$tmp/r.md"
rm -f "$tmp/r.md"
for f in fpgaconvnet finn hls4ml hls; do
  expect 2 "export --format $f is refused" -- export "$d" --format $f -o "$tmp/r.md"
  check "$f: the formats that apply are named" err_has "an overlay design exports as report-md or report-html, not $f"
done
edit "$d" "$tmp/e.json" 'd["array"] = [100, 100]'
expect 3 "export of an infeasible design" -- export "$tmp/e.json" --format report-md -o "$tmp/r.md"

# ---- 4. no partial files ----
expect 3 "overlay -o below 4 DSPs" -- overlay "$alexnet" --board u200 --dsp-limit 3 -o "$tmp/out.json"
expect 2 "overlay -o into a missing folder" -- overlay "$alexnet" --board u200 -o "$tmp/none/out.json"
check "nothing in the missing folder" test ! -e "$tmp/none"
expect 1 "overlay -o ''" -- overlay "$alexnet" --board u200 -o ''
expect 2 "overlay -o of a missing model" -- overlay "$tmp/none.onnx" --board u200 -o "$tmp/out.json"

finish
