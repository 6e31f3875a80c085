"""Where things are: the course root, its solutions (nbgrader source) and lessons (release)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(os.environ.get("COURSE_ROOT", Path(__file__).resolve().parent.parent))
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
