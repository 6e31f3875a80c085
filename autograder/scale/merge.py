"""``merge``: the shards of one class, put back together as if one ``grade`` had graded it all.

It reads each shard's record (shard_results.py), checks that they belong to one plan and that
every pair of the class has its result, then writes ``grades.csv``, ``cells.csv`` and the feedback
pages in the class's order, and prints the summary: the same files and summary, byte for byte, as
an unsharded ``grade`` of the same SUBMISSIONS (the ``seconds`` column and the times aside).

When a shard is missing or died half-way, nothing is written: ``merge`` names the shard and the
pairs it missed, and says how to re-run it. Re-running that shard alone and merging again
completes the class.
"""

from __future__ import annotations

import shlex
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import shard_results
from ..core.settings import NOT_A_STUDENT
from ..grading.results import SubmissionResult, sandbox_note, summarize, write_csvs
from .shard_results import ShardRecord


@dataclass(eq=False)
class MissingShards(Exception):
    """Shards without a finished record: shard number -> the pairs it missed (assignment, student)."""
    missing: dict[int, list[tuple[str, str]]]
    folders: dict[int, Path | None] = field(default_factory=dict)
    submissions: str = ""
    shards: int = 0

    def __str__(self) -> str:
        total = sum(len(pairs) for pairs in self.missing.values())
        lines = [f"merge: {len(self.missing)} of {self.shards} shard(s) did not finish; {total} submission(s) "
                 "have no result. Nothing was written."]
        for k, pairs in sorted(self.missing.items()):
            where = self.folders.get(k)
            lines.append(f"  shard {k}/{self.shards}" + (f" ({where})" if where else " (no folder holds it)")
                         + f" missed {len(pairs)}:")
            lines += [f"    {student} / {assignment}" for assignment, student in pairs]
        lines.append("Re-run each of them with the options the other shards had, e.g.")
        for k in sorted(self.missing):
            where = self.folders.get(k) or f"OUT_{k}"
            lines.append(f"  python -m autograder grade {shlex.quote(self.submissions or 'SUBMISSIONS')} --shard {k}/{self.shards} "
                         f"--out {shlex.quote(str(where))}")
        lines.append("then merge again.")
        return "\n".join(lines)


class MergeError(SystemExit):
    """Shards that cannot be merged (from different classes, or one shard given twice)."""


def _trailing_number(folder: Path) -> int | None:
    digits = ""
    for ch in reversed(folder.name):
        if not ch.isdigit():
            break
        digits = ch + digits
    return int(digits) if digits and digits != folder.name else None


def read_shards(folders: list[Path]) -> tuple[dict[int, ShardRecord], list[Path]]:
    """(shard number -> record, folders holding no record), checking they share one plan."""
    records: dict[int, ShardRecord] = {}
    empty = []
    for folder in folders:
        record = shard_results.read(folder)
        if record is None:
            empty.append(folder)
            continue
        if record.shard in records:
            raise MergeError(f"merge: shard {record.shard} is in both {records[record.shard].folder} and {folder}; "
                             "give each shard's folder once")
        records[record.shard] = record
    plans = {(r.fingerprint, r.plan.shards) for r in records.values()}
    if len(plans) > 1:
        by_plan = "; ".join(f"{r.folder}: plan {r.fingerprint} of {r.plan.shards} shard(s)" for r in records.values())
        raise MergeError("merge: these folders hold shards of different plans (SUBMISSIONS changed between shards, "
                         f"or they come from different classes): {by_plan}. Re-run the shards that differ.")
    return records, empty


def check_complete(records: dict[int, ShardRecord], empty: list[Path]) -> None:
    """Raise MissingShards unless every shard finished and has a result for each of its pairs."""
    if not records:
        raise MergeError(f"merge: no shard results in {', '.join(map(str, empty)) or 'the folders given'} "
                         "(the shards have not started, or their folders are elsewhere)")
    any_record = next(iter(records.values()))
    plan, n = any_record.plan, any_record.plan.shards
    missing, folders = {}, {}
    for k in range(n):
        record = records.get(k)
        if record is None:
            missing[k] = plan.mine(k)
            guess = [f for f in empty if _trailing_number(f) == k]
            folders[k] = guess[0] if len(guess) == 1 else None
        elif record.missed():  # started, then died (or is still running)
            missing[k] = record.missed()
            folders[k] = record.folder
    if missing:
        raise MissingShards(missing, folders, any_record.submissions, n)


def wait_for(folders: list[Path], wait_s: float, poll_s: float = 10.0) -> None:
    """Block until every shard in ``folders`` has finished, or ``wait_s`` has passed."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            records, empty = read_shards(folders)
            check_complete(records, empty)
            return
        except (MissingShards, MergeError):
            time.sleep(min(poll_s, max(0.0, deadline - time.monotonic())))


def merge(folders: list[Path], out: Path, wait_s: float = 0.0) -> list[SubmissionResult]:
    """Merge the shard folders into ``out``; raise MissingShards (nothing written) when some are missing."""
    out = out.resolve()
    folders = [Path(f).resolve() for f in folders]
    if out in folders:
        raise MergeError(f"merge: --out {out} is one of the shard folders; choose another folder")
    if wait_s > 0:
        wait_for(folders, wait_s)
    records, empty = read_shards(folders)
    check_complete(records, empty)
    plan = next(iter(records.values())).plan
    results = [records[owner].results[task] for task, owner in zip(plan.tasks, plan.owners)]
    for result, owner in zip(results, plan.owners):
        if result.status == NOT_A_STUDENT:
            continue   # listed by name, never graded: no page
        page = Path("feedback") / result.student / f"{result.assignment}.html"
        target = out / page
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(records[owner].folder / page, target)
    write_csvs(results, out)
    seconds = max(r.seconds for r in records.values())  # the shards ran side by side: the longest one
    print(summarize(results, seconds, sandbox_note(results)))
    print(f"Wrote {out / 'grades.csv'}, {out / 'cells.csv'} and feedback pages in {out / 'feedback'}")
    return results
