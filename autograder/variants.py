"""Trying other answers against a notebook's tests, the way an instructor vets hidden tests.

A variants file ``tests/variants/<assignment>.py`` defines two dicts keyed by a solution cell's
grade_id, each mapping to a list of cell sources:

- ``WRONG``: plausible mistakes; each must make a test cell right after that solution cell fail;
- ``RIGHT``: other correct answers, written differently; each must leave every test cell passing.

Everything runs in one kernel per notebook: the source notebook (hidden tests included) is executed
top to bottom, and at each solution cell that has variants, each variant is run followed by the
test cells it feeds, then the real solution is run again before moving on.
"""

from __future__ import annotations

import copy
import runpy
from dataclasses import dataclass
from pathlib import Path


from . import course, notebooks, settings

VARIANTS_DIR = course.ROOT / "tests" / "variants"


@dataclass
class VariantResult:
    cell: str
    kind: str  # "wrong" or "right"
    index: int
    failing_tests: list[str]  # test cells that raised with this variant in place
    messages: list[str]

    @property
    def ok(self) -> bool:
        return bool(self.failing_tests) if self.kind == "wrong" else not self.failing_tests


def load_variants(assignment: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    path = VARIANTS_DIR / f"{assignment}.py"
    if not path.is_file():
        return {}, {}
    namespace = runpy.run_path(str(path))
    return namespace.get("WRONG", {}), namespace.get("RIGHT", {})


def _error(cell) -> str | None:
    """The cell's error, if any; a GPU-only test stopping on a CPU (NeedsGPU) is not one."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error" and out.get("ename") != "NeedsGPU":
            return f"{out.get('ename')}: {out.get('evalue', '')}"[:300]
    return None


def _tests_after(nb, index: int) -> list[int]:
    """Indices of the test cells between solution cell ``index`` and the next solution cell."""
    found = []
    for j in range(index + 1, len(nb.cells)):
        if notebooks.is_solution_cell(nb.cells[j]):
            break
        if notebooks.is_test_cell(nb.cells[j]):
            found.append(j)
    return found


def try_variants(assignment: str) -> list[VariantResult]:
    wrong, right = load_variants(assignment)
    path = course.solution_notebook(assignment)
    nb = notebooks.read(path)
    ids = {notebooks.grading(c).get("grade_id") for c in nb.cells if notebooks.is_solution_cell(c)}
    unknown = sorted((set(wrong) | set(right)) - ids)
    if unknown:
        raise ValueError(f"{assignment} variants name cells that are not solution cells: {unknown}")
    client = notebooks.client(nb, path.parent, timeout=settings.CELL_TIMEOUT_S)
    results: list[VariantResult] = []
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            client.execute_cell(cell, index)
            grade_id = notebooks.grading(cell).get("grade_id")
            if not notebooks.is_solution_cell(cell) or grade_id not in set(wrong) | set(right):
                continue
            tests = _tests_after(nb, index)
            for kind, sources in (("wrong", wrong.get(grade_id, [])), ("right", right.get(grade_id, []))):
                for number, source in enumerate(sources):
                    trial = copy.deepcopy(cell)
                    trial.source = source
                    client.execute_cell(trial, index)
                    failing, messages = [], []
                    if _error(trial):  # a variant that cannot even run proves nothing about the tests
                        raise ValueError(f"{assignment} {kind} variant #{number} of {grade_id} fails on its own: {_error(trial)}")
                    for j in tests:
                        test = copy.deepcopy(nb.cells[j])
                        client.execute_cell(test, j)
                        if _error(test):
                            failing.append(notebooks.grading(test)["grade_id"])
                            messages.append(_error(test))
                    results.append(VariantResult(grade_id, kind, number, failing, messages))
            client.execute_cell(cell, index)  # put the real solution back for the cells below
    return results


def report(assignment: str) -> int:
    results = try_variants(assignment)
    if not results:
        print(f"{assignment}: no variants in {VARIANTS_DIR.relative_to(course.ROOT)}/{assignment}.py")
        return 0
    for r in results:
        verdict = "ok" if r.ok else "PROBLEM"
        what = "caught by " + ", ".join(r.failing_tests) if r.failing_tests else "passes every test"
        print(f"{verdict:<8} {r.cell:<24} {r.kind} #{r.index}: {what}")
        if r.kind == "wrong" and r.messages:
            print(f"{'':<8} {'':<24} first message: {r.messages[0].splitlines()[0]}")
    return 0 if all(r.ok for r in results) else 1
