"""How long grading a class takes on N machines: the estimate docs/grading-at-scale.md shows.

Built from the measured times in ``timings.py`` and the shard balancer in ``shards.py``:
``python -m autograder.scale.estimate`` prints that page's figures, ``--write`` puts them in the page, and
a test checks the page holds exactly what this module computes.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..core import course
from .progress import duration
from .shards import partition
from .timings import JOBS2_SPEEDUP, MEASURED_ON, SECONDS, SHARD_START_S, course_seconds

DOC = course.ROOT / "docs" / "grading-at-scale.md"
BEGIN, END = "<!-- timings: begin (python -m autograder.scale.estimate --write) -->", "<!-- timings: end -->"


def estimate(students: int, nodes: int, jobs_per_node: int = 2, speedup: float = JOBS2_SPEEDUP) -> float:
    """Wall seconds to grade ``students`` whole courses (complete notebooks) on ``nodes`` machines like the
    measured one, each running one shard with ``--jobs jobs_per_node``: the longest of the shards the
    balancer would make, slowed by sharing the machine (``speedup`` / ``jobs_per_node`` per slot)."""
    costs = [seconds for seconds in SECONDS.values() for _ in range(students)]
    slots = nodes * jobs_per_node
    loads = [0.0] * slots
    for cost, slot in zip(costs, partition(costs, slots)):
        loads[slot] += cost
    return SHARD_START_S + max(loads) / (speedup / jobs_per_node)


def doc_section(students: int = 300, nodes: tuple[int, ...] = (1, 2, 5, 10, 20, 50, 100)) -> str:
    """The measured figures and the class estimate, as docs/grading-at-scale.md shows them."""
    lines = [BEGIN, "", f"Measured {MEASURED_ON}; one complete submission each, in the sandbox, one at a time:", "",
             "| assignment | seconds |", "|---|---:|"]
    lines += [f"| {name} | {seconds:.1f} |" for name, seconds in SECONDS.items()]
    total = course_seconds()
    lines += [f"| **one student's course** | **{total:.0f}** ({duration(total)}) |", "",
              f"Two submissions at a time on the same 2 cores (`--jobs 2`, or two shards) grade {JOBS2_SPEEDUP:g}x "
              "as many per minute as one at a time (bench/grading_throughput.py).", "",
              f"**{students} students**, every notebook complete (the slowest case): {students} x {total:.0f} s = "
              f"{duration(students * total)} one at a time. On N machines like this one, one shard per machine "
              "with `--jobs 2` (the longest shard the balancer makes, plus its start):", "",
              "| machines (2 cores each) | shards | wall time | students per hour |", "|---:|---:|---:|---:|"]
    for n in nodes:
        seconds = estimate(students, n)
        lines.append(f"| {n} | {n} | {duration(seconds)} | {students / (seconds / 3600):.0f} |")
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
    parser = argparse.ArgumentParser(prog="python -m autograder.scale.estimate", description="print the grading estimate")
    parser.add_argument("--write", action="store_true", help=f"update the figures in {DOC.name}")
    args = parser.parse_args(argv)
    if args.write:
        print(f"{DOC} " + ("updated" if write_doc() else "unchanged"))
    else:
        print(doc_section())
    return 0


if __name__ == "__main__":
    sys.exit(main())
