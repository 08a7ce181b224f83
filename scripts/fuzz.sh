#!/usr/bin/env bash
# Fuzzes every libFuzzer target in turn on all cores (issue 19): scripts/fuzz.sh
# [--minutes N] [TARGET...]. Each target starts from its seed corpus (fuzz/corpus/NAME),
# keeps what it finds in build/clang-fuzz/fuzz/long-NAME, and ends with a line of
# executions, executions per second and coverage, collected in build/clang-fuzz/fuzz/
# summary.md. A crash, sanitizer report, leak or input slower than 1 s stops the script
# with the reproducer's path; add it to the corpus as a regression seed once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=10
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --minutes=*) minutes="${1#--minutes=}"; shift ;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 1 ;;
    *) targets+=("$1"); shift ;;
  esac
done
case "$minutes" in ''|*[!0-9]*) echo "fuzz.sh: --minutes takes a whole number" >&2; exit 1 ;; esac
[ ${#targets[@]} -gt 0 ] || targets=(model board npy design run simulate)

dir=build/clang-fuzz
cmake -S . -B "$dir" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCM_SANITIZE=ON \
  -DCM_FUZZ=ON -DCM_TEST_MODELS_DIR="$PWD/build/test-models" >/dev/null
cmake --build "$dir" -j"$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null

declare -A seeds_of=([simulate]=design) # fuzz_simulate starts from the design seeds
summary="$dir/fuzz/summary.md"
{
  echo "| target | minutes | executions | exec/s | coverage (edges) | features |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
} >"$summary"
for t in "${targets[@]}"; do
  work="$dir/fuzz/long-$t"
  mkdir -p "$work"
  log="$dir/fuzz/long-$t.log"
  echo "== fuzz_$t for $minutes min on $(nproc) cores" >&2
  # -fork runs one fuzzing process per core and merges their coverage into $work.
  if ! "$dir/fuzz/fuzz_$t" -fork="$(nproc)" -max_total_time=$((minutes * 60)) -timeout=1 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/fuzz/fuzz_$t-" \
      "$work" "fuzz/corpus/${seeds_of[$t]:-$t}" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "fuzz.sh: fuzz_$t failed; reproducers: $(ls "$dir"/fuzz/fuzz_"$t"-* 2>/dev/null | tr '\n' ' ')" >&2
    exit 1
  fi
  # fork mode reports "#RUNS: cov: C ft: F corp: ... exec/s: E ..." as it goes
  last=$(grep -E '^#[0-9]+: cov: ' "$log" | tail -n 1)
  runs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
  cov=$(sed -E 's/.* cov: ([0-9]+).*/\1/' <<<"$last")
  ft=$(sed -E 's/.* ft: ([0-9]+).*/\1/' <<<"$last")
  eps=$(sed -E 's/.* exec\/s:? ([0-9]+).*/\1/' <<<"$last") # fork mode prints no colon
  echo "| fuzz_$t | $minutes | $runs | $eps | $cov | $ft |" >>"$summary"
done
cat "$summary"
