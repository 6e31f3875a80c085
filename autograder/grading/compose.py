"""The notebook the grader runs: the student's cells, with the real test cells put back.

The student's notebook decides the order and the code of the answers; the course decides the tests.
Every test cell is taken from the source notebook (hidden tests included), whatever the student's
copy holds, and prepared by ``test_cell_source``: a first line of the grader's that asks the kernel
guard to check and report the kernel's state, the visible checks, then the hidden tests, opened by a
line that tells ``coursekit.hidden`` which cell's records follow (and seeds the random generators).
The cell's GRADER blocks never reach the kernel (``regions.for_kernel`` leaves them out); the grader reads
them from the source notebook (``Assignment.grader_rules``) to judge the records outside the box.

Cells are matched to the lesson by their nbgrader ``grade_id``; when another editor stripped that
metadata, by their cell id, then by content and order. A locked test cell that was duplicated keeps
its first copy (the others are dropped and flagged); one that was deleted is put back. Student cells
that claim a grade_id the lesson does not have are run as plain cells.
"""

from __future__ import annotations

import copy
import difflib
import secrets
from dataclasses import dataclass, field

import nbformat
from nbformat import NotebookNode

from ..core import notebooks, regions
from .assignment import Assignment
from .kernel_guard import GUARD_MODULE


@dataclass
class TestSlot:
    """One test cell in the notebook to run, and what the grader expects of it."""
    index: int         # position in the notebook to run
    grade_id: str
    points: float
    gpu: bool
    nonce: str         # the guard reports its check under this


@dataclass
class Plan:
    nb: NotebookNode
    tests: list[TestSlot]
    flags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    visible: dict[str, str] = field(default_factory=dict)       # grade_id -> what a student may see of the test cell


def prologue(grade_id: str, nonce: str) -> str:
    return f"__import__('sys').modules[{GUARD_MODULE!r}].before_test({grade_id!r}, {nonce!r})"


def hidden_begins(grade_id: str) -> str:
    """The grader's line where a cell's hidden tests start: their records are this cell's."""
    return f"__import__('coursekit.hidden', fromlist=['begin']).begin({grade_id!r})"


def test_cell_source(source: str, grade_id: str, nonce: str | None = None) -> str:
    """A test cell as a kernel runs it (in grading, in the reference run and in the variants run): the guard's
    check first when ``nonce`` is given (the grading box has a guard), GRADER blocks left out."""
    body = regions.for_kernel(source, begin=hidden_begins(grade_id)).rstrip()
    return (f"{prologue(grade_id, nonce)}\n{body}\n" if nonce else f"{body}\n")


def _normal(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def _match(student: list[NotebookNode], release: list[NotebookNode]) -> tuple[dict[int, str], bool]:
    """Student cell index -> grade_id of the lesson cell it stands for; and whether any match needed
    more than the nbgrader metadata (stripped by another editor)."""
    graded = {notebooks.grading(c)["grade_id"]: c for c in release if notebooks.grading(c).get("grade_id")}
    matched: dict[int, str] = {}
    # 1. nbgrader metadata, then 2. the cell id (nbformat 4.5 ids survive most editors).
    for by_id in (False, True):
        for i, cell in enumerate(student):
            if i in matched:
                continue
            gid = cell.get("id") if by_id else notebooks.grading(cell).get("grade_id")
            if gid in graded and graded[gid].cell_type == cell.cell_type:
                matched[i] = gid
    found = set(matched.values())
    needed_more = any(not notebooks.grading(student[i]).get("grade_id") for i in matched)
    missing = [gid for gid in graded if gid not in found]
    if not missing:
        return matched, needed_more
    # 3. content: a locked test cell is usually unchanged.
    free = [i for i, c in enumerate(student) if i not in matched and c.cell_type == "code"]
    for gid in missing:
        if not notebooks.is_test_cell(graded[gid]):
            continue
        for i in free:
            if i not in matched and _normal(student[i].source) == _normal(graded[gid].source):
                matched[i] = gid
                needed_more = True
                break
    # 4. order: an answer cell sits between the graded cells around it in the lesson.
    order = [notebooks.grading(c)["grade_id"] for c in release if notebooks.grading(c).get("grade_id")]
    position = {gid: i for i, gid in matched.items()}
    for k, gid in enumerate(order):
        if gid in position or not notebooks.is_solution_cell(graded[gid]):
            continue
        before = max((position[g] for g in order[:k] if g in position), default=-1)
        after = min((position[g] for g in order[k + 1:] if g in position), default=len(student))
        candidates = [i for i in range(before + 1, after) if i not in matched and student[i].cell_type == "code"]
        if not candidates:
            continue
        stub = graded[gid].source
        best = max(candidates, key=lambda i: difflib.SequenceMatcher(None, stub, student[i].source).ratio())
        matched[best] = gid
        position[gid] = best
        needed_more = True
    return matched, needed_more


def _plain(cell: NotebookNode) -> NotebookNode:
    """A copy of a student's cell as an ordinary cell: no nbgrader metadata, no outputs."""
    cell = copy.deepcopy(cell)
    cell.get("metadata", {}).pop("nbgrader", None)
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None
    return cell


def build(student_nb: NotebookNode, assignment: Assignment) -> Plan:
    """The plan for grading ``student_nb`` as a submission of ``assignment``."""
    release = assignment.lesson.cells
    source_tests = assignment.tests
    released = assignment.released
    student = student_nb.cells
    matched, stripped = _match(student, release)

    cells: list[NotebookNode] = []
    placed: dict[str, int] = {}
    duplicated, edited = [], []
    for i, cell in enumerate(student):
        gid = matched.get(i)
        if gid is None:
            cells.append(_plain(cell))
            continue
        if gid in placed:
            if notebooks.is_test_cell(released[gid]):
                duplicated.append(gid)
            else:
                cells.append(_plain(cell))  # a copied answer cell runs like any cell of the student's
            continue
        if notebooks.is_test_cell(released[gid]):
            if _normal(cell.source) != _normal(released[gid].source):
                edited.append(gid)
            cells.append(copy.deepcopy(source_tests[gid]))
        else:
            answer = _plain(cell)
            answer.metadata["nbgrader"] = copy.deepcopy(notebooks.grading(released[gid]))
            cells.append(answer)
        placed[gid] = len(cells) - 1
    deleted = []
    for k, gid in enumerate(released):  # put back what was deleted, after the graded cell before it
        if gid in placed:
            continue
        deleted.append(gid)
        earlier = [placed[g] for g in list(released)[:k] if g in placed]
        at = (max(earlier) + 1) if earlier else 0
        restored = copy.deepcopy(source_tests[gid] if gid in source_tests else released[gid])
        if not notebooks.is_test_cell(restored):
            restored.outputs, restored.execution_count = [], None
        cells.insert(at, restored)
        placed = {g: (p + 1 if p >= at else p) for g, p in placed.items()}
        placed[gid] = at

    nb = nbformat.v4.new_notebook(metadata=copy.deepcopy(student_nb.get("metadata", {})))
    nb.cells = cells
    tests = []
    for index, cell in enumerate(cells):
        if not notebooks.is_test_cell(cell) or notebooks.grading(cell).get("grade_id") not in source_tests:
            continue
        meta = notebooks.grading(cell)
        slot = TestSlot(index, meta["grade_id"], float(meta.get("points", 0)), notebooks.is_gpu_test_cell(cell),
                        nonce=secrets.token_hex(8))
        cell.source = test_cell_source(cell.source, slot.grade_id, slot.nonce)
        cell.outputs, cell.execution_count = [], None
        tests.append(slot)
    plan = Plan(nb, tests, visible=dict(assignment.visible))
    if edited:
        plan.flags.append(f"edited a locked test cell ({', '.join(edited)}; the original was restored and run)")
    if duplicated:
        plan.flags.append(f"duplicated a locked test cell ({', '.join(sorted(set(duplicated)))}; the copy was dropped)")
    graded_deleted = [g for g in deleted if notebooks.is_test_cell(released[g])]
    if graded_deleted:
        plan.flags.append(f"deleted a graded cell ({', '.join(graded_deleted)}; it was restored and run)")
    answers_deleted = [g for g in deleted if g not in graded_deleted]
    if answers_deleted:
        plan.notes.append(f"no answer cell found for {', '.join(answers_deleted)}: the lesson's empty one was run")
    if stripped:
        plan.notes.append("some cells had lost their grading metadata (another editor?); they were matched to the "
                          "lesson by cell id, content and order")
    return plan
