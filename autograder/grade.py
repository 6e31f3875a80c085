"""``grade``: autograde a folder of submissions, write CSVs and feedback without hidden tests.

Layout expected: ``SUBMISSIONS/<student>/<assignment>/<assignment>.ipynb``.

Each submission is graded in its own scratch nbgrader course (a copy of a template holding the
released assignment and a gradebook with its hidden tests), by an nbgrader process that is killed,
kernel included, if it outlives the wall-time limit. So one broken submission cannot take the
others down, and the original files are only ever read.
"""

from __future__ import annotations

import csv
import html
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import course, notebooks, settings
from .feedback import render_feedback
from .nbgrader_run import nbgrader, write_config

DEFAULT_SUBMISSION_TIMEOUT_S = 1800


NEEDS_GPU = "needs a GPU runner"


@dataclass
class CellResult:
    cell: str
    score: float
    max_score: float
    needs_gpu: bool = False  # a GPU-only test on a CPU runner: reported, never scored

    @property
    def status(self) -> str:
        if self.needs_gpu:
            return NEEDS_GPU
        if self.score >= self.max_score:
            return "passed"
        return "failed" if self.score == 0 else "partial"


@dataclass
class SubmissionResult:
    student: str
    assignment: str
    status: str  # graded | timeout | error | invalid notebook | missing notebook | not submitted
    reason: str = ""
    seconds: float = 0.0
    cells: list[CellResult] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(c.score for c in self.cells if not c.needs_gpu)

    @property
    def max_score(self) -> float:
        return sum(c.max_score for c in self.cells if not c.needs_gpu)

    @property
    def gpu_points(self) -> float:
        """Points of GPU-only tests that this runner could not run."""
        return sum(c.max_score for c in self.cells if c.needs_gpu)


# --- preparing the grading course --------------------------------------------------------------

def prepare_template(assignment: str, workdir: Path) -> Path:
    """A scratch nbgrader course with ``assignment`` released and recorded in its gradebook."""
    root = workdir / "templates" / assignment
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    write_config(root)
    shutil.copytree(course.SOLUTIONS / assignment, root / "source" / assignment,
                    ignore=shutil.ignore_patterns(*settings.IGNORED))
    result = nbgrader(["generate_assignment", assignment, "--force", "--create"], root)
    if result.returncode != 0:
        raise RuntimeError(f"could not prepare {assignment} for grading:\n{result.output[-4000:]}")
    return root


def max_scores(assignment: str) -> list[CellResult]:
    """Every graded cell of ``assignment`` with a score of 0, in notebook order."""
    nb = notebooks.read(course.solution_notebook(assignment))
    return [CellResult(notebooks.grading(c)["grade_id"], 0.0, float(notebooks.grading(c).get("points", 0)))
            for c in notebooks.test_cells(nb)]


# --- grading one submission ----------------------------------------------------------------------

def _problem(student: str, assignment: str, status: str, reason: str, seconds: float = 0.0) -> SubmissionResult:
    return SubmissionResult(student, assignment, status, reason, seconds, max_scores(assignment))


def _cells_needing_gpu(autograded: Path) -> set[str]:
    """Test cells that stopped with coursekit's NeedsGPU (a GPU-only test on a CPU)."""
    if not autograded.is_file():
        return set()
    nb = notebooks.read(autograded)
    return {notebooks.grading(c)["grade_id"] for c in notebooks.test_cells(nb)
            if any(o.get("output_type") == "error" and o.get("ename") == "NeedsGPU" for o in c.get("outputs", []))}


def _read_scores(root: Path, student: str, assignment: str) -> list[CellResult]:
    from nbgrader.api import Gradebook, MissingEntry

    expected = max_scores(assignment)
    gpu = _cells_needing_gpu(root / "autograded" / student / assignment / f"{assignment}.ipynb")
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        try:
            submitted = gb.find_submission_notebook(assignment, assignment, student)
        except MissingEntry:
            return expected
        scores = {g.name: (g.score or 0.0) for g in submitted.grades}
    return [CellResult(c.cell, float(scores.get(c.cell, 0.0)), c.max_score, c.cell in gpu) for c in expected]


def _last_error(output: str) -> str:
    lines = [ln.strip() for ln in output.splitlines() if "[ERROR]" in ln or "Error" in ln]
    return lines[-1][:300] if lines else "nbgrader stopped without saying why (see the grading log)"


def grade_submission(template: Path, student: str, assignment: str, submission: Path,
                     runs_dir: Path, feedback_dir: Path, timeout: float) -> SubmissionResult:
    start = time.monotonic()
    notebook = submission / f"{assignment}.ipynb"
    if not notebook.is_file():
        found = sorted(p.name for p in submission.glob("*.ipynb"))
        reason = f"no {assignment}.ipynb in the submission" + (f" (found: {', '.join(found)})" if found else "")
        result = _problem(student, assignment, "missing notebook", reason)
        write_problem_feedback(result, feedback_dir)
        return result
    try:
        nbformat.validate(nbformat.read(str(notebook), as_version=4))
    except Exception as exc:  # not JSON, not a notebook, or an invalid one
        result = _problem(student, assignment, "invalid notebook",
                          f"{assignment}.ipynb could not be read as a notebook ({type(exc).__name__}: {str(exc)[:200]})")
        write_problem_feedback(result, feedback_dir)
        return result

    root = runs_dir / assignment / student
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(template, root)
    shutil.copytree(submission, root / "submitted" / student / assignment,
                    ignore=shutil.ignore_patterns(*settings.IGNORED))

    run = nbgrader(["autograde", assignment, "--student", student, "--force"], root, timeout=timeout)
    (root / "autograde.log").write_text(run.output, encoding="utf-8")
    seconds = time.monotonic() - start
    if run.timed_out:
        result = _problem(student, assignment, "timeout",
                          f"the notebook was still running after {timeout:.0f} s and was stopped", seconds)
        result.cells = _read_scores(root, student, assignment)  # cells that finished keep their points
        write_problem_feedback(result, feedback_dir)
        return result
    cells = _read_scores(root, student, assignment)
    if run.returncode != 0:
        result = _problem(student, assignment, "error", _last_error(run.output), seconds)
        result.cells = cells
        write_problem_feedback(result, feedback_dir)
        return result

    result = SubmissionResult(student, assignment, "graded", "", 0.0, cells)
    autograded = root / "autograded" / student / assignment / f"{assignment}.ipynb"
    target = feedback_dir / student / f"{assignment}.html"
    try:
        page = render_feedback(autograded, root / "gradebook.db", student, assignment)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, encoding="utf-8")
    except Exception as exc:  # the grade stands; say why the page is the short one
        result.reason = f"graded, but the feedback page could not be rendered ({type(exc).__name__}: {exc})"
        write_problem_feedback(result, feedback_dir)
    result.seconds = time.monotonic() - start
    return result


def write_problem_feedback(result: SubmissionResult, feedback_dir: Path) -> Path:
    """A short feedback page for a submission that could not be graded normally."""
    rows = "".join(f"<tr><td>{html.escape(c.cell)}</td><td>{c.score:g} / {c.max_score:g}</td>"
                   f"<td>{html.escape(c.status)}</td></tr>" for c in result.cells)
    page = (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(result.assignment)}</title></head><body>"
        f"<h1>{html.escape(result.assignment)}: {html.escape(result.status)}</h1>"
        f"<p>{html.escape(result.reason)}</p>"
        f"<p>Score: {result.score:g} / {result.max_score:g}</p>"
        f"<table><tr><th>graded cell</th><th>points</th><th>status</th></tr>{rows}</table></body></html>\n"
    )
    target = feedback_dir / result.student / f"{result.assignment}.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return target


# --- the whole folder ----------------------------------------------------------------------------

def discover(submissions: Path, names: list[str] | None) -> tuple[list[str], list[str]]:
    """(students, assignments) found under ``submissions``."""
    if not submissions.is_dir():
        raise SystemExit(f"{submissions} is not a folder; expected SUBMISSIONS/<student>/<assignment>/<assignment>.ipynb")
    students = sorted(p.name for p in submissions.iterdir() if p.is_dir() and not p.name.startswith("."))
    known = course.assignments(names)
    if names:
        return students, known
    present = sorted({a for s in students for a in known if (submissions / s / a).is_dir()})
    return students, present


def write_csvs(results: list[SubmissionResult], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "assignment", "score", "max_score", "gpu_points_not_run", "status", "reason", "seconds"])
        for r in results:
            w.writerow([r.student, r.assignment, f"{r.score:g}", f"{r.max_score:g}", f"{r.gpu_points:g}",
                        r.status, r.reason, f"{r.seconds:.1f}"])
    with open(out / "cells.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "assignment", "cell", "score", "max_score", "status"])
        for r in results:
            for c in r.cells:
                w.writerow([r.student, r.assignment, c.cell, f"{c.score:g}", f"{c.max_score:g}", c.status])


def summarize(results: list[SubmissionResult], seconds: float) -> str:
    lines = [f"Graded {len({r.student for r in results})} student(s), {len(results)} submission(s) in {seconds:.0f} s."]
    for assignment in sorted({r.assignment for r in results}):
        rows = [r for r in results if r.assignment == assignment]
        scores = [r.score for r in rows]
        lines.append(f"  {assignment}: max {rows[0].max_score:g}; scores min {min(scores):g}, "
                     f"median {statistics.median(scores):g}, max {max(scores):g}")
    gpu = sum(r.gpu_points for r in results)
    if gpu:
        lines.append(f"  {gpu:g} points of GPU-only tests were not run: grade again with a GPU runner")
    problems = [r for r in results if r.status != "graded" or r.reason]
    for r in problems:
        lines.append(f"  ! {r.student} / {r.assignment}: {r.status}: {r.reason}")
    timed = [r.seconds for r in results if r.seconds]
    if timed:
        lines.append(f"  time per submission: median {statistics.median(timed):.1f} s, max {max(timed):.1f} s")
    return "\n".join(lines)


def grade(submissions: Path, out: Path, names: list[str] | None = None, workdir: Path | None = None,
          timeout: float = DEFAULT_SUBMISSION_TIMEOUT_S) -> list[SubmissionResult]:
    started = time.monotonic()
    submissions, out = submissions.resolve(), out.resolve()
    students, assignments = discover(submissions, names)
    if not students or not assignments:
        raise SystemExit(f"nothing to grade in {submissions}: expected <student>/<assignment>/<assignment>.ipynb")
    feedback_dir = out / "feedback"
    with tempfile.TemporaryDirectory(prefix="grading-") as tmp:
        work = Path(workdir).resolve() if workdir else Path(tmp)
        results = []
        for assignment in assignments:
            template = prepare_template(assignment, work)
            for student in students:
                folder = submissions / student / assignment
                if not folder.is_dir():
                    result = _problem(student, assignment, "not submitted", f"no folder {student}/{assignment}")
                    write_problem_feedback(result, feedback_dir)
                else:
                    result = grade_submission(template, student, assignment, folder, work / "runs", feedback_dir, timeout)
                print(f"{student:<20} {assignment:<22} {result.score:>5g} / {result.max_score:<5g} {result.status}"
                      + (f" ({result.reason})" if result.reason else ""), flush=True)
                results.append(result)
    write_csvs(results, out)
    print(summarize(results, time.monotonic() - started))
    print(f"Wrote {out / 'grades.csv'}, {out / 'cells.csv'} and feedback pages in {feedback_dir}")
    return results
