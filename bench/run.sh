#!/usr/bin/env bash
# Model-loading benchmark: exports the torchvision models if they are missing, builds
# bench_load in the Release configuration and runs it on them and on the shared models.
#
#   bench/run.sh [bench_load options, e.g. --repeat 10 or --json]
#
# Environment:
#   CM_BENCH_MODELS  where the exported models live (default: build/bench-models); the
#                    export script writes missing ones there
#   CM_BENCH_ALL=1   also export and measure the other eight torchvision models
#   CC               the compiler for the Release build (configured once, in build-release)
#
# Only the table (or JSON) goes to stdout; export and build progress go to stderr.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODELS=${CM_BENCH_MODELS:-$ROOT/build/bench-models}
BUILD=$ROOT/build-release
SHARED=$ROOT/../shared/models
PYTHON=/usr/bin/python3 # Debian's torch, torchvision and onnx live there

names=(resnet50 mobilenet_v2)
if [[ ${CM_BENCH_ALL:-0} == 1 ]]; then
    names+=(resnet18 vgg16 alexnet squeezenet1_1 googlenet inception_v3 densenet121 efficientnet_b0)
fi

# 1. Models: export only those whose files are missing (the script itself also skips
#    up-to-date files, but importing torch takes seconds even then).
missing=()
for n in "${names[@]}"; do
    if [[ ! -f $MODELS/$n.onnx || ! -f $MODELS/${n}_noweights.onnx ]]; then
        missing+=("$n")
    fi
done
if ((${#missing[@]})); then
    echo "== exporting ${missing[*]} into $MODELS" >&2
    "$PYTHON" "$ROOT/tests/models/export_torchvision.py" "$MODELS" --only "${missing[@]}" >&2
fi

# 2. Release build of bench_load (and the library).
echo "== building $BUILD (Release)" >&2
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >&2
cmake --build "$BUILD" --target bench_load -j "$(nproc 2>/dev/null || echo 2)" >&2

# 3. The files to measure.
files=()
for n in "${names[@]}"; do
    files+=("$MODELS/$n.onnx" "$MODELS/${n}_noweights.onnx")
done
if compgen -G "$SHARED/*.onnx" >/dev/null; then
    files+=("$SHARED"/*.onnx)
else
    echo "run.sh: warning: no shared models in $SHARED; measuring only the exported ones" >&2
fi

# Which sources were measured (read-only: no index refresh, no lock).
rev=$(git -C "$ROOT" --no-optional-locks describe --always --dirty 2>/dev/null || echo unknown)
echo "== cnnmap $rev; $BUILD/bench/bench_load $* <${#files[@]} models>" >&2
exec "$BUILD/bench/bench_load" "$@" "${files[@]}"
