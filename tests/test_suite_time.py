"""bench/suite_time.py's watch of the boxed gradings finds an executor in /proc, reads what it grades and for which
test, and counts the processor time of its descendants (a benchmark's instrument: if it went blind, the page it
writes would say the boxes cost nothing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

import suite_time
from autograder.grading import runner

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")


def test_the_watch_names_the_executors_module_as_the_runner_starts_it():
    assert suite_time.EXECUTOR == runner.EXECUTOR


def test_an_executor_is_found_with_its_assignment_test_and_childrens_time(tmp_path):
    private, work = tmp_path / "private", tmp_path / "work"
    private.mkdir()
    work.mkdir()
    (work / "03_modules.ipynb").write_text("{}", encoding="utf-8")
    (private / "job.json").write_text(json.dumps({"work": str(work)}), encoding="utf-8")
    # A stand-in executor (its argv holds the executor's module and the private folder, as runner.py's does) whose
    # child burns processor time, as a box's kernel would.
    burn = "import time\nend = time.process_time() + 1.0\nwhile time.process_time() < end: pass\ntime.sleep(30)"
    stand_in = (f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {burn!r}])\ntime.sleep(30)")
    env = {**os.environ, "PYTEST_CURRENT_TEST": "tests/test_x.py::test_y (call)"}
    proc = subprocess.Popen([sys.executable, "-c", stand_in, "-m", runner.EXECUTOR, str(private)], env=env,
                            start_new_session=True)
    watch = suite_time._BoxWatch()
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            watch.sample()
            runs = list(watch.runs.values())
            if runs and sum(runs[0].seconds.values()) >= 0.9:
                break
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()
    assert len(runs) == 1, runs
    assert (runs[0].assignment, runs[0].test) == ("03_modules", "tests/test_x.py::test_y")
    assert sum(runs[0].seconds.values()) >= 0.9, runs[0].seconds
