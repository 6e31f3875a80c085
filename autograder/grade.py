"""``grade``: autograde a folder of submissions. Execution happens in a sandbox; scoring outside it.

Layout expected: ``SUBMISSIONS/<student>/<assignment>/<assignment>.ipynb``. For each submission:

1. intake: the notebook is read as a regular file, never through a link (intake.py);
2. the notebook to run is composed from the student's cells and the course's test cells, with a
   check and a token for each test (compose.py), in a private folder the sandbox never sees;
3. an executor process runs it, cell by cell, in a kernel inside a bubblewrap box that sees only a
   scratch copy of the student's folder (execute.py, sandbox.py);
4. once the kernel is gone, scores are read from the executed notebook and the guard's reports
   (scoring.py), and the feedback page is written (feedback.py). The scratch folders are deleted.

So nothing a submission does can reach another submission, the course, the scores or the output.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat

from . import compose, course, feedback, intake, notebooks, progress, sandbox, scoring, shard_results, shards
from .nbgrader_run import kill_tree
from .results import SubmissionResult, sandbox_note, summarize, write_csvs
from .settings import ERROR, GRADED, INCOMPLETE, NOT_SUBMITTED
from .sandbox import Limits

UNSAFE_FLAG = "--unsafe-no-sandbox"


@dataclass
class Context:
    """What every submission of one grading run shares."""
    out: Path
    work: Path
    limits: Limits
    runner: str
    sandboxed: bool
    sandbox_label: str
    data: dict[str, str]
    keep: bool
    fonts: Path | None

    def tests(self, assignment: str) -> list[tuple[str, float, bool]]:
        nb = notebooks.read(course.solution_notebook(assignment))
        return [(notebooks.grading(c)["grade_id"], float(notebooks.grading(c).get("points", 0)), notebooks.is_gpu_test_cell(c))
                for c in notebooks.test_cells(nb)]

    def feedback_path(self, result: SubmissionResult) -> Path:
        return self.out / "feedback" / result.student / f"{result.assignment}.html"


def resolve_runner(runner: str) -> str:
    import torch

    if runner == "auto":
        return "gpu" if torch.cuda.is_available() else "cpu"
    if runner == "gpu" and not torch.cuda.is_available():
        raise SystemExit("--runner gpu needs CUDA, but torch.cuda.is_available() is False here. "
                         "Run on a GPU machine, or use --runner cpu (GPU-only tests are then reported as not run).")
    return runner


def _write_page(ctx: Context, result: SubmissionResult, page: str) -> None:
    target = ctx.feedback_path(result)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")


def _problem(ctx: Context, student: str, assignment: str, status: str, reason: str, seconds: float = 0.0,
             flags: list[str] | None = None) -> SubmissionResult:
    result = SubmissionResult(student, assignment, status, reason, seconds, scoring.blank(ctx.tests(assignment), ctx.runner),
                              list(flags or []), ctx.sandbox_label)
    _write_page(ctx, result, feedback.problem_page(result))
    return result


def _run_executor(job_dir: Path, timeout: float) -> tuple[bool, str]:
    """Run the executor for ``job_dir``; (finished in time, its log)."""
    log_path = job_dir / "executor.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRADER_", "JPY_"))}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen([sys.executable, "-m", "autograder.execute", str(job_dir)], stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        try:
            proc.wait(timeout=timeout)
            finished = True
        except subprocess.TimeoutExpired:
            finished = False
        finally:
            kill_tree(proc.pid)  # the box dies with its executor (bwrap --die-with-parent)
    return finished, log_path.read_text(encoding="utf-8", errors="replace")[-4000:]


def job_folder(work: Path, student: str, assignment: str) -> Path:
    """Where the grader keeps one submission's private files (the composed and executed notebooks, logs)."""
    readable = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in student)[:40]
    return work / "jobs" / assignment / f"{readable}-{hashlib.sha1(student.encode('utf-8', 'surrogateescape')).hexdigest()[:10]}"


def _prepare_box(ctx: Context, student: str, assignment: str, folder: Path) -> tuple[Path, Path, Path, Path, list[str]]:
    """(private job folder, box folder, work, home, skipped files): fresh folders for one submission."""
    private = job_folder(ctx.work, student, assignment)
    shutil.rmtree(private, ignore_errors=True)
    private.mkdir(parents=True)
    box = Path(tempfile.mkdtemp(prefix="box-", dir=ctx.work))
    work, home = box / "work", box / "home"
    skipped = intake.copy_folder(folder, work)
    home.mkdir()
    if ctx.fonts is not None:  # matplotlib's font list, built once instead of once per submission
        shutil.copytree(ctx.fonts, home / ".matplotlib")
    return private, box, work, home, skipped


def grade_submission(ctx: Context, student: str, assignment: str, folder: Path) -> SubmissionResult:
    start = time.monotonic()
    got = intake.read_submission(folder, assignment)
    if isinstance(got, intake.Refusal):
        return _problem(ctx, student, assignment, got.status, got.reason)
    plan = compose.build(got, assignment)
    private, box, work, home, skipped = _prepare_box(ctx, student, assignment, folder)
    ipc = Path(tempfile.mkdtemp(prefix="ag-", dir="/tmp"))  # socket paths must stay short
    flags = list(plan.flags)
    if skipped:
        flags.append(f"the folder held links or special files, not copied: {', '.join(skipped[:5])}")
    try:
        job = {"work": str(work), "home": str(home), "ipc": str(ipc), "limits": ctx.limits.to_dict(),
               "runner": ctx.runner, "sandboxed": ctx.sandboxed, "data": ctx.data, "tokens": plan.tokens}
        (private / "job.json").write_text(json.dumps(job), encoding="utf-8")
        nbformat.write(plan.nb, str(private / "run.ipynb"))
        finished, log = _run_executor(private, timeout=ctx.limits.wall_s + 180)
        report_path, executed_path = private / "report.json", private / "executed.ipynb"
        if not finished or not report_path.is_file():
            why = "the grader's executor did not finish" if not finished else "the grader's executor failed"
            return _problem(ctx, student, assignment, ERROR, f"{why}: {log.strip().splitlines()[-1] if log.strip() else 'no log'}",
                            time.monotonic() - start, flags)
        report = json.loads(report_path.read_text(encoding="utf-8"))
        executed = nbformat.read(str(executed_path), as_version=4)
    finally:
        shutil.rmtree(box, ignore_errors=True)
        shutil.rmtree(ipc, ignore_errors=True)
        if not ctx.keep:
            shutil.rmtree(private, ignore_errors=True)
    if report.get("error"):
        return _problem(ctx, student, assignment, ERROR, f"the notebook's kernel could not start: {report['error']}",
                        time.monotonic() - start, flags)
    outcome = scoring.score(plan, executed, report, ctx.runner)
    status = INCOMPLETE if report.get("stopped") else GRADED
    result = SubmissionResult(student, assignment, status, "; ".join(plan.notes + outcome.reasons), 0.0, outcome.cells,
                              flags + [f for f in outcome.flags if f not in flags], ctx.sandbox_label)
    try:
        page = feedback.render_page(executed, plan, result, compose.hidden_lines(assignment))
    except Exception as error:  # the grade stands; say why the page is the short one
        result.reason = "; ".join(filter(None, [result.reason, f"the feedback page could not be rendered ({type(error).__name__})"]))
        page = feedback.problem_page(result)
    _write_page(ctx, result, page)
    result.seconds = time.monotonic() - start
    return result


def _font_cache(work: Path) -> Path | None:
    """Build matplotlib's font list once, in a folder copied into each kernel's HOME."""
    target = work / "fonts"
    env = {**os.environ, "MPLCONFIGDIR": str(target), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=env, capture_output=True, timeout=300)
    return target if done.returncode == 0 and target.is_dir() else None


def make_context(out: Path, work: Path, limits: Limits, runner: str, unsafe_no_sandbox: bool, keep: bool) -> Context:
    why_not = sandbox.unavailable_reason()
    if why_not and not unsafe_no_sandbox:
        raise SystemExit(f"grade refuses to run submissions without a sandbox: {why_not}.\n"
                         f"To grade anyway on a machine you trust with these submissions, add {UNSAFE_FLAG} "
                         "(every row of grades.csv will then say the sandbox was off).")
    label = "bubblewrap" if not why_not else f"none ({UNSAFE_FLAG}: {why_not})"
    return Context(out, work, limits, runner, why_not is None, label, sandbox.data_folders(), keep, _font_cache(work))


def grade(submissions: Path, out: Path, names: list[str] | None = None, workdir: Path | None = None,
          limits: Limits | None = None, jobs: int = 1, runner: str = "auto",
          unsafe_no_sandbox: bool = False, shard: tuple[int, int] | None = None) -> list[SubmissionResult]:
    """Grade every (assignment, student) pair of ``submissions``, or with ``shard=(k, n)`` only shard k's
    share of them (shards.py), recording it for ``merge`` (shard_results.py)."""
    started = time.monotonic()
    limits = limits or Limits()
    runner = resolve_runner(runner)
    submissions, out = submissions.resolve(), out.resolve()
    if out == submissions or submissions in out.parents:
        raise SystemExit(f"--out {out} lies inside {submissions}: it would be graded as a student; choose another folder")
    students, assignments = intake.discover(submissions, names)
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
        ctx = make_context(out, work, limits, runner, unsafe_no_sandbox, keep=workdir is not None)
        record = shard_results.Recorder(out, plan, shard[0], submissions) if plan is not None else None
        bar = progress.Progress(costs)

        def one(item: tuple[tuple[str, str], float]) -> SubmissionResult:
            (assignment, student), cost = item
            folder = submissions / student / assignment
            if not folder.exists() and not folder.is_symlink():
                result = _problem(ctx, student, assignment, NOT_SUBMITTED, f"no folder {student}/{assignment}")
            else:
                result = grade_submission(ctx, student, assignment, folder)
            if record is not None:
                record.add(result)
            bar.report(result, f"{student:<20} {assignment:<22} {result.score:>5g} / {result.max_score:<5g} {result.status}"
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
