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
# The Python package installs beside it (not in sanitizer builds) and imports from the
# prefix alone: the same model gives the same figures through it.
site=$(find "$prefix" -type d -path '*dist-packages/cnnmap' | head -n 1)
if [ -n "$site" ]; then
  py=$(cd / && PYTHONPATH=$(dirname "$site") /usr/bin/python3 -c "
import cnnmap, sys
m = cnnmap.load_model(sys.argv[1])
print(m.totals['layers'], m.totals['macs'], cnnmap.board('zc706')['resources']['DSP'])
" "$shared/models/lenet.onnx")
  echo "python: $py"
  [ "$py" = "7 2293000 900" ]
  echo "2 passed, 0 failed"
else
  echo "1 passed, 0 failed"
fi
