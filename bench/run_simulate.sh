#!/usr/bin/env bash
# `cnnmap simulate` benchmark (issue 15): designs of the shared QONNX models on nn2FPGA
# (the thesis's boards, Table 4.1), streaming rule designs of LeNet, CNV, MPCNN and
# MobileNetV1 on fpgaConvNet (partitions only), FINN and hls4ml, VGG16 on fpgaConvNet
# (partitions, and the latency-driven design with weights reloading), each simulated for
# 4 frames: the wall time of `simulate` (process and design loading included), its CPU
# time (user + system: on a shared machine the wall time waits for other jobs) and the
# library's own time_s, the cycles and task iterations it stepped through, simulated
# cycles per second of wall time, and the simulated interval and first-frame latency
# beside the cost model's (difference in %). A markdown table; a design the optimiser
# cannot make is a row saying why.
#
#   bench/run_simulate.sh [STREAMING_BOARD]    (default u250, SAMO's board)
#
# Environment: CM_BENCH_BUILD (default build-release, built here if missing),
# CM_SHARED_DIR (default ../shared), CM_TEST_MODELS_DIR (default build/test-models).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CM_BENCH_BUILD:-$ROOT/build-release}
SHARED=$(cd "${CM_SHARED_DIR:-$ROOT/../shared}/models" && pwd)
MODELS=${CM_TEST_MODELS_DIR:-$ROOT/build/test-models}/zoo
BOARD=${1:-u250}
if [[ ! -x $BUILD/cnnmap ]]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >&2
fi
cmake --build "$BUILD" --target cnnmap_cli -j2 >&2
C=$BUILD/cnnmap
WORK=$BUILD/bench-simulate
rm -rf "$WORK" && mkdir -p "$WORK"
now() { date +%s.%N; }

# model path | board | backend | optimise flags
cases=(
  "$SHARED/resnet8_a8w8b16.onnx|kv260|nn2fpga|"
  "$SHARED/resnet8_a4w4b32.onnx|kv260|nn2fpga|"
  "$SHARED/resnet20_a8w8b16.onnx|kv260|nn2fpga|"
  "$SHARED/mobilenet_v2_a8w6b32.onnx|zcu102|nn2fpga|"
)
for m in lenet_zoo cnv mpcnn mobilenet_v1; do
    cases+=("$MODELS/$m.onnx|$BOARD|fpgaconvnet|--no-weights-reloading")
    cases+=("$MODELS/$m.onnx|$BOARD|finn|" "$MODELS/$m.onnx|$BOARD|hls4ml|")
done
cases+=("$MODELS/vgg16_fe.onnx|$BOARD|fpgaconvnet|--no-weights-reloading")
# the partitioned design does not fit zcu102: the latency-driven one
cases+=("$MODELS/vgg16_fe.onnx|zcu102|fpgaconvnet|")

echo "| model | board | backend | architecture | cycles | iterations | wall time | cpu time | time_s | cycles/s | interval sim | interval analytic | diff | latency sim | latency analytic | diff |"
echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for c in "${cases[@]}"; do
    IFS='|' read -r model board backend flags <<<"$c"
    name=$(basename "$model" .onnx)
    d=$WORK/$name.$board.$backend.json
    # shellcheck disable=SC2086 # flags: zero or more words
    if ! "$C" optimise "$model" --board "$board" --backend "$backend" $flags -o "$d" \
        --quiet >/dev/null 2>"$WORK/err"; then
        why=$(sed "s|^cnnmap: ||; s|$model: ||; s/|/\\\\|/g" "$WORK/err" | cut -c1-100)
        echo "| $name | $board | $backend | no design: $why | | | | | | | | | | | | |"
        continue
    fi
    t0=$(now)
    rc=0
    /usr/bin/time -f "%U %S" -o "$WORK/cpu" "$C" simulate "$d" --frames 4 --json --quiet \
        >"$WORK/$name.$board.$backend.sim.json" 2>"$WORK/err" || rc=$?
    t=$(echo "$(now) - $t0" | bc)
    if [[ $rc -ne 0 && $rc -ne 3 ]]; then
        why=$(sed "s|^cnnmap: ||; s|$d: ||; s/|/\\\\|/g" "$WORK/err" | cut -c1-100)
        echo "| $name | $board | $backend | simulate failed: $why | | | | | | | | | | | | |"
        continue
    fi
    cpu=$(tail -1 "$WORK/cpu" | awk '{print $1 + $2}')
    /usr/bin/python3 - "$WORK/$name.$board.$backend.sim.json" "$name" "$board" "$backend" "$t" \
        "$cpu" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
name, board, backend, t = sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
cpu = float(sys.argv[6])
s, a = d["simulated"], d["analytic"]

def diff(k):
    v = d["difference"][k]
    return "-" if v is None else "%+.2f%%" % (v * 100)

arch = d["architecture"] + (" (deadlock)" if d["deadlock"] else "")
print("| %s | %s | %s | %s | %d | %d | %.3f s | %.2f s | %.3f s | %.3g | %d | %d | %s | %d | %d | %s |" % (
    name, board, backend, arch, d["cycles"], d["iterations"], t, cpu, d["time_s"],
    d["cycles"] / t if t > 0 else 0, s["interval_cycles"], a["interval_cycles"],
    diff("interval"), s["latency_cycles"], a["latency_cycles"], diff("latency")))
PY
done
