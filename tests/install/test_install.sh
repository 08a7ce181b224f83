#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds a program against it with
# pkg-config, as a user of libcnnmap would.
# usage: test_install.sh BUILD_DIR SRC_DIR SHARED CC [SANITIZER_FLAGS]
set -eu
build=$1 src=$2 shared=$3 cc=$4 extra=${5:-}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
pc=$(find "$prefix" -name cnnmap.pc)
export PKG_CONFIG_PATH=$(dirname "$pc")
test -f "$prefix/include/cnnmap/cnnmap.h"
flags="$(pkg-config --cflags --libs cnnmap)"
"$cc" -std=c11 -Wall -Wextra -Werror $extra "$src/tests/install/example.c" -o "$prefix/example" $flags
out=$("$prefix/example" "$shared/models/lenet.onnx" zc706)
echo "$out"
[ "${out#* }" = "7 2293000 zc706 900" ]
echo "1 passed, 0 failed"
