"""A shard's machine-readable record, beside its CSV files, for ``merge`` to read back.

``grade --shard K/N --out OUT_K`` writes, besides the usual ``grades.csv``, ``cells.csv`` and
``feedback/``:

- ``OUT_K/shard.json``: which shard of which plan this is (the whole plan: every pair of the class
  and its shard), whether it finished, and how long it took. Written when the shard starts (not
  finished) and again when it ends (finished), each time by an atomic rename;
- ``OUT_K/results.jsonl``: one line per graded submission, appended as each one finishes, so a
  shard killed half-way still says what it did and what it missed.

The CSV files are for people (their fields may be changed to keep spreadsheets safe); these two
files keep every value exactly (student names included, whatever their characters).
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from ..grading.results import CellResult, SubmissionResult
from .shards import Plan

MANIFEST = "shard.json"
RESULTS = "results.jsonl"
FORMAT = 1


def to_json(result: SubmissionResult) -> str:
    return json.dumps(dataclasses.asdict(result), ensure_ascii=True, sort_keys=True)


def from_json(text: str) -> SubmissionResult:
    data = json.loads(text)
    data["cells"] = [CellResult(**cell) for cell in data["cells"]]
    return SubmissionResult(**data)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="ascii")
    os.replace(tmp, path)


class Recorder:
    """Writes one shard's record while it grades (thread-safe: ``--jobs`` grades in threads)."""

    def __init__(self, out: Path, plan: Plan, shard: int, submissions: Path):
        self.out, self.plan, self.shard, self.submissions = out, plan, shard, submissions
        self._lock = threading.Lock()
        out.mkdir(parents=True, exist_ok=True)
        self._write_manifest(finished=False, seconds=0.0)
        (out / RESULTS).write_text("", encoding="ascii")  # a re-run starts a fresh record

    def _write_manifest(self, finished: bool, seconds: float) -> None:
        manifest = {"format": FORMAT, "shard": self.shard, "shards": self.plan.shards, "plan": self.plan.fingerprint(),
                    "finished": finished, "seconds": round(seconds, 3), "submissions": str(self.submissions),
                    "tasks": [list(task) for task in self.plan.tasks], "owners": list(self.plan.owners),
                    "costs": list(self.plan.costs)}
        _write_atomic(self.out / MANIFEST, json.dumps(manifest, ensure_ascii=True, indent=1) + "\n")

    def add(self, result: SubmissionResult) -> None:
        with self._lock, open(self.out / RESULTS, "a", encoding="ascii") as f:
            f.write(to_json(result) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def finish(self, seconds: float) -> None:
        self._write_manifest(finished=True, seconds=seconds)


@dataclass
class ShardRecord:
    """What one shard's folder holds."""
    folder: Path
    shard: int
    plan: Plan
    fingerprint: str
    finished: bool
    seconds: float
    submissions: str
    results: dict[tuple[str, str], SubmissionResult]

    def missed(self) -> list[tuple[str, str]]:
        """The pairs of this shard without a result, in the class's order."""
        return [task for task in self.plan.mine(self.shard) if task not in self.results]


def read(folder: Path) -> ShardRecord | None:
    """The record in ``folder``, or None when there is none (the shard never started there)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="ascii"))
    except (OSError, ValueError):
        return None
    if manifest.get("format") != FORMAT:
        return None
    plan = Plan(tuple((a, s) for a, s in manifest["tasks"]), tuple(manifest["owners"]),
                tuple(manifest["costs"]), manifest["shards"])
    results = {}
    try:
        lines = (folder / RESULTS).read_text(encoding="ascii").splitlines()
    except OSError:
        lines = []
    for line in lines:
        try:
            result = from_json(line)
        except (ValueError, TypeError, KeyError):
            continue  # the last line of a shard killed while writing it
        results[(result.assignment, result.student)] = result
    # the fingerprint of the plan as it is now in the file, not as the file says it was
    return ShardRecord(folder, manifest["shard"], plan, plan.fingerprint(), manifest["finished"], manifest["seconds"],
                       manifest["submissions"], results)
