"""nbgrader settings shared by the course root's ``nbgrader_config.py`` and each grading folder."""

from __future__ import annotations

# Training cells run for minutes on a CPU; nbgrader's default of 30 s per cell is far too short.
CELL_TIMEOUT_S = 600
# How long to wait for a cell's last outputs after the kernel says it finished. nbclient's default
# (4 s) silently drops outputs when two gradings share a loaded 2-core machine, which made feedback
# pages differ between runs; waiting longer costs nothing when the outputs arrive on time.
IOPUB_TIMEOUT_S = 120
# Files in a lesson folder that are never released or collected (run artefacts, editor litter).
IGNORED = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "*.pt", "*.pth", "*.part"]
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"


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
    # Feedback must never show hidden tests (nbgrader's default shows them in source and tracebacks).
    # The same steps as the autograder's own renderer (autograder.feedback.FEEDBACK_STEPS).
    from .feedback import FEEDBACK_STEPS

    c.GenerateFeedback.preprocessors = [
        "nbgrader.preprocessors.GetGrades", *FEEDBACK_STEPS, "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor"]
