#!/usr/bin/env bash
# Runs cnnmap under Valgrind's memcheck for the command-line tests (issue 19):
# CM_VALGRIND_CNNMAP names the binary. Any memory error or definite/indirect leak makes
# the run exit 98, which no test expects, so the calling test fails.
exec valgrind --quiet --error-exitcode=98 --leak-check=full \
  --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
  "$CM_VALGRIND_CNNMAP" "$@"
