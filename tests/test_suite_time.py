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
    burn = "import time\nend = time.process_time() + 1.0\nwhile time.process_time() < end: pass\ntime.sleep(120)"
    stand_in = (f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {burn!r}])\ntime.sleep(120)")
    env = {**os.environ, "PYTEST_CURRENT_TEST": "tests/test_x.py::test_y (call)"}
    proc = subprocess.Popen([sys.executable, "-c", stand_in, "-m", runner.EXECUTOR, str(private)], env=env,
                            start_new_session=True)
    watch = suite_time._BoxWatch()
    try:   # other workers' real executors may be in /proc too: only the stand-in's run is looked at
        deadline = time.monotonic() + 90   # a loaded machine gives the child its second of processor slowly
        while time.monotonic() < deadline:
            watch.sample()
            found = watch.runs.get(proc.pid)
            if found is not None and sum(found.seconds.values()) >= 0.9:
                break
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()
    assert found is not None, f"the watch did not find the stand-in executor (pid {proc.pid}): {watch.runs}"
    assert (found.assignment, found.test) == ("03_modules", "tests/test_x.py::test_y")
    assert sum(found.seconds.values()) >= 0.9, found.seconds
