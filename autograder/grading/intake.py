"""Taking submissions in: which students and assignments there are, and reading a notebook safely.

The rules: every student folder gets a row, whatever its name (names reach nothing but paths and
CSV fields); a notebook must be a regular file inside its folder (a symbolic link is refused, and the
reason never quotes what the link points to); reading a notebook never follows a link.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..core import course
from ..core.settings import INVALID, MISSING, NOT_SUBMITTED

MAX_NOTEBOOK_MB = 64  # a lesson with every output is well under 5 MB

# The student ids a person could have: a login, a student number, an e-mail address. On a shared exchange the
# students themselves write these names (nbgrader's inbound folder names), and an id reaches every page an
# instructor opens (Formgrader's lists, the manual-grading page), so anything else is refused by name, never
# renamed: the instructor decides what it should have been.
STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,99}")
STUDENT_ID_RULE = "letters, digits, '.', '_', '-' and '@', starting with a letter or digit, at most 100 characters"


def student_id_problem(name: str) -> str | None:
    """Why ``name`` cannot be a student id (in words that quote it safely), or None when it can."""
    if STUDENT_ID.fullmatch(name):
        return None
    return (f"the folder name {ascii(name)} is not a student id ({STUDENT_ID_RULE}): it was not graded. Rename the "
            "folder to the student's id (or remove it) and grade again")


@dataclass
class Refusal:
    """Why a submission cannot be run: a status of grades.csv and a reason in words."""
    status: str
    reason: str


def discover(submissions: Path, names: list[str] | None,
             wanted: list[str] | None = None) -> tuple[list[str], list[str]]:
    """(students, assignments) found under ``submissions``: every folder is a student, hidden ones included
    (``wanted`` picks some of them; a name that has no folder is an error that says so).

    nbgrader's ``collect`` lays ``submitted/`` out the same way (with the latest submission of each student and
    its ``timestamp.txt``), so the instructor's ``submitted/`` folder is graded as it is."""
    if not submissions.is_dir():
        raise SystemExit(f"{submissions} is not a folder; expected SUBMISSIONS/<student>/<assignment>/<assignment>.ipynb")
    students = sorted(entry.name for entry in os.scandir(submissions)
                      if entry.is_dir(follow_symlinks=False) or entry.is_symlink())
    if wanted:
        unknown = sorted(set(wanted) - set(students))
        if unknown:
            raise SystemExit(f"no folder for student(s) {', '.join(unknown)} in {submissions}")
        students = sorted(set(wanted))
    known = course.assignments(names)
    if names:
        return students, known
    present = sorted({a for s in students for a in known if (submissions / s / a).is_dir()})
    return students, present


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return path.lstat()
    except FileNotFoundError:
        return None


def read_submission(folder: Path, assignment: str) -> nbformat.NotebookNode | Refusal:
    """The student's notebook, or why it cannot be graded."""
    if folder.is_symlink() or folder.parent.is_symlink():
        return Refusal(INVALID, f"{folder.parent.name}/{folder.name} is a symbolic link, not a folder: "
                                "hand in the folder itself")
    if not folder.is_dir():
        return Refusal(NOT_SUBMITTED, f"no folder {folder.parent.name}/{folder.name}")
    path = folder / f"{assignment}.ipynb"
    info = _lstat(path)
    if info is None:
        found = sorted(p.name for p in folder.glob("*.ipynb"))
        return Refusal(MISSING, f"no {assignment}.ipynb in the submission" + (f" (found: {', '.join(found)})" if found else ""))
    if stat.S_ISLNK(info.st_mode):
        return Refusal(INVALID, f"{assignment}.ipynb is a symbolic link, not a notebook: hand in the notebook file itself")
    if not stat.S_ISREG(info.st_mode):
        return Refusal(INVALID, f"{assignment}.ipynb is not a regular file")
    if info.st_size > MAX_NOTEBOOK_MB * 2**20:
        return Refusal(INVALID, f"{assignment}.ipynb is {info.st_size / 2**20:.0f} MB, over the {MAX_NOTEBOOK_MB} MB limit: "
                                "clear the outputs (Edit > Clear Outputs of All Cells) and hand it in again")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as f:
        raw = f.read()
    try:
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
    except (UnicodeDecodeError, json.JSONDecodeError, nbformat.reader.NotJSONError) as error:
        where = f" (line {error.lineno})" if isinstance(error, json.JSONDecodeError) else ""
        return Refusal(INVALID, f"{assignment}.ipynb could not be read as a notebook: it is not valid JSON{where}. "
                                "Re-download it from JupyterLab (File > Download)")
    except Exception as error:  # JSON, but not a notebook
        return Refusal(INVALID, f"{assignment}.ipynb could not be read as a notebook ({type(error).__name__})")
    if not isinstance(nb.get("cells"), list) or not all(isinstance(c, dict) and "cell_type" in c for c in nb.cells):
        return Refusal(INVALID, f"{assignment}.ipynb is JSON but not a notebook (no list of cells)")
    for cell in nb.cells:  # tolerate what other editors leave out
        cell.setdefault("metadata", {})
        cell.setdefault("source", "")
        if isinstance(cell.source, list):
            cell.source = "".join(cell.source)
        if cell.cell_type == "code":
            cell.setdefault("outputs", [])
            cell.setdefault("execution_count", None)
    return nb


def box_files(folder: Path, assignment: str, nb: nbformat.NotebookNode) -> tuple[dict[str, bytes], list[str]]:
    """What the grading box gets from a submission: the notebook (as read) and the files the assignment declares
    (course.submission_files), each a regular file inside the folder; and notes on declared files not handed in.
    Nothing else of the folder enters the box: no file a student ships can shadow a module or the kernel."""
    files = {f"{assignment}.ipynb": nbformat.writes(nb).encode("utf-8")}
    notes = []
    for name in course.submission_files(assignment):
        info = _lstat(folder / name)
        if info is None or not stat.S_ISREG(info.st_mode) or info.st_size > MAX_NOTEBOOK_MB * 2**20:
            notes.append(f"{name} (declared by the assignment) is missing, not a regular file, or too large: not given to the box")
            continue
        fd = os.open(folder / name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            files[name] = f.read()
    return files, notes
