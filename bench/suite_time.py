"""Where the suite's time goes: the README's test command, timed whole and test by test.

    python3 bench/suite_time.py                      # make test, as CI runs it, with cold caches
    python bench/suite_time.py -k "lint or release"  # a part of it (the extra arguments go to pytest)
    python bench/suite_time.py --workers 4           # another number of pytest-xdist workers (the Makefile's WORKERS)

Run it from a fresh clone to measure what CI measures (make test then builds the virtual environment first, and
that is counted too). It runs `make test` with this file loaded into pytest and into every pytest-xdist worker as a
plugin (``-p suite_time``), which writes one line per test: its wall time, and the processor time of the worker and
of the processes the worker waited for while the test ran. A box's kernel that outlives the process that started it
is not waited for by the worker, so the per-test figures miss some of the grading's time; the whole machine's busy
time, read from /proc/stat before and after, counts everything (and anything else that ran meanwhile: run it on a
quiet machine). The reference runs' cache (AUTOGRADER_CACHE) points at an empty folder, as on CI's clean clone.

Writes bench/results/suite_time.md (stamped with the date, the machine, the commit and the command): the totals,
each test module's wall and processor time, the slowest tests, and the boxed gradings: while make test runs, the
script looks at /proc every half second for grading executors (``-m autograder.grading.execute``), the assignment
and the test each one grades for, and the processor time of its processes and of their descendants (the box and its
kernel, which no test process waits for). A benchmark, not a test: tests assert behaviour, never time
(docs/testing.md, "How long it takes", reads this file).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

try:
    import pytest
except ImportError:   # the script, run by a Python without pytest (a fresh clone): make test installs it for the run
    pytest = None

ROOT = Path(__file__).resolve().parent.parent
LINES_VAR = "SUITE_TIME_LINES"   # the folder the plugin writes its lines to, one file per pytest process


# --- the plugin: loaded by pytest in the controller and in each worker ----------------------------------------------

def _processor_seconds() -> float:
    own, waited = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime


if pytest is not None:
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        """Time each test's whole protocol (set-up, call, tear-down: a module's fixtures end with its last test)."""
        folder = os.environ.get(LINES_VAR)
        start_wall, start_cpu = time.monotonic(), _processor_seconds()
        try:
            return (yield)
        finally:
            if folder:
                name = os.environ.get("PYTEST_XDIST_WORKER", "controller")
                with open(Path(folder) / f"{name}.tsv", "a", encoding="utf-8") as lines:
                    lines.write(f"{item.nodeid}\t{time.monotonic() - start_wall:.2f}\t{_processor_seconds() - start_cpu:.2f}\n")


# --- the script ------------------------------------------------------------------------------------------------------

def _busy() -> int:
    """Clock ticks all processors spent busy since boot (neither idle nor waiting for a disk), from /proc/stat."""
    fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return sum(fields[:8]) - fields[3] - fields[4]   # user..steal, less idle and iowait (guest is inside user)


EXECUTOR = "autograder.grading.execute"   # grading/runner.py's EXECUTOR (tests/test_suite_time.py keeps them equal):
                                          # the script starts before the venv that could import it exists


@dataclass
class _BoxedRun:
    assignment: str
    test: str
    seconds: dict[int, float] = field(default_factory=dict)   # pid -> its processor time when last seen


def _processes() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, processor seconds so far) of every process /proc shows now."""
    ticks, found = os.sysconf("SC_CLK_TCK"), {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue   # it ended meanwhile
        fields = stat[stat.rindex(")") + 2:].split()   # after the command name, which may hold spaces
        found[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / ticks)
    return found


def _executor(pid: int) -> _BoxedRun | None:
    """What executor ``pid`` grades (the assignment its box holds, the test it runs for), or None if it is none."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if EXECUTOR.encode() not in argv:
            return None
        private = Path(argv[argv.index(EXECUTOR.encode()) + 1].decode())
        environ = dict(item.split(b"=", 1) for item in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0") if b"=" in item)
        job = json.loads((private / "job.json").read_text(encoding="utf-8"))
        notebooks = sorted(p.stem for p in Path(job["work"]).glob("*.ipynb"))
    except (OSError, ValueError, IndexError, KeyError):
        return None
    test = environ.get(b"PYTEST_CURRENT_TEST", b"").decode(errors="replace").rsplit(" ", 1)[0]
    return _BoxedRun(", ".join(notebooks) or "?", test or "?")


class _BoxWatch(threading.Thread):
    """Every boxed run while make test runs, with the processor time of its process tree, sampled from /proc: the
    kernels in the boxes are nobody's waited-for children, so only this sees their time (to within a sample)."""

    def __init__(self, every_s: float = 0.5):
        super().__init__(daemon=True)
        self.every_s, self.runs, self.stopping = every_s, {}, threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(self.every_s):
            self.sample()

    def sample(self) -> None:
        table = _processes()
        for pid in table:
            if pid not in self.runs:
                found = _executor(pid)
                if found is not None:
                    self.runs[pid] = found
        for pid, (_, seconds) in table.items():
            seen, ancestor = set(), pid
            while ancestor not in self.runs and ancestor in table and ancestor not in seen and ancestor > 1:
                seen.add(ancestor)
                ancestor = table[ancestor][0]
            if ancestor in self.runs and ancestor in table:   # a pid reused after its executor ended is not counted
                self.runs[ancestor].seconds[pid] = seconds

    def stop(self) -> list[_BoxedRun]:
        self.stopping.set()
        self.join()
        return list(self.runs.values())


def _boxed_lines(runs: list[_BoxedRun]) -> list[str]:
    total = sum(sum(r.seconds.values()) for r in runs)
    out = ["## Boxed gradings", "",
           (f"{len(runs)} boxed runs (one executor, its box and its kernel each: a submission graded, or a reference run) "
            f"used about {total:.0f} processor-seconds, sampled from /proc every half second (a process's last half "
            "second, and a process shorter than that, are missed)."), "",
           "| assignment | runs | processor (s) | per run (s) |", "|---|---:|---:|---:|"]
    by_assignment: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
    by_test: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
    for run in runs:
        for table, name in ((by_assignment, run.assignment), (by_test, run.test)):
            table[name][0] += 1
            table[name][1] += sum(run.seconds.values())
    for name, (n, seconds) in sorted(by_assignment.items(), key=lambda kv: -kv[1][1]):
        out.append(f"| {name} | {n} | {seconds:.0f} | {seconds / n:.1f} |")
    out += ["", "| test that started them | runs | processor (s) |", "|---|---:|---:|"]
    for name, (n, seconds) in sorted(by_test.items(), key=lambda kv: -kv[1][1])[:20]:
        out.append(f"| `{name}` | {n} | {seconds:.0f} |")
    return out


def _module(nodeid: str) -> str:
    path = nodeid.split("::")[0]
    if path.endswith(".ipynb"):   # nbval: one line per notebook folder
        return "nbval " + str(Path(path).parent.parent)
    return path


def _read(folder: Path) -> list[tuple[str, float, float]]:
    rows = []
    for file in sorted(folder.glob("*.tsv")):
        for line in file.read_text(encoding="utf-8").splitlines():
            nodeid, wall, cpu = line.split("\t")
            rows.append((nodeid, float(wall), float(cpu)))
    return rows


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:.0f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, help="pytest-xdist workers (default: the Makefile's WORKERS)")
    args, pytest_args = parser.parse_known_args()   # everything else goes to pytest (PYTEST_ARGS)
    import result_files  # bench/result_files.py: only the script needs it, not the plugin in each worker

    stamp = result_files.stamp()
    with tempfile.TemporaryDirectory(prefix="suite-time-") as scratch:
        lines, cache = Path(scratch) / "lines", Path(scratch) / "cache"
        lines.mkdir()
        cache.mkdir()
        env = {**os.environ, LINES_VAR: str(lines), "AUTOGRADER_CACHE": str(cache),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "bench"), os.environ.get("PYTHONPATH")])),
               "PYTEST_ADDOPTS": " ".join(filter(None, [os.environ.get("PYTEST_ADDOPTS"), "-p suite_time"]))}
        make = (["make", "test"] + ([f"WORKERS={args.workers}"] if args.workers is not None else [])
                + ([f"PYTEST_ARGS={shlex.join(pytest_args)}"] if pytest_args else []))
        watch = _BoxWatch()
        busy0 = _busy()
        start = time.monotonic()
        watch.start()
        done = subprocess.run(make, cwd=ROOT, env=env, check=False)
        wall = time.monotonic() - start
        busy1 = _busy()
        boxed = watch.stop()
        rows = _read(lines)
    tree = resource.getrusage(resource.RUSAGE_CHILDREN)
    tree_cpu = tree.ru_utime + tree.ru_stime
    ticks = os.sysconf("SC_CLK_TCK")
    machine_busy = (busy1 - busy0) / ticks
    processors = os.cpu_count() or 1
    by_module: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for nodeid, w, c in rows:
        entry = by_module[_module(nodeid)]
        entry[0] += w
        entry[1] += c
        entry[2] += 1
    counted = sum(c for _, _, c in rows)

    out = result_files.header("Where the suite's time goes", stamp)
    tree_line = (f"- The process tree of `make test` (the processes it waited for) used {tree_cpu:.0f} processor-seconds; "
                 f"the tests' own lines below add up to {counted:.0f}. The machine's figure also counts the processes nobody "
                 "waited for (a box's kernel can outlive the executor that started it) and anything else that ran.")
    out += [(f"`{shlex.join(make)}` exited with {done.returncode} after **{_minutes(wall)}** of wall time (the virtual "
             "environment's install included when it was not there yet)."), "",
            (f"- The whole machine ({processors} processors) was busy for {machine_busy:.0f} processor-seconds: "
             f"{machine_busy / wall / processors:.0%} of what its processors could give in that time."),
            tree_line, f"- {len(rows)} tests timed.", "",
            "## By test module", "",
            "| module | tests | wall (s, summed over the workers) | processor (s, counted) |", "|---|---:|---:|---:|"]
    for module, (w, c, n) in sorted(by_module.items(), key=lambda kv: -kv[1][1]):
        out.append(f"| {module} | {n} | {w:.0f} | {c:.0f} |")
    out += ["", "## The slowest tests (by processor time counted)", "",
            "| test | wall (s) | processor (s) |", "|---|---:|---:|"]
    for nodeid, w, c in sorted(rows, key=lambda r: -r[2])[:25]:
        out.append(f"| `{nodeid}` | {w:.0f} | {c:.0f} |")
    out += [""] + _boxed_lines(boxed)
    print(f"wrote {result_files.write('suite_time.md', out)}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
