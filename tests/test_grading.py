"""`grade` end to end on every assignment: a blank submission of each, and a complete and a one-mistake
submission of two.

A complete submission runs the very program of the reference run (grading/reference.py): the lesson's
cells with the solution's answers and the real test cells. So one run serves both purposes, and nothing
is lost by not repeating it:

- ``test_a_complete_copy_composes_to_the_reference_program``: the released lesson with the answers
  typed in composes to the reference's notebook, code cell for code cell (no execution needed);
- the reference run is sound or grading stops: it runs to its end without an error, every test cell
  sends records, the kernel guard flags nothing, and it earns every point against itself
  (``test_the_reference_run_earns_every_point``);
- tests/test_variants.py runs the solution a second time, unboxed, and judges every test cell of every
  lesson against the reference: a value that changes from run to run would fail there.

01 and 07 are also graded end to end as a complete submission, and with one answer left as the stub (that
the grader scores each test cell on its own does not depend on the lesson; that each lesson's tests catch its
mistakes is tests/test_variants.py's job).
"""

from __future__ import annotations

import csv
import html
import os
import re
from pathlib import Path

import pytest

from autograder.authoring.variants import local_reference
from autograder.core import course, editions, notebooks, regions
from autograder.grading import assignment, compose, scoring
from autograder.scale.grade import grade, job_folder
from autograder.grading.sandbox import unavailable_reason
from autograder.core.settings import GRADED, NEEDS_GPU, NEEDS_MANUAL
from submission_factory import student_copy, without_solution_markers

pytestmark = pytest.mark.slow

# One-mistake submissions: a lesson with CPU-only cells and one with GPU-only cells (scored as "needs a GPU").
ONE_WRONG = ("01_tensors", "07_devices_amp")
# Kernels graded at once per run: two on this 2-core machine, one each when pytest-xdist already runs
# workers side by side (each kernel uses one thread).
JOBS = 1 if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1 else 2


# Lessons graded end to end as a complete submission: the two of the one-mistake submissions, which are compared with
# it. For every other lesson the reference run is that run: a complete copy composes to the reference program
# (test_a_complete_copy_composes_to_the_reference_program), which earns every point (test_the_reference_run_earns_
# every_point), and the variants run shows that the hidden tests' values do not change from run to run
# (tests/test_variants.py); a second full grading of each lesson would repeat the reference run (about 150 s of CPU).
END_TO_END = ONE_WRONG
assert set(ONE_WRONG) <= set(END_TO_END), "a one-mistake submission is compared with a complete one"


# The same one-mistake answers handed in as an edition's lesson (issue 41): graded in the same run, they must score
# exactly as in English, with a page in the edition's language. One edition and one lesson keep it cheap (one more
# submission); tests/test_translations.py proves for every assignment that an edition's copy runs the same code.
EDITION = "pt_BR"
IN_AN_EDITION = tuple(name for name in ONE_WRONG if name in editions.EDITIONS[EDITION].shipped)


def students(name: str) -> tuple[str, ...]:
    return ((("complete",) if name in END_TO_END else ()) + ("blank",) + (("one-wrong",) if name in ONE_WRONG else ())
            + ((f"one-wrong-{EDITION}",) if name in IN_AN_EDITION else ()))


def _tampered_copy():
    """01_tensors with two wrong answers whose test cells were deleted or emptied, to prove that
    grading restores the real tests (nbgrader's add_missing_cells and locked-cell overwrite)."""
    return student_copy("01_tensors", replace={
        "make-grid": "def make_grid(rows, cols):\n    return torch.arange(rows * cols).reshape(rows, cols)\n",
        "make-grid-tests": "pass",
        "flatten-images": "def flatten_images(images):\n    return images.view(images.shape[0], -1)\n",
    }, drop=("flatten-images-tests",))


def last_solution_and_its_tests(name: str) -> tuple[str, set[str]]:
    cells = notebooks.read(course.solution_notebook(name)).cells
    index = max(i for i, c in enumerate(cells) if notebooks.is_solution_cell(c))
    tests = {notebooks.grading(c)["grade_id"] for c in cells[index:] if notebooks.is_test_cell(c)}
    return notebooks.grading(cells[index])["grade_id"], tests


_GRADED: dict[str, tuple] = {}


def graded_run(name: str, tmp_path_factory) -> tuple[Path, dict, Path]:
    """(output folder, results by (student, assignment), work folder) of grading ``name``'s three
    submissions, once per test session (each lesson alone, so `pytest -m NAME` grades only it)."""
    if name not in _GRADED:
        submissions = tmp_path_factory.mktemp(f"submissions-{name}")
        stub, _ = last_solution_and_its_tests(name)
        copies = {"complete": student_copy(name), "blank": notebooks.read(course.lesson_notebook(name)),
                  "one-wrong": student_copy(name, leave_stub=stub)}
        if name in IN_AN_EDITION:
            edition = notebooks.read(editions.lesson_notebook(EDITION, name))
            copies[f"one-wrong-{EDITION}"] = student_copy(name, leave_stub=stub, lesson=edition)
        copies = {student: nb for student, nb in copies.items() if student in students(name)}
        for student, nb in copies.items():
            notebooks.write(nb, submissions / student / name / f"{name}.ipynb")
        out, work = tmp_path_factory.mktemp(f"graded-{name}"), tmp_path_factory.mktemp(f"work-{name}")
        results = grade(submissions, out, jobs=JOBS, workdir=work, runner="cpu",
                        unsafe_no_sandbox=unavailable_reason() is not None)
        _GRADED[name] = out, {(r.student, r.assignment): r for r in results}, work
    return _GRADED[name]


@pytest.fixture
def graded(request, tmp_path_factory):
    return graded_run(request.node.callspec.params["name"], tmp_path_factory)


@pytest.fixture(scope="module")
def tampered(tmp_path_factory):
    """A tamperer and a classmate who handed in the lesson untouched, graded in this process; every file the grader
    opened is counted (``opened``), so that a test can check how often it read the course's notebooks."""
    import builtins
    import io
    from unittest import mock

    submissions, out = tmp_path_factory.mktemp("tampered"), tmp_path_factory.mktemp("tampered-out")
    notebooks.write(_tampered_copy(), submissions / "tamperer" / "01_tensors" / "01_tensors.ipynb")
    notebooks.write(notebooks.read(course.lesson_notebook("01_tensors")), submissions / "classmate" / "01_tensors" / "01_tensors.ipynb")
    opened: list[str] = []
    real_open = builtins.open

    def counting_open(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)):
            opened.append(os.path.realpath(file))
        return real_open(file, *args, **kwargs)

    with mock.patch.object(builtins, "open", counting_open), mock.patch.object(io, "open", counting_open):
        results = grade(submissions, out, runner="cpu", unsafe_no_sandbox=unavailable_reason() is not None)
    return out, {(r.student, r.assignment): r for r in results}, opened


def _cells(out: Path) -> dict[tuple[str, str], dict[str, tuple[float, float]]]:
    table: dict = {}
    with open(out / "cells.csv", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            table.setdefault((row["student"], row["assignment"]), {})[row["cell"]] = (float(row["score"]), float(row["max_score"]))
    return table


NAMES = course.assignments()


def _code(plan: compose.Plan) -> list[str]:
    """The code the kernel runs, cell by cell, with the nonces of the guard's checks (fresh for every plan) and
    nbgrader's solution markers (comments the release removes) left out."""
    code = []
    for cell in plan.nb.cells:
        if cell.cell_type != "code":
            continue
        source = cell.source
        for slot in plan.tests:
            source = source.replace(slot.nonce, "NONCE")
        code.append(without_solution_markers(source).strip())
    return code


@pytest.mark.parametrize("name", NAMES)
def test_a_complete_copy_composes_to_the_reference_program(name):
    """What a complete submission runs is what the reference run runs: so the reference run stands for it."""
    task = assignment.load(name)
    submitted = compose.build(student_copy(name), task)
    reference_plan = compose.build(notebooks.read(course.solution_notebook(name)), task)
    assert not submitted.flags and not submitted.notes, f"{name}: {submitted.flags} {submitted.notes}"
    assert [(s.grade_id, s.points, s.gpu) for s in submitted.tests] == [(s.grade_id, s.points, s.gpu) for s in reference_plan.tests]
    mine, theirs = _code(submitted), _code(reference_plan)
    assert len(mine) == len(theirs), f"{name}: {len(mine)} code cells in a complete copy, {len(theirs)} in the reference run"
    differ = [i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b]
    assert not differ, f"{name}: code cell {differ[0]} of a complete copy differs from the reference run's:\n{mine[differ[0]][:300]}"


@pytest.mark.parametrize("name", NAMES)
def test_the_reference_run_earns_every_point(graded, name, tmp_path):
    """Grading loaded (or ran) the reference, so it is sound (no error, no silent test cell, no guard flag); judged
    against itself it earns every point of every test cell that runs on a CPU runner: what a complete submission gets."""
    ref = local_reference(name, tmp_path)   # from this session's cache: grading above has run it
    assert ref.cached, f"{name}: grading should have cached the reference run"
    judged = ref.checks()
    for cell in notebooks.test_cells(notebooks.read(course.solution_notebook(name))):
        gid, points = notebooks.grading(cell)["grade_id"], float(notebooks.grading(cell).get("points", 0))
        if notebooks.is_gpu_test_cell(cell):
            continue
        score, _ = scoring.cell_score(points, judged.get(gid), False, trusted=True)
        assert score == points, f"{name}/{gid}: the reference earns {score:g} of {points:g} against itself"


@pytest.mark.parametrize("name", END_TO_END)
def test_complete_submission_gets_full_marks_and_no_flag(graded, name):
    out, results, _ = graded
    cells = _cells(out)
    result = results[("complete", name)]
    assert result.status == GRADED and not result.reason, result.reason
    assert not result.flags, f"{name}: a correct submission was flagged: {result.flags}"
    not_here = {c.cell for c in result.cells if c.status in (NEEDS_GPU, NEEDS_MANUAL)}
    lost = {cell: s for cell, s in cells[("complete", name)].items() if s[0] != s[1] and cell not in not_here}
    assert not lost, f"{name}: a correct submission lost points on {lost}"


@pytest.mark.parametrize("name", END_TO_END)
def test_every_cell_of_a_complete_submission_runs_without_error(graded, name):
    """What nbval used to check, from the same run that grades: the lesson runs top to bottom."""
    _, _, work = graded
    executed = notebooks.read(job_folder(work, "complete", name) / "executed.ipynb")
    failing = [(i, notebooks.first_error(c)) for i, c in enumerate(executed.cells)
               if c.cell_type == "code" and notebooks.first_error(c)]
    assert not failing, f"{name}: cells failed in a correct submission: {failing[:3]}"
    never = [i for i, c in enumerate(executed.cells) if c.cell_type == "code" and c.source.strip()
             and c.execution_count is None]
    assert not never, f"{name}: cells never ran: {never[:5]}"


@pytest.mark.parametrize("name", NAMES)
def test_blank_lesson_gets_zero_everywhere_and_finishes_cleanly(graded, name):
    out, results, _ = graded
    cells = _cells(out)
    assert results[("blank", name)].status == GRADED, results[("blank", name)].reason
    assert not results[("blank", name)].flags, results[("blank", name)].flags
    scored = {cell: s for cell, s in cells[("blank", name)].items() if s[0] != 0}
    assert not scored, f"{name}: an untouched lesson scored on {scored}"
    source = notebooks.read(course.solution_notebook(name))
    graded_cells = [c for c in source.cells if notebooks.is_test_cell(c) or notebooks.is_manual_cell(c)]
    assert len(cells[("blank", name)]) == len(graded_cells)
    written = {c.cell for c in results[("blank", name)].cells if c.status == NEEDS_MANUAL}
    assert written == {notebooks.grading(c)["grade_id"] for c in graded_cells if notebooks.is_manual_cell(c)}


@pytest.mark.parametrize("name", ONE_WRONG)
def test_one_wrong_answer_loses_exactly_its_points(graded, name):
    out, results, _ = graded
    cells = _cells(out)
    _, its_tests = last_solution_and_its_tests(name)
    gpu = {c.cell for c in results[("one-wrong", name)].cells if c.status == NEEDS_GPU}
    for cell, (score, max_score) in cells[("one-wrong", name)].items():
        if cell in gpu:
            continue
        expected = 0.0 if cell in its_tests else max_score
        assert score == expected, f"{name}/{cell}: scored {score:g}, expected {expected:g}"


@pytest.mark.parametrize("name", IN_AN_EDITION)
def test_an_edition_scores_exactly_as_english_with_feedback_in_its_language(graded, name):
    """The same answers handed in as the Portuguese lesson: the same assignment, the same score for every cell, and a
    feedback page in Portuguese (the grader's words; a failed check's ✗ line and hint: test_translations.py) where the
    English page is English."""
    out, results, _ = graded
    cells = _cells(out)
    english, edition = ("one-wrong", name), (f"one-wrong-{EDITION}", name)
    assert cells[edition] == cells[english] and results[edition].score == results[english].score
    assert results[edition].status == results[english].status == GRADED
    assert any(score < points for score, points in cells[edition].values()), "the mistake costs points in both"
    page = _visible_text((out / "feedback" / edition[0] / f"{name}.html").read_text(encoding="utf-8"))
    english_page = _visible_text((out / "feedback" / english[0] / f"{name}.html").read_text(encoding="utf-8"))
    assert "Corretor:" in page and "ainda não foi feito" in page and "Grader:" not in page   # the stub left
    assert "Grader:" in english_page and "Corretor:" not in english_page
    assert "Exercício" in page, "the student's own (Portuguese) markdown is on the page"


@pytest.mark.parametrize("name", NAMES)
def test_grades_csv_has_a_row_per_student_and_assignment(graded, name):
    out, _, _ = graded
    with open(out / "grades.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {(r["student"], r["assignment"]) for r in rows} == {(s, name) for s in students(name)}
    assert not list(out.rglob("gradebook.db")), "no gradebook (with hidden tests) may land in the output"
    assert all(r["sandbox"] == "bubblewrap" for r in rows) or all(r["sandbox"].startswith("none") for r in rows)


def _visible_text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.mark.parametrize("name", NAMES)
def test_feedback_never_shows_hidden_tests(graded, name):
    out, _, _ = graded
    source = notebooks.read(course.solution_notebook(name))
    visible = "\n".join(regions.visible(c.source)[0] for c in source.cells)
    hidden = [line for line in assignment.load(name).hidden_lines(min_length=12) if line not in visible]
    assert hidden, f"{name}: expected hidden tests to look for"
    for student in students(name):
        page = out / "feedback" / student / f"{name}.html"
        assert page.is_file(), f"no feedback page {page}"
        text = _visible_text(page.read_text(encoding="utf-8"))
        assert "HIDDEN TESTS" not in text and "BEGIN SOLUTION" not in text
        shown = [line for line in hidden if line in text]
        assert not shown, f"{student}/{name} feedback shows hidden test lines: {shown[:2]}"


def test_one_grading_run_reads_the_solution_and_the_lesson_once(tampered):
    """Two submissions, one read of each notebook of the course (grading/assignment.py): every stage is handed the
    same Assignment."""
    _, results, opened = tampered
    assert len(results) == 2
    for path in (course.solution_notebook("01_tensors"), course.lesson_notebook("01_tensors")):
        assert opened.count(os.path.realpath(path)) == 1, f"{path.name} was opened {opened.count(os.path.realpath(path))} times"


def test_deleted_or_emptied_test_cells_are_restored(tampered):
    out, results, _ = tampered
    cells = _cells(out)[("tamperer", "01_tensors")]
    assert cells["make-grid-tests"] == (0.0, 2.0), "an emptied test cell must be replaced by the real one"
    assert cells["flatten-images-tests"] == (0.0, 2.0), "a deleted test cell must be restored and run"
    assert results[("tamperer", "01_tensors")].score == 6
    flags = " ".join(results[("tamperer", "01_tensors")].flags)
    assert "edited a locked test cell" in flags and "deleted a graded cell" in flags, flags
