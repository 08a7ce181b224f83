#!/usr/bin/python3
"""Rewrites a QONNX model into QCDQ form (QuantizeLinear -> Clip -> DequantizeLinear).

    /usr/bin/python3 make_qcdq.py SRC.onnx DST.onnx

QCDQ is what PyTorch, Brevitas and ONNX Runtime tools write for quantised networks, and
what ONNX Runtime runs; the rewrite lets ORT serve as an oracle for QONNX models.
Every QONNX Quant node (domains qonnx.custom_op.general, onnx.brevitas, ...) becomes:

- on an activation (a tensor computed at run time):
      QuantizeLinear(x, scale, zp) -> [Clip(lo, hi)] -> DequantizeLinear(., scale, zp)
  with a scalar float32 scale and a zero point of 0 typed int8 when the Quant is signed,
  uint8 otherwise. QuantizeLinear computes saturate(round_half_even(x / scale)), which is
  the Quant's integer when its range is the full 8-bit range; for narrower ranges (bit
  width under 8, or narrow range) a Clip clamps to the Quant's integer range [lo, hi]
  (int8/uint8 bounds as tensors, Clip of opset 13). The Quant must round half to even
  (rounding_mode ROUND), the only rounding QuantizeLinear does, and have at most 8 bits.
- on a constant of at most 8 bits (weights): an initializer holding the Quant's integers
  (int8; uint8 for an unsigned 8-bit Quant) and a DequantizeLinear with the Quant's
  scale: a scalar, or per channel (1-D, with axis) when the scale varies along one axis
  (axis 0 for the output channels of conv weights).
- on a constant of more than 8 bits (biases, 16 or 32 bits): folded to a float32
  initializer holding the quantised values (q * scale). QuantizeLinear and
  DequantizeLinear have only 8-bit integer types before opset 21 (int16/int32 types
  arrive with opset 21, and ONNX Runtime's CPU kernels for them later still), so a 16- or
  32-bit integer bias cannot be expressed in opset 13; folding computes exactly the same
  values as long as they are float32 values, which is checked.

The result uses the default-domain opset 13 (checked against the source opset: an
operator whose definition changed between the two, beyond added types, is refused) and
passes onnx.checker with full shape inference.

Only models whose Quant nodes have a zero point of 0 are handled, and scales are used as
they are (float32); anything else (non-zero zero points, per-tensor activation scales
that are not scalars, rounding modes other than ROUND on activations, activations wider
than 8 bits, BipolarQuant, Trunc, MultiThreshold) is refused with an error naming the
node. Exit status: 0 written, 2 refused or unreadable.
"""

import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qonnx_ref  # noqa: E402  (the Quant arithmetic: int_range, quant_int)

QONNX_DOMAINS = qonnx_ref.QONNX_DOMAINS
TARGET_OPSET = 13

# Operators whose versions between opsets 11 and 14 differ only in the element types they
# accept (or, for Reshape 14, in an attribute whose default keeps the old meaning), so
# that a model of any of those opsets means the same at opset 13.
SAME_MEANING = {"Add", "Sub", "Mul", "Div", "Relu", "Flatten", "Gemm", "MatMul", "MaxPool",
                "Concat", "Identity", "Transpose", "Sigmoid", "Clip", "Reshape",
                "GlobalAveragePool", "GlobalMaxPool", "Conv", "AveragePool", "Pad",
                "Constant"}


class Refused(Exception):
    pass


def check_opset(model, src_opset):
    """Refuses operators whose definition at opset 13 differs from the source opset's."""
    for n in model.graph.node:
        if n.domain not in ("", "ai.onnx"):
            continue
        try:
            src = onnx.defs.get_schema(n.op_type, src_opset).since_version
            dst = onnx.defs.get_schema(n.op_type, TARGET_OPSET).since_version
        except onnx.defs.SchemaError:
            raise Refused("node %s: operator %s does not exist at opset %d"
                          % (n.name, n.op_type, TARGET_OPSET)) from None
        if src != dst and n.op_type not in SAME_MEANING:
            raise Refused("node %s: %s changed between opset %d and %d"
                          % (n.name, n.op_type, src_opset, TARGET_OPSET))
        if n.op_type == "Reshape" and any(a.name == "allowzero" and a.i for a in n.attribute):
            raise Refused("node %s: Reshape allowzero=1 needs opset 14" % n.name)


def scale_axis(scale, rank):
    """(1-D scale, axis) for a scale that varies along at most one axis; axis None if scalar."""
    s = np.asarray(scale)
    if s.size == 1:
        return s.reshape(()), None
    if s.ndim != rank:
        raise Refused("a scale of shape %s for a tensor of rank %d" % (s.shape, rank))
    axes = [i for i, d in enumerate(s.shape) if d != 1]
    if len(axes) != 1:
        raise Refused("a scale of shape %s varies along more than one axis" % (s.shape,))
    return s.reshape(-1), axes[0]


def rewrite(model):
    g = model.graph
    src_opset = None
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            src_opset = imp.version
    if src_opset is None:
        raise Refused("no default-domain opset")

    consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    for n in g.node:
        if n.op_type == "Constant" and n.domain in ("", "ai.onnx"):
            for a in n.attribute:
                if a.name == "value":
                    consts[n.output[0]] = numpy_helper.to_array(a.t)

    used_names = set(consts)
    for n in g.node:
        used_names.update(n.input)
        used_names.update(n.output)

    def fresh(base):
        name = base
        k = 1
        while name in used_names:
            name = "%s_%d" % (base, k)
            k += 1
        used_names.add(name)
        return name

    new_nodes = []
    new_inits = []

    def add_init(base, array):
        name = fresh(base)
        new_inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    for n in g.node:
        if n.domain not in QONNX_DOMAINS:
            new_nodes.append(n)
            continue
        where = "node %s (%s)" % (n.name or n.output[0], n.op_type)
        if n.op_type != "Quant":
            raise Refused("%s: only Quant nodes can be rewritten" % where)
        if len(n.input) != 4 or any(i not in consts for i in n.input[1:]):
            raise Refused("%s: scale, zero point and bit width must be constants" % where)
        attrs = qonnx_ref.attributes(n)
        signed = int(attrs.get("signed", 1))
        narrow = int(attrs.get("narrow", 0))
        mode = qonnx_ref.decode(attrs.get("rounding_mode", "ROUND")).upper()
        scale = consts[n.input[1]]
        zp = consts[n.input[2]]
        bits = qonnx_ref.bit_width(consts[n.input[3]])
        if np.any(np.asarray(zp) != 0):
            raise Refused("%s: zero point %s is not 0" % (where, np.asarray(zp).ravel()[:4]))
        if np.any(np.asarray(scale) <= 0) or not np.all(np.isfinite(scale)):
            raise Refused("%s: scales must be positive and finite" % where)
        scale32 = np.asarray(scale).astype(np.float32)
        if not np.array_equal(scale32.astype(np.float64), np.asarray(scale, dtype=np.float64)):
            raise Refused("%s: scale is not a float32 value" % where)
        lo, hi = qonnx_ref.int_range(bits, signed, narrow)
        base = (n.name or n.output[0]).replace("/", "_").strip("_")
        out = n.output[0]
        x = n.input[0]

        if x in consts:  # a constant: weights or a bias
            value = np.asarray(consts[x])
            q = qonnx_ref.quant_int(value, scale, 0.0, bits, signed, narrow, mode)
            if bits > 8:
                folded = (q * np.asarray(scale, dtype=np.float64)).astype(np.float64)
                f32 = folded.astype(np.float32)
                if not np.array_equal(f32.astype(np.float64), folded):
                    raise Refused("%s: the quantised values are not all float32 values"
                                  % where)
                # The Quant's output becomes an initializer of that name.
                new_inits.append(numpy_helper.from_array(f32, out))
                continue
            qtype = np.int8 if (signed or hi <= 127) else np.uint8
            s1, axis = scale_axis(scale32, value.ndim)
            q_name = add_init(base + "_int", q.astype(qtype))
            s_name = add_init(base + "_scale", s1)
            z_name = add_init(base + "_zero_point", np.zeros(s1.shape, dtype=qtype))
            kw = {} if axis is None else {"axis": axis}
            new_nodes.append(helper.make_node("DequantizeLinear", [q_name, s_name, z_name],
                                              [out], name=fresh(base + "_dequant"), **kw))
            continue

        # An activation.
        if bits > 8:
            raise Refused("%s: a %g-bit activation has no QuantizeLinear type in opset %d"
                          % (where, bits, TARGET_OPSET))
        if mode not in ("ROUND", "HALF_EVEN"):
            raise Refused("%s: rounding mode %s (QuantizeLinear rounds half to even)"
                          % (where, mode))
        if np.asarray(scale).size != 1:
            raise Refused("%s: activation scale of shape %s; only scalar scales are handled"
                          % (where, np.asarray(scale).shape))
        qtype = np.int8 if signed else np.uint8
        info = np.iinfo(qtype)
        s_name = add_init(base + "_scale", scale32.reshape(()))
        z_name = add_init(base + "_zero_point", np.zeros((), dtype=qtype))
        q_out = fresh(out + "_quantized")
        new_nodes.append(helper.make_node("QuantizeLinear", [x, s_name, z_name], [q_out],
                                          name=fresh(base + "_quantize")))
        if lo > info.min or hi < info.max:
            lo_name = add_init(base + "_clip_min", np.array(lo, dtype=qtype))
            hi_name = add_init(base + "_clip_max", np.array(hi, dtype=qtype))
            c_out = fresh(out + "_clipped")
            new_nodes.append(helper.make_node("Clip", [q_out, lo_name, hi_name], [c_out],
                                              name=fresh(base + "_clip")))
            q_out = c_out
        new_nodes.append(helper.make_node("DequantizeLinear", [q_out, s_name, z_name], [out],
                                          name=fresh(base + "_dequantize")))

    # Keep the initializers still used; drop graph inputs that named removed initializers.
    used = set()
    for n in new_nodes:
        used.update(n.input)
    used.update(o.name for o in g.output)
    kept = [t for t in g.initializer if t.name in used]
    init_names = {t.name for t in g.initializer}
    inputs = [i for i in g.input if i.name not in init_names or i.name in used]

    out_model = onnx.ModelProto()
    out_model.CopyFrom(model)
    og = out_model.graph
    del og.node[:]
    og.node.extend(new_nodes)
    del og.initializer[:]
    og.initializer.extend(kept + new_inits)
    del og.input[:]
    og.input.extend(inputs)
    # Value infos of removed tensors would only confuse; keep those still produced.
    produced = {o for n in new_nodes for o in n.output}
    vis = [v for v in og.value_info if v.name in produced]
    del og.value_info[:]
    og.value_info.extend(vis)
    del out_model.opset_import[:]
    out_model.opset_import.extend([helper.make_opsetid("", TARGET_OPSET)])
    if out_model.ir_version < 7:
        out_model.ir_version = 7
    check_opset(out_model, src_opset)
    return out_model


def main(argv):
    if len(argv) != 3 or argv[1].startswith("-"):
        sys.stderr.write("usage: make_qcdq.py SRC.onnx DST.onnx\n")
        return 1
    src, dst = argv[1], argv[2]
    try:
        model = onnx.load(src)
    except Exception as e:  # noqa: BLE001 (onnx raises several kinds)
        sys.stderr.write("make_qcdq.py: %s: %s\n" % (src, e))
        return 2
    try:
        out = rewrite(model)
        onnx.checker.check_model(out, full_check=True)
    except (Refused, qonnx_ref.RefError) as e:
        sys.stderr.write("make_qcdq.py: %s: cannot rewrite: %s\n" % (src, e))
        return 2
    except onnx.checker.ValidationError as e:
        sys.stderr.write("make_qcdq.py: %s: the rewrite fails onnx.checker: %s\n" % (src, e))
        return 2
    tmp = dst + ".tmp%d" % os.getpid()
    try:
        onnx.save(out, tmp)
        os.replace(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
