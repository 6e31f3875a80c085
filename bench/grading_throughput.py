"""How many submissions a minute the grader gets through: one at a time, ``--jobs 2``, and two Slurm shards.

    python bench/grading_throughput.py              # the three runs, on the same submissions
    python bench/grading_throughput.py --measure    # one complete submission of every assignment

Both write what they measured into autograder/scale/grading_times.json (the throughput ratios, or the seconds per
assignment; each part stamped with its date, machine, commit and command), the one file the grader's time
estimates read, and what they printed into bench/results/grading_throughput.md or grading_times.md.

The submissions: a complete, a blank and a one-mistake notebook of each of four short assignments.
Each run is a fresh ``python -m autograder`` process (its start counted, as it would be for real);
the Slurm run starts a one-node Slurm on 127.0.0.1 first (tests/local_slurm.py, not counted) and
times from ``slurm`` submitting to the merge job having ended. It checks that every run gives the
serial run's results (seconds aside), and prints submissions per minute and the ratios.

A benchmark, not a test: its figures depend on the machine and on whatever else runs on it (the
load average is printed). Target on 2 cores: two shards at least 1.8x one at a time.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import result_files  # noqa: E402  (bench/result_files.py)
from autograder.core import course, notebooks  # noqa: E402
from autograder.scale import timings  # noqa: E402
from grading_compare import assert_same_class  # noqa: E402
from local_slurm import LocalSlurm, why_not  # noqa: E402
from submission_factory import student_copy  # noqa: E402

# Four assignments, so 12 submissions: with an odd count, two at a time could not beat serial by more than
# n / ceil(n / 2) (1.8x for 9) even with no overhead at all.
ASSIGNMENTS = ("00_setup", "01_tensors", "02_autograd", "03_modules")
STAMP: dict[str, str] = {}   # when, where and how this run measures (result_files.stamp)
KINDS = ("complete", "blank", "one-mistake")


def environment() -> dict[str, str]:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    for name, variable in (("mnist", "COURSEKIT_MNIST_DIR"), ("fashion-mnist", "COURSEKIT_FASHION_MNIST_DIR")):
        folder = ROOT.parent / "shared" / "data" / name
        if folder.is_dir():
            env.setdefault(variable, str(folder))
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def one_mistake(name: str):
    """The complete notebook with the first wrong answer of tests/variants/<name>.py in place."""
    from autograder.authoring.variants import load_variants

    wrong, _ = load_variants(name)
    grade_id, by_class = next(iter(wrong.items()))
    return student_copy(name, replace={grade_id: next(iter(by_class.values()))[0]})


def build(root: Path, assignments: tuple[str, ...]) -> Path:
    for name in assignments:
        made = {"complete": student_copy(name), "blank": notebooks.read(course.lesson_notebook(name)),
                "one-mistake": one_mistake(name)}
        for kind in KINDS:
            notebooks.write(made[kind], root / kind / name / f"{name}.ipynb")
    return root


def autograder(*args: str, env: dict[str, str]) -> float:
    """Run ``python -m autograder ARGS``; its wall time."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "autograder", *args], env=env, cwd=ROOT, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if done.returncode not in (0, 3):
        raise SystemExit(f"autograder {' '.join(args)} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds


def slurm_run(subs: Path, out: Path, scratch: Path, env: dict[str, str]) -> float:
    with LocalSlurm(scratch, cpus=os.cpu_count() or 2) as cluster:
        env = {**env, "SLURM_CONF": str(cluster.conf)}
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "autograder", "slurm", str(subs), "--shards", "2", "--out", str(out),
                               "--partition", "debug"], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
        ids = [re.search(pattern, done.stdout).group(1) for pattern in (r"job array (\d+)", r"merge as job (\d+)")]
        while True:
            states = {job: cluster.job_state(job) for job in ids}
            if all(s and all(x in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT") for x in s) for s in states.values()):
                break
            time.sleep(0.5)
        seconds = time.monotonic() - start
        if any(x != "COMPLETED" for s in states.values() for x in s):
            raise SystemExit(f"the Slurm jobs did not all complete: {states}\n{cluster.logs()}")
    return seconds


def seconds_by_submission(grades: Path) -> dict[tuple[str, str], float]:
    with open(grades, newline="", encoding="utf-8") as f:
        return {(row["student"], row["assignment"]): float(row["seconds"]) for row in csv.DictReader(f)}


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "?"


def settle(below: float | None, patience_s: float = 900) -> None:
    """On a shared machine: wait (up to ``patience_s``) until the 1-minute load average is under ``below``."""
    deadline = time.monotonic() + patience_s
    while below is not None and os.getloadavg()[0] >= below and time.monotonic() < deadline:
        time.sleep(5)


def throughput(assignments: tuple[str, ...], quiet_below: float | None = None) -> None:
    env = environment()
    with tempfile.TemporaryDirectory(prefix="grading-bench-") as tmp:
        tmp = Path(tmp)
        subs = build(tmp / "subs", assignments)
        count = len(assignments) * len(KINDS)
        print(f"grading throughput: {count} submissions ({len(assignments)} assignments x {', '.join(KINDS)}), "
              f"{os.cpu_count()} cores, load average {load()} at the start")
        runs = {}
        settle(quiet_below)
        print(f"  serial starts (load {load()})", flush=True)
        runs["serial (--jobs 1)"] = autograder("grade", str(subs), "--out", str(tmp / "serial"), "--runner", "cpu", env=env)
        print(f"  serial done (load {load()})", flush=True)
        settle(quiet_below)
        print(f"  --jobs 2 starts (load {load()})", flush=True)
        runs["--jobs 2"] = autograder("grade", str(subs), "--out", str(tmp / "jobs2"), "--runner", "cpu", "--jobs", "2", env=env)
        print(f"  --jobs 2 done (load {load()})", flush=True)
        settle(quiet_below)
        reason = why_not()
        if reason:
            print(f"  two Slurm shards: skipped ({reason})")
        else:
            print(f"  Slurm starts (load {load()})", flush=True)
            runs["2 Slurm shards + merge"] = slurm_run(subs, tmp / "slurm", tmp / "cluster", env)
            print(f"  Slurm done (load {load()})", flush=True)
        same = {}
        for name, folder in (("--jobs 2", "jobs2"), ("2 Slurm shards + merge", "slurm")):
            if name in runs:
                try:  # lesson 02 prints object reprs, whose addresses change on every run, serial or not
                    assert_same_class(tmp / folder, tmp / "serial", addresses=False)
                    same[name] = "yes"
                except AssertionError as error:
                    same[name] = f"NO ({error.args[0].splitlines()[0] if error.args else 'differs'})"
        serial = runs["serial (--jobs 1)"]
        ratios = {"jobs2_vs_serial": round(serial / runs["--jobs 2"], 2)}
        if "2 Slurm shards + merge" in runs:
            ratios["two_slurm_shards_vs_serial"] = round(serial / runs["2 Slurm shards + merge"], 2)
        write_times("two_at_a_time", ratios)
        print(f"\n{'run':<26}{'wall s':>9}{'subs/min':>10}{'vs serial':>11}")
        for name, seconds in runs.items():
            print(f"{name:<26}{seconds:>9.1f}{count / seconds * 60:>10.1f}{serial / seconds:>10.2f}x")
        if "2 Slurm shards + merge" in runs:
            ratio = serial / runs["2 Slurm shards + merge"]
            print(f"target: two shards >= 1.8x serial: {ratio:.2f}x, {'met' if ratio >= 1.8 else 'not met'}")
        print("results identical to the serial run (seconds and printed object addresses aside): "
              + ", ".join(f"{name} {answer}" for name, answer in same.items()))
        times = seconds_by_submission(tmp / "serial" / "grades.csv")
        print(f"\nseconds per submission in the serial run (load average now {load()}):")
        print(f"{'assignment':<22}" + "".join(f"{kind:>13}" for kind in KINDS))
        for name in assignments:
            print(f"{name:<22}" + "".join(f"{times[(kind, name)]:>13.1f}" for kind in KINDS))


def measure() -> None:
    """Grade one complete submission of every assignment, one at a time; print SECONDS for timings.py."""
    env = environment()
    with tempfile.TemporaryDirectory(prefix="grading-measure-") as tmp:
        tmp = Path(tmp)
        for name in course.assignments():
            notebooks.write(student_copy(name), tmp / "subs" / "complete" / name / f"{name}.ipynb")
        print(f"grading one complete submission of each of {len(course.assignments())} assignments "
              f"(load average {load()})...", flush=True)
        autograder("grade", str(tmp / "subs"), "--out", str(tmp / "out"), "--runner", "cpu", env=env)
        times = seconds_by_submission(tmp / "out" / "grades.csv")
        seconds = {name: round(times[("complete", name)], 1) for name in course.assignments()}
        print(f"load average at the end: {load()}")
        for name, value in seconds.items():
            print(f"  {name:<22} {value:7.1f} s")
        write_times("seconds", {"per_assignment": seconds})


def write_times(part: str, figures: dict) -> None:
    """Replace one part of autograder/scale/grading_times.json, stamped; leave the other part as it was."""
    stored = json.loads(timings.FILE.read_text(encoding="utf-8"))
    stored[part] = {"measured": STAMP, **figures}
    timings.FILE.write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {timings.FILE.relative_to(ROOT)} ({part}); then: python -m autograder.scale.estimate --write, "
          "python -m autograder list --write")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--measure", action="store_true",
                        help="grade one complete submission of every assignment: the seconds in grading_times.json")
    parser.add_argument("--assignment", action="append", dest="names", help=f"instead of {', '.join(ASSIGNMENTS)}")
    parser.add_argument("--quiet-below", type=float, metavar="LOAD",
                        help="before each run, wait (up to 15 min) for the 1-minute load average to fall under LOAD")
    args = parser.parse_args()
    STAMP.update(result_files.stamp())
    if args.measure:
        with result_files.recorded("grading_times.md", "Grading one complete submission of every assignment"):
            measure()
    else:
        with result_files.recorded("grading_throughput.md", "Grading throughput: one at a time, two at a time"):
            throughput(tuple(args.names or ASSIGNMENTS), args.quiet_below)


if __name__ == "__main__":
    main()
