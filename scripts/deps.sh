#!/usr/bin/env bash
# Installs the Debian packages cnnmap needs to build and test, when any is missing.
# Run as root on Debian 12; does nothing when everything is there.
set -euo pipefail
packages=(
  gcc clang cmake make pkg-config
  protobuf-c-compiler libprotobuf-c-dev libonnx-dev   # ONNX bindings from onnx.proto
  libjansson-dev                                      # JSON
  libcmocka-dev                                       # unit tests
  libglpk-dev                                         # integer programs (exact optimiser)
  libclang-rt-14-dev                                  # clang's sanitizer and libFuzzer runtimes
  python3-onnx python3-numpy python3-torch python3-torchvision  # test-model generators
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "deps.sh: missing packages (run as root to install): ${missing[*]}" >&2
  exit 1
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
