#!/usr/bin/python3
"""Export every torchvision 0.14 network at opsets 11, 13 and 17, without weight bytes.

Usage: /usr/bin/python3 export_sweep.py OUTDIR [--only NAME ...] [--jobs N] [--threads N] [--list]

The networks: every classification builder of torchvision.models (found by
enumerating the module's builder functions, so a new torchvision adds its
models here), the segmentation models (their "out" tensor; backbone weights
None, no auxiliary head) and the detection models, each exported twice: the
whole model as NAME (backbone, heads and the post-processing torch writes:
anchors, box decoding, TopK, NonMaxSuppression, RoiAlign...) and its backbone
(with the FPN or SSD extra layers) as NAME__backbone. A detection model's
input transform (normalisation, resizing, padding into a batch) is
pre-processing and left out: its graph input is a prepared image batch.

For every network NAME and opset N this writes into OUTDIR
  NAME_opN_noweights.onnx  the model as export_torchvision.py's helpers
                           leave it: every initializer of >= 1024 bytes as
                           external data whose file does not exist, so the
                           file holds the graph and shapes only (written
                           without the weights ever being serialised; see
                           weights_left_out and check_same)
and it (re)writes
  OUTDIR/manifest.txt      one line per network and opset:
                           "NAME OPSET KIND ok" or "NAME OPSET KIND
                           export-failed MESSAGE" when torch.onnx.export
                           itself cannot write the network at that opset;
                           KIND is classification, segmentation, detection
                           or backbone
  OUTDIR/macs.txt          "NAME MACS PARAMS": nn.Conv2d and nn.Linear
                           multiply-accumulates counted by forward hooks
                           (export_torchvision.count_macs), batch 1

Nothing is downloaded (weights=None, weights_backbone=None); weights are random
(torch.manual_seed(0)), models are in eval mode; each network is built once
and exported three times, --jobs networks at once (default: one per core).
Like export_torchvision.py the script is idempotent: what exists and is newer
than both scripts is not redone, nor is an export torch failed.

Needs Debian's python3-torch (1.13), python3-torchvision (0.14) and
python3-onnx, hence /usr/bin/python3.
"""

import argparse
import contextlib
import gc
import inspect
import io
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_torchvision as tv  # noqa: E402  (the shared export helpers)

OPSETS = (11, 13, 17)
SCRIPT_MTIME = max(os.path.getmtime(os.path.abspath(__file__)), tv.SCRIPT_MTIME)

# Input H = W per network; 224 unless the network needs another size.
SIZES = {"inception_v3": 299, "ssd300_vgg16": 300, "ssdlite320_mobilenet_v3_large": 320}
SEGMENTATION = ["fcn_resnet50", "fcn_resnet101", "deeplabv3_resnet50", "deeplabv3_resnet101",
                "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"]
DETECTION = ["fasterrcnn_resnet50_fpn", "fasterrcnn_resnet50_fpn_v2",
             "fasterrcnn_mobilenet_v3_large_fpn", "fasterrcnn_mobilenet_v3_large_320_fpn",
             "retinanet_resnet50_fpn", "retinanet_resnet50_fpn_v2", "fcos_resnet50_fpn",
             "ssd300_vgg16", "ssdlite320_mobilenet_v3_large", "maskrcnn_resnet50_fpn",
             "maskrcnn_resnet50_fpn_v2", "keypointrcnn_resnet50_fpn"]
BACKBONE = "__backbone"


def classification_names():
    """torchvision.models' builders: lowercase functions taking `weights`."""
    import torchvision.models as tvm
    names = []
    for name, fn in inspect.getmembers(tvm, inspect.isfunction):
        if name.startswith("_") or name.startswith("get_") or fn.__module__ is None:
            continue
        if fn.__module__.startswith("torchvision.models.") and \
                "weights" in inspect.signature(fn).parameters:
            names.append(name)
    return sorted(names)


def networks():
    """(name, kind) of every network, classification first."""
    nets = [(n, "classification") for n in classification_names()]
    nets += [(n, "segmentation") for n in SEGMENTATION]
    for n in DETECTION:
        nets += [(n + BACKBONE, "backbone"), (n, "detection")]
    return nets


def up_to_date(path):
    try:
        return os.path.getmtime(path) > SCRIPT_MTIME
    except OSError:
        return False


def _wrappers():
    """Modules giving segmentation and backbone networks one tensor input."""
    nn = tv.nn

    class SegmentationOut(nn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x):
            return self.net(x)["out"]

    class Features(nn.Module):
        """A detection backbone's feature maps as a tuple (FPN levels in order)."""
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x):
            return tuple(self.net(x).values())

    class Prepared(nn.Module):
        """Stands in for a detection model's transform (normalisation, resizing and
        padding into a batch: pre-processing), so the graph's input is the network's,
        a batch of one prepared image, and what follows the heads is post-processing."""
        def __init__(self, size):
            super().__init__()
            self.size = size

        def forward(self, images, targets=None):
            from torchvision.models.detection.image_list import ImageList
            return ImageList(images, [(self.size, self.size)] * images.shape[0]), targets

        def postprocess(self, result, image_shapes, original_image_sizes):
            return result

    return SegmentationOut, Features, Prepared


def build(name, kind):
    torch = tv.torch
    torch.manual_seed(0)
    SegmentationOut, Features, Prepared = _wrappers()
    if kind == "classification":
        kwargs = {"aux_logits": False, "init_weights": False} \
            if name in ("googlenet", "inception_v3") else {}
        model = getattr(tv.tvm, name)(weights=None, **kwargs)
    elif kind == "segmentation":
        import torchvision.models.segmentation as seg
        model = SegmentationOut(getattr(seg, name)(weights=None, weights_backbone=None))
    else:
        import torchvision.models.detection as det
        full = getattr(det, name.replace(BACKBONE, ""))(weights=None, weights_backbone=None)
        full.transform = Prepared(size_of(name))
        model = Features(full.backbone) if kind == "backbone" else full
    model.eval()
    return model


def size_of(name):
    return SIZES.get(name.replace(BACKBONE, ""), 224)


def example(name):
    size = size_of(name)
    return tv.torch.randn(1, 3, size, size, generator=tv.torch.Generator().manual_seed(0))


# export_torchvision.export_noweights' threshold: smaller initializers keep their bytes.
LIMIT = 1024


def _small(params):
    return {k: v for k, v in params.items()
            if not isinstance(v, tv.torch.Tensor) or v.numel() * v.element_size() < LIMIT}


@contextlib.contextmanager
def weights_left_out():
    """torch.onnx.export without the bytes of initializers of LIMIT bytes or more:
    its shape inference passes and its writer see only the small ones (the others
    stay graph inputs, whose types they know), while constant folding and the
    removal of duplicates see them all. Writing and checking the weights is most
    of an export's time (alexnet: 23 s of CPU, 1.7 s without); check_same shows
    the result is the file export_torchvision's helpers make."""
    C = tv.torch._C
    shape_passes = ("_jit_pass_onnx_graph_shape_type_inference",
                    "_jit_pass_onnx_node_shape_type_inference")
    saved = {n: getattr(C, n) for n in shape_passes + ("_jit_pass_onnx_deduplicate_initializers",)}

    def shape_pass(original):
        return lambda what, params, opset: original(what, _small(params), opset)

    def dedup(graph, params, training):
        return _small(saved["_jit_pass_onnx_deduplicate_initializers"](graph, params, training))

    try:
        for n in shape_passes:
            setattr(C, n, shape_pass(saved[n]))
        C._jit_pass_onnx_deduplicate_initializers = dedup
        yield
    finally:
        for n, fn in saved.items():
            setattr(C, n, fn)


def externalise(proto, location):
    """Graph inputs other than "input" (the weights left out) become initializers
    with external data in LOCATION, which does not exist."""
    onnx = tv.onnx
    g = proto.graph
    moved = [vi for vi in g.input if vi.name != "input"]
    offset = 0
    for vi in moved:
        tt = vi.type.tensor_type
        t = onnx.TensorProto(name=vi.name, data_type=tt.elem_type,
                             dims=[d.dim_value for d in tt.shape.dim])
        length = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[tt.elem_type].itemsize
        for d in t.dims:
            length *= d
        t.data_location = onnx.TensorProto.EXTERNAL
        for key, value in (("location", location), ("offset", str(offset)),
                           ("length", str(length))):
            t.external_data.add(key=key, value=value)
        offset += length
        g.initializer.append(t)
    for vi in moved:
        g.input.remove(vi)


def export_bare(model, x, path, opset):
    """PATH (NAME_opN_noweights.onnx): the model as export_torchvision's
    export_inline and export_noweights would leave it, without writing weights.
    Gradients stay enabled while tracing: under no_grad nn.MultiheadAttention
    takes a fused path torch cannot export."""
    buf = io.BytesIO()
    with weights_left_out():
        tv.torch.onnx.export(model, x, buf, export_params=True, opset_version=opset,
                             do_constant_folding=True, input_names=["input"],
                             output_names=["output"])
    proto = tv.onnx.load_model_from_string(buf.getvalue())
    tv.onnx.checker.check_model(proto)
    externalise(proto, os.path.basename(path)[:-len(".onnx")] + ".data")
    tmp = tv.atomic_path(path)
    try:
        tv.onnx.save(proto, tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def graph_of(path):
    g = tv.onnx.load(path, load_external_data=False).graph
    inits = sorted((t.name, tuple(t.dims), t.data_type, t.raw_data, t.data_location)
                   for t in g.initializer)
    return list(g.node), list(g.input), list(g.output), inits, list(g.value_info)


def check_same(outdir):
    """export_bare and export_torchvision's helpers give the same graph (nodes,
    inputs, outputs, initializers with their shapes and small ones' bytes, value
    infos) on a ResNet-18 at opset 11 (batch norms folded into convolutions), or
    this generator stops: a torch without the passes it relies on."""
    tmpdir = tempfile.mkdtemp(prefix=".sweep-", dir=outdir)
    try:
        model, x = build("resnet18", "classification"), example("resnet18")
        export_bare(model, x, os.path.join(tmpdir, "fast.onnx"), 11)
        tv.export_inline(model, x, os.path.join(tmpdir, "slow.onnx"), 11, False, True)
        tv.export_noweights("slow", tmpdir)
        if graph_of(os.path.join(tmpdir, "fast.onnx")) != \
                graph_of(os.path.join(tmpdir, "slow_noweights.onnx")):
            raise SystemExit("export_sweep.py: export without weights differs from "
                             "export_torchvision.py's on resnet18")
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def first_line(exc):
    text = ("%s: %s" % (type(exc).__name__, exc)).strip()
    return " ".join(text.splitlines()[0].split())[:300]


def todo_of(name, outdir, status):
    """The opsets whose files are missing or older than the scripts; an opset torch
    could not export is not tried again (by this version of the scripts)."""
    return [op for op in OPSETS
            if not (status.get((name, op), "").startswith("export-failed")
                    or up_to_date(os.path.join(outdir, "%s_op%d_noweights.onnx" % (name, op))))]


def export_network(job):
    """Builds one network, counts its MACs if asked, exports the opsets asked (in a
    worker process when --jobs > 1); returns what it found and did."""
    name, kind, outdir, todo, need_macs, threads = job
    warnings.filterwarnings("ignore")
    t0 = time.monotonic()
    tv._imports()
    tv.torch.set_num_threads(threads)
    model, x = build(name, kind), example(name)
    macs, did, statuses = None, [], {}
    if need_macs:
        macs = [str(v) for v in tv.count_macs(model, x)]
        did.append("macs")
    for op in todo:
        try:
            export_bare(model, x, os.path.join(outdir, "%s_op%d_noweights.onnx" % (name, op)), op)
            statuses[op] = "ok"
            did.append("op%d" % op)
        except Exception as exc:  # torch.onnx.export cannot write it: recorded
            statuses[op] = "export-failed " + first_line(exc)
            did.append("op%d failed" % op)
    del model, x
    gc.collect()
    return name, statuses, macs, did, time.monotonic() - t0


def remove_stale_tmpdirs(outdir):
    """check_same's directories that a killed run (a timeout) left, with a
    ResNet-18's weights; an hour old, so another build's running generator keeps
    its own."""
    for entry in os.listdir(outdir):
        path = os.path.join(outdir, entry)
        if entry.startswith(".sweep-") and time.time() - os.path.getmtime(path) > 3600:
            shutil.rmtree(path, ignore_errors=True)


def read_manifest(path):
    """{(name, opset): status} of an up-to-date manifest, else {}."""
    status = {}
    if up_to_date(path):
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split(" ", 3)
                if len(parts) == 4:
                    status[(parts[0], int(parts[1]))] = parts[3]
    return status


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="export only these networks")
    ap.add_argument("--list", action="store_true", help="print the networks and exit")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="networks exported at once, each by its own process (default: "
                         "one per core)")
    # torch's threads spin while they wait for each other, so beside other work two
    # are slower than one (regnet_y_400mf with both cores busy: 12 s with two, 5 s
    # with one) and alone they gain nothing here (swin_t: 37 s with two, 35 s with one).
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads per network (default: 1)")
    args = ap.parse_args()
    if args.jobs < 1 or args.threads < 1:
        ap.error("--jobs and --threads must be at least 1")
    nets = networks()
    if args.list:
        print("\n".join("%s %s" % n for n in nets))
        return 0
    # torch's tracer warns about every data-dependent step of the detection models.
    warnings.filterwarnings("ignore")
    outdir = os.path.abspath(args.outdir)
    os.makedirs(outdir, exist_ok=True)
    kinds = dict(nets)
    names = args.only or [n for n, _ in nets]
    unknown = [n for n in names if n not in kinds]
    if unknown:
        ap.error("unknown network: " + " ".join(unknown))

    remove_stale_tmpdirs(outdir)
    manifest_path = os.path.join(outdir, "manifest.txt")
    macs_path = os.path.join(outdir, "macs.txt")
    status = read_manifest(manifest_path)
    macs_table = tv.read_table(macs_path, 3) if up_to_date(macs_path) else {}

    jobs = []
    for name in names:
        todo = todo_of(name, outdir, status)
        if todo or name not in macs_table:
            jobs.append((name, kinds[name], outdir, todo, name not in macs_table,
                         args.threads))
        else:
            print("%-44s %-14s up to date" % (name, kinds[name]))
    if not jobs:
        return 0
    t_all = time.monotonic()
    tv._imports()
    check_same(outdir)
    if args.jobs > 1:
        # spawn: a forked torch (its thread pools) may hang.
        pool = multiprocessing.get_context("spawn").Pool(args.jobs, maxtasksperchild=1)
        results = pool.imap_unordered(export_network, jobs)
    else:
        pool, results = None, map(export_network, jobs)
    for name, statuses, macs, did, seconds in results:
        status.update({(name, op): st for op, st in statuses.items()})
        if macs:
            macs_table[name] = macs
        print("%-44s %-14s %6.1fs  %s" % (name, kinds[name], seconds, ",".join(did)), flush=True)
        # Written after every network, so an interrupted run keeps its work.
        write_tables(outdir, nets, status, macs_table)
    if pool:
        pool.close()
        pool.join()
    print("total %.1fs" % (time.monotonic() - t_all))
    return 0


def write_tables(outdir, nets, status, macs_table):
    manifest, macs_lines = [], []
    for name, kind in nets:
        for op in OPSETS:
            st = status.get((name, op))
            if st is None and up_to_date(os.path.join(outdir, "%s_op%d_noweights.onnx" % (name, op))):
                st = "ok"
            if st is not None:
                manifest.append("%s %d %s %s" % (name, op, kind, st))
        if name in macs_table:
            macs_lines.append("%s %s %s" % (name, *macs_table[name]))
    tv.write_atomic(os.path.join(outdir, "manifest.txt"), manifest)
    tv.write_atomic(os.path.join(outdir, "macs.txt"), macs_lines)


if __name__ == "__main__":
    sys.exit(main())
