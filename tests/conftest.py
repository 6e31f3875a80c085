"""Shared test setup: data folders, a headless plotting backend, and the course's paths."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
# bench/ holds the speed experiments that use private PyTorch APIs; their tests import them from there.
sys.path.insert(0, str(ROOT / "bench"))

# Notebook kernels inherit this process's environment: point them at the offline data (read only)
# and at a plotting backend that needs no screen.
for _name, _var in (("mnist", "COURSEKIT_MNIST_DIR"), ("fashion-mnist", "COURSEKIT_FASHION_MNIST_DIR")):
    if (SHARED_DATA / _name).is_dir():
        os.environ.setdefault(_var, str(SHARED_DATA / _name))
os.environ.setdefault("MPLBACKEND", "Agg")
# One maths thread per kernel: on a busy 2-core machine two threads run 10-20x slower than one, and a
# training cell that crawls can reach the per-cell limit (the grader's kernels get one thread too).
os.environ.setdefault("OMP_NUM_THREADS", "1")
# nbgrader calls `alembic` by name; the interpreter's bin/ must be on PATH.
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")


def pytest_report_header(config):
    where = os.environ.get("COURSEKIT_MNIST_DIR") or "not set (downloads, or skips where offline)"
    return f"course root: {ROOT}\nMNIST folder: {where}"


@pytest.fixture(scope="session")
def assignments() -> list[str]:
    from autograder import course

    return course.assignments()


def _assignment_names() -> list[str]:
    from autograder import course

    return course.assignments()


def pytest_configure(config):
    # One marker per lesson (minitorch's habit): `pytest -m 01_tensors` runs everything about that lesson:
    # its grading, its variants, its promises and its release.
    for name in _assignment_names():
        config.addinivalue_line("markers", f"{name}: tests of {name} (grading, variants, promises, release)")


def pytest_collection_modifyitems(config, items):
    names = set(_assignment_names())
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        for value in params.values():
            if isinstance(value, str) and value in names:
                item.add_marker(value)
