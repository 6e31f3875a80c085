"""How long grading one submission takes, per assignment: the one place these measured figures live.

Read by the shard balancer (shards.py), the progress bar's time left (progress.py), ``slurm``'s
expected time per shard, and the estimate in docs/grading-at-scale.md: ``python -m
autograder.timings`` prints that page's figures, ``--write`` puts them in the page, and a test checks
the page holds exactly what this module computes.

How they were measured (MEASURED_ON): the wall time of grading one complete submission (the
solutions typed in, so every cell runs to its end: the slowest case) in the bubblewrap sandbox, one
at a time, ``--threads 1``, the CPU runner. A blank notebook is faster for the training lessons, whose
cells stop at the first missing answer. To measure again: ``python bench/grading_throughput.py
--measure`` grades one complete submission of every assignment and prints a new ``SECONDS``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

MEASURED_ON = ("2026-12-03 on a 2-core AMD EPYC VM with 23 GB, Debian 12, shared with other work "
               "(load average 2.0-4.0 during the run, so these are on the slow side)")
SECONDS: dict[str, float] = {
    "00_setup": 11.7,
    "01_tensors": 10.8,
    "02_autograd": 7.4,
    "03_modules": 10.5,
    "04_losses_optimizers": 14.6,
    "05_training_loop": 31.8,
    "06_data": 27.4,
    "07_devices_amp": 18.3,
    "08_mnist_mlp": 65.6,
    "09_patterns": 55.1,
    "ex1_batchnorm": 32.3,
    "ex2_lr_finder": 32.7,
    "ex3_amp": 15.1,
    "ex4_fashion_mnist": 33.4,
    "ex5_sgd_momentum": 196.0,
}
# An assignment not measured yet: the median of the others (so a new lesson is neither free nor huge).
UNMEASURED_S = sorted(SECONDS.values())[len(SECONDS) // 2]
# A pair without a folder: a row and a short page, no kernel.
NOT_SUBMITTED_S = 0.05
# Grading two at a time (--jobs 2, or two shards) on the 2-core machine, against one at a time:
# the throughput ratio bench/grading_throughput.py measured.
JOBS2_SPEEDUP = 1.8
# Starting a shard (Python, torch, matplotlib's font list) before its first submission.
SHARD_START_S = 10.0

DOC = Path(__file__).resolve().parent.parent / "docs" / "grading-at-scale.md"
BEGIN, END = "<!-- timings: begin (python -m autograder.timings --write) -->", "<!-- timings: end -->"


def expected(assignment: str, submitted: bool = True) -> float:
    """Expected seconds to grade one submission of ``assignment`` (one at a time, one thread)."""
    if not submitted:
        return NOT_SUBMITTED_S
    return SECONDS.get(assignment, UNMEASURED_S)


def course_seconds() -> float:
    """One student's whole course, graded one submission at a time."""
    return sum(SECONDS.values())


def estimate(students: int, nodes: int, jobs_per_node: int = 2, speedup: float = JOBS2_SPEEDUP) -> float:
    """Wall seconds to grade ``students`` whole courses (complete notebooks) on ``nodes`` machines like the
    measured one, each running one shard with ``--jobs jobs_per_node``: the longest of the shards the
    balancer would make, slowed by sharing the machine (``speedup`` / ``jobs_per_node`` per slot)."""
    from .shards import partition

    costs = [seconds for seconds in SECONDS.values() for _ in range(students)]
    slots = nodes * jobs_per_node
    loads = [0.0] * slots
    for cost, slot in zip(costs, partition(costs, slots)):
        loads[slot] += cost
    return SHARD_START_S + max(loads) / (speedup / jobs_per_node)


def _hours(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def doc_section(students: int = 300, nodes: tuple[int, ...] = (1, 2, 5, 10, 20, 50, 100)) -> str:
    """The measured figures and the class estimate, as docs/grading-at-scale.md shows them."""
    lines = [BEGIN, "", f"Measured {MEASURED_ON}; one complete submission each, in the sandbox, one at a time:", "",
             "| assignment | seconds |", "|---|---:|"]
    lines += [f"| {name} | {seconds:.1f} |" for name, seconds in SECONDS.items()]
    total = course_seconds()
    lines += [f"| **one student's course** | **{total:.0f}** ({_hours(total)}) |", "",
              f"Two submissions at a time on the same 2 cores (`--jobs 2`, or two shards) grade {JOBS2_SPEEDUP:g}x "
              "as many per minute as one at a time (bench/grading_throughput.py).", "",
              f"**{students} students**, every notebook complete (the slowest case): {students} x {total:.0f} s = "
              f"{_hours(students * total)} one at a time. On N machines like this one, one shard per machine "
              "with `--jobs 2` (the longest shard the balancer makes, plus its start):", "",
              "| machines (2 cores each) | shards | wall time | students per hour |", "|---:|---:|---:|---:|"]
    for n in nodes:
        seconds = estimate(students, n)
        lines.append(f"| {n} | {n} | {_hours(seconds)} | {students / (seconds / 3600):.0f} |")
    lines += ["", END]
    return "\n".join(lines)


def write_doc(path: Path = DOC) -> bool:
    """Put ``doc_section()`` between the markers of ``path``; True when the page changed."""
    text = path.read_text(encoding="utf-8")
    new = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: doc_section(), text, flags=re.S)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.timings", description="print the grading estimate")
    parser.add_argument("--write", action="store_true", help=f"update the figures in {DOC.name}")
    args = parser.parse_args(argv)
    if args.write:
        print(f"{DOC} " + ("updated" if write_doc() else "unchanged"))
    else:
        print(doc_section())
    return 0


if __name__ == "__main__":
    sys.exit(main())
