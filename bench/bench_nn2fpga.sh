#!/usr/bin/env bash
# nn2FPGA design-space exploration benchmark: for each model and board of the thesis'
# Table 4.1, runs `cnnmap optimise --backend nn2fpga` several times and prints a
# markdown table of the program sizes and the total DSE time (median over the runs;
# enumeration, both phases and every GLPK program, model loading excluded) beside
# the thesis' solver times.
#
#   bench/bench_nn2fpga.sh [RUNS]          (default 7; optimiser: CM_BENCH_OPTIMISER=bip)
#
# Environment: CM_BENCH_BUILD (default build-nn2fpga-release, configured here with
# CMAKE_BUILD_TYPE=Release when missing).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CM_BENCH_BUILD:-$ROOT/build-nn2fpga-release}
MODELS=$ROOT/../shared/models
RUNS=${1:-7}
OPT=${CM_BENCH_OPTIMISER:-bip}

if [[ ! -x $BUILD/cnnmap ]]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCM_TESTS=OFF >&2
    cmake --build "$BUILD" --target cnnmap_cli -j2 >&2
fi

# model | board | bits | thesis variables | thesis constraints | thesis time (s)
cases=(
  "resnet8_a4w4b32|kv260|4|523|37|0.10"
  "resnet8_a8w8b16|ultra96-v2|8|407|37|0.06"
  "resnet8_a8w8b16|kv260|8|523|37|0.07"
  "resnet20_a8w8b16|ultra96-v2|8|1107|85|0.09"
  "resnet20_a8w8b16|kv260|8|1471|85|0.94"
  "mobilenet_v2_a8w6b32|zcu102|8|6142|217|0.97"
)

echo "| model | board | bit | thesis vars | thesis cons | thesis time (s) | cnnmap vars (ph1/ph2) | cnnmap cons | programs | S (cycles) | FPS | DSP | BRAM18 | URAM | cnnmap DSE time (s) | faster |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for c in "${cases[@]}"; do
    IFS='|' read -r model board bits tv tc tt <<<"$c"
    out=$(mktemp)
    for ((i = 0; i < RUNS; i++)); do
        "$BUILD/cnnmap" optimise "$MODELS/$model.onnx" --board "$board" --backend nn2fpga \
            --optimiser "$OPT" --json >"$out.$i"
    done
    /usr/bin/python3 - "$model" "$board" "$bits" "$tv" "$tc" "$tt" "$out" "$RUNS" <<'PY'
import json, statistics, sys
model, board, bits, tv, tc, tt, out, runs = sys.argv[1:]
docs = [json.load(open(f"{out}.{i}")) for i in range(int(runs))]
d = docs[0]
t = statistics.median(x["optimiser"]["time_s"] for x in docs)
p1, p2 = d["phases"]
r = d["resources"]
print(f"| {model} | {board} | {bits} | {tv} | {tc} | {tt} | {p1['variables']}/{p2['variables']} | "
      f"{p1['constraints']} | {p1['programs'] + p2['programs']} | {d['period_cycles']} | "
      f"{d['fps_steady']:.0f} | {r['DSP']} | {r['BRAM18']} | {r['URAM']} | {t:.3f} | "
      f"{'yes' if t < float(tt) else 'NO'} |")
PY
    rm -f "$out" "$out".*
done
