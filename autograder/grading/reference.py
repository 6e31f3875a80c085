"""The reference run: the course's own solution through the same hidden tests, in a box of its own.

Its records are what every student's records are judged against (verdicts.py). It runs exactly as a
submission does (compose, the executor, the sandbox), but on the solution notebook, so the box holds
no student code. It must be sound, or grading stops before the first student: the solution runs to
its end without an error, every test cell that runs on this runner sends records, the kernel guard
flags nothing (whatever it flags in the solution it would flag in every correct submission), and every
record passes when judged against itself (a threshold the solution itself misses, a GRADER rule that
fails on the solution's own values, are caught here).

One run per assignment and runner, cached in the grader's private cache (``$AUTOGRADER_CACHE``,
default ``~/.cache/autograder``; never inside a box) under a key made of everything that could change
a record: the solution notebook, coursekit's sources, the grader's composing code, PyTorch's, hypothesis's and
Python's versions and the runner. A lock per key lets parallel graders (``--jobs``, shards on one
machine, the test suite's workers) share one run.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock

from ..core import notebooks, regions
from . import compose, integrity, rules, runner, verdicts
from .assignment import Assignment

PROTOCOL = 2   # bump when the records' meaning changes in a way the sources below do not show
_KEYED_SOURCES = [Path(__file__).with_name("compose.py"), Path(__file__).with_name("assignment.py"), Path(regions.__file__)]


class ReferenceError(RuntimeError):
    """The course's solution does not pass its own hidden tests: no student can be graded against it."""


@dataclass
class Reference:
    assignment: str
    records: list[dict]
    rules: dict[str, dict[str, rules.Rule]] = field(default_factory=dict)   # cell -> its GRADER rules
    seconds: float = 0.0
    cached: bool = False
    facts: dict[str, str] = field(default_factory=dict)   # cell id -> what a cell tagged nbval-check-output printed

    def checks(self) -> dict[str, verdicts.CellChecks]:
        return verdicts.judge(self.records, self.records, self.rules)


def cache_folder() -> Path:
    root = os.environ.get("AUTOGRADER_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                             os.path.expanduser("~/.cache"), "autograder")
    return Path(root) / "references"


def key(assignment: Assignment, runner_kind: str) -> str:
    import hypothesis
    import torch

    import coursekit

    # hypothesis: the generated cases' inputs come from its choices (coursekit/strategies.py).
    digest = hashlib.sha256(f"{PROTOCOL}|{runner_kind}|{torch.__version__}|{hypothesis.__version__}|"
                            f"{sys.version_info[:3]}|".encode())
    digest.update(assignment.solution_file)
    for path in sorted(Path(coursekit.__file__).parent.glob("*.py")) + _KEYED_SOURCES:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:24]


def _unsound(plan: compose.Plan, run: runner.Run, runner_kind: str) -> str | None:
    """Why a reference run cannot be used, or None."""
    if run.failure:
        return run.failure
    report, nb = run.report, run.executed
    if report.error:
        return f"the kernel could not start: {report.error}"
    if report.stopped:
        return f"the run stopped early (at code cell {report.stopped.cell}: {report.stopped.why})"
    for index, cell in enumerate(nb.cells):
        error = notebooks.first_error(cell)
        if cell.cell_type == "code" and error:
            name = notebooks.grading(cell).get("grade_id") or f"code cell {index + 1}"
            return f"{name} raised {error[0]}: {error[1][:300]}"
    sent = {r["cell"] for r in verdicts.records_of(report.channel)}
    silent = [s.grade_id for s in plan.tests if (runner_kind == "gpu" or not s.gpu) and s.grade_id not in sent]
    if silent:
        return f"test cells sent no records: {', '.join(silent)} (each hidden region must call coursekit.hidden)"
    # What the guard saw in the kernel (the plan's own flags compare the solution's test cells, hidden tests and all,
    # with the released ones, and would call them edited).
    flags = integrity.assess(dataclasses.replace(plan, flags=[]), nb, report).flags
    if flags:
        return (f"the kernel guard flagged the solution itself, so it would flag every correct submission the same way: "
                f"{'; '.join(flags)[:400]}")
    return None


def _facts(nb) -> dict[str, str]:
    """What each cell tagged ``nbval-check-output`` printed in the run (its stdout, and the text of its results): the
    solution's stored outputs are compared with it (tests/test_nbval.py), since this run is the solution's run."""
    found = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and notebooks.checks_output(cell):
            texts = [notebooks.stream_text(cell)] + [out.get("data", {}).get("text/plain", "")
                                                     for out in cell.get("outputs", []) if "data" in out]
            found[cell.get("id", "")] = "".join(texts)
    return found


def _compute(assignment: Assignment, box: runner.Box, scratch: Path) -> tuple[list[dict], dict[str, str]]:
    plan = compose.build(copy.deepcopy(assignment.solution), assignment)
    private = scratch / "reference" / assignment.name
    run = runner.run(box, private, scratch, plan.nb, {f"{assignment.name}.ipynb": assignment.solution_file})
    why = _unsound(plan, run, box.runner)
    if why:
        raise ReferenceError(f"the reference run of {assignment.name} (the course's own solution) failed: {why}. "
                             f"Fix the solution or its hidden tests (python -m autograder variants {assignment.name} "
                             f"shows more); the executor's files are in {private}")
    return verdicts.records_of(run.report.channel), _facts(run.executed)


def load(assignment: Assignment, box: runner.Box, scratch: Path) -> Reference:
    """The reference for ``assignment`` on ``box``'s runner: from the cache, or run now (and cached)."""
    path = cache_folder() / f"{assignment.name}-{box.runner}-{key(assignment, box.runner)}.json"
    grader = assignment.grader_rules
    with FileLock(path.with_suffix(".lock")):   # it makes the cache folder if needed
        if path.is_file():
            try:
                stored = json.loads(path.read_text(encoding="utf-8"))
                return Reference(assignment.name, stored["records"], grader, stored.get("seconds", 0.0), cached=True,
                                 facts=stored.get("facts", {}))
            except (ValueError, KeyError):
                path.unlink()   # a damaged cache entry is run again
        start = time.monotonic()
        records, facts = _compute(assignment, box, scratch)
        reference = Reference(assignment.name, records, grader, time.monotonic() - start, facts=facts)
        failing = [(cell, c) for cell, judged in reference.checks().items() for c in judged.checks if not c.passed]
        if failing:
            cell, check = failing[0]
            raise ReferenceError(f"the course's solution of {assignment.name} fails its own hidden check {cell} / {check.name}: "
                                 f"{check.message}")
        partial = path.with_suffix(f".part{os.getpid()}")
        partial.write_text(json.dumps({"assignment": assignment.name, "records": records, "seconds": reference.seconds,
                                       "facts": facts}), encoding="utf-8")
        partial.replace(path)
        return reference
