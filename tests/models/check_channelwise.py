#!/usr/bin/python3
"""`cnnmap run` on the channel-wise operators of ConvNeXt and segmentation heads,
against numpy and ONNX Runtime.

Usage: /usr/bin/python3 check_channelwise.py CNNMAP_BIN WORKDIR

Small models built with onnx.helper:
  gelu        torch's exact GELU: Div(sqrt 2), Erf, Add 1, Mul by x, Mul 0.5 (opset 13)
  layernorm   ConvNeXt's block tail: Transpose(0,2,3,1), LayerNormalization (opset 17),
              MatMul, Add, Transpose(0,3,1,2)
  resize_*    Resize in linear mode: half_pixel and pytorch_half_pixel (torch's
              align_corners=False), align_corners, by scales and by sizes (opset 13),
              and opset 11's form with empty roi and scales
Each must load in `cnnmap inspect` and its `cnnmap run` output must match the numpy
formula (and ONNX Runtime's, when tests/run/ort_run.js finds onnxruntime-node) within
1e-5 of the output's largest magnitude. Exit status 0 when all passed, 1 otherwise.
"""

import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "run"))
import run_common as rc  # noqa: E402

TOL = 1e-5


def model(nodes, x_shape, y_shape, inits, opset):
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y_shape))],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def erf(x):
    # numpy has no erf: Abramowitz-Stegun 7.1.26 is too coarse, so use math.erf
    import math
    return np.vectorize(math.erf)(x)


def gelu_case(rng):
    x = rng.standard_normal((1, 6, 5, 7)).astype(np.float32) * 2
    f32 = np.float32
    nodes = [helper.make_node("Div", ["x", "sqrt2"], ["a"]), helper.make_node("Erf", ["a"], ["b"]),
             helper.make_node("Add", ["b", "one"], ["c"]), helper.make_node("Mul", ["x", "c"], ["d"]),
             helper.make_node("Mul", ["d", "half"], ["y"])]
    m = model(nodes, x.shape, x.shape, {"sqrt2": f32(1.4142135), "one": f32(1), "half": f32(0.5)},
              13)
    xd = x.astype(np.float64)
    return m, x, 0.5 * xd * (1 + erf(xd / np.sqrt(2)))


def layernorm_case(rng):
    c, n = 8, 12
    x = rng.standard_normal((1, c, 4, 5)).astype(np.float32)
    g = rng.standard_normal(c).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    w = rng.standard_normal((c, n)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    nodes = [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 3, 1]),
             helper.make_node("LayerNormalization", ["t", "g", "b"], ["l"], axis=-1,
                              epsilon=1e-6),
             helper.make_node("MatMul", ["l", "w"], ["f"]),
             helper.make_node("Add", ["f", "bias"], ["fb"]),
             helper.make_node("Transpose", ["fb"], ["y"], perm=[0, 3, 1, 2])]
    m = model(nodes, x.shape, (1, n, 4, 5), {"g": g, "b": b, "w": w, "bias": bias}, 17)
    t = x.astype(np.float64).transpose(0, 2, 3, 1)
    mean = t.mean(-1, keepdims=True)
    var = ((t - mean) ** 2).mean(-1, keepdims=True)
    ln = (t - mean) / np.sqrt(var + 1e-6) * g + b
    return m, x, (ln @ w.astype(np.float64) + bias).transpose(0, 3, 1, 2)


def bilinear(x, out_hw, coord, scales=None):
    """numpy Resize (linear) over the last two axes, per ONNX's coordinate modes."""
    n, c, h, w = x.shape
    ys = []
    for axis, (size, out) in enumerate(((h, out_hw[0]), (w, out_hw[1]))):
        s = scales[axis] if scales is not None else out / size
        o = np.arange(out, dtype=np.float64)
        if coord == "align_corners":
            src = o * (size - 1) / (out - 1) if out > 1 else np.zeros(out)
        elif coord == "pytorch_half_pixel":
            src = (o + 0.5) / s - 0.5 if out > 1 else np.zeros(out)
        else:
            src = (o + 0.5) / s - 0.5
        src = np.clip(src, 0, size - 1)
        lo = np.floor(src).astype(int)
        hi = np.minimum(lo + 1, size - 1)
        ys.append((lo, hi, src - lo))
    (y0, y1, wy), (x0, x1, wx) = ys
    xd = x.astype(np.float64)
    top = xd[:, :, y0][:, :, :, x0] * (1 - wx) + xd[:, :, y0][:, :, :, x1] * wx
    bot = xd[:, :, y1][:, :, :, x0] * (1 - wx) + xd[:, :, y1][:, :, :, x1] * wx
    return top * (1 - wy)[:, None] + bot * wy[:, None]


def resize_case(rng, coord, scales=None, sizes=None, opset=13):
    x = rng.standard_normal((1, 3, 5, 6)).astype(np.float32)
    inits = {}
    if scales is not None:
        inits["scales"] = np.array([1, 1] + scales, dtype=np.float32)
        inputs = ["x", "", "scales"]
        out_hw = [int(np.floor(d * s)) for d, s in zip(x.shape[2:], inits["scales"][2:])]
    else:
        inits["sizes"] = np.array([1, 3] + sizes, dtype=np.int64)
        inputs = ["x", "", "", "sizes"]
        out_hw = sizes
    if opset < 13:  # opset 11 and 12 want roi and scales present, empty when unused
        inits["roi"] = np.zeros(0, dtype=np.float32)
        inputs[1] = "roi"
        if sizes is not None:
            inits["empty"] = np.zeros(0, dtype=np.float32)
            inputs[2] = "empty"
    nodes = [helper.make_node("Resize", inputs, ["y"], mode="linear",
                              coordinate_transformation_mode=coord)]
    m = model(nodes, x.shape, [1, 3] + list(out_hw), inits, opset)
    sc = None if scales is None else [float(np.float32(s)) for s in scales]
    return m, x, bilinear(x, out_hw, coord, sc)


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    cnnmap, work = argv[1], os.path.abspath(argv[2])
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(16)
    cases = {
        "gelu": gelu_case(rng),
        "layernorm": layernorm_case(rng),
        "resize_half_pixel_x2": resize_case(rng, "half_pixel", scales=[2.0, 2.0]),
        "resize_pytorch_half_pixel_x1.5": resize_case(rng, "pytorch_half_pixel",
                                                      scales=[1.5, 2.5]),
        "resize_align_corners_sizes": resize_case(rng, "align_corners", sizes=[9, 13]),
        "resize_half_pixel_sizes_opset11": resize_case(rng, "half_pixel", sizes=[8, 11],
                                                       opset=11),
    }
    ort = rc.ort_version()
    if ort is None:
        print("check_channelwise: ONNX Runtime not found; numpy only%s"
              % (" (CI=true: failing)" if rc.in_ci() else ""))
    passed = failed = 0

    def record(ok, msg):
        nonlocal passed, failed
        passed += ok
        failed += not ok
        print(("PASS  " if ok else "FAIL  ") + msg, flush=True)

    if ort is None and rc.in_ci():
        record(False, "ONNX Runtime is required under CI")
    for name, (m, x, ref) in cases.items():
        path = os.path.join(work, name + ".onnx")
        onnx.save(m, path)
        xp = rc.save(os.path.join(work, name + "_x.npy"), x)
        p = subprocess.run([cnnmap, "inspect", path], capture_output=True, text=True)
        record(p.returncode == 0, "%s: inspect%s" % (name, "" if p.returncode == 0
                                                      else ": " + p.stderr.strip()))
        try:
            got, _ = rc.run_cnnmap(cnnmap, path, xp, os.path.join(work, name + "_y.npy"))
        except rc.ToolError as e:
            record(False, "%s: cnnmap run failed: %s" % (name, e))
            continue
        scale = max(float(np.abs(ref).max()), 1e-30)
        ok = got.shape == ref.shape and float(np.abs(got - ref).max()) <= TOL * scale
        record(ok, "%s: cnnmap vs numpy, shape %s, max |diff| %.3g (max |ref| %.3g)"
               % (name, got.shape, float(np.abs(got - ref.reshape(got.shape)).max())
                  if got.size == ref.size else float("nan"), scale))
        if ort is not None:
            try:
                o, _ = rc.run_ort(path, xp, os.path.join(work, name + "_ort.npy"))
                ok = o.shape == got.shape and float(np.abs(got - o).max()) <= TOL * scale
                record(ok, "%s: cnnmap vs ORT, max |diff| %.3g" % (name, float(np.abs(got - o).max())))
            except rc.ToolError as e:
                record(False, "%s: ORT failed: %s" % (name, e))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
