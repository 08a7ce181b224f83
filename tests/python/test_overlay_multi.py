"""overlay, multi and compare through the Python package against the CLI's --json, the
design files they write against evaluate, figures checked by hand, and the error
classes."""
import json
import os

import pytest

import cnnmap
from conftest import strip_volatile

TINY_BOARD = {
    "name": "tiny", "display_name": "Tiny", "part": "none", "memory": "none",
    "resources": {"LUT": 1000, "FF": 2000, "DSP": 1, "BRAM": 1, "URAM": 0},
    "bram_unit": "BRAM18", "clock_mhz": 100.0, "bandwidth_gbps": 1.0,
    "peak_bandwidth_gbps": 1.0, "reconfiguration_s": 0.01, "reconfiguration_estimated": True}


@pytest.fixture
def lenet(shared_models):
    return os.path.join(shared_models, "lenet.onnx")


@pytest.fixture
def cifar(repo_models):
    return os.path.join(repo_models, "cifar10_quick.onnx")


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(TINY_BOARD))
    return str(path)


def cli_json(cli, *args):
    rc, out, err = cli(*args, "--json")
    assert rc == 0, err
    return strip_volatile(out)


def evaluated_by_cli(cli, path):
    """What `cnnmap evaluate PATH --json` prints for a design file the API wrote."""
    return cli_json(cli, "evaluate", path)


def assert_same_error(e, cli, *args):
    """The exception carries the CLI's exit code and its line (a usage line without
    the hint that follows it)."""
    rc, _, err = cli(*args)
    assert e.value.code == rc
    line = err.strip()
    assert line == "cnnmap: " + e.value.message or \
        line.startswith("cnnmap: " + e.value.message + " (see 'cnnmap "), (line, e.value.message)


# ---- overlay ----

def test_overlay_equals_cli(cli, lenet, cifar):
    for model, board, options, args in (
            (lenet, "zc706", {}, ()),
            (cifar, "zc706", {}, ()),
            (cifar, "zedboard", {"dsp_limit": 200, "algorithms": "im2col,kn2row"},
             ("--dsp-limit", 200, "--algorithms", "im2col,kn2row")),
            (lenet, "u200", {"array": "16x8", "time_limit": 30},
             ("--array", "16x8", "--time-limit", 30))):
        d = cnnmap.overlay(model, board, **options)
        assert strip_volatile(d.summary()) == cli_json(cli, "overlay", model, "--board", board,
                                                       *args)
        # the design file the call wrote evaluates to what it replied
        assert evaluated_by_cli(cli, d.path) == strip_volatile(d.summary())


def test_overlay_lenet_by_hand(lenet):
    # LeNet: 2,293,000 MACs (inspect); the array uses one DSP per PE, zc706 has 900.
    s = cnnmap.overlay(lenet, "zc706").summary()
    macs = cnnmap.load_model(lenet).totals["macs"]
    assert macs == 2293000
    assert s["array"][0] * s["array"][1] <= 900
    # end-to-end latency: each layer's compute, memory and transition times in turn
    total = sum(l["compute_s"] + l["memory_s"] + l["transition_s"] for l in s["layers"])
    assert s["latency_s"] == pytest.approx(total, rel=1e-8)
    # GOp/s: two operations per MAC over that latency
    assert s["gops"] == pytest.approx(2 * macs / s["latency_s"] / 1e9, rel=1e-8)


def test_overlay_design_file_loads(cli, cifar, tmp_path):
    d = cnnmap.overlay(cifar, "zc706")
    path = d.save(tmp_path / "overlay.json")
    loaded = cnnmap.load_design(path).summary()
    assert strip_volatile(loaded) == evaluated_by_cli(cli, path)
    assert strip_volatile(loaded) == strip_volatile(d.summary())


def test_overlay_errors(cli, lenet, tmp_path):
    with pytest.raises(cnnmap.UsageError) as e:
        cnnmap.overlay(lenet, "zc706", array="3y4")
    assert_same_error(e, cli, "overlay", lenet, "--board", "zc706", "--array", "3y4")
    with pytest.raises(cnnmap.UsageError) as e:
        cnnmap.overlay(lenet, "zc706", algorithms="im2col,fft")
    assert_same_error(e, cli, "overlay", lenet, "--board", "zc706", "--algorithms", "im2col,fft")
    with pytest.raises(cnnmap.UsageError):
        cnnmap.overlay(lenet, "zc706", dsp_limit=-1)
    with pytest.raises(cnnmap.UsageError):
        cnnmap.overlay(lenet, "zc706", time_limit=0)
    missing = tmp_path / "nope.onnx"
    with pytest.raises(cnnmap.BadInput) as e:
        cnnmap.overlay(missing, "zc706")
    assert_same_error(e, cli, "overlay", missing, "--board", "zc706")
    with pytest.raises(cnnmap.Infeasible) as e:
        cnnmap.overlay(lenet, "zc706", dsp_limit=0)
    assert_same_error(e, cli, "overlay", lenet, "--board", "zc706", "--dsp-limit", 0)


# ---- multi ----

def test_multi_equals_cli(cli, lenet, cifar, tmp_path):
    for options, args in (
            ({}, ()),
            ({"objective": "throughput", "bandwidth": 0.5, "scheduler": "list"},
             ("--objective", "throughput", "--bandwidth", 0.5, "--scheduler", "list"))):
        d = cnnmap.multi([lenet, cifar + ":2000"], "zc706", **options)
        expected = cli_json(cli, "multi", "--board", "zc706", "--model", lenet, "--model",
                            cifar + ":2000", *args)
        assert strip_volatile(d.summary()) == expected
        assert evaluated_by_cli(cli, d.path) == expected


def test_multi_report_md_equals_cli(cli, lenet, cifar, tmp_path):
    api_md, cli_md = tmp_path / "api.md", tmp_path / "cli.md"
    cnnmap.multi([lenet, cifar], "zc706", report_md=str(api_md))
    rc, _, _ = cli("multi", "--board", "zc706", "--model", lenet, "--model", cifar,
                   "--report-md", cli_md)
    assert rc == 0
    assert api_md.read_text() == cli_md.read_text()


def test_multi_by_hand(lenet, cifar):
    # each network's GOp/s is its frame rate times two operations per MAC
    s = cnnmap.multi([lenet, cifar], "zc706").summary()
    for m, path in zip(s["models"], (lenet, cifar)):
        macs = cnnmap.load_model(path).totals["macs"]
        assert m["gops"] == pytest.approx(m["fps"] * 2 * macs / 1e9, rel=1e-8)
        assert 0 < m["fps"] <= m["target_fps"] * (1 + 1e-9)
    assert s["bandwidth_gbps"] == cnnmap.board("zc706")["bandwidth_gbps"]


def test_multi_design_file_loads(cli, lenet, cifar, tmp_path):
    d = cnnmap.multi([lenet, cifar], "zc706")
    path = d.save(tmp_path / "multi.json")
    loaded = cnnmap.load_design(path).summary()
    assert strip_volatile(loaded) == evaluated_by_cli(cli, path)
    assert strip_volatile(loaded) == strip_volatile(d.summary())


def test_multi_errors(cli, lenet, cifar, tiny, tmp_path):
    with pytest.raises(cnnmap.UsageError) as e:
        cnnmap.multi([lenet], "zc706")
    assert_same_error(e, cli, "multi", "--board", "zc706", "--model", lenet)
    with pytest.raises(cnnmap.UsageError) as e:
        cnnmap.multi([lenet, cifar], "zc706", objective="speed")
    assert_same_error(e, cli, "multi", "--board", "zc706", "--model", lenet, "--model", cifar,
                      "--objective", "speed")
    with pytest.raises(cnnmap.UsageError) as e:
        cnnmap.multi([lenet, cifar + ":-3"], "zc706")
    assert_same_error(e, cli, "multi", "--board", "zc706", "--model", lenet, "--model",
                      cifar + ":-3")
    with pytest.raises(cnnmap.UsageError):
        cnnmap.multi([lenet, cifar], "zc706", bandwidth=0)
    missing = str(tmp_path / "nope.onnx")
    with pytest.raises(cnnmap.BadInput) as e:
        cnnmap.multi([lenet, missing], "zc706")
    assert_same_error(e, cli, "multi", "--board", "zc706", "--model", lenet, "--model", missing)
    with pytest.raises(cnnmap.Infeasible) as e:
        cnnmap.multi([lenet, cifar], tiny)
    assert_same_error(e, cli, "multi", "--board", tiny, "--model", lenet, "--model", cifar)


# ---- compare ----

def test_compare_equals_cli(cli, lenet, tmp_path):
    c = cnnmap.compare(lenet, "zc706")
    assert strip_volatile(c) == cli_json(cli, "compare", lenet, "--board", "zc706")
    c = cnnmap.compare(lenet, "zc706", objective="throughput", batch=16,
                       only="fpgaconvnet,overlay", time_limit=100, quiet=True)
    assert strip_volatile(c) == cli_json(cli, "compare", lenet, "--board", "zc706",
                                         "--objective", "throughput", "--batch", 16, "--only",
                                         "fpgaconvnet,overlay", "--time-limit", 100)
    # -o: the best design's file, as its architecture's command writes it
    out = tmp_path / "best.json"
    c = cnnmap.compare(lenet, "zc706", output=str(out))
    best = c["candidates"][c["best"]]
    assert evaluated_by_cli(cli, out)["latency_s"] == best["latency_s"]


def test_compare_by_hand(lenet):
    # latency objective: one sample a run, so the throughput is the latency's inverse;
    # the overlay candidate is what overlay itself gives
    c = cnnmap.compare(lenet, "zc706")
    for x in c["candidates"]:
        if x["feasible"]:
            assert x["throughput_fps"] == pytest.approx(1 / x["latency_s"], rel=1e-8)
    overlay = next(x for x in c["candidates"] if x["architecture"] == "overlay")
    assert overlay["latency_s"] == cnnmap.overlay(lenet, "zc706").summary()["latency_s"]
    feasible = [i for i, x in enumerate(c["candidates"]) if x["feasible"]]
    assert c["best"] == min(feasible, key=lambda i: c["candidates"][i]["latency_s"])


def test_compare_errors(cli, lenet, tiny, tmp_path):
    for options, args in (({"batch": 0}, ("--batch", 0)),
                          ({"objective": "speed"}, ("--objective", "speed")),
                          ({"only": "finn,fpga"}, ("--only", "finn,fpga"))):
        with pytest.raises(cnnmap.UsageError) as e:
            cnnmap.compare(lenet, "zc706", **options)
        if "batch" not in options:  # the request's own range message for a number
            assert_same_error(e, cli, "compare", lenet, "--board", "zc706", *args)
    with pytest.raises(cnnmap.BadInput) as e:
        cnnmap.compare(lenet, "nosuchboard")
    assert_same_error(e, cli, "compare", lenet, "--board", "nosuchboard")
    # nothing fits: the CLI prints the table and exits 3; the call raises Infeasible
    out = tmp_path / "none.json"
    with pytest.raises(cnnmap.Infeasible) as e:
        cnnmap.compare(lenet, tiny, only="fpgaconvnet,overlay", output=str(out))
    assert not out.exists()
    assert_same_error(e, cli, "compare", lenet, "--board", tiny, "--only", "fpgaconvnet,overlay",
                      "-o", out)
    assert not out.exists()


# ---- export of overlay and multi design files ----

def test_export_equals_cli(cli, lenet, cifar, tmp_path):
    designs = (cnnmap.overlay(lenet, "zc706"), cnnmap.multi([lenet, cifar], "zc706"))
    for k, d in enumerate(designs):
        for fmt in ("report-md", "report-html"):
            api_out, cli_out = tmp_path / ("api%d.%s" % (k, fmt)), tmp_path / ("cli%d" % k)
            d.export(fmt, api_out)
            rc, _, err = cli("export", d.path, "--format", fmt, "-o", cli_out)
            assert rc == 0, err
            assert api_out.read_bytes() == cli_out.read_bytes()
    # an overlay design has no streaming formats
    with pytest.raises(cnnmap.BadInput) as e:
        designs[0].export("finn", tmp_path / "finn.json")
    assert_same_error(e, cli, "export", designs[0].path, "--format", "finn", "-o",
                      tmp_path / "finn.json")
