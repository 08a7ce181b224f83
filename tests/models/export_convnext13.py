#!/usr/bin/python3
"""Export ConvNeXt at opset 13, where torch.onnx writes LayerNorm decomposed, for
tests/test_import_channelwise.c.

Usage: /usr/bin/python3 export_convnext13.py OUTDIR

At opset 17 torch.onnx writes nn.LayerNorm as one LayerNormalization node; at opset 13 as
ReduceMean, Sub, Pow, ReduceMean, Add (epsilon), Sqrt, Div, Mul (gamma), Add (beta) over
the last axis. This writes into OUTDIR:
  convnext_tiny_opset13.onnx            torchvision's convnext_tiny (the weights of
                                        export_torchvision.py's opset-17 file: same seed)
  convnext_tiny_opset13_noweights.onnx  the same without weight bytes
  block_opset13.onnx, block_opset17.onnx
                                        a small ConvNeXt (stem conv, LayerNorm2d, one
                                        CNBlock with layer scale 0.5) on 1x3x16x16, at both
                                        opsets
  block_x.npy, block_y.npy              an input of the small model and PyTorch's output

Files newer than this script and export_torchvision.py are not written again. Needs
Debian's python3-torch, python3-torchvision and python3-onnx, hence /usr/bin/python3;
without them (when something must be written) the exit status is 77.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_torchvision as et  # noqa: E402  (build, export_inline, export_noweights)

NEWEST = max(os.path.getmtime(os.path.abspath(__file__)), et.SCRIPT_MTIME)


def fresh(path):
    try:
        return os.path.getmtime(path) > NEWEST
    except OSError:
        return False


def export_tiny(outdir):
    name = "convnext_tiny_opset13"
    inline = os.path.join(outdir, name + ".onnx")
    if not fresh(inline):
        et._imports()
        model = et.build("convnext_tiny")
        x = et.torch.randn(1, 3, 224, 224, generator=et.torch.Generator().manual_seed(0))
        et.export_inline(model, x, inline, 13, False, True)
    if not fresh(os.path.join(outdir, name + "_noweights.onnx")):
        et._imports()
        et.export_noweights(name, outdir)


def export_block(outdir):
    paths = [os.path.join(outdir, f) for f in
             ("block_opset13.onnx", "block_opset17.onnx", "block_x.npy", "block_y.npy")]
    if all(fresh(p) for p in paths):
        return
    et._imports()
    import numpy as np
    from functools import partial
    from torchvision.models.convnext import CNBlock, LayerNorm2d
    torch = et.torch
    torch.manual_seed(0)
    norm = partial(et.nn.LayerNorm, eps=1e-6)
    model = et.nn.Sequential(et.nn.Conv2d(3, 8, 2, stride=2), LayerNorm2d(8, eps=1e-6),
                             CNBlock(8, 0.5, 0.0, norm_layer=norm)).eval()
    with torch.no_grad():  # gamma and beta away from 1 and 0, so that they matter
        for m in model.modules():
            if isinstance(m, et.nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
        x = torch.randn(1, 3, 16, 16, generator=torch.Generator().manual_seed(1))
        y = model(x)
    for opset, path in ((13, paths[0]), (17, paths[1])):
        et.export_inline(model, x, path, opset, False, True)
    for array, path in ((x, paths[2]), (y, paths[3])):
        tmp = et.atomic_path(path)
        with open(tmp, "wb") as f:
            np.save(f, array.numpy().astype(np.float32))
        os.replace(tmp, path)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: export_convnext13.py OUTDIR\n")
        return 1
    outdir = os.path.abspath(argv[1])
    os.makedirs(outdir, exist_ok=True)
    try:
        export_block(outdir)
        export_tiny(outdir)
    except ImportError as e:
        sys.stderr.write("export_convnext13.py: %s\n" % e)
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
