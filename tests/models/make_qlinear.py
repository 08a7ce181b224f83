#!/usr/bin/python3
"""Writes small ONNX models of ONNX's integer layers, for tests/test_import_qcdq.c.

    /usr/bin/python3 make_qlinear.py OUTDIR

OUTDIR/qlinear.onnx   x (1x3x5x5 float) -> QuantizeLinear (uint8) -> QLinearConv (4 output
                      channels, 3x3, pad 1, int8 weights, per-channel weight scales, int32
                      bias) -> Flatten -> QLinearMatMul (100 -> 6, int8 weights)
                      -> DequantizeLinear -> y (1x6)
OUTDIR/integer.onnx   x (1x3x5x5 float) -> QuantizeLinear (uint8) -> ConvInteger (4 output
                      channels, 1x1, int8 weights) -> Cast (float) -> Mul (scale) -> y
OUTDIR/matmul_integer.onnx
                      x (1x6 float) -> QuantizeLinear (uint8) -> MatMulInteger (6 -> 4,
                      int8 weights) -> Cast (float) -> Mul (scale) -> y

The weight values are fixed functions of their index that span the whole int8 range, so
that the importer, which reads a weight's width from the integers it holds, finds 8 bits.
Every file passes onnx.checker. Needs Debian's python3-onnx, hence /usr/bin/python3.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def int8_ramp(shape):
    """int8 values covering -128..127 in a fixed, irregular order."""
    n = int(np.prod(shape))
    v = (np.arange(n, dtype=np.int64) * 37 + 11) % 256 - 128
    v[0], v[1] = -128, 127
    return v.astype(np.int8).reshape(shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def qlinear_model():
    inits = [
        init("x_scale", np.float32(0.05)), init("x_zp", np.uint8(128)),
        init("w", int8_ramp((4, 3, 3, 3))),
        init("w_scale", np.array([0.01, 0.02, 0.015, 0.005], dtype=np.float32)),
        init("w_zp", np.zeros(4, dtype=np.int8)),
        init("c_scale", np.float32(0.1)), init("c_zp", np.uint8(100)),
        init("b", np.array([100, -50, 0, 25], dtype=np.int32)),
        init("m", int8_ramp((100, 6))), init("m_scale", np.float32(0.004)),
        init("m_zp", np.int8(0)),
        init("y_scale", np.float32(0.2)), init("y_zp", np.uint8(125)),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"], ["xq"], name="quant_x"),
        helper.make_node("QLinearConv",
                         ["xq", "x_scale", "x_zp", "w", "w_scale", "w_zp", "c_scale", "c_zp",
                          "b"], ["cq"], name="qconv", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Flatten", ["cq"], ["fq"], name="flatten", axis=1),
        helper.make_node("QLinearMatMul",
                         ["fq", "c_scale", "c_zp", "m", "m_scale", "m_zp", "y_scale", "y_zp"],
                         ["yq"], name="qmatmul"),
        helper.make_node("DequantizeLinear", ["yq", "y_scale", "y_zp"], ["y"], name="dequant_y"),
    ]
    graph = helper.make_graph(
        nodes, "qlinear",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def integer_model():
    inits = [
        init("x_scale", np.float32(0.05)), init("x_zp", np.uint8(128)),
        init("w", int8_ramp((4, 3, 1, 1))), init("w_zp", np.int8(0)),
        init("s", np.float32(0.05 * 0.01)),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"], ["xq"], name="quant_x"),
        helper.make_node("ConvInteger", ["xq", "w", "x_zp", "w_zp"], ["acc"], name="iconv"),
        helper.make_node("Cast", ["acc"], ["accf"], name="cast", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["accf", "s"], ["y"], name="scale"),
    ]
    graph = helper.make_graph(
        nodes, "integer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 5, 5])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def matmul_integer_model():
    inits = [
        init("x_scale", np.float32(0.05)), init("x_zp", np.uint8(128)),
        init("w", int8_ramp((6, 4))), init("w_zp", np.int8(0)),
        init("s", np.float32(0.05 * 0.01)),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"], ["xq"], name="quant_x"),
        helper.make_node("MatMulInteger", ["xq", "w", "x_zp", "w_zp"], ["acc"], name="imatmul"),
        helper.make_node("Cast", ["acc"], ["accf"], name="cast", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["accf", "s"], ["y"], name="scale"),
    ]
    graph = helper.make_graph(
        nodes, "matmul_integer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def save(model, path):
    onnx.checker.check_model(model, full_check=True)
    tmp = path + ".tmp%d" % os.getpid()
    onnx.save(model, tmp)
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: make_qlinear.py OUTDIR\n")
        return 1
    os.makedirs(argv[1], exist_ok=True)
    save(qlinear_model(), os.path.join(argv[1], "qlinear.onnx"))
    save(integer_model(), os.path.join(argv[1], "integer.onnx"))
    save(matmul_integer_model(), os.path.join(argv[1], "matmul_integer.onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
