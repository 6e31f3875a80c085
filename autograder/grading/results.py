"""What grading produces: result types, the two CSV files, and the summary an instructor reads."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

from ..core import csv_safe
from ..core.settings import GRADED, NEEDS_GPU, NEEDS_MANUAL, NOT_A_STUDENT, NOT_SCORED_HERE, NOT_SUBMITTED
from .intake import shown

GRADES_COLUMNS = ["student", "assignment", "score", "max_score", "gpu_points_not_run", "manual_points",
                 "status", "reason", "flags",
                  "sandbox", "seconds"]
CELLS_COLUMNS = ["student", "assignment", "cell", "score", "max_score", "status"]
TIMING_COLUMNS = ("seconds",)


@dataclass
class CellResult:
    cell: str
    score: float
    max_score: float
    status: str


@dataclass
class SubmissionResult:
    student: str
    assignment: str
    status: str  # one of settings.SUBMISSION_STATUSES
    reason: str = ""
    seconds: float = 0.0
    cells: list[CellResult] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)  # for the instructor to look at
    sandbox: str = ""  # how the kernel was isolated ("bubblewrap", or why not)

    @property
    def score(self) -> float:
        return sum(c.score for c in self.cells if c.status not in NOT_SCORED_HERE)

    @property
    def max_score(self) -> float:
        return sum(c.max_score for c in self.cells if c.status not in NOT_SCORED_HERE)

    @property
    def gpu_points(self) -> float:
        """Points of GPU-only tests that this runner could not run."""
        return sum(c.max_score for c in self.cells if c.status == NEEDS_GPU)

    @property
    def manual_points(self) -> float:
        """Points of written answers, for the instructor to give in Formgrader."""
        return sum(c.max_score for c in self.cells if c.status == NEEDS_MANUAL)


def grades_row(r: SubmissionResult) -> list[object]:
    return [r.student, r.assignment, r.score, r.max_score, r.gpu_points, r.manual_points, r.status, r.reason,
            " | ".join(r.flags), r.sandbox, round(r.seconds, 1)]


def cells_rows(r: SubmissionResult) -> list[list[object]]:
    return [[r.student, r.assignment, c.cell, c.score, c.max_score, c.status] for c in r.cells]


def write_csvs(results: list[SubmissionResult], out: Path) -> None:
    """grades.csv and cells.csv (csv_safe.py: ids as quoted text, never a formula)."""
    csv_safe.write(out / "grades.csv", GRADES_COLUMNS, (grades_row(r) for r in results))
    csv_safe.write(out / "cells.csv", CELLS_COLUMNS, (row for r in results for row in cells_rows(r)))


def read_csvs(out: Path) -> list[SubmissionResult]:
    """The results a grading (or a merge) wrote to ``out``, read back from grades.csv and cells.csv."""
    try:
        rows, cell_rows = csv_safe.read(out / "grades.csv"), csv_safe.read(out / "cells.csv")
    except FileNotFoundError as missing:
        raise SystemExit(f"{missing.filename} is missing: give the --out folder of a finished grade or merge") from None
    results = {}
    for row in rows:
        result = SubmissionResult(row["student"], row["assignment"], row["status"], row["reason"], float(row["seconds"] or 0),
                                  flags=[f for f in row["flags"].split(" | ") if f], sandbox=row["sandbox"])
        results[result.student, result.assignment] = result
    for row in cell_rows:
        results[row["student"], row["assignment"]].cells.append(
            CellResult(row["cell"], float(row["score"]), float(row["max_score"]), row["status"]))
    return list(results.values())


def _histogram(scores: list[float], top: float, bins: int = 5) -> str:
    """Counts of scores in ``bins`` equal ranges of [0, top], as '0-2: 3  2-4: 0 ...'."""
    if top <= 0:
        return ""
    counts = [0] * bins
    for score in scores:
        counts[min(bins - 1, int(score / top * bins))] += 1
    edges = [top * k / bins for k in range(bins + 1)]
    return "  ".join(f"{edges[k]:g}-{edges[k + 1]:g}: {counts[k]}" for k in range(bins))


def summarize(results: list[SubmissionResult], seconds: float, note: str = "") -> str:
    refused = sorted({r.student for r in results if r.status == NOT_A_STUDENT})
    results = [r for r in results if r.status != NOT_A_STUDENT]
    lines = [f"Graded {len({r.student for r in results})} student(s), {len(results)} submission(s) in {seconds:.0f} s."]
    for name in refused:
        lines.append(f"  ! not graded: the folder {shown(name)} is not a student id: rename it to the student's id "
                     "(letters, digits, '.', '_', '-', '@') or remove it, then grade again")
    for assignment in sorted({r.assignment for r in results}):
        rows = [r for r in results if r.assignment == assignment]
        scores = [r.score for r in rows]
        lines.append(f"  {assignment} (max {rows[0].max_score:g}): min {min(scores):g}, median {statistics.median(scores):g}, "
                     f"max {max(scores):g}; distribution {_histogram(scores, rows[0].max_score)}")
    gpu = sum(r.gpu_points for r in results)
    if gpu:
        lines.append(f"  {gpu:g} points of GPU-only tests were not run: grade again with --runner gpu on a GPU machine")
    manual = sum(r.manual_points for r in results if r.status != NOT_SUBMITTED)
    if manual:
        lines.append(f"  {manual:g} points of written answers await manual grading (grade --gradebook, then Formgrader)")
    for r in results:
        if r.status not in (GRADED, NOT_SUBMITTED) or r.reason:
            lines.append(f"  ! {shown(r.student)} / {r.assignment}: {r.status}: {r.reason}")
        for flag in r.flags:
            lines.append(f"  ? {shown(r.student)} / {r.assignment}: {flag}")
    timed = [r for r in results if r.seconds]
    if timed:
        lines.append("  wall time per submission: " + ", ".join(f"{shown(r.student)}/{r.assignment} {r.seconds:.1f} s" for r in timed))
    if note:
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def sandbox_note(results: list[SubmissionResult]) -> str:
    """The summary's note when submissions ran without the sandbox (from each row's ``sandbox``), else ''."""
    labels = sorted({r.sandbox for r in results if r.sandbox != "bubblewrap"})
    return f"submissions ran WITHOUT a sandbox ({'; '.join(labels)})" if labels else ""
