"""Helpers shared by check_qonnx.py, check_float.py and bench/run_run.sh's measurements:
finding the shared models and ONNX Runtime, running `cnnmap run` and ort_run.js, and
comparing arrays."""

import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_RUN = os.path.join(HERE, "ort_run.js")
SKIP = 77  # ctest's SKIP_RETURN_CODE for these tests


def in_ci():
    return os.environ.get("CI", "").lower() == "true"


def shared_dir():
    """$CM_SHARED_DIR, or the shared/ directory beside the project."""
    d = os.environ.get("CM_SHARED_DIR")
    if d:
        return os.path.abspath(d)
    return os.path.abspath(os.path.join(HERE, "..", "..", "..", "shared"))


class ToolError(Exception):
    pass


def ort_version():
    """'onnxruntime-node X.Y.Z', or None when node or onnxruntime-node is missing."""
    node = shutil.which("node")
    if node is None:
        return None
    p = subprocess.run([node, ORT_RUN, "--version"], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    return p.stdout.strip()


def run_cnnmap(cnnmap, model, x_path, y_path, output=None, timeout=3600):
    """`cnnmap run MODEL --input X -o Y [--output NAME] --quiet`; returns (array, seconds)."""
    cmd = [cnnmap, "run", model, "--input", x_path, "-o", y_path, "--quiet"]
    if output is not None:
        cmd += ["--output", output]
    if os.path.exists(y_path):
        os.remove(y_path)
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ToolError("timed out after %d s: %s" % (timeout, " ".join(cmd))) from None
    dt = time.monotonic() - t0
    if p.returncode != 0:
        raise ToolError("exit status %d: %s\n%s" % (p.returncode, " ".join(cmd),
                                                    p.stderr.strip()[-2000:]))
    if not os.path.exists(y_path):
        raise ToolError("wrote no %s: %s" % (y_path, " ".join(cmd)))
    return np.load(y_path), dt


def run_ort(model, x_path, y_path, outputs=(), per_frame=False, timeout=3600):
    """ort_run.js; returns (array or list of arrays when several outputs, seconds in run)."""
    cmd = ["node", ORT_RUN, model, x_path, y_path, "--time"]
    for o in outputs:
        cmd += ["--output", o]
    if per_frame:
        cmd.append("--per-frame")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ToolError("timed out after %d s: %s" % (timeout, " ".join(cmd))) from None
    if p.returncode != 0:
        raise ToolError("exit status %d: %s\n%s" % (p.returncode, " ".join(cmd),
                                                    p.stderr.strip()[-2000:]))
    seconds = None
    for line in p.stderr.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "frames" and parts[2] == "seconds":
            seconds = float(parts[3])
    if len(outputs) > 1:
        return [np.load(os.path.join(y_path, "%d.npy" % k)) for k in range(len(outputs))], seconds
    return np.load(y_path), seconds


def save(path, array):
    np.save(path, array)
    return path


def batches(n, sizes=(1, 7)):
    """Splits n frames into (start, count) batches of the given sizes, then the rest."""
    out = []
    start = 0
    for s in sizes:
        if start >= n:
            break
        s = min(s, n - start)
        out.append((start, s))
        start += s
    if start < n:
        out.append((start, n - start))
    return out


def max_abs_diff(a, b):
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


def exact(a, b):
    """(equal bit for bit, max |a - b|, a one-line description of the first difference)."""
    if a.shape != b.shape:
        return False, float("inf"), "shapes %s and %s" % (a.shape, b.shape)
    if a.dtype != b.dtype:
        return False, max_abs_diff(a, b), "types %s and %s" % (a.dtype, b.dtype)
    eq = np.array_equal(a, b, equal_nan=True)
    d = max_abs_diff(a, b)
    note = ""
    if not eq:
        diff = a != b
        idx = np.argwhere(diff)
        frames = np.unique(idx[:, 0]) if a.ndim else []
        first = tuple(int(v) for v in idx[0])
        note = ("%d elements in %d frames differ; first at %s: %r vs %r"
                % (len(idx), len(frames), first, a[first].item(), b[first].item()))
    return eq, d, note


def rel_stats(got, ref):
    """Tolerance statistics of got against ref (float64 arithmetic):
    rel: max|got - ref| / max|ref|, the figure the tolerance applies to;
    max_abs, mean_abs: per-element absolute differences;
    elem_rel: max over elements of |got_i - ref_i| / |ref_i|, for the elements with
              |ref_i| >= 1e-3 max|ref| (smaller ones are noise relative to the output);
    top1: the share of frames whose argmax agrees."""
    g = got.astype(np.float64)
    r = ref.astype(np.float64)
    d = np.abs(g - r)
    scale = float(np.max(np.abs(r))) if r.size else 0.0
    big = np.abs(r) >= 1e-3 * scale
    elem_rel = float(np.max(d[big] / np.abs(r[big]))) if np.any(big) else 0.0
    n = r.shape[0] if r.ndim else 1
    top1 = float(np.mean(np.argmax(g.reshape(n, -1), 1) == np.argmax(r.reshape(n, -1), 1)))
    return {
        "rel": float(np.max(d)) / scale if scale > 0 else float(np.max(d)),
        "max_abs": float(np.max(d)) if d.size else 0.0,
        "mean_abs": float(np.mean(d)) if d.size else 0.0,
        "elem_rel": elem_rel,
        "max_ref": scale,
        "top1": top1,
        "finite": bool(np.all(np.isfinite(g))),
    }


def fmt_stats(s):
    return ("rel %.2e (max|d| %.2e, max|ref| %.3g), mean|d| %.2e, max elem rel %.2e, top-1 %.0f%%"
            % (s["rel"], s["max_abs"], s["max_ref"], s["mean_abs"], s["elem_rel"],
               100 * s["top1"]))


def log(msg=""):
    print(msg, flush=True)


def warn(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


class Results:
    """Pass, fail and skip counts of a check script, each outcome logged as it comes."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def record(self, ok, line):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        log(line)
