"""What judging hidden tests outside the kernel costs: grading time per submission, before and after, in one log.

    python bench/verdict_cost.py --before /path/to/old-venv/bin/python [--rounds 2]

``--before`` is the Python of a virtual environment where an earlier checkout of the kit is installed (its
``pip install -r requirements.txt`` puts that checkout's ``autograder`` and ``coursekit`` on its path), for
example the last commit whose hidden tests decided in the kernel::

    git worktree add ../before 06876df && python3 -m venv ../before-venv
    (cd ../before && ../before-venv/bin/pip install -r requirements.txt)

(not under /tmp: that grader mounted the box's private /tmp over whatever it had bound from there).

Both grade the same twelve submissions (a complete, a blank and a one-mistake notebook of lessons 00 to 03,
built from this checkout), one at a time, turn by turn, ``rounds`` times. The "after" grader runs twice a
round: first with an empty reference cache, so that the reference runs of the four solutions are counted
in its time, as on the first grading of a class, then again with the cache they left (every later grading,
and every shard that shares the cache). The reference runs' cost per assignment is the difference; spread
over a class of N students it adds (reference time) / N to each submission, so the script prints the
ratio after/before for several class sizes, and the smallest class for which it stays within 1.2.
A benchmark, not a test: the figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from grading_throughput import ASSIGNMENTS, KINDS, build, environment  # noqa: E402


def run(python: str, subs: Path, out: Path, cwd: Path, env: dict[str, str]) -> float:
    start = time.monotonic()
    done = subprocess.run([python, "-m", "autograder", "grade", str(subs), "--out", str(out), "--runner", "cpu"],
                          cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if done.returncode not in (0, 3):
        raise SystemExit(f"{python} grade failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the Python of a venv with the earlier checkout installed")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    env = {**environment(), "OMP_NUM_THREADS": "1"}
    count = len(ASSIGNMENTS) * len(KINDS)
    with tempfile.TemporaryDirectory(prefix="verdict-cost-") as tmp:
        scratch = Path(tmp)
        subs = build(scratch / "subs", ASSIGNMENTS)
        neutral = scratch / "cwd"   # neither checkout on sys.path through the working folder
        neutral.mkdir()
        print(f"{count} submissions ({', '.join(ASSIGNMENTS)} x {', '.join(KINDS)}); load average {os.getloadavg()[0]:.2f}")
        times: dict[str, list[float]] = {"before": [], "after, cold cache": [], "after, warm cache": []}
        for k in range(args.rounds):
            cache = scratch / f"cache-{k}"
            for label, python in (("before", args.before), ("after, cold cache", sys.executable),
                                  ("after, warm cache", sys.executable)):
                seconds = run(python, subs, scratch / f"out-{len(times[label])}-{label[:5]}-{k}", neutral,
                              {**env, "AUTOGRADER_CACHE": str(cache)})
                times[label].append(seconds)
                print(f"round {k + 1} {label:<18} {seconds:6.1f} s  ({seconds / count:.2f} s per submission)", flush=True)
        before, cold, warm = (min(times[label]) / count for label in times)
        per_assignment = (cold - warm) * count / len(ASSIGNMENTS)    # one reference run, in seconds
        print(f"best of {args.rounds}, per submission: before {before:.2f} s; after {warm:.2f} s with the references "
              f"cached (x{warm / before:.2f}), {cold:.2f} s with them run first (x{cold / before:.2f}, "
              f"{len(KINDS)} submissions per assignment); a reference run costs {per_assignment:.1f} s per assignment")
        for students in (3, 10, 30, 100, 300):
            print(f"  a class of {students:>3} students: x{(warm + per_assignment / students) / before:.2f}")
        smallest = next((n for n in range(1, 10_000) if (warm + per_assignment / n) / before <= 1.2), None)
        print(f"within 1.2 from {smallest} students per assignment" if smallest else "never within 1.2")

if __name__ == "__main__":
    main()
