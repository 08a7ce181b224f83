#!/usr/bin/env bash
# Overlay-mapping benchmark (DYNAMAP): builds bench_overlay in the Release configuration
# and times cm_overlay_map on GoogLeNet (torchvision) and Inception-v4 (the zoo), with
# the array capped at 6084 DSPs on the U200 as in the paper.
#
#   bench/run_overlay.sh [bench_overlay options, e.g. --repeat 50 or --json]
#
# Environment:
#   CM_BENCH_MODELS  where googlenet.onnx is (default: build/bench-models; exported there
#                    when missing)
#   CM_BENCH_ZOO     where inception_v4.onnx is (default: build/bench-models/zoo; built
#                    there by tests/models/make_zoo.py when missing)
#   CM_BENCH_BUILD   the Release build directory (default: build-release)
#
# Only the table (or JSON) goes to stdout; export and build progress go to stderr.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODELS=${CM_BENCH_MODELS:-$ROOT/build/bench-models}
ZOO=${CM_BENCH_ZOO:-$MODELS/zoo}
BUILD=${CM_BENCH_BUILD:-$ROOT/build-release}
PYTHON=/usr/bin/python3 # Debian's torch, torchvision and onnx live there

if [[ ! -f $MODELS/googlenet.onnx ]]; then
    echo "== exporting googlenet into $MODELS" >&2
    "$PYTHON" "$ROOT/tests/models/export_torchvision.py" "$MODELS" --only googlenet >&2
fi
if [[ ! -f $ZOO/inception_v4.onnx ]]; then
    echo "== building the model zoo into $ZOO" >&2
    "$PYTHON" "$ROOT/tests/models/make_zoo.py" "$ZOO" >&2
fi

echo "== building $BUILD (Release)" >&2
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >&2
cmake --build "$BUILD" --target bench_overlay -j "$(nproc 2>/dev/null || echo 2)" >&2

rev=$(git -C "$ROOT" --no-optional-locks describe --always --dirty 2>/dev/null || echo unknown)
echo "== cnnmap $rev; $BUILD/bench/bench_overlay $*" >&2
exec "$BUILD/bench/bench_overlay" "$@" "$MODELS/googlenet.onnx" "$ZOO/inception_v4.onnx"
