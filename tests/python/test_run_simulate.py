"""run and simulate against the CLI: the executor's arrays and digests, the simulator's
figures and tables, and their error classes."""
import json
import os

import numpy as np
import pytest

import cnnmap
from conftest import strip_volatile


def _lenet(shared_models):
    return os.path.join(shared_models, "lenet.onnx")


def _resnet8(shared_models):
    return os.path.join(shared_models, "resnet8_a8w8b16.onnx")


def _cli_run(cli, tmp_path, model, x, *extra):
    """`cnnmap run MODEL --input X.npy -o Y.npy --json`: its array and its JSON."""
    xp, yp = tmp_path / "cli_x.npy", tmp_path / "cli_y.npy"
    np.save(xp, x)
    rc, out, err = cli("run", model, "--input", xp, "-o", yp, "--json", "--quiet", *extra)
    assert rc == 0, err
    return np.load(yp), out


# ---- run ----

def _lenet_reference(x, model):
    """LeNet-5 in numpy from the file's weights: conv 5x5, maxpool 2x2, conv 5x5,
    maxpool 2x2, fc 500 + ReLU, fc 10 (its Pads add nothing: all zero)."""
    import onnx
    from onnx import numpy_helper
    w = {t.name: numpy_helper.to_array(t).astype(np.float64)
         for t in onnx.load(model).graph.initializer}
    assert not w["Pad_pads"].any() and not w["Pad1_pads"].any()

    def conv(a, k, b):
        n, c, h, wd = a.shape
        o, _, kh, kw = k.shape
        cols = np.stack([a[:, :, i:i + h - kh + 1, j:j + wd - kw + 1]
                         for i in range(kh) for j in range(kw)], axis=2)
        return np.einsum("ncphw,ocp->nohw", cols, k.reshape(o, c, kh * kw)) + \
            b[None, :, None, None]

    def pool(a):
        n, c, h, wd = a.shape
        return a.reshape(n, c, h // 2, 2, wd // 2, 2).max(axis=(3, 5))

    a = pool(conv(x.astype(np.float64), w["convolution_W"], w["convolution_B"]))
    a = pool(conv(a, w["convolution1_W"], w["convolution1_B"])).reshape(len(x), -1)
    a = np.maximum(a @ w["innerProduct_B"].T + w["innerProduct_C"], 0)
    return a @ w["innerProduct1_B"].T + w["innerProduct1_C"]


def test_run_lenet_equals_cli_and_numpy(cli, shared_models, tmp_path):
    model = _lenet(shared_models)
    x = np.random.default_rng(7).uniform(-1, 1, (3, 1, 28, 28)).astype(np.float32)
    y, info = cnnmap.run(model, x, info=True)
    y_cli, out = _cli_run(cli, tmp_path, model, x)
    assert y.shape == (3, 10) and y.dtype == np.float32
    assert np.array_equal(y, y_cli)
    assert strip_volatile(info) == strip_volatile(out)
    assert info["model"] == model and info["input_shape"] == [3, 1, 28, 28]
    assert info["output_shape"] == [3, 10] and info["output_dtype"] == "float32"
    assert np.allclose(y, _lenet_reference(x, model), rtol=1e-4, atol=1e-4)


def test_run_frames_do_not_depend_on_the_batch(shared_models):
    model = _lenet(shared_models)
    x = np.random.default_rng(11).uniform(-1, 1, (2, 1, 28, 28)).astype(np.float32)
    both = cnnmap.run(model, x)
    one_by_one = np.concatenate([cnnmap.run(model, x[k:k + 1]) for k in range(2)])
    assert np.array_equal(both, one_by_one)


def test_run_named_tensor(cli, shared_models, tmp_path):
    # --output NAME: an inner tensor, pool1 (20 x 12 x 12 after conv1 and its pool)
    model = _lenet(shared_models)
    x = np.random.default_rng(3).uniform(-1, 1, (1, 1, 28, 28)).astype(np.float32)
    y, info = cnnmap.run(model, [x], output="pool1", info=True)
    y_cli, out = _cli_run(cli, tmp_path, model, x, "--output", "pool1")
    assert y.shape == (1, 20, 12, 12)
    assert np.array_equal(y, y_cli)
    assert strip_volatile(info) == strip_volatile(out)


def test_run_qonnx_equals_cli(cli, shared_models, tmp_path):
    model = _resnet8(shared_models)
    x = np.random.default_rng(5).uniform(-2, 2, (2, 3, 32, 32)).astype(np.float32)
    y, info = cnnmap.run(model, x, info=True)
    y_cli, out = _cli_run(cli, tmp_path, model, x)
    assert np.array_equal(y, y_cli)
    assert strip_volatile(info) == strip_volatile(out)
    assert info["input_shape"] == [2, 3, 32, 32] and info["output_shape"][0] == 2
    one_by_one = np.concatenate([cnnmap.run(model, x[k:k + 1]) for k in range(2)])
    assert np.array_equal(y, one_by_one)


def test_run_digest_only(cli, shared_models, tmp_path):
    # without output_file the reply is the digest alone, as `run --json` without -o
    model = _lenet(shared_models)
    xp = tmp_path / "x.npy"
    np.save(xp, np.zeros((1, 1, 28, 28), np.float32))
    reply = cnnmap._native.call("run", model=model, input=str(xp))
    rc, out, _ = cli("run", model, "--input", xp, "--json")
    assert rc == 0
    assert strip_volatile(reply) == strip_volatile(out)
    assert len(reply["output_sha256"]) == 64


def test_run_errors(cli, shared_models, tmp_path):
    model = _lenet(shared_models)
    missing = tmp_path / "missing.onnx"
    with pytest.raises(cnnmap.BadInput) as e:
        cnnmap.run(missing, np.zeros((1, 1, 28, 28), np.float32))
    assert e.value.code == 2 and str(missing) in e.value.message

    # the wrong shape: the input file is named, as the CLI names it
    bad = np.zeros((1, 1, 30, 28), np.float32)
    with pytest.raises(cnnmap.BadInput) as e:
        cnnmap.run(model, bad)
    xp = tmp_path / "bad.npy"
    np.save(xp, bad)
    rc, _, err = cli("run", model, "--input", xp, "--json")
    assert rc == 2 and e.value.code == 2
    # the same line but the input's (temporary) file name
    cli_line = err.strip()[len("cnnmap: "):]
    assert cli_line.split(": ", 1)[1] == e.value.message.split(": ", 1)[1]

    with pytest.raises(cnnmap.UsageError):
        cnnmap._native.call("run", model=model)  # no input
    with pytest.raises(cnnmap.UsageError):
        cnnmap._native.call("run", model=model, input=[str(xp)] * 65)
    with pytest.raises(cnnmap.UsageError):
        cnnmap._native.call("run", model=model, input=str(xp), colour="blue")


# ---- simulate ----

@pytest.fixture(scope="module")
def designs(tmp_path_factory):
    """A FINN design of LeNet and an nn2FPGA design of ResNet8, made by the CLI."""
    exe, shared = os.environ.get("CNNMAP_CLI"), os.environ.get("CNNMAP_SHARED")
    if not exe or not shared:
        pytest.skip("run the tests through ctest")
    import subprocess
    d = tmp_path_factory.mktemp("designs")
    made = {}
    for name, model, board, backend in (
            ("lenet", "lenet.onnx", "zedboard", "finn"),
            ("resnet8", "resnet8_a8w8b16.onnx", "kv260", "nn2fpga")):
        path = str(d / (name + ".json"))
        p = subprocess.run([exe, "optimise", os.path.join(shared, "models", model), "--board",
                            board, "--backend", backend, "-o", path, "--quiet"],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert p.returncode == 0, p.stderr
        made[name] = path
    return made


def test_simulate_equals_cli(cli, designs):
    for path in designs.values():
        got = cnnmap.simulate(path)
        rc, out, err = cli("simulate", path, "--json", "--quiet")
        assert rc == 0, err
        assert strip_volatile(got) == strip_volatile(out)
        assert got["frames"] == 4 and got["fifo_depths"] == "design"
        assert got["deadlock"] is False and got["simulated"]["latency_cycles"] > 0
    lenet = cnnmap.simulate(designs["lenet"], frames=2)
    rc, out, _ = cli("simulate", designs["lenet"], "--frames", 2, "--json", "--quiet")
    assert strip_volatile(lenet) == strip_volatile(out) and lenet["frames"] == 2
    assert lenet["architecture"] == "streaming"


def test_simulate_figures_by_hand(designs):
    # the JSON's seconds are the cycles at the design's clock; difference is sim/ana - 1
    r = cnnmap.simulate(cnnmap.load_design(designs["lenet"]))
    s, a = r["simulated"], r["analytic"]
    assert s["latency_s"] == pytest.approx(s["latency_cycles"] / (r["clock_mhz"] * 1e6))
    assert r["difference"]["interval"] == pytest.approx(
        s["interval_cycles"] / a["interval_cycles"] - 1)
    assert all(x["max_occupancy"] <= x["depth"] or x["depth"] == 0 for x in r["streams"])


def test_simulate_auto_depths_written(cli, designs, tmp_path):
    path = designs["resnet8"]
    mine, theirs = tmp_path / "api.json", tmp_path / "cli.json"
    got = cnnmap.simulate(path, fifo_depths="auto", output=str(mine))
    rc, out, err = cli("simulate", path, "--fifo-depths", "auto", "-o", theirs, "--json",
                       "--quiet")
    assert rc == 0, err
    assert strip_volatile(got) == strip_volatile(out) and got["fifo_depths"] == "auto"
    assert json.load(open(mine)) == json.load(open(theirs))
    again = cnnmap.simulate(str(mine))
    assert again["simulated"]["interval_cycles"] == got["simulated"]["interval_cycles"]


def test_simulate_deadlock_is_infeasible(cli, designs, tmp_path):
    # every FIFO of the sized ResNet8 design cut to one word (as test_simulate_cli.sh)
    sized = tmp_path / "sized.json"
    cnnmap.simulate(designs["resnet8"], fifo_depths="auto", output=str(sized))
    d = json.load(open(sized))
    for k in d["fifo_depths"]:
        d["fifo_depths"][k] = 1
    dl = tmp_path / "deadlock.json"
    json.dump(d, open(dl, "w"))
    out = tmp_path / "never.json"
    with pytest.raises(cnnmap.Infeasible) as e:
        cnnmap.simulate(dl, output=str(out))
    rc, _, err = cli("simulate", dl, "-o", out, "--json", "--quiet")
    assert rc == e.value.code == 3
    assert not out.exists()
    line = err.strip()
    assert line.startswith("cnnmap: %s: deadlock: " % dl) and " waits for " in line
    # the API's line is the CLI's, cut at the error record's 511 characters
    cli_message = line[len("cnnmap: "):]
    if len(cli_message) < 511:
        assert e.value.message == cli_message
    else:
        assert cli_message.startswith(e.value.message) and len(e.value.message) == 511


def test_simulate_errors(cli, designs, tmp_path):
    with pytest.raises(cnnmap.UsageError) as e:
        cnnmap.simulate(designs["lenet"], frames=0)
    assert e.value.code == 1 and "frames" in e.value.message
    with pytest.raises(cnnmap.UsageError):
        cnnmap.simulate(designs["lenet"], fifo_depths="deep")
    with pytest.raises(cnnmap.UsageError):
        cnnmap.simulate(designs["lenet"], time_limit=0)
    missing = tmp_path / "none.json"
    with pytest.raises(cnnmap.BadInput) as e:
        cnnmap.simulate(missing)
    rc, _, err = cli("simulate", missing)
    assert rc == e.value.code == 2
    assert err.strip() == "cnnmap: " + e.value.message


def test_simulate_cut_by_the_time_limit_is_infeasible(cli, designs, tmp_path):
    # the limit counts loading too: a millisecond cuts the first simulation (exit 3)
    out = tmp_path / "never.json"
    with pytest.raises(cnnmap.Infeasible) as e:
        cnnmap.simulate(designs["resnet8"], time_limit=0.001, output=str(out))
    rc, got, err = cli("simulate", designs["resnet8"], "--time-limit", 0.001, "-o", out,
                       "--json", "--quiet")
    assert rc == e.value.code == 3 and got["partial"] is True
    assert err.strip() == "cnnmap: " + e.value.message
    assert e.value.message.endswith("(no design written)") and not out.exists()
