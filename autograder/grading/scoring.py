"""Points per test cell, decided outside the sandbox after the kernel is gone.

A test cell earns points from its checks, as verdicts.py judged them against the reference run:

- every *value* check passed, and the cell raised no error: the points its values decide;
- every *observation* passed too, and the kernel guard saw nothing that could rewrite the cell: the
  rest (settings.split_points; most cells have values only, and then all their points are decided by
  values). A wrong value costs the whole cell.

An error in the cell (the code under test raised, a visible check failed) costs the whole cell: it can
only cost points, never give them. Nothing the kernel writes is read as a score, and no cell earns more
than its own points. On a CPU runner, GPU-only cells are reported as needing a GPU runner, whatever
they printed; on a GPU runner, a GPU check that skipped itself fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coursekit.checks import GPU_SKIPPED, NeedsGPU

from . import integrity
from ..core import notebooks
from ..core.settings import CELL_TIME_LIMIT, FAILED, NEEDS_GPU, NEEDS_MANUAL, NOT_RUN, PARTIAL, PASSED, split_points
from .compose import Plan
from .job import RunReport
from .kernel_guard import KERNEL_EXIT_BLOCKED
from .results import CellResult
from .verdicts import OBSERVATION, OWN_WORK_CHECK, VALUE, CellChecks

NEEDS_GPU_ERROR = NeedsGPU.__name__


@dataclass
class Outcome:
    cells: list[CellResult]
    reasons: list[str] = field(default_factory=list)   # cells stopped, in words
    flags: list[str] = field(default_factory=list)     # for the instructor to look at
    untrusted: dict[str, str] = field(default_factory=dict)   # cells whose observations were not trusted, and why


def _cell_name(nb, index: int) -> str:
    return notebooks.grading(nb.cells[index]).get("grade_id") or f"cell {index + 1}"


def stopped_reasons(nb, report: RunReport) -> list[str]:
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
    stopped = report.stopped
    if stopped:
        index = stopped.cell
        name = _cell_name(nb, index) if index is not None else "a cell"
        later = sum(1 for c in nb.cells[(index or 0) + 1:] if c.cell_type == "code")
        why = {"unstoppable": f"{name} ignored the grader's interrupt, so its kernel was ended",
               "crashed": f"the Python kernel crashed in {name} (a segfault, a forced exit or out of memory)",
               "wall": f"the notebook was still running at {name} when the time for the whole submission ran out"}
        reasons.append(f"{why.get(stopped.why, 'the run ended early')}; the {later} code cell(s) after it did not run, "
                       "the cells before it keep their points")
    if report.channel_full:
        reasons.append("the notebook sent more data to the grader than it keeps; checks after that never reported")
    return reasons


def cell_score(points: float, judged: CellChecks | None, error: bool, trusted: bool) -> tuple[float, str]:
    """(score, status) of a test cell that ran."""
    checks = judged.checks if judged else []
    values = any(c.kind == VALUE for c in checks)
    observations = any(c.kind == OBSERVATION for c in checks)
    by_values, _ = split_points(points, values or not observations, observations)
    if error or not checks or not judged.passed(VALUE):
        return 0.0, FAILED
    if observations and not (trusted and judged.passed(OBSERVATION)):
        return (by_values, PARTIAL) if by_values else (0.0, FAILED)
    return points, PASSED


def score(plan: Plan, nb, report: RunReport, runner: str, checks: dict[str, CellChecks]) -> Outcome:
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
        elif slot.gpu and GPU_SKIPPED in notebooks.stream_text(cell, "stdout"):
            pass  # a GPU runner whose box shows no CUDA: a skip is never a pass
        else:
            result.score, result.status = cell_score(slot.points, checks.get(slot.grade_id), error is not None,
                                                     slot.grade_id not in verdict.untrusted)
    own = [gid for gid, judged in checks.items() if any(c.name == OWN_WORK_CHECK and not c.passed for c in judged.checks)]
    flags = verdict.flags + ([f"handed in the course package's own code as the answer of {', '.join(own)} (no points "
                              "for those cells)"] if own else [])
    return Outcome(cells, stopped_reasons(nb, report), flags, verdict.untrusted)


def blank(assignment_tests: list[tuple[str, float, bool]], runner: str, status: str = NOT_RUN) -> list[CellResult]:
    """Every graded cell at 0 (a submission that could not be run), GPU cells marked as such on a CPU runner."""
    return [CellResult(gid, 0.0, points, NEEDS_GPU if gpu and runner != "gpu" else status)
            for gid, points, gpu in assignment_tests]


def written(answers: list[tuple[str, float]]) -> list[CellResult]:
    """The written answers of an assignment: listed with their points, scored by the instructor, never here."""
    return [CellResult(gid, 0.0, points, NEEDS_MANUAL) for gid, points in answers]
