#!/usr/bin/env bash
# HLS generation benchmark (issue 14): for each shared QONNX model on its board, the time
# of `cnnmap export --format hls` (median of 5), the generated C++ lines (src/, weights
# included), the C simulation's build time and its time per frame on the exported test
# vectors (`make check`, bit-identical to `cnnmap run`), as a markdown table.
#
#   bench/run_hls.sh [FRAMES]     (default 10 test vectors per model; MobileNetV2 a tenth,
#                                 at least 1)
#
# Environment: CM_BENCH_BUILD (default build-release, built here if missing),
# CM_SHARED_DIR (default ../shared), CXX (default g++). Only the table goes to stdout.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CM_BENCH_BUILD:-$ROOT/build-release}
SHARED=$(cd "${CM_SHARED_DIR:-$ROOT/../shared}/models" && pwd)
FRAMES=${1:-10}
CXX=${CXX:-g++}
if [[ ! -x $BUILD/cnnmap ]]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >&2
fi
cmake --build "$BUILD" --target cnnmap_cli -j "$(nproc 2>/dev/null || echo 2)" >&2
C=$BUILD/cnnmap
WORK=$BUILD/bench-hls
rm -rf "$WORK" && mkdir -p "$WORK"
now() { date +%s.%N; }

echo "| model | board | export (median of 5) | C++ lines | tasks | csim build ($CXX -O2) | warnings | csim per frame | frames | bit-identical |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
for entry in resnet8_a8w8b16:kv260 resnet8_a4w4b32:kv260 resnet20_a8w8b16:kv260 mobilenet_v2_a8w6b32:zcu102; do
    m=${entry%%:*} board=${entry#*:}
    n=$FRAMES
    [[ $m == mobilenet* ]] && n=$(( FRAMES / 10 > 0 ? FRAMES / 10 : 1 ))
    "$C" optimise "$SHARED/$m.onnx" --board "$board" --backend nn2fpga -o "$WORK/$m.json" >/dev/null
    times=()
    for i in 1 2 3 4 5; do
        t0=$(now)
        "$C" export "$WORK/$m.json" --format hls -o "$WORK/$m" --force --test-vectors "$n" >"$WORK/$m.export.txt"
        times+=("$(echo "$(now) - $t0" | bc)")
    done
    export_s=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
    lines=$(sed -n 's/.* \([0-9]*\) lines of C++.*/\1/p' "$WORK/$m.export.txt")
    tasks=$(sed -n 's/.*: \([0-9]*\) tasks,.*/\1/p' "$WORK/$m.export.txt")
    t0=$(now)
    make -C "$WORK/$m" csim CXX="$CXX" >"$WORK/$m.build.txt" 2>&1
    build_s=$(echo "$(now) - $t0" | bc)
    t0=$(now)
    ok=no
    (cd "$WORK/$m" && ./csim tests/inputs.npy tests/outputs.npy tests/expected.npy) >"$WORK/$m.check.txt" 2>&1 && ok=yes
    run_s=$(echo "$(now) - $t0" | bc)
    warnings=$(grep -c 'warning:' "$WORK/$m.build.txt" || true)
    printf '| %s | %s | %.3f s | %s | %s | %.0f s | %s | %.2f s | %s | %s |\n' "$m" "$board" "$export_s" \
        "$lines" "$tasks" "$build_s" "$warnings" "$(echo "$run_s / $n" | bc -l)" "$n" "$ok"
done
