"""Where things are: the course root, its solutions (nbgrader source) and lessons (release)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(os.environ.get("COURSE_ROOT", Path(__file__).resolve().parent.parent.parent))
SOLUTIONS = ROOT / "solutions"
LESSONS = ROOT / "lessons"


def assignments(names: list[str] | None = None) -> list[str]:
    """Assignment names (folders of solutions/ holding a notebook of the same name), sorted.

    ``names`` picks some; an unknown name is an error that lists the known ones.
    """
    known = sorted(p.name for p in SOLUTIONS.iterdir() if (p / f"{p.name}.ipynb").is_file())
    if not names:
        return known
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown assignment(s) {', '.join(unknown)}; the course has: {', '.join(known)}")
    return list(names)


def solution_notebook(name: str) -> Path:
    return SOLUTIONS / name / f"{name}.ipynb"


def lesson_notebook(name: str) -> Path:
    return LESSONS / name / f"{name}.ipynb"


SUBMISSION_FILES = "submission-files.txt"


def submission_files(name: str) -> list[str]:
    """Files besides the notebook that the grading box of ``name`` gets from a student's folder: the assignment
    declares them one per line in ``solutions/<name>/submission-files.txt`` (``#`` starts a comment). No lesson of
    this course needs one; everything else a student hands in stays outside the box."""
    path = SOLUTIONS / name / SUBMISSION_FILES
    if not path.is_file():
        return []
    names = [line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines()]
    bad = [n for n in names if n and ("/" in n or "\\" in n or n in (".", "..") or n.endswith(".ipynb"))]
    if bad:
        raise SystemExit(f"{path}: {bad} are not plain file names (no folders, no notebooks)")
    return [n for n in names if n]
