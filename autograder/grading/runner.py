"""Running one composed notebook in a box: the folders it gets, the executor, and what comes back.

Used for a student's submission (submission.py) and for the reference run of the course's own
solution (reference.py) alike, so both run the same way. The private folder holds the composed
notebook (hidden tests included), the job description, the executor's log and what it wrote; the
box sees none of it. The box gets fresh scratch folders: ``work`` holds the submitted notebook file
and nothing else, ``home`` a copy of matplotlib's font list.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..core.processes import kill_tree
from .job import Job, Limits, RunReport

EXECUTOR = "autograder.grading.execute"
EXTRA_WALL_S = 180   # the executor's own start and end, beyond the notebook's wall-time limit


@dataclass
class Box:
    """How every run of one grading session is boxed."""
    limits: Limits
    runner: str
    sandboxed: bool
    data: dict[str, tuple[str, str]]     # data set -> (its variable, its folder), sandbox.data_folders
    fonts: Path | None


@dataclass
class Run:
    finished: bool
    log: str
    report: RunReport | None = None    # the executor's report.json (None: it did not write one)
    executed: nbformat.NotebookNode | None = None

    @property
    def failure(self) -> str | None:
        """Why the executor gave nothing to score, in words, or None."""
        if self.finished and self.report is not None:
            return None
        why = "the grader's executor did not finish" if not self.finished else "the grader's executor failed"
        last = self.log.strip().splitlines()[-1] if self.log.strip() else "no log"
        return f"{why}: {last}"


def _executor(private: Path, timeout: float) -> tuple[bool, str]:
    log_path = private / "executor.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRADER_", "JPY_"))}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen([sys.executable, "-m", EXECUTOR, str(private)], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        try:
            proc.wait(timeout=timeout)
            finished = True
        except subprocess.TimeoutExpired:
            finished = False
        finally:
            kill_tree(proc.pid)  # the box dies with its executor (bwrap --die-with-parent)
    return finished, log_path.read_text(encoding="utf-8", errors="replace")[-4000:]


def run(box: Box, private: Path, scratch: Path, nb: nbformat.NotebookNode, files: dict[str, bytes]) -> Run:
    """Run ``nb`` in a fresh box whose working folder holds ``files`` (name -> content: the submitted notebook, and
    any data file the assignment declares) and nothing else. ``private`` (the grader's, created afresh) keeps the
    job and what the executor wrote; ``scratch`` is where the box's own folders are made and removed."""
    shutil.rmtree(private, ignore_errors=True)
    private.mkdir(parents=True)
    folder = Path(tempfile.mkdtemp(prefix="box-", dir=scratch))
    ipc = Path(tempfile.mkdtemp(prefix="ag-", dir="/tmp"))  # socket paths must stay short
    try:
        work, home = folder / "work", folder / "home"
        work.mkdir()
        for name, content in files.items():
            (work / name).write_bytes(content)
        if box.fonts is not None:  # matplotlib's font list, built once instead of once per submission
            shutil.copytree(box.fonts, home / ".matplotlib")
        else:
            home.mkdir()
        Job(str(work), str(home), str(ipc), box.runner, box.sandboxed, box.limits, box.data).write(private)
        nbformat.write(nb, str(private / "run.ipynb"))
        finished, log = _executor(private, timeout=box.limits.wall_s + EXTRA_WALL_S)
        executed_path = private / "executed.ipynb"
        if not finished or not (private / RunReport.FILE).is_file():
            return Run(finished, log)
        return Run(True, log, RunReport.read(private), nbformat.read(str(executed_path), as_version=4))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(ipc, ignore_errors=True)


def font_cache(work: Path) -> Path | None:
    """Build matplotlib's font list once, in a folder copied into each kernel's HOME."""
    target = work / "fonts"
    env = {**os.environ, "MPLCONFIGDIR": str(target), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=env, capture_output=True, timeout=300)
    return target if done.returncode == 0 and target.is_dir() else None
