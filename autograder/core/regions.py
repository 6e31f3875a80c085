"""The regions of a test cell, the one parser of its markers.

A test cell of a source notebook has a visible part, which students see, then a hidden region::

    check_shape(make_grid(2, 3), (2, 3))           # visible: runs in the student's JupyterLab too
    ### BEGIN HIDDEN TESTS
    hidden.same("make_grid(4, 5)", make_grid(4, 5))  # hidden: runs only when grading, in the box
    ### BEGIN GRADER
    def rule(got, reference): ...                   # the grader's own code: runs outside the box only
    ### END GRADER
    ### END HIDDEN TESTS

nbgrader removes the hidden region from the lessons. The grader sends the hidden region to the
student's kernel without its GRADER blocks, and runs those blocks itself, outside the box, to judge what
the kernel sent back (grading/rules.py). The markers may be indented (a hidden region inside an
``if run_gpu_checks():``); their lines hold nothing else.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
BEGIN_GRADER, END_GRADER = "### BEGIN GRADER", "### END GRADER"
HIDDEN_NOTE = "# (hidden tests ran here; they are not shown)"


@dataclass(frozen=True)
class Line:
    text: str
    region: str        # "visible", "hidden", "grader" or "marker"


class RegionError(ValueError):
    """A test cell whose markers do not nest: BEGIN without END, GRADER outside a hidden region."""


def _marker(line: str) -> str | None:
    stripped = line.strip()
    return stripped if stripped in (BEGIN_HIDDEN, END_HIDDEN, BEGIN_GRADER, END_GRADER) else None


def lines(source: str) -> list[Line]:
    """Every line of ``source`` with the region it belongs to (marker lines are their own region)."""
    found, region = [], "visible"
    for text in source.split("\n"):
        marker = _marker(text)
        if marker == BEGIN_HIDDEN:
            if region != "visible":
                raise RegionError("BEGIN HIDDEN TESTS inside a hidden region")
            region = "hidden"
        elif marker == BEGIN_GRADER:
            if region != "hidden":
                raise RegionError("BEGIN GRADER outside a hidden region (a grader block belongs to the hidden tests)")
            region = "grader"
        elif marker == END_GRADER:
            if region != "grader":
                raise RegionError("END GRADER without BEGIN GRADER")
            region = "hidden"
        elif marker == END_HIDDEN:
            if region != "hidden":
                raise RegionError("END HIDDEN TESTS without BEGIN HIDDEN TESTS (or inside a grader block)")
            region = "visible"
        found.append(Line(text, "marker" if marker else region))
    if region != "visible":
        raise RegionError(f"a {region} region is never closed")
    return found


def visible(source: str) -> tuple[str, bool]:
    """What a student may see of the cell: each hidden region replaced by one note line; and whether any was cut."""
    kept, cut = [], False
    for line in lines(source):
        if line.region == "visible":
            kept.append(line.text)
        elif line.region == "marker" and line.text.strip() == BEGIN_HIDDEN:
            cut = True
            kept.append(line.text[: len(line.text) - len(line.text.lstrip())] + HIDDEN_NOTE)
    return "\n".join(kept), cut


def for_kernel(source: str, begin: str | None = None) -> str:
    """The cell as the kernel runs it: GRADER blocks and marker lines left out; ``begin`` (a line of the
    grader's, indented like the hidden region) put where each hidden region starts."""
    kept = []
    for line in lines(source):
        if line.region in ("visible", "hidden"):
            kept.append(line.text)
        elif begin is not None and line.text.strip() == BEGIN_HIDDEN:
            kept.append(line.text[: len(line.text) - len(line.text.lstrip())] + begin)
    return "\n".join(kept)


def grader_code(source: str) -> str:
    """The cell's GRADER blocks, dedented, as one module's source ('' when it has none)."""
    blocks, current = [], []
    for line in lines(source):
        if line.region == "grader":
            current.append(line.text)
        elif current:
            blocks.append(textwrap.dedent("\n".join(current)))
            current = []
    return "\n\n".join(blocks)


def hidden_lines(source: str, min_length: int = 8) -> list[str]:
    """The stripped lines of the hidden regions (GRADER blocks included) long enough to look for elsewhere."""
    return [line.text.strip() for line in lines(source)
            if line.region in ("hidden", "grader") and len(line.text.strip()) >= min_length]
