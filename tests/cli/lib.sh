# Shared by the command-line test scripts: `expect` runs cnnmap and checks its exit code
# and, for a failure, that stderr is one line "cnnmap: ..." and stdout is empty;
# `check` asserts a shell condition; `within` checks a command's time; `finish` prints the count CI reads and sets the
# exit status. The including script sets $cnnmap and $tmp, and may set one_line_from
# (the lowest exit code held to the one-line rule, default 2) and define the hooks
# expect_before (run before each command) and expect_after_failure (a further condition
# on a failing command, e.g. that no output file was left).
passed=0 failed=0
one_line_from=${one_line_from:-2}

# expect CODE DESCRIPTION -- ARGS...
expect() {
  local code=$1 what=$2; shift 3
  if declare -F expect_before >/dev/null; then expect_before; fi
  "$cnnmap" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  local got=$?
  local ok=1
  [ "$got" -eq "$code" ] || ok=0
  if [ "$code" -ge "$one_line_from" ]; then
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^cnnmap: ' "$tmp/err" && [ ! -s "$tmp/out" ] || ok=0
    if declare -F expect_after_failure >/dev/null; then expect_after_failure || ok=0; fi
  fi
  if [ $ok -eq 1 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $what: exit $got (want $code)"; sed 's/^/  stderr: /' "$tmp/err" | head -5
  fi
}

# need_shared FILE: a shared model the script cannot run without; missing, it fails the
# script under CI (CI=true) and skips it elsewhere.
need_shared() {
  [ -f "$1" ] && return 0
  if [ "${CI:-}" = true ]; then echo "missing $1"; echo "0 passed, 1 failed"; exit 1; fi
  echo "skipped: $1 is missing"; echo "0 passed, 0 failed"; exit 0
}

# within SECONDS DESCRIPTION ARGS...: runs cnnmap, sets $rc to its exit code and checks
# that it returned in time. The check takes the smaller of the wall-clock and the CPU
# time: a command that overruns its limit spends the CPU, while one that only waited for
# a core does not (ctest runs tests two at a time beside the fuzzers at nice 19: a 21 s
# check under ASan took 22 s there and 10 s on a quiet machine).
within() {
  local limit=$1 what=$2; shift 2
  local TIMEFORMAT='%R %U %S' wall user sys took
  { time "$cnnmap" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; } 2>"$tmp/time"
  rc=$?
  read -r wall user sys <"$tmp/time"
  took=$(awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { c = u + s; printf "%.2f", (c < w ? c : w) }')
  check "$what returns within $limit s (took $took s: wall $wall, CPU $user + $sys)" \
    awk -v e="$took" -v l="$limit" 'BEGIN { exit !(e <= l) }'
}

# check DESCRIPTION COMMAND...
check() {
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $what"; fi
}

# csim_check PROJECT CXX SANITIZE_FLAGS VECTORS WHAT: an exported HLS project's `make
# check` (its C simulation against cnnmap run, bit for bit) passes, compared every frame
# and printed no sanitizer report; the log is left in $tmp/make.log.
csim_check() {
  local prj=$1 cxx=$2 sanitize=$3 vectors=$4 what=$5
  if make -C "$prj" check CXX="$cxx" CM_CSIM_SANITIZE="$sanitize" >"$tmp/make.log" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); echo "FAIL: make check $what with $cxx $sanitize"; tail -5 "$tmp/make.log"
  fi
  check "make check $what compared every frame" grep -q "csim: $vectors frames" "$tmp/make.log"
  check "make check $what: no sanitizer report" \
    test -z "$(grep -E 'ERROR: AddressSanitizer|runtime error:' "$tmp/make.log")"
}

finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
