#!/usr/bin/env bash
# Design-evaluation benchmark (issue 17): incremental and full evaluations per second,
# one thread, on CNV (19 nodes), torchvision's ResNet-50 (without weight bytes) and a
# chain of 1,000 3x3 convolutions, for fpgaConvNet, FINN and hls4ml, each in one
# partition on a U250 (bench/bench_design.c says what a step is).
#
#   bench/run_design.sh [--seconds S]
#
# Environment: CM_BENCH_BUILD (default build-release, configured here if missing),
# CM_BENCH_MODELS (default build/bench-models; the models are made there if missing).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CM_BENCH_BUILD:-$ROOT/build-release}
MODELS=${CM_BENCH_MODELS:-$ROOT/build/bench-models}
PYTHON=/usr/bin/python3 # Debian's torch, torchvision and onnx live there
mkdir -p "$MODELS"

if [[ ! -f $MODELS/resnet50_noweights.onnx ]]; then
    "$PYTHON" "$ROOT/tests/models/export_torchvision.py" "$MODELS" --only resnet50 >&2
fi
if [[ ! -f $MODELS/zoo/cnv.onnx ]]; then
    "$PYTHON" "$ROOT/tests/models/make_zoo.py" "$MODELS/zoo" --only cnv >&2
fi
if [[ ! -f $MODELS/chain1000.onnx ]]; then
    "$PYTHON" "$ROOT/bench/make_chains.py" "$MODELS" 1000 >&2
fi

if [[ ! -f $BUILD/CMakeCache.txt ]]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >&2
fi
cmake --build "$BUILD" --target bench_design -j2 >&2

rev=$(git -C "$ROOT" --no-optional-locks describe --always --dirty 2>/dev/null || echo unknown)
echo "== cnnmap $rev" >&2
for backend in fpgaconvnet finn hls4ml; do
    "$BUILD/bench/bench_design" "$@" --backend "$backend" "$MODELS/zoo/cnv.onnx" \
        "$MODELS/resnet50_noweights.onnx" "$MODELS/chain1000.onnx"
done
