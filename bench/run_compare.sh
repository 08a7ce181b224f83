#!/usr/bin/env bash
# `cnnmap compare` benchmark (issue 13): for the shared QONNX models and LeNet,
# MobileNetV1 and torchvision's ResNet-18 (the test generators' models), the wall time of
# a comparison with no time limit (the default), and per architecture its latency (ms),
# whether it is proven optimal (*: optimal, ~: stopped by its share of the limit) or why
# it cannot take the model; the best is in bold. A markdown table.
#
#   bench/run_compare.sh [BOARD]    (default zcu102)
#
# Environment: CM_BENCH_BUILD (default build-release, built here if missing),
# CM_SHARED_DIR (default ../shared), CM_TEST_MODELS_DIR (default build/test-models).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CM_BENCH_BUILD:-$ROOT/build-release}
SHARED=$(cd "${CM_SHARED_DIR:-$ROOT/../shared}/models" && pwd)
MODELS=${CM_TEST_MODELS_DIR:-$ROOT/build/test-models}
BOARD=${1:-zcu102}
if [[ ! -x $BUILD/cnnmap ]]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >&2
fi
cmake --build "$BUILD" --target cnnmap_cli -j "$(nproc 2>/dev/null || echo 2)" >&2
C=$BUILD/cnnmap
WORK=$BUILD/bench-compare
rm -rf "$WORK" && mkdir -p "$WORK"
now() { date +%s.%N; }

echo "| model | time | fpgaConvNet | FINN | hls4ml | latency-driven | nn2FPGA | overlay |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for m in "$SHARED"/resnet8_a8w8b16.onnx "$SHARED"/resnet8_a4w4b32.onnx \
         "$SHARED"/resnet20_a8w8b16.onnx "$SHARED"/mobilenet_v2_a8w6b32.onnx \
         "$SHARED"/lenet.onnx "$MODELS"/zoo/mobilenet_v1.onnx "$MODELS"/torchvision/resnet18.onnx; do
    name=$(basename "$m" .onnx)
    t0=$(now)
    "$C" compare "$m" --board "$BOARD" --json --quiet >"$WORK/$name.json" || [[ $? -eq 3 ]]
    t=$(echo "$(now) - $t0" | bc)
    /usr/bin/python3 - "$WORK/$name.json" "$name" "$t" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
cells = []
for i, x in enumerate(c["candidates"]):
    if x["feasible"]:
        mark = "*" if x["optimal"] else ("~" if x["stopped_early"] else "")
        cell = "%.4g%s" % (x["latency_s"] * 1e3, mark)
        cells.append("**%s**" % cell if c["best"] == i else cell)
    else:
        r = x["reason"] or ""
        cells.append("no fit" if x["available"] else
                     "not quantised" if "not quantised" in r else
                     "branches" if "chain of layers" in r else
                     "grouped conv" if "grouped" in r else "refused")
print("| %s | %.1f s | %s |" % (sys.argv[2], float(sys.argv[3]), " | ".join(cells)))
PY
done
