#!/usr/bin/python3
"""The README's networks table (issue 16): which command and backend takes each network.

Usage: /usr/bin/python3 bench/networks_table.py CNNMAP SWEEPDIR [BOARD] [SECONDS] [JOBS]

For every network of SWEEPDIR/manifest.txt (tests/models/export_sweep.py's exports,
taken at opset 13) it runs `cnnmap inspect` (does it load) and `cnnmap compare --json
--time-limit SECONDS` on BOARD (default u250, 10 s, 2 jobs at once), and prints a
markdown table: per architecture "maps" (a feasible design), "no fit" (the backend takes
the network but no design fits the board) or a note saying why it is refused, the notes
numbered below the table. A network that does not load gets its refusal.
"""

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

COLUMNS = [
    ("streaming", "fpgaconvnet", "fpgaConvNet"),
    ("streaming", "finn", "FINN"),
    ("streaming", "hls4ml", "hls4ml"),
    ("latency_driven", "fpgaconvnet", "latency-driven"),
    ("nn2fpga", "nn2fpga", "nn2FPGA"),
    ("overlay", "dynamap", "overlay"),
]


def first_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


def general(reason):
    """A refusal without the layer's name, so that networks share their notes."""
    reason = re.sub(r"^cnnmap: [^:]*: ", "", reason)
    reason = re.sub(r"^(layer|node) '?[^ ']*'?( \([^)]*\))?: ", "", reason)
    reason = re.sub(r"^layer \S+ \((\w+)\) has no (\w+) building block$",
                    r"no \2 building block for \1", reason)
    reason = re.sub(r"\(groups \d+\)", "(groups G)", reason)
    reason = re.sub(r", and this is \w+ from .*", "", reason)
    return re.sub(r" \(the import first stopped at .*", "", reason)


def study(cnnmap, path, board, seconds):
    ins = subprocess.run([cnnmap, "inspect", path, "--json"], capture_output=True, text=True)
    if ins.returncode != 0:
        return {"loads": False, "why": general(first_line(ins.stderr)), "layers": 0}
    layers = len(json.loads(ins.stdout).get("layers", []))
    cmp = subprocess.run([cnnmap, "compare", path, "--board", board, "--time-limit",
                          str(seconds), "--json", "--quiet"], capture_output=True, text=True)
    if cmp.returncode not in (0, 3):
        return {"loads": True, "layers": layers, "compare": general(first_line(cmp.stderr))}
    cells = {}
    for c in json.loads(cmp.stdout)["candidates"]:
        key = (c["architecture"], c["backend"])
        if c["available"] and c["feasible"]:
            cells[key] = ("maps", None)
        elif c["available"]:
            cells[key] = ("no fit", None)
        else:
            cells[key] = ("refused", general(c["reason"] or "not available"))
    return {"loads": True, "layers": layers, "cells": cells}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cnnmap, sweep = sys.argv[1], sys.argv[2]
    board = sys.argv[3] if len(sys.argv) > 3 else "u250"
    seconds = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    jobs = int(sys.argv[5]) if len(sys.argv) > 5 else 2
    nets = []
    with open(os.path.join(sweep, "manifest.txt")) as f:
        for line in f:
            name, opset, kind, status = line.split()[:4]
            if opset == "13" and status == "ok":
                nets.append((name, kind))
    paths = [os.path.join(sweep, "%s_op13_noweights.onnx" % n) for n, _ in nets]
    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda p: study(cnnmap, p, board, seconds), paths))
    notes = []

    def note(text):
        if text not in notes:
            notes.append(text)
        return "refused (%d)" % (notes.index(text) + 1)

    head = "| network | kind | layers | " + " | ".join(c[2] for c in COLUMNS) + " |"
    print(head)
    print("| --- | --- | ---: |" + " --- |" * len(COLUMNS))
    for (name, kind), r in zip(nets, results):
        if not r["loads"]:
            cells = ["does not load: " + note(r["why"])] + [""] * (len(COLUMNS) - 1)
        elif "compare" in r:
            cells = ["compare failed: " + note(r["compare"])] + [""] * (len(COLUMNS) - 1)
        else:
            cells = []
            for arch, backend, _ in COLUMNS:
                what, why = r["cells"].get((arch, backend), ("refused", "not compared"))
                cells.append(note(why) if what == "refused" else what)
        print("| %s | %s | %s | %s |" % (name, kind, r["layers"] or "", " | ".join(cells)))
    print()
    for i, text in enumerate(notes):
        print("%d. %s" % (i + 1, text))


if __name__ == "__main__":
    main()
