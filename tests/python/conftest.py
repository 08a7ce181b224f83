"""Fixtures of the Python package's tests: the built CLI to compare with, and the
models. CTest sets CNNMAP_CLI, CNNMAP_SHARED and CNNMAP_TEST_MODELS, and PYTHONPATH
to the build tree's python/ folder (tests/CMakeLists.txt)."""
import json
import os
import subprocess

import pytest

# Figures that are measured, not computed: they differ between two runs.
VOLATILE = {"time_s", "elapsed_s", "search_time_s"}


def strip_volatile(value):
    """value without the measured keys, at any depth."""
    if isinstance(value, dict):
        return {k: strip_volatile(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [strip_volatile(v) for v in value]
    return value


def _env(name):
    value = os.environ.get(name)
    if not value:
        pytest.skip("%s is not set (run the tests through ctest)" % name)
    return value


@pytest.fixture
def cli():
    """cli(*args) runs the built cnnmap and gives (exit code, parsed stdout or None,
    stderr)."""
    exe = _env("CNNMAP_CLI")

    def run(*args):
        p = subprocess.run([exe, *map(str, args)], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=600)
        out = None
        if p.stdout.strip().startswith(("{", "[")):
            out = json.loads(p.stdout)
        return p.returncode, out, p.stderr

    return run


@pytest.fixture
def shared_models():
    return os.path.join(_env("CNNMAP_SHARED"), "models")


@pytest.fixture
def test_models():
    return _env("CNNMAP_TEST_MODELS")


@pytest.fixture
def repo_models():
    """The models bundled with the sources (models/)."""
    return os.path.join(os.path.dirname(__file__), "..", "..", "models")
