#!/usr/bin/env bash
# Builds cnnmap and runs the whole test suite: with gcc, then with clang under
# AddressSanitizer and UndefinedBehaviorSanitizer, then the fuzzers for a short time.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
jobs=$(nproc)
models="$PWD/build/test-models"   # generated once, shared by every configuration

run_suite() { # NAME, CMAKE ARGS...
  local dir="build/$1"; shift
  echo "== $dir" >&2
  cmake -S . -B "$dir" -DCM_TEST_MODELS_DIR="$models" "$@" >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
}

run_suite gcc -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++
(cd build/gcc && ctest --output-on-failure -j"$jobs")

run_suite clang-asan -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
(cd build/clang-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j"$jobs" -E '^fuzz_')

run_suite clang-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCM_SANITIZE=ON -DCM_FUZZ=ON
(cd build/clang-fuzz && ctest --output-on-failure -R '^fuzz_')
