#!/usr/bin/env python3
"""The first-frame model against the simulation on torchvision's networks.

For each network, board and streaming backend: `cnnmap optimise --optimiser rule`
(fpgaConvNet with --no-weights-reloading, its partitioned designs), then
`cnnmap simulate --frames 1 --fifo-depths auto --json` (the sizing keeps the
unbounded FIFOs' latency), and per partition the simulated first-frame latency beside
the model's. Prints a markdown table: one row per design, its partitions' differences
((simulated - model) / model, as `simulate` prints them: + is a model under the
simulation) and the worst. A design the optimiser cannot make, or the simulator
cannot build, is a row saying so.

  bench/first_frame_check.py --cnnmap build/release/cnnmap --models DIR [--boards ..]
                             [--backends ..] [--networks ..]

DIR holds NET_noweights.onnx (tests/models/export_torchvision.py writes them).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

NETWORKS = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "googlenet",
            "inception_v3", "densenet121", "efficientnet_b0", "squeezenet1_1", "vgg16"]
BOARDS = ["u250", "zcu102"]
BACKENDS = ["fpgaconvnet", "finn", "hls4ml"]


def run(cmd):
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)


def check(cnnmap, model, board, backend, work):
    design = os.path.join(work, "d.json")
    cmd = [cnnmap, "optimise", model, "--board", board, "--backend", backend,
           "--optimiser", "rule", "-o", design, "--quiet"]
    if backend == "fpgaconvnet":
        cmd.append("--no-weights-reloading")
    r = run(cmd)
    if r.returncode != 0:
        why = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "exit %d" % r.returncode
        return None, "no design: " + why.split(": ")[-1][:80]
    r = run([cnnmap, "simulate", design, "--frames", "1", "--fifo-depths", "auto", "--json",
             "--quiet", "--time-limit", "600"])
    if r.returncode != 0:
        why = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "exit %d" % r.returncode
        return None, "simulate: " + why.split(": ")[-1][:80]
    out = json.loads(r.stdout)
    diffs = []
    for p in out["partitions"]:
        s = p["simulated"]["latency_cycles"]
        a = p["analytic"]["latency_cycles"]
        diffs.append(100.0 * (s - a) / a if a else 0.0)
    return diffs, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cnnmap", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--networks", nargs="*", default=NETWORKS)
    ap.add_argument("--boards", nargs="*", default=BOARDS)
    ap.add_argument("--backends", nargs="*", default=BACKENDS)
    a = ap.parse_args()
    print("| network | board | backend | partitions | worst | per partition (sim - model) / model |")
    print("| --- | --- | --- | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory() as work:
        for net in a.networks:
            model = os.path.join(a.models, net + "_noweights.onnx")
            for board in a.boards:
                for backend in a.backends:
                    diffs, why = check(a.cnnmap, model, board, backend, work)
                    if diffs is None:
                        print("| %s | %s | %s | | | %s |" % (net, board, backend, why))
                    else:
                        worst = max(diffs, key=abs)
                        print("| %s | %s | %s | %d | %+.2f%% | %s |" % (
                            net, board, backend, len(diffs), worst,
                            ", ".join("%+.2f%%" % v for v in diffs)))
                    sys.stdout.flush()


if __name__ == "__main__":
    main()
