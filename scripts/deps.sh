#!/usr/bin/env bash
# Installs the Debian packages cnnmap needs to build and test, when any is missing, and
# ONNX Runtime for Node.js (the oracle of tests/run) into build/node.
# Run as root on Debian 12 when packages are missing; does nothing when everything is
# there.
set -euo pipefail
packages=(
  gcc g++ clang cmake make pkg-config
  protobuf-c-compiler libprotobuf-c-dev libonnx-dev   # ONNX bindings from onnx.proto
  libjansson-dev                                      # JSON
  libcmocka-dev                                       # unit tests
  libglpk-dev                                         # integer programs (exact optimiser)
  libssl-dev                                          # SHA-256 (libcrypto)
  libopenblas-dev libopenblas-serial-dev              # the executor's matrix products (serial: run/runner.c)
  libonnx-testdata                                    # ONNX node tests (conformance)
  libclang-rt-14-dev                                  # clang's sanitizer and libFuzzer runtimes
  valgrind                                            # memcheck over the command-line tests
  python3-onnx python3-numpy python3-torch python3-torchvision  # test-model generators
  python3-pytest                                      # the Python package's tests
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm run tests/run/ort_run.js; any Node.js >= 18 will do (Debian's or another).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi
if [ ${#missing[@]} -ne 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing packages (run as root to install): ${missing[*]}" >&2
    exit 1
  fi
  echo "deps.sh: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ONNX Runtime for the `cnnmap run` checks (tests/run/ort_run.js): the npm package
# onnxruntime-node at the version locked in tests/run/package-lock.json, installed with
# `npm ci` into build/node (outside the source tree, shared by every build directory;
# CM_NODE_DIR overrides). The package carries its native library for linux-x64, so the
# install scripts are not run (--ignore-scripts; ONNXRUNTIME_NODE_INSTALL=skip would make
# them download nothing anyway) and the tests run offline afterwards. Skipped when the
# last successful install was of the repository's lock file (build/node/installed.lock).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
node_dir=${CM_NODE_DIR:-$root/build/node}
lock=$root/tests/run/package-lock.json
if ! cmp -s "$lock" "$node_dir/installed.lock"; then
  echo "deps.sh: installing onnxruntime-node into $node_dir" >&2
  mkdir -p "$node_dir"
  rm -f "$node_dir/installed.lock"
  cp "$root/tests/run/package.json" "$lock" "$node_dir/"
  (cd "$node_dir" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --ignore-scripts --no-audit \
     --no-fund --loglevel=error >&2)
  cp "$lock" "$node_dir/installed.lock"
fi
