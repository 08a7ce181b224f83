#!/usr/bin/env bash
# f-CNNx design files from the command line: `multi -o` then `evaluate` prints what
# multi printed (the same JSON apart from time_s, the same tables apart from the time),
# `export --format report-md` of the file is multi's own --report-md (no new mapping),
# hand edits that break a constraint exit 3 naming it, malformed files exit 2 naming the
# file and field, and a failing command leaves no file behind.
# usage: test_multi_design_cli.sh CNNMAP TEST_MODELS_DIR
set -u
cnnmap=$1 models=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
lenet=$models/zoo/lenet_zoo.onnx cifar=$models/zoo/cifar10_quick.onnx
need_shared "$lenet"
need_shared "$cifar"
# A failing command writes nothing into out/.
mkdir "$tmp/out_dir"
expect_after_failure() { [ -z "$(ls "$tmp/out_dir")" ]; }

# without_time FILE: the JSON object without its time key
without_time() {
  $py -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("time_s"); print(json.dumps(d, sort_keys=True))' "$1"
}

# A report that cannot be written (a full disk) fails the command, and the design file
# written before it goes too: the failure leaves neither file.
expect 2 "multi whose --report-md cannot be written" -- multi --board zc706 --model "$lenet" \
  --model "$cifar" -o "$tmp/out_dir/d.json" --report-md /dev/full
check "the report's failure is said" grep -q '/dev/full: cannot write' "$tmp/err"

for bw in 3.8 0.5; do
  args=(--board zc706 --model "$lenet" --model "$lenet:2000" --model "$cifar" --bandwidth "$bw")
  expect 0 "multi -o at $bw GB/s" -- multi "${args[@]}" -o "$tmp/d$bw.json" --report-md "$tmp/m$bw.md" --json
  cp "$tmp/out" "$tmp/multi$bw.json"
  expect 0 "evaluate --json at $bw GB/s" -- evaluate "$tmp/d$bw.json" --json
  check "evaluate --json equals multi --json apart from time_s ($bw GB/s)" \
    test "$(without_time "$tmp/multi$bw.json")" = "$(without_time "$tmp/out")"
  expect 0 "export report-md at $bw GB/s" -- export "$tmp/d$bw.json" --format report-md -o "$tmp/r$bw.md"
  check "report from the file equals multi's --report-md ($bw GB/s)" cmp -s "$tmp/m$bw.md" "$tmp/r$bw.md"
done

# The tables: the same lines apart from the time on the joint-points line.
expect 0 "multi table" -- multi --board zc706 --model "$lenet" --model "$cifar" -o "$tmp/t.json"
sed 's/, [0-9.]* s$//' "$tmp/out" >"$tmp/multi.txt"
expect 0 "evaluate table" -- evaluate "$tmp/t.json"
sed 's/, [0-9.]* s$//' "$tmp/out" >"$tmp/eval.txt"
check "evaluate prints multi's tables" cmp -s "$tmp/multi.txt" "$tmp/eval.txt"
check "the tables hold the schedule" grep -q "schedule" "$tmp/eval.txt"

# edit NAME PYTHON: a copy of d0.5.json with d (its JSON) changed by PYTHON.
edit() {
  $py -c '
import json, sys
d = json.load(open(sys.argv[1]))
'"$2"'
json.dump(d, open(sys.argv[2], "w"))
' "$tmp/d0.5.json" "$tmp/$1.json"
}

# refused CODE NAME PYTHON TEXT: evaluate and export of the edit exit CODE, naming the
# file and TEXT, and write nothing.
refused() {
  local code=$1 name=$2 text=$4
  edit "$name" "$3"
  expect "$code" "evaluate $name" -- evaluate "$tmp/$name.json" --json
  check "$name: message names the file and '$text'" grep -qF "cnnmap: $tmp/$name.json: " "$tmp/err"
  check "$name: message says '$text'" grep -qF -- "$text" "$tmp/err"
  expect "$code" "export $name" -- export "$tmp/$name.json" --format report-md -o "$tmp/out_dir/r.md"
}

refused 3 zedboard 'd["inputs"]["board"] = "zedboard"' "the engines of its 3 networks together need"
refused 3 unknown_engine 'd["slot_table"][0]["engine"] = 9' "slot_table[0]: engine 9 does not exist"
refused 3 unknown_subgraph 'd["slot_table"][1]["subgraph"] = 500' "has no subgraph 500"
refused 3 missing_run 'd["slot_table"].pop()' "is not scheduled"
refused 3 starved 'd["models"][2]["bandwidth_share"] = 1e-4' "cifar10_quick.onnx: "
refused 2 coarse_text 'd["models"][1]["engine"]["point"]["blocks"][0]["coarse"] = "x"' \
  "models[1].engine.point.blocks[0].coarse must be an integer"
refused 2 bad_cut 'd["models"][0]["baseline"]["engine"]["point"]["cuts"].append("nowhere")' \
  "models[0].baseline.engine.point.cuts"
refused 2 no_options 'del d["options"]' "options must be an object"
refused 2 argv_inputs 'd["inputs"] = ["--board", "zc706", "-o", "'"$tmp"'/out_dir/pwned"]' \
  "inputs is a list of command-line words"

# A version 1 file records no design points: evaluate refuses it; export maps its
# inputs again, as before version 2.
edit old_export 'd["version"] = 1'
expect 2 "evaluate of a version 1 file" -- evaluate "$tmp/old_export.json"
check "version 1: says why" grep -qF "version 1 multi design file records no engine design points" "$tmp/err"
expect 0 "export of a version 1 file" -- export "$tmp/old_export.json" --format report-md -o "$tmp/old.md"
check "a version 1 file's report has the engines" grep -q "## Engines" "$tmp/old.md"

finish
