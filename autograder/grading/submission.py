"""One submission, from its folder to its row, its cells and its feedback page.

1. intake: the notebook is read as a regular file, never through a link (intake.py);
2. compose: the notebook to run, the student's cells with the course's test cells (compose.py);
3. run: the executor runs it cell by cell in a kernel inside a bubblewrap box whose working folder
   holds the submitted notebook and nothing else (runner.py, execute.py, sandbox.py); the hidden tests
   send what the student's code returned, as records, on the grader's channel;
4. verdicts: once the kernel is gone, the records are judged against the reference run's, the course's
   own solution on the same inputs (reference.py, verdicts.py, rules.py);
5. scoring and feedback: points per cell (scoring.py), the page in the grader's own words (feedback.py).

So nothing a submission does can reach another submission, the course, the scores or the output, and
nothing it does inside its kernel can turn a wrong value into a right one.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..core import editions
from ..core.settings import ERROR, GRADED, INCOMPLETE
from . import assignment, compose, feedback, intake, reference, runner, scoring, verdicts
from .assignment import Assignment
from .results import SubmissionResult

UNSAFE_FLAG = "--unsafe-no-sandbox"


@dataclass
class Context:
    """What every submission of one grading run shares: among it, each assignment read once (assignment.py) and its
    reference run."""
    out: Path
    work: Path
    box: runner.Box
    sandbox_label: str
    keep: bool
    assignments: dict[str, Assignment] = field(default_factory=dict)
    references: dict[str, reference.Reference] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def runner(self) -> str:
        return self.box.runner

    def assignment(self, name: str) -> Assignment:
        with self._lock:   # --jobs grades in threads: still one read per assignment
            if name not in self.assignments:
                self.assignments[name] = assignment.load(name)
            return self.assignments[name]

    def feedback_path(self, result: SubmissionResult) -> Path:
        return self.out / "feedback" / result.student / f"{result.assignment}.html"

    def reference(self, name: str) -> reference.Reference:
        if name not in self.references:
            self.references[name] = reference.load(self.assignment(name), self.box, self.work)
        return self.references[name]


def job_folder(work: Path, student: str, assignment: str) -> Path:
    """Where the grader keeps one submission's private files (the composed and executed notebooks, logs)."""
    readable = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in student)[:40]
    return work / "jobs" / assignment / f"{readable}-{hashlib.sha1(student.encode('utf-8', 'surrogateescape')).hexdigest()[:10]}"


def write_page(ctx: Context, result: SubmissionResult, page: str) -> None:
    target = ctx.feedback_path(result)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")


def problem(ctx: Context, student: str, assignment: str, status: str, reason: str, seconds: float = 0.0,
            flags: list[str] | None = None, language: str = "en") -> SubmissionResult:
    """The row, cells and short page of a submission that could not be graded normally."""
    task = ctx.assignment(assignment)
    result = SubmissionResult(student, assignment, status, reason, seconds, scoring.blank(task.test_points, ctx.runner)
                              + scoring.written(task.written), list(flags or []), ctx.sandbox_label)
    write_page(ctx, result, feedback.problem_page(result, language))
    return result


def grade_submission(ctx: Context, student: str, assignment: str, folder: Path) -> SubmissionResult:
    start = time.monotonic()
    repairs: list[str] = []
    _, stamp_problem = intake.read_timestamp(folder)
    if stamp_problem:
        repairs.append(f"{stamp_problem} (the gradebook records the time the file was written instead)")
    task = ctx.assignment(assignment)
    got = intake.read_submission(folder, task, repairs)
    if isinstance(got, intake.Refusal):
        return problem(ctx, student, assignment, got.status, got.reason, flags=repairs)
    plan = compose.build(got, task)
    files, notes = intake.box_files(folder, assignment, got)
    private = job_folder(ctx.work, student, assignment)
    try:
        run = runner.run(ctx.box, private, ctx.work, plan.nb, files)
    finally:
        if not ctx.keep:
            import shutil

            shutil.rmtree(private, ignore_errors=True)
    flags = repairs + plan.flags
    language = editions.notebook_language(plan.nb)   # the edition handed in: the words of its page, nothing else
    if run.failure:
        return problem(ctx, student, assignment, ERROR, run.failure, time.monotonic() - start, flags, language)
    report, executed = run.report, run.executed
    if report.error:
        return problem(ctx, student, assignment, ERROR, f"the notebook's kernel could not start: {report.error}",
                       time.monotonic() - start, flags, language)
    ref = ctx.reference(assignment)
    checks = verdicts.judge(ref.records, report.channel, ref.rules)
    outcome = scoring.score(plan, executed, report, ctx.runner, checks)
    status = INCOMPLETE if report.stopped else GRADED
    result = SubmissionResult(student, assignment, status, "; ".join(plan.notes + notes + outcome.reasons), 0.0,
                              outcome.cells + scoring.written(task.written),
                              flags + [f for f in outcome.flags if f not in flags], ctx.sandbox_label)
    try:
        page = feedback.render_page(executed, plan, result, checks, task.hidden_lines(), outcome.untrusted)
    except Exception as error:  # the grade stands; say why the page is the short one
        result.reason = "; ".join(filter(None, [result.reason, f"the feedback page could not be rendered ({type(error).__name__})"]))
        page = feedback.problem_page(result, language)
    write_page(ctx, result, page)
    result.seconds = time.monotonic() - start
    return result
