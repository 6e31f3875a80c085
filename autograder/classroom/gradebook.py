"""The grader's results into the instructor's nbgrader gradebook, through nbgrader's own API and preprocessors.

For every submission the grader scored (``grade --gradebook``, or ``gradebook OUT`` after a merge):

1. the assignment and its cells are in the gradebook (nbgrader's ``SaveCells`` on the released lesson; a due date
   set in Formgrader or with ``nbgrader db assignment`` is kept);
2. the student, the submission with its ``timestamp.txt``, and one grade per graded cell: a test cell's
   automatic score is the grader's; a written answer (a manually graded answer cell) gets no automatic score and
   waits in Formgrader, unless the instructor has scored it already, which stays; a GPU-only test that a CPU runner
   did not run waits for review too. One commit per submission, so a crash leaves every submission either as it
   was or wholly written, and grading again rewrites the same rows;
3. nbgrader's late penalty (``AssignLatePenalties`` with the course's ``LateSubmissionPlugin``), from the due
   date and the submission time;
4. the copy Formgrader shows (``autograded/<student>/<assignment>/``): the submitted notebook with its outputs
   removed (they ran nowhere the instructor can trust, and Formgrader would show them in the instructor's
   browser) and its graded cells restored from the gradebook by nbgrader's ``OverwriteCells``;
5. the grader's feedback page where ``nbgrader release_feedback`` looks for it (``feedback/<student>/<assignment>/``,
   with the submission's ``timestamp.txt`` and ``submission_secret.txt``), for submissions that came through the
   exchange.
"""

from __future__ import annotations

import os
import shutil
import stat
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..core import course, notebooks
from ..core.settings import NEEDS_GPU, NEEDS_MANUAL, NOT_SUBMITTED
from ..grading import intake
from ..grading.results import SubmissionResult
from .nbgrader_course import NbgraderCourse

# The files nbgrader's exchange puts beside a submitted notebook; release_feedback needs both.
TIMESTAMP = "timestamp.txt"
SECRET = "submission_secret.txt"
_SMALL = 4096  # either file is a line; anything bigger is not what nbgrader wrote


class GradebookError(SystemExit):
    """The gradebook cannot take these results (it says what to do)."""


@dataclass
class Recorded:
    """What one recording did, for the summary."""
    submissions: int = 0
    late: list[str] = field(default_factory=list)                 # 'student/assignment: penalty'
    feedback: int = 0                                             # pages placed for release_feedback
    no_exchange: list[str] = field(default_factory=list)          # submissions that did not come through the exchange
    notes: list[str] = field(default_factory=list)

    def summary(self, course_: NbgraderCourse) -> str:
        lines = [f"Gradebook {course_.db_url} (course {course_.course_id}): {self.submissions} submission(s) recorded; "
                 f"{self.feedback} feedback page(s) ready for nbgrader release_feedback"]
        lines += [f"  late: {item}" for item in self.late]
        if self.no_exchange:
            lines.append(f"  no feedback page for release_feedback (not handed in through the exchange, no {SECRET}): "
                         + ", ".join(self.no_exchange))
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def _small_text(path: Path) -> str | None:
    """The text of a small regular file (never through a link), or None."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > _SMALL:
        return None
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as f:
        return f.read(_SMALL).decode("utf-8", "replace")


def register_assignment(nbc: NbgraderCourse, assignment: str) -> None:
    """The assignment and its cells in the gradebook, from the released lesson (what students were given)."""
    from nbgrader.api import Gradebook
    from nbgrader.preprocessors import SaveCells

    with Gradebook(nbc.db_url, nbc.course_id) as gb:
        gb.update_or_create_assignment(assignment)
    resources = {"nbgrader": {"assignment": assignment, "notebook": assignment, "db_url": nbc.db_url}}
    try:
        SaveCells(config=nbc.config).preprocess(notebooks.read(course.lesson_notebook(assignment)), resources)
    except RuntimeError as error:  # nbgrader refuses to change the cells of a notebook that has submissions
        raise GradebookError(
            f"the gradebook's cells of {assignment} are not the released lesson's ({error}). A graded cell was added or "
            "removed after students submitted: release it again as it was, or start a new gradebook for the new "
            "version (nbgrader db assignment remove)") from None


def _scores(gb, result: SubmissionResult) -> None:
    from nbgrader.api import MissingEntry

    for cell in result.cells:
        try:
            grade = gb.find_grade(cell.cell, result.assignment, result.assignment, result.student)
        except MissingEntry:
            raise GradebookError(f"the gradebook has no graded cell {cell.cell!r} in {result.assignment}: "
                                 "its cells are older than the course's; run the release again") from None
        if cell.status == NEEDS_MANUAL:
            grade.auto_score = None
            grade.needs_manual_grade = grade.manual_score is None   # an instructor's score stands
        elif cell.status == NEEDS_GPU:
            grade.auto_score = None
            grade.needs_manual_grade = True                         # grade again on a GPU runner, or by hand
        else:
            grade.auto_score = cell.score
            # as nbgrader's autograde: a cell the instructor overrode by hand is shown again for review
            grade.needs_manual_grade = grade.manual_score is not None


def _comments(gb, result: SubmissionResult, submitted) -> None:
    """nbgrader's 'No response.' on each answer cell the student left as it was released."""
    from nbgrader import utils

    answers = {notebooks.grading(c).get("grade_id"): c for c in (submitted.cells if submitted is not None else [])
               if notebooks.grading(c).get("solution")}
    for comment_cell in gb.find_notebook(result.assignment, result.assignment).solution_cells:
        comment = gb.find_comment(comment_cell.name, result.assignment, result.assignment, result.student)
        cell = answers.get(comment_cell.name)
        unchanged = cell is None or notebooks.grading(cell).get("checksum") == utils.compute_checksum(cell)
        comment.auto_comment = "No response." if unchanged else None


def _late_penalty(nbc: NbgraderCourse, result: SubmissionResult) -> float:
    from nbgrader.api import Gradebook
    from nbgrader.preprocessors import AssignLatePenalties

    resources = {"nbgrader": {"notebook": result.assignment, "assignment": result.assignment,
                              "student": result.student, "db_url": nbc.db_url}}
    AssignLatePenalties(config=nbc.config).preprocess(nbformat.v4.new_notebook(), resources)
    with Gradebook(nbc.db_url, nbc.course_id) as gb:
        return gb.find_submission_notebook(result.assignment, result.assignment, result.student).late_submission_penalty or 0.0


def _write_autograded(nbc: NbgraderCourse, result: SubmissionResult, folder: Path, submitted) -> None:
    """The copy Formgrader shows: no outputs, graded cells restored from the gradebook."""
    from nbgrader.preprocessors import OverwriteCells

    if submitted is None:
        nb = notebooks.read(course.lesson_notebook(result.assignment))
        nb.cells.insert(0, nbformat.v4.new_markdown_cell(
            f"**The autograder could not run this submission** ({result.status}): {result.reason}. "
            "This is the lesson as released, shown so that the graded cells can be scored by hand."))
    else:
        nb = submitted
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    resources = {"nbgrader": {"notebook": result.assignment, "assignment": result.assignment,
                              "student": result.student, "db_url": nbc.db_url}}
    nb, _ = OverwriteCells(config=nbc.config).preprocess(nb, resources)
    target = nbc.folder(nbc.autograded, result.student, result.assignment)
    target.mkdir(parents=True, exist_ok=True)
    partial = target / f".{result.assignment}.ipynb.part"
    partial.write_text(nbformat.writes(nb), encoding="utf-8")
    os.replace(partial, target / f"{result.assignment}.ipynb")
    stamp = _small_text(folder / TIMESTAMP)
    if stamp is not None:
        (target / TIMESTAMP).write_text(stamp, encoding="utf-8")


def _place_feedback(nbc: NbgraderCourse, result: SubmissionResult, folder: Path, pages: Path, done: Recorded) -> None:
    page = pages / result.student / f"{result.assignment}.html"
    stamp, secret = _small_text(folder / TIMESTAMP), _small_text(folder / SECRET)
    if stamp is None or secret is None:
        done.no_exchange.append(f"{result.student}/{result.assignment}")
        return
    if not page.is_file():
        done.notes.append(f"no feedback page for {result.student}/{result.assignment} in {pages}")
        return
    target = nbc.folder(nbc.feedback, result.student, result.assignment)
    target.mkdir(parents=True, exist_ok=True)
    partial = target / f".{result.assignment}.html.part"
    shutil.copyfile(page, partial)
    os.replace(partial, target / f"{result.assignment}.html")
    (target / TIMESTAMP).write_text(stamp, encoding="utf-8")
    (target / SECRET).write_text(secret, encoding="utf-8")
    done.feedback += 1


def _timestamp(nbc: NbgraderCourse, folder: Path, result: SubmissionResult, done: Recorded):
    if _small_text(folder / TIMESTAMP) is None:
        return None
    try:
        return nbc.timestamp(folder)
    except Exception:  # nbgrader stops on a timestamp it cannot read; grading goes on, the row says so
        done.notes.append(f"{result.student}/{result.assignment}: {TIMESTAMP} is not a time; recorded as on time")
        return None


def record_submission(nbc: NbgraderCourse, result: SubmissionResult, folder: Path, pages: Path, done: Recorded) -> None:
    from nbgrader.api import Gradebook

    read = intake.read_submission(folder, result.assignment)
    submitted = None if isinstance(read, intake.Refusal) else read
    stamp = _timestamp(nbc, folder, result, done)
    with Gradebook(nbc.db_url, nbc.course_id) as gb, warnings.catch_warnings():
        # nbgrader's update_or_create_submission makes SQLAlchemy warn about rows it has not added yet (it adds them
        # a line later); the warning says nothing about this grading
        warnings.filterwarnings("ignore", message=".*not in session.*")
        gb.update_or_create_student(result.student)
        gb.update_or_create_submission(result.assignment, result.student, **({"timestamp": stamp} if stamp else {}))
        _scores(gb, result)
        _comments(gb, result, submitted)
        gb.db.commit()  # the submission's grades, all at once
    penalty = _late_penalty(nbc, result)
    if penalty:
        done.late.append(f"{result.student}/{result.assignment}: late penalty {penalty:g}")
    _write_autograded(nbc, result, folder, submitted)
    _place_feedback(nbc, result, folder, pages, done)
    done.submissions += 1


def record(results: list[SubmissionResult], submissions: Path, nbc: NbgraderCourse, pages: Path) -> Recorded:
    """Record ``results`` (graded from ``submissions``, feedback pages in ``pages``) in the course ``nbc``."""
    done = Recorded()
    handed_in = [r for r in results if r.status != NOT_SUBMITTED]
    for assignment in sorted({r.assignment for r in handed_in}):
        register_assignment(nbc, assignment)
    for result in handed_in:
        record_submission(nbc, result, submissions / result.student / result.assignment, pages, done)
    return done
