"""The cell harness and the real grader agree: a sample of variants and mutants, handed in as students would and graded
end to end by `grade` (the box, the executor, the verdicts), lose exactly the points the harness says they lose.

The variants and mutants of every lesson are judged through the harness (tests/test_variants.py), which is fast
because it runs each notebook once; this keeps that shortcut honest. Lesson 01 grades quickly, so its sample is
graded in one run: two wrong answers, two right ones and two killed mutants.
"""

from __future__ import annotations

import pytest

from autograder.authoring import harness, mutants, variants
from autograder.grading.sandbox import unavailable_reason
from autograder.scale.grade import grade
from autograder.core import notebooks
from submission_factory import student_copy, without_solution_markers

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

NAME = "01_tensors"


def _sample() -> list[harness.Trial]:
    wrong, right = variants.load_variants(NAME)
    chosen = []
    for kind, table, count in (("wrong", wrong, 2), ("right", right, 2)):
        for trial in variants.trials(*((table, {}) if kind == "wrong" else ({}, table)))[:count]:
            chosen.append(trial)
    chosen += [harness.Trial(m.id, m.grade_id, m.source, first_catch=True) for m in mutants.sample(NAME)[:2]]
    return chosen


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    trials = _sample()
    by_harness = dict(zip([t.key for t in trials], harness.run(NAME, [harness.Trial(t.key, t.grade_id, t.source)
                                                                      for t in trials])))
    submissions = tmp_path_factory.mktemp("agreement")
    students = {}
    for number, trial in enumerate(trials):
        student = f"student{number}"
        students[student] = trial.key
        notebooks.write(student_copy(NAME, replace={trial.grade_id: without_solution_markers(trial.source)}),
                        submissions / student / NAME / f"{NAME}.ipynb")
    out = tmp_path_factory.mktemp("agreement-graded")
    results = grade(submissions, out, jobs=1, runner="cpu", unsafe_no_sandbox=unavailable_reason() is not None)
    return {students[r.student]: r for r in results}, by_harness


def test_a_sample_of_variants_and_mutants_loses_the_same_points_in_grading_as_in_the_harness(judged):
    graded, by_harness = judged
    assert len(graded) == len(by_harness) >= 4
    for key, outcome in by_harness.items():
        in_harness = {t.grade_id for t in outcome.tests if t.score < t.points}
        tested = {t.grade_id for t in outcome.tests}
        in_grading = {c.cell for c in graded[key].cells if c.cell in tested and c.score < c.max_score}
        assert in_grading == in_harness, f"{key}: the harness says {sorted(in_harness)} lose points, grading says " \
                                         f"{sorted(in_grading)}"
    assert any(t for o in by_harness.values() for t in o.tests if t.score < t.points), "the sample has a wrong answer"
