#!/usr/bin/env bash
# Reference-executor benchmark: the time per frame of `cnnmap run` (single thread) on
# ResNet8, ResNet20 and MobileNetV2 (the shared QONNX models) and torchvision's ResNet50
# (float), beside ONNX Runtime (one thread) and PyTorch (one thread), as a markdown table.
#
#   bench/run_run.sh [FRAMES]          (default 8 frames per model)
#
# - cnnmap: `cnnmap run MODEL --input X.npy -o Y.npy --json --quiet` on a batch of FRAMES
#   frames; per frame = the command's own time_s / FRAMES (each frame runs on its own).
#   The wall time of the whole command (process start and model loading included) is
#   shown beside it.
# - ONNX Runtime (npm onnxruntime-node, tests/run/ort_run.js, intra/inter-op threads 1):
#   on the model itself for ResNet50 and on the QCDQ rewrite (tests/run/make_qcdq.py) for
#   the QONNX models, which ORT cannot run; frame by frame after one warm-up frame, timing
#   session.run only; with graph optimisations disabled (the model as written, as the
#   tests use it) and with all of them (ORT at its best).
# - PyTorch (torch.set_num_threads(1)): ResNet50 only (it has no QONNX runtime), frame by
#   frame after one warm-up frame.
#
# Environment: CM_BENCH_BUILD (default build-release, built here if missing),
# CM_BENCH_TV (default build/test-models/torchvision: tests/models/export_torchvision.py
# writes resnet50.onnx there if missing), CM_SHARED_DIR (default ../shared).
# Needs Debian's python3 (numpy, onnx, torch, torchvision) and onnxruntime-node
# (scripts/deps.sh). Only the table goes to stdout.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CM_BENCH_BUILD:-$ROOT/build-release}
TV=${CM_BENCH_TV:-$ROOT/build/test-models/torchvision}
SHARED=${CM_SHARED_DIR:-$ROOT/../shared}/models
if [[ ! -d $SHARED ]]; then
    echo "run_run.sh: no shared models in $SHARED (set CM_SHARED_DIR)" >&2
    exit 1
fi
SHARED=$(cd "$SHARED" && pwd)
FRAMES=${1:-8}
PYTHON=/usr/bin/python3 # Debian's torch, torchvision and onnx live there

if [[ ! -x $BUILD/cnnmap ]]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >&2
fi
cmake --build "$BUILD" --target cnnmap_cli -j "$(nproc 2>/dev/null || echo 2)" >&2
if [[ ! -f $TV/resnet50.onnx ]]; then
    echo "== exporting resnet50 into $TV" >&2
    "$PYTHON" "$ROOT/tests/models/export_torchvision.py" "$TV" --only resnet50 >&2
fi
for m in resnet8_a8w8b16 resnet20_a8w8b16 mobilenet_v2_a8w6b32; do
    [[ -f $SHARED/$m.onnx ]] || { echo "run_run.sh: missing $SHARED/$m.onnx" >&2; exit 1; }
done
WORK=$BUILD/bench-run
mkdir -p "$WORK"

rev=$(git -C "$ROOT" --no-optional-locks describe --always --dirty 2>/dev/null || echo unknown)
echo "== cnnmap $rev ($BUILD), $FRAMES frames per model" >&2

exec "$PYTHON" - "$ROOT" "$BUILD/cnnmap" "$SHARED" "$TV" "$WORK" "$FRAMES" <<'EOF'
import json, os, subprocess, sys, time, zlib
import numpy as np

root, cnnmap, shared, tv, work, frames = sys.argv[1:7]
frames = int(frames)
sys.path.insert(0, os.path.join(root, "tests", "run"))
import make_qcdq  # noqa: E402
import run_common as rc  # noqa: E402

def err(msg):
    sys.stderr.write(msg + "\n"); sys.stderr.flush()

version = rc.ort_version()
if version is None:
    err("run_run.sh: onnxruntime-node is missing (scripts/deps.sh); ORT columns left empty")

models = [  # label, path, kind, input shape
    ("ResNet8 (a8w8b16)", os.path.join(shared, "resnet8_a8w8b16.onnx"), "QONNX", (3, 32, 32)),
    ("ResNet20 (a8w8b16)", os.path.join(shared, "resnet20_a8w8b16.onnx"), "QONNX", (3, 32, 32)),
    ("MobileNetV2 (a8w6b32)", os.path.join(shared, "mobilenet_v2_a8w6b32.onnx"), "QONNX",
     (3, 224, 224)),
    ("ResNet50 (torchvision)", os.path.join(tv, "resnet50.onnx"), "float", (3, 224, 224)),
]

def ms(v):
    return "-" if v is None else "%.3g" % (v * 1e3)

def cnnmap_time(path, xp):
    yp = os.path.join(work, "cnnmap_y.npy")
    t0 = time.monotonic()
    p = subprocess.run([cnnmap, "run", path, "--input", xp, "-o", yp, "--json", "--quiet"],
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        err("cnnmap run %s: %s" % (path, p.stderr.strip()))
        return None, None
    return json.loads(p.stdout)["time_s"] / frames, wall / frames

def ort_time(path, xp, level):
    if version is None:
        return None
    cmd = ["node", rc.ORT_RUN, path, xp, os.path.join(work, "ort_y.npy"), "--time", "--warmup",
           "--per-frame", "--opt-level", level]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        err("ort_run.js %s: %s" % (path, p.stderr.strip()))
        return None
    secs = [float(l.split()[3]) for l in p.stderr.splitlines() if l.startswith("frames ")]
    return secs[0] / frames if secs else None

def torch_time(x):
    sys.path.insert(0, os.path.join(root, "tests", "models"))
    import export_torchvision as ex
    ex._imports()
    import torch
    torch.set_num_threads(1)
    model = ex.build("resnet50")
    xt = torch.from_numpy(x)
    with torch.no_grad():
        model(xt[:1])  # warm-up
        t0 = time.perf_counter()
        for i in range(frames):
            model(xt[i:i + 1])
        return (time.perf_counter() - t0) / frames

rows = []
for label, path, kind, shape in models:
    rng = np.random.default_rng(zlib.crc32(label.encode()))
    x = rng.uniform(-1.0, 1.0, (frames,) + shape).astype(np.float32)
    xp = os.path.join(work, "x_%d.npy" % zlib.crc32(label.encode()))
    np.save(xp, x)
    err("== %s" % label)
    c, wall = cnnmap_time(path, xp)
    ort_model, torch_s = path, None
    if kind == "QONNX":
        ort_model = os.path.join(work, os.path.basename(path)[:-5] + "_qcdq.onnx")
        if make_qcdq.main(["make_qcdq.py", path, ort_model]) != 0:
            ort_model = None
    else:
        torch_s = torch_time(x)
    o_off = ort_time(ort_model, xp, "disabled") if ort_model else None
    o_all = ort_time(ort_model, xp, "all") if ort_model else None
    ratio = "%.2g" % (c / o_all) if c and o_all else "-"
    rows.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
        label, kind if kind == "float" else "QONNX (ORT: QCDQ)", ms(c), ms(wall), ms(torch_s),
        ms(o_off), ms(o_all), ratio))

print("Time per frame in ms, one thread, %d frames; %s; numpy inputs uniform in [-1, 1]."
      % (frames, version or "no ORT"))
print()
print("| model | kind | cnnmap run | cnnmap wall (incl. load) | PyTorch | ORT, as written "
      "| ORT, all graph optimisations | cnnmap / ORT best |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    print(r)
EOF
