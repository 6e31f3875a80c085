"""``grade``: autograde a folder of submissions, ``SUBMISSIONS/<student>/<assignment>/<assignment>.ipynb``.

Before the first student: the sandbox is checked (it must be able to start this Python), and each
assignment's reference run is loaded from the grader's cache or run (grading/reference.py), so a
course whose solution fails its own hidden tests stops here, with the reason. Then every (assignment,
student) pair is graded by grading/submission.py, ``--jobs`` at a time, or with ``--shard K/N`` only
shard K's share of them (shards.py), recorded for ``merge`` (shard_results.py).
"""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..core.settings import ERROR, NOT_A_STUDENT
from ..grading import intake, reference, runner, sandbox
from ..grading.job import Limits
from ..grading.results import SubmissionResult, sandbox_note, summarize, write_csvs
from ..grading.submission import UNSAFE_FLAG, Context, grade_submission, job_folder, problem
from . import progress, shard_results, shards

__all__ = ["grade", "job_folder", "make_context", "resolve_runner"]


def resolve_runner(runner_kind: str) -> str:
    import torch

    if runner_kind == "auto":
        return "gpu" if torch.cuda.is_available() else "cpu"
    if runner_kind == "gpu" and not torch.cuda.is_available():
        raise SystemExit("--runner gpu needs CUDA, but torch.cuda.is_available() is False here. "
                         "Run on a GPU machine, or use --runner cpu (GPU-only tests are then reported as not run).")
    return runner_kind


def make_context(out: Path, work: Path, limits: Limits, runner_kind: str, unsafe_no_sandbox: bool, keep: bool) -> Context:
    why_not = sandbox.unavailable_reason()
    if why_not and not unsafe_no_sandbox:
        raise SystemExit(f"grade refuses to run submissions without a sandbox: {why_not}.\n"
                         f"To grade anyway on a machine you trust with these submissions, add {UNSAFE_FLAG} "
                         "(every row of grades.csv will then say the sandbox was off).")
    data = sandbox.data_folders()
    if why_not is None:
        cannot = sandbox.preflight(limits, runner_kind, data)
        if cannot:
            raise SystemExit(f"grade cannot start: {cannot}.")
    label = "bubblewrap" if not why_not else f"none ({UNSAFE_FLAG}: {why_not})"
    box = runner.Box(limits, runner_kind, why_not is None, data, runner.font_cache(work))
    return Context(out, work, box, label, keep)


def load_references(ctx: Context, assignments: list[str], jobs: int) -> None:
    """Every assignment's reference run, ``jobs`` at a time; a solution that fails its own tests stops grading."""
    def one(assignment: str) -> None:
        ctx.references[assignment] = reference.load(ctx.assignment(assignment), ctx.box, ctx.work)

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            list(pool.map(one, assignments))
    except reference.ReferenceError as error:
        raise SystemExit(f"grade cannot start: {error}") from None
    fresh = [f"{r.assignment} ({r.seconds:.0f} s)" for r in ctx.references.values() if not r.cached]
    if fresh:
        print(f"reference runs of the course's solutions: {', '.join(fresh)}; cached in {reference.cache_folder()}", flush=True)


def grade(submissions: Path, out: Path, names: list[str] | None = None, workdir: Path | None = None,
          limits: Limits | None = None, jobs: int = 1, runner: str = "auto",
          unsafe_no_sandbox: bool = False, shard: tuple[int, int] | None = None,
          students: list[str] | None = None) -> list[SubmissionResult]:
    """Grade every (assignment, student) pair of ``submissions``, or with ``shard=(k, n)`` only shard k's
    share of them (shards.py), recording it for ``merge`` (shard_results.py). ``students`` picks some students
    (a re-grade of one student after a hidden-test fix)."""
    started = time.monotonic()
    limits = limits or Limits()
    runner_kind = resolve_runner(runner)
    submissions, out = submissions.resolve(), out.resolve()
    if out == submissions or submissions in out.parents:
        raise SystemExit(f"--out {out} lies inside {submissions}: it would be graded as a student; choose another folder")
    students, assignments = intake.discover(submissions, names, students)
    if not students or not assignments:
        raise SystemExit(f"nothing to grade in {submissions}: expected <student>/<assignment>/<assignment>.ipynb")
    tasks = [(a, s) for a in assignments for s in students]
    plan = shards.make_plan(submissions, tasks, shard[1]) if shard else None
    if plan is not None:
        tasks = plan.mine(shard[0])
        print(f"shard {shard[0]}/{shard[1]}: {len(tasks)} of {len(plan.tasks)} submissions, expected about "
              f"{progress.duration(plan.loads()[shard[0]])} one at a time", flush=True)
    costs = [shards.task_cost(submissions, task) for task in tasks]
    with tempfile.TemporaryDirectory(prefix="grading-") as tmp:
        work = Path(workdir).resolve() if workdir else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        ctx = make_context(out, work, limits, runner_kind, unsafe_no_sandbox, keep=workdir is not None)
        load_references(ctx, sorted({a for a, s in tasks if (submissions / s / a).exists()}), jobs)
        record = shard_results.Recorder(out, plan, shard[0], submissions) if plan is not None else None
        bar = progress.Progress(costs)

        def one(item: tuple[tuple[str, str], float]) -> SubmissionResult:
            (assignment, student), cost = item
            folder = submissions / student / assignment
            not_an_id = intake.student_id_problem(student)
            if not_an_id:  # listed by name, never graded: no box, no page, no gradebook row
                result = SubmissionResult(student, assignment, NOT_A_STUDENT, not_an_id, sandbox=ctx.sandbox_label)
            else:
                try:
                    result = grade_submission(ctx, student, assignment, folder)
                except Exception as error:  # noqa: BLE001 - one student's submission never stops the class
                    result = problem(ctx, student, assignment, ERROR, f"the grader failed on this submission "
                                     f"({type(error).__name__}); the others were graded. Grade it again alone "
                                     "(--student) and report the failure with the notebook")
            if record is not None:
                record.add(result)
            bar.report(result, f"{intake.shown(student):<20} {assignment:<22} {result.score:>5g} / {result.max_score:<5g} {result.status}"
                       + (f" ({result.reason})" if result.reason else ""), cost)
            return result

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            results = list(pool.map(one, zip(tasks, costs)))  # map keeps the task order: the same CSV for any --jobs
        bar.close()
    write_csvs(results, out)
    if record is not None:
        record.finish(time.monotonic() - started)
    print(summarize(results, time.monotonic() - started, sandbox_note(results)))
    print(f"Wrote {out / 'grades.csv'}, {out / 'cells.csv'} and feedback pages in {out / 'feedback'}")
    return results
