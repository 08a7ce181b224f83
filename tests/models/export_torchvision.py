#!/usr/bin/python3
"""Export torchvision classification models to ONNX for cnnmap's model tests.

Usage: /usr/bin/python3 export_torchvision.py OUTDIR [--only NAME ...]

For every model NAME this writes into OUTDIR:
  NAME.onnx            the model with all weights inline
  NAME_noweights.onnx  the same model with every initializer of >= 1024 bytes
                       stored as external data in NAME_noweights.data, which
                       is then deleted: those tensors keep their dims and data
                       type but have no bytes (external data whose file is
                       absent)
and it (re)writes
  OUTDIR/manifest.txt  one line per file: "filename opset dynamic_batch(0/1)"
  OUTDIR/macs.txt      one line per model: "NAME MACS PARAMS", where MACS are
                       the multiply-accumulates of nn.Conv2d and nn.Linear
                       modules counted by forward hooks (batch 1) and PARAMS
                       the number of their weights and biases, for checking
                       the C implementation against an independent count.

Weights are random (torch.manual_seed(0) before each model is built; nothing
is downloaded), models are in eval mode, so the files are reproducible.

The script is idempotent: a file that exists and is newer than this script is
not written again, and a model whose files are all up to date and whose
MACs are already in an up-to-date macs.txt is not even built.

Needs Debian's python3-torch (1.13), python3-torchvision (0.14) and
python3-onnx, hence /usr/bin/python3.
"""

import argparse
import gc
import os
import sys
import tempfile
import time

# torch, torchvision and onnx are imported only when something has to be
# written (see _imports), so an up-to-date OUTDIR is checked in a blink.
onnx = torch = nn = tvm = None


def _imports():
    global onnx, torch, nn, tvm
    if torch is None:
        import onnx as _onnx
        import torch as _torch
        import torchvision.models as _tvm
        onnx, torch, nn, tvm = _onnx, _torch, _torch.nn, _tvm
        torch.set_num_threads(max(1, os.cpu_count() or 1))


# name, constructor keyword arguments, input H=W, opset, dynamic batch,
# do_constant_folding.  Every opset from 11 to 17 is used at least once,
# 5 of the first 10 models have a dynamic batch dimension and 3 are exported
# without constant folding.
MODELS = [
    ("resnet18",        {},                                           224, 11, True,  True),
    ("resnet50",        {},                                           224, 12, False, False),
    ("mobilenet_v2",    {},                                           224, 13, True,  True),
    ("vgg16",           {},                                           224, 14, False, True),
    ("alexnet",         {},                                           224, 15, True,  True),
    ("squeezenet1_1",   {},                                           224, 16, False, True),
    ("googlenet",       {"aux_logits": False, "init_weights": False}, 224, 17, True,  False),
    ("inception_v3",    {"aux_logits": False, "init_weights": False}, 299, 13, False, True),
    ("densenet121",     {},                                           224, 14, True,  True),
    ("efficientnet_b0", {},                                           224, 17, False, False),
    # Squeeze-and-excitation blocks and hardswish; issue 17's matrix holds it
    ("mobilenet_v3_small", {},                                        224, 13, False, True),
    # ConvNeXt's blocks: permute, LayerNormalization (opset 17), Linear, GELU (Erf),
    # Linear, permute; about 15 s to export.
    ("convnext_tiny",   {},                                           224, 17, False, True),
    # A segmentation head with bilinear Resize (the backbone without weights either);
    # opset 11 writes the Resize with empty roi and scales and computed sizes.
    ("lraspp_mobilenet_v3_large", {"weights_backbone": None},         224, 11, False, True),
    # ShuffleNetV2: torch writes x.chunk(2, dim=1) as two Slices and the channel
    # shuffle as Reshape to 5 axes, Transpose, Reshape; about 4 s each to export.
    ("shufflenet_v2_x0_5", {},                                        224, 11, True,  True),
    ("shufflenet_v2_x1_0", {},                                        224, 17, False, False),
]
# Segmentation models return a dict; the test files hold its "out" tensor.
SEGMENTATION = {"lraspp_mobilenet_v3_large"}
BY_NAME = {m[0]: m for m in MODELS}

SCRIPT = os.path.abspath(__file__)
SCRIPT_MTIME = os.path.getmtime(SCRIPT)


def up_to_date(path):
    """True if path exists and is newer than this script."""
    try:
        return os.path.getmtime(path) > SCRIPT_MTIME
    except OSError:
        return False


def atomic_path(final):
    """A temporary file name next to final (same directory, so rename works)."""
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(final) + ".",
                               suffix=".tmp", dir=os.path.dirname(final))
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; use normal modes
    return tmp


def build(name):
    _, kwargs, _, _, _, _ = BY_NAME[name]
    torch.manual_seed(0)
    if name in SEGMENTATION:
        import torchvision.models.segmentation as seg

        class Out(nn.Module):
            def __init__(self, net):
                super().__init__()
                self.net = net

            def forward(self, x):
                return self.net(x)["out"]

        model = Out(getattr(seg, name)(weights=None, **kwargs))
    else:
        model = getattr(tvm, name)(weights=None, **kwargs)
    model.eval()
    return model


def count_macs(model, x):
    """Conv2d/Linear MACs and parameters, counted by forward hooks."""
    macs = 0
    params = 0
    handles = []

    def conv_hook(mod, inp, out):
        nonlocal macs
        kh, kw = mod.kernel_size
        macs += out.numel() * (mod.in_channels // mod.groups) * kh * kw

    def linear_hook(mod, inp, out):
        nonlocal macs
        macs += (out.numel() // mod.out_features) * mod.in_features * mod.out_features

    for mod in model.modules():
        if isinstance(mod, nn.Conv2d):
            handles.append(mod.register_forward_hook(conv_hook))
        elif isinstance(mod, nn.Linear):
            handles.append(mod.register_forward_hook(linear_hook))
        else:
            continue
        params += mod.weight.numel()
        if mod.bias is not None:
            params += mod.bias.numel()
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()
    return macs, params


def export_inline(model, x, path, opset, dynamic, folding):
    tmp = atomic_path(path)
    try:
        with torch.no_grad():
            torch.onnx.export(
                model, x, tmp,
                export_params=True,
                opset_version=opset,
                do_constant_folding=folding,
                input_names=["input"],
                output_names=["output"],
                dynamic_axes=({"input": {0: "batch"}, "output": {0: "batch"}}
                              if dynamic else None),
            )
        proto = onnx.load(tmp)
        onnx.checker.check_model(proto)
        del proto
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def export_noweights(name, outdir):
    """NAME.onnx -> NAME_noweights.onnx with the external data file deleted."""
    src = os.path.join(outdir, name + ".onnx")
    dst = os.path.join(outdir, name + "_noweights.onnx")
    location = name + "_noweights.data"
    data = os.path.join(outdir, location)
    proto = onnx.load(src)
    # onnx.save_model writes the data file next to the model file, so the
    # temporary model must be written in OUTDIR; the data file name is fixed.
    tmp = atomic_path(dst)
    try:
        onnx.save_model(proto, tmp, save_as_external_data=True,
                        all_tensors_to_one_file=True, location=location,
                        size_threshold=1024)
        os.replace(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
        if os.path.exists(data):
            os.remove(data)


def read_table(path, ncols):
    """{first column: rest} from a whitespace table, or {} if absent."""
    table = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == ncols:
                    table[parts[0]] = parts[1:]
    return table


def write_atomic(path, lines):
    tmp = atomic_path(path)
    with open(tmp, "w") as f:
        f.writelines(line + "\n" for line in lines)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--only", nargs="+", metavar="NAME", choices=list(BY_NAME),
                    help="export only these models (default: all)")
    args = ap.parse_args()
    outdir = os.path.abspath(args.outdir)
    os.makedirs(outdir, exist_ok=True)
    names = args.only or [m[0] for m in MODELS]

    macs_path = os.path.join(outdir, "macs.txt")
    # MACs recorded by a run of this same script version can be reused.
    macs_table = read_table(macs_path, 3) if up_to_date(macs_path) else {}

    t_all = time.monotonic()
    for name in names:
        _, _, size, opset, dynamic, folding = BY_NAME[name]
        inline = os.path.join(outdir, name + ".onnx")
        noweights = os.path.join(outdir, name + "_noweights.onnx")
        t0 = time.monotonic()
        need_inline = not up_to_date(inline)
        need_macs = name not in macs_table
        did = []
        if need_inline or need_macs:
            _imports()
            model = build(name)
            x = torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(0))
            if need_macs:
                macs, params = count_macs(model, x)
                macs_table[name] = [str(macs), str(params)]
                did.append("macs")
            if need_inline:
                export_inline(model, x, inline, opset, dynamic, folding)
                did.append("onnx")
            del model, x
            gc.collect()
        if need_inline or not up_to_date(noweights):
            _imports()
            export_noweights(name, outdir)
            did.append("noweights")
        macs, params = (int(v) for v in macs_table[name])
        print("%-16s opset %d %-7s %-10s MACs %13d (%.3f G)  params %10d  %6.1fs  %s"
              % (name, opset, "dynamic" if dynamic else "static",
                 "fold" if folding else "no-fold", macs, macs / 1e9, params,
                 time.monotonic() - t0, ",".join(did) or "up to date"),
              flush=True)

    # Both tables cover every model whose files are present in OUTDIR, so a
    # run with --only does not lose the lines of earlier runs.
    manifest, macs_lines = [], []
    for name, _, _, opset, dynamic, _ in MODELS:
        for fname in (name + ".onnx", name + "_noweights.onnx"):
            if os.path.exists(os.path.join(outdir, fname)):
                manifest.append("%s %d %d" % (fname, opset, int(dynamic)))
        if name in macs_table:
            macs_lines.append("%s %s %s" % (name, *macs_table[name]))
    write_atomic(os.path.join(outdir, "manifest.txt"), manifest)
    write_atomic(macs_path, macs_lines)
    print("total %.1fs" % (time.monotonic() - t_all))
    return 0


if __name__ == "__main__":
    sys.exit(main())
