"""The table of promises (docs/promises.md) is complete, current, and kept by the hidden tests.

- every graded exercise has a row for at least the class 'values';
- every row (exercise x class) has a wrong answer of that class, and a right one unless the
  variants file says the class has one correct spelling there (ONE_WAY, with the reason);
- every class with a probe in coursekit.testing is tested with that probe by the exercise's test cells;
- the table in docs/ is what `python -m autograder promises` generates.
Whether each wrong answer is caught and each right one kept is tests/test_variants.py's job.
"""

from __future__ import annotations

import pytest

from autograder.core import course, notebooks
from autograder.authoring import promises
from autograder.authoring.variants import load_file
from coursekit.testing import CLASSES, PROBES


@pytest.mark.parametrize("name", course.assignments())
def test_every_exercise_has_rows_and_every_row_its_variants(name):
    declared = load_file(name)
    problems = []
    for cell, _ in promises.exercises(name):
        classes = set(declared["WRONG"].get(cell, {})) | set(declared["RIGHT"].get(cell, {}))
        unknown = classes - set(CLASSES)
        if unknown:
            problems.append(f"{cell}: unknown classes {sorted(unknown)} (see coursekit.testing.CLASSES)")
        if "values" not in classes:
            problems.append(f"{cell}: no row for 'values'")
        for mistake in sorted(classes & set(CLASSES)):
            if not declared["WRONG"].get(cell, {}).get(mistake):
                problems.append(f"{cell} / {mistake}: no WRONG answer of this class")
            if not declared["RIGHT"].get(cell, {}).get(mistake) and mistake not in declared["ONE_WAY"].get(cell, {}):
                problems.append(f"{cell} / {mistake}: no RIGHT answer (or a ONE_WAY reason)")
        for mistake in declared["NOT_TESTED"].get(cell, {}):
            if mistake in classes:
                problems.append(f"{cell} / {mistake}: declared NOT_TESTED but has variants")
    assert not problems, f"tests/variants/{name}.py:\n" + "\n".join(problems)


def _test_sources(name: str) -> dict[str, str]:
    """Solution cell grade_id -> the source of the test cells that follow it."""
    cells = notebooks.read(course.solution_notebook(name)).cells
    found, current = {}, None
    for cell in cells:
        if notebooks.is_solution_cell(cell):
            current = notebooks.grading(cell)["grade_id"]
            found[current] = ""
        elif current and notebooks.is_test_cell(cell):
            found[current] += cell.source + "\n"
    return found


@pytest.mark.parametrize("name", course.assignments())
def test_each_class_of_a_row_is_tested_with_its_probe(name):
    declared = load_file(name)
    sources = _test_sources(name)
    missing = []
    for cell, classes in declared["WRONG"].items():
        for mistake in classes:
            probes = PROBES.get(mistake, ())
            if probes and not any(probe in sources.get(cell, "") for probe in probes):
                missing.append(f"{cell} / {mistake}: call one of {', '.join(probes)} (coursekit.testing)")
    assert not missing, f"{name}: the test cells do not use the probe of a class their row names:\n" + "\n".join(missing)


def test_the_table_in_docs_is_current():
    assert promises.current(), ("docs/promises.md or the points section of docs/grading-security.md is out of date: "
                                "run `python -m autograder promises`")


def test_most_hidden_test_points_are_decided_outside_the_kernel():
    outside, total = promises.outside_share()
    assert outside / total >= promises.MIN_OUTSIDE_SHARE, (
        f"only {outside:g} of {total:g} hidden-test points ({outside / total:.1%}) are decided outside the kernel: "
        "make mistakes change values rather than observations (docs/hidden-tests.md)")


def test_kinds_are_read_from_hidden_calls():
    source = ("v()\n### BEGIN HIDDEN TESTS\nhidden.same('a', f())\nhidden.check('b', g(), rule='x', observation=True)\n"
              "### BEGIN GRADER\ndef x(got, reference):\n    hidden.observed('never sent', 1)\n### END GRADER\n### END HIDDEN TESTS\n")
    assert promises.check_kinds(source) == {"value", "observation"}
    assert promises.check_kinds(source.replace("observation=True", "observation=False")) == {"value"}
