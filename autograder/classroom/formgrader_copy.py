"""The copy of a submission that Formgrader shows the instructor (``autograded/<student>/<assignment>/``): the
student's work, inert.

Formgrader renders this notebook in the instructor's browser, at the origin of the instructor's Jupyter server,
with nbconvert and templates that pass markdown's HTML through untouched (``c.HTMLExporter.sanitize_html`` does
not reach them). So the copy carries nothing a browser would run, whatever the student handed in:

- markdown cells become their rendering, cleaned by ``core/inert.py`` (text and harmless markup; a pasted
  image inline, as an image), stored as one HTML block that markdown passes through unchanged;
- raw cells (which nbconvert would paste into the page as they are) become their text;
- code cells keep their source (Formgrader shows it highlighted, as text) and lose their outputs: they ran
  nowhere the instructor can trust;
- metadata is the release's: the notebook's from the lesson, and on each cell only the nbgrader metadata of
  the released cell it stands for (first copy only), so that no grade id or flag of the student's reaches a
  template; a released cell the student deleted is put back from the lesson; nbgrader's ``OverwriteCells`` then
  restores the graded cells from the gradebook.
"""

from __future__ import annotations

import copy

import nbformat

from ..core import inert, notebooks
from ..grading.assignment import Assignment


def _notice(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(inert.as_markdown(inert.as_text(text)))


def inert_copy(submitted: nbformat.NotebookNode | None, task: Assignment, problem: str = "") -> nbformat.NotebookNode:
    """The notebook Formgrader may show for ``submitted`` (a notebook as intake read it), or, when it could not be
    read, the lesson as released under a notice saying why (``problem``)."""
    lesson = task.lesson
    nb = nbformat.v4.new_notebook(metadata=copy.deepcopy(lesson.metadata))
    if submitted is None:
        nb.cells = [_notice(f"The autograder could not run this submission: {problem}. This is the lesson as released, "
                            "shown so that its graded cells can be scored by hand.")] + copy.deepcopy(lesson.cells)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        return nb
    released = task.released
    placed: set[str] = set()
    for cell in submitted.cells:
        if cell.cell_type == "code":
            shown = nbformat.v4.new_code_cell(cell.source)
        elif cell.cell_type == "markdown":
            shown = nbformat.v4.new_markdown_cell(inert.as_markdown(inert.markdown_html(cell.source, cell.get("attachments"))))
        else:
            shown = _notice(cell.source)
        gid = notebooks.grading(cell).get("grade_id")
        if gid in released and gid not in placed and released[gid].cell_type == cell.cell_type:
            shown.metadata["nbgrader"] = copy.deepcopy(notebooks.grading(released[gid]))
            placed.add(gid)
        if cell.get("id"):
            shown.id = cell.id   # intake made the ids valid and unique
        nb.cells.append(shown)
    _restore_missing(nb, released, set(placed))
    return nb


def _restore_missing(nb: nbformat.NotebookNode, released: dict, placed: set[str]) -> None:
    """Put each released cell the student deleted back after the released cell before it, as grading does: nbgrader's
    own ``OverwriteCells`` stops (KeyError) when the cell before a missing graded cell is missing too."""
    order = list(released)
    for k, gid in enumerate(order):
        if gid in placed:
            continue
        at = 0
        for earlier in reversed(order[:k]):
            found = [i for i, c in enumerate(nb.cells) if notebooks.grading(c).get("grade_id") == earlier]
            if found:
                at = found[0] + 1
                break
        restored = copy.deepcopy(released[gid])
        if restored.cell_type == "code":
            restored.outputs, restored.execution_count = [], None
        taken = {c.get("id") for c in nb.cells}
        restored.id = next(f"{gid}-restored-{n}"[:64] for n in range(len(nb.cells) + 1)
                           if f"{gid}-restored-{n}"[:64] not in taken)
        nb.cells.insert(at, restored)
        placed.add(gid)
