"""`python -m autograder show NN [GRADE_ID]` and `list`: an assignment's graded cells as plain text, read from the
solution notebook (nothing runs)."""

from __future__ import annotations

import pytest

from autograder import cli
from autograder.authoring import show
from autograder.core import course, notebooks, regions


def run(capsys, *argv: str) -> str:
    assert cli.main(list(argv)) == 0
    return capsys.readouterr().out


def graded(name: str) -> list:
    nb = notebooks.read(course.solution_notebook(name))
    return [c for c in nb.cells if notebooks.is_test_cell(c) or notebooks.is_manual_cell(c)]


def hidden_part(cell) -> list[str]:
    return [line.text for line in regions.lines(cell.source) if line.region == "hidden" and line.text.strip()]


def test_show_prints_every_graded_cell_with_its_points_solution_and_hidden_tests(capsys):
    text = run(capsys, "show", "02_autograd")
    cells = graded("02_autograd")
    total = sum(float(notebooks.grading(c)["points"]) for c in cells)
    assert text.startswith("02_autograd: Lesson 02 · Autograd\n") and f"{total:g} points" in text
    for cell in cells:
        meta = notebooks.grading(cell)
        assert f"Test cell {meta['grade_id']} ({meta['points']:g} point" in text
        for line in hidden_part(cell):
            assert line in text, f"hidden test line of {meta['grade_id']} missing: {line}"
    nb = notebooks.read(course.solution_notebook("02_autograd"))
    for cell in nb.cells:
        if notebooks.is_solution_cell(cell):
            assert cell.source.strip().split("\n")[0] in text          # each solution, from its signature on
    assert "### Exercise 2 (2 points): `grad_over_batches`" in text   # the instructions' first lines
    assert "hidden.check(" in text and "rule central_points, this cell's GRADER block" in text
    assert "def central_points(got, reference, eps):" in text         # the GRADER block itself
    assert "rule same, grading/rules.py" in text


def test_show_one_graded_cell(capsys):
    text = run(capsys, "show", "02_autograd", "grad-over-batches")
    assert text.split("\n")[1] == "grad-over-batches: 2 points"
    assert "def grad_over_batches(loss_fn, w" in text and "Test cell grad-over-batches-tests (2 points)" in text
    [tests] = [c for c in graded("02_autograd") if notebooks.grading(c)["grade_id"] == "grad-over-batches-tests"]
    assert all(line in text for line in hidden_part(tests))
    assert "hidden.on_meta('w.grad for a w on another device'): rule like, grading/rules.py" in text
    assert "grad-at" not in text and "numerical_gradient" not in text, "only the cell asked for"
    assert run(capsys, "show", "02_autograd", "grad-over-batches-tests") == text, "a test cell's id picks its exercise"


def test_show_flags_gpu_only_tests_and_written_answers(capsys):
    text = run(capsys, "show", "ex2_lr_finder")
    assert "17 points: 14 + 2 written + 1 GPU" in text
    assert "Test cell lr-range-test-gpu-tests (1 point)  [GPU-only" in text
    assert "lr-range-test: 5 points (1 GPU-only)" in text, "a GPU test cell belongs to the answer its id names"
    assert "lr-choice-written: written answer, 2 points, scored by a person in Formgrader" in text
    assert "Model answer and rubric:" in text


def test_show_refuses_unknown_names_with_the_known_ones(capsys):
    with pytest.raises(SystemExit, match="graded cells are: grad-at, grad-over-batches"):
        cli.main(["show", "02_autograd", "no-such-cell"])
    with pytest.raises(SystemExit, match="unknown assignment"):
        cli.main(["show", "99_nothing"])


def test_list_prints_every_assignment_with_its_points(capsys):
    lines = run(capsys, "list").splitlines()
    assert lines[0].split()[:5] == ["assignment", "points", "automatic", "GPU-only", "written"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert list(rows) == course.assignments()
    for name in course.assignments():
        cells = graded(name)
        points = lambda keep: sum(float(notebooks.grading(c)["points"]) for c in cells if keep(c))  # noqa: E731
        automatic = points(lambda c: notebooks.is_test_cell(c) and not notebooks.is_gpu_test_cell(c))
        gpu, written = points(notebooks.is_gpu_test_cell), points(notebooks.is_manual_cell)
        assert [float(v) for v in rows[name][1:5]] == [automatic + gpu + written, automatic, gpu, written], name


def test_both_are_in_help(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = capsys.readouterr().out
    assert "show" in text and "list" in text and "every assignment with its points" in text


def test_the_readmes_lessons_table_is_current():
    text = show.README.read_text(encoding="utf-8")
    assert show.lessons_table() in text, "run: python -m autograder list --write"
