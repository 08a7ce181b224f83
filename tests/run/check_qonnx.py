#!/usr/bin/python3
"""End-to-end check of `cnnmap run` on QONNX models, bit for bit.

    /usr/bin/python3 check_qonnx.py CNNMAP_BIN OUTDIR [--quick] [--frames N]
                                    [--models NAME,...] [--oracles-only]

Models: resnet8_a8w8b16, resnet8_a4w4b32, resnet20_a8w8b16 and mobilenet_v2_a8w6b32 (in
$CM_SHARED_DIR/models, default: the shared/ directory beside the project), and
"synthetic", a small QONNX network written into OUTDIR for what those lack (per-channel
weight scales, unsigned and narrow activation ranges, depthwise strided conv with
asymmetric pads, MaxPool ceil_mode, Gemm; see synthetic_model). For each:

  x     100 random frames (10 for MobileNetV2; --quick: 10 and 2), seeded per model,
        drawn to exercise the first quantiser: uniform over its range widened by a
        quarter on each side (so that it saturates), with 15% of the values exactly on
        half steps (k + 1/2) * scale (round half to even decides them) and 10% exactly on
        steps k * scale; float32. They run through cnnmap in batches of 1, 7 and the
        rest, so batching is exercised too.
  QONNX cnnmap run on the model  ==  qonnx_ref.py (float64 numpy evaluation), bit for bit
        (np.array_equal on the float32 outputs);
  QCDQ  the model rewritten by make_qcdq.py (QuantizeLinear/Clip/DequantizeLinear) into
        OUTDIR: cnnmap run on it  ==  ONNX Runtime on it (ort_run.js)  and  == qonnx_ref
        on the QONNX model, bit for bit (the rewrite computes the same numbers: see
        make_qcdq.py; every sum in these networks is exact in float32 too);
  oracles ONNX Runtime on the QCDQ model == qonnx_ref on the QONNX model, also on a few
        intermediate tensors (probes: activation quantiser outputs, exposed as extra
        graph outputs), so that a disagreement of the oracles themselves shows;
  probes cnnmap run --output NAME on the probes, for the first 2 frames (the final
        outputs of quantised networks often saturate; the probes do not hide errors that
        way); --quick: the first frame, on the QONNX model only.
Also: `cnnmap run --json` on ResNet8 (keys, shapes, output_sha256 = SHA-256 of the file
written), and make_qcdq.py refusing a model with a non-zero zero point.

When cnnmap and the reference disagree, the first disagreeing tensor is located (cnnmap
run --output on the quantiser outputs of the first disagreeing frame, by bisection) and
reported.

Prints one line per comparison, a summary line per model (frames, max abs diff, equal
yes/no) and finally "N passed, N failed". Exit status 0 when all passed, 1 otherwise.
Missing shared models fail under CI=true; otherwise they are skipped with a message
(exit status 77, ctest's "skipped", when everything else passed). When ONNX Runtime
(scripts/deps.sh installs it) is missing, the ORT comparisons likewise fail under CI=true
and are skipped with a message otherwise.
--oracles-only runs only the oracle comparisons (no cnnmap; CNNMAP_BIN is ignored).
"""

import argparse
import os
import subprocess
import sys
import time
import zlib

import numpy as np
import onnx
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_qcdq  # noqa: E402
import qonnx_ref  # noqa: E402
import run_common as rc  # noqa: E402
from run_common import log  # noqa: E402

QONNX_DOMAIN = "qonnx.custom_op.general"
SYNTHETIC = "synthetic"  # written by synthetic_model() into OUTDIR
MODELS = [  # name, frames, quick frames
    (SYNTHETIC, 100, 10),
    ("resnet8_a8w8b16", 100, 10),
    ("resnet8_a4w4b32", 100, 10),
    ("resnet20_a8w8b16", 100, 10),
    ("mobilenet_v2_a8w6b32", 10, 2),
]
N_PROBES = 3


def synthetic_model(path, zero_point=0.0):
    """Writes a small QONNX network with what the shared models lack: per-channel weight
    scales (conv and Gemm), a depthwise strided conv with asymmetric pads, unsigned
    4-bit, signed narrow 8-bit and unsigned narrow 3-bit activations, MaxPool with
    padding and ceil_mode, a 16-bit and a 32-bit bias, GlobalAveragePool, Flatten and
    Gemm (transB). Scales are powers of two, so every oracle is exact. Input 1x3x15x16.
    A zero_point other than 0 makes a model that make_qcdq.py must refuse."""
    rng = np.random.default_rng(12345)
    inits, nodes = [], []

    def const(name, a):
        inits.append(numpy_helper.from_array(np.asarray(a, dtype=np.float32), name))
        return name

    def quant(x, out, scale, bits, signed, narrow):
        k = len(nodes)
        params = [const("qscale%d" % k, scale), const("qzero%d" % k, zero_point),
                  const("qbits%d" % k, bits)]
        nodes.append(helper.make_node("Quant", [x] + params, [out], domain=QONNX_DOMAIN,
                                      name="Quant_" + out, signed=signed, narrow=narrow,
                                      rounding_mode="ROUND"))
        return out

    def node(op, ins, out, **attrs):
        nodes.append(helper.make_node(op, ins, [out], name=op + "_" + out, **attrs))
        return out

    x = quant("x", "q0", 2.0 ** -5, 8, 1, 0)
    w = quant(const("w1", rng.normal(0, 0.3, (8, 3, 3, 3))), "w1q",
              2.0 ** -rng.integers(2, 5, (8, 1, 1, 1)), 4, 1, 1)
    b = quant(const("b1", rng.normal(0, 1, 8)), "b1q", 2.0 ** -10, 16, 1, 0)
    x = node("Conv", [x, w, b], "c1", pads=[1, 1, 1, 1])
    x = quant(x, "a1", 2.0 ** -3, 4, 0, 0)
    w = quant(const("w2", rng.normal(0, 0.4, (8, 1, 3, 3))), "w2q",
              2.0 ** -rng.integers(4, 7, (8, 1, 1, 1)), 8, 1, 1)
    x = node("Conv", [x, w], "c2", group=8, strides=[2, 2], pads=[1, 1, 0, 0])
    x = quant(x, "a2", 2.0 ** -4, 8, 1, 1)
    x = node("Relu", [x], "r2")
    x = node("MaxPool", [x], "m2", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
             ceil_mode=1)
    x = quant(x, "a3", 2.0 ** -2, 3, 0, 1)
    x = node("GlobalAveragePool", [x], "g")
    x = node("Flatten", [x], "f", axis=1)
    x = quant(x, "a4", 2.0 ** -6, 8, 1, 0)
    w = quant(const("w3", rng.normal(0, 0.5, (10, 8))), "w3q",
              2.0 ** -rng.integers(2, 4, (10, 1)), 6, 1, 1)
    b = quant(const("b3", rng.normal(0, 0.2, 10)), "b3q", 2.0 ** -12, 32, 1, 0)
    x = node("Gemm", [x, w, b], "y0", transB=1)
    quant(x, "y", 2.0 ** -4, 8, 1, 0)
    TP = onnx.TensorProto
    g = helper.make_graph(nodes, "synthetic",
                          [helper.make_tensor_value_info("x", TP.FLOAT, [1, 3, 15, 16])],
                          [helper.make_tensor_value_info("y", TP.FLOAT, [1, 10])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                            helper.make_opsetid(QONNX_DOMAIN, 1)])
    m.ir_version = 7
    onnx.save(m, path)


def first_quant(m):
    """(scale, lo, hi) of the Quant applied to the graph input, or None."""
    inp = m.inputs[0].name
    for n in m.nodes:
        if n.op_type == "Quant" and n.input and n.input[0] == inp:
            a = qonnx_ref.attributes(n)
            scale = float(np.asarray(m.consts[n.input[1]]).reshape(-1)[0])
            bits = qonnx_ref.bit_width(m.consts[n.input[3]])
            lo, hi = qonnx_ref.int_range(bits, int(a.get("signed", 1)), int(a.get("narrow", 0)))
            return scale, lo, hi
    return None


def make_inputs(m, name, frames):
    dims = [d.dim_value for d in m.inputs[0].type.tensor_type.shape.dim]
    shape = [frames] + dims[1:]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    fq = first_quant(m)
    if fq is None:
        return rng.uniform(-1.0, 1.0, shape).astype(np.float32)
    s, lo, hi = fq
    margin = 0.25 * (hi - lo) * s
    x = rng.uniform(lo * s - margin, hi * s + margin, shape)
    u = rng.random(shape)
    k = rng.integers(lo, hi + 1, shape)
    x = np.where(u < 0.15, (k + 0.5) * s, x)
    x = np.where((u >= 0.15) & (u < 0.25), k * s, x)
    return x.astype(np.float32)


def activation_quants(m):
    """Outputs of the Quant nodes on activations, in graph order."""
    return [n.output[0] for n in m.nodes
            if n.op_type == "Quant" and n.input[0] not in m.consts]


def pick_probes(m):
    names = activation_quants(m)[:-1]  # the last one is the graph output
    if not names:
        return []
    idx = sorted({int(round(i * (len(names) - 1) / (N_PROBES - 1))) for i in range(N_PROBES)})
    return [names[i] for i in idx]


def with_outputs(src, dst, names):
    """Copies model src to dst with the tensors names as extra graph outputs (float)."""
    model = onnx.load(src)
    have = {o.name for o in model.graph.output}
    for n in names:
        if n not in have:
            model.graph.output.append(helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT,
                                                                    None))
    onnx.save(model, dst)


def as_written(ref, got):
    """The reference in the element type cnnmap wrote (it may write intermediate tensors
    as float64); a float32 cast must be exact for quantised tensors."""
    if got is not None and got.dtype == np.float64:
        return ref.astype(np.float64)
    return ref.astype(np.float32)


def locate(cnnmap, model_path, x1, workdir, tag):
    """Finds the first quantiser output where cnnmap differs from the reference on the
    frame x1 (shape [1, ...]), by bisection over the activation quantiser outputs."""
    m = qonnx_ref.load(model_path)
    names = activation_quants(m)
    refs = dict(zip(names, qonnx_ref.run_tensors(model_path, x1, names)))
    xp = rc.save(os.path.join(workdir, "%s_locate_x.npy" % tag), x1)
    cache = {}

    def differs(i):
        if i not in cache:
            name = names[i]
            yp = os.path.join(workdir, "%s_locate_y.npy" % tag)
            try:
                got, _ = rc.run_cnnmap(cnnmap, model_path, xp, yp, output=name)
            except rc.ToolError as e:
                cache[i] = (True, "cnnmap failed: %s" % str(e).splitlines()[0])
                return cache[i]
            ref = as_written(refs[name], got)
            eq, d, note = rc.exact(got, ref)
            cache[i] = (not eq, "max|d| %g; %s" % (d, note))
        return cache[i]

    lo, hi = 0, len(names) - 1
    if not differs(hi)[0]:
        return "the quantiser outputs agree on that frame (the difference is elsewhere)"
    while lo < hi:
        mid = (lo + hi) // 2
        if differs(mid)[0]:
            hi = mid
        else:
            lo = mid + 1
    node = next(n for n in m.nodes if names[lo] in n.output)
    # The float op feeding that quantiser is the likely culprit.
    prod = {o: n for n in m.nodes for o in n.output}
    src = prod.get(node.input[0])
    return ("first differing quantiser output %s (node %s; its input comes from %s %s): %s"
            % (names[lo], node.name, src.op_type if src else "the graph input",
               src.name if src else "", differs(lo)[1]))


def check_json(args, name, path, x, res):
    """`cnnmap run --json` (cli.md): one JSON object on stdout with the model, the shapes,
    time_s and the SHA-256 of the output's .npy bytes (those of the file written)."""
    import hashlib
    import json
    xp = rc.save(os.path.join(args.outdir, name + "_json_x.npy"), x)
    yp = os.path.join(args.outdir, name + "_json_y.npy")
    p = subprocess.run([args.cnnmap, "run", path, "--input", xp, "-o", yp, "--json", "--quiet"],
                       capture_output=True, text=True, timeout=600)
    problems = []
    try:
        d = json.loads(p.stdout)
        with open(yp, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        y = np.load(yp)
        if p.returncode != 0:
            problems.append("exit status %d" % p.returncode)
        for key in ("model", "input_shape", "output_shape", "time_s", "output_sha256"):
            if key not in d:
                problems.append("no key %s" % key)
        if d.get("input_shape") != list(x.shape):
            problems.append("input_shape %s, want %s" % (d.get("input_shape"), list(x.shape)))
        if d.get("output_shape") != list(y.shape):
            problems.append("output_shape %s, file has %s" % (d.get("output_shape"), list(y.shape)))
        if d.get("output_sha256") != digest:
            problems.append("output_sha256 %s, file hashes to %s"
                            % (d.get("output_sha256"), digest))
    except (ValueError, OSError) as e:
        problems.append("%s (stdout %r, stderr %r)" % (e, p.stdout[:200], p.stderr[:200]))
    res.record(not problems, "%-22s %3d frames  %-34s %s" % (
        name, x.shape[0], "cnnmap run --json", "ok" if not problems else
        "FAIL " + "; ".join(problems)))


def check_model(args, name, path, res, ort_ok):
    m = qonnx_ref.load(path)
    frames = next(q if args.quick else f for n, f, q in MODELS if n == name)
    if args.frames:
        frames = args.frames
    t_model = time.monotonic()
    work = args.outdir
    x = make_inputs(m, name, frames)
    xp = rc.save(os.path.join(work, name + "_x.npy"), x)
    parts = rc.batches(frames)
    batch_desc = "+".join(str(c) for _, c in parts)
    prefix = "%-22s %3d frames" % (name, frames)
    worst = 0.0
    all_equal = True

    t0 = time.monotonic()
    probes = pick_probes(m)
    ref_all = qonnx_ref.run_tensors(path, x, [m.outputs[0].name] + probes)
    ref, ref_probes = ref_all[0], ref_all[1:]
    t_ref = time.monotonic() - t0

    def outcome(label, ok, d, note, extra=""):
        nonlocal worst, all_equal
        worst = max(worst, d)
        all_equal = all_equal and ok
        res.record(ok, "%s  %-34s equal %-3s max|diff| %-8g %s%s"
                   % (prefix, label, "yes" if ok else "NO", d, extra,
                      ("  [" + note + "]") if note else ""))

    # The QCDQ rewrite.
    qcdq = os.path.join(work, name + "_qcdq.onnx")
    rc_ = make_qcdq.main(["make_qcdq.py", path, qcdq])
    if rc_ != 0:
        outcome("make_qcdq", False, float("inf"), "make_qcdq.py failed")
        return

    # The oracles against each other, on the output and the probes.
    t_ort = None
    if ort_ok:
        probe_model = os.path.join(work, name + "_qcdq_probes.onnx")
        with_outputs(qcdq, probe_model, probes)
        try:
            outs, t_ort = rc.run_ort(probe_model, xp, os.path.join(work, name + "_ort"),
                                     outputs=[m.outputs[0].name] + probes)
            ort, ort_probes = outs[0], outs[1:]
            eq, d, note = rc.exact(ort, ref)
            peq = [rc.exact(o, r.astype(np.float32))[0] for o, r in zip(ort_probes, ref_probes)]
            outcome("ORT(qcdq) vs qonnx_ref [oracles]", eq and all(peq), d, note,
                    "probes %d/%d equal" % (sum(peq), len(peq)))
        except rc.ToolError as e:
            ort = None
            outcome("ORT(qcdq) vs qonnx_ref [oracles]", False, float("inf"),
                    str(e).splitlines()[0])
    else:
        ort = None

    if args.oracles_only:
        log("== %s: %d frames, ORT %.2f s, qonnx_ref %.2f s, max abs diff %g, equal %s"
            % (name, frames, t_ort or 0.0, t_ref, worst, "yes" if all_equal else "NO"))
        return

    # cnnmap on the QONNX model and on its QCDQ form, batch by batch.
    def cnnmap_all(model_path, tag):
        outs, secs = [], 0.0
        for start, count in parts:
            bx = rc.save(os.path.join(work, "%s_%s_x%d.npy" % (name, tag, start)),
                         x[start:start + count])
            by = os.path.join(work, "%s_%s_y%d.npy" % (name, tag, start))
            y, dt = rc.run_cnnmap(args.cnnmap, model_path, bx, by)
            outs.append(y)
            secs += dt
        return np.concatenate(outs, axis=0), secs

    t_cnnmap = 0.0
    for tag, model_path in (("qonnx", path), ("qcdq", qcdq)):
        try:
            got, dt = cnnmap_all(model_path, tag)
            t_cnnmap += dt
        except rc.ToolError as e:
            outcome("cnnmap(%s)" % tag, False, float("inf"), str(e).strip().replace("\n", " | "))
            continue
        eq, d, note = rc.exact(got, ref)
        if not eq and tag == "qonnx":
            # Where does it start? On the first differing frame.
            f = int(np.argwhere(got != ref)[0][0]) if got.shape == ref.shape else 0
            note += "; " + locate(args.cnnmap, path, x[f:f + 1], work, name)
        outcome("cnnmap(%s) vs qonnx_ref" % tag, eq, d, note,
                "batches %s" % batch_desc)
        if tag == "qcdq" and ort is not None:
            eq, d, note = rc.exact(got, ort)
            outcome("cnnmap(qcdq) vs ORT(qcdq)", eq, d, note)

    # Probes: intermediate quantiser outputs on the first frames.
    npf = min(1 if args.quick else 2, frames)
    px = rc.save(os.path.join(work, name + "_probe_x.npy"), x[:npf])
    # (--quick: the QONNX model only; each probe is a whole run of the network.)
    probed = (("qonnx", path),) if args.quick else (("qonnx", path), ("qcdq", qcdq))
    for tag, model_path in probed:
        ok_all, worst_p, notes = True, 0.0, []
        for pname, pref in zip(probes, ref_probes):
            try:
                got, dt = rc.run_cnnmap(args.cnnmap, model_path, px,
                                        os.path.join(work, name + "_probe_y.npy"), output=pname)
                t_cnnmap += dt
            except rc.ToolError as e:
                ok_all = False
                notes.append("%s: %s" % (pname, str(e).splitlines()[0]))
                continue
            eq, d, note = rc.exact(got, as_written(pref[:npf], got))
            worst_p = max(worst_p, d)
            if not eq:
                ok_all = False
                notes.append("%s: %s" % (pname, note))
        outcome("cnnmap(%s) probes vs qonnx_ref" % tag, ok_all, worst_p, "; ".join(notes),
                "%d tensors x %d frames" % (len(probes), npf))

    if name == MODELS[1][0]:
        check_json(args, name, path, x[:3], res)

    log("== %s: %d frames (batches %s), max abs diff %g, equal %s; cnnmap %.2f s, "
        "ORT %.2f s, qonnx_ref %.2f s, total %.1f s"
        % (name, frames, batch_desc, worst, "yes" if all_equal else "NO", t_cnnmap,
           t_ort or 0.0, t_ref, time.monotonic() - t_model))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cnnmap", help="the cnnmap binary")
    ap.add_argument("outdir", help="where inputs, outputs and QCDQ models are written")
    ap.add_argument("--quick", action="store_true",
                    help="10 frames per model, 2 for MobileNetV2 (sanitizer builds)")
    ap.add_argument("--frames", type=int, help="frames per model (overrides)")
    ap.add_argument("--models", help="comma-separated subset of the models")
    ap.add_argument("--oracles-only", action="store_true",
                    help="compare only qonnx_ref with ORT (no cnnmap)")
    args = ap.parse_args(argv[1:])
    args.cnnmap = os.path.abspath(args.cnnmap)
    args.outdir = os.path.abspath(args.outdir)
    os.makedirs(args.outdir, exist_ok=True)

    shared_models = os.path.join(rc.shared_dir(), "models")
    names = [n for n, _, _ in MODELS]
    if args.models:
        names = args.models.split(",")
        unknown = [n for n in names if n not in {m[0] for m in MODELS}]
        if unknown:
            ap.error("unknown models: %s" % ", ".join(unknown))
    paths = {n: os.path.join(shared_models, n + ".onnx") for n in names}
    paths[SYNTHETIC] = os.path.join(args.outdir, SYNTHETIC + "_qonnx.onnx")
    res = rc.Results()
    version = rc.ort_version()
    if version is None:
        msg = "ONNX Runtime (onnxruntime-node) not found: run scripts/deps.sh"
        if rc.in_ci():
            res.record(False, "check_qonnx: " + msg + " (CI=true: failing)")
        else:
            log("check_qonnx: " + msg + "; skipping the ORT comparisons")
    else:
        log("check_qonnx: %s, qonnx_ref (numpy %s), %s" % (version, np.__version__,
                                                          "quick" if args.quick else "full"))
    missing = [n for n in names if n != SYNTHETIC and not os.path.exists(paths[n])]
    if missing:
        msg = "check_qonnx: shared models missing in %s: %s" % (shared_models, ", ".join(missing))
        if rc.in_ci():
            res.record(False, msg + " (CI=true: failing)")
        else:
            log(msg + "; skipping them (set CM_SHARED_DIR)")
        names = [n for n in names if n not in missing]
    if SYNTHETIC in names:
        synthetic_model(paths[SYNTHETIC])
        # make_qcdq.py must refuse what it cannot express.
        bad = os.path.join(args.outdir, SYNTHETIC + "_zero_point.onnx")
        synthetic_model(bad, zero_point=0.5)
        p = subprocess.run([sys.executable, os.path.join(rc.HERE, "make_qcdq.py"), bad,
                            bad + ".qcdq"], capture_output=True, text=True)
        ok = p.returncode == 2 and "zero point" in p.stderr
        res.record(ok, "%-22s %-45s %s" % (SYNTHETIC, "make_qcdq refuses zero point 0.5",
                                          "ok" if ok else "FAIL (%d: %s)"
                                          % (p.returncode, p.stderr.strip())))
    if not args.oracles_only and not os.access(args.cnnmap, os.X_OK):
        res.record(False, "check_qonnx: %s is not an executable" % args.cnnmap)
    else:
        t0 = time.monotonic()
        for name in names:
            try:
                check_model(args, name, paths[name], res, version is not None)
            except (qonnx_ref.RefError, rc.ToolError, OSError) as e:
                res.record(False, "%s: %s" % (name, e))
        log("check_qonnx: %.1f s" % (time.monotonic() - t0))
    log("%d passed, %d failed" % (res.passed, res.failed))
    if res.failed:
        return 1
    return rc.SKIP if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
