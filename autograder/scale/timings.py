"""How long grading one submission takes, per assignment: the one place these measured figures live.

Read by the shard balancer (shards.py), the progress bar's time left (progress.py), ``slurm``'s
expected time per shard, and the class estimate in docs/grading-at-scale.md (estimate.py).

How they were measured (MEASURED_ON): the wall time of grading one complete submission (the
solutions typed in, so every cell runs to its end: the slowest case) in the bubblewrap sandbox, one
at a time, ``--threads 1``, the CPU runner. A blank notebook is faster for the training lessons, whose
cells stop at the first missing answer. To measure again: ``python bench/grading_throughput.py
--measure`` grades one complete submission of every assignment and prints a new ``SECONDS``.
"""

from __future__ import annotations


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
# Grading two at a time (--jobs 2, or two shards) on the 2-core machine, against one at a time: the
# throughput ratio bench/grading_throughput.py measured on 12 submissions (2026-12-03: --jobs 2 2.04x,
# two Slurm shards and their merge 1.84x), rounded down.
JOBS2_SPEEDUP = 1.8
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
