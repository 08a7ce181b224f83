#!/usr/bin/python3
"""Build the model zoo's networks as ONNX models (opset 13, float32, batch 1).

The layer shapes are the published ones collected in shared/docs/model-zoo.md
("conv N KxK" is N output channels, stride 1 and no padding unless written,
"same" pads to keep the spatial size, every conv and dense layer has a bias
unless written, relu only where written, dense layers are Gemm(transB=1) after
a Flatten).  Inception-v4 follows Szegedy et al. 2016, figures 3-9 (plain
Conv+Relu with biases instead of Conv+BatchNorm).

For every model the script works out, from the layer list alone (not from the
ONNX graph), the conv+dense multiply-accumulates (a MAC counted once) and the
parameter count (weights + biases), and writes OUTDIR/zoo.txt with one line
"NAME LAYERS MACS PARAMS" per model, where LAYERS is the number of ONNX nodes
that are Conv, Gemm, MaxPool, AveragePool, GlobalAveragePool, Relu or Concat
(every node but Flatten).  Each model is then validated with
onnx.checker.check_model and onnx.shape_inference.infer_shapes (strict), the
inferred shapes are compared with the layer-list arithmetic, and MACs/params
recomputed from the inferred graph must agree.

Needs Debian's python3-onnx and python3-numpy: run it with /usr/bin/python3.
"""

import argparse
import math
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
INLINE_LIMIT = 5_000_000  # params; above this the default is --no-weights
LAYER_OPS = {"Conv", "Gemm", "MaxPool", "AveragePool", "GlobalAveragePool",
             "Relu", "Concat"}


class T:
    """A tensor of the graph being built: name and shape without the batch."""

    def __init__(self, name, shape):
        self.name = name
        self.shape = tuple(shape)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _out(size, k, s, pb, pe, ceil=False):
    num = size + pb + pe - k
    if num < 0:
        raise ValueError("window %d larger than padded input %d" % (k, size + pb + pe))
    return (-(-num // s) if ceil else num // s) + 1


class Net:
    """Builds the ONNX graph and, independently, the layer-list arithmetic."""

    def __init__(self, name, in_shape, inline, seed=0):
        self.name = name
        self.inline = inline
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []
        self.counters = {}
        self.macs = 0
        self.params = 0
        self.layers = 0
        self.shapes = {}  # tensor name -> shape (with batch) by arithmetic
        self.input = T("input", in_shape)
        self.shapes["input"] = (1,) + self.input.shape

    # -- helpers -----------------------------------------------------------
    def _next(self, prefix):
        n = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = n
        return "%s%d" % (prefix, n)

    def _node(self, op, prefix, inputs, shape, **attrs):
        name = self._next(prefix)
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        if op in LAYER_OPS:
            self.layers += 1
        self.shapes[name] = (1,) + tuple(shape)
        return T(name, shape)

    def _init(self, name, dims, fan_in, is_bias):
        dims = [int(d) for d in dims]
        count = int(np.prod(dims))
        self.params += count
        if self.inline:
            if is_bias:
                arr = (0.01 * self.rng.standard_normal(dims, dtype=np.float32))
            else:
                arr = (self.rng.standard_normal(dims, dtype=np.float32)
                       * np.float32(math.sqrt(2.0 / fan_in)))
            t = numpy_helper.from_array(arr.astype(np.float32), name)
        else:
            t = TensorProto()
            t.name = name
            t.data_type = TensorProto.FLOAT
            t.dims.extend(dims)
            t.data_location = TensorProto.EXTERNAL
            for k, v in (("location", self.name + ".absent"), ("offset", "0"),
                         ("length", str(4 * count))):
                e = t.external_data.add()
                e.key = k
                e.value = v
        self.inits.append(t)
        return name

    # -- layers ------------------------------------------------------------
    def conv(self, x, cout, k, s=1, pad=0, groups=1, bias=True, relu=False):
        cin, h, w = x.shape
        kh, kw = _pair(k)
        sh, sw = _pair(s)
        if pad == "same":
            pads = ((kh - 1) // 2, (kw - 1) // 2, kh // 2, kw // 2)
        elif isinstance(pad, int):
            pads = (pad, pad, pad, pad)
        else:
            pads = tuple(pad)  # top, left, bottom, right
        oh = _out(h, kh, sh, pads[0], pads[2])
        ow = _out(w, kw, sw, pads[1], pads[3])
        if pad == "same":
            assert (oh, ow) == (-(-h // sh), -(-w // sw)), (self.name, h, w, k, s)
        assert cin % groups == 0 and cout % groups == 0
        cin_g = cin // groups
        self.macs += cout * oh * ow * cin_g * kh * kw
        name = "conv%d" % (self.counters.get("conv", 0) + 1)
        ins = [x.name, self._init(name + "_W", (cout, cin_g, kh, kw),
                                  cin_g * kh * kw, False)]
        if bias:
            ins.append(self._init(name + "_B", (cout,), cin_g * kh * kw, True))
        attrs = dict(kernel_shape=[kh, kw], strides=[sh, sw],
                     pads=[pads[0], pads[1], pads[2], pads[3]])
        if groups != 1:
            attrs["group"] = groups
        y = self._node("Conv", "conv", ins, (cout, oh, ow), **attrs)
        return self.relu(y) if relu else y

    def pool(self, x, kind, k, s=None, pad=0, ceil=False):
        c, h, w = x.shape
        kh, kw = _pair(k)
        sh, sw = _pair(s if s is not None else k)
        if pad == "same":
            pads = ((kh - 1) // 2, (kw - 1) // 2, kh // 2, kw // 2)
        else:
            pads = (pad, pad, pad, pad)
        oh = _out(h, kh, sh, pads[0], pads[2], ceil)
        ow = _out(w, kw, sw, pads[1], pads[3], ceil)
        attrs = dict(kernel_shape=[kh, kw], strides=[sh, sw], pads=list(pads))
        if ceil:
            attrs["ceil_mode"] = 1
        op = {"max": "MaxPool", "avg": "AveragePool"}[kind]
        return self._node(op, "pool", [x.name], (c, oh, ow), **attrs)

    def maxpool(self, x, k, s=None, **kw):
        return self.pool(x, "max", k, s, **kw)

    def avgpool(self, x, k, s=None, **kw):
        return self.pool(x, "avg", k, s, **kw)

    def relu(self, x):
        return self._node("Relu", "relu", [x.name], x.shape)

    def flatten(self, x):
        return self._node("Flatten", "flatten", [x.name], (int(np.prod(x.shape)),),
                          axis=1)

    def dense(self, x, n, bias=True, relu=False):
        if len(x.shape) != 1:
            x = self.flatten(x)
        (fin,) = x.shape
        self.macs += fin * n
        name = "fc%d" % (self.counters.get("fc", 0) + 1)
        ins = [x.name, self._init(name + "_W", (n, fin), fin, False)]
        if bias:
            ins.append(self._init(name + "_B", (n,), fin, True))
        y = self._node("Gemm", "fc", ins, (n,), transB=1)
        return self.relu(y) if relu else y

    def concat(self, xs):
        hw = xs[0].shape[1:]
        assert all(x.shape[1:] == hw for x in xs), [x.shape for x in xs]
        c = sum(x.shape[0] for x in xs)
        return self._node("Concat", "concat", [x.name for x in xs], (c,) + hw, axis=1)

    # -- output ------------------------------------------------------------
    def model(self, y, doc):
        g = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                           self.shapes["input"])],
            [helper.make_tensor_value_info(y.name, TensorProto.FLOAT,
                                           self.shapes[y.name])],
            initializer=self.inits)
        m = helper.make_model(g, producer_name="cnnmap make_zoo.py",
                              opset_imports=[helper.make_opsetid("", OPSET)],
                              doc_string=doc)
        return m


# ---------------------------------------------------------------------------
# The networks.  Each builder takes a Net and returns the output tensor.

def mlp(widths):
    def build(n):
        x = n.input
        for w in widths[:-1]:
            x = n.dense(x, w, relu=True)
        return n.dense(x, widths[-1])
    return build


def lenet_zoo(n):
    x = n.conv(n.input, 20, 5)
    x = n.maxpool(x, 2, 2)
    x = n.conv(x, 50, 5)
    x = n.maxpool(x, 2, 2)
    x = n.dense(x, 500, relu=True)
    return n.dense(x, 10)


def mpcnn(n):
    x = n.conv(n.input, 20, 5)
    x = n.maxpool(x, 2, 2)
    x = n.conv(x, 20, 5)
    x = n.maxpool(x, 2, 2)
    x = n.conv(x, 20, 3)
    x = n.dense(x, 300)
    return n.dense(x, 6)


def cnv(n):
    x = n.input
    for c, pool in ((64, False), (64, True), (128, False), (128, True),
                    (256, False), (256, False)):
        x = n.conv(x, c, 3, relu=True)
        if pool:
            x = n.maxpool(x, 2, 2)
    x = n.dense(x, 512, relu=True)
    x = n.dense(x, 512, relu=True)
    return n.dense(x, 10)


def cifar10_quick(n):
    # Caffe pools round up (ceil): 32 -> 16 -> 8 -> 4, so ip1 sees 64x4x4.
    x = n.conv(n.input, 32, 5, pad=2)
    x = n.maxpool(x, 3, 2, ceil=True)
    x = n.relu(x)
    x = n.conv(x, 32, 5, pad=2, relu=True)
    x = n.avgpool(x, 3, 2, ceil=True)
    x = n.conv(x, 64, 5, pad=2, relu=True)
    x = n.avgpool(x, 3, 2, ceil=True)
    x = n.dense(x, 64)
    return n.dense(x, 10)


def alexnet_fe(n):
    x = n.conv(n.input, 64, 11, s=4, relu=True)
    x = n.maxpool(x, 3, 2)
    x = n.conv(x, 192, 5, pad="same", relu=True)
    x = n.maxpool(x, 3, 2)
    x = n.conv(x, 384, 3, pad="same", relu=True)
    x = n.conv(x, 256, 3, pad="same", relu=True)
    x = n.conv(x, 256, 3, pad="same", relu=True)
    return n.maxpool(x, 3, 2)


def vgg_blocks(n, x, blocks):
    for count, c in blocks:
        for _ in range(count):
            x = n.conv(x, c, 3, pad="same", relu=True)
        x = n.maxpool(x, 2, 2)
    return x


def vgg11(n):
    x = vgg_blocks(n, n.input, ((1, 64), (1, 128), (2, 256), (2, 512), (2, 512)))
    x = n.dense(x, 4096)
    x = n.dense(x, 4096)
    return n.dense(x, 1000)


def vgg16_fe(n):
    return vgg_blocks(n, n.input, ((2, 64), (2, 128), (3, 256), (3, 512), (3, 512)))


def mobilenet_v1(n):
    x = n.conv(n.input, 32, 3, s=2, pad="same", bias=False, relu=True)
    widths = (64, 128, 128, 256, 256) + (512,) * 6 + (1024, 1024)
    stride2 = {1, 3, 5, 11}  # before 128, 256, 512 (first), 1024 (first)
    for i, w in enumerate(widths):
        c = x.shape[0]
        x = n.conv(x, c, 3, s=2 if i in stride2 else 1, pad="same", groups=c,
                   bias=False, relu=True)
        x = n.conv(x, w, 1, bias=False, relu=True)
    x = n.avgpool(x, 7, 1)
    return n.dense(x, 1000, bias=False)


def zfnet(n):
    x = n.conv(n.input, 96, 7, s=2)
    x = n.maxpool(x, 3, 2)
    x = n.conv(x, 256, 5, s=2)
    x = n.maxpool(x, 3, 2)
    x = n.conv(x, 384, 3)
    x = n.conv(x, 384, 3)
    x = n.conv(x, 256, 3)
    return n.maxpool(x, 3, 2)


def pilotnet(n):
    x = n.conv(n.input, 24, 5, s=2)
    x = n.conv(x, 36, 5, s=2)
    x = n.conv(x, 48, 5, s=2)
    x = n.conv(x, 64, 3)
    x = n.conv(x, 64, 3)
    for w in (100, 50, 10):
        x = n.dense(x, w)
    return n.dense(x, 1)


def scenelabel(n):
    x = n.conv(n.input, 16, 7)
    x = n.maxpool(x, 2, 2)
    x = n.conv(x, 64, 7)
    x = n.maxpool(x, 2, 2)
    return n.conv(x, 256, 7)


# Inception-v4 (Szegedy, Ioffe, Vanhoucke, Alemi 2016), figures 3-9.
# "V" in the figures is valid (no) padding; everything else is "same".
# Branches are concatenated left to right as drawn.

def _c(n, x, cout, k, s=1, valid=False):
    return n.conv(x, cout, k, s=s, pad=0 if valid else "same", relu=True)


def inception_stem(n, x):                       # figure 3
    x = _c(n, x, 32, 3, s=2, valid=True)        # 149x149x32
    x = _c(n, x, 32, 3, valid=True)             # 147x147x32
    x = _c(n, x, 64, 3)                         # 147x147x64
    x = n.concat([n.maxpool(x, 3, 2),
                  _c(n, x, 96, 3, s=2, valid=True)])       # 73x73x160
    a = _c(n, _c(n, x, 64, 1), 96, 3, valid=True)
    b = _c(n, x, 64, 1)
    b = _c(n, b, 64, (7, 1))
    b = _c(n, b, 64, (1, 7))
    b = _c(n, b, 96, 3, valid=True)
    x = n.concat([a, b])                                    # 71x71x192
    return n.concat([_c(n, x, 192, 3, s=2, valid=True),
                     n.maxpool(x, 3, 2)])                   # 35x35x384


def inception_a(n, x):                          # figure 4
    b0 = _c(n, n.avgpool(x, 3, 1, pad="same"), 96, 1)
    b1 = _c(n, x, 96, 1)
    b2 = _c(n, _c(n, x, 64, 1), 96, 3)
    b3 = _c(n, _c(n, _c(n, x, 64, 1), 96, 3), 96, 3)
    return n.concat([b0, b1, b2, b3])


def reduction_a(n, x, k=192, l=224, m=256, nn=384):  # figure 7, table 1
    b0 = n.maxpool(x, 3, 2)
    b1 = _c(n, x, nn, 3, s=2, valid=True)
    b2 = _c(n, _c(n, _c(n, x, k, 1), l, 3), m, 3, s=2, valid=True)
    return n.concat([b0, b1, b2])


def inception_b(n, x):                          # figure 5
    b0 = _c(n, n.avgpool(x, 3, 1, pad="same"), 128, 1)
    b1 = _c(n, x, 384, 1)
    b2 = _c(n, _c(n, _c(n, x, 192, 1), 224, (1, 7)), 256, (7, 1))
    b3 = _c(n, x, 192, 1)
    for c, k in ((192, (1, 7)), (224, (7, 1)), (224, (1, 7)), (256, (7, 1))):
        b3 = _c(n, b3, c, k)
    return n.concat([b0, b1, b2, b3])


def reduction_b(n, x):                          # figure 8
    b0 = n.maxpool(x, 3, 2)
    b1 = _c(n, _c(n, x, 192, 1), 192, 3, s=2, valid=True)
    b2 = _c(n, x, 256, 1)
    b2 = _c(n, b2, 256, (1, 7))
    b2 = _c(n, b2, 320, (7, 1))
    b2 = _c(n, b2, 320, 3, s=2, valid=True)
    return n.concat([b0, b1, b2])


def inception_c(n, x):                          # figure 6
    b0 = _c(n, n.avgpool(x, 3, 1, pad="same"), 256, 1)
    b1 = _c(n, x, 256, 1)
    b2 = _c(n, x, 384, 1)
    b2a = _c(n, b2, 256, (1, 3))
    b2b = _c(n, b2, 256, (3, 1))
    b3 = _c(n, _c(n, _c(n, x, 384, 1), 448, (1, 3)), 512, (3, 1))
    b3a = _c(n, b3, 256, (3, 1))
    b3b = _c(n, b3, 256, (1, 3))
    return n.concat([b0, b1, b2a, b2b, b3a, b3b])


def inception_v4(n):                            # figure 9
    x = inception_stem(n, n.input)
    for _ in range(4):
        x = inception_a(n, x)
    x = reduction_a(n, x)                       # 17x17x1024
    for _ in range(7):
        x = inception_b(n, x)
    x = reduction_b(n, x)                       # 8x8x1536
    for _ in range(3):
        x = inception_c(n, x)
    x = n.avgpool(x, 8, 1)                      # average pooling -> 1536
    return n.dense(x, 1000)                     # (dropout is a no-op at inference)


# name: (input shape, builder, source, published figures)
# Published figures are strings as printed in the zoo; their last digit gives
# the rounding tolerance.  "params" is a parameter count, "gop" is 2 x MACs.
MODELS = {
    "jet_tagging": ((16,), mlp((64, 32, 32, 5)),
                    "hls4ml jet tagging 3-layer (SAMO)", {"params": "4K"}),
    "tfc": ((784,), mlp((64, 64, 64, 10)), "FINN TFC", {"params": "59K"}),
    "sfc": ((784,), mlp((256, 256, 256, 10)), "FINN SFC", {}),
    "lfc": ((784,), mlp((1024, 1024, 1024, 10)), "FINN LFC", {}),
    "lenet_zoo": ((1, 28, 28), lenet_zoo, "LeNet (SAMO, fpgaConvNet)",
                  {"params": "430K"}),
    "mpcnn": ((1, 32, 32), mpcnn, "MPCNN (SAMO, fpgaConvNet)", {"params": "70K"}),
    "cnv": ((3, 32, 32), cnv, "FINN CNV", {"params": "1.54M"}),
    "cifar10_quick": ((3, 32, 32), cifar10_quick, "Caffe CIFAR-10 quick", {}),
    "alexnet_fe": ((3, 228, 228), alexnet_fe, "AlexNet feature extractor", {}),
    "vgg11": ((3, 224, 224), vgg11, "VGG11 (SAMO)", {"params": "132.9M"}),
    "vgg16_fe": ((3, 224, 224), vgg16_fe, "VGG16 feature extractor",
                 {"gop": "30.7"}),
    "mobilenet_v1": ((3, 224, 224), mobilenet_v1, "MobileNetV1",
                     {"params": "4.2M"}),
    "zfnet": ((3, 224, 224), zfnet, "ZFNet (f-CNNx)", {"gop": "2.2"}),
    "pilotnet": ((3, 66, 200), pilotnet, "PilotNet (f-CNNx)", {}),
    "scenelabel": ((3, 320, 240), scenelabel, "SceneLabelCNN (Cavigelli 2015)",
                   {"gop": "7.65"}),
    "inception_v4": ((3, 299, 299), inception_v4,
                     "Inception-v4 (Szegedy et al. 2016, figs 3-9)", {}),
}


def parse_published(s):
    mult = {"K": 1e3, "M": 1e6, "G": 1e9}.get(s[-1], 1)
    num = s[:-1] if s[-1] in "KMG" else s
    if "." in num:
        unit = 10.0 ** -len(num.split(".")[1])
    else:  # "430K": trailing zeros of an integer are taken as not significant
        unit = 10.0 ** (len(num) - len(num.rstrip("0")))
    return float(num) * mult, 0.5 * unit * mult


# ---------------------------------------------------------------------------
# Validation: the ONNX graph against the layer-list arithmetic.

def graph_counts(inferred):
    """MACs, params and LAYERS recomputed from an inferred ONNX graph."""
    g = inferred.graph
    shapes = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        dims = vi.type.tensor_type.shape.dim
        shapes[vi.name] = tuple(d.dim_value if d.HasField("dim_value") else None
                                for d in dims)
    inits = {t.name: tuple(t.dims) for t in g.initializer}
    for vi in g.input:  # weights turned into inputs by without_data()
        if vi.name != "input":
            inits[vi.name] = shapes[vi.name]
    macs = 0
    for node in g.node:
        if node.op_type == "Conv":
            w = inits[node.input[1]]
            out = shapes[node.output[0]]
            macs += out[1] * out[2] * out[3] * w[1] * w[2] * w[3]
        elif node.op_type == "Gemm":
            w = inits[node.input[1]]
            macs += w[0] * w[1]
    params = sum(int(np.prod(d)) for d in inits.values())
    layers = sum(1 for node in g.node if node.op_type in LAYER_OPS)
    return macs, params, layers, shapes


def without_data(model):
    """A copy whose external-data initializers become typed graph inputs.

    The checker stat()s every external data file, which NAME.absent never is,
    so models written with --no-weights are checked without their data: the
    external tensors' own fields are checked here, and the rest of the model
    (nodes, attributes, shapes) by the checker on this copy.
    """
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    keep = []
    for t in g.initializer:
        if t.data_location != TensorProto.EXTERNAL:
            keep.append(t)
            continue
        ext = {e.key: e.value for e in t.external_data}
        assert t.data_type == TensorProto.FLOAT and not t.HasField("raw_data")
        assert ext["location"] == g.name + ".absent", ext
        assert int(ext["offset"]) == 0, ext
        assert int(ext["length"]) == 4 * int(np.prod(t.dims)), (t.name, ext)
        g.input.append(helper.make_tensor_value_info(t.name, TensorProto.FLOAT,
                                                     list(t.dims)))
    del g.initializer[:]
    g.initializer.extend(keep)
    return m


def validate(model, net, path):
    reloaded = onnx.load(path, load_external_data=False)
    assert reloaded.SerializeToString() == model.SerializeToString()
    checkable = without_data(reloaded) if not net.inline else reloaded
    onnx.checker.check_model(checkable, full_check=True)
    if net.inline:
        onnx.checker.check_model(path, full_check=True)  # the file itself
    inferred = onnx.shape_inference.infer_shapes(checkable, check_type=True,
                                                 strict_mode=True)
    macs, params, layers, shapes = graph_counts(inferred)
    for name, shape in net.shapes.items():
        if shapes.get(name) != shape:
            raise AssertionError("%s: tensor %s inferred %s, layer list says %s"
                                 % (net.name, name, shapes.get(name), shape))
    if (macs, params, layers) != (net.macs, net.params, net.layers):
        raise AssertionError("%s: graph gives macs/params/layers %s, layer list %s"
                             % (net.name, (macs, params, layers),
                                (net.macs, net.params, net.layers)))
    ops = {n.op_type for n in model.graph.node}
    assert ops <= LAYER_OPS | {"Flatten"}, ops


def human(n):
    for unit, div in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= div:
            return "%.4g%s" % (n / div, unit)
    return str(n)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Build the model zoo (shared/docs/model-zoo.md) as ONNX "
                    "models (opset 13, float32, batch 1) into OUTDIR, with "
                    "OUTDIR/zoo.txt listing 'NAME LAYERS MACS PARAMS'.",
        epilog="Weights are random float32 from numpy.random.default_rng(0) "
               "(per model). By default they are written inline only for "
               "models of at most %s params; larger models default to "
               "--no-weights. Models: %s." % (format(INLINE_LIMIT, ","),
                                              ", ".join(MODELS)))
    ap.add_argument("outdir", metavar="OUTDIR")
    ap.add_argument("--only", metavar="NAME", nargs="+", action="extend",
                    choices=list(MODELS),
                    help="build only these models")
    w = ap.add_mutually_exclusive_group()
    w.add_argument("--no-weights", action="store_true",
                   help="write every initializer as external data in an absent "
                        "file NAME.absent (dims and type only, tiny files); "
                        "the default for models above %s params"
                        % format(INLINE_LIMIT, ","))
    w.add_argument("--weights", action="store_true",
                   help="write weights inline for every model, however large")
    args = ap.parse_args(argv)

    os.makedirs(args.outdir, exist_ok=True)
    names = args.only or list(MODELS)
    t_start = time.time()
    lines = []
    for name in names:
        t0 = time.time()
        in_shape, build, source, published = MODELS[name]
        # First pass without weights: the parameter count decides inline or not.
        probe = Net(name, in_shape, inline=False)
        build(probe)
        if args.no_weights:
            inline = False
        elif args.weights:
            inline = True
        else:
            inline = probe.params <= INLINE_LIMIT
        net = Net(name, in_shape, inline=inline, seed=0)
        y = build(net)
        model = net.model(y, "%s: %s, from shared/docs/model-zoo.md; random "
                             "weights (default_rng(0))%s" %
                          (name, source, "" if inline else
                           ", weights external in absent %s.absent" % name))
        path = os.path.join(args.outdir, name + ".onnx")
        # written beside and renamed into place: tests running meanwhile keep reading the
        # file they opened (rewriting it in place gave them a bus error)
        tmp = "%s.tmp%d" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(model.SerializeToString())
        os.replace(tmp, path)
        validate(model, net, path)
        lines.append("%s %d %d %d\n" % (name, net.layers, net.macs, net.params))
        notes = []
        for key, text in published.items():
            value, tol = parse_published(text)
            ours = net.params if key == "params" else 2 * net.macs / 1e9
            diff = ours - value
            notes.append("%s published %s, ours %s (%+.2f%%, %s)" % (
                key, text, human(net.params) if key == "params" else "%.3f" % ours,
                100.0 * diff / value,
                "within rounding" if abs(diff) <= tol else "DIFFERS"))
        print("%-14s layers %4d  macs %14d  params %11d  %-8s %10d bytes  %.2fs%s"
              % (name, net.layers, net.macs, net.params,
                 "inline" if inline else "external", os.path.getsize(path),
                 time.time() - t0,
                 "".join("\n    " + s for s in notes)))
        sys.stdout.flush()
    with open(os.path.join(args.outdir, "zoo.txt"), "w") as f:
        f.writelines(lines)
    print("%d models in %.1fs -> %s" % (len(names), time.time() - t_start,
                                         args.outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
