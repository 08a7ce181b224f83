#!/usr/bin/env bash
# --csv on inspect, optimise, evaluate and boards (issue 18): the table parses as CSV, has one
# row per layer (or node, network or board) of the --json object, and every field equals the
# JSON's value; --json with --csv is a usage error.
# Usage: test_csv_cli.sh CNNMAP SHARED_DIR MODELS_DIR
cnnmap=$1 shared=$2 models=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
lenet=$models/zoo/lenet_zoo.onnx
cifar=$models/zoo/cifar10_quick.onnx
resnet8=$shared/models/resnet8_a8w8b16.onnx
need_shared "$resnet8"

# same_table CSV JSON KEY: the CSV's rows are JSON[KEY]'s, field by field. The expected
# text of each value is written here independently of the C writer: strings as they are,
# numbers as Python reads them back, lists joined by spaces, nested objects flattened.
same_table() {
  $py - "$@" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
obj = json.load(open(sys.argv[2]))
want = obj[sys.argv[3]]
assert len(rows) == len(want) > 0, (len(rows), len(want))
def flat(o, prefix=""):
    for k, v in o.items():
        name = prefix + k
        if isinstance(v, dict):
            yield from flat(v, name + ".")
        else:
            yield name, v
def same(text, v):
    if isinstance(v, bool):
        return text == ("true" if v else "false")
    if isinstance(v, (int, float)):
        return abs(float(text) - v) <= 1e-9 * max(1.0, abs(v))
    if isinstance(v, list):
        parts = text.split(" ") if text else []
        return len(parts) == len(v) and all(same(p, x) for p, x in zip(parts, v))
    if v is None:
        return text == ""
    return text == v
for row, w in zip(rows, want):
    fields = dict(flat(w))
    for name, v in fields.items():
        assert same(row[name], v), (name, row[name], v)
    for name, text in row.items():   # keys this row lacks are empty fields
        assert name in fields or text == "", (name, text)
PY
}

expect 0 "inspect --json" -- inspect "$lenet" --json
cp "$tmp/out" "$tmp/i.json"
expect 0 "inspect --csv" -- inspect "$lenet" --csv
cp "$tmp/out" "$tmp/i.csv"
check "inspect: the CSV rows are the JSON's layers" same_table "$tmp/i.csv" "$tmp/i.json" layers

expect 0 "optimise --json (FINN)" -- optimise "$cifar" --board zc706 --backend finn --json -o "$tmp/finn.json"
cp "$tmp/out" "$tmp/o.json"
expect 0 "optimise --csv (FINN)" -- optimise "$cifar" --board zc706 --backend finn --csv
cp "$tmp/out" "$tmp/o.csv"
check "optimise: the CSV rows are the JSON's nodes" same_table "$tmp/o.csv" "$tmp/o.json" nodes
expect 0 "evaluate --csv (FINN design)" -- evaluate "$tmp/finn.json" --csv
check "evaluate prints what optimise printed" cmp -s "$tmp/out" "$tmp/o.csv"

expect 0 "optimise nn2FPGA --json" -- optimise "$resnet8" --board kv260 --backend nn2fpga --json -o "$tmp/n2.json"
cp "$tmp/out" "$tmp/n.json"
expect 0 "evaluate nn2FPGA --csv" -- evaluate "$tmp/n2.json" --csv
cp "$tmp/out" "$tmp/n.csv"
check "nn2FPGA: the CSV rows are the JSON's layers" same_table "$tmp/n.csv" "$tmp/n.json" layers

expect 0 "overlay -o" -- overlay "$lenet" --board zc706 --json -o "$tmp/ov.json"
cp "$tmp/out" "$tmp/v.json"
expect 0 "evaluate overlay --csv" -- evaluate "$tmp/ov.json" --csv
cp "$tmp/out" "$tmp/v.csv"
check "overlay: the CSV rows are the JSON's layers" same_table "$tmp/v.csv" "$tmp/v.json" layers

expect 0 "multi -o" -- multi --board zc706 --model "$lenet" --model "$cifar" -o "$tmp/multi.json"
expect 0 "evaluate multi --json" -- evaluate "$tmp/multi.json" --json
cp "$tmp/out" "$tmp/m.json"
expect 0 "evaluate multi --csv" -- evaluate "$tmp/multi.json" --csv
cp "$tmp/out" "$tmp/m.csv"
check "multi: one CSV row per network" same_table "$tmp/m.csv" "$tmp/m.json" models

expect 0 "boards --json" -- boards --json
cp "$tmp/out" "$tmp/b.json"
expect 0 "boards --csv" -- boards --csv
cp "$tmp/out" "$tmp/b.csv"
check "boards: one CSV row per built-in board" same_table "$tmp/b.csv" "$tmp/b.json" boards

expect 1 "boards --csv --json" -- boards --csv --json
expect 1 "inspect --json --csv" -- inspect "$lenet" --json --csv
expect 1 "evaluate --csv --json" -- evaluate "$tmp/finn.json" --csv --json
expect 1 "optimise --json --csv" -- optimise "$lenet" --board zc706 --json --csv
expect 2 "evaluate --csv of a missing file" -- evaluate "$tmp/missing.json" --csv
finish
