"""Fuzzed submissions (hypothesis): whatever a student's editor, a merge tool or a hostile hand does to a notebook's
JSON, the submission ends graded or with a clear status and reason, the pages made of it show nothing active,
and the honest students graded beside it keep their scores and pages.

Two tests: many mutated notebooks through everything but the kernel (intake, compose, the copy Formgrader shows,
the feedback page), fast; and one class of honest students beside mutated ones through the real
``grade --gradebook`` and nbgrader's own API (what Formgrader's pages call), slow.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from autograder.classroom.formgrader_copy import inert_copy
from autograder.core.settings import GRADED, SUBMISSION_STATUSES
from autograder.grading import assignment, compose, feedback, intake, scoring
from autograder.grading.results import SubmissionResult
from hostile_html import markdown_payloads, svg_with_script
from submission_factory import student_copy
from test_inert import PNG, active

LESSON = "00_setup"
BASE = json.loads(nbformat.writes(student_copy(LESSON)))
TASK = assignment.load(LESSON)
GRADE_IDS = sorted(TASK.released)
# How many mutated submissions each test makes (the closing note of issue 34 quotes them).
CHEAP_EXAMPLES = 100
CLASS_MUTANTS = 8

junk = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**12), st.floats(allow_nan=True), st.text(max_size=40),
                 st.lists(st.one_of(st.text(max_size=8), st.integers()), max_size=3),
                 st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3))
hostile_text = st.sampled_from([p for _, p in markdown_payloads(9)])
outputs = st.lists(st.one_of(
    st.just({"output_type": "stream", "name": "stdout", "text": "fine\n"}),
    st.just({"output_type": "stream", "name": 5, "text": ["x"]}),
    st.builds(lambda h: {"output_type": "display_data", "metadata": {}, "data": {"text/html": h, "text/plain": "x"}}, hostile_text),
    st.just({"output_type": "display_data", "metadata": {}, "data": {"application/javascript": "top.__pwned=1"}}),
    st.just({"output_type": "display_data", "metadata": {}, "data": {"image/svg+xml": "<svg onload='top.__pwned=1'/>"}}),
    st.just({"output_type": "execute_result", "execution_count": "seven", "metadata": {}, "data": {}}),
    junk), max_size=3)
attachments = st.one_of(junk, st.dictionaries(
    st.one_of(st.sampled_from(["image.png", "shot.svg", '"><img src=x>.png']), st.text(max_size=10)),
    st.one_of(st.just({"image/png": PNG}), st.just({"image/svg+xml": svg_with_script(30, 9)}),
              st.just({"text/plain": "aGk="}), st.just({"image/png": "not base64 !!"}), junk), max_size=2))
nbgrader_meta = st.one_of(junk, st.fixed_dictionaries(
    {"grade_id": st.one_of(st.sampled_from(GRADE_IDS), st.text(max_size=20), junk)},
    optional={"grade": junk, "solution": junk, "locked": junk, "points": junk, "extra": junk}))
cell_index = st.integers(0, 40)
mutation = st.one_of(
    st.tuples(st.just("delete"), cell_index),
    st.tuples(st.just("duplicate"), cell_index),
    st.tuples(st.just("id"), cell_index, st.one_of(st.text(max_size=70), junk)),
    st.tuples(st.just("nbgrader"), cell_index, nbgrader_meta),
    st.tuples(st.just("metadata"), cell_index, junk),
    st.tuples(st.just("source"), cell_index, st.one_of(junk, hostile_text)),
    st.tuples(st.just("outputs"), cell_index, outputs),
    st.tuples(st.just("attachments"), cell_index, attachments),
    st.tuples(st.just("cell_type"), cell_index, st.sampled_from(["code", "markdown", "raw", "heading", "<b>evil</b>"])),
    st.tuples(st.just("extra key"), cell_index, st.text(min_size=1, max_size=10), junk),
    st.tuples(st.just("execution_count"), cell_index, junk),
    st.tuples(st.just("notebook metadata"), st.one_of(junk, st.builds(lambda h: {"kernelspec": {"display_name": h}}, hostile_text))),
    st.tuples(st.just("nbformat_minor"), st.integers(-1, 9)),
)
timestamps = st.one_of(st.none(), st.just("2027-01-10 10:00:00.000000 UTC"), st.just("2027-01-10T10:00:00+02:00"),
                       st.text(max_size=40))


def mutated(changes) -> dict:
    nb = copy.deepcopy(BASE)
    for change in changes:
        kind, cells = change[0], nb["cells"]
        if kind == "notebook metadata":
            nb["metadata"] = change[1]
            continue
        if kind == "nbformat_minor":
            nb["nbformat_minor"] = change[1]
            continue
        if not cells:
            continue
        i = change[1] % len(cells)
        cell = cells[i]
        if kind == "delete":
            del cells[i]
        elif kind == "duplicate":
            cells.insert(i, copy.deepcopy(cell))
        elif kind == "id":
            cell["id"] = change[2]
        elif kind == "nbgrader":
            cell.setdefault("metadata", {})["nbgrader"] = change[2] if isinstance(cell.get("metadata"), dict) else None
        elif kind in ("metadata", "source", "outputs", "attachments", "cell_type", "execution_count"):
            cell[kind] = change[2]
        elif kind == "extra key":
            cell[change[2]] = change[3]
    return nb


def hand_in(folder: Path, nb: dict, stamp: str | None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{LESSON}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    if stamp is not None:
        (folder / "timestamp.txt").write_text(stamp, encoding="utf-8")
    return folder


def _executed_like(plan, student_nb):
    """The composed notebook with the student's own outputs on the cells before the first test cell, as a kernel
    could have left them (the page shows those)."""
    executed = copy.deepcopy(plan.nb)
    first = min((slot.index for slot in plan.tests), default=len(executed.cells))
    for i in range(min(first, len(executed.cells), len(student_nb.cells))):
        if executed.cells[i].cell_type == "code" and student_nb.cells[i].cell_type == "code":
            executed.cells[i].outputs = copy.deepcopy(student_nb.cells[i].get("outputs", []))
    return executed


@pytest.mark.slow   # a feedback page per example: about half a second each
@settings(max_examples=CHEAP_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(changes=st.lists(mutation, min_size=1, max_size=6), stamp=timestamps)
def test_a_mutated_notebook_is_taken_in_or_refused_and_every_page_of_it_is_inert(tmp_path, changes, stamp):
    folder = hand_in(tmp_path / "student" / LESSON, mutated(changes), stamp)
    repairs: list[str] = []
    got = intake.read_submission(folder, TASK, repairs)
    when, problem = intake.read_timestamp(folder)
    assert (when is None) or problem is None
    if isinstance(got, intake.Refusal):
        event(f"refused: {got.status}: {got.reason[:90]}")
        assert got.status in SUBMISSION_STATUSES and got.reason and "<" not in got.reason
        return
    event("taken in, repaired" if repairs else "taken in as it was")
    nbformat.validate(got)
    assert all("<" not in r for r in repairs)
    shown = inert_copy(got, TASK)
    nbformat.validate(shown)
    assert not active("".join(c.source for c in shown.cells if c.cell_type == "markdown"))
    plan = compose.build(got, TASK)
    result = SubmissionResult("student", LESSON, GRADED, "", 0.0, scoring.blank(TASK.test_points, "cpu") + scoring.written(TASK.written))
    page = feedback.render_page(_executed_like(plan, got), plan, result, {}, TASK.hidden_lines())
    body = page.split("<body", 1)[1]
    assert not active(body), active(body)
    assert "<script" not in page.lower()


def _api_answers(course_root: Path) -> list[dict]:
    """nbgrader's API, as Formgrader's pages call it, for every student of the course in ``course_root``."""
    from test_classroom import nbgrader_api

    with nbgrader_api(course_root) as api:
        listed = api.get_submissions(LESSON)
        for row in listed:
            api.get_submission(LESSON, row["student"])
            api.get_student_submissions(row["student"])
        api.get_notebook_submissions(LESSON, LESSON)
        return listed


@pytest.mark.slow
@settings(max_examples=1, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(class_=st.lists(st.tuples(st.lists(mutation, min_size=1, max_size=5), timestamps),
                       min_size=CLASS_MUTANTS, max_size=CLASS_MUTANTS))
def test_a_class_with_mutated_notebooks_grades_records_and_shows_everyone(tmp_path, class_):
    from test_classroom import _instructor, _tests

    instructor = _instructor(tmp_path / "instructor", tmp_path / "exchange")
    submitted = instructor / "submitted"
    honest = ("honest-a", "honest-b")
    for name in honest:
        hand_in(submitted / name / LESSON, BASE, "2027-01-10 10:00:00.000000 UTC")
    for k, (changes, stamp) in enumerate(class_):
        hand_in(submitted / f"fuzz-{k}" / LESSON, mutated(changes), stamp)
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", "submitted", "--out", "graded", "--assignment",
                           LESSON, "--runner", "cpu", "--gradebook", "--course", "."], cwd=instructor,
                          env=dict(os.environ, JUPYTER_CONFIG_PATH=""), capture_output=True, text=True, timeout=1200)
    assert done.returncode in (0, 3), done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stdout + done.stderr
    with open(instructor / "graded" / "grades.csv", encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert len(rows) == len(honest) + CLASS_MUTANTS
    for student, row in rows.items():
        assert row["status"] in SUBMISSION_STATUSES
        assert row["status"] == GRADED or row["reason"], f"{student}: {row['status']} without a reason"
    full = sum(points for _, points in _tests())
    for name in honest:
        assert float(rows[name]["score"]) == full and not rows[name]["flags"]
        page = (instructor / "graded" / "feedback" / name / f"{LESSON}.html").read_text(encoding="utf-8")
        assert "Grader: 1 / 1 points" in page and not active(page.split("<body", 1)[1])
    listed = _api_answers(instructor)
    recorded = {r["student"] for r in listed if r["autograded"]}
    assert set(honest) <= recorded
    assert recorded == {s for s, r in rows.items() if r["status"] != "not recorded"}, "every graded row is in the gradebook"
