#!/usr/bin/python3
"""Writes a QONNX ResNet-8 with grouped convolutions, for the nn2FPGA grouped engine.

    /usr/bin/python3 make_grouped.py SHARED_MODELS_DIR OUT.onnx

Reads the shared resnet8_a8w8b16.onnx (Brevitas' QONNX export) and makes three of its
3x3 convolutions grouped, as ResNeXt and RegNet have them, keeping every Quant:
  Conv_1  16 -> 16, 4 groups of 4 channels     (the first residual block's main branch)
  Conv_5  32 -> 32, 8 groups of 4              (second block, after the downsampling conv)
  Conv_6  32 -> 64, stride 2, 2 groups of 16   (third block's first conv: 32 filters a group;
                                                its 1x1 shortcut stays ungrouped)
A grouped convolution's weights are F x C/G x kh x kw: each keeps the first C/G input
channels of the trained F x C x kh x kw tensor, so the values stay on the Quant's grid and
the model stays a real quantised network. Passes onnx.checker; needs Debian's
python3-onnx, hence /usr/bin/python3.
"""

import os
import sys

import onnx
from onnx import helper, numpy_helper

GROUPS = {"Conv_1": 4, "Conv_5": 8, "Conv_6": 2}


def main():
    src, out = sys.argv[1], sys.argv[2]
    m = onnx.load(os.path.join(src, "resnet8_a8w8b16.onnx"))
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    done = set()
    for n in g.node:
        if n.op_type != "Conv" or n.name not in GROUPS:
            continue
        groups = GROUPS[n.name]
        quant = producer[n.input[1]]  # the weights' Quant; its first input is the tensor
        w = numpy_helper.to_array(inits[quant.input[0]])
        f, c = w.shape[0], w.shape[1]
        assert c % groups == 0 and f % groups == 0, (n.name, w.shape, groups)
        inits[quant.input[0]].CopyFrom(numpy_helper.from_array(w[:, : c // groups].copy(), quant.input[0]))
        for a in n.attribute:
            if a.name == "group":
                a.CopyFrom(helper.make_attribute("group", groups))
        done.add(n.name)
    assert done == set(GROUPS), done
    # shapes change with the weights: let the loader infer them again
    del g.value_info[:]
    if not any(o.domain == "qonnx.custom_op.general" for o in m.opset_import):
        m.opset_import.append(helper.make_opsetid("qonnx.custom_op.general", 1))
    onnx.checker.check_model(m)
    tmp = out + ".tmp"
    onnx.save(m, tmp)
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
