"""Values every part of the autograder shares. The bottom of the package: it imports none of the rest.

Also applied to nbgrader itself (``configure``), so that a student's **Validate** button, the course
root's ``nbgrader_config.py`` and the grader use the same per-cell limit and release settings.
"""

from __future__ import annotations

import sys

# Training cells run for minutes on a CPU; nbgrader's default of 30 s per cell is far too short.
# The one source of the per-cell limit: Validate, `check`, `grade` and the notebook tests read it here.
CELL_TIMEOUT_S = 600
# How long to wait for a cell's last outputs after the kernel says it finished. nbclient's default
# (4 s) silently drops outputs when two gradings share a loaded 2-core machine, which made feedback
# pages differ between runs; waiting longer costs nothing when the outputs arrive on time.
IOPUB_TIMEOUT_S = 120
# Files in a lesson folder that are never released or collected (run artefacts, editor litter).
IGNORED = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "*.pt", "*.pth", "*.part"]
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"

# What became of one submission (the `status` column of grades.csv).
GRADED = "graded"                    # every cell ran (some may have been stopped by the per-cell limit)
INCOMPLETE = "incomplete"            # the run ended early (crash, a cell that could not be stopped, wall time)
ERROR = "error"                      # the grader could not run it at all (the box or the kernel failed to start)
INVALID = "invalid notebook"         # not a regular file, not JSON, or not a notebook
MISSING = "missing notebook"         # no <assignment>.ipynb in the folder
NOT_SUBMITTED = "not submitted"      # no <student>/<assignment> folder
NOT_A_STUDENT = "not a student id"   # a folder whose name no person has (grading/intake.py): listed, never graded
NOT_RECORDED = "not recorded"        # graded, but writing it into nbgrader's gradebook failed (grade --gradebook)
SUBMISSION_STATUSES = (GRADED, INCOMPLETE, ERROR, INVALID, MISSING, NOT_SUBMITTED, NOT_A_STUDENT, NOT_RECORDED)

# What `python -m autograder` exits with (docs/options.md lists it): 0 when the command did its work and every
# submission's status is FINISHED; argparse's 2 for a mistake in the command line; and these two.
FINISHED = (GRADED, NOT_SUBMITTED)   # statuses that need nobody (the progress bar counts the others as failed)
EXIT_NEEDS_INSTRUCTOR = 3            # grade, merge, gradebook: done, but some row's status is not FINISHED (it says why)
EXIT_SHARDS_MISSING = 4              # merge: a shard did not finish; nothing was written

# What became of one graded cell (the `status` column of cells.csv).
PASSED = "passed"
FAILED = "failed"
PARTIAL = "values passed, observations failed"   # the cell's observed share withheld (see OBSERVED_SHARE)
NOT_RUN = "not run"                  # the run ended before this cell
NEEDS_GPU = "needs a GPU runner"     # a GPU-only test on a CPU runner: reported, never scored
NEEDS_MANUAL = "needs manual grading"  # a written answer: the instructor scores it in Formgrader, never the grader
# Cells whose points are not the autograder's to give on this run: left out of score and max_score.
NOT_SCORED_HERE = (NEEDS_GPU, NEEDS_MANUAL)

# A test cell's points are decided by the records its hidden tests send (coursekit/hidden.py), judged outside
# the box. Values (what the student's code returned) decide the cell; observations (what an instrument inside
# the student's process saw) are best effort, so a cell that has both puts this share of its points on them,
# the rest on its values: a wrong value costs the whole cell, a wrong observation this share.
OBSERVED_SHARE = 0.25


def split_points(points: float, values: bool, observations: bool) -> tuple[float, float]:
    """(points decided by values outside the box, points resting on observations) of a test cell."""
    if not observations:
        return points, 0.0
    if not values:
        return 0.0, points
    observed = points * OBSERVED_SHARE
    return points - observed, observed


# The error a cell shows when the grader stopped it at the per-cell limit.
CELL_TIME_LIMIT = "CellTimeLimit"

# What a student may see of their executed notebook, in order: hidden tests and the grader's own
# lines cut, test tracebacks reduced to their message; consecutive pieces of one output stream merged
# (the kernel splits a print wherever its flush timer fires, and the same submission must always
# give the same page); over-long outputs cut. Import paths, so that nbgrader's own
# ``generate_feedback`` (configured below) runs the same steps.
FEEDBACK_STEPS = (
    "autograder.grading.feedback.HideHiddenTests",
    "nbconvert.preprocessors.CoalesceStreamsPreprocessor",
    "autograder.grading.feedback.TruncateOutputs",
)


def configure(c, *, source: str, release: str, cell_timeout: int = CELL_TIMEOUT_S) -> None:
    """Apply the course's nbgrader settings to the traitlets config ``c``."""
    c.CourseDirectory.source_directory = source
    c.CourseDirectory.release_directory = release
    c.CourseDirectory.ignore = IGNORED
    c.ClearSolutions.code_stub = {"python": CODE_STUB}
    c.Execute.timeout = cell_timeout
    c.Execute.interrupt_on_timeout = True
    c.Execute.iopub_timeout = IOPUB_TIMEOUT_S
    c.OverwriteCells.add_missing_cells = True
    c.LimitOutput.max_lines = 1000
    c.LimitOutput.max_traceback = 100
    # nbgrader's own autograde (Formgrader's button, `nbgrader autograde`) grades through the course's grader: the
    # sandbox and the verdicts outside it, never the student's code in nbgrader's process (classroom/nbgrader_autograde.py).
    c.Autograde.pre_convert_hook = "autograder.classroom.nbgrader_autograde.prepare"
    c.Autograde.sanitize_preprocessors = ["autograder.classroom.nbgrader_autograde.CourseGrader"]
    c.Autograde.autograde_preprocessors = []
    c.Autograde.create_student = False    # prepare() adds the students whose ids a person could have
    # Collect only what a person could have named, and only regular files and folders (classroom/nbgrader_collect.py).
    c.ExchangeFactory.collect = "autograder.classroom.nbgrader_collect.CollectStudentIds"
    # Release carries each shipped edition of the lesson as <code>/NN.ipynb (classroom/nbgrader_release.py).
    c.ExchangeFactory.release_assignment = "autograder.classroom.nbgrader_release.ReleaseWithEditions"
    # `nbgrader export` writes its CSV by the course's rules: roster names as quoted text that never starts a formula
    # (classroom/nbgrader_export.py, with core/csv_safe.py).
    c.ExportApp.plugin_class = "autograder.classroom.nbgrader_export.SafeCsvExport"
    # Feedback must never show hidden tests (nbgrader's default shows them in source and tracebacks).
    c.GenerateFeedback.preprocessors = [
        "nbgrader.preprocessors.GetGrades", *FEEDBACK_STEPS, "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor"]


# nbformat imports jsonschema, which imports its optional IRI checker (rfc3987_syntax) if it is installed
# (jupyter_events installs it); that module builds a grammar at import, 1.2 s of CPU here, for a string
# format that no notebook schema uses. The processes the autograder starts by the hundred (one executor
# per submission) and its command line block that one import before they import nbformat.
SLOW_UNUSED_IMPORTS = ("rfc3987_syntax",)


def skip_slow_unused_imports() -> None:
    """Make ``import rfc3987_syntax`` fail fast in this process (jsonschema then leaves out the IRI format)."""
    for name in SLOW_UNUSED_IMPORTS:
        sys.modules.setdefault(name, None)
