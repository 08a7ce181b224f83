#!/usr/bin/python3
"""End-to-end check of `cnnmap run` on float models, against PyTorch and ONNX Runtime.

    /usr/bin/python3 check_float.py CNNMAP_BIN MODELS_DIR [--quick] [--frames N]
                                    [--models NAME,...] [--workdir DIR] [--oracles-only]

MODELS_DIR holds the torchvision models that tests/models/export_torchvision.py writes
(NAME.onnx, weights inline; the ctest fixture torchvision_models makes them). For
resnet18, mobilenet_v2, googlenet, squeezenet1_1, densenet121 and efficientnet_b0:

  x         4 frames (--quick: 2) of standard normal noise, float32, seeded per model;
            they run through cnnmap in batches of 1 and the rest.
  PyTorch   the very model that was exported: built by export_torchvision.build()
            (torch.manual_seed(0), eval mode), run with torch.set_num_threads(1);
  ORT       ort_run.js on the same ONNX file (one thread, graph optimisations off).

cnnmap's output must match PyTorch's and ORT's within a relative tolerance of 1e-4,
defined on the whole output of the batch:  max|cnnmap - ref| <= 1e-4 * max|ref|.
Per-element statistics are printed beside it (max and mean |diff|, the largest
element-wise relative difference among elements of at least 1e-3 max|ref|, and the
share of frames whose argmax agrees). The oracles are also compared with each other.
The shared LeNet ($CM_SHARED_DIR/models/lenet.onnx, dynamic batch) is checked against
ORT alone.

Prints one line per comparison and finally "N passed, N failed". Exit status 0 when all
passed, 1 otherwise. When ONNX Runtime is missing, its comparisons fail under CI=true
and are skipped with a message otherwise; a missing lenet.onnx likewise.
"""

import argparse
import importlib.util
import os
import sys
import time
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_common as rc  # noqa: E402
from run_common import log  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EXPORT = os.path.join(ROOT, "tests", "models", "export_torchvision.py")
NAMES = ["resnet18", "mobilenet_v2", "googlenet", "squeezenet1_1", "densenet121",
         "efficientnet_b0"]
TOL = 1e-4


def load_exporter():
    spec = importlib.util.spec_from_file_location("export_torchvision", EXPORT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def compare(res, prefix, label, got, ref):
    if got.shape != ref.shape:
        res.record(False, "%s  %-24s FAIL shapes %s vs %s" % (prefix, label, got.shape, ref.shape))
        return
    if got.dtype != np.float32:
        res.record(False, "%s  %-24s FAIL output type %s (float32 expected)"
                   % (prefix, label, got.dtype))
        return
    s = rc.rel_stats(got, ref)
    ok = s["finite"] and s["rel"] <= TOL
    res.record(ok, "%s  %-24s %-4s %s" % (prefix, label, "ok" if ok else "FAIL", rc.fmt_stats(s)))


def cnnmap_batched(cnnmap, model, x, work, tag):
    outs, secs = [], 0.0
    for start, count in rc.batches(x.shape[0], (1,)):
        bx = rc.save(os.path.join(work, "%s_x%d.npy" % (tag, start)), x[start:start + count])
        y, dt = rc.run_cnnmap(cnnmap, model, bx, os.path.join(work, "%s_y%d.npy" % (tag, start)))
        outs.append(y)
        secs += dt
    return np.concatenate(outs, axis=0), secs


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cnnmap", help="the cnnmap binary")
    ap.add_argument("models_dir", help="where export_torchvision.py wrote the models")
    ap.add_argument("--quick", action="store_true", help="2 frames per model (sanitizer builds)")
    ap.add_argument("--frames", type=int, help="frames per model (overrides)")
    ap.add_argument("--models", help="comma-separated subset of the models")
    ap.add_argument("--workdir", help="where inputs and outputs are written "
                    "(default: MODELS_DIR/../run-check-float)")
    ap.add_argument("--oracles-only", action="store_true",
                    help="compare only PyTorch with ORT (no cnnmap)")
    args = ap.parse_args(argv[1:])
    cnnmap = os.path.abspath(args.cnnmap)
    models_dir = os.path.abspath(args.models_dir)
    work = os.path.abspath(args.workdir or os.path.join(models_dir, "..", "run-check-float"))
    os.makedirs(work, exist_ok=True)
    frames = args.frames or (2 if args.quick else 4)
    names = args.models.split(",") if args.models else NAMES

    res = rc.Results()
    t_all = time.monotonic()
    version = rc.ort_version()
    if version is None:
        msg = "ONNX Runtime (onnxruntime-node) not found: run scripts/deps.sh"
        if rc.in_ci():
            res.record(False, "check_float: " + msg + " (CI=true: failing)")
        else:
            log("check_float: " + msg + "; skipping the ORT comparisons")
    if not args.oracles_only and not os.access(cnnmap, os.X_OK):
        res.record(False, "check_float: %s is not an executable" % cnnmap)
        log("%d passed, %d failed" % (res.passed, res.failed))
        return 1

    exporter = load_exporter()
    exporter._imports()
    import torch  # after the exporter's imports (Debian's torch)
    torch.set_num_threads(1)
    log("check_float: torch %s (1 thread), %s, %d frames per model, tolerance %g relative"
        % (torch.__version__, version or "no ORT", frames, TOL))

    for name in names:
        if name not in exporter.BY_NAME:
            res.record(False, "%s: not a model of export_torchvision.py" % name)
            continue
        size = exporter.BY_NAME[name][2]
        onnx_path = os.path.join(models_dir, name + ".onnx")
        prefix = "%-16s %d frames" % (name, frames)
        if not os.path.exists(onnx_path):
            res.record(False, "%s  missing %s (run %s %s --only %s)"
                       % (prefix, onnx_path, EXPORT, models_dir, name))
            continue
        t0 = time.monotonic()
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        x = rng.standard_normal((frames, 3, size, size)).astype(np.float32)
        xp = rc.save(os.path.join(work, name + "_x.npy"), x)

        model = exporter.build(name)
        t1 = time.monotonic()
        with torch.no_grad():
            ref = model(torch.from_numpy(x)).numpy()
        t_torch = time.monotonic() - t1
        del model

        ort = None
        t_ort = None
        if version is not None:
            try:
                ort, t_ort = rc.run_ort(onnx_path, xp, os.path.join(work, name + "_ort.npy"))
                compare(res, prefix, "ORT vs PyTorch [oracles]", ort, ref)
            except rc.ToolError as e:
                res.record(False, "%s  ORT failed: %s" % (prefix, e))
        t_cnnmap = 0.0
        if not args.oracles_only:
            try:
                got, t_cnnmap = cnnmap_batched(cnnmap, onnx_path, x, work, name)
                compare(res, prefix, "cnnmap vs PyTorch", got, ref)
                if ort is not None:
                    compare(res, prefix, "cnnmap vs ORT", got, ort)
            except rc.ToolError as e:
                res.record(False, "%s  cnnmap failed: %s" % (prefix, str(e).replace("\n", " | ")))
        log("== %s: cnnmap %.2f s, PyTorch %.2f s, ORT %s s, total %.1f s"
            % (name, t_cnnmap, t_torch, "%.2f" % t_ort if t_ort is not None else "-",
               time.monotonic() - t0))

    # LeNet (shared model) against ORT only.
    lenet = os.path.join(rc.shared_dir(), "models", "lenet.onnx")
    prefix = "%-16s %d frames" % ("lenet", 8)
    if not os.path.exists(lenet):
        msg = "%s  missing %s" % (prefix, lenet)
        if rc.in_ci():
            res.record(False, msg + " (CI=true: failing)")
        else:
            log(msg + "; skipped")
    elif version is not None:
        x = np.random.default_rng(zlib.crc32(b"lenet")).standard_normal((8, 1, 28, 28))
        xp = rc.save(os.path.join(work, "lenet_x.npy"), x.astype(np.float32))
        try:
            ort, _ = rc.run_ort(lenet, xp, os.path.join(work, "lenet_ort.npy"), per_frame=True)
            if not args.oracles_only:
                got, _ = cnnmap_batched(cnnmap, lenet, x.astype(np.float32), work, "lenet")
                compare(res, prefix, "cnnmap vs ORT", got, ort)
        except rc.ToolError as e:
            res.record(False, "%s  failed: %s" % (prefix, str(e).replace("\n", " | ")))

    log("check_float: %.1f s" % (time.monotonic() - t_all))
    log("%d passed, %d failed" % (res.passed, res.failed))
    return 0 if res.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
