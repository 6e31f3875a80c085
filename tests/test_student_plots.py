"""Every plot of the lessons shows up in a student's notebook kernel.

The bug this guards against drew nothing and raised nothing: `make course` exported ``MPLBACKEND=Agg``,
the notebook kernels inherited it, and every figure went to a backend with no display. So these tests
start kernels with the environment a student's JupyterLab gives them (``courselab.server_environment``,
what ``make course`` / ``python -m courselab`` start the server with) from this test process's own
environment with ``MPLBACKEND=Agg`` set (as tests/conftest.py and the Makefile's headless targets set it):
the set-up must remove it, as it must when a student's shell sets it.

Coverage, and why not every lesson runs by default (all 15 take about 9 minutes on 2 cores, on top of
a suite that already executes each of them several times):

1. Reading the code (every lesson, instant): :mod:`plotting_cells` finds each cell that draws, 56 cells
   in 15 lessons; none of them, and nothing in coursekit, closes a figure or switches the backend, the
   only ways a figure drawn in a kernel with the inline backend would not be shown.
2. The kernel (instant): in the student's environment the backend is the inline one, and every helper
   of ``coursekit.plots`` (the helpers the plotting cells call) produces an image.
3. Running lessons (default: 00, 01 and 08, which call every coursekit helper but ``plot_runs`` and
   pyplot directly, about a minute): each cell found in (1) produces at least one PNG image. Where
   tests/test_browser.py can run, it checks 01 and 08 the same way in a real JupyterLab, so here they
   run only where it cannot. ``COURSEKIT_PLOT_LESSONS=all`` (or a comma-separated list of names) runs
   other lessons too.
"""

from __future__ import annotations

import os
from unittest import mock

import pytest

import courselab
from autograder.core import course, notebooks
from coursekit import plots
from plotting_cells import FIGURE_HIDERS, images, plotting_cells
from submission_factory import student_copy
from test_browser import ANSWERED as BROWSER_LESSONS
from browser_lab import browser_missing

RUN_BY_DEFAULT = ("00_setup",) + (BROWSER_LESSONS if browser_missing() else ())
ALL = course.assignments()


def _lessons_to_run() -> set[str]:
    chosen = os.environ.get("COURSEKIT_PLOT_LESSONS", "")
    if chosen.strip() == "all":
        return set(ALL)
    return set(RUN_BY_DEFAULT) | {name.strip() for name in chosen.split(",") if name.strip()}


def student_kernel_env() -> dict[str, str]:
    """What a kernel inherits from the student's Jupyter server when it was started from an environment
    with MPLBACKEND=Agg (as the Makefile once exported for every target)."""
    return courselab.server_environment("student", {**os.environ, "MPLBACKEND": "Agg"})


def test_the_student_setup_drops_a_headless_backend():
    assert "MPLBACKEND" not in student_kernel_env()


def test_the_started_server_keeps_the_rest_of_the_environment(monkeypatch):
    """What `python -m courselab` leaves in the environment its kernels inherit: everything but MPLBACKEND.
    (It once cleared the environment before reading it, and kernels ran without HOME, LANG or a thread
    limit: two maths threads made lesson 08's Validate 10 times slower on a busy machine.)"""
    from jupyterlab.labapp import LabApp

    seen = {}
    monkeypatch.setattr(LabApp, "launch_instance", classmethod(lambda cls, argv=None: seen.update(os.environ)))
    monkeypatch.setattr(os, "chdir", lambda path: None)
    for name, value in {"MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1", "HOME": "/home/student", "LANG": "C.UTF-8"}.items():
        monkeypatch.setenv(name, value)
    with mock.patch.dict(os.environ):  # main() replaces the environment: put this process's back afterwards
        assert courselab.main(["student", "--no-browser"]) == 0
    assert "MPLBACKEND" not in seen
    assert {k: seen.get(k) for k in ("OMP_NUM_THREADS", "HOME", "LANG")} == {
        "OMP_NUM_THREADS": "1", "HOME": "/home/student", "LANG": "C.UTF-8"}
    assert seen["JUPYTER_CONFIG_PATH"].split(os.pathsep)[0] == str(courselab.settings_dir("student"))


def test_every_lesson_draws_and_nothing_hides_a_figure():
    found = {name: plotting_cells(notebooks.read(course.lesson_notebook(name))) for name in ALL}
    assert all(found.values()), f"lessons without a single plot (is the finder broken?): {[n for n, c in found.items() if not c]}"
    for name in ALL:
        for index, cell in enumerate(notebooks.read(course.lesson_notebook(name)).cells):
            assert not FIGURE_HIDERS.search(cell.source), f"{name} cell {index} closes a figure or changes the backend"
    for path in (course.ROOT / "coursekit").glob("*.py"):
        assert not FIGURE_HIDERS.search(path.read_text(encoding="utf-8")), f"{path.name} closes a figure or changes the backend"


HELPER_CALLS = """
import torch
from coursekit import plots
from coursekit.plots import *
x = torch.arange(6.0).reshape(2, 3)
history = {"train_loss": [1.0, 0.5], "val_loss": [1.1, 0.6], "val_acc": [0.8, 0.9]}
calls = {
    "show_matrix": lambda: show_matrix(x),
    "show_broadcast": lambda: show_broadcast(x, torch.ones(3)),
    "show_digits": lambda: show_digits(torch.rand(3, 784), torch.tensor([1, 2, 3])),
    "plot_history": lambda: plot_history(history),
    "plot_runs": lambda: plot_runs({"a, seed 0": history, "a, seed 1": history}),
    "plot_confusion": lambda: plot_confusion(torch.eye(3, dtype=torch.long) * 5, ["a", "b", "c"]),
}
assert sorted(calls) == sorted(plots.__all__), "a new helper in coursekit.plots needs a line here"
"""


@pytest.mark.slow
def test_student_kernel_shows_every_coursekit_plot():
    """One cell per helper, in a kernel started with the student's environment: each one shows an image."""
    import nbformat

    cells = [nbformat.v4.new_code_cell("import matplotlib\nprint(matplotlib.get_backend())"),
             nbformat.v4.new_code_cell(HELPER_CALLS)]
    cells += [nbformat.v4.new_code_cell(f"calls[{name!r}]();") for name in plots.__all__]
    nb = nbformat.v4.new_notebook(cells=cells)
    notebooks.client(nb, course.LESSONS, timeout=120).execute(env=student_kernel_env())
    for cell in nb.cells:
        assert not notebooks.errors(cell), f"{cell.source!r} failed: {notebooks.first_error(cell)}"
    assert "inline" in notebooks.stream_text(nb.cells[0]), f"backend: {notebooks.stream_text(nb.cells[0])!r}"
    for name, cell in zip(plots.__all__, nb.cells[2:]):
        assert images(cell) >= 1, f"coursekit.plots.{name} showed no image in a student's kernel"


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.parametrize("name", ALL)
def test_every_plotting_cell_shows_an_image(name, tmp_path):
    if name not in _lessons_to_run():
        pytest.skip("not run by default (see this file's docstring); COURSEKIT_PLOT_LESSONS=all runs every lesson")
    nb = student_copy(name)
    folder = tmp_path / name
    folder.mkdir()
    # One maths thread, as the grader runs: on a machine busy with other tests two threads per kernel made
    # lesson 08's training 10 times slower. The number of threads does not change how a figure is shown.
    env = {**student_kernel_env(), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    notebooks.client(nb, folder, timeout=600).execute(env=env)
    failed = [(i, notebooks.first_error(c)) for i, c in enumerate(nb.cells) if notebooks.errors(c)]
    assert not failed, f"{name} with the answers typed in raised errors: {failed}"
    blank = [i for i in plotting_cells(nb) if images(nb.cells[i]) == 0]
    assert not blank, f"{name}: cells {blank} draw a figure but showed no image in a student's kernel"
