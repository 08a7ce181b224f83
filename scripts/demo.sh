#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds cnnmap, and runs it on the bundled model
# and a built-in board.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
# The Python package, for Debian's python3 (`import cnnmap` from anywhere): as root
# under /usr/local, otherwise into the user's site folder.
if [ "$(id -u)" -eq 0 ]; then
  cmake --install build --component python >/dev/null
else
  site=$(/usr/bin/python3 -m site --user-site)
  mkdir -p "$site" && rm -rf "$site/cnnmap" && cp -r build/python/cnnmap "$site/"
fi
./build/cnnmap inspect models/cifar10_quick.onnx
./build/cnnmap boards
./build/cnnmap optimise models/cifar10_quick.onnx --board zc706 --backend fpgaconvnet
(cd / && /usr/bin/python3 -c 'import cnnmap; print("python: cnnmap", cnnmap.version(), "with",
                                                   len(cnnmap.boards()), "boards")')
