#!/usr/bin/env bash
# Optimiser benchmark: runs every optimiser on the SAMO paper's cases (Tables V and
# VI) and more, and prints a markdown table: latency (or throughput), the gap to the
# exact optimiser's lower bound, and the wall time of each optimiser run.
#
#   bench/run_optimise.sh [OPTIMISERS...]     (default: none rule anneal exact)
#
# Environment: CM_BENCH_BUILD (default build-release, built here if missing),
# CM_BENCH_ZOO (default build/test-models/zoo: tests/models/make_zoo.py writes it),
# CM_BENCH_TIME_LIMIT (seconds per run, default 60).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CM_BENCH_BUILD:-$ROOT/build-release}
ZOO=${CM_BENCH_ZOO:-$ROOT/build/test-models/zoo}
LIMIT=${CM_BENCH_TIME_LIMIT:-60}
SHARED=$ROOT/../shared/models
optimisers=("$@")
((${#optimisers[@]})) || optimisers=(none rule anneal exact)

if [[ ! -x $BUILD/cnnmap ]]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >&2
    cmake --build "$BUILD" --target cnnmap_cli -j2 >&2
fi
if [[ ! -f $ZOO/cnv.onnx ]]; then
    /usr/bin/python3 "$ROOT/tests/models/make_zoo.py" "$ZOO" >&2
fi

# model file | board | backend | objective | extra options | SAMO's figure for the case
# (fpgaConvNet latency cases use --no-weights-reloading: SAMO's partitioned design
# space, without the latency-driven flow of the fpgaConvNet latency paper)
cases=(
  "$SHARED/lenet.onnx|zedboard|fpgaconvnet|latency|--no-weights-reloading|Table V lat.: 2.0 ms, 1 partition"
  "$SHARED/lenet.onnx|zedboard|fpgaconvnet|throughput||Table V thr.: 901.6 img/s, 3 partitions"
  "$ZOO/cnv.onnx|zedboard|fpgaconvnet|latency|--no-weights-reloading|Table V lat.: 421.7 ms, 6 partitions"
  "$ZOO/cnv.onnx|zedboard|fpgaconvnet|throughput||Table V thr.: 196.2 img/s, 8 partitions"
  "$ZOO/mpcnn.onnx|zedboard|finn|latency|--bits 4|Table V lat.: 84.5 ms, 2 partitions"
  "$ZOO/mpcnn.onnx|zedboard|finn|throughput|--bits 4|Table V thr.: 592.4 img/s, 3 partitions"
  "$ZOO/cnv.onnx|zedboard|finn|latency|--bits 1|Table V lat.: 0.3 ms, 1 partition"
  "$ZOO/cnv.onnx|zedboard|finn|throughput|--bits 1|Table V thr.: 3472.2 img/s, 1 partition"
  "$ZOO/mobilenet_v1.onnx|zedboard|finn|latency|--bits 4|Table V lat.: 475.3 ms, 5 partitions"
  "$ZOO/mobilenet_v1.onnx|zedboard|finn|throughput|--bits 4|Table V thr.: 22.6 img/s, 13 partitions"
  "$ZOO/jet_tagging.onnx|u250|hls4ml|latency|--bits 16|Table VI: 0.001 us"
  "$ZOO/mpcnn.onnx|zedboard|fpgaconvnet|latency|--no-weights-reloading|Table VI: 180.0 us"
  "$ZOO/cnv.onnx|u250|finn|latency|--bits 1|Table VI: 41.0 us"
  "$ZOO/mobilenet_v1.onnx|u250|finn|latency|--bits 4|Table VI: 567.9 us"
  "$ZOO/tfc.onnx|zc706|finn|latency|--bits 4|"
  "$ZOO/mobilenet_v1.onnx|u250|fpgaconvnet|throughput||"
  "$ZOO/vgg11.onnx|u250|hls4ml|latency||"
)

echo "| model | board | backend | objective | optimiser | latency | throughput (img/s) | partitions | gap to bound | time (s) | SAMO |"
echo "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
for c in "${cases[@]}"; do
    IFS='|' read -r model board backend objective extra paper <<<"$c"
    bound=""
    rows=()
    for o in "${optimisers[@]}"; do
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        out=$("$BUILD/cnnmap" optimise "$model" --board "$board" --backend "$backend" \
              --objective "$objective" --optimiser "$o" --time-limit "$LIMIT" --quiet --json $extra \
              2>/dev/null) || true
        end=$(date +%s.%N)
        rows+=("$(/usr/bin/python3 -c '
import json, sys
o, t, text = sys.argv[1], float(sys.argv[3]) - float(sys.argv[2]), sys.argv[4]
try:
    d = json.loads(text)
except ValueError:
    print(f"{o}|-|-|-|-|{t:.2f}"); sys.exit()
lb = d.get("lower_bound_s", "")
lat, fps, parts, feasible = d["latency_s"], d["throughput_fps"], d["partitions"], d["feasible"]
print(f"{o}|{lat!r}|{fps:.4g}|{parts}|{lb}|{t:.2f}|{feasible}")
' "$o" "$start" "$end" "$out")")
    done
    for r in "${rows[@]}"; do
        IFS='|' read -r o lat thr parts lb t feasible <<<"$r"
        [[ -n $lb ]] && bound=$lb
    done
    for r in "${rows[@]}"; do
        IFS='|' read -r o lat thr parts lb t feasible <<<"$r"
        shown=$lat gap="-"
        if [[ $lat != "-" ]]; then
            read -r shown gap < <(/usr/bin/python3 -c '
import sys
lat, bound, feasible = float(sys.argv[1]), sys.argv[2], sys.argv[3] == "True"
shown = f"{lat*1e3:.4g}&nbsp;ms" + ("" if feasible else "&nbsp;(infeasible)")
gap = f"{100*(lat/float(bound)-1):.2f}%" if bound and feasible and float(bound) > 0 else "-"
print(shown, gap)' "$lat" "$bound" "$feasible")
        fi
        echo "| $(basename "$model" .onnx) | $board | $backend | $objective | $o | $shown | $thr | $parts | $gap | $t | $paper |"
    done
done
