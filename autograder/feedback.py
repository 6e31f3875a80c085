"""Feedback that never reveals a hidden test.

nbgrader renders the autograded notebook as it ran, hidden tests included, both in the cell source
and in the tracebacks of failed tests. This preprocessor, run by ``generate_feedback``, cuts the
hidden region out of every test cell and replaces each traceback of a test cell by one line: the
error's type and message (which the course writes as a hint, never as test code).
"""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from .notebooks import is_test_cell

BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
HIDDEN_NOTE = "# (hidden tests ran here; they are not shown)"


def strip_hidden(source: str) -> tuple[str, bool]:
    """Source without its hidden-test regions (marker lines included), and whether any was cut."""
    kept, hidden, cut = [], False, False
    for line in source.split("\n"):
        if BEGIN in line:
            hidden = cut = True
            kept.append(line[: len(line) - len(line.lstrip())] + HIDDEN_NOTE)
        elif END in line:
            hidden = False
        elif not hidden:
            kept.append(line)
    return "\n".join(kept), cut


class HideHiddenTests(Preprocessor):
    enabled = Bool(True)  # nbconvert preprocessors are off unless enabled

    def preprocess_cell(self, cell, resources, index):
        if not is_test_cell(cell):
            return cell, resources
        cell.source, _ = strip_hidden(cell.source)
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                message = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}".rstrip(": ")
                output["traceback"] = [message, "(the test code is not shown; the message above says what to fix)"]
        return cell, resources


class TruncateOutputs(Preprocessor):
    """Cut any text output longer than ``limit`` characters, so a flood of prints stays readable."""

    enabled = Bool(True)
    limit = 20_000

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            for key in ("text",):
                if isinstance(output.get(key), str) and len(output[key]) > self.limit:
                    cut = len(output[key]) - self.limit
                    output[key] = output[key][: self.limit] + f"\n... [{cut:,} more characters cut by the grader]\n"
            data = output.get("data", {})
            text = data.get("text/plain")
            if isinstance(text, str) and len(text) > self.limit:
                data["text/plain"] = text[: self.limit] + "\n... [cut by the grader]\n"
            for key in list(data):
                if key not in ("text/plain", "image/png") and len(str(data[key])) > self.limit:
                    del data[key]
        return cell, resources


# What a student may see of their autograded notebook, in order: hidden tests cut; consecutive pieces of one
# output stream merged (the kernel splits a print wherever its flush timer fires, and the same submission
# must always give the same page); over-long outputs cut. Import paths, so that nbgrader's own
# ``generate_feedback`` (configured in settings.py) runs exactly these steps too.
FEEDBACK_STEPS = (
    "autograder.feedback.HideHiddenTests",
    "nbconvert.preprocessors.CoalesceStreamsPreprocessor",
    "autograder.feedback.TruncateOutputs",
)


def prepare_for_feedback(nb):
    """``nb`` (an autograded notebook, changed in place and returned) after every step of FEEDBACK_STEPS."""
    from traitlets.utils.importstring import import_item

    for path in FEEDBACK_STEPS:
        nb, _ = import_item(path)(enabled=True).preprocess(nb, {})
    return nb


def render_feedback(autograded_notebook, db_path, student: str, assignment: str) -> str:
    """The feedback page for one autograded notebook, rendered in this process.

    It does what ``nbgrader generate_feedback`` does (same template, same grades from the gradebook)
    without starting a second nbgrader process per submission, and always hides the hidden tests.
    """
    import os
    from pathlib import Path

    import nbformat
    import nbgrader
    from nbconvert.exporters import HTMLExporter
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import GetGrades

    package = Path(nbgrader.__file__).parent
    templates = package / "server_extensions" / "formgrader" / "templates"
    bootstrap = package / "server_extensions" / "formgrader" / "static" / "node_modules" / "bootstrap" / "dist" / "css"
    exporter = HTMLExporter(template_name="feedback", extra_template_basedirs=[str(templates)],
                            extra_template_paths=[str(bootstrap)])
    exporter.register_preprocessor(GetGrades(), enabled=True)
    exporter.register_preprocessor(CSSHTMLHeaderPreprocessor(), enabled=True)
    nb = prepare_for_feedback(nbformat.read(os.fspath(autograded_notebook), as_version=4))
    resources = {"nbgrader": {"student": student, "assignment": assignment, "notebook": assignment,
                              "db_url": f"sqlite:///{db_path}"}}
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    return body
