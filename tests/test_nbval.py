"""nbval over the course (``make test`` runs ``pytest --nbval-lax lessons``), the tags it relies on, and the stored
facts of the solutions, compared with their reference runs.

- release tags exactly the cells of a lesson that may fail before its exercises are answered (nbval's
  ``raises-exception``), from the code: an exercise added or moved re-tags its dependants;
- the committed lessons carry those tags and no solution-only tag; the solutions keep the stored outputs of
  their ``nbval-check-output`` cells and no other output;
- a broken demonstration cell in a lesson (not an exercise) makes nbval fail, where the lesson as released passes.
"""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest

from autograder.authoring import nbval_tags
from autograder.core import course, notebooks


def _nb(*sources: str):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    return nb


STUB = "def area(w, h):\n    # YOUR CODE HERE\n    raise NotImplementedError()"


def test_the_cells_that_use_an_unanswered_exercise_are_the_ones_tagged():
    nb = _nb("import math\nside = 3",                                   # 0 runs
             STUB,                                                       # 1 defines a stub: runs
             "print(math.sqrt(side))",                                   # 2 a demonstration: runs
             "a = area(side, 2)",                                        # 3 calls the stub: fails
             "print(a * 2)",                                             # 4 uses what 3 would set: fails
             "def report():\n    return area(1, 1)",                     # 5 defines a function: runs
             "report()",                                                 # 6 calls it: fails
             "a = 5\nprint(a)",                                          # 7 sets a again: runs
             "print(a + side)",                                          # 8 runs
             "x = [1, 2]\n%time y = sum(x)",                             # 9 a magic: runs
             "top = 1\n# YOUR CODE HERE\nraise NotImplementedError()")   # 10 a top-level stub: fails
    assert nbval_tags.failing_cells(nb) == {3, 4, 6, 10}


def test_moving_an_exercise_re_tags_its_dependants():
    before = _nb("import math", STUB, "print(area(2, 3))", "print(math.pi)")
    assert nbval_tags.failing_cells(before) == {2}
    # the exercise moved below its use: the use now runs on a name nobody defined (a NameError that only a
    # student's first run would meet is still the lesson's bug, so it is not tagged), and the stub runs
    moved = _nb("import math", "print(math.pi)", STUB, "answer = area(2, 3)", "print(answer)")
    assert nbval_tags.failing_cells(moved) == {3, 4}
    # answered: nothing may fail
    answered = _nb("import math", "def area(w, h):\n    return w * h", "print(area(2, 3))")
    assert nbval_tags.failing_cells(answered) == set()


def test_names_only_the_answer_defines_are_missing_until_it_is_written():
    lesson = _nb("set_seed = print", "set_seed(0)\n# YOUR CODE HERE\nraise NotImplementedError()", "print(history)",
                 "print(len([1]))")
    lesson.cells[1].metadata["nbgrader"] = {"grade_id": "train", "solution": True}
    answers = {"train": "set_seed(0)\nhistory = {'acc': [0.9]}"}
    assert nbval_tags.failing_cells(lesson, answers) == {1, 2}
    # a def stub whose answer also defines a helper: the helper is missing, the stub's own name raises
    lesson = _nb("def area(w, h):\n    raise NotImplementedError()", "print(square(2))", "print(area(1, 2))")
    lesson.cells[0].metadata["nbgrader"] = {"grade_id": "area", "solution": True}
    answers = {"area": "def square(s):\n    return s * s\n\ndef area(w, h):\n    return w * h"}
    assert nbval_tags.failing_cells(lesson, answers) == {1, 2}


def test_tag_lesson_sets_the_generated_tags_and_keeps_the_authors_own():
    nb = _nb(STUB, "area(1, 2)", "print('gpu')", "print(1)")
    nb.cells[0].metadata["tags"] = ["raises-exception"]          # stale: the stub cell itself runs
    nb.cells[2].metadata["tags"] = ["nbval-skip"]
    nb.cells[3].metadata["tags"] = ["nbval-check-output"]        # solution-only: lessons have no outputs
    nbval_tags.tag_lesson(nb)
    assert nbval_tags.tags(nb) == {1: ["raises-exception"], 2: ["nbval-skip"]}


@pytest.mark.parametrize("name", course.assignments())
def test_each_lesson_carries_exactly_the_generated_tags(name):
    lesson = notebooks.read(course.lesson_notebook(name))
    solution = notebooks.read(course.solution_notebook(name))
    expected = nbval_tags.tags(nbval_tags.tag_lesson(notebooks.read(course.lesson_notebook(name)), solution))
    assert nbval_tags.tags(lesson) == expected, f"lessons/{name}: run `python -m autograder release {name}`"
    assert not any(notebooks.checks_output(c) for c in lesson.cells)


def test_solutions_store_only_the_outputs_nbval_compares():
    checked = 0
    for name in course.assignments():
        for cell in notebooks.read(course.solution_notebook(name)).cells:
            if cell.cell_type != "code":
                continue
            if notebooks.checks_output(cell):
                checked += 1
                assert cell.outputs and cell.execution_count, f"{name}/{cell.id}: run it and save it in make instructor"
            else:
                assert not cell.outputs, f"{name}/{cell.id} keeps an output that nothing compares"
    assert checked >= 3, "a few printed facts of the course are compared by nbval"


def _nbval(path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", str(path), "--nbval-lax", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "--nbval-cell-timeout=300", "--rootdir", str(path.parent)],
                          capture_output=True, text=True, timeout=600, cwd=path.parent)


@pytest.mark.slow
def test_a_broken_demonstration_cell_in_a_lesson_fails_nbval(tmp_path):
    name = "00_setup"
    lesson = notebooks.read(course.lesson_notebook(name))
    free = [i for i, c in enumerate(lesson.cells) if c.cell_type == "code" and not notebooks.grading(c)
            and "raises-exception" not in c.metadata.get("tags", [])]
    assert free, "lesson 00 has demonstration cells"
    released = tmp_path / "released" / f"{name}.ipynb"
    notebooks.write(lesson, released)
    ok = _nbval(released)
    assert ok.returncode == 0, ok.stdout[-3000:]
    broken_at = free[-1]
    lesson.cells[broken_at].source += "\nraise RuntimeError('a demonstration the course broke')"
    broken = tmp_path / "broken" / f"{name}.ipynb"
    notebooks.write(lesson, broken)
    failed = _nbval(broken)
    assert failed.returncode != 0 and "a demonstration the course broke" in failed.stdout, failed.stdout[-3000:]


def _sanitised(text: str) -> str:
    """``text`` with what tests/nbval-sanitize.cfg says may differ between runs replaced, as nbval does."""
    import configparser
    import re

    config = configparser.ConfigParser()
    config.read(course.ROOT / "tests" / "nbval-sanitize.cfg", encoding="utf-8")
    for section in config.sections():
        text = re.sub(config[section]["regex"], config[section]["replace"], text)
    return text


CHECKED = [name for name in course.assignments()
           if any(notebooks.checks_output(c) for c in notebooks.read(course.solution_notebook(name)).cells)]


@pytest.mark.slow
@pytest.mark.parametrize("name", CHECKED)
def test_a_solution_prints_its_stored_facts_in_its_reference_run(name, tmp_path):
    """The solution's nbval-check-output cells print, in the solution's reference run (the run grading compares every
    student with, top to bottom in the box), exactly the output stored with them (as nbval would compare it)."""
    from autograder.authoring.variants import local_reference

    facts = local_reference(name, tmp_path).facts
    for cell in notebooks.read(course.solution_notebook(name)).cells:
        if not notebooks.checks_output(cell):
            continue
        stored = notebooks.stream_text(cell) + "".join(out.get("data", {}).get("text/plain", "")
                                                       for out in cell.get("outputs", []) if "data" in out)
        assert cell.get("id") in facts, f"{name}: the reference run has no output of cell {cell.get('id')}"
        assert _sanitised(facts[cell["id"]]) == _sanitised(stored), f"{name}, cell {cell.get('id')}"
