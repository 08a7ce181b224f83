#!/usr/bin/python3
"""Check `cnnmap inspect --json` on every network export_sweep.py wrote.

Usage: /usr/bin/python3 check_sweep.py CNNMAP SWEEPDIR

Every file of SWEEPDIR/manifest.txt either loads, and then its conv and fc
MACs equal the forward-hook count of SWEEPDIR/macs.txt exactly, or is refused
with exit code 2 and one stderr line "cnnmap: FILE: node 'NAME' (OP): why",
which only the networks of REFUSED may be, and only where their rule allows:
a transformer at its first attention operator, a detection
model past its network, in the post-processing torch writes after the heads.
torch.onnx.export failures are reported, and allowed only as EXPORT_FAILURES
says. Prints one line per file; exits 1 if any check fails.
"""

import json
import os
import re
import subprocess
import sys

# ONNX operators of the detection models' post-processing: anchors, box decoding,
# score thresholds, top-k, non-maximum suppression, RoI pooling and the layout
# changes that turn the heads' maps into per-anchor rows.
POST_PROCESSING_OPS = {
    "ConstantOfShape", "Range", "Expand", "Tile", "Shape", "TopK", "NonMaxSuppression",
    "RoiAlign", "Gather", "GatherND", "GatherElements", "NonZero", "Where", "Greater",
    "Less", "Exp", "Log", "Clip", "Min", "Max", "Split", "Squeeze", "Unsqueeze",
    "Reshape", "Transpose", "Concat", "Slice", "Cast", "Floor", "Ceil", "Sqrt",
    "ReduceMin", "ReduceMax", "ScatterElements", "ScatterND", "If", "Loop",
}
# Where the detection models' post-processing lives (torch's node scopes).
POST_PROCESSING_SCOPES = ("/anchor_generator/", "/rpn/anchor_generator/", "/rpn/",
                          "/roi_heads/", "/head/", "/box_coder/")


def detection_rule(node, op):
    return op in POST_PROCESSING_OPS and node.startswith(POST_PROCESSING_SCOPES) \
        and "/conv" not in node.lower()


# Networks allowed to be refused: a name pattern, why, and the rule the refused
# node (name, op) must satisfy.
REFUSED = [
    # A transformer is refused at its first attention operator, the product of
    # queries and keys that feeds a Softmax (src/model/attention.c), whatever the
    # importer met first.
    (r"^vit_", "transformer: its first attention operator",
     lambda node, op: "/self_attention/" in node and op == "MatMul"),
    (r"^swin_", "transformer: its first attention operator",
     lambda node, op: "/attn/" in node and op == "MatMul"),
    (r"^maxvit_t$", "transformer: its first attention operator",
     lambda node, op: "attention" in node and op == "Einsum"),
    (r"^(fasterrcnn|maskrcnn|keypointrcnn|retinanet|fcos|ssd)",
     "detection: the first post-processing operator after the heads", detection_rule),
]
# Refusals issue 16 does not allow, known and not yet fixed: (name pattern, op, why).
# Each is reported as a known gap rather than a failure, as long as the network is
# refused at exactly that op; once it loads or is refused elsewhere, the entry must go.
# Emptying this list makes the check issue 16's must-hold.
KNOWN_GAPS = []

# torch.onnx.export's own limits: (name pattern, opset or None for all, what its
# message says).
EXPORT_FAILURES = [
    (r"^maxvit_t$", 11, "aten::einsum"),  # Einsum is an opset 12 operator
    # Swin V2's attention zeroes the key bias in place (Tensor.zero_), which torch
    # 1.13 has no ONNX symbolic for at any opset.
    (r"^swin_v2_", None, "aten::zero"),
]

ERROR_LINE = re.compile(r"^cnnmap: (.+?): node '(.*?)' \(([A-Za-z0-9_]+)\): (.+)$")


def read_macs(path):
    table = {}
    with open(path) as f:
        for line in f:
            name, macs, _ = line.split()
            table[name] = int(macs)
    return table


def refusal_rule(name):
    if name.endswith("__backbone"):  # a detection model's backbone must load
        return None, None
    for pattern, why, rule in REFUSED:
        if re.search(pattern, name):
            return why, rule
    return None, None


def check_loaded(name, out, macs_table):
    for pattern, _, gap in KNOWN_GAPS:
        if re.search(pattern, name):
            return "loads, but KNOWN_GAPS expects a refusal (%s): update the list" % gap
    data = json.loads(out)
    macs = sum(l["macs"] for l in data["layers"] if l["op"] in ("conv", "fc"))
    if name not in macs_table:
        return "no forward-hook count in macs.txt"
    if macs != macs_table[name]:
        return "conv+fc MACs %d, forward hooks %d" % (macs, macs_table[name])
    why, _ = refusal_rule(name)
    if why:
        return "loads, but REFUSED expects a refusal (%s): update the list" % why
    return None


def check_refused(name, path, err):
    lines = err.splitlines()
    if len(lines) != 1:
        return "%d stderr lines, not one: %r" % (len(lines), err[:300])
    m = ERROR_LINE.match(lines[0])
    if not m or m.group(1) != path:
        return "stderr does not name the file, node and op: " + lines[0]
    node, op = m.group(2), m.group(3)
    for pattern, gap_op, gap in KNOWN_GAPS:
        if re.search(pattern, name):
            if op != gap_op:
                return "KNOWN_GAPS expects a refusal at %s (%s), not: %s" % (gap_op, gap, lines[0])
            return None
    why, rule = refusal_rule(name)
    if why is None:
        return "refused, must load: " + lines[0]
    if not rule(node, op):
        return "refused at node '%s' (%s), which is not where it may be (%s): %s" % (
            node, op, why, lines[0])
    return None


def check_file(cnnmap, sweep, name, opset, macs_table):
    path = os.path.join(sweep, "%s_op%d_noweights.onnx" % (name, opset))
    r = subprocess.run([cnnmap, "inspect", "--json", path], capture_output=True, text=True)
    if r.returncode == 0:
        problem = check_loaded(name, r.stdout, macs_table)
        what = "loads, MACs equal the hooks'"
    elif r.returncode == 2:
        problem = check_refused(name, path, r.stderr)
        what = "refused: " + r.stderr.strip().split(": ", 2)[-1]
        if any(re.search(g[0], name) for g in KNOWN_GAPS):
            what = "KNOWN GAP, " + what
    else:
        problem = "exit code %d: %s" % (r.returncode, r.stderr.strip()[:300])
        what = ""
    return problem, what


def check_export_failure(name, opset, status):
    for pattern, op, text in EXPORT_FAILURES:
        if re.search(pattern, name) and op in (None, opset) and text in status:
            return None
    return "torch.onnx.export failed, which EXPORT_FAILURES does not allow: " + status


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    cnnmap, sweep = sys.argv[1], sys.argv[2]
    macs_table = read_macs(os.path.join(sweep, "macs.txt"))
    failures, counts = [], {"loaded": 0, "refused": 0, "not exported": 0, "gaps": 0}
    with open(os.path.join(sweep, "manifest.txt")) as f:
        entries = [line.rstrip("\n").split(" ", 3) for line in f if line.strip()]
    for name, opset, kind, status in entries:
        opset = int(opset)
        if status.startswith("export-failed"):
            problem, what = check_export_failure(name, opset, status), "torch cannot export it"
            counts["not exported"] += 1
        else:
            problem, what = check_file(cnnmap, sweep, name, opset, macs_table)
            counts["gaps" if what.startswith("KNOWN GAP") else
                   "refused" if what.startswith("refused") else "loaded"] += 1
        print("%-4s %-44s opset %d %-14s %s" % ("FAIL" if problem else "ok", name, opset, kind,
                                                problem or what), flush=True)
        if problem:
            failures.append("%s opset %d: %s" % (name, opset, problem))
    print("%d files: %d load, %d are refused where allowed, %d are known gaps (KNOWN_GAPS), "
          "torch exports %d not" % (len(entries), counts["loaded"], counts["refused"],
                                    counts["gaps"], counts["not exported"]))
    if not entries:
        failures.append("the manifest is empty")
    for line in failures:
        print("FAIL " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
