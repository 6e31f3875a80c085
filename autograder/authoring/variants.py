"""Trying other answers against a notebook's tests, the way an instructor vets hidden tests.

A variants file ``tests/variants/<assignment>.py`` defines dicts keyed by a solution cell's grade_id,
each mapping a class of mistake (coursekit.testing.CLASSES) to a list of cell sources:

- ``WRONG``: plausible mistakes of that class; each must make a test cell right after that solution
  cell fail;
- ``RIGHT``: other correct answers, written the other ways that class allows; each must leave every
  test cell passing;
- ``ONE_WAY`` (optional): classes of a cell that have one correct spelling only, with the reason;
- ``NOT_TESTED`` (optional): classes that seem to apply to a cell but are deliberately not tested
  there, with the reason;
- ``LEAVE_OUT`` (optional): plain (ungraded) cells this run skips, each named by its first line, with
  the reason: a long run that only plots and prose read, before a cell that has variants. If a test
  cell did read what one makes, the solution would fail that test here, loudly.

Together they are the table of promises, docs/promises.md (``python -m autograder promises``).

The variants run through the cell harness (harness.py): the source notebook (hidden tests included) runs once,
top to bottom, and at each solution cell that has variants, each variant runs in a forked copy of the notebook's
state, followed by the test cells it feeds; the real solution then runs, and its own tests must give it every
point. The run ends at the last cell that has variants: what follows cannot change a verdict, and the grading
tests already run every solution to its end with full marks.

Each variant is judged as grading judges a submission: its test cells run as the grader composes them
(compose.test_cell_source), their records leave the notebook's process on a channel of their own, and verdicts.py
judges them against the reference run of the solution (the one grading uses, from the grader's cache or run now,
in the sandbox where there is one). A wrong answer is caught when a test cell would lose points
(scoring.cell_score); a right one must keep every point. A wrong answer's trial stops at the first check that
fails: its report names the test cell that caught it first.
"""

from __future__ import annotations

import os
import runpy
from dataclasses import dataclass
from pathlib import Path

from ..core import course, notebooks
from ..grading import reference, runner, sandbox
from ..grading.assignment import load as load_assignment
from ..grading.job import Limits
from . import harness
from .harness import left_out, tests_after   # noqa: F401 - part of this module's interface (tests use them)

VARIANTS_DIR = course.ROOT / "tests" / "variants"


@dataclass
class VariantResult:
    cell: str
    kind: str  # "wrong" or "right"
    index: int
    mistake: str  # the class of mistake (coursekit.testing.CLASSES)
    failing_tests: list[str]  # test cells that would lose points with this variant in place
    messages: list[str]

    @property
    def ok(self) -> bool:
        return bool(self.failing_tests) if self.kind == "wrong" else not self.failing_tests


Variants = dict[str, dict[str, list[str]]]  # cell -> class of mistake -> sources


def _by_class(table: dict) -> Variants:
    """Accept a plain list of sources for a cell as its 'values' class."""
    return {cell: (entry if isinstance(entry, dict) else {"values": list(entry)}) for cell, entry in table.items()}


def load_file(assignment: str) -> dict[str, dict]:
    """Everything a variants file declares: WRONG, RIGHT, ONE_WAY and NOT_TESTED, by cell and class."""
    path = VARIANTS_DIR / f"{assignment}.py"
    namespace = runpy.run_path(str(path)) if path.is_file() else {}
    return {"WRONG": _by_class(namespace.get("WRONG", {})), "RIGHT": _by_class(namespace.get("RIGHT", {})),
            "ONE_WAY": namespace.get("ONE_WAY", {}), "NOT_TESTED": namespace.get("NOT_TESTED", {}),
            "LEAVE_OUT": namespace.get("LEAVE_OUT", {})}


def load_variants(assignment: str) -> tuple[Variants, Variants]:
    declared = load_file(assignment)
    return declared["WRONG"], declared["RIGHT"]


def varied_cells(nb, wrong: Variants, right: Variants) -> list[int]:
    """Indices of the solution cells that have variants, in notebook order."""
    named = set(wrong) | set(right)
    return [i for i, c in enumerate(nb.cells) if notebooks.is_solution_cell(c) and notebooks.grading(c)["grade_id"] in named]


def judged_with_a_correct_answer(nb, wrong: Variants, right: Variants) -> set[int]:
    """Indices of the test cells the variants run judges with a correct answer in place: those of every solution cell
    it runs before the last one that has variants, and that last one's when it has RIGHT variants (the run stops
    there)."""
    varied = varied_cells(nb, wrong, right)
    if not varied:
        return set()
    judged = {j for i, c in enumerate(nb.cells[:varied[-1]]) if notebooks.is_solution_cell(c) for j in tests_after(nb, i)}
    if right.get(notebooks.grading(nb.cells[varied[-1]])["grade_id"]):
        judged |= set(tests_after(nb, varied[-1]))
    return judged


def trials(wrong: Variants, right: Variants) -> list[harness.Trial]:
    """Every variant as a harness trial, keyed 'cell|kind|mistake|number'."""
    return [harness.Trial(f"{cell}|{kind}|{mistake}|{number}", cell, source, first_catch=kind == "wrong")
            for kind, table in (("wrong", wrong), ("right", right))
            for cell, classes in table.items()
            for mistake, sources in classes.items()
            for number, source in enumerate(sources)]


def local_reference(assignment: str, scratch: Path) -> reference.Reference:
    """The reference run grading would use on a CPU runner: from the cache, or run now (in the sandbox where
    bubblewrap works; the course's own solution needs no box, so without one it runs plainly)."""
    box = runner.Box(Limits(), "cpu", sandbox.unavailable_reason() is None, sandbox.data_folders(), None)
    return reference.load(load_assignment(assignment), box, scratch)


def jobs() -> int:
    """Trials at once: one where pytest-xdist already runs workers side by side, else one per core."""
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
        return 1
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def try_variants(assignment: str, extra: list[harness.Trial] = ()) -> tuple[list[VariantResult], list[harness.Outcome]]:
    """Every variant of ``assignment`` judged; with ``extra`` trials (a sample of mutants, say) tried in the same run of
    the notebook, their outcomes too."""
    declared = load_file(assignment)
    wrong, right = declared["WRONG"], declared["RIGHT"]
    planned = trials(wrong, right)
    if not planned and not extra:
        return [], []
    outcomes = harness.run(assignment, planned + list(extra), leave_out=declared["LEAVE_OUT"], jobs=jobs())
    results = []
    for trial, outcome in zip(planned, outcomes):
        cell, kind, mistake, number = trial.key.split("|")
        if outcome.own_error:  # a variant that cannot even run proves nothing about the tests
            raise ValueError(f"{assignment} {kind} {mistake} variant #{number} of {cell} fails on its own: "
                             f"{outcome.own_error}")
        failing = [t.grade_id for t in outcome.tests if t.score < t.points]
        messages = [t.why for t in outcome.tests if t.score < t.points]
        if outcome.stopped:
            failing.append(f"(the run {outcome.stopped})")
            messages.append(f"the run {outcome.stopped} after {outcome.seconds:.0f} s")
        results.append(VariantResult(cell, kind, int(number), mistake, failing, messages))
    return results, outcomes[len(planned):]


def report(assignment: str) -> int:
    results, _ = try_variants(assignment)
    if not results:
        print(f"{assignment}: no variants in {VARIANTS_DIR.relative_to(course.ROOT)}/{assignment}.py")
        return 0
    for r in results:
        verdict = "ok" if r.ok else "PROBLEM"
        what = "caught by " + ", ".join(r.failing_tests) if r.failing_tests else "passes every test"
        print(f"{verdict:<8} {r.cell:<24} {r.mistake:<10} {r.kind} #{r.index}: {what}")
        if r.kind == "wrong" and r.messages:
            print(f"{'':<8} {'':<24} first message: {r.messages[0].splitlines()[0]}")
    return 0 if all(r.ok for r in results) else 1
