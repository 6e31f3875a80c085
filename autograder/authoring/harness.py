"""The cell harness: many answers of one cell tried from one run of the notebook, each in a process of its own.

Vetting hidden tests means trying many answers of a cell (the variants of tests/variants/, the mutants of
``mutants.py``) against the tests that follow it. Running the notebook again for each would cost the whole
notebook per answer; running them one after another in one kernel lets one answer's side effects reach the next.
The harness does neither: a worker process (``python -m autograder.authoring.harness JOB``) runs the solution
notebook once in an IPython shell of its own (no Jupyter kernel, no sockets), and at each cell that has trials it
forks: each child holds an exact copy of the notebook's state at that point, runs one trial in place of the cell,
then the test cells that follow it as grading composes them (``compose.test_cell_source``), and exits. The parent
goes on with the real cell.

A child's records leave it on a channel file of its own (``coursekit.hidden``'s variable), with a line as each test
cell starts and ends; the worker reads them as they come and judges them with ``verdicts.py`` against the reference
run grading uses. Each test cell runs whole, as one cell, as it does in grading. A wrong answer's child is stopped
as soon as one of its checks has reported and failed (one lost point is the proof, and a failed check stays failed:
a hidden test often trains a model after its quick checks). A child that runs past its time limit, or dies, has its
process group killed; what it reported so far stands, and the trial is marked ``stopped``.

Everything here is the course's own code (its solutions, and answers its authors wrote or its mutation operators
made), so nothing is boxed; the grading of students never comes through here. The real path, ``grade``, is
still tried end to end by tests/test_grading.py with complete, blank and one-mistake submissions.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..core import course, notebooks, settings

TRIAL_LIMIT_S = 300          # one trial: its cell and the test cells after it (grading allows 600 s per cell)


@dataclass
class Trial:
    """One answer to try in place of solution cell ``grade_id``."""
    key: str                  # the caller's name for it (returned with its outcome)
    grade_id: str
    source: str
    first_catch: bool = False  # a wrong answer: stop at the first check that fails


@dataclass
class TestOutcome:
    grade_id: str
    score: float
    points: float
    why: str = ""             # the first failure, in the grader's words


@dataclass
class Outcome:
    key: str
    grade_id: str
    own_error: str | None = None             # the trial's own cell raised (it proves nothing about the tests)
    tests: list[TestOutcome] = field(default_factory=list)
    stopped: str | None = None               # "time limit" or "crashed": the child did not finish
    seconds: float = 0.0

    @property
    def lost_points(self) -> bool:
        """Whether grading would take points for this answer: a test cell scored below its points, or the run
        stopped (grading stops a cell at its time limit, and a crash ends the run)."""
        return bool(self.stopped) or any(t.score < t.points for t in self.tests)

    @property
    def first_failure(self) -> str:
        failing = [t for t in self.tests if t.score < t.points]
        if failing:
            return f"{failing[0].grade_id}: {failing[0].why}"
        return f"the run {self.stopped}" if self.stopped else ""


class HarnessError(RuntimeError):
    """The solution itself fails in the harness (an error, or its own tests take points)."""


# --- the caller's side ------------------------------------------------------------------------------------------

def run(assignment: str, trials: list[Trial], *, leave_out: dict[str, str] | None = None, jobs: int = 1,
        limit_s: int = TRIAL_LIMIT_S, stop_after_last: bool = True, progress: bool = False) -> list[Outcome]:
    """Try every trial of ``assignment``; outcomes in the order of ``trials``.

    ``leave_out``: plain cells to skip, named by their first line (variants.LEAVE_OUT). ``jobs``: children at once.
    ``stop_after_last``: the run ends after the last cell that has trials (what follows cannot change a verdict)."""
    with tempfile.TemporaryDirectory(prefix="harness-") as scratch:
        job = Path(scratch) / "job.json"
        out = Path(scratch) / "outcomes.jsonl"
        job.write_text(json.dumps({"assignment": assignment, "root": str(_code_root()), "trials": [asdict(t) for t in trials],
                                   "leave_out": dict(leave_out or {}), "jobs": jobs, "limit_s": limit_s,
                                   "stop_after_last": stop_after_last, "out": str(out), "progress": progress}),
                       encoding="utf-8")
        env = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
               "PYTHONHASHSEED": "0"}
        env.pop("AUTOGRADER_CHANNEL_FD", None)
        if progress:
            env["HARNESS_PROGRESS_FD"] = str(sys.stderr.fileno())
        log = Path(scratch) / "worker.log"
        with open(log, "wb") as sink:
            done = subprocess.run([sys.executable, "-m", "autograder.authoring.harness", str(job)], env=env,
                                  stdout=sink, stderr=sink, cwd=scratch,
                                  pass_fds=(sys.stderr.fileno(),) if progress else ())
        by_key = {}
        if out.is_file():
            for line in out.read_text(encoding="utf-8").splitlines():
                item = json.loads(line)
                if "error" in item:
                    raise HarnessError(item["error"])
                item["tests"] = [TestOutcome(**t) for t in item["tests"]]
                by_key[item["key"]] = Outcome(**item)
        if done.returncode != 0 or len(by_key) != len({t.key for t in trials}):
            tail = log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.is_file() else ""
            raise HarnessError(f"the harness worker for {assignment} ended with exit code {done.returncode} after "
                               f"{len(by_key)} of {len(trials)} trials:\n{tail}")
        return [by_key[t.key] for t in trials]


def _code_root() -> Path:
    """The folder this process's course code (autograder, coursekit, solutions) comes from."""
    return Path(__file__).resolve().parents[2]


def _foreign_code(job: dict) -> str | None:
    """Why the worker may not run this job: it imports another copy of the course than the caller's. The worker starts
    in a folder of its own, so it finds the course the interpreter's virtual environment installed; a caller that
    found another one through its working folder (a git worktree run with the main checkout's interpreter) would
    otherwise be judged silently against the other copy's notebooks, hidden tests and coursekit."""
    caller = job.get("root")
    if caller is None or Path(caller).resolve() == _code_root():
        return None
    return (f"the harness worker imports the course from {_code_root()}, but was started from {caller}: run it with "
            f"an interpreter whose virtual environment installs {caller} (its own .venv: make install)")


# --- the worker ---------------------------------------------------------------------------------------------------

def first_line(cell) -> str:
    return cell.source.strip().partition("\n")[0].strip()


def left_out(nb, assignment: str, leave_out: dict[str, str]) -> set[int]:
    """Indices of the cells named in LEAVE_OUT: each name must match exactly one plain code cell."""
    found = set()
    for line in leave_out:
        matches = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and first_line(c) == line.strip()]
        if len(matches) != 1:
            raise ValueError(f"{assignment} LEAVE_OUT {line!r} should name one code cell by its first line; "
                             f"it matches {len(matches)}")
        if notebooks.grading(nb.cells[matches[0]]):
            raise ValueError(f"{assignment} LEAVE_OUT {line!r} is a graded cell: only plain cells may be left out")
        found |= set(matches)
    return found


def tests_after(nb, index: int) -> list[int]:
    """Indices of the test cells between solution cell ``index`` and the next solution cell."""
    found = []
    for j in range(index + 1, len(nb.cells)):
        if notebooks.is_solution_cell(nb.cells[j]):
            break
        if notebooks.is_test_cell(nb.cells[j]):
            found.append(j)
    return found


def _cpu_tests(nb, index: int) -> list[tuple[str, float, str]]:
    """(grade_id, points, source as grading composes it) of the test cells after solution cell ``index`` that run on a
    CPU runner (the reference is a CPU runner's: a GPU-only cell is graded on a GPU runner only)."""
    from ..grading import compose

    found = []
    for j in tests_after(nb, index):
        cell = nb.cells[j]
        if notebooks.is_gpu_test_cell(cell):
            continue
        meta = notebooks.grading(cell)
        found.append((meta["grade_id"], float(meta.get("points", 0)), compose.test_cell_source(cell.source, meta["grade_id"])))
    return found


def _private_progress_lock() -> None:
    """tqdm guards its progress bars with a lock shared across processes (a semaphore that fork does not copy): a trial
    stopped while a bar held it (a caught answer is killed at once) left it held, and the next progress bar, here or in
    any later trial, waited forever (a variants run hung so). Each process of the harness gets a lock of its own, for
    every kind of bar (tqdm.auto's included, which may hold a lock of its own already)."""
    import threading

    from tqdm import tqdm

    lock, kinds = threading.RLock(), [tqdm]
    while kinds:
        kind = kinds.pop()
        kind.set_lock(lock)
        kinds += kind.__subclasses__()


class _Shell:
    """The notebook's Python: an IPython shell in this process (its outputs go to the worker's log)."""

    def __init__(self):
        from IPython.core.interactiveshell import InteractiveShell
        from traitlets.config import Config

        config = Config()
        config.HistoryManager.enabled = False     # no history thread: this process forks
        self.shell = InteractiveShell.instance(config=config)
        _private_progress_lock()

    def run(self, source: str) -> str | None:
        """Run one cell; its error as 'Name: message', or None."""
        result = self.shell.run_cell(source, store_history=False)
        error = result.error_before_exec or result.error_in_exec
        if error is None:
            return None
        return f"{type(error).__name__}: {error}"[:400]


class _Judge:
    """Judges test cells' records against the reference run, as grading does (the one place this module scores)."""

    def __init__(self, assignment: str):
        from ..grading import reference as references
        from ..grading import runner, sandbox
        from ..grading.assignment import load as load_assignment
        from ..grading.job import Limits

        box = runner.Box(Limits(), "cpu", sandbox.unavailable_reason() is None, sandbox.data_folders(), None)
        scratch = tempfile.mkdtemp(prefix="harness-reference-")
        try:
            self.reference = references.load(load_assignment(assignment), box, Path(scratch))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _judged(self, gid: str, records: list[dict]):
        from ..grading import verdicts

        return verdicts.judge(self.reference.records, records, self.reference.rules, cells={gid}).get(
            gid, verdicts.CellChecks(gid))

    def cell(self, gid: str, points: float, records: list[dict], error: str | None) -> TestOutcome:
        from ..grading import scoring, verdicts
        from ..grading.rules import error_name

        judged = self._judged(gid, records)
        score, _ = scoring.cell_score(points, judged, error is not None, trusted=True)
        reported = [c for c in judged.checks if not c.passed and c.message != verdicts.NOT_REPORTED]
        failed = [c for c in judged.checks if not c.passed]
        why = (f"{reported[0].name}: {reported[0].message}" if reported
               else f"the cell raised {error_name([error.partition(':')[0]])}: {error.partition(': ')[2]}" if error
               else failed[0].message if failed else "")
        return TestOutcome(gid, score, points, why[:400])

    def failed_so_far(self, gid: str, records: list[dict]) -> bool:
        """Whether a check of cell ``gid`` has reported and failed (one that has not reported may still pass)."""
        from ..grading import verdicts

        return any(not c.passed and c.message != verdicts.NOT_REPORTED for c in self._judged(gid, records).checks)


class _Lines:
    """A file another process appends JSON lines to, read as it grows."""

    def __init__(self, path: Path):
        self.path, self.read_from = path, 0

    def new(self) -> list[dict]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.read_from)
                data = f.read()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1
        self.read_from += end
        found = []
        for line in data[:end].decode("utf-8", errors="replace").splitlines():
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict):
                found.append(item)
        return found


def _open_channel(path: Path) -> None:
    """Make ``path`` this process's channel: coursekit.hidden appends its records there."""
    from coursekit.hidden import CHANNEL_VARIABLE

    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_TRUNC, 0o600)
    os.environ[CHANNEL_VARIABLE] = str(fd)


@dataclass
class _Running:
    """A forked trial: what it has reported so far, read by the parent while it runs."""
    trial: dict
    tests: list[tuple[str, float, str]]
    started: float
    events: _Lines
    channel: _Lines
    records: list[dict] = field(default_factory=list)
    outcome: Outcome | None = None
    current: str | None = None     # the test cell running now
    finished: bool = False


class _Children:
    """The forked trials in flight, at most ``jobs`` at once; the parent judges what each reports as it comes, and
    stops a wrong answer's child at the first check that fails."""

    def __init__(self, jobs: int, limit_s: int, scratch: Path, judge: _Judge, write):
        self.jobs, self.limit_s, self.scratch, self.judge, self.write = max(1, jobs), limit_s, scratch, judge, write
        self.running: dict[int, _Running] = {}
        self.started = 0

    def start(self, trial: dict, index: int, shell: _Shell, nb) -> None:
        while len(self.running) >= self.jobs:
            self.poll(wait=True)
        self.started += 1
        folder = self.scratch / f"trial-{self.started}"
        # The files the notebook wrote so far, copied now, while nothing else writes them.
        shutil.copytree(os.getcwd(), folder / "work", symlinks=True)
        tests = _cpu_tests(nb, index)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:   # the child: never returns
            code = 0
            try:
                os.setpgid(0, 0)   # its own process group, so a stop takes DataLoader workers and all
                _child(trial, tests, shell, folder)
            except BaseException:
                import traceback

                (folder / "crash.txt").write_text(traceback.format_exc(), encoding="utf-8")
                code = 1
            finally:
                os._exit(code)
        self.running[pid] = _Running(trial, tests, time.monotonic(), _Lines(folder / "events.jsonl"),
                                     _Lines(folder / "channel.jsonl"))
        self.running[pid].outcome = Outcome(trial["key"], trial["grade_id"])

    def poll(self, wait: bool = False) -> None:
        """Read what every child reported; finish those that are done (or, with ``wait``, at least one)."""
        while self.running:
            finished = False
            for pid, run in list(self.running.items()):
                done, status = os.waitpid(pid, os.WNOHANG)
                self._read(run)
                elapsed = time.monotonic() - run.started
                stop = None
                if done:
                    self._read(run)
                    if not run.finished:
                        crash = run.events.path.parent / "crash.txt"
                        stop = "crashed" + (f" ({crash.read_text(encoding='utf-8').strip().splitlines()[-1][:200]})"
                                            if crash.is_file() else "")
                elif run.trial["first_catch"] and self._caught(run):
                    stop = "caught"
                elif elapsed > self.limit_s:
                    stop = "time limit"
                else:
                    continue
                if not done:
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    os.waitpid(pid, 0)
                self._finish(run, None if stop in (None, "caught") else stop, elapsed)
                shutil.rmtree(run.events.path.parent, ignore_errors=True)
                del self.running[pid]
                finished = True
            if finished or not wait:
                return
            time.sleep(0.02)

    def _read(self, run: _Running) -> None:
        # The events first, then the records: a child writes a cell's records before the event that ends the cell,
        # so every record of a cell whose end is read here is in the channel by now. (Read the other way round, a
        # record written between the two reads was missed under load: "this check never reported".)
        events = run.events.new()
        run.records += run.channel.new()
        for event in events:
            if "own_error" in event:
                run.outcome.own_error = event["own_error"]
            elif "start" in event:
                run.current = event["start"]
            elif "end" in event:
                gid = event["end"]
                points = next(p for g, p, _ in run.tests if g == gid)
                run.outcome.tests.append(self.judge.cell(gid, points, [r for r in run.records if r.get("cell") == gid],
                                                         event.get("error")))
                run.current = None
            elif event.get("done"):
                run.finished = True

    def _caught(self, run: _Running) -> bool:
        """A wrong answer proven: a finished test cell lost points, or the running one has a check that failed."""
        if any(t.score < t.points for t in run.outcome.tests):
            return True
        return run.current is not None and self.judge.failed_so_far(
            run.current, [r for r in run.records if r.get("cell") == run.current])

    def _finish(self, run: _Running, stopped: str | None, elapsed: float) -> None:
        outcome = run.outcome
        if run.current is not None and not any(t.grade_id == run.current for t in outcome.tests):
            points = next(p for g, p, _ in run.tests if g == run.current)
            test = self.judge.cell(run.current, points, [r for r in run.records if r.get("cell") == run.current], None)
            if test.score < test.points or stopped is None:
                outcome.tests.append(test)
        outcome.stopped, outcome.seconds = stopped, round(elapsed, 2)
        self.write(asdict(outcome))


def _child(trial: dict, tests: list[tuple[str, float, str]], shell: _Shell, folder: Path) -> None:
    """In the forked child: the trial in place of its cell, then the test cells after it, each reported in
    ``folder/events.jsonl`` as it starts and ends; the records go to ``folder/channel.jsonl``. It works in its own
    copy of the files the notebook wrote so far (``folder/work``)."""
    os.chdir(folder / "work")
    _open_channel(folder / "channel.jsonl")
    with open(folder / "events.jsonl", "a", encoding="utf-8") as out:
        def say(item: dict) -> None:
            out.write(json.dumps(item) + "\n")
            out.flush()

        error = shell.run(trial["source"])
        if error:
            say({"own_error": error})
        for gid, _, source in tests:
            say({"start": gid})
            say({"end": gid, "error": shell.run(source)})
        say({"done": True})


def _progress(line: str) -> None:
    """A line for the person who asked for progress (``run(progress=True)``), on their terminal."""
    fd = os.environ.get("HARNESS_PROGRESS_FD")
    if fd and fd.isdigit():
        try:
            os.write(int(fd), (line + "\n").encode("utf-8", errors="replace"))
        except OSError:
            pass


def work(job: dict) -> None:
    """The worker: the solution notebook once, and the trials forked at their cells (see the module's docstring)."""
    import tqdm

    tqdm.tqdm.monitor_interval = 0   # no monitor thread: this process forks
    name = job["assignment"]
    out = open(job["out"], "w", encoding="utf-8")

    def write(item: dict) -> None:
        out.write(json.dumps(item) + "\n")
        out.flush()

    foreign = _foreign_code(job)
    if foreign:
        write({"error": foreign})
        return
    nb = notebooks.read(course.solution_notebook(name))
    trials: dict[str, list[dict]] = {}
    for trial in job["trials"]:
        trials.setdefault(trial["grade_id"], []).append(trial)
    cells = {notebooks.grading(c).get("grade_id"): i for i, c in enumerate(nb.cells) if notebooks.is_solution_cell(c)}
    unknown = sorted(set(trials) - set(cells))
    if unknown:
        write({"error": f"{name}: trials name cells that are not solution cells: {unknown}"})
        return
    skipped = left_out(nb, name, job["leave_out"])
    last = max((cells[g] for g in trials), default=-1)
    judge = _Judge(name)
    shell = _Shell()
    scratch = Path(tempfile.mkdtemp(prefix=f"harness-{name}-"))
    (scratch / "work").mkdir()
    os.chdir(scratch / "work")
    main_channel = scratch / "channel.jsonl"
    _open_channel(main_channel)
    records = _Lines(main_channel)
    children = _Children(job["jobs"], job["limit_s"], scratch, judge, write)
    started = time.monotonic()
    try:
        for index, cell in enumerate(nb.cells):
            if job["stop_after_last"] and index > last:
                break
            if cell.cell_type != "code" or index in skipped or notebooks.is_test_cell(cell):
                continue   # test cells run with their solution cell, below
            gid = notebooks.grading(cell).get("grade_id")
            for trial in trials.get(gid, []) if notebooks.is_solution_cell(cell) else []:
                children.start(trial, index, shell, nb)
                children.poll()
            if job["stop_after_last"] and index == last:
                break   # nothing below can change a verdict (a training cell can take a minute)
            error = shell.run(cell.source)
            if error:   # the ground the trials stand on (and a LEAVE_OUT that took too much)
                write({"error": f"{name}: the solution fails at cell {index} ({first_line(cell)!r}) in the harness: "
                                f"{error}"})
                return
            if notebooks.is_solution_cell(cell):
                for test_gid, points, source in _cpu_tests(nb, index):
                    error = shell.run(source)
                    test = judge.cell(test_gid, points, [r for r in records.new() if r.get("cell") == test_gid], error)
                    if test.score < test.points:
                        write({"error": f"{name}: the solution fails its own test {test_gid} in the harness: {test.why}"})
                        return
            children.poll()
            _progress(f"[{time.monotonic() - started:6.1f} s] {name}: cell {index} ({first_line(cell)[:40]}) done, "
                      f"{children.started} trials started")
        while children.running:
            children.poll(wait=True)
    finally:
        for pid in list(children.running):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        out.close()
        os.chdir(scratch.parent)   # out of the folder removed below (IPython's exit looks at the working folder)
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    job = json.loads(Path((argv or sys.argv[1:])[0]).read_text(encoding="utf-8"))
    settings.skip_slow_unused_imports()
    work(job)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
