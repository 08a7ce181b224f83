#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds cnnmap, and runs it on the bundled model
# and a built-in board.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
./build/cnnmap inspect models/cifar10_quick.onnx
./build/cnnmap boards
./build/cnnmap optimise models/cifar10_quick.onnx --board zc706 --backend fpgaconvnet
