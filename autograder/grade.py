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
import re
import shutil
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import course, notebooks, settings
from .feedback import render_feedback
from .integrity import read_audit_log, scan_cells
from .nbgrader_run import nbgrader, write_config
from .sandbox import Limits, isolation_note, prepare_kernel_home, wrap


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
    flags: list[str] = field(default_factory=list)  # for the instructor to look at; never change the score

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


def _copy_for_grading(template: Path, root: Path, student: str, assignment: str, submission: Path) -> None:
    """The submission's own scratch course: the gradebook and config, never the solution source."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for name in ("nbgrader_config.py", "gradebook.db"):
        shutil.copyfile(template / name, root / name)
    shutil.copytree(submission, root / "submitted" / student / assignment,
                    ignore=shutil.ignore_patterns(*settings.IGNORED), symlinks=True)


def _killed_reason(output: str) -> str:
    if "MemoryError" in output or "Cannot allocate memory" in output:
        return "ran out of memory"
    if "DeadKernelError" in output or "Kernel died" in output or "kernel died" in output:
        return "the Python kernel crashed (a segfault or a forced exit) while running the notebook"
    return _last_error(output)


def grade_submission(template: Path, student: str, assignment: str, submission: Path,
                     runs_dir: Path, feedback_dir: Path, limits: Limits, runner: str = "cpu",
                     read_only: list[Path] | None = None) -> SubmissionResult:
    start = time.monotonic()
    notebook = submission / f"{assignment}.ipynb"
    if not notebook.is_file():
        found = sorted(p.name for p in submission.glob("*.ipynb"))
        reason = f"no {assignment}.ipynb in the submission" + (f" (found: {', '.join(found)})" if found else "")
        result = _problem(student, assignment, "missing notebook", reason)
        write_problem_feedback(result, feedback_dir)
        return result
    try:
        student_nb = nbformat.read(str(notebook), as_version=4)
        nbformat.validate(student_nb)
    except Exception as exc:  # not JSON, not a notebook, or an invalid one
        result = _problem(student, assignment, "invalid notebook",
                          f"{assignment}.ipynb could not be read as a notebook ({type(exc).__name__}: {str(exc)[:200]})")
        write_problem_feedback(result, feedback_dir)
        return result

    root = runs_dir / assignment / student
    _copy_for_grading(template, root, student, assignment, submission)
    graded_dir = root / "autograded" / student / assignment
    audit_log = root / "audit.log"
    env = prepare_kernel_home(root, graded_dir, audit_log, limits)
    if runner == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""  # GPU-only tests then report "needs a GPU runner"
    run = nbgrader(["autograde", assignment, "--student", student, "--force",
                    f"--Execute.timeout={limits.cell_s}"], root, timeout=limits.wall_s,
                   wrap=lambda cmd: wrap(cmd, limits, read_only or []), extra_env=env)
    (root / "autograde.log").write_text(run.output, encoding="utf-8")
    flags = scan_cells(student_nb) + read_audit_log(audit_log) + _tampering(student_nb, template / "release" / assignment / f"{assignment}.ipynb")
    seconds = time.monotonic() - start
    if run.timed_out or run.returncode != 0:
        status = "timeout" if run.timed_out else "error"
        reason = (f"the notebook was still running after {limits.wall_s:.0f} s and was stopped"
                  if run.timed_out else _killed_reason(run.output))
        result = _problem(student, assignment, status, reason + "; nbgrader records scores only for a notebook that "
                          "runs to the end, so no cell could be scored", seconds)
        result.flags = flags
        write_problem_feedback(result, feedback_dir)
        return result

    cells = _read_scores(root, student, assignment)
    result = SubmissionResult(student, assignment, "graded", "", 0.0, cells, flags=flags)
    stopped = _cells_stopped(graded_dir / f"{assignment}.ipynb")
    if stopped:
        result.reason = "; ".join(stopped)
    target = feedback_dir / student / f"{assignment}.html"
    try:
        page = render_feedback(graded_dir / f"{assignment}.ipynb", root / "gradebook.db", student, assignment)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, encoding="utf-8")
    except Exception as exc:  # the grade stands; say why the page is the short one
        result.reason = f"graded, but the feedback page could not be rendered ({type(exc).__name__}: {exc})"
        write_problem_feedback(result, feedback_dir)
    result.seconds = time.monotonic() - start
    return result


def _tampering(submitted: nbformat.NotebookNode, released: Path) -> list[str]:
    """Locked test cells the student edited or deleted (grading restores and runs the originals)."""
    original = {notebooks.grading(c)["grade_id"]: c.source for c in notebooks.test_cells(notebooks.read(released))}
    theirs = {notebooks.grading(c).get("grade_id"): c.source for c in submitted.cells if notebooks.grading(c).get("grade_id")}
    edited = sorted(gid for gid, source in original.items() if gid in theirs and theirs[gid].strip() != source.strip())
    missing = sorted(gid for gid in original if gid not in theirs)
    flags = []
    if edited:
        flags.append(f"edited a locked test cell ({', '.join(edited)}; the original was restored and run)")
    if missing:
        flags.append(f"deleted a graded cell ({', '.join(missing)}; it was restored and run)")
    return flags


def _cells_stopped(autograded: Path) -> list[str]:
    """Reasons for cells the guard stopped (time limit, os._exit, memory), in words."""
    if not autograded.is_file():
        return []
    reasons = []
    for index, cell in enumerate(notebooks.read(autograded).cells, start=1):
        for out in cell.get("outputs", []):
            if out.get("output_type") != "error":
                continue
            name = notebooks.grading(cell).get("grade_id") or f"cell {index}"
            if out.get("ename") == "CellTimeLimit":
                reasons.append(f"{name} ran past the per-cell time limit and was stopped")
            elif out.get("ename") == "KernelExitBlocked":
                reasons.append(f"{name} tried to end the Python process (os._exit)")
            elif out.get("ename") == "MemoryError":
                reasons.append(f"{name} ran out of memory")
            elif out.get("ename") == "CellTimeoutError" or "Timeout" in out.get("ename", ""):
                reasons.append(f"{name} ran past the per-cell time limit")
    return reasons


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
        w.writerow(["student", "assignment", "score", "max_score", "gpu_points_not_run", "status", "reason", "flags", "seconds"])
        for r in results:
            w.writerow([r.student, r.assignment, f"{r.score:g}", f"{r.max_score:g}", f"{r.gpu_points:g}",
                        r.status, r.reason, " | ".join(r.flags), f"{r.seconds:.1f}"])
    with open(out / "cells.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "assignment", "cell", "score", "max_score", "status"])
        for r in results:
            for c in r.cells:
                w.writerow([r.student, r.assignment, c.cell, f"{c.score:g}", f"{c.max_score:g}", c.status])


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
    lines = [f"Graded {len({r.student for r in results})} student(s), {len(results)} submission(s) in {seconds:.0f} s."]
    for assignment in sorted({r.assignment for r in results}):
        rows = [r for r in results if r.assignment == assignment]
        scores = [r.score for r in rows]
        lines.append(f"  {assignment} (max {rows[0].max_score:g}): min {min(scores):g}, median {statistics.median(scores):g}, "
                     f"max {max(scores):g}; distribution {_histogram(scores, rows[0].max_score)}")
    gpu = sum(r.gpu_points for r in results)
    if gpu:
        lines.append(f"  {gpu:g} points of GPU-only tests were not run: grade again with --runner gpu on a GPU machine")
    for r in results:
        if r.status != "graded" or r.reason:
            lines.append(f"  ! {r.student} / {r.assignment}: {r.status}: {r.reason}")
        for flag in r.flags:
            lines.append(f"  ? {r.student} / {r.assignment}: {flag}")
    timed = [r for r in results if r.seconds]
    if timed:
        lines.append("  wall time per submission: " + ", ".join(f"{r.student}/{r.assignment} {r.seconds:.1f} s" for r in timed))
    if note:
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def resolve_runner(runner: str) -> str:
    import torch

    if runner == "auto":
        return "gpu" if torch.cuda.is_available() else "cpu"
    if runner == "gpu" and not torch.cuda.is_available():
        raise SystemExit("--runner gpu needs CUDA, but torch.cuda.is_available() is False here. "
                         "Run on a GPU machine, or use --runner cpu (GPU-only tests are then reported as not run).")
    return runner


def grade(submissions: Path, out: Path, names: list[str] | None = None, workdir: Path | None = None,
          limits: Limits | None = None, jobs: int = 1, runner: str = "cpu") -> list[SubmissionResult]:
    started = time.monotonic()
    limits = limits or Limits()
    runner = resolve_runner(runner)
    submissions, out = submissions.resolve(), out.resolve()
    students, assignments = discover(submissions, names)
    if not students or not assignments:
        raise SystemExit(f"nothing to grade in {submissions}: expected <student>/<assignment>/<assignment>.ipynb")
    feedback_dir = out / "feedback"
    read_only = [course.SOLUTIONS, course.LESSONS, course.ROOT / "autograder", course.ROOT / "coursekit", submissions]
    note = isolation_note(limits)
    with tempfile.TemporaryDirectory(prefix="grading-") as tmp:
        work = Path(workdir).resolve() if workdir else Path(tmp)
        templates = {a: prepare_template(a, work) for a in assignments}

        def one(task: tuple[str, str]) -> SubmissionResult:
            assignment, student = task
            folder = submissions / student / assignment
            if not folder.is_dir():
                result = _problem(student, assignment, "not submitted", f"no folder {student}/{assignment}")
                write_problem_feedback(result, feedback_dir)
            else:
                result = grade_submission(templates[assignment], student, assignment, folder, work / "runs",
                                          feedback_dir, limits, runner, read_only)
            print(f"{student:<20} {assignment:<22} {result.score:>5g} / {result.max_score:<5g} {result.status}"
                  + (f" ({result.reason})" if result.reason else ""), flush=True)
            return result

        tasks = [(a, s) for a in assignments for s in students]
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            results = list(pool.map(one, tasks))  # map keeps the task order: same CSV for any --jobs
    write_csvs(results, out)
    print(summarize(results, time.monotonic() - started, note))
    print(f"Wrote {out / 'grades.csv'}, {out / 'cells.csv'} and feedback pages in {feedback_dir}")
    return results
