"""Splitting a class into N shards of (assignment, student) pairs that take about the same time.

Every shard of a class computes the whole plan by itself, from the same listing of SUBMISSIONS and
the measured times in ``timings.py``, and keeps its own part: no coordinator, no shared state. The
plan depends on nothing else (not the machine, not the order files come back from the disk, not
the clock), so shard 3 computed on one node and shard 5 computed on another agree on who grades what.

The partition is greedy, longest task first: tasks sorted by expected time (longest first, then by
their place in the class), each given to the shard with the least expected time so far (the lowest
shard number on a tie). Its longest shard is at most the average plus one task.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from . import timings

Task = tuple[str, str]  # (assignment, student): the order grade() walks a class in, assignment first


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` -> (K, N), with 0 <= K < N (argparse type)."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard takes K/N, e.g. 0/4 for the first of four shards (got {text!r})")
    if n < 1 or not 0 <= k < n:
        raise argparse.ArgumentTypeError(f"--shard {text}: K must be one of 0..N-1 and N at least 1")
    return k, n


def partition(costs: list[float], n: int) -> list[int]:
    """The shard of each task: longest expected time first, each to the least loaded shard."""
    if n < 1:
        raise ValueError("at least one shard")
    loads = [0.0] * n
    owners = [0] * len(costs)
    for index in sorted(range(len(costs)), key=lambda i: (-costs[i], i)):
        shard = min(range(n), key=lambda s: (loads[s], s))
        owners[index] = shard
        loads[shard] += costs[index]
    return owners


@dataclass(frozen=True)
class Plan:
    """Every task of the class, in grade()'s order, with the shard that grades it."""
    tasks: tuple[Task, ...]
    owners: tuple[int, ...]
    costs: tuple[float, ...]
    shards: int

    def mine(self, shard: int) -> list[Task]:
        """The tasks of ``shard``, in the class's order."""
        return [task for task, owner in zip(self.tasks, self.owners) if owner == shard]

    def loads(self) -> list[float]:
        """Expected seconds of each shard (one submission at a time)."""
        loads = [0.0] * self.shards
        for owner, cost in zip(self.owners, self.costs):
            loads[owner] += cost
        return loads

    def fingerprint(self) -> str:
        """The same for every shard of one class: checked by ``merge``."""
        text = json.dumps([self.shards, self.tasks, self.owners], ensure_ascii=True)
        return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


def task_cost(submissions: Path, task: Task) -> float:
    """Expected seconds for one pair: the assignment's measured time, or almost none when not handed in."""
    assignment, student = task
    return timings.expected(assignment, submitted=os.path.lexists(submissions / student / assignment))


def make_plan(submissions: Path, tasks: list[Task], shards: int) -> Plan:
    costs = [task_cost(submissions, task) for task in tasks]
    return Plan(tuple(tasks), tuple(partition(costs, shards)), tuple(costs), shards)
