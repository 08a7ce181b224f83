"""load_model, boards and board against inspect and boards, and the error classes."""
import os
import threading

import pytest

import cnnmap


def test_load_model_equals_inspect(cli, shared_models, repo_models):
    for path in (os.path.join(shared_models, "lenet.onnx"),
                 os.path.join(shared_models, "resnet8_a4w4b32.onnx"),
                 os.path.join(repo_models, "cifar10_quick.onnx")):
        m = cnnmap.load_model(path)
        rc, out, _ = cli("inspect", path, "--json")
        assert rc == 0
        assert m.json == out
        assert m.name == out["model"] and m.layers == out["layers"] and m.totals == out["totals"]


def test_lenet_by_hand(shared_models):
    # LeNet-5 (Caffe): conv1 20x5x5 on 1x28x28 gives 20x24x24, 20*25*576 MACs.
    m = cnnmap.load_model(os.path.join(shared_models, "lenet.onnx"))
    conv1 = next(l for l in m.layers if l["op"] == "conv")
    assert conv1["out_shape"] == [20, 24, 24]
    assert conv1["macs"] == 20 * 25 * 24 * 24
    assert conv1["params"] == 20 * 25 + 20  # weights and biases
    assert m.totals["macs"] == 288000 + 20 * 25 * 50 * 64 + 800 * 500 + 500 * 10


def test_boards_equal_cli(cli):
    rc, out, _ = cli("boards", "--json")
    assert rc == 0
    assert cnnmap.boards() == out["boards"]
    zc706 = cnnmap.board("zc706")
    assert zc706 == next(b for b in out["boards"] if b["name"] == "zc706")
    assert zc706["resources"]["DSP"] == 900


def test_board_file(tmp_path):
    import json
    board = dict(cnnmap.board("zedboard"))
    text = open(os.path.join(os.path.dirname(__file__), "..", "..", "boards",
                             "zedboard.json")).read()
    path = tmp_path / "myboard.json"
    path.write_text(text)
    assert cnnmap.board(path)["resources"] == board["resources"]
    json.loads(text)  # the fixture itself is a board file


def test_errors_carry_the_cli_line_and_code(cli, tmp_path):
    missing = tmp_path / "missing.onnx"
    with pytest.raises(cnnmap.BadInput) as e:
        cnnmap.load_model(missing)
    rc, _, err = cli("inspect", missing)
    assert e.value.code == rc == 2
    assert err.strip() == "cnnmap: " + e.value.message
    assert isinstance(e.value, cnnmap.Error)

    with pytest.raises(cnnmap.BadInput) as e:
        cnnmap.board("no-such-board")
    assert e.value.code == 2 and "no-such-board" in e.value.message

    with pytest.raises(cnnmap.UsageError) as e:
        cnnmap._native.call("inspect", model="x.onnx", colour="blue")
    assert e.value.code == 1 and "colour" in e.value.message
    with pytest.raises(cnnmap.UsageError):
        cnnmap._native.call("no-such-command")
    with pytest.raises(cnnmap.UsageError):
        cnnmap._native.call("inspect")


def test_calls_run_in_threads(shared_models):
    # ctypes releases the GIL: four loads in parallel threads give the same answer.
    path = os.path.join(shared_models, "resnet8_a8w8b16.onnx")
    results = [None] * 4

    def load(k):
        results[k] = cnnmap.load_model(path).json

    threads = [threading.Thread(target=load, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == results[0] for r in results)


def test_version():
    assert cnnmap.version().count(".") == 2
