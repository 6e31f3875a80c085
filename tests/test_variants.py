"""Hidden tests catch the mistakes in tests/variants/ and accept the other correct answers there, and still kill a
fixed sample of the mutants the last mutation run killed (tests/mutants/NN.json), in the same run of the notebook.
(Which rows must exist is tests/test_promises.py's job.)"""

from __future__ import annotations

import pytest

from autograder.authoring import harness, mutants, promises, variants
from autograder.authoring.variants import load_variants, local_reference, try_variants
from autograder.core import course, notebooks

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", course.assignments())
def test_variants_are_judged_correctly_and_the_sampled_mutants_are_still_killed(name):
    sample = mutants.sample(name)
    results, outcomes = try_variants(name, [harness.Trial(m.id, m.grade_id, m.source, first_catch=True) for m in sample])
    wrong_passed = [f"{r.cell} {r.mistake} wrong #{r.index}" for r in results if r.kind == "wrong" and not r.ok]
    right_failed = [f"{r.cell} {r.mistake} right #{r.index}: {r.messages[:1]}" for r in results if r.kind == "right" and not r.ok]
    assert not wrong_passed, f"{name}: these mistakes pass every test: {wrong_passed}"
    assert not right_failed, f"{name}: these correct answers lose points: {right_failed}"
    survived = [m.label() for m, outcome in zip(sample, outcomes) if not mutants.killed(outcome)]
    assert not survived, f"{name}: mutants the recorded run killed now survive (python -m autograder mutants {name}): {survived}"


@pytest.mark.parametrize("name", course.assignments())
def test_the_table_reads_the_kinds_the_reference_run_sends(name, tmp_path):
    """docs/promises.md splits points by the kinds read from the hidden source; the reference run must agree."""
    sent: dict[str, set[str]] = {}
    for record in local_reference(name, tmp_path).records:
        sent.setdefault(record["cell"], set()).add(record.get("kind", "value"))
    for cell in notebooks.test_cells(notebooks.read(course.solution_notebook(name))):
        gid = notebooks.grading(cell)["grade_id"]
        if notebooks.is_gpu_test_cell(cell) and gid not in sent:
            continue  # a GPU cell sends nothing on a CPU runner
        assert sent.get(gid) == promises.check_kinds(cell.source), f"{name}/{gid}"


@pytest.mark.parametrize("name", course.assignments())
def test_the_variants_run_judges_every_test_cell_with_a_correct_answer(name):
    """The variants run is the second run of each solution: every test cell that runs on a CPU must be judged there
    against the reference run with a correct answer in place (the solution's own, or a RIGHT variant of the last cell
    that has variants, where the run stops). That is what shows a hidden test's values do not change from run to run,
    so a complete submission's grading can rest on the reference run (tests/test_grading.py)."""
    nb = notebooks.read(course.solution_notebook(name))
    judged = variants.judged_with_a_correct_answer(nb, *load_variants(name))
    cpu_tests = {i for i, c in enumerate(nb.cells) if notebooks.is_test_cell(c) and not notebooks.is_gpu_test_cell(c)}
    missing = sorted(notebooks.grading(nb.cells[i])["grade_id"] for i in cpu_tests - judged)
    assert not missing, f"{name}: test cells the variants run never judges with a correct answer: {missing}"
