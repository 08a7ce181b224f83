#!/usr/bin/python3
"""rule versus anneal on torchvision's classification networks (issue 20).

Usage: /usr/bin/python3 bench/rule_vs_anneal.py --cnnmap BUILD/cnnmap [options]

Issue 20 asks that the default `rule` optimiser be at most 2x from `anneal` on every
network of the sweep. This script:

1. exports every torchvision classification network (the builder functions of
   torchvision.models; the vit, swin and maxvit transformers are left out) with random
   weights at opset 13, batch 1, at the crop size of its first published weights
   (224 for most; inception_v3 299, the larger EfficientNets up to 600), into
   CACHE/NAME_noweights.onnx: the weight tensors keep their shapes but have no bytes
   (tests/models/export_torchvision.py's export_noweights). Exports are idempotent: a
   file already in CACHE is not made again. One child process exports, in that order.
2. keeps the networks that `cnnmap inspect` loads, in order of size (the parameters of
   torchvision's metadata; a network's runs start as soon as it is exported), and for
   each backend (fpgaconvnet, finn, hls4ml) on BOARD with the latency objective
   (batch 1) runs `cnnmap optimise --optimiser rule` and `--optimiser anneal`
   (`--json --quiet`, each optimiser's defaults: both stop by their own criterion or
   evaluation budget, so the figures do not depend on the machine; the times do).
   fpgaConvNet runs with --no-weights-reloading, so that both optimisers search the same
   partitioned design space (the latency-driven design is not searched by either).
3. writes OUT/rule_vs_anneal.json (every run's raw figures) and OUT/rule_vs_anneal.md,
   a Markdown table: network, backend, rule ms, anneal ms, ratio rule/anneal, rule s
   and anneal s (wall time of each cnnmap process).

Runs go on --jobs processes (default 2). --deadline HH:MM (UTC) starts no run after that
time, and --hard-deadline HH:MM kills the runs still going then: networks left without
all six runs are named in the table's summary. --time-limit S caps every run (passed to
cnnmap; the rows it stopped are marked "capped", since a cap makes the result depend on
the machine); with --uncap, the runs the cap stopped are then run again without it, in
order of size, until the deadline. --resume reuses the results of an earlier run in OUT
for the same cnnmap binary and --time-limit.

Example (the README's table):
  /usr/bin/python3 bench/rule_vs_anneal.py --cnnmap build-release/cnnmap \
      --time-limit 10 --uncap --deadline 00:12 --hard-deadline 00:17

Needs Debian's python3-torch, python3-torchvision (0.14) and python3-onnx, hence
/usr/bin/python3 (only for the export; the rest is the standard library).
"""

import argparse
import concurrent.futures
import datetime
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPORTER = os.path.join(ROOT, "tests", "models", "export_torchvision.py")
BACKENDS = ("fpgaconvnet", "finn", "hls4ml")
OPTIMISERS = ("rule", "anneal")
OPSET = 13
EXPORT_MEMORY_GB = 14  # address space of each export process
# Transformers: not CNNs, and outside what the streaming backends map.
SKIP_PREFIXES = ("vit_", "swin_", "maxvit")
# torchvision.models' functions that are not network builders.
NOT_BUILDERS = {"get_model", "get_model_builder", "get_model_weights", "get_weight",
                "list_models"}
# Builders whose defaults add training-only outputs or a slow scipy initialisation.
BUILD_KWARGS = {
    "googlenet": {"aux_logits": False, "init_weights": False},
    "inception_v3": {"aux_logits": False, "init_weights": False},
}


# ---------------------------------------------------------------- export

def network_names():
    """torchvision's classification builders, in its own order, transformers left out.
    The builder functions of torchvision.models (list_models is not in every 0.14)."""
    import inspect
    import torchvision.models as tvm
    names = [n for n, f in vars(tvm).items()
             if inspect.isfunction(f) and n[0].islower() and not n.startswith("_")
             and n not in NOT_BUILDERS]
    names = [n for n in names if not n.startswith(SKIP_PREFIXES)]
    return sorted(names, key=lambda n: (num_params(tvm, n), n))


def num_params(tvm, name):
    """The parameters of the network's first published weights (torchvision's metadata,
    nothing downloaded): the order of size in which networks are exported and run."""
    try:
        return int(next(iter(tvm.get_model_weights(name))).meta["num_params"])
    except Exception:
        return 1 << 62


def crop_size(tvm, name):
    """The input size of the network's first published weights (224 without any)."""
    try:
        enum = tvm.get_model_weights(name)
        first = next(iter(enum))
        return int(first.transforms.keywords.get("crop_size", 224))
    except Exception:  # older torchvision, or a builder without weights
        return 224


def load_exporter():
    """tests/models/export_torchvision.py as a module, for its export_noweights."""
    spec = importlib.util.spec_from_file_location("export_torchvision", EXPORTER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod._imports()  # export_noweights uses its module's onnx
    return mod


def export_one(name, cache):
    """CACHE/NAME_noweights.onnx, made in a temporary folder (torch writes the tensors
    of a network over 2 GB as separate files beside the model, which export_noweights
    reads back and drops) and moved in when complete."""
    import torch
    import torchvision.models as tvm
    torch.set_num_threads(1)
    exporter = load_exporter()
    size = crop_size(tvm, name)
    torch.manual_seed(0)
    model = getattr(tvm, name)(weights=None, **BUILD_KWARGS.get(name, {}))
    model.eval()
    x = torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(0))
    tmpdir = tempfile.mkdtemp(prefix=".export-" + name + ".", dir=cache)
    try:
        with torch.no_grad():
            torch.onnx.export(model, x, os.path.join(tmpdir, name + ".onnx"),
                              export_params=True, opset_version=OPSET,
                              do_constant_folding=True, input_names=["input"],
                              output_names=["output"])
        del model
        exporter.export_noweights(name, tmpdir)
        os.replace(os.path.join(tmpdir, name + "_noweights.onnx"), model_path(cache, name))
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return size


def model_path(cache, name):
    return os.path.join(cache, name + "_noweights.onnx")


def export_stream(names, cache, on_ready, stop):
    """Exports the missing networks in one child process (one torch thread, torch
    imported once), in the given order, and calls on_ready(name, error) as each is
    ready (error None) or has failed, so that runs start while later networks export.
    stop() is checked between networks; the child is killed when it turns true."""
    missing = [n for n in names if not os.path.exists(model_path(cache, n))]
    for n in names:
        if n not in missing:
            on_ready(n, None)
    if not missing or stop():
        return
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--cache", cache,
                          "--export"] + missing, stdout=subprocess.PIPE, text=True)
    seen = set()
    for line in p.stdout:
        name = line.strip()
        if name not in missing:
            continue
        seen.add(name)
        if os.path.exists(model_path(cache, name)):
            on_ready(name, None)
        else:
            try:
                with open(error_path(cache, name)) as f:
                    on_ready(name, "export: " + f.read().strip())
            except OSError:
                on_ready(name, "export: failed")
        if stop():
            p.kill()
            break
    p.wait()


def error_path(cache, name):
    return os.path.join(cache, name + ".export-error")


def export_children(names, cache):
    """The child's side: every name in turn, a failure logged and the rest carried on."""
    import resource
    import warnings
    warnings.filterwarnings("ignore")  # torch's tracer warnings, a page per network
    # regnet_y_128gf's 2.6 GB of weights are copied several times on the way out; a
    # network too large for this cap fails alone (MemoryError) instead of inviting the
    # kernel's out-of-memory killer onto other processes.
    cap = EXPORT_MEMORY_GB << 30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    for name in names:
        t0 = time.monotonic()
        try:
            size = export_one(name, cache)
            log("export %-20s %4d px %6.1f s" % (name, size, time.monotonic() - t0))
            if os.path.exists(error_path(cache, name)):
                os.remove(error_path(cache, name))
        except Exception as e:  # one network that torch cannot export
            msg = (str(e).strip().splitlines() or [repr(e)])[0]
            log("export %-20s FAILED: %s" % (name, msg))
            with open(error_path(cache, name), "w") as f:
                f.write(msg + "\n")
        print(name, flush=True)  # the parent's cue: ready (or failed)
    return 0


# ---------------------------------------------------------------- runs

LOG_LOCK = threading.Lock()


def log(msg):
    with LOG_LOCK:
        print(msg, file=sys.stderr, flush=True)


def inspect(cnnmap, path):
    """(layers, MACs) of a network cnnmap loads, or an error string."""
    p = subprocess.run([cnnmap, "inspect", path, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    totals = json.loads(p.stdout)["totals"]
    return (totals["layers"], totals["macs"]), None


def optimise_command(cnnmap, path, board, backend, optimiser, time_limit):
    cmd = [cnnmap, "optimise", path, "--board", board, "--backend", backend,
           "--objective", "latency", "--optimiser", optimiser, "--json", "--quiet"]
    if backend == "fpgaconvnet":
        cmd.append("--no-weights-reloading")
    if time_limit:
        cmd += ["--time-limit", str(time_limit)]
    return cmd


def run_one(cmd, timeout):
    """One cnnmap process: its --json figures, exit code and wall time."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"rc": None, "wall_s": time.monotonic() - t0,
                "error": "killed after %g s" % timeout}
    wall = time.monotonic() - t0
    rec = {"rc": p.returncode, "wall_s": wall}
    try:
        out = json.loads(p.stdout)
    except ValueError:
        out = None
    if out is None:
        rec["error"] = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        return rec
    opt = out.get("optimiser", {})
    rec.update({
        "feasible": bool(out.get("feasible")),
        "latency_s": out.get("latency_s"),
        "partitions": out.get("partitions"),
        "evaluations": opt.get("evaluations"),
        "optimiser_time_s": opt.get("time_s"),
        "note": opt.get("note", ""),
        "stopped_early": bool(opt.get("stopped_early", False)),
        "warnings": out.get("warnings", []),
    })
    return rec


def binary_id(cnnmap):
    st = os.stat(cnnmap)
    return "%s %d %d" % (os.path.realpath(cnnmap), st.st_size, int(st.st_mtime))


# ---------------------------------------------------------------- report

def ms(rec):
    if rec and "error" in rec:
        return "error"
    if not rec or rec.get("latency_s") is None:
        return "-"
    text = "%.4g" % (rec["latency_s"] * 1e3)
    if not rec.get("feasible"):
        text += " (infeasible)"
    if rec.get("capped"):
        text += " (capped)"
    return text


def ratio(rule, anneal):
    """rule / anneal latency when both fit; None when it means nothing."""
    if not (rule and anneal and rule.get("feasible") and anneal.get("feasible")):
        return None
    return rule["latency_s"] / anneal["latency_s"]


def ratio_text(rule, anneal):
    r = ratio(rule, anneal)
    if r is not None:
        return "%.3f" % r + (" **>2x**" if r > 2 else "")
    if "error" in rule or "error" in anneal:
        return "-"
    rf = bool(rule and rule.get("feasible"))
    af = bool(anneal and anneal.get("feasible"))
    if af and not rf:
        return "**rule infeasible**"
    if rf and not af:
        return "anneal infeasible"
    return "neither fits"


def seconds(rec):
    return "-" if not rec else "%.2f" % rec["wall_s"]


def markdown(meta, networks, results, left_out, failed):
    lines = ["| network | backend | rule ms | anneal ms | ratio | rule s | anneal s |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    worst = None
    over, budget, errors = [], [], []
    counted = set()
    for name in networks:
        for backend in BACKENDS:
            rule = results.get(key(name, backend, "rule"))
            anneal = results.get(key(name, backend, "anneal"))
            if not (rule and anneal):
                continue
            counted.add(name)
            r = ratio(rule, anneal)
            if r is not None and (worst is None or r > worst[0]):
                worst = (r, name, backend)
            if (r is not None and r > 2) or (anneal.get("feasible") and not rule.get("feasible")):
                over.append("%s/%s" % (name, backend))
            for opt, rec in (("rule", rule), ("anneal", anneal)):
                if "error" in rec:
                    errors.append("%s/%s %s: %s" % (name, backend, opt, rec["error"]))
                if rec.get("stopped_early") and not rec.get("capped"):
                    budget.append("%s/%s %s" % (name, backend, opt))
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                name, backend, ms(rule), ms(anneal), ratio_text(rule, anneal),
                seconds(rule), seconds(anneal)))
    cnnmap = meta["cnnmap"]
    if cnnmap.startswith(ROOT + os.sep):
        cnnmap = os.path.relpath(cnnmap, ROOT)
    summary = ["%d networks, %d rows (%s, latency objective, batch 1; fpgaconvnet with "
               "--no-weights-reloading); %s; %s; the run took %.0f s on %d processes "
               "(times are wall times of each cnnmap process)."
               % (len(counted), len(lines) - 2, meta["board"], cnnmap,
                  meta["finished"], meta["elapsed_s"], meta["jobs"])]
    if worst:
        summary.append("Worst ratio rule/anneal: %.3f (%s, %s)." % worst)
    summary.append("More than 2x from anneal (or infeasible where anneal fits): %s."
                   % (", ".join(over) if over else "none"))
    if budget:
        summary.append("Stopped by their evaluation budget: %s." % ", ".join(budget))
    if meta.get("time_limit"):
        shown = [results.get(key(n, b, o), {}) for n in counted for b in BACKENDS
                 for o in OPTIMISERS]
        capped = sum(1 for rec in shown if rec.get("capped"))
        rerun = sum(1 for rec in shown if "capped_run" in rec)
        summary.append("Runs capped at --time-limit %g s; %d that the cap stopped were run "
                       "again without it, %d remain capped (marked: those figures depend on "
                       "the machine, the others are the defaults' and do not)."
                       % (meta["time_limit"], rerun, capped))
    if errors:
        summary.append("Errors: %s." % "; ".join(errors))
    if left_out:
        summary.append("Not run, wholly or in part, before the deadline (in order of "
                       "size): %s." % ", ".join(left_out))
    if failed:
        summary.append("Not exported or not loaded: %s." % "; ".join(
            "%s (%s)" % kv for kv in sorted(failed.items())))
    return "\n".join(summary) + "\n\n" + "\n".join(lines) + "\n"


def key(name, backend, optimiser):
    return "%s|%s|%s" % (name, backend, optimiser)


# ---------------------------------------------------------------- main

def parse_deadline(text):
    """HH:MM UTC, today or (if already past by more than 12 h) tomorrow, as epoch s."""
    if not text:
        return None
    now = datetime.datetime.now(datetime.timezone.utc)
    hh, mm = (int(v) for v in text.split(":"))
    at = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
    if at < now - datetime.timedelta(hours=12):
        at += datetime.timedelta(days=1)
    return at.timestamp()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cnnmap", default=os.environ.get(
        "CNNMAP", os.path.join(ROOT, "build-release", "cnnmap")))
    ap.add_argument("--cache", default=os.path.join(
        ROOT, "build", "bench-models", "torchvision-opset13"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "rule_vs_anneal"))
    ap.add_argument("--board", default="u250")
    ap.add_argument("--only", nargs="+", metavar="NAME")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--deadline", metavar="HH:MM", help="start no run after this UTC time")
    ap.add_argument("--time-limit", type=float, default=0, help="cap every run (marked)")
    ap.add_argument("--timeout", type=float, default=900, help="kill a run after this")
    ap.add_argument("--hard-deadline", metavar="HH:MM", help="kill runs still going then")
    ap.add_argument("--uncap", action="store_true",
                    help="after the capped pass, rerun capped rows without the cap")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--export", nargs="+", metavar="NAME", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.cache = os.path.abspath(args.cache)
    os.makedirs(args.cache, exist_ok=True)
    if args.export:
        return export_children(args.export, args.cache)
    if not os.access(args.cnnmap, os.X_OK):
        ap.error("no cnnmap at %s (--cnnmap or CNNMAP)" % args.cnnmap)
    os.makedirs(args.out, exist_ok=True)
    json_path = os.path.join(args.out, "rule_vs_anneal.json")
    md_path = os.path.join(args.out, "rule_vs_anneal.md")
    t_start = time.monotonic()
    deadline = parse_deadline(args.deadline)

    names = args.only or network_names()
    bid = binary_id(args.cnnmap)
    results = {}
    if args.resume and os.path.exists(json_path):
        with open(json_path) as f:
            old = json.load(f)
        if old.get("meta", {}).get("binary") == bid and \
                old["meta"].get("time_limit") == args.time_limit:
            results = old["results"]
            t_start -= old["meta"].get("elapsed_s", 0)  # the time of the earlier runs counts
    meta = {"board": args.board, "cnnmap": args.cnnmap, "binary": bid, "jobs": args.jobs,
            "time_limit": args.time_limit, "opset": OPSET}
    hard = parse_deadline(args.hard_deadline)
    lock = threading.Lock()
    networks, sizes, failed = [], {}, {}

    def past_deadline():
        return deadline is not None and time.time() >= deadline

    def task(name, backend, optimiser, limit, keep):
        """One run; keep(key, rec) says whether its record goes into the results."""
        if past_deadline():
            return
        timeout = args.timeout
        if hard is not None:
            timeout = max(1.0, min(timeout, hard - time.time()))
        cmd = optimise_command(args.cnnmap, model_path(args.cache, name), args.board,
                               backend, optimiser, limit)
        rec = run_one(cmd, timeout)
        rec.update({"network": name, "backend": backend, "optimiser": optimiser,
                    "layers": sizes[name][0], "macs": sizes[name][1],
                    "capped": bool(limit) and "time limit" in rec.get("note", "")})
        log("%-20s %-11s %-6s %10s ms  %6.2f s  %s" % (name, backend, optimiser, ms(rec),
                                                       rec["wall_s"], rec.get("error", "")))
        k = key(name, backend, optimiser)
        with lock:
            if rec["rc"] is not None and keep(k, rec):  # a killed run leaves no record
                results[k] = rec
                save()

    def save():
        meta["elapsed_s"] = time.monotonic() - t_start
        meta["finished"] = datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M UTC")
        left_out = [n for n in networks
                    if not all(key(n, b, o) in results for b in BACKENDS for o in OPTIMISERS)]
        left_out += [n for n in names if n not in networks and n not in failed]
        tmp = json_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"meta": meta, "networks": networks, "failed": failed,
                       "left_out": left_out, "results": results}, f, indent=1)
        os.replace(tmp, json_path)
        with open(md_path + ".tmp", "w") as f:
            f.write(markdown(meta, networks, results, left_out, failed))
        os.replace(md_path + ".tmp", md_path)

    def guarded(*a):
        try:
            task(*a)
        except Exception as e:  # the pool would swallow it
            log("run %s failed in this script: %r" % (a[:3], e))

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)

    def on_ready(name, error):
        """A network is exported: its six runs join the queue, in order of size."""
        if error is None:
            size, error = inspect(args.cnnmap, model_path(args.cache, name))
            error = error and "inspect: " + error
        with lock:
            if error:
                failed[name] = error
                return
            sizes[name] = size
            networks.append(name)
        for b in BACKENDS:
            for o in OPTIMISERS:
                if key(name, b, o) not in results:
                    pool.submit(guarded, name, b, o, args.time_limit, lambda k, rec: True)

    export_stream(names, args.cache, on_ready, past_deadline)
    log("%d networks exported and loaded, %d failed; %.1f s so far"
        % (len(networks), len(failed), time.monotonic() - t_start))
    pool.shutdown(wait=True)
    if args.uncap and args.time_limit:
        # What time is left goes to the default runs of the rows the cap stopped.
        def uncapped(k, rec):
            if "error" in rec:
                return False
            rec["capped_run"] = {f: results[k].get(f)
                                 for f in ("latency_s", "feasible", "wall_s", "note")}
            return True
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
        for n in list(networks):
            for b in BACKENDS:
                for o in OPTIMISERS:
                    if results.get(key(n, b, o), {}).get("capped"):
                        pool.submit(guarded, n, b, o, 0, uncapped)
        pool.shutdown(wait=True)
    with lock:
        save()
    log("wrote %s and %s in %.0f s" % (md_path, json_path, time.monotonic() - t_start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
