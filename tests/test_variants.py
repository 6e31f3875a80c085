"""Hidden tests catch the mistakes in tests/variants/ and accept the other correct answers there."""

from __future__ import annotations

import pytest

from autograder import course, notebooks
from autograder.variants import VARIANTS_DIR, load_variants, try_variants

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", course.assignments())
def test_every_graded_cell_has_variants(name):
    wrong, right = load_variants(name)
    nb = notebooks.read(course.solution_notebook(name))
    for cell in nb.cells:
        if notebooks.is_solution_cell(cell):
            gid = notebooks.grading(cell)["grade_id"]
            assert wrong.get(gid), f"{VARIANTS_DIR.name}/{name}.py: add a WRONG answer for {gid}"
            assert right.get(gid), f"{VARIANTS_DIR.name}/{name}.py: add a RIGHT answer for {gid}"


@pytest.mark.parametrize("name", course.assignments())
def test_variants_are_judged_correctly(name):
    results = try_variants(name)
    wrong_passed = [f"{r.cell} wrong #{r.index}" for r in results if r.kind == "wrong" and not r.ok]
    right_failed = [f"{r.cell} right #{r.index}: {r.messages[:1]}" for r in results if r.kind == "right" and not r.ok]
    assert not wrong_passed, f"{name}: these mistakes pass every test: {wrong_passed}"
    assert not right_failed, f"{name}: these correct answers lose points: {right_failed}"
