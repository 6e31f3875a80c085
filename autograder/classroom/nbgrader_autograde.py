"""nbgrader's own autograde, routed through the course's grader.

Formgrader's *Autograde* button, ``nbgrader autograde`` and ``make nbgrader ARGS="autograde ..."`` all run
nbgrader's ``Autograde`` converter. Left as it is, that converter executes the student's notebook in the
instructor's own process, outside any sandbox, and scores it by whether a test cell raised; the course's hidden
tests send values to the grader instead of raising, so it would give full marks to wrong answers. The course's
nbgrader settings (``core/settings.py``, ``configure``) plug these two pieces into the converter's own extension
points instead:

- ``prepare`` (``Autograde.pre_convert_hook``, before nbgrader reads anything of the submission): the assignment
  and its cells in the gradebook (nbgrader would otherwise find no notebook to grade), the student's row for an
  id a person could have (``Autograde.create_student`` is off, so a folder named otherwise is refused by
  nbgrader itself), and a ``timestamp.txt`` nbgrader can read (one that is not a time is set aside and replaced,
  as ``grade --gradebook`` does);
- ``CourseGrader`` (the converter's only preprocessor): ``python -m autograder grade ... --gradebook`` for this one
  submission, in a child process: the box, the verdicts outside it, the gradebook, the copy Formgrader shows and
  the feedback page, exactly as the command gives them; then hands nbgrader that same copy to write. Nothing of
  the student's runs in nbgrader's process, and a failure is nbgrader's error for that submission, never a score.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nbgrader.converters.base import NbGraderException
from nbgrader.preprocessors import NbGraderPreprocessor

from ..core import notebooks
from ..core.settings import EXIT_NEEDS_INSTRUCTOR
from ..grading import intake
from ..grading.assignment import load
from . import gradebook, nbgrader_course

# Where each routed autograde writes grades.csv, cells.csv and the feedback page (one folder per submission, so
# that a button press never overwrites a class's results in graded/).
OUT = Path("graded") / "nbgrader-autograde"


def command(nbc: nbgrader_course.NbgraderCourse, assignment: str, student: str) -> list[str]:
    """The course's grading of one submission, as an instructor would type it."""
    return [sys.executable, "-m", "autograder", "grade", str(nbc.root / nbc.submitted), "--assignment", assignment,
            "--student", student, "--gradebook", "--course", str(nbc.root), "--out", str(nbc.root / OUT / assignment / student)]


def prepare(assignment: str, student: str, notebooks: list[str]) -> None:   # noqa: ARG001 - nbgrader's hook signature
    """Make what nbgrader reads before grading well formed (see the module's docstring), for ``student`` or, when
    nbgrader autogrades a whole assignment (``student`` is ``*``), for every student folder of it. nbgrader logs and
    ignores an error here; what it then reads fails with nbgrader's own message."""
    from nbgrader.api import Gradebook

    nbc = nbgrader_course.load(Path.cwd())   # nbgrader's converters work from the course root
    submitted = nbc.root / nbc.submitted
    names = [student] if student not in ("*", "") else sorted(p.parent.name for p in submitted.glob(f"*/{assignment}"))
    people = [name for name in names if intake.student_id_problem(name) is None]   # others get no gradebook row:
    gradebook.register_assignment(nbc, load(assignment))                            # nbgrader then refuses them
    with Gradebook(nbc.db_url, nbc.course_id) as gb:
        for name in people:
            gb.update_or_create_student(name)
    for name in people:
        folder = nbc.folder(nbc.submitted, name, assignment)
        if folder.is_dir() and not folder.is_symlink():
            gradebook.readable_timestamp(nbc, folder, name, assignment)


class CourseGrader(NbGraderPreprocessor):
    """Grade the submission with the course's grader, and give nbgrader the copy it recorded for Formgrader."""

    def preprocess(self, nb, resources):
        meta = resources["nbgrader"]
        assignment, student = meta["assignment"], meta["student"]
        if meta["notebook"] != assignment:
            raise NbGraderException(f"{meta['notebook']}.ipynb is not this course's notebook of {assignment}")
        problem = intake.student_id_problem(student)
        if problem:
            raise NbGraderException(problem)
        nbc = nbgrader_course.load(Path.cwd())   # nbgrader's converters work from the course root
        run = command(nbc, assignment, student)
        self.log.info("Grading with the course's grader (the sandbox, verdicts outside it): %s", " ".join(run[1:]))
        # The kernel in the box imports coursekit from this environment's own installation (the box passes no
        # PYTHONPATH), so the grader that binds it into the box imports everything from there too: not from
        # PYTHONPATH, nor from the folder it runs in (PYTHONSAFEPATH).
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONSAFEPATH": "1"}
        done = subprocess.run(run, cwd=nbc.root, env=env, capture_output=True, text=True)
        for line in (done.stdout + done.stderr).splitlines():
            if line.strip():
                self.log.info("%s", line)
        if done.returncode not in (0, EXIT_NEEDS_INSTRUCTOR):   # graded, and a row asks the instructor to look
            raise NbGraderException(f"the course's grader stopped (exit {done.returncode}); run it in a terminal to "
                                    f"see why: {' '.join(run[1:])}")
        shown = nbc.folder(nbc.autograded, student, assignment) / f"{assignment}.ipynb"
        if not shown.is_file():
            raise NbGraderException(f"the course's grader did not record {student}/{assignment}: see its lines above")
        return notebooks.read(shown), resources
