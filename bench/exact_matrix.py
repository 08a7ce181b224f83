#!/usr/bin/python3
"""exact and rule on issue 17's matrix of networks, boards, backends and objectives.

Usage: /usr/bin/python3 bench/exact_matrix.py --cnnmap BUILD/cnnmap [options]

Issue 17 asks that `exact` prove a gap of at most 1% within 30 s (median under 5 s), or
prove "no feasible design" in under a second, for torchvision's resnet18, resnet50,
mobilenet_v2, mobilenet_v3_small, googlenet, inception_v3, densenet121, efficientnet_b0,
squeezenet1_1 and vgg16 on a U250 and a ZCU102, for fpgaConvNet, FINN and hls4ml,
latency and throughput objectives; and that `rule` take under 1 s on each, with its gap
to `exact` in the README. This script runs both optimisers on every cell:

  cnnmap optimise NET --board B --backend K --objective O --optimiser exact
         --gap 0.01 --time-limit 30 --json --quiet   (and --optimiser rule)

fpgaConvNet runs with --no-weights-reloading, the partitioned design space that exact's
bound covers. The networks are exported with random weights and no weight bytes at
opset 13 (bench/rule_vs_anneal.py's export, into --cache; a file already there is used
as it is). Each cnnmap process runs alone (exact uses every core by default: --threads),
and its wall time and CPU time (user + system, from wait4) are recorded.

Writes OUT/exact_matrix.json (every run's figures) and OUT/exact_matrix.md: a Markdown
table (network, board, backend, objective; exact's answer, gap, wall and CPU seconds,
evaluations; rule's answer, its ratio to exact and its CPU seconds) and a summary of
where the issue's bounds hold. --resume keeps the runs already in OUT/exact_matrix.json;
--networks, --backends and --objectives run part of the matrix.

Needs Debian's python3-torch, python3-torchvision (0.14) and python3-onnx, hence
/usr/bin/python3 (only for the export; the rest is the standard library).
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rule_vs_anneal  # noqa: E402  (its export and its cache layout)

NETWORKS = ("resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "googlenet",
            "inception_v3", "densenet121", "efficientnet_b0", "squeezenet1_1", "vgg16")
BOARDS = ("u250", "zcu102")
BACKENDS = ("fpgaconvnet", "finn", "hls4ml")
OBJECTIVES = ("latency", "throughput")
OPTIMISERS = ("exact", "rule")


def run_cnnmap(cmd):
    """Runs one cnnmap process; its figures, wall time and CPU time (user + system)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate()
    wall = time.monotonic() - t0
    # communicate() has reaped the child; its CPU time is in RUSAGE_CHILDREN's growth,
    # which run_cell measures around this call (runs are sequential).
    r = {"rc": p.returncode, "wall_s": round(wall, 3)}
    try:
        j = json.loads(out)
        o = j.get("optimiser", {})
        r.update(feasible=j.get("feasible"), cost_s=j.get("latency_s"),
                 lower_bound_s=j.get("lower_bound_s"), partitions=j.get("partitions"),
                 evaluations=o.get("evaluations"), note=o.get("note", ""),
                 stopped_early=bool(o.get("stopped_early", False)))
    except ValueError:
        r["error"] = err.strip().splitlines()[-1][:200] if err.strip() else "no output"
    return r


def run_cell(cnnmap, model, board, backend, objective, optimiser, time_limit, gap):
    cmd = [cnnmap, "optimise", model, "--board", board, "--backend", backend,
           "--objective", objective, "--optimiser", optimiser, "--json", "--quiet"]
    if backend == "fpgaconvnet":
        cmd.append("--no-weights-reloading")
    if optimiser == "exact":
        cmd += ["--time-limit", str(time_limit), "--gap", str(gap)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = run_cnnmap(cmd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    r["cpu_s"] = round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 3)
    return r


def verdict(r):
    """What a run ended with: a design that fits, none (exit 3), or refused (exit 2)."""
    if r.get("rc") == 2:
        return "refused"
    if r.get("rc") == 3:
        return "no feasible design"
    if r.get("rc") == 0 and r.get("feasible"):
        return "fits"
    return "error"


def gap(r):
    if r.get("cost_s") and r.get("lower_bound_s"):
        return r["cost_s"] / r["lower_bound_s"] - 1.0
    return None


def fmt_ms(r):
    v = verdict(r)
    if v != "fits":
        return v
    return "%.4g" % (r["cost_s"] * 1e3)


def table(results, time_limit):
    rows = ["| network | board | backend | objective | exact ms | gap | exact s | exact cpu s "
            "| evaluations | rule ms | rule/exact | rule cpu s |",
            "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for key in sorted(results, key=cell_order):
        e, r = results[key].get("exact", {}), results[key].get("rule", {})
        net, board, backend, objective = key.split("|")
        g = gap(e)
        ratio = ("%.3f" % (r["cost_s"] / e["cost_s"])
                 if verdict(e) == "fits" and verdict(r) == "fits" else "")
        rows.append("| %s | %s | %s | %s | %s | %s | %.2f | %.2f | %s | %s | %s | %.2f |" % (
            net, board, backend, objective, fmt_ms(e),
            "" if g is None else "%.3g%%%s" % (100 * g, " (stopped)" if e.get("stopped_early") else ""),
            e.get("wall_s", 0), e.get("cpu_s", 0), e.get("evaluations", ""), fmt_ms(r), ratio,
            r.get("cpu_s", 0)))
    return "\n".join(rows) + "\n\n" + summary(results, time_limit)


def summary(results, time_limit):
    fits = [c["exact"] for c in results.values() if verdict(c.get("exact", {})) == "fits"]
    none = [c["exact"] for c in results.values()
            if verdict(c.get("exact", {})) == "no feasible design"]
    refused = [c for c in results.values() if verdict(c.get("exact", {})) == "refused"]
    proven = [e for e in fits if gap(e) is not None and gap(e) <= 0.01 and e["wall_s"] <= time_limit]
    proofs = [e for e in none if "stopped" not in e.get("note", "")]
    times = [e["wall_s"] for e in fits + none]
    rule_cpu = [c["rule"]["cpu_s"] for c in results.values() if "rule" in c and verdict(c["rule"]) != "refused"]
    lines = [
        "- %d cells: exact fits %d, no feasible design %d, refused by the backend %d." % (
            len(results), len(fits), len(none), len(refused)),
        "- exact proves a gap of at most 1%% within %g s on %d of the %d that fit; "
        "median wall time %.2f s, largest %.2f s." % (
            time_limit, len(proven), len(fits), statistics.median(times) if times else 0,
            max(times) if times else 0),
        "- \"no feasible design\": %d proven, at most %.2f s." % (
            len(proofs), max((e["wall_s"] for e in proofs), default=0)),
        "- rule: CPU time at most %.2f s." % max(rule_cpu, default=0),
    ]
    return "\n".join(lines) + "\n"


def cell_order(key):
    net, board, backend, objective = key.split("|")
    return (NETWORKS.index(net), BOARDS.index(board), BACKENDS.index(backend),
            OBJECTIVES.index(objective))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cnnmap", required=True)
    ap.add_argument("--cache", default=os.path.join(rule_vs_anneal.ROOT, "build", "tv-cache"))
    ap.add_argument("--out", default=os.path.join(rule_vs_anneal.ROOT, "build", "bench-exact"))
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--gap", type=float, default=0.01)
    ap.add_argument("--networks", nargs="*", default=list(NETWORKS))
    ap.add_argument("--backends", nargs="*", default=list(BACKENDS))
    ap.add_argument("--objectives", nargs="*", default=list(OBJECTIVES))
    ap.add_argument("--resume", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.cache, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    out_json = os.path.join(a.out, "exact_matrix.json")
    results = {}
    if a.resume and os.path.exists(out_json):
        with open(out_json) as f:
            results = json.load(f)["results"]
    ready = {}
    rule_vs_anneal.export_stream(a.networks, a.cache, lambda n, e: ready.__setitem__(n, e),
                                 lambda: False)
    for net in a.networks:
        if ready.get(net):
            print("%s: %s" % (net, ready[net]), file=sys.stderr)
            continue
        model = rule_vs_anneal.model_path(a.cache, net)
        for board in BOARDS:
            for backend in a.backends:
                for objective in a.objectives:
                    key = "|".join((net, board, backend, objective))
                    cell = results.setdefault(key, {})
                    for opt in OPTIMISERS:
                        if opt in cell:
                            continue
                        cell[opt] = run_cell(a.cnnmap, model, board, backend, objective, opt,
                                             a.time_limit, a.gap)
                        e = cell[opt]
                        print("%-60s %-5s %-20s gap %-8s %6.2f s wall %6.2f s cpu" % (
                            key, opt, fmt_ms(e), "" if gap(e) is None else "%.3g%%" % (100 * gap(e)),
                            e["wall_s"], e["cpu_s"]), file=sys.stderr, flush=True)
                        with open(out_json, "w") as f:
                            json.dump({"cnnmap": a.cnnmap, "time_limit_s": a.time_limit,
                                       "gap": a.gap,
                                       "results": results}, f, indent=1, sort_keys=True)
    with open(os.path.join(a.out, "exact_matrix.md"), "w") as f:
        f.write(table(results, a.time_limit))
    print(table(results, a.time_limit))


if __name__ == "__main__":
    main()
