#!/usr/bin/env bash
# Regression tests of issue 21's board and output-file findings: absurd board values,
# JSON that cannot hold a figure, -o with an empty name, a read-only file, a missing
# folder or a directory, concurrent writers, stdout after a failed write, nn2FPGA
# design files and earlier reports given to evaluate, and a missing design file.
# usage: test_reliability_boards.sh CNNMAP SHARED_DIR SOURCE_DIR
set -u
cnnmap=$1 shared=$2 src=$3
lenet=$shared/models/lenet.onnx
resnet=$shared/models/resnet8_a8w8b16.onnx
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
one_line_from=1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"



# err_has TEXT: stderr holds TEXT (fixed string).
err_has() { grep -qF -- "$1" "$tmp/err"; }

# board FILE KEY VALUE: the ZC706's board file with one value replaced (KEY may be
# "resources.X"); VALUE is JSON text, so 1e308 stays a number.
board() {
  /usr/bin/python3 - "$src/boards/zc706.json" "$1" "$2" "$3" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
key, value = sys.argv[3], json.loads(sys.argv[4])
if key.startswith("resources."):
    d["resources"][key[10:]] = value
else:
    d[key] = value
d["name"] = "absurd"
json.dump(d, open(sys.argv[2], "w"))
EOF
}

# same_file A B: byte for byte, without printing.
same_file() { cmp -s "$1" "$2"; }

# ---- 1. absurd boards: refused at load, naming the file, the field and its range ----

board "$tmp/clock.json" clock_mhz 1e308
expect 2 "clock 1e308 MHz, nn2fpga --json" -- optimise "$resnet" --board "$tmp/clock.json" --backend nn2fpga --json
check "clock message names file, field and range" err_has "$tmp/clock.json: \"clock_mhz\" must be a finite number from 1 to 2000 (MHz)"
board "$tmp/reconf.json" reconfiguration_s 1e308
expect 2 "reconfiguration 1e308 s, --json" -- optimise "$lenet" --board "$tmp/reconf.json" --backend finn --objective throughput --json
check "reconfiguration message" err_has "$tmp/reconf.json: \"reconfiguration_s\" must be a finite number from 0 to 1000 (seconds)"
expect 2 "clock 1e308 MHz, overlay" -- overlay "$lenet" --board "$tmp/clock.json"

while read -r key value range; do
  board "$tmp/b.json" "$key" "$value"
  expect 2 "$key = $value refused" -- optimise "$lenet" --board "$tmp/b.json" --optimiser none --json
  check "$key = $value: message names file, field and range" err_has "$tmp/b.json: \"$key\" must be $range"
done <<'EOF'
clock_mhz 0.5 a finite number from 1 to 2000 (MHz)
clock_mhz 2001 a finite number from 1 to 2000 (MHz)
reconfiguration_s 1000.001 a finite number from 0 to 1000 (seconds)
bandwidth_gbps 1e-300 a finite number from 0.001 to 10000 (GB/s)
peak_bandwidth_gbps 1e308 a finite number from 0.001 to 10000 (GB/s)
resources.LUT 1099511627776 greater than 0 and less than 2^40
resources.FF 9223372036854775807 greater than 0 and less than 2^40
resources.DSP 1099511627776 greater than 0 and less than 2^40
resources.BRAM 1099511627776 greater than 0 and less than 2^40
resources.URAM 1099511627776 0 or more and less than 2^40
EOF

# The edges of the ranges are accepted and every figure stays a finite number.
board "$tmp/fast.json" clock_mhz 2000
expect 0 "clock 2000 MHz, nn2fpga --json" -- optimise "$resnet" --board "$tmp/fast.json" --backend nn2fpga --json
check "clock 2000: finite figures" /usr/bin/python3 -c '
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["clock_mhz"] == 2000.0
for k in ("latency_s", "throughput_fps", "gops", "fps_steady"):
    assert math.isfinite(d[k]) and d[k] > 0, k
' "$tmp/out"
board "$tmp/slow.json" reconfiguration_s 1000
expect 0 "reconfiguration 1000 s, --json" -- optimise "$lenet" --board "$tmp/slow.json" --backend finn --objective throughput --optimiser none --json
check "reconfiguration 1000 s: latency_s present and finite" /usr/bin/python3 -c '
import json, math, sys
d = json.load(open(sys.argv[1]))
assert math.isfinite(d["latency_s"]) and d["latency_s"] > 0
assert d["partitions"] == 1 or d["latency_s"] >= 1000 * (d["partitions"] - 1)
' "$tmp/out"

# A hand-edited design file's clock is held to the same range.
expect 0 "a design to edit" -- optimise "$lenet" --board zc706 --backend finn --optimiser none -o "$tmp/finn.json"
/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); d["clock_mhz"] = 1e308
json.dump(d, open(sys.argv[2], "w"))' "$tmp/finn.json" "$tmp/clock_design.json"
expect 2 "design file with a clock of 1e308 MHz" -- evaluate "$tmp/clock_design.json" --json
check "design clock message" err_has "\"clock_mhz\" must be a number from 1 to 2000"

# ---- 2. -o with an empty name is a usage error naming the option ----

expect 1 "optimise -o ''" -- optimise "$lenet" --board zc706 --optimiser none -o ''
check "optimise -o '' names -o" err_has "optimise: -o needs a file name"
expect 1 "optimise --output=" -- optimise "$lenet" --board zc706 --optimiser none --output=
expect 1 "nn2fpga -o ''" -- optimise "$resnet" --board zc706 --backend nn2fpga -o ''
check "nn2fpga -o '' names -o" err_has "optimise: -o needs a file name"
expect 1 "export -o ''" -- export "$tmp/finn.json" --format finn -o ''
check "export -o '' names -o" err_has "export: -o needs a file name"

# ---- 3. read-only file, missing folder, directory: exit 2, one line, nothing left ----

for cmd in optimise export nn2fpga; do
  case $cmd in
    optimise) run=(optimise "$lenet" --board zc706 --backend finn --optimiser none --json -o) ;;
    export) run=(export "$tmp/finn.json" --format finn -o) ;;
    nn2fpga) run=(optimise "$resnet" --board zc706 --backend nn2fpga --json -o) ;;
  esac
  mkdir "$tmp/$cmd"
  printf 'keep me\n' >"$tmp/$cmd/ro.json"
  chmod 0444 "$tmp/$cmd/ro.json"
  expect 2 "$cmd -o read-only file" -- "${run[@]}" "$tmp/$cmd/ro.json"
  check "$cmd: read-only named" err_has "$tmp/$cmd/ro.json: cannot write: the file is read-only"
  check "$cmd: read-only file unchanged" test "$(cat "$tmp/$cmd/ro.json")" = "keep me"
  check "$cmd: read-only file keeps 0444" test "$(stat -c %a "$tmp/$cmd/ro.json")" = 444
  expect 2 "$cmd -o into a missing folder" -- "${run[@]}" "$tmp/$cmd/missing/out.json"
  check "$cmd: missing folder named" err_has "$tmp/$cmd/missing/out.json: cannot write: No such file or directory"
  check "$cmd: no folder created" test ! -e "$tmp/$cmd/missing"
  mkdir "$tmp/$cmd/dir"
  expect 2 "$cmd -o onto a directory" -- "${run[@]}" "$tmp/$cmd/dir"
  check "$cmd: directory named" err_has "$tmp/$cmd/dir: cannot write: Is a directory"
  check "$cmd: directory left empty" test -z "$(ls -A "$tmp/$cmd/dir")"
  check "$cmd: nothing left beside the targets" test "$(ls -A "$tmp/$cmd" | tr '\n' ' ')" = "dir ro.json "
done

# A FIFO is written through: renaming over it would put a regular file in its place.
mkfifo "$tmp/pipe"
# The reader gives up after a while, so that a command that never opens the FIFO
# fails the check instead of hanging the test.
timeout 20 cat "$tmp/pipe" >"$tmp/from_pipe" &
reader=$!
expect 0 "export -o a FIFO" -- export "$tmp/finn.json" --format finn -o "$tmp/pipe"
wait "$reader"
check "FIFO still a FIFO" test -p "$tmp/pipe"
check "FIFO carried the export" /usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/from_pipe"

# Two runs writing the same path at once: both finish, and the file is one run's whole
# output (the optimiser's run time aside, which differs from run to run).
mkdir "$tmp/race"
"$cnnmap" optimise "$lenet" --board zc706 --backend finn --optimiser none -o "$tmp/race/a.json" >/dev/null 2>&1
"$cnnmap" optimise "$lenet" --board zc706 --backend finn --optimiser rule -o "$tmp/race/b.json" >/dev/null 2>&1
race_ok=1
for i in 1 2 3 4 5; do
  "$cnnmap" optimise "$lenet" --board zc706 --backend finn --optimiser none -o "$tmp/race/both.json" >/dev/null 2>&1 & p1=$!
  "$cnnmap" optimise "$lenet" --board zc706 --backend finn --optimiser rule -o "$tmp/race/both.json" >/dev/null 2>&1 & p2=$!
  wait $p1 || race_ok=0
  wait $p2 || race_ok=0
  /usr/bin/python3 -c '
import json, sys
def load(p):
    d = json.load(open(p))
    for o in (d["optimiser"], d["summary"]["optimiser"]):
        o.pop("time_s")
    return d
both = load(sys.argv[1])
assert both in (load(sys.argv[2]), load(sys.argv[3]))
' "$tmp/race/both.json" "$tmp/race/a.json" "$tmp/race/b.json" || race_ok=0
done
check "concurrent writers both finish, the file is one run's output" test $race_ok -eq 1
check "concurrent writers leave no temporary file" test "$(ls -A "$tmp/race" | tr '\n' ' ')" = "a.json b.json both.json "

# ---- 4. a failed write leaves stdout empty (the file is written before printing) ----

for variant in "--backend finn --optimiser none" "--backend finn --optimiser none --json" \
               "--optimiser none" "--optimiser none --json" "--backend nn2fpga" "--backend nn2fpga --json"; do
  model=$lenet
  case $variant in *nn2fpga*) model=$resnet ;; esac
  # shellcheck disable=SC2086
  expect 2 "optimise $variant -o into a missing folder: stdout empty" -- optimise "$model" --board zc706 $variant -o "$tmp/optimise/missing/out.json"
done
expect 0 "optimise -o writes and prints" -- optimise "$lenet" --board zc706 --backend finn --optimiser none --json -o "$tmp/printed.json"
check "printed after writing" test -s "$tmp/out" -a -s "$tmp/printed.json"

# ---- 5. an nn2FPGA design file: evaluate reads it, the streaming formats refuse it,
# and a report of an earlier cnnmap (no "format") is named for what it is ----

expect 0 "nn2fpga design" -- optimise "$resnet" --board zc706 --backend nn2fpga -o "$tmp/report.json"
expect 0 "evaluate an nn2FPGA design" -- evaluate "$tmp/report.json"
expect 2 "export an nn2FPGA design as finn" -- export "$tmp/report.json" --format finn -o "$tmp/x.json"
check "export names the formats it takes" err_has "$tmp/report.json: an nn2fpga design exports as hls, report-md or report-html"
check "no export file" test ! -e "$tmp/x.json"
/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ["format", "version", "model_path", "solver"]:
    del d[k]
json.dump(d, open(sys.argv[2], "w"))
' "$tmp/report.json" "$tmp/old.json"
expect 2 "evaluate an earlier nn2FPGA report" -- evaluate "$tmp/old.json"
check "evaluate says it is an nn2FPGA report" err_has "$tmp/old.json: not a design file (an nn2FPGA report"
check "evaluate does not talk about the optimiser" test -z "$(grep -F 'optimiser' "$tmp/err")"
expect 2 "export an earlier nn2FPGA report" -- export "$tmp/old.json" --format finn -o "$tmp/x.json"
check "export says it is an nn2FPGA report" err_has "$tmp/old.json: not a design file (an nn2FPGA report"
check "no export file" test ! -e "$tmp/x.json"

# ---- 6. a missing design file ----

expect 2 "evaluate a missing design" -- evaluate "$tmp/none.json"
check "missing design: plain message" test "$(cat "$tmp/err")" = "cnnmap: $tmp/none.json: cannot open: No such file or directory"
expect 2 "export a missing design" -- export "$tmp/none.json" --format finn -o "$tmp/x.json"
check "export missing design: plain message" test "$(cat "$tmp/err")" = "cnnmap: $tmp/none.json: cannot open: No such file or directory"

finish
