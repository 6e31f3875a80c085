"""Scores, decided outside the sandbox from what the executed notebook shows, after the kernel is gone.

A test cell earns its points when it ran, raised no error (warnings and anything else written to
stderr do not count against it) and integrity.py trusts its result; otherwise 0.

Points are never more than the cell's own, and nothing the kernel writes is read as a score.
On a CPU runner, GPU-only cells are reported as needing a GPU runner, whatever they printed; on a GPU
runner, a GPU check that skipped itself fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coursekit.checks import GPU_SKIPPED, NeedsGPU

from . import integrity, notebooks
from .compose import Plan
from .kernel_guard import KERNEL_EXIT_BLOCKED
from .results import CellResult
from .settings import CELL_TIME_LIMIT, FAILED, NEEDS_GPU, NOT_RUN, PASSED

NEEDS_GPU_ERROR = NeedsGPU.__name__


@dataclass
class Outcome:
    cells: list[CellResult]
    reasons: list[str] = field(default_factory=list)   # cells stopped, in words
    flags: list[str] = field(default_factory=list)     # for the instructor to look at


def _cell_name(nb, index: int) -> str:
    return notebooks.grading(nb.cells[index]).get("grade_id") or f"cell {index + 1}"


def stopped_reasons(nb, report: dict) -> list[str]:
    """Cells stopped by a limit or a blocked exit, and how the run ended, in words."""
    reasons = []
    for index, cell in enumerate(nb.cells):
        for error in notebooks.errors(cell):
            name = _cell_name(nb, index)
            if error.get("ename") == CELL_TIME_LIMIT:
                reasons.append(f"{name} ran past the per-cell time limit and was stopped")
            elif error.get("ename") == KERNEL_EXIT_BLOCKED:
                reasons.append(f"{name} tried to end the Python process (os._exit)")
            elif error.get("ename") == "MemoryError":
                reasons.append(f"{name} ran out of memory")
    stopped = report.get("stopped")
    if stopped:
        index = stopped.get("cell")
        name = _cell_name(nb, index) if index is not None else "a cell"
        later = sum(1 for c in nb.cells[(index or 0) + 1:] if c.cell_type == "code")
        why = {"unstoppable": f"{name} ignored the grader's interrupt, so its kernel was ended",
               "crashed": f"the Python kernel crashed in {name} (a segfault, a forced exit or out of memory)",
               "wall": f"the notebook was still running at {name} when the time for the whole submission ran out"}
        reasons.append(f"{why.get(stopped.get('why'), 'the run ended early')}; the {later} code cell(s) after it did not run, "
                       "the cells before it keep their points")
    return reasons


def score(plan: Plan, nb, report: dict, runner: str) -> Outcome:
    """Per-cell results of the executed notebook ``nb`` (the plan's notebook after the run)."""
    verdict = integrity.assess(plan, nb, report)
    cells: list[CellResult] = []
    for slot in plan.tests:
        cell = nb.cells[slot.index]
        result = CellResult(slot.grade_id, 0.0, slot.points, FAILED)
        cells.append(result)
        error = notebooks.first_error(cell)
        if (slot.gpu and runner != "gpu") or (error and error[0] == NEEDS_GPU_ERROR):
            result.status = NEEDS_GPU
        elif cell.get("execution_count") is None and not cell.get("outputs"):
            result.status = NOT_RUN
        elif error or slot.grade_id in verdict.untrusted:
            pass
        elif slot.gpu and GPU_SKIPPED in notebooks.stream_text(cell, "stdout"):
            pass  # a GPU runner whose box shows no CUDA: a skip is never a pass
        else:
            result.score, result.status = slot.points, PASSED
    return Outcome(cells, stopped_reasons(nb, report), verdict.flags)


def blank(assignment_tests: list[tuple[str, float, bool]], runner: str, status: str = NOT_RUN) -> list[CellResult]:
    """Every graded cell at 0 (a submission that could not be run), GPU cells marked as such on a CPU runner."""
    return [CellResult(gid, 0.0, points, NEEDS_GPU if gpu and runner != "gpu" else status)
            for gid, points, gpu in assignment_tests]
