"""optimise (fpgaConvNet with its latency-driven flow, FINN, hls4ml, nn2FPGA) against
`cnnmap optimise --json`, its design files against the CLI's -o files, load_design
against `cnnmap evaluate --json`, and the error classes."""
import json
import os
import re

import pytest

import cnnmap
from conftest import strip_volatile

# A design file's measured figures (the search's time) differ between two runs.
_TIMES = re.compile(rb'"(time_s|elapsed_s|search_time_s)": [-0-9.e+]+')


def _same_file(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return _TIMES.sub(b"T", fa.read()) == _TIMES.sub(b"T", fb.read())


def _cli_args(model, board, backend, objective, options):
    args = ["optimise", model, "--board", board, "--backend", backend, "--objective", objective]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        args += [flag] if value is True else [flag, value]
    return args


# (model, board, backend, objective, options): each architecture's design file kinds.
CASES = {
    # fpgaConvNet on the latency objective: the latency-driven design competes (the CLI's
    # latency tests use cifar10_quick on the ZC706, where it is chosen)
    "fcn_latency_choice": ("repo:cifar10_quick.onnx", "zc706", "fpgaconvnet", "latency", {}),
    "fcn_lenet_sdf": ("shared:lenet.onnx", "zedboard", "fpgaconvnet", "latency", {"sdf": True}),
    "fcn_no_wr": ("repo:cifar10_quick.onnx", "zc706", "fpgaconvnet", "latency",
                  {"no_weights_reloading": True}),
    "fcn_target_fps": ("repo:cifar10_quick.onnx", "zc706", "fpgaconvnet", "throughput",
                       {"target_fps": 1000}),
    # exact on both flows: the bound covers both
    "fcn_exact": ("shared:lenet.onnx", "zedboard", "fpgaconvnet", "latency",
                  {"optimiser": "exact"}),
    # --gap: the API's option is the CLI's
    "fcn_exact_gap": ("shared:lenet.onnx", "zc706", "fpgaconvnet", "throughput",
                      {"optimiser": "exact", "gap": 0.05}),
    "fcn_anneal": ("repo:cifar10_quick.onnx", "zc706", "fpgaconvnet", "throughput",
                   {"optimiser": "anneal", "seed": 3, "batch": 16}),
    "fcn_anneal_threads": ("repo:cifar10_quick.onnx", "zc706", "fpgaconvnet", "throughput",
                           {"optimiser": "anneal", "seed": 3, "batch": 16, "threads": 2}),
    "fcn_no_reconf": ("shared:lenet.onnx", "zc706", "fpgaconvnet", "throughput",
                      {"no_reconf": True, "time_limit": 60}),
    "finn_throughput": ("shared:lenet.onnx", "zedboard", "finn", "throughput", {"batch": 64}),
    "finn_bits_clock": ("shared:lenet.onnx", "zc706", "finn", "throughput",
                        {"bits": 8, "clock": 150}),
    "finn_max_util": ("repo:cifar10_quick.onnx", "zc706", "finn", "latency", {"max_util": 0.5}),
    "hls4ml_latency": ("shared:lenet.onnx", "zc706", "hls4ml", "latency", {"optimiser": "rule"}),
    "hls4ml_throughput": ("repo:cifar10_quick.onnx", "zc706", "hls4ml", "throughput", {}),
    "nn2fpga": ("shared:resnet8_a8w8b16.onnx", "kv260", "nn2fpga", "throughput", {}),
    "nn2fpga_latency_none": ("shared:resnet8_a8w8b16.onnx", "kv260", "nn2fpga", "latency",
                             {"optimiser": "none", "no_temporal_reuse": True,
                              "no_loop_merge": True}),
    "nn2fpga_exact": ("shared:resnet8_a4w4b32.onnx", "ultra96-v2", "nn2fpga", "throughput",
                      {"optimiser": "exact", "clock": 200, "time_limit": 60}),
}


@pytest.fixture
def model_path(shared_models, repo_models):
    def where(name):
        folder, _, file = name.partition(":")
        return os.path.join(shared_models if folder == "shared" else repo_models, file)
    return where


@pytest.mark.parametrize("case", sorted(CASES))
def test_optimise_equals_cli(case, cli, model_path, tmp_path):
    model, board, backend, objective, options = CASES[case]
    model = model_path(model)
    d = cnnmap.optimise(model, board, backend=backend, objective=objective, **options)
    cli_file = tmp_path / "cli.json"
    rc, out, err = cli(*_cli_args(model, board, backend, objective, options), "--json",
                       "-o", cli_file)
    assert rc == 0, err
    assert strip_volatile(d.summary()) == strip_volatile(out)
    assert strip_volatile(d.nodes) == strip_volatile(
        out["layers"] if backend == "nn2fpga" else out["nodes"])
    saved = d.save(tmp_path / "api.json")
    assert _same_file(saved, cli_file)

    # evaluate of the file: the API's load_design and the CLI agree, on both files
    rc, evaluated, err = cli("evaluate", saved, "--json", *(["--sdf"] if "sdf" in options else []))
    assert rc == 0, err
    loaded = cnnmap.evaluate(saved, sdf=True) if "sdf" in options else \
        cnnmap.load_design(saved).summary()
    assert strip_volatile(loaded) == strip_volatile(evaluated)


def test_choice_reports_both_flows(model_path):
    d = cnnmap.optimise(model_path("repo:cifar10_quick.onnx"), "zc706")
    s = d.summary()
    assert s["chosen"] == "latency_driven"
    assert s["latency_s"] == s["latency_driven"]["latency_s"]
    assert s["latency_s"] < s["throughput_driven"]["latency_s"]
    with open(d.path) as f:
        assert json.load(f)["format"] == "cnnmap-latency-design"
    # without weights reloading only the partitioned design is searched
    p = cnnmap.optimise(model_path("repo:cifar10_quick.onnx"), "zc706",
                        no_weights_reloading=True).summary()
    assert "chosen" not in p and p["latency_s"] == s["throughput_driven"]["latency_s"]
    # exact on both flows: a bound over both, at most the chosen latency
    e = cnnmap.optimise(model_path("shared:lenet.onnx"), "zedboard", optimiser="exact").summary()
    assert e["lower_bound_covers"] == ["throughput_driven", "latency_driven"]
    assert e["lower_bound_s"] <= e["latency_s"]


def test_figures_by_hand(model_path):
    # LeNet's conv1 (20 filters 5x5 over 1x28x28) with every folding 1: one MAC a cycle,
    # so 20 * 24 * 24 * 25 cycles (backend-models.md 2.7: latency = the slowest module's
    # words over its rate, here the convolution's).
    d = cnnmap.optimise(model_path("shared:lenet.onnx"), "zc706", optimiser="none",
                        no_weights_reloading=True)
    conv1 = d.nodes[0]
    assert conv1["op"] == "Convolution" and conv1["kernel_folding"] == 1
    assert conv1["cycles"] == 20 * 24 * 24 * 5 * 5
    # nn2FPGA: one frame every period S at the clock (batch 256 by default)
    n2 = cnnmap.optimise(model_path("shared:resnet8_a8w8b16.onnx"), "kv260", backend="nn2fpga",
                         objective="throughput").summary()
    assert n2["batch"] == 256
    assert n2["fps_steady"] == pytest.approx(n2["clock_mhz"] * 1e6 / n2["period_cycles"],
                                             rel=1e-9)


def _cli_message(err):
    line = err.strip().splitlines()[0]
    assert line.startswith("cnnmap: ")
    return re.sub(r" \(see 'cnnmap optimise --help'\)$", "", line[len("cnnmap: "):])


def test_usage_errors(cli, model_path):
    lenet = model_path("shared:lenet.onnx")
    for kwargs, args in (({"optimiser": "foo"}, ["--optimiser", "foo"]),
                         ({"backend": "bar"}, ["--backend", "bar"]),
                         ({"objective": "speed"}, ["--objective", "speed"]),
                         ({"backend": "nn2fpga", "optimiser": "rule"},
                          ["--backend", "nn2fpga", "--optimiser", "rule"]),
                         ({"backend": "nn2fpga", "max_util": 0.5},
                          ["--backend", "nn2fpga", "--max-util", "0.5"]),
                         ({"no_temporal_reuse": True}, ["--no-temporal-reuse"])):
        with pytest.raises(cnnmap.UsageError) as e:
            cnnmap.optimise(lenet, "zedboard", **kwargs)
        rc, _, err = cli("optimise", lenet, "--board", "zedboard", *args)
        assert e.value.code == rc == 1
        assert e.value.message == _cli_message(err)
    with pytest.raises(cnnmap.UsageError) as e:
        cnnmap.optimise(lenet, "zedboard", batch=0)
    assert "batch" in e.value.message
    with pytest.raises(cnnmap.UsageError) as e:
        cnnmap.optimise(lenet, "zedboard", colour="blue")
    assert e.value.message == "optimise: unknown option 'colour'"


def test_bad_input(cli, model_path, tmp_path):
    missing = str(tmp_path / "missing.onnx")
    for model, board in ((missing, "zedboard"), (model_path("shared:lenet.onnx"), "nosuchboard")):
        for backend in ("fpgaconvnet", "nn2fpga"):
            with pytest.raises(cnnmap.BadInput) as e:
                cnnmap.optimise(model, board, backend=backend)
            rc, _, err = cli("optimise", model, "--board", board, "--backend", backend)
            assert e.value.code == rc == 2
            assert e.value.message == _cli_message(err)


@pytest.mark.parametrize("options", [
    # one partition of ResNet-20 cannot fit a PYNQ-Z2 (weights reloading would map it)
    {"model": "shared:resnet20_a8w8b16.onnx", "board": "pynq-z2", "no_reconf": True,
     "no_weights_reloading": True, "optimiser": "none"},
    {"model": "shared:resnet20_a8w8b16.onnx", "board": "pynq-z2", "no_reconf": True,
     "optimiser": "none", "backend": "finn"},
    # no design reaches the rate
    {"model": "repo:cifar10_quick.onnx", "board": "zc706", "objective": "throughput",
     "target_fps": 1e9},
])
def test_infeasible(options, cli, model_path, tmp_path):
    options = dict(options)
    model, board = model_path(options.pop("model")), options.pop("board")
    backend = options.pop("backend", "fpgaconvnet")
    objective = options.pop("objective", "latency")
    api_file, cli_file = tmp_path / "api.json", tmp_path / "cli.json"
    with pytest.raises(cnnmap.Infeasible) as e:
        cnnmap._native.call("optimise", model=model, board=board, backend=backend,
                            objective=objective, output=str(api_file), **options)
    rc, out, err = cli(*_cli_args(model, board, backend, objective, options), "--json",
                       "-o", cli_file)
    assert e.value.code == rc == 3
    assert e.value.message == _cli_message(err)
    # like the CLI, no design file for a command that fails
    assert not api_file.exists() and not cli_file.exists()


def test_evaluate_hand_edited(cli, model_path, tmp_path):
    # A FINN design whose MVAUs are folded beyond their channels: evaluate's verdict is
    # the CLI's exit 3 line, and a broken latency-driven point its exit 2 line.
    d = cnnmap.optimise(model_path("shared:lenet.onnx"), "zedboard", backend="finn",
                        objective="throughput")
    with open(d.path) as f:
        design = json.load(f)
    for node in design["nodes"]:
        if node["op"].startswith("StreamingFC"):
            node["channel_in_folding"] = node["channel_out_folding"] = 10 ** 6
    choice = cnnmap.optimise(model_path("repo:cifar10_quick.onnx"), "zc706")
    with open(choice.path) as f:
        latency = json.load(f)
    latency["point"]["blocks"][0]["kind"] = "Bogus"
    for name, content, error in (("finn.json", design, cnnmap.Infeasible),
                                 ("latency.json", latency, cnnmap.BadInput)):
        path = tmp_path / name
        path.write_text(json.dumps(content))
        with pytest.raises(error) as e:
            cnnmap.load_design(path)
        rc, _, err = cli("evaluate", path, "--json")
        assert e.value.code == rc
        assert e.value.message == _cli_message(err)


def test_optimise_in_threads(model_path):
    # calls share no state: four searches in parallel threads give one answer
    import threading
    results = [None] * 4

    def run(k):
        results[k] = strip_volatile(cnnmap.optimise(
            model_path("repo:cifar10_quick.onnx"), "zc706", backend="finn" if k % 2 else
            "fpgaconvnet").summary())

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results[0] == results[2] and results[1] == results[3]


def test_threads_change_nothing(model_path):
    # a round of anneal's restarts (and exact's segment programs) does not depend on
    # how many threads run it: the same design for 1 and 3
    model = model_path("repo:cifar10_quick.onnx")
    for optimiser in ("anneal", "exact"):
        one, three = (cnnmap.optimise(model, "zc706", optimiser=optimiser, objective="throughput",
                                      batch=16, threads=n) for n in (1, 3))
        assert strip_volatile(one.summary()) == strip_volatile(three.summary())
        assert strip_volatile(one.nodes) == strip_volatile(three.nodes)
