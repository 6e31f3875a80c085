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
