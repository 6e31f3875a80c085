"""Shared test setup: data folders, a headless plotting backend, and the course's paths."""

from __future__ import annotations

import functools
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
    if (SHARED_DATA / _name).is_dir() and not os.environ.get(_var, "").strip():   # set but empty counts as unset,
        os.environ[_var] = str(SHARED_DATA / _name)                               # as coursekit.data reads it
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
    from autograder.core import course

    return course.assignments()


@functools.cache
def _assignment_names() -> list[str]:
    from autograder.core import course

    return course.assignments()


def pytest_configure(config):
    # The reference runs (grading/reference.py) of this session go to a cache of its own, shared by the xdist
    # workers (they inherit the controller's environment), so each solution's reference runs once per session and
    # a cache left on this machine by an earlier run can never stand in for it (unless AUTOGRADER_CACHE is set).
    if "PYTEST_XDIST_WORKER" not in os.environ and "AUTOGRADER_CACHE" not in os.environ:
        import atexit
        import shutil
        import tempfile

        cache = tempfile.mkdtemp(prefix="autograder-cache-")
        os.environ["AUTOGRADER_CACHE"] = cache
        atexit.register(shutil.rmtree, cache, True)
    # One marker per lesson (minitorch's habit): `pytest -m 01_tensors` runs everything about that lesson:
    # its grading, its variants, its promises and its release.
    for name in _assignment_names():
        config.addinivalue_line("markers", f"{name}: tests of {name} (grading, variants, promises, release)")


def pytest_collection_modifyitems(config, items):
    names = set(_assignment_names())
    for item in items:
        module, lesson = _module_and_lesson(item.nodeid)
        if module.startswith("nbval:") and lesson in names:
            item.add_marker(lesson)
        params = getattr(getattr(item, "callspec", None), "params", {})
        for value in params.values():
            if isinstance(value, str) and value in names:
                item.add_marker(value)
    # Longest groups first (`make test` keeps this order: --no-loadscope-reorder), so that the last
    # group to start is a short one and neither worker waits long for the other at the end.
    items.sort(key=lambda item: -_expected_seconds(item.nodeid))


# `make test` runs the suite on several workers (pytest-xdist). Tests that share a module fixture (a
# JupyterLab server, a graded class, a Slurm cluster) must stay on one worker, or each worker would
# build its own copy: they are sent as one group. The grading and variants tests of one lesson are one
# group ("lesson::NAME"): they share the lesson's graded run and its reference run, which runs once per
# session under a lock (grading/reference.py), so on two workers at once one would sit waiting for the other's.
_SPREAD_BY_LESSON = {"test_grading", "test_variants"}
# Seconds the slow modules took on this 2-core machine (`make test PYTEST_ARGS=--durations=0`, three workers,
# 2026-12-05); the ones not named here take a few seconds. Only the order of the groups depends on them.
_MODULE_SECONDS = {"test_hostile_submissions": 290, "test_classroom": 275, "test_browser": 260, "test_instructor_pages": 190,
                   "test_grading_isolation": 120, "test_intake_fuzz": 115, "test_exchange_fuzz": 110, "test_shards": 105, "test_slurm": 65,
                   "test_demos": 45, "test_plain_commands": 25, "test_workers": 25, "test_nbval": 20, "test_similarity": 25,
                   "test_release": 12}


def _module_and_lesson(nodeid: str) -> tuple[str, str | None]:
    """("test_grading", "08_mnist_mlp") for "tests/test_grading.py::test_x[08_mnist_mlp]"; for nbval's cells of a
    notebook, ("nbval:solutions/08_mnist_mlp/08_mnist_mlp.ipynb", "08_mnist_mlp"): one notebook, one kernel."""
    path, _, rest = nodeid.partition("::")
    if path.endswith(".ipynb"):
        return f"nbval:{path}", Path(path).stem
    params = rest.partition("[")[2].rstrip("]").split("-")
    return Path(path).stem, next((p for p in params if p in _assignment_names()), None)


def worker_group(nodeid: str) -> str:
    """The tests that must run on the same worker share this name."""
    module, lesson = _module_and_lesson(nodeid)
    return f"lesson::{lesson}" if module in _SPREAD_BY_LESSON and lesson else module


def _expected_seconds(nodeid: str) -> float:
    """A rough guess of the time of the test's whole group, from the measured grading times."""
    from autograder.scale import timings

    module, lesson = _module_and_lesson(nodeid)
    if module in _SPREAD_BY_LESSON and lesson:
        return 3 * timings.expected(lesson)  # the reference run, a blank (or complete) submission and the variants' trials
    if module.startswith("nbval:"):  # a solution runs whole; a lesson stops early wherever an exercise is unanswered
        return timings.expected(lesson) * (1.0 if module.startswith("nbval:solutions/") else 0.4)
    return _MODULE_SECONDS.get(module, 1.0)


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # a pytest-xdist hook; plain pytest never calls it
def pytest_xdist_make_scheduler(config, log):
    """Hand out whole groups (worker_group), in collection order. (xdist's own `loadgroup` marks do not
    group on pytest 9.2, whose node ids cannot be renamed, so the grouping is done here.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return worker_group(nodeid)

    return ByGroup(config, log)


# --- a real browser and the instructor's JupyterLab (tests/browser_lab.py) --------------------------------------

@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through Playwright, for one test module (skips with the reason where there is none)."""
    import browser_lab

    missing = browser_lab.browser_missing()
    if missing:
        pytest.skip(missing)
    from playwright import sync_api

    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=browser_lab.chromium(), args=browser_lab.CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(scope="module")
def instructor_lab(tmp_path_factory, browser):
    """The instructor set-up (`make instructor`) on a fresh copy of the course, for one test module."""
    import browser_lab

    with browser_lab.instructor_lab_at(tmp_path_factory.mktemp("instructor")) as lab:
        yield lab
