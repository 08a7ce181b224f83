"""export and sweep through the package, against the CLI's files; the export
refusals' error classes."""
import filecmp
import json
import os

import pytest

import cnnmap
from conftest import strip_volatile


@pytest.fixture
def lenet_design(cli, shared_models, tmp_path):
    """LeNet's FINN design on a ZedBoard, written by the CLI."""
    path = tmp_path / "lenet_finn.json"
    rc, _, err = cli("optimise", os.path.join(shared_models, "lenet.onnx"), "--board", "zedboard",
                     "--backend", "finn", "--quiet", "-o", path)
    assert rc == 0, err
    return path


@pytest.mark.parametrize("fmt", ["finn", "finn-v0.6", "report-md", "report-html"])
def test_export_equals_cli(cli, lenet_design, tmp_path, fmt):
    mine, theirs = tmp_path / ("py." + fmt), tmp_path / ("cli." + fmt)
    reply = cnnmap._native.call("export", design=str(lenet_design), format=fmt, output=str(mine))
    assert reply == {"design": str(lenet_design), "format": fmt, "output": str(mine)}
    rc, _, err = cli("export", lenet_design, "--format", fmt, "-o", theirs)
    assert rc == 0, err
    assert filecmp.cmp(mine, theirs, shallow=False)


def test_finn_export_names_every_node(lenet_design, tmp_path):
    out = tmp_path / "finn.json"
    cnnmap.export(lenet_design, "finn", out)
    config = json.loads(out.read_text())
    design = cnnmap.evaluate(lenet_design)
    names = [k for k in config if k != "Defaults"]
    # LeNet on FINN: two convolutions (an input generator and an MVAU each), two pools,
    # two fully connected MVAUs; every name is today's FINN's.
    assert sum(n.startswith("MVAU_") for n in names) == 4
    assert sum(n.startswith("ConvolutionInputGenerator_rtl_") for n in names) == 2
    assert all("StreamingFCLayer" not in n for n in names)
    assert len(design["nodes"]) >= len(names) - 2


def test_export_refusals(cli, lenet_design, tmp_path):
    out = tmp_path / "x"
    with pytest.raises(cnnmap.UsageError) as e:
        cnnmap.export(lenet_design, "verilog", out)
    rc, _, err = cli("export", lenet_design, "--format", "verilog", "-o", out)
    assert e.value.code == rc == 1
    assert err.strip() == "cnnmap: " + e.value.message
    with pytest.raises(cnnmap.BadInput) as e:
        cnnmap.export(lenet_design, "hls", tmp_path / "prj")  # not an nn2FPGA design
    rc, _, err = cli("export", lenet_design, "--format", "hls", "-o", tmp_path / "prj")
    assert e.value.code == rc == 2
    assert err.strip() == "cnnmap: " + e.value.message
    with pytest.raises(cnnmap.BadInput):
        cnnmap.export(tmp_path / "missing.json", "finn", out)
    with pytest.raises(cnnmap.UsageError):
        cnnmap._native.call("export", design=str(lenet_design), format="finn")  # no output
    assert not out.exists()


def test_hls_export_equals_cli(cli, shared_models, tmp_path):
    design = tmp_path / "r8.json"
    rc, _, err = cli("optimise", os.path.join(shared_models, "resnet8_a8w8b16.onnx"), "--board",
                     "kv260", "--backend", "nn2fpga", "--quiet", "-o", design)
    assert rc == 0, err
    reply = cnnmap._native.call("export", design=str(design), format="hls",
                                output=str(tmp_path / "py"), test_vectors=2)
    rc, _, err = cli("export", design, "--format", "hls", "-o", tmp_path / "cli",
                     "--test-vectors", "2")
    assert rc == 0, err
    hls = reply["hls"]
    assert hls["files"] > 0 and hls["tasks"] > 0
    # ResNet8 has three residual blocks, each with a skip FIFO.
    assert len(hls["skips"]) == 3
    cmp = filecmp.dircmp(tmp_path / "py", tmp_path / "cli")
    assert not cmp.left_only and not cmp.right_only and not cmp.diff_files


def test_sweep_equals_cli(cli, shared_models, tmp_path):
    lenet = os.path.join(shared_models, "lenet.onnx")
    mine = cnnmap.sweep(lenet, ["zedboard", "zc706"], backend=["fpgaconvnet", "hls4ml"], steps=3,
                        threads=2)
    out = tmp_path / "sweep.json"
    rc, _, err = cli("sweep", lenet, "--board", "zedboard,zc706", "--backend",
                     "fpgaconvnet,hls4ml", "--steps", "3", "--threads", "2", "--quiet", "-o", out)
    assert rc == 0, err
    assert strip_volatile(mine) == strip_volatile(json.loads(out.read_text()))
    # 2 boards x 2 backends x 3 caps; along each front, more of the board is faster.
    points = mine["points"]
    assert len(points) == 12
    for board in ("zedboard", "zc706"):
        for backend in ("fpgaconvnet", "hls4ml"):
            front = sorted((p["util"], p["latency_s"]) for p in points
                           if p["board"] == board and p["backend"] == backend and p["on_front"])
            assert all(a[1] > b[1] for a, b in zip(front, front[1:]))


def test_sweep_refusals(shared_models):
    lenet = os.path.join(shared_models, "lenet.onnx")
    with pytest.raises(cnnmap.UsageError):
        cnnmap.sweep(lenet, "zedboard", steps=0)
    with pytest.raises(cnnmap.UsageError):
        cnnmap.sweep(lenet, "zedboard", backend="nn3fpga")
    with pytest.raises(cnnmap.UsageError):
        cnnmap.sweep(lenet, "zedboard", output="sweep.txt")
    with pytest.raises(cnnmap.BadInput):
        cnnmap.sweep(lenet, "no-such-board")


def test_long_calls_release_the_gil(test_models):
    # While a sweep runs in C (anneal, stopped by its time limit), another Python thread
    # keeps running: it could not if the call held the GIL.
    import threading
    import time

    done, ticks = threading.Event(), [0]

    def count():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    try:
        r = cnnmap.sweep(os.path.join(test_models, "torchvision", "resnet18_noweights.onnx"),
                         "zcu102", backend="fpgaconvnet", steps=2, threads=1,
                         optimiser="anneal", time_limit=1)
    finally:
        done.set()
        t.join()
    assert len(r["points"]) == 2
    assert ticks[0] > 20


def test_fpgaconvnet_export_refuses_what_it_cannot_describe(test_models, tmp_path):
    # fpgaConvNet's partitions have no channel-shuffle layer type: the export names the
    # design file and the layer instead of writing another type.
    net = os.path.join(test_models, "torchvision", "shufflenet_v2_x0_5_noweights.onnx")
    d = cnnmap.optimise(net, "zcu102", backend="fpgaconvnet", optimiser="none")
    out = tmp_path / "fcn.json"
    with pytest.raises(cnnmap.BadInput) as e:
        d.export("fpgaconvnet", out)
    assert e.value.message.startswith(d.path + ": layer ")
    assert "(shuffle) has no fpgaConvNet layer type" in e.value.message
    assert not out.exists()
    d.export("report-md", out)  # the report describes any design
    assert out.read_text().startswith("#")


def test_save_into_a_missing_folder_is_bad_input(lenet_design, tmp_path):
    d = cnnmap.load_design(lenet_design)
    target = tmp_path / "no" / "such" / "folder" / "d.json"
    with pytest.raises(cnnmap.BadInput) as e:
        d.save(target)
    assert e.value.code == 2 and str(target) in e.value.message
    assert not (tmp_path / "no").exists()
    saved = d.save(tmp_path / "copy.json")
    assert filecmp.cmp(saved, lenet_design, shallow=False)
