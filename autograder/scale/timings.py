"""How long grading one submission takes, per assignment: read from ``grading_times.json``, the one file these
measured figures live in, which only a bench writes (``python bench/grading_throughput.py --measure`` for the
seconds per assignment, ``python bench/grading_throughput.py`` for grading two at a time), each part stamped with
its date, machine, commit and command.

Read by the shard balancer (shards.py), the progress bar's time left (progress.py), ``slurm``'s expected time per
shard, the class estimate in docs/grading-at-scale.md (estimate.py) and the README's lessons table (``list --write``).

How they are measured: the wall time of grading one complete submission (the solutions typed in, so every cell runs
to its end: the slowest case) in the bubblewrap sandbox, one at a time, ``--threads 1``, the CPU runner. A blank
notebook is faster for the training lessons, whose cells stop at the first missing answer.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

FILE = Path(__file__).with_name("grading_times.json")
_MEASURED = json.loads(FILE.read_text(encoding="utf-8"))
SECONDS: dict[str, float] = _MEASURED["seconds"]["per_assignment"]
MEASURED_ON = "{date} on {machine} (`{command}`)".format(**_MEASURED["seconds"]["measured"])
# An assignment not measured yet: the median of the others (so a new lesson is neither free nor huge).
UNMEASURED_S = sorted(SECONDS.values())[len(SECONDS) // 2]
# A pair without a folder: a row and a short page, no kernel.
NOT_SUBMITTED_S = 0.05
# Grading two at a time (--jobs 2, or two shards) on a 2-core machine, against one at a time: the lower of the two
# throughput ratios bench/grading_throughput.py measured, rounded down to a tenth.
_TWO = _MEASURED["two_at_a_time"]
JOBS2_SPEEDUP = math.floor(10 * min(_TWO["jobs2_vs_serial"], _TWO.get("two_slurm_shards_vs_serial", math.inf))) / 10
# Starting a shard (Python, torch, matplotlib's font list) before its first submission.
SHARD_START_S = 10.0


def expected(assignment: str, submitted: bool = True) -> float:
    """Expected seconds to grade one submission of ``assignment`` (one at a time, one thread)."""
    if not submitted:
        return NOT_SUBMITTED_S
    return SECONDS.get(assignment, UNMEASURED_S)


def course_seconds() -> float:
    """One student's whole course, graded one submission at a time."""
    return sum(SECONDS.values())
