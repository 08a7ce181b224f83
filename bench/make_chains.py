#!/usr/bin/python3
"""Synthetic networks for the scale benchmarks (issue 17), as ONNX files in OUTDIR.

  make_chains.py OUTDIR [LAYERS ...]      (default 100 1000 10000)

For each LAYERS: chainLAYERS.onnx, that many 3x3 convolutions (8 channels, 8x8, padded),
one after another; and resBLOCKS.onnx with BLOCKS = LAYERS / 4 residual blocks of a
convolution and an Add (half the chain's layers). Every convolution shares one weight
tensor, so the files stay small. Needs Debian's python3-onnx (/usr/bin/python3).
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(work, nodes, out, name, w):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])
    y = helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 8, 8, 8])
    g = helper.make_graph(nodes, name, [x], [y], [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
              f"{work}/{name}.onnx")


def conv(x, y):
    return helper.make_node("Conv", [x, "w"], [y], kernel_shape=[3, 3], pads=[1, 1, 1, 1])


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: make_chains.py OUTDIR [LAYERS ...]")
    work = argv[1]
    sizes = [int(a) for a in argv[2:]] or [100, 1000, 10000]
    w = numpy_helper.from_array(np.ones((8, 8, 3, 3), np.float32) / 72, "w")
    for layers in sizes:
        nodes, x = [], "x"
        for i in range(layers):
            nodes.append(conv(x, f"c{i}"))
            x = f"c{i}"
        save(work, nodes, x, f"chain{layers}", w)
        nodes, x = [], "x"
        for i in range(layers // 4):  # conv, add: two layers a block, half the chain's
            nodes.append(conv(x, f"a{i}"))
            nodes.append(helper.make_node("Add", [f"a{i}", x], [f"b{i}"]))
            x = f"b{i}"
        save(work, nodes, x, f"res{layers // 4}", w)


if __name__ == "__main__":
    main(sys.argv)
