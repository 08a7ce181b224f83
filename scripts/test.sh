#!/usr/bin/env bash
# Builds cnnmap and runs the whole test suite: with gcc, then with clang under
# AddressSanitizer and UndefinedBehaviorSanitizer, then the fuzzers for a short time.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs=$(nproc)
models="$PWD/build/test-models"   # generated once, shared by every configuration
mkdir -p build

# The export of every torchvision network (generate_sweep_models) is half an hour of
# mostly one core and needs nothing built, while the rest of the suite would leave a
# core idle beside it. So it starts now, in the background, and each configuration
# runs its two sweep tests after it ends: the generator then finds its folder up to
# date and the check reads it.
sweep_tests='^(generate_sweep_models|torchvision_sweep)$'
sweep_log="$PWD/build/sweep-export.log"
sweep_pid=""
if [ -x /usr/bin/python3 ]; then
  /usr/bin/python3 tests/models/export_sweep.py "$models/sweep" --jobs 1 >"$sweep_log" 2>&1 &
  sweep_pid=$!
  trap '[ -n "$sweep_pid" ] && kill "$sweep_pid" 2>/dev/null || true' EXIT
fi

run_suite() { # NAME, CMAKE ARGS...
  local dir="build/$1"; shift
  echo "== $dir" >&2
  cmake -S . -B "$dir" -DCM_TEST_MODELS_DIR="$models" "$@" >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
}
asan_ctest() {
  (cd build/clang-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j"$jobs" "$@")
}

run_suite gcc -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++
(cd build/gcc && ctest --output-on-failure -j"$jobs" -E "$sweep_tests")

run_suite clang-asan -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
asan_ctest -E "^fuzz_|$sweep_tests"

run_suite clang-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCM_SANITIZE=ON -DCM_FUZZ=ON
(cd build/clang-fuzz && ctest --output-on-failure -R '^fuzz_')

if [ -n "$sweep_pid" ]; then
  echo "== the torchvision sweep (export: $sweep_log)" >&2
  if ! wait "$sweep_pid"; then
    sweep_pid=""
    tail -n 40 "$sweep_log" >&2
    echo "test.sh: tests/models/export_sweep.py failed (whole log: $sweep_log)" >&2
    exit 1
  fi
  sweep_pid=""
  tail -n 1 "$sweep_log" >&2
  (cd build/gcc && ctest --output-on-failure -R "$sweep_tests")
  asan_ctest -R "$sweep_tests"
fi
