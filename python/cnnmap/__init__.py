"""cnnmap from Python: the commands of the command line as functions.

Every function runs the library in this process (no subprocess) and gives what the
command prints with --json, as dicts equal to the CLI's JSON for the same inputs;
tensors come as numpy arrays. Failures raise cnnmap.Error (UsageError, BadInput,
Infeasible) with the CLI's one-line message and its exit code as .code.

    import cnnmap
    d = cnnmap.optimise("lenet.onnx", "zedboard", backend="finn", optimiser="rule")
    print(d.summary()["latency_ms"])
    d.export("finn", "lenet_finn.json")
"""
import os
import shutil
import tempfile
import weakref

from . import _native
from .errors import BadInput, Error, Infeasible, UsageError

__all__ = ["Error", "UsageError", "BadInput", "Infeasible", "Model", "Design", "load_model",
           "boards", "board", "optimise", "load_design", "evaluate", "export", "overlay",
           "multi", "compare", "run", "simulate", "sweep", "version"]

version = _native.version
_call = _native.call


def _path(p):
    """A path argument as text (str, bytes or os.PathLike)."""
    p = os.fsdecode(os.fspath(p))
    return p


class Model:
    """A model file as read (the object of `inspect --json`)."""

    def __init__(self, path):
        self.path = _path(path)
        self.json = _call("inspect", model=self.path)
        self.name = self.json["model"]
        self.input = self.json["input"]
        self.layers = self.json["layers"]
        self.totals = self.json["totals"]

    def __repr__(self):
        return "<cnnmap.Model %s: %d layers>" % (self.name, len(self.layers))


def load_model(path):
    return Model(path)


def boards():
    """The built-in boards, as `boards --json` lists them."""
    return _call("boards")["boards"]


def board(name_or_path):
    """One board: a built-in name or a board JSON file."""
    return _call("board", board=_path(name_or_path))


def _model_arg(model):
    return model.path if isinstance(model, Model) else _path(model)


class Design:
    """A design file and its figures.

    Designs made by optimise, overlay or multi live in a private temporary file until
    saved; load_design reads a file in place.
    """

    def __init__(self, path, summary, scratch=None):
        self.path = path
        self._summary = summary
        if scratch:
            self._cleanup = weakref.finalize(self, shutil.rmtree, scratch, True)

    def summary(self):
        """The object the command printed with --json (optimise, overlay, multi, or
        evaluate for a loaded design)."""
        return self._summary

    @property
    def nodes(self):
        """The per-node (or per-layer, per-network) table of the summary."""
        for key in ("nodes", "layers", "models"):
            if isinstance(self._summary.get(key), list):
                return self._summary[key]
        return []

    def save(self, path):
        """Writes the design file (as -o would) to path, atomically."""
        path = _path(path)
        tmp = path + ".tmp%d" % os.getpid()
        try:
            shutil.copyfile(self.path, tmp)
            os.replace(tmp, path)
        except OSError as e:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise BadInput("%s: cannot write the design file: %s" % (path, e.strerror), 2)
        return path

    def export(self, format, path, **options):
        """`export --format FORMAT -o PATH` of this design (options: force,
        test_vectors, seed for the HLS project)."""
        return export(self.path, format, path, **options)

    def evaluate(self, **options):
        return evaluate(self.path, **options)

    def simulate(self, **options):
        return simulate(self.path, **options)

    def __repr__(self):
        return "<cnnmap.Design %s>" % self.path


def _designing(command, **request):
    """Runs a command that writes a design file (-o) into a scratch folder."""
    scratch = tempfile.mkdtemp(prefix="cnnmap-")
    out = os.path.join(scratch, "design.json")
    try:
        summary = _call(command, output=out, **request)
    except BaseException:
        shutil.rmtree(scratch, True)
        raise
    return Design(out, summary, scratch)


def optimise(model, board, backend="fpgaconvnet", optimiser=None, objective=None,
             batch=None, time_limit=None, seed=None, **options):
    """`cnnmap optimise`: the design the optimiser finds. Other options by their CLI
    names with '_': max_util, target_fps, clock, bits, no_reconf,
    no_weights_reloading, sdf, no_temporal_reuse, no_loop_merge, threads (anneal's
    and exact's threads; the design is the same for any number), gap (exact stops once
    its design is proven within this fraction of the optimum). None (the default)
    keeps the CLI's default (seed 1; optimiser rule, or bip for nn2fpga; objective
    latency, or throughput at batch 256 for nn2fpga)."""
    return _designing("optimise", model=_model_arg(model), board=_path(board), backend=backend,
                      optimiser=optimiser, objective=objective, batch=batch,
                      time_limit=time_limit, seed=seed, **options)


def load_design(path):
    """A design file of any architecture, with evaluate's figures as its summary."""
    path = _path(path)
    return Design(path, evaluate(path))


def evaluate(design, sdf=None):
    """`cnnmap evaluate DESIGN --json`."""
    path = design.path if isinstance(design, Design) else _path(design)
    return _call("evaluate", design=path, sdf=sdf)


def export(design, format, output, **options):
    """`cnnmap export DESIGN --format FORMAT -o OUTPUT`; gives OUTPUT."""
    path = design.path if isinstance(design, Design) else _path(design)
    _call("export", design=path, format=format, output=_path(output), **options)
    return output


def overlay(model, board, **options):
    """`cnnmap overlay`: the DYNAMAP systolic-array design."""
    return _designing("overlay", model=_model_arg(model), board=_path(board), **options)


def multi(models, board, **options):
    """`cnnmap multi`: several networks on one FPGA (f-CNNx)."""
    return _designing("multi", model=[_model_arg(m) for m in models], board=_path(board),
                      **options)


def compare(model, board, **options):
    """`cnnmap compare`: the model on every architecture, side by side."""
    return _call("compare", model=_model_arg(model), board=_path(board), **options)


def simulate(design, **options):
    """`cnnmap simulate DESIGN --json` (frames, fifo_depths, time_limit, output)."""
    path = design.path if isinstance(design, Design) else _path(design)
    return _call("simulate", design=path, **options)


def sweep(model, boards, **options):
    """`cnnmap sweep`: the latency-resource Pareto fronts (backend, steps, threads,
    time_limit, output)."""
    if isinstance(boards, (str, bytes, os.PathLike)):
        boards = [boards]
    return _call("sweep", model=_model_arg(model), board=[_path(b) for b in boards], **options)


def run(model, inputs, output=None, info=False):
    """`cnnmap run`: executes the model on the CPU. inputs: one numpy array or a list,
    one per graph input, the batch first. Gives the output tensor (with info=True, the
    pair of it and the dict of `run --json`)."""
    import numpy as np

    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    scratch = tempfile.mkdtemp(prefix="cnnmap-run-")
    try:
        paths = []
        for k, x in enumerate(inputs):
            p = os.path.join(scratch, "input%d.npy" % k)
            np.save(p, np.ascontiguousarray(x))
            paths.append(p)
        out = os.path.join(scratch, "output.npy")
        reply = _call("run", model=_model_arg(model), input=paths, output_file=out,
                      output=output)
        y = np.load(out)
    finally:
        shutil.rmtree(scratch, True)
    return (y, reply) if info else y
