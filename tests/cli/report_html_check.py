#!/usr/bin/python3
"""Checks an HTML report (cnnmap export --format report-html) against the same design's
`cnnmap evaluate --json`:

    report_html_check.py REPORT.html EVALUATE.json ARCH

ARCH is streaming, latency, nn2fpga, overlay or multi. The page must parse with every
element closed in order, fetch nothing, show every node's name, and carry each figure
the JSON gives (data-* attributes, written with the JSON's 10 significant digits) equal
to the JSON's value. Prints what differs and exits 1, or prints a one-line summary."""
import html.parser
import json
import sys

VOID = {"meta", "link", "br", "hr", "img", "input", "col", "area", "base", "wbr", "source"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors = [], []
        self.figs, self.rows, self.cells = {}, [], []
        self.in_td = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-fig" in a:
            self.figs[a["data-fig"]] = a.get("data-value")
        if "data-row" in a:
            self.rows.append(a)
        if tag == "td":
            self.in_td += 1
            self.cells.append("")
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        pass  # <rect .../>: nothing to close

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append("line %d: </%s> closes %s" % (self.getpos()[0], tag,
                               self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()
        if tag == "td":
            self.in_td -= 1

    def handle_data(self, data):
        if self.in_td and self.cells:
            self.cells[-1] += data


problems = []


def same(what, html_value, json_value):
    """Equal as the JSON prints it: the same 10-digit text parses to the same double."""
    if html_value is None:
        problems.append("%s: missing in the page (JSON %r)" % (what, json_value))
    elif isinstance(json_value, str) or isinstance(json_value, bool):
        if html_value != str(json_value):
            problems.append("%s: page %r, JSON %r" % (what, html_value, json_value))
    elif float(html_value) != float(json_value):
        problems.append("%s: page %s, JSON %r" % (what, html_value, json_value))


def by(rows, kind, key):
    out = {}
    for r in rows:
        if r.get("data-row") == kind:
            if r.get(key) in out:
                problems.append("%s row %s=%s appears twice" % (kind, key, r.get(key)))
            out[r.get(key)] = r
    return out


def resources(what, row, res, keys=("DSP", "BRAM18", "URAM", "LUT", "FF")):
    for k in keys:
        if k in res:
            same("%s %s" % (what, k), row.get("data-" + k.lower()), res[k])


def resource_figures(p, res, keys=("DSP", "BRAM18", "URAM", "LUT", "FF")):
    for k in keys:
        if k in res:
            same("summary " + k, p.figs.get(k), res[k])


def figures(p, obj, keys):
    for k in keys:
        same("summary " + k, p.figs.get(k), obj[k])


def rows_named(p, items, key, kind="bar"):
    rows = by(p.rows, kind, "data-name")
    for it in items:
        if it[key] not in rows:
            problems.append("%s %s: no row in the page" % (kind, it[key]))
        if it[key] not in p.cells:
            problems.append("%s %s: its name is not shown" % (kind, it[key]))
    return rows


def streaming(p, j):
    figures(p, j, ["latency_s", "throughput_fps", "gops", "partitions"])
    resource_figures(p, j["resources"], ("DSP", "BRAM18", "LUT", "FF"))
    rows = rows_named(p, j["nodes"], "name")
    for n in j["nodes"]:
        r = rows.get(n["name"], {})
        same("node %s cycles" % n["name"], r.get("data-cycles"), n["cycles"])
        same("node %s partition" % n["name"], r.get("data-partition"), n["partition"])
        resources("node " + n["name"], r, n["resources"])
    parts = by(p.rows, "partition", "data-index")
    for i, t in enumerate(j["partition_table"]):
        r = parts.get(str(i), {})
        for k in ("interval_cycles", "depth_cycles", "time_s", "bandwidth_gbps"):
            same("partition %d %s" % (i, k), r.get("data-" + k), t[k])
        resources("partition %d" % i, r, t["resources"])
    return len(j["nodes"])


def latency(p, j):
    ld = j["latency_driven"]
    same("summary latency_s", p.figs.get("latency_s"), j["latency_s"])
    figures(p, ld, ["latency_s", "exec_s", "weights_s", "gops"])
    same("summary subgraphs", p.figs.get("subgraphs"), len(ld["schedule"]))
    resource_figures(p, ld["resources"])
    rows = rows_named(p, ld["blocks"], "name")
    for b in ld["blocks"]:
        r = rows.get(b["name"], {})
        resources("block " + b["name"], r, b["resources"])
        for k in ("coarse", "macc", "bank_bram18", "layers"):
            same("block %s %s" % (b["name"], k), r.get("data-" + k), b[k])
    subs = by(p.rows, "subgraph", "data-index")
    for i, s in enumerate(ld["schedule"]):
        r = subs.get(str(i), {})
        for k in ("first", "last", "fold", "folds", "ii_cycles", "depth_cycles", "exec_s",
                  "weights_s", "weight_words"):
            same("subgraph %d %s" % (i, k), r.get("data-" + k), s[k])
    return len(ld["blocks"]) + len(ld["schedule"])


def nn2fpga(p, j):
    figures(p, j, ["latency_s", "throughput_fps", "fps_steady", "period_cycles"])
    resource_figures(p, j["resources"], ("DSP", "BRAM18", "URAM"))
    rows = rows_named(p, j["layers"], "name")
    for l in j["layers"]:
        r, n = rows.get(l["name"], {}), l["name"]
        for k in ("lc", "lw", "ow_par", "och_par", "ich_par", "bram18_weights", "bram18_window",
                  "uram_weights", "dsp"):
            same("layer %s %s" % (n, k), r.get("data-" + k), l[k])
        same("layer %s cycles" % n, r.get("data-cycles"), max(l["lc"], l["lw"]))
        same("layer %s bram18" % n, r.get("data-bram18"), l["bram18_weights"] + l["bram18_window"])
    skips = by(p.rows, "skip", "data-name")
    for s in j["skip_connections"]:
        r = skips.get(s["name"], {})
        for k in ("activations_before", "activations_after", "bram18_before", "bram18_after"):
            same("skip %s %s" % (s["name"], k), r.get("data-" + k), s[k])
    return len(j["layers"])


def overlay(p, j):
    figures(p, j, ["latency_s", "gops"])
    resource_figures(p, j["resources"])
    rows = rows_named(p, j["layers"], "name")
    for l in j["layers"]:
        r, n = rows.get(l["name"], {}), l["name"]
        for k in ("cycles", "op", "algorithm", "compute_s", "memory_s", "transition_s"):
            same("layer %s %s" % (n, k), r.get("data-" + k), l[k])
        same("layer %s dataflow" % n, r.get("data-dataflow"), l["dataflow"] or "")
        if l["utilisation"] is not None:
            same("layer %s utilisation" % n, r.get("data-utilisation"), l["utilisation"])
    base = by(p.rows, "baseline", "data-key")
    for k, v in j["baselines"].items():
        if v is not None:
            same("baseline %s" % k, base.get(k, {}).get("data-latency_s"), v)
    return len(j["layers"])


def multi(p, j):
    figures(p, j, ["objective_value", "bandwidth_gbps"])
    # a network given twice has one name twice: rows match by position (data-group)
    rows = {r.get("data-group"): r for r in p.rows if r.get("data-row") == "bar"}
    for i, m in enumerate(j["models"]):
        r = rows.get(str(i), {})
        same("network %d name" % i, r.get("data-name"), m["model"])
        if m["model"] not in p.cells:
            problems.append("network %s: its name is not shown" % m["model"])
        for k in ("target_fps", "fps", "gops"):
            same("network %s %s" % (m["model"], k), r.get("data-" + k), m[k])
        resources("network " + m["model"], r, m["resources"])
    tasks = [r for r in p.rows if r.get("data-row") == "task"]
    if len(tasks) != len(j["schedule"]):
        problems.append("schedule: %d rows in the page, %d in the JSON" % (len(tasks), len(j["schedule"])))
    for i, (r, t) in enumerate(zip(tasks, j["schedule"])):
        for k in ("model", "subgraph", "start_s", "slowdown", "slots"):
            same("schedule %d %s" % (i, k), r.get("data-" + k), t[k])
    return len(j["models"]) + len(j["schedule"])


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    text = open(sys.argv[1], encoding="utf-8").read()
    j = json.load(open(sys.argv[2]))
    p = Page()
    p.feed(text)
    p.close()
    problems.extend(p.errors)
    problems.extend("<%s> at line %d never closed" % (t, pos[0]) for t, pos in p.stack)
    lower = text.lower()
    for bad in ("http:", "https:", "src=", "@import", "<script", "url("):
        if bad in lower:
            problems.append("the page refers outside itself: %s" % bad)
    checked = {"streaming": streaming, "latency": latency, "nn2fpga": nn2fpga,
               "overlay": overlay, "multi": multi}[sys.argv[3]](p, j)
    for msg in problems[:40]:
        print(msg)
    if problems:
        sys.exit(1)
    print("%s: %d rows and %d figures equal the JSON" % (sys.argv[1], checked, len(p.figs)))


main()
