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

import copy
import os
import shutil
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import nbformat

from ..core import notebooks, student_files
from ..core.settings import NEEDS_GPU, NEEDS_MANUAL, NOT_A_STUDENT, NOT_RECORDED, NOT_SUBMITTED
from ..grading import assignment, intake
from ..grading.assignment import Assignment
from ..grading.results import SubmissionResult
from . import formgrader_copy
from .nbgrader_course import NbgraderCourse

# The files nbgrader's exchange puts beside a submitted notebook; release_feedback needs both.
TIMESTAMP = intake.TIMESTAMP
SECRET = "submission_secret.txt"
TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f UTC"   # how nbgrader writes a submission's time (naive UTC in the gradebook)
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
    failed: list[str] = field(default_factory=list)               # 'student/assignment: why' (not recorded)

    def summary(self, course_: NbgraderCourse) -> str:
        lines = [f"Gradebook {course_.db_url} (course {course_.course_id}): {self.submissions} submission(s) recorded; "
                 f"{self.feedback} feedback page(s) ready for nbgrader release_feedback"]
        lines += [f"  late: {item}" for item in self.late]
        if self.no_exchange:
            lines.append(f"  no feedback page for release_feedback (not handed in through the exchange, no {SECRET}): "
                         + ", ".join(self.no_exchange))
        lines += [f"  note: {note}" for note in self.notes]
        lines += [f"  ! NOT RECORDED: {item}" for item in self.failed]
        return "\n".join(lines)


def _small_text(path: Path) -> str | None:
    """The text of a small regular file in a submission's folder (core/student_files.py: never through a link), or
    None."""
    try:
        return student_files.read_in_submission(path.parent, path.name, _SMALL).decode("utf-8", "replace")
    except (OSError, student_files.Refused):
        return None


def register_assignment(nbc: NbgraderCourse, task: Assignment) -> None:
    """The assignment and its cells in the gradebook, from the released lesson (what students were given)."""
    from nbgrader.api import Gradebook
    from nbgrader.preprocessors import SaveCells

    assignment = task.name
    with Gradebook(nbc.db_url, nbc.course_id) as gb:
        gb.update_or_create_assignment(assignment)
    resources = {"nbgrader": {"assignment": assignment, "notebook": assignment, "db_url": nbc.db_url}}
    try:
        SaveCells(config=nbc.config).preprocess(copy.deepcopy(task.lesson), resources)
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


def _formgrader_copy(nbc: NbgraderCourse, result: SubmissionResult, submitted, task: Assignment) -> nbformat.NotebookNode:
    """The copy Formgrader shows (formgrader_copy.py), graded cells restored from the gradebook by nbgrader."""
    from nbgrader.preprocessors import OverwriteCells

    nb = formgrader_copy.inert_copy(submitted, task, f"{result.status}: {result.reason}")
    resources = {"nbgrader": {"notebook": result.assignment, "assignment": result.assignment,
                              "student": result.student, "db_url": nbc.db_url}}
    nb, _ = OverwriteCells(config=nbc.config).preprocess(nb, resources)
    return nb


def _write_autograded(nbc: NbgraderCourse, result: SubmissionResult, nb: nbformat.NotebookNode, stamp: str | None) -> None:
    target = nbc.folder(nbc.autograded, result.student, result.assignment)
    target.mkdir(parents=True, exist_ok=True)
    partial = target / f".{result.assignment}.ipynb.part"
    partial.write_text(nbformat.writes(nb), encoding="utf-8")
    os.replace(partial, target / f"{result.assignment}.ipynb")
    if stamp is not None:
        (target / TIMESTAMP).write_text(stamp, encoding="utf-8")


def _place_feedback(nbc: NbgraderCourse, result: SubmissionResult, folder: Path, pages: Path, done: Recorded,
                    stamp: str | None) -> None:
    page = pages / result.student / f"{result.assignment}.html"
    secret = _small_text(folder / SECRET)
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


def replace_timestamp(folder: Path, stamp: str) -> str | None:
    """Write ``stamp`` as the folder's ``timestamp.txt``; what stood there (a file that is not a time) is kept beside
    it as ``timestamp.txt.not-a-time`` (or ``...-a-time1``, ...), never lost: return that name, or None."""
    kept = None
    if os.path.lexists(folder / TIMESTAMP):
        kept = next(f"{TIMESTAMP}.not-a-time{n or ''}" for n in range(1000)
                    if not os.path.lexists(folder / f"{TIMESTAMP}.not-a-time{n or ''}"))
        os.rename(folder / TIMESTAMP, folder / kept)
    (folder / TIMESTAMP).write_text(stamp, encoding="utf-8")
    return kept


def readable_timestamp(nbc: NbgraderCourse, folder: Path, student: str,
                       assignment: str) -> tuple[str | None, datetime | None, str | None]:
    """The submission's ``timestamp.txt`` as text and as a time, and a note when it had to be repaired; (None, None,
    None) without one. A file that is not a time (intake.read_timestamp) gives the time it was written instead; in
    the course's own ``submitted/`` folder, which nbgrader's Formgrader reads itself, the file is set aside as
    ``timestamp.txt.not-a-time`` (kept, never lost) and replaced by that time, so that Formgrader's pages load for
    the whole assignment."""
    when, problem = intake.read_timestamp(folder)
    if problem is None:   # the text as it is: nbgrader's feedback exchange matches it character for character
        return (None, None, None) if when is None else (_small_text(folder / TIMESTAMP).strip(), when, None)
    written = datetime.fromtimestamp((folder / TIMESTAMP).lstat().st_mtime, timezone.utc).replace(tzinfo=None)
    stamp = written.strftime(TIME_FORMAT)
    if folder.resolve() == nbc.folder(nbc.submitted, student, assignment).resolve():
        replace_timestamp(folder, stamp)
    return stamp, written, (f"{intake.shown(student)}/{assignment}: {problem}; recorded as submitted at {stamp} "
                            "(when the file was written)")


def record_submission(nbc: NbgraderCourse, result: SubmissionResult, folder: Path, pages: Path, done: Recorded,
                      task: Assignment) -> None:
    from nbgrader.api import Gradebook

    read = intake.read_submission(folder, task)
    submitted = None if isinstance(read, intake.Refusal) else read
    shown = _formgrader_copy(nbc, result, submitted, task)   # first: what could fail on odd work fails before any write
    stamp, when, repaired = readable_timestamp(nbc, folder, result.student, result.assignment)
    if repaired:
        done.notes.append(repaired)
    with Gradebook(nbc.db_url, nbc.course_id) as gb, warnings.catch_warnings():
        # nbgrader's update_or_create_submission makes SQLAlchemy warn about rows it has not added yet (it adds them
        # a line later); the warning says nothing about this grading
        warnings.filterwarnings("ignore", message=".*not in session.*")
        gb.update_or_create_student(result.student)
        gb.update_or_create_submission(result.assignment, result.student,
                                       **({"timestamp": when} if when else {}))
        _scores(gb, result)
        _comments(gb, result, submitted)
        gb.db.commit()  # the submission's grades, all at once
    penalty = _late_penalty(nbc, result)
    if penalty:
        done.late.append(f"{result.student}/{result.assignment}: late penalty {penalty:g}")
    _write_autograded(nbc, result, shown, stamp)
    _place_feedback(nbc, result, folder, pages, done, stamp)
    done.submissions += 1


def record(results: list[SubmissionResult], submissions: Path, nbc: NbgraderCourse, pages: Path) -> Recorded:
    """Record ``results`` (graded from ``submissions``, feedback pages in ``pages``) in the course ``nbc``.

    Each submission is its own unit: one that cannot be recorded (whatever nbgrader's code meets in it) is named in
    the summary, its row says ``not recorded`` and why (the caller writes grades.csv again), and every other
    submission is recorded. A folder whose name is not a student id is never recorded."""
    done = Recorded()
    handed_in = [r for r in results if r.status not in (NOT_SUBMITTED, NOT_A_STUDENT)
                 and intake.student_id_problem(r.student) is None]
    tasks = {name: assignment.load(name) for name in sorted({r.assignment for r in handed_in})}
    for task in tasks.values():
        register_assignment(nbc, task)
    for result in handed_in:
        try:
            record_submission(nbc, result, submissions / result.student / result.assignment, pages, done,
                              tasks[result.assignment])
        except GradebookError:
            raise   # the course's own cells do not match: every submission would fail the same way
        except Exception as error:  # noqa: BLE001 - one student's notebook never stops the class
            why = f"{type(error).__name__} while writing it into the gradebook"
            done.failed.append(f"{intake.shown(result.student)}/{result.assignment}: {why}")
            result.reason = "; ".join(filter(None, [f"graded ({result.status}, {result.score:g} / {result.max_score:g}) "
                                                    f"but not recorded: {why}; grade this student again with --student, "
                                                    "or score it by hand in Formgrader", result.reason]))
            result.status = NOT_RECORDED
    return done
