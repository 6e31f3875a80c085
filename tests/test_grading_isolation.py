"""One submission cannot change another's grade, and leaves nothing behind.

An attacker is graded first and a correct student second, with one job and with two. The second
student's score, cells and feedback page must equal a clean run's, and nothing the attacker wrote
may remain anywhere after `grade` returns: the virtual environment, the course, /tmp, the caches,
the output folder. Also: long student ids and deep work folders do not break DataLoader workers.
"""

from __future__ import annotations

import csv
import os
import sys
import tempfile
from pathlib import Path

import pytest

from autograder import course, notebooks
from autograder.grade import grade
from autograder.sandbox import unavailable_reason
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
    from autograder.sandbox import Limits

    [result] = grade(subs, tmp_path / "out", workdir=deep, runner="cpu", limits=Limits(cell_s=120))
    assert result.status == "graded" and not result.reason, result.reason
    assert result.score == result.max_score
    assert not result.flags
