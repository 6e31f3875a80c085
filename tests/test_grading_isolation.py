"""One submission cannot change another's grade, and leaves nothing behind.

An attacker is graded first and a correct student second, with one job and with two. The second
student's score, cells and feedback page must equal a clean run's, and nothing the attacker wrote
may remain anywhere after `grade` returns: the virtual environment, the course, /tmp, the caches,
the output folder. Also: long student ids and deep work folders do not break DataLoader workers.
"""

from __future__ import annotations

import csv
import subprocess
import os
import sys
import tempfile
from pathlib import Path

import pytest

from autograder.core import course, notebooks
from autograder.scale.grade import grade
from autograder.grading.sandbox import unavailable_reason
from hostile_zoo import NAME, wrong
from submission_factory import student_copy

pytestmark = [pytest.mark.slow, pytest.mark.skipif(unavailable_reason() is not None,
                                                   reason=f"needs the sandbox: {unavailable_reason()}")]

MARK = "zoo-persistence-mark"
# The attacker tries every place a later process could pick something up from.
ATTACK = f"""
import os, site, sys, pathlib, coursekit
targets = [*site.getsitepackages(), *sys.path, str(pathlib.Path(coursekit.__file__).parent),
           str(pathlib.Path(coursekit.__file__).resolve().parents[1]), os.path.expanduser('~/.cache'),
           '/tmp', '/dev/shm', os.getcwd(), '..', '../..']
for folder in targets:
    for name in ('{MARK}.pth', '{MARK}.py', 'sitecustomize.py', 'nbgrader_config.py'):
        try:
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, name), 'w') as f:
                f.write('import os; os.environ["{MARK}"] = "1"  # {MARK}\\n')
        except OSError:
            pass
for k in range(200):
    try:
        open(f'/tmp/{MARK}-{{k}}', 'w').write('{MARK}')
    except OSError:
        break
"""


def _rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(f)]


def _marks(root: Path) -> list[str]:
    """Files under ``root`` that the attacker made: its mark in the name, or in a startup file's text."""
    found = []
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = Path(dirpath) / name
            try:
                if MARK in name or (name in ("sitecustomize.py", "nbgrader_config.py")
                                    and MARK.encode() in path.read_bytes()[:4096]):
                    found.append(str(path))
            except OSError:
                continue
    return found


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    clean_subs = tmp_path_factory.mktemp("clean")
    notebooks.write(student_copy(NAME), clean_subs / "b-correct" / NAME / f"{NAME}.ipynb")
    clean = tmp_path_factory.mktemp("clean-out")
    grade(clean_subs, clean, runner="cpu")
    attacked_subs = tmp_path_factory.mktemp("attacked")
    notebooks.write(wrong(ATTACK), attacked_subs / "a-attacker" / NAME / f"{NAME}.ipynb")
    notebooks.write(student_copy(NAME), attacked_subs / "b-correct" / NAME / f"{NAME}.ipynb")
    outs = {}
    for jobs in (1, 2):
        outs[jobs] = tmp_path_factory.mktemp(f"attacked-out-{jobs}")
        grade(attacked_subs, outs[jobs], jobs=jobs, runner="cpu")
    return clean, outs


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_student_after_an_attacker_gets_exactly_a_clean_grade(runs, jobs):
    clean, outs = runs
    mine = [r for r in _rows(outs[jobs] / "grades.csv") if r["student"] == "b-correct"]
    assert mine == _rows(clean / "grades.csv")
    cells = [r for r in _rows(outs[jobs] / "cells.csv") if r["student"] == "b-correct"]
    assert cells == _rows(clean / "cells.csv")
    page = outs[jobs] / "feedback" / "b-correct" / f"{NAME}.html"
    assert page.read_bytes() == (clean / "feedback" / "b-correct" / f"{NAME}.html").read_bytes()


def test_nothing_the_attacker_wrote_remains_anywhere(runs):
    _, outs = runs
    places = [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), course.ROOT, Path(tempfile.gettempdir()),
              Path("/dev/shm"), Path.home() / ".cache", *outs.values()]
    left = [hit for place in places if place.exists() for hit in _marks(place)]
    assert not left, f"the attacker's files survived its grading: {left[:5]}"
    assert MARK not in os.environ


def test_a_long_student_id_and_a_deep_workdir_grade_lesson_06_normally(tmp_path):
    """DataLoader workers talk over unix sockets whose paths must stay under 108 characters."""
    student = "s" * 60
    subs = tmp_path / "subs"
    notebooks.write(student_copy("06_data"), subs / student / "06_data" / "06_data.ipynb")
    deep = tmp_path.joinpath(*["a-rather-long-folder-name"] * 6)
    from autograder.grading.job import Limits

    [result] = grade(subs, tmp_path / "out", workdir=deep, runner="cpu", limits=Limits(cell_s=120))
    assert result.status == "graded" and not result.reason, result.reason
    assert result.score == result.max_score
    assert not result.flags


def _grade_with(python: Path, base: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    subs, out = base / "subs", base / "out"
    notebooks.write(student_copy(NAME), subs / "s" / NAME / f"{NAME}.ipynb")
    return subprocess.run([str(python), "-m", "autograder", "grade", str(subs), "--out", str(out), "--runner", "cpu"],
                          capture_output=True, text=True, timeout=900, env={**os.environ, **env}, cwd=base)


@pytest.mark.parametrize("layout", ["venv-reached-through-a-link", "venv-and-data-under-tmp"])
def test_grading_works_from_a_venv_through_a_link_or_under_tmp(layout):
    """The kernel is started by the path the grader runs from, so the box shows the venv at that path too; and the
    private /tmp is mounted before the binds, so a venv, a data folder or a course under /tmp stays visible."""
    base = Path(tempfile.mkdtemp(prefix="ag-layout-", dir="/tmp"))
    try:
        env = {}
        if layout == "venv-reached-through-a-link":
            (base / "venv").symlink_to(Path(sys.prefix).resolve(), target_is_directory=True)
        else:
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(base / "venv")], check=True)
            site = next((base / "venv" / "lib").glob("python*/site-packages"))
            outer = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
            (site / "course-kit.pth").write_text(
                "".join(f"import site; site.addsitedir({p!r})\n" for p in outer), encoding="utf-8")
            env["JUPYTER_PATH"] = str(Path(sys.prefix) / "share" / "jupyter")   # nbconvert's templates, for the page
            if os.environ.get("COURSEKIT_MNIST_DIR"):
                (base / "mnist").symlink_to(os.environ["COURSEKIT_MNIST_DIR"], target_is_directory=True)
                env["COURSEKIT_MNIST_DIR"] = str(base / "mnist")
        done = _grade_with(base / "venv" / "bin" / "python", base, env)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        [row] = _rows(base / "out" / "grades.csv")
        assert (row["score"], row["status"], row["reason"]) == ("10", "graded", ""), row
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)


def test_a_box_that_cannot_start_python_stops_grade_with_one_line(tmp_path, monkeypatch):
    from autograder.grading import sandbox

    real = sandbox.bwrap_command

    def hides_python(inner, *args, **kwargs):
        return real(["/nonexistent/python", *inner[1:]], *args, **kwargs)

    monkeypatch.setattr(sandbox, "bwrap_command", hides_python)
    subs = tmp_path / "subs"
    notebooks.write(student_copy(NAME), subs / "s" / NAME / f"{NAME}.ipynb")
    with pytest.raises(SystemExit) as stop:
        grade(subs, tmp_path / "out", runner="cpu")
    message = str(stop.value)
    assert message.startswith("grade cannot start: the sandbox cannot start this Python") and "\n" not in message
    assert "--unsafe-no-sandbox" in message
