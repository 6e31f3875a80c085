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

Everything runs in one kernel per notebook: the source notebook (hidden tests included) is executed
top to bottom, and at each solution cell that has variants, each variant is run followed by the
test cells it feeds, then the real solution is run again before moving on. The run ends with the
last variant of the last cell that has any: what follows cannot change a verdict, and the grading
tests already run every solution to its end with full marks.
"""

from __future__ import annotations

import copy
import runpy
from dataclasses import dataclass


from . import course, notebooks, settings

VARIANTS_DIR = course.ROOT / "tests" / "variants"


@dataclass
class VariantResult:
    cell: str
    kind: str  # "wrong" or "right"
    index: int
    mistake: str  # the class of mistake (coursekit.testing.CLASSES)
    failing_tests: list[str]  # test cells that raised with this variant in place
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


def _error(cell) -> str | None:
    """The cell's error, if any."""
    error = notebooks.first_error(cell)
    return f"{error[0]}: {error[1]}"[:300] if error else None


def _tests_after(nb, index: int) -> list[int]:
    """Indices of the test cells between solution cell ``index`` and the next solution cell."""
    found = []
    for j in range(index + 1, len(nb.cells)):
        if notebooks.is_solution_cell(nb.cells[j]):
            break
        if notebooks.is_test_cell(nb.cells[j]):
            found.append(j)
    return found


def _trials(wrong: Variants, right: Variants, grade_id: str) -> list[tuple[str, str, int, str]]:
    """(kind, mistake, number, source) of every variant of cell ``grade_id``."""
    return [(kind, mistake, number, source)
            for kind, table in (("wrong", wrong), ("right", right))
            for mistake, sources in table.get(grade_id, {}).items()
            for number, source in enumerate(sources)]


def _trial(client, nb, index: int, assignment: str, kind: str, mistake: str, number: int, source: str) -> VariantResult:
    """Run one variant in place of solution cell ``index``, then the test cells that follow it."""
    cell = nb.cells[index]
    grade_id = notebooks.grading(cell)["grade_id"]
    trial = copy.deepcopy(cell)
    trial.source = source
    client.execute_cell(trial, index)
    if _error(trial):  # a variant that cannot even run proves nothing about the tests
        raise ValueError(f"{assignment} {kind} {mistake} variant #{number} of {grade_id} fails on its own: {_error(trial)}")
    failing, messages = [], []
    for j in _tests_after(nb, index):
        test = copy.deepcopy(nb.cells[j])
        client.execute_cell(test, j)
        if _error(test):
            failing.append(notebooks.grading(test)["grade_id"])
            messages.append(_error(test))
    return VariantResult(grade_id, kind, number, mistake, failing, messages)


def _first_line(cell) -> str:
    return cell.source.strip().partition("\n")[0].strip()


def left_out(nb, assignment: str, leave_out: dict[str, str]) -> set[int]:
    """Indices of the cells named in LEAVE_OUT: each name must match exactly one plain code cell."""
    found = set()
    for line in leave_out:
        matches = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and _first_line(c) == line.strip()]
        if len(matches) != 1:
            raise ValueError(f"{assignment} LEAVE_OUT {line!r} should name one code cell by its first line; "
                             f"it matches {len(matches)}")
        if notebooks.grading(nb.cells[matches[0]]):
            raise ValueError(f"{assignment} LEAVE_OUT {line!r} is a graded cell: only plain cells may be left out")
        found |= set(matches)
    return found


def try_variants(assignment: str) -> list[VariantResult]:
    declared = load_file(assignment)
    wrong, right = declared["WRONG"], declared["RIGHT"]
    path = course.solution_notebook(assignment)
    nb = notebooks.read(path)
    ids = {notebooks.grading(c).get("grade_id") for c in nb.cells if notebooks.is_solution_cell(c)}
    unknown = sorted((set(wrong) | set(right)) - ids)
    if unknown:
        raise ValueError(f"{assignment} variants name cells that are not solution cells: {unknown}")
    skipped = left_out(nb, assignment, declared["LEAVE_OUT"])
    varied = [i for i, c in enumerate(nb.cells)
              if notebooks.is_solution_cell(c) and notebooks.grading(c)["grade_id"] in set(wrong) | set(right)]
    client = notebooks.client(nb, path.parent, timeout=settings.CELL_TIMEOUT_S)
    results: list[VariantResult] = []
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells[:max(varied, default=-1) + 1]):
            if cell.cell_type != "code" or index in skipped:
                continue
            grade_id = notebooks.grading(cell).get("grade_id")
            if index in varied:
                # Each variant in place of this cell, with the cells above run as written.
                results += [_trial(client, nb, index, assignment, *trial) for trial in _trials(wrong, right, grade_id)]
                if index == varied[-1]:
                    break  # nothing below can change a verdict (a training cell can take a minute)
            # The real cell, once, for the cells that follow.
            client.execute_cell(cell, index)
            if _error(cell):  # the ground the variants stand on (and a LEAVE_OUT that took too much)
                what = f"its own test {grade_id}" if notebooks.is_test_cell(cell) else f"cell {index} ({_first_line(cell)!r})"
                raise ValueError(f"{assignment}: the solution fails {what} in the variants run: {_error(cell)}")
    return results


def report(assignment: str) -> int:
    results = try_variants(assignment)
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
