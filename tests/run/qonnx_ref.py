#!/usr/bin/python3
"""An independent reference evaluator of QONNX models, in float64, with numpy.

    run(model_path, x) -> np.ndarray

evaluates the model on the batch x (float32, NCHW): each frame x[i:i+1] runs on its own
and the first graph output of every frame is concatenated along the first dimension;
the result is cast to the graph output's declared element type (float32 for the models
here).

Written from the operator definitions (QONNX's docs/qonnx-custom-ops and the ONNX
operator specification), as an oracle for `cnnmap run`; it shares no code with cnnmap or
with QONNX. Every float tensor is held as float64 and every integer tensor as int64, so
networks whose scales are powers of two are computed exactly: conv and matmul are
im2col + float64 matrix products whose sums are exact when every partial sum fits in
53 bits, whatever order the BLAS adds in.

Quant: q = clamp(round(x / scale + zero_point), min, max), output (q - zero_point) * scale,
min/max from the bit width, signed and narrow; rounding modes ROUND (half to even), CEIL,
FLOOR, and UP, DOWN, HALF_UP, HALF_DOWN of the QONNX table. A Quant whose input is an
integer tensor takes the integers as numbers, as QONNX's own numpy execution does (the
shared MobileNetV2 feeds int8 weight initializers to its weight Quants; with scales of
2^-5 and 2^-6 every non-zero weight then saturates to +-31 * scale).

Operators:
  QONNX (domains qonnx.custom_op.general, onnx.brevitas, finn.custom_op.general):
    Quant, BipolarQuant, Trunc (version 1), MultiThreshold
  ONNX: Conv, Gemm, MatMul, Add, Sub, Mul, Div, Relu, LeakyRelu, Clip, Sigmoid, Tanh,
    MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool, Flatten, Reshape, Transpose,
    Squeeze, Unsqueeze, Concat, Identity, Constant, Pad (constant), BatchNormalization,
    Softmax, QuantizeLinear, DequantizeLinear (so the QCDQ rewrites of make_qcdq.py run
    here too)

Command line:
  /usr/bin/python3 qonnx_ref.py MODEL IN.npy OUT.npy [--output NAME]
  /usr/bin/python3 qonnx_ref.py --selftest
"""

import math
import sys

import numpy as np
import onnx
from onnx import numpy_helper

QONNX_DOMAINS = {"qonnx.custom_op.general", "onnx.brevitas", "finn.custom_op.general",
                 "finn", "qonnx"}

ONNX_TO_NUMPY = {
    onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.DOUBLE: np.float64,
    onnx.TensorProto.FLOAT16: np.float16,
    onnx.TensorProto.INT8: np.int8, onnx.TensorProto.UINT8: np.uint8,
    onnx.TensorProto.INT16: np.int16, onnx.TensorProto.UINT16: np.uint16,
    onnx.TensorProto.INT32: np.int32, onnx.TensorProto.UINT32: np.uint32,
    onnx.TensorProto.INT64: np.int64, onnx.TensorProto.UINT64: np.uint64,
    onnx.TensorProto.BOOL: np.bool_,
}


class RefError(Exception):
    pass


# ---------------------------------------------------------------------------------------
# Value representation: floats as float64, integers as int64, booleans as bool.

def widen(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return a.astype(np.float64)
    if a.dtype.kind in "iu":
        return a.astype(np.int64)
    if a.dtype.kind == "b":
        return a.astype(np.bool_)
    raise RefError("unsupported element type %s" % a.dtype)


def as_float(a):
    return np.asarray(a, dtype=np.float64)


def scalar(a):
    a = np.asarray(a)
    if a.size != 1:
        raise RefError("expected a scalar, got shape %s" % (a.shape,))
    return a.reshape(()).item()


# ---------------------------------------------------------------------------------------
# Integer quantisation (QONNX Quant, QuantizeLinear).

def int_range(bits, signed, narrow):
    """The integers a Quant of this bit width, signedness and narrowness can produce."""
    if bits != math.floor(bits) or bits < 1:
        raise RefError("bit width %r is not a positive integer" % bits)
    bits = int(bits)
    if signed:
        lo = -(2 ** (bits - 1)) + (1 if narrow else 0)
        hi = 2 ** (bits - 1) - 1
    else:
        lo = 0
        hi = 2 ** bits - (2 if narrow else 1)
    return lo, hi


def round_with(y, mode):
    """Rounds float64 y to integers by the named QONNX rounding mode."""
    mode = mode.upper()
    if mode in ("ROUND", "HALF_EVEN"):
        return np.round(y)  # numpy rounds halves to even
    if mode == "CEIL":
        return np.ceil(y)
    if mode == "FLOOR":
        return np.floor(y)
    if mode == "UP":  # away from zero
        return np.sign(y) * np.ceil(np.abs(y))
    if mode in ("DOWN", "ROUND_TO_ZERO"):  # toward zero
        return np.trunc(y)
    if mode in ("HALF_UP", "HALF_DOWN"):  # nearest; halves away from / toward zero
        a = np.abs(y)
        whole = np.floor(a)
        frac = a - whole  # exact in floating point
        up = frac >= 0.5 if mode == "HALF_UP" else frac > 0.5
        return np.sign(y) * (whole + up)
    raise RefError("unknown rounding mode %r" % mode)


def quant_int(x, scale, zero_point, bits, signed, narrow, mode="ROUND"):
    """The integers q = clamp(round(x / scale + zero_point), min, max) of a Quant."""
    lo, hi = int_range(bits, signed, narrow)
    q = round_with(as_float(x) / as_float(scale) + as_float(zero_point), mode)
    return np.clip(q, lo, hi)


def quant(x, scale, zero_point, bits, signed, narrow, mode="ROUND"):
    """QONNX Quant: (q - zero_point) * scale."""
    q = quant_int(x, scale, zero_point, bits, signed, narrow, mode)
    return (q - as_float(zero_point)) * as_float(scale)


def bit_width(b):
    b = np.asarray(b, dtype=np.float64)
    if b.size != 1:
        # QONNX allows a tensor bit width; every element must agree for our int_range.
        if not np.all(b == b.reshape(-1)[0]):
            raise RefError("per-element bit widths are not supported")
    return float(b.reshape(-1)[0])


# ---------------------------------------------------------------------------------------
# Convolution and pooling helpers (2-D, NCHW).

def conv_pads(attrs, in_hw, kernel, strides, dilations):
    """[top, left, bottom, right] from pads or auto_pad."""
    auto = attrs.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("NOTSET", ""):
        pads = list(attrs.get("pads", [0, 0, 0, 0]))
        if len(pads) != 4:
            raise RefError("pads %s: only 2-D is supported" % pads)
        return pads
    if auto == "VALID":
        return [0, 0, 0, 0]
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        begin, end = [], []
        for n, k, s, d in zip(in_hw, kernel, strides, dilations):
            out = -(-n // s)
            total = max(0, (out - 1) * s + (k - 1) * d + 1 - n)
            small, big = total // 2, total - total // 2
            if auto == "SAME_UPPER":
                begin.append(small)
                end.append(big)
            else:
                begin.append(big)
                end.append(small)
        return begin + end
    raise RefError("auto_pad %s" % auto)


def windows(x, kernel, strides, dilations, pads, fill, out_hw):
    """x (C, H, W) -> (C, KH, KW, OH, OW): the input under each kernel tap."""
    c, h, w = x.shape
    kh, kw = kernel
    sh, sw = strides
    dh, dw = dilations
    oh, ow = out_hw
    top, left, bottom, right = pads
    # Enough room for every window, including ceil_mode windows that run off the end.
    need_h = (oh - 1) * sh + (kh - 1) * dh + 1
    need_w = (ow - 1) * sw + (kw - 1) * dw + 1
    ph = max(h + top + bottom, need_h)
    pw = max(w + left + right, need_w)
    xp = np.full((c, ph, pw), fill, dtype=x.dtype)
    xp[:, top:top + h, left:left + w] = x
    cols = np.empty((c, kh, kw, oh, ow), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, i, j] = xp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                               j * dw:j * dw + (ow - 1) * sw + 1:sw]
    return cols


def conv2d(x, w, b, attrs):
    """ONNX Conv on one frame (1, C, H, W), float64: im2col + matrix product per group."""
    if x.ndim != 4 or w.ndim != 4:
        raise RefError("Conv: only 2-D convolutions are supported")
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    group = int(attrs.get("group", 1))
    kernel = list(attrs.get("kernel_shape", [kh, kw]))
    if kernel != [kh, kw]:
        raise RefError("Conv: kernel_shape %s does not match the weight %s" % (kernel, w.shape))
    strides = list(attrs.get("strides", [1, 1]))
    dil = list(attrs.get("dilations", [1, 1]))
    if c != cg * group or m % group:
        raise RefError("Conv: %d input channels, weight %s, group %d" % (c, w.shape, group))
    pads = conv_pads(attrs, (h, wd), kernel, strides, dil)
    oh = (h + pads[0] + pads[2] - ((kh - 1) * dil[0] + 1)) // strides[0] + 1
    ow = (wd + pads[1] + pads[3] - ((kw - 1) * dil[1] + 1)) // strides[1] + 1
    out = np.empty((n, m, oh, ow), dtype=np.float64)
    mg = m // group
    for f in range(n):
        cols = windows(x[f], (kh, kw), strides, dil, pads, 0.0, (oh, ow))
        cols = cols.reshape(group, cg * kh * kw, oh * ow)
        wg = w.reshape(group, mg, cg * kh * kw)
        res = np.matmul(wg, cols)  # (group, mg, oh*ow)
        out[f] = res.reshape(m, oh, ow)
    if b is not None:
        out += b.reshape(1, m, 1, 1)
    return out


def pool_out_hw(hw, kernel, strides, dil, pads, ceil_mode):
    out = []
    for ax in range(2):
        span = hw[ax] + pads[ax] + pads[ax + 2] - ((kernel[ax] - 1) * dil[ax] + 1)
        if ceil_mode:
            o = -(-span // strides[ax]) + 1
            # A window must start inside the input or its leading padding.
            if (o - 1) * strides[ax] >= hw[ax] + pads[ax]:
                o -= 1
        else:
            o = span // strides[ax] + 1
        out.append(o)
    return out


def pool2d(x, attrs, kind):
    if x.ndim != 4:
        raise RefError("%s: only 2-D pooling is supported" % kind)
    n, c, h, w = x.shape
    kernel = list(attrs["kernel_shape"])
    strides = list(attrs.get("strides", [1, 1]))
    dil = list(attrs.get("dilations", [1, 1]))
    ceil_mode = int(attrs.get("ceil_mode", 0))
    pads = conv_pads(attrs, (h, w), kernel, strides, dil)
    oh, ow = pool_out_hw((h, w), kernel, strides, dil, pads, ceil_mode)
    out = np.empty((n, c, oh, ow), dtype=np.float64)
    for f in range(n):
        if kind == "max":
            cols = windows(x[f], kernel, strides, dil, pads, -np.inf, (oh, ow))
            out[f] = cols.max(axis=(1, 2))
        else:
            cols = windows(x[f], kernel, strides, dil, pads, 0.0, (oh, ow))
            total = cols.sum(axis=(1, 2))
            # Count the taps of each window: inside the input only, or inside the padded
            # input (count_include_pad); taps past the padding (ceil_mode) never count.
            inside = np.ones((1, h, w))
            if int(attrs.get("count_include_pad", 0)):
                ones = np.ones((1, h + pads[0] + pads[2], w + pads[1] + pads[3]))
                cnt = windows(ones, kernel, strides, dil, [0, 0, 0, 0], 0.0, (oh, ow))
            else:
                cnt = windows(inside, kernel, strides, dil, pads, 0.0, (oh, ow))
            out[f] = total / cnt.sum(axis=(1, 2))
    return out


# ---------------------------------------------------------------------------------------
# QuantizeLinear / DequantizeLinear (for the QCDQ rewrites).

def per_axis(param, x, axis):
    """Reshapes a scale or zero point of QuantizeLinear/DequantizeLinear for broadcasting."""
    param = np.asarray(param)
    if param.ndim == 0 or param.size == 1:
        return param.reshape(())
    axis = axis % x.ndim
    shape = [1] * x.ndim
    shape[axis] = param.size
    return param.reshape(shape)


def quantize_linear(x, scale, zp, attrs, zp_dtype):
    axis = int(attrs.get("axis", 1))
    s = per_axis(scale, x, axis)
    z = per_axis(zp, x, axis) if zp is not None else np.int64(0)
    info = np.iinfo(zp_dtype)
    q = np.round(as_float(x) / as_float(s)) + as_float(z)  # halves to even
    return np.clip(q, info.min, info.max).astype(np.int64)


def dequantize_linear(q, scale, zp, attrs):
    axis = int(attrs.get("axis", 1))
    s = per_axis(scale, q, axis)
    z = per_axis(zp, q, axis) if zp is not None else np.int64(0)
    return (as_float(q) - as_float(z)) * as_float(s)


# ---------------------------------------------------------------------------------------

def attributes(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def decode(v):
    return v.decode() if isinstance(v, bytes) else v


class Model:
    """A loaded model: its graph, initializers (widened) and declared types."""

    def __init__(self, path):
        self.path = path
        self.proto = onnx.load(path)
        g = self.proto.graph
        self.opset = 1
        for imp in self.proto.opset_import:
            if imp.domain in ("", "ai.onnx"):
                self.opset = imp.version
        self.consts = {}
        self.const_dtype = {}  # the stored numpy dtype of each initializer
        for t in g.initializer:
            a = numpy_helper.to_array(t)
            self.const_dtype[t.name] = a.dtype
            self.consts[t.name] = widen(a)
        self.inputs = [i for i in g.input if i.name not in self.consts]
        self.outputs = list(g.output)
        self.nodes = list(g.node)
        self.value_dtype = dict(self.const_dtype)
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            et = vi.type.tensor_type.elem_type
            if et in ONNX_TO_NUMPY and vi.name not in self.value_dtype:
                self.value_dtype[vi.name] = np.dtype(ONNX_TO_NUMPY[et])

    def declared_dtype(self, vi):
        et = vi.type.tensor_type.elem_type
        if et not in ONNX_TO_NUMPY:
            raise RefError("%s: element type %d" % (vi.name, et))
        return np.dtype(ONNX_TO_NUMPY[et])

    def execute(self, feeds, wanted):
        """Runs the graph once. feeds: {input name: array}; returns [arrays of wanted]."""
        env = dict(self.consts)
        for k, v in feeds.items():
            env[k] = widen(v)
        for node in self.nodes:
            ins = [env[i] if i else None for i in node.input]
            for i, name in enumerate(node.input):
                if name and name not in env:
                    raise RefError("node %s: input %s is not computed" % (node.name, name))
            try:
                outs = self.op(node, ins)
            except RefError as e:
                raise RefError("node %s (%s): %s" % (node.name, node.op_type, e)) from None
            for name, val in zip(node.output, outs):
                if name:
                    env[name] = val
        return [env[w] for w in wanted]

    # The operators. Each takes the node and its input values, returns a list of outputs.
    def op(self, node, ins):
        t = node.op_type
        a = attributes(node)
        if node.domain in QONNX_DOMAINS:
            return self.qonnx_op(node, t, a, ins)
        if node.domain not in ("", "ai.onnx"):
            raise RefError("unknown domain %s" % node.domain)
        x = ins[0] if ins else None
        if t == "Conv":
            b = as_float(ins[2]) if len(ins) > 2 and ins[2] is not None else None
            return [conv2d(as_float(x), as_float(ins[1]), b, a)]
        if t == "Gemm":
            A, B = as_float(x), as_float(ins[1])
            if a.get("transA", 0):
                A = A.T
            if a.get("transB", 0):
                B = B.T
            y = a.get("alpha", 1.0) * (A @ B)
            if len(ins) > 2 and ins[2] is not None:
                y = y + a.get("beta", 1.0) * as_float(ins[2])
            return [y]
        if t == "MatMul":
            return [np.matmul(x, ins[1])]
        if t == "Add":
            return [x + ins[1]]
        if t == "Sub":
            return [x - ins[1]]
        if t == "Mul":
            return [x * ins[1]]
        if t == "Div":
            if x.dtype.kind == "i":
                return [np.trunc(x / ins[1]).astype(np.int64)]
            return [x / ins[1]]
        if t == "Relu":
            return [np.maximum(x, 0)]
        if t == "LeakyRelu":
            return [np.where(x >= 0, x, x * a.get("alpha", 0.01))]
        if t == "Sigmoid":
            return [1.0 / (1.0 + np.exp(-x))]
        if t == "Tanh":
            return [np.tanh(x)]
        if t == "Clip":
            if self.opset >= 11:
                lo = ins[1] if len(ins) > 1 and ins[1] is not None else None
                hi = ins[2] if len(ins) > 2 and ins[2] is not None else None
            else:
                lo, hi = a.get("min"), a.get("max")
            y = x
            if lo is not None:
                y = np.maximum(y, scalar(lo))
            if hi is not None:
                y = np.minimum(y, scalar(hi))
            return [y.astype(x.dtype)]
        if t == "MaxPool":
            if len(node.output) > 1 and node.output[1]:
                raise RefError("MaxPool indices output")
            return [pool2d(as_float(x), a, "max")]
        if t == "AveragePool":
            return [pool2d(as_float(x), a, "avg")]
        if t == "GlobalAveragePool":
            return [x.mean(axis=tuple(range(2, x.ndim)), keepdims=True)]
        if t == "GlobalMaxPool":
            return [x.max(axis=tuple(range(2, x.ndim)), keepdims=True)]
        if t == "Flatten":
            axis = a.get("axis", 1) % max(x.ndim, 1) if x.ndim else 0
            lead = int(np.prod(x.shape[:axis])) if axis else 1
            return [x.reshape(lead, -1)]
        if t == "Reshape":
            shape = [int(v) for v in ins[1]]
            allow_zero = a.get("allowzero", 0)
            out = []
            for i, d in enumerate(shape):
                out.append(x.shape[i] if d == 0 and not allow_zero else d)
            return [x.reshape(out)]
        if t == "Transpose":
            perm = a.get("perm")
            return [np.transpose(x, perm)]
        if t in ("Squeeze", "Unsqueeze"):
            axes = a.get("axes")
            if axes is None and len(ins) > 1 and ins[1] is not None:
                axes = [int(v) for v in ins[1]]
            if t == "Squeeze":
                if axes is None:
                    return [np.squeeze(x)]
                return [np.squeeze(x, axis=tuple(ax % x.ndim for ax in axes))]
            out_rank = x.ndim + len(axes)
            y = x
            for ax in sorted(ax % out_rank for ax in axes):
                y = np.expand_dims(y, ax)
            return [y]
        if t == "Concat":
            return [np.concatenate(ins, axis=a["axis"])]
        if t == "Identity":
            return [x]
        if t == "Constant":
            if "value" not in a:
                raise RefError("Constant without a tensor value")
            return [widen(numpy_helper.to_array(a["value"]))]
        if t == "Pad":
            mode = decode(a.get("mode", "constant"))
            if mode != "constant":
                raise RefError("Pad mode %s" % mode)
            if self.opset >= 11:
                pads = [int(v) for v in ins[1]]
                value = scalar(ins[2]) if len(ins) > 2 and ins[2] is not None else 0
                if len(ins) > 3 and ins[3] is not None:
                    raise RefError("Pad axes input")
            else:
                pads = list(a["pads"])
                value = a.get("value", 0.0)
            r = x.ndim
            if min(pads) < 0:
                raise RefError("negative pads")
            return [np.pad(x, [(pads[i], pads[i + r]) for i in range(r)],
                           constant_values=value)]
        if t == "BatchNormalization":
            scale, bias, mean, var = (as_float(v) for v in ins[1:5])
            eps = a.get("epsilon", 1e-5)
            shp = (1, -1) + (1,) * (x.ndim - 2)
            y = (x - mean.reshape(shp)) / np.sqrt(var.reshape(shp) + eps)
            return [y * scale.reshape(shp) + bias.reshape(shp)]
        if t == "Softmax":
            axis = a.get("axis", -1 if self.opset >= 13 else 1)
            if self.opset < 13:
                lead = x.shape[:axis % x.ndim]
                y = x.reshape(int(np.prod(lead)), -1)
                e = np.exp(y - y.max(axis=1, keepdims=True))
                return [(e / e.sum(axis=1, keepdims=True)).reshape(x.shape)]
            e = np.exp(x - x.max(axis=axis, keepdims=True))
            return [e / e.sum(axis=axis, keepdims=True)]
        if t == "QuantizeLinear":
            zp = ins[2] if len(ins) > 2 and ins[2] is not None else None
            zp_dtype = self.value_dtype.get(node.input[2], np.uint8) if zp is not None else np.uint8
            return [quantize_linear(x, ins[1], zp, a, zp_dtype)]
        if t == "DequantizeLinear":
            zp = ins[2] if len(ins) > 2 and ins[2] is not None else None
            return [dequantize_linear(x, ins[1], zp, a)]
        raise RefError("operator %s is not supported by qonnx_ref" % t)

    def qonnx_op(self, node, t, a, ins):
        if t == "Quant":
            x, scale, zp, bits = ins
            mode = decode(a.get("rounding_mode", "ROUND"))
            return [quant(x, scale, zp, bit_width(bits), int(a.get("signed", 1)),
                          int(a.get("narrow", 0)), mode)]
        if t == "BipolarQuant":
            x, scale = as_float(ins[0]), as_float(ins[1])
            return [np.where(x / scale >= 0, 1.0, -1.0) * scale]
        if t == "Trunc":
            # Version 1: y = round(x / scale + zp); y = rounding(y / 2^(in_bits - out_bits));
            # output (y - zp) * scale.
            if len(ins) != 5:
                raise RefError("Trunc with %d inputs (only version 1 is supported)" % len(ins))
            x, scale, zp, in_bits, out_bits = (as_float(v) for v in ins)
            mode = decode(a.get("rounding_mode", "FLOOR"))
            y = np.round(x / scale + zp)
            y = round_with(y / 2.0 ** (bit_width(in_bits) - bit_width(out_bits)), mode)
            return [(y - zp) * scale]
        if t == "MultiThreshold":
            x, thr = as_float(ins[0]), as_float(ins[1])
            layout = decode(a.get("data_layout", "NCHW"))
            if x.ndim < 2:
                raise RefError("MultiThreshold input of rank %d" % x.ndim)
            xc = np.moveaxis(x, -1, 1) if layout.endswith("C") and layout != "NC" else x
            c = xc.shape[1]
            if thr.ndim != 2 or thr.shape[0] not in (1, c):
                raise RefError("thresholds %s for %d channels" % (thr.shape, c))
            tt = np.broadcast_to(thr, (c, thr.shape[1]))
            shp = (1, c) + (1,) * (xc.ndim - 2) + (thr.shape[1],)
            count = (xc[..., None] >= tt.reshape(shp)).sum(axis=-1).astype(np.float64)
            y = a.get("out_scale", 1.0) * count + a.get("out_bias", 0.0)
            if xc is not x:
                y = np.moveaxis(y, 1, -1)
            return [y]
        raise RefError("QONNX operator %s is not supported" % t)


_CACHE = {}


def load(model_path):
    m = _CACHE.get(model_path)
    if m is None:
        m = _CACHE[model_path] = Model(model_path)
    return m


def run_tensors(model_path, x, names=None):
    """Evaluates the model on each frame of the batch x; returns, for each tensor named
    (default: the first graph output), the frames' values concatenated along the first
    dimension. A graph output is cast to its declared element type; any other tensor is
    returned as computed (float64 or int64)."""
    m = load(model_path)
    if len(m.inputs) != 1:
        raise RefError("%s: %d graph inputs; one is supported" % (model_path, len(m.inputs)))
    inp = m.inputs[0]
    in_dtype = m.declared_dtype(inp)
    if names is None:
        names = [m.outputs[0].name]
    declared = {o.name: m.declared_dtype(o) for o in m.outputs}
    x = np.asarray(x)
    if x.ndim < 1 or x.shape[0] < 1:
        raise RefError("the input needs a batch dimension")
    frames = [[] for _ in names]
    for i in range(x.shape[0]):
        frame = x[i:i + 1].astype(in_dtype)
        values = m.execute({inp.name: frame}, names)
        for k, (name, y) in enumerate(zip(names, values)):
            y = np.asarray(y)
            if name in declared:
                y = y.astype(declared[name])
            frames[k].append(y)
    return [np.concatenate(f, axis=0) for f in frames]


def run(model_path, x, output_name=None):
    """Evaluates the model on each frame of the batch x and stacks the outputs."""
    (y,) = run_tensors(model_path, x, None if output_name is None else [output_name])
    return y


# ---------------------------------------------------------------------------------------
# Self-test: hand-computed cases of the QONNX operator definitions.

def selftest():
    fails = []

    def check(name, got, want):
        got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
        if got.shape != want.shape or not np.array_equal(got, want):
            fails.append("%s: got %s, want %s" % (name, got.tolist(), want.tolist()))

    check("range s8", int_range(8, 1, 0), (-128, 127))
    check("range s8 narrow", int_range(8, 1, 1), (-127, 127))
    check("range u8", int_range(8, 0, 0), (0, 255))
    check("range u8 narrow", int_range(8, 0, 1), (0, 254))
    check("range s4 narrow", int_range(4, 1, 1), (-7, 7))
    check("range u1", int_range(1, 0, 0), (0, 1))
    # The rounding table of quant_op.md.
    v = np.array([5.5, 2.5, 1.6, 1.1, 1.0, -1.0, -1.1, -1.6, -2.5, -5.5])
    table = {
        "ROUND": [6, 2, 2, 1, 1, -1, -1, -2, -2, -6],
        "CEIL": [6, 3, 2, 2, 1, -1, -1, -1, -2, -5],
        "FLOOR": [5, 2, 1, 1, 1, -1, -2, -2, -3, -6],
        "UP": [6, 3, 2, 2, 1, -1, -2, -2, -3, -6],
        "DOWN": [5, 2, 1, 1, 1, -1, -1, -1, -2, -5],
        "HALF_UP": [6, 3, 2, 1, 1, -1, -1, -2, -3, -6],
        "HALF_DOWN": [5, 2, 2, 1, 1, -1, -1, -2, -2, -5],
    }
    for mode, want in table.items():
        check("round " + mode, round_with(v, mode), want)
        check("quant " + mode.lower(), quant(v, 1.0, 0.0, 8, 1, 0, mode.lower()), want)
    check("half_up just below a half", round_with(np.array([0.49999999999999994, -2.5]),
                                                  "HALF_UP"), [0.0, -3.0])
    # Scale, zero point, clamping, narrow range.
    check("quant scale", quant([0.3, 0.375, -0.125, 100.0, -100.0], 0.25, 0, 4, 1, 0),
          [0.25, 0.5, 0.0, 1.75, -2.0])
    check("quant narrow", quant([-100.0, 100.0], 0.5, 0, 4, 1, 1), [-3.5, 3.5])
    check("quant unsigned", quant([-1.0, 3.2, 99.0], 1.0, 0, 2, 0, 0), [0.0, 3.0, 3.0])
    check("quant unsigned narrow", quant([99.0], 1.0, 0, 2, 0, 1), [2.0])
    check("quant zero point", quant([0.0, 1.0, -5.0], 0.5, 3.0, 3, 0, 0), [0.0, 1.0, -1.5])
    check("quant per channel", quant(np.array([[1.0], [1.0]]), np.array([[0.5], [0.75]]), 0,
                                     8, 1, 0), [[1.0], [0.75]])
    # BipolarQuant, Trunc, MultiThreshold through a tiny graph.
    h = onnx.helper
    TP = onnx.TensorProto
    nodes = [
        h.make_node("BipolarQuant", ["x", "s"], ["b"], domain="qonnx.custom_op.general"),
        h.make_node("Trunc", ["x", "one", "zero", "eight", "four"], ["t"],
                    domain="qonnx.custom_op.general", rounding_mode="FLOOR"),
        h.make_node("MultiThreshold", ["x", "thr"], ["mt"], domain="qonnx.custom_op.general",
                    out_scale=2.0, out_bias=-1.0),
    ]
    inits = [numpy_helper.from_array(np.array(v, dtype=np.float32), n) for n, v in
             [("s", 0.5), ("one", 1.0), ("zero", 0.0), ("eight", 8.0), ("four", 4.0),
              ("thr", [[0.0, 20.0], [-50.0, 50.0]])]]
    g = h.make_graph(nodes, "t", [h.make_tensor_value_info("x", TP.FLOAT, [1, 2, 2, 2])],
                     [h.make_tensor_value_info(n, TP.FLOAT, [1, 2, 2, 2]) for n in
                      ("b", "t", "mt")], inits)
    m = Model.__new__(Model)
    m.proto = h.make_model(g)
    m.path = "<selftest>"
    m.opset = 13
    m.consts = {i.name: widen(numpy_helper.to_array(i)) for i in inits}
    m.const_dtype = {}
    m.value_dtype = {}
    m.nodes = nodes
    x = np.array([[[-0.0, 37.0], [-17.0, 100.0]], [[-0.1, 16.0], [-51.0, 49.0]]])[None]
    b, t, mt = m.execute({"x": x}, ["b", "t", "mt"])
    check("bipolar", b, np.array([[[[0.5, 0.5], [-0.5, 0.5]], [[-0.5, 0.5], [-0.5, 0.5]]]]))
    check("trunc", t, np.floor(np.round(x) / 16.0))
    check("multithreshold", mt, np.array([[[[1.0, 3.0], [-1.0, 3.0]],
                                           [[1.0, 1.0], [-1.0, 1.0]]]]))
    # Conv: a depthwise, strided, padded convolution against a direct loop.
    rng = np.random.default_rng(1)
    xc = rng.integers(-8, 8, (1, 4, 7, 6)).astype(np.float64)
    wc = rng.integers(-8, 8, (8, 2, 3, 2)).astype(np.float64)
    bc = rng.integers(-8, 8, 8).astype(np.float64)
    attrs = {"group": 2, "strides": [2, 1], "pads": [1, 0, 2, 1], "dilations": [1, 2]}
    got = conv2d(xc, wc, bc, attrs)
    xp = np.pad(xc, ((0, 0), (0, 0), (1, 2), (0, 1)))
    oh, ow = (7 + 3 - 3) // 2 + 1, (6 + 1 - 3) // 1 + 1
    want = np.zeros((1, 8, oh, ow))
    for mo in range(8):
        gi = mo // 4
        for i in range(oh):
            for j in range(ow):
                acc = bc[mo]
                for ci in range(2):
                    for p in range(3):
                        for q in range(2):
                            acc += wc[mo, ci, p, q] * xp[0, gi * 2 + ci, i * 2 + p, j + 2 * q]
                want[0, mo, i, j] = acc
    check("conv", got, want)
    # MaxPool with ceil_mode and padding.
    xm = np.arange(25, dtype=np.float64).reshape(1, 1, 5, 5)
    got = pool2d(xm, {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1}, "max")
    check("maxpool ceil", got, [[[[6, 8, 9], [16, 18, 19], [21, 23, 24]]]])
    got = pool2d(xm, {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
                 "avg")
    check("avgpool pad", got[0, 0, 0], [(0 + 1 + 5 + 6) / 4, (1 + 2 + 3 + 6 + 7 + 8) / 6,
                                        (3 + 4 + 8 + 9) / 4])
    # QuantizeLinear saturates and rounds halves to even.
    check("quantizelinear", quantize_linear(np.array([0.5, 1.5, -300.0, 2.5]), 1.0, 0, {},
                                            np.int8), [0, 2, -128, 2])
    for f in fails:
        print("FAIL", f)
    print("qonnx_ref selftest: %d failed" % len(fails))
    return 1 if fails else 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    import argparse
    ap = argparse.ArgumentParser(description="float64 reference evaluation of a QONNX model")
    ap.add_argument("model")
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--output", dest="output_name")
    args = ap.parse_args(argv[1:])
    y = run(args.model, np.load(args.input), args.output_name)
    np.save(args.output, y)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
