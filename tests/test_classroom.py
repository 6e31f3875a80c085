"""The instructor's nbgrader round trip (autograder/classroom): the gradebook, the exchange, export, feedback.

- one machine plays the whole course: a temporary exchange and course id, an instructor's course folder and two
  students with their own folders (and nbgrader caches). release -> fetch -> submit (one student late) ->
  collect -> ``grade --gradebook`` -> a written answer scored through nbgrader's API -> ``nbgrader export``;
  ``release_feedback`` -> ``fetch_feedback`` gives each student their own page only; grading one student again
  changes only their rows and keeps the instructor's manual score;
- recording the same results twice, or again after a crash half way, leaves the gradebook as one clean
  recording does (no notebook runs: fast).
"""

from __future__ import annotations

import contextlib
import csv
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from autograder.authoring.nbgrader_run import nbgrader
from autograder.classroom import gradebook, nbgrader_course
from autograder.core import course, notebooks
from autograder.core.settings import GRADED, NEEDS_MANUAL, PASSED
from autograder.grading.results import CellResult, SubmissionResult
from autograder.grading.sandbox import unavailable_reason
from submission_factory import student_copy

LESSON = "00_setup"   # the quickest lesson that has a written answer
COURSE_ID = "torch-101"


def _written_answers() -> list[tuple[str, float]]:
    nb = notebooks.read(course.solution_notebook(LESSON))
    return [(notebooks.grading(c)["grade_id"], float(notebooks.grading(c)["points"])) for c in nb.cells
            if notebooks.is_manual_cell(c)]


def _tests() -> list[tuple[str, float]]:
    nb = notebooks.read(course.solution_notebook(LESSON))
    return [(notebooks.grading(c)["grade_id"], float(notebooks.grading(c)["points"])) for c in notebooks.test_cells(nb)]


def _instructor(folder: Path, exchange: Path, penalty: str = "zero") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text(
        "from autograder.core.settings import configure\n"
        "c = get_config()\n"
        f"configure(c, source={str(course.SOLUTIONS)!r}, release={str(course.LESSONS)!r})\n"
        f"c.CourseDirectory.db_url = {'sqlite:///' + str(folder / 'gradebook.db')!r}\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.LateSubmissionPlugin.penalty_method = {penalty!r}\n", encoding="utf-8")
    return folder


def _student(folder: Path, exchange: Path, name: str) -> Path:
    """A student's own folder: the exchange and course id a JupyterHub admin would set, and a cache of their own
    (on a shared server each student has their own home; here they share one user, so it is set explicitly)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
        f"c.Exchange.cache = {str(folder / 'cache')!r}\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.CourseDirectory.student_id = {name!r}\n", encoding="utf-8")
    return folder


def _nbgrader(args: list[str], where: Path) -> str:
    # JUPYTER_CONFIG_PATH cleared: only the folder's own nbgrader_config.py speaks, never this checkout's set-ups
    result = nbgrader(args, where, timeout=300, extra_env={"JUPYTER_CONFIG_PATH": ""})
    assert result.returncode == 0, f"nbgrader {' '.join(args)} failed in {where}:\n{result.output[-3000:]}"
    return result.output


def _export(instructor: Path) -> dict[str, dict[str, str]]:
    _nbgrader(["export", "--to", "export.csv"], instructor)
    with open(instructor / "export.csv", newline="", encoding="utf-8") as f:
        return {row["student_id"]: row for row in csv.DictReader(f) if row["assignment"] == LESSON}


def _grade(instructor: Path, *extra: str, expect: int = 0) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "autograder", "grade", "submitted", "--out", "graded", "--assignment", LESSON,
               "--runner", "cpu", "--gradebook", "--course", ".", *extra]
    if unavailable_reason() is not None:
        command.append("--unsafe-no-sandbox")
    env = dict(os.environ, JUPYTER_CONFIG_PATH="")
    done = subprocess.run(command, cwd=instructor, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == expect, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def _manual_score(instructor: Path, student: str, cell: str, points: float, comment: str) -> None:
    """What the instructor does in Formgrader, through the same API Formgrader uses."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{instructor / 'gradebook.db'}", COURSE_ID) as gb:
        grade = gb.find_grade(cell, LESSON, LESSON, student)
        grade.manual_score = points
        gb.find_comment(cell, LESSON, LESSON, student).manual_comment = comment
        gb.db.commit()


def _grade_rows(instructor: Path) -> dict[tuple[str, str], tuple]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{instructor / 'gradebook.db'}", COURSE_ID) as gb:
        rows = {}
        for student in gb.students:
            for submission in gb.find_submission(LESSON, student.id).notebooks:
                for grade in submission.grades:
                    rows[student.id, grade.name] = (grade.auto_score, grade.manual_score, grade.needs_manual_grade)
                rows[student.id, "late penalty"] = submission.late_submission_penalty
        return rows


@pytest.mark.slow
def test_the_instructors_round_trip_through_the_exchange_gradebook_export_and_feedback(tmp_path):
    written = _written_answers()
    assert written, f"{LESSON} needs a written answer for this test"
    full = sum(points for _, points in _tests())
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    instructor = _instructor(tmp_path / "instructor", exchange)
    alice, bob = (_student(tmp_path / name, exchange, name) for name in ("alice", "bob"))

    # Hand out, and work: each student fetches the lesson and answers it in their own folder.
    _nbgrader(["release_assignment", LESSON], instructor)
    for student in (alice, bob):
        _nbgrader(["fetch_assignment", LESSON], student)
        assert (student / LESSON / f"{LESSON}.ipynb").is_file()
        # each writes their own words in the written answer, so that each page is recognisably theirs
        own = {gid: f"{student.name.title()} answers in their own words." for gid, _ in written}
        # The release carries the Brazilian Portuguese edition beside the English lesson (issue 41). Bob takes the
        # course in Portuguese: he answers in the fetched pt_BR/00_setup.ipynb and leaves the English one as it came;
        # one assignment, one gradebook.
        edition = student / LESSON / "pt_BR" / f"{LESSON}.ipynb"
        assert notebooks.read(edition).metadata.get("language") == "pt_BR"
        lesson = notebooks.read(edition) if student is bob else None
        notebooks.write(student_copy(LESSON, replace=own, lesson=lesson),
                        edition if student is bob else student / LESSON / f"{LESSON}.ipynb")
    # Alice hands in on time; the due date passes; Bob hands in late.
    _nbgrader(["submit", LESSON], alice)
    time.sleep(1.5)
    due = datetime.now(timezone.utc)
    time.sleep(1.5)
    _nbgrader(["submit", LESSON], bob)
    _nbgrader(["db", "assignment", "add", LESSON, f"--duedate={due.strftime('%Y-%m-%d %H:%M:%S')} UTC"], instructor)

    # Collect and grade, straight into the gradebook.
    _nbgrader(["collect", LESSON], instructor)
    assert (instructor / "submitted" / "bob" / LESSON / "timestamp.txt").is_file()
    done = _grade(instructor)
    assert "2 submission(s) recorded" in done.stdout and "bob/00_setup: late penalty" in done.stdout, done.stdout

    exported = _export(instructor)
    assert float(exported["alice"]["raw_score"]) == full and float(exported["alice"]["late_submission_penalty"] or 0) == 0
    assert float(exported["bob"]["raw_score"]) == full, "the automatic scores reach the gradebook, whatever the edition"
    assert float(exported["bob"]["score"]) == 0, "nbgrader's 'zero' late penalty applies to the late submission"
    assert float(exported["alice"]["max_score"]) == full + sum(points for _, points in written)

    # The written answer, graded by hand (as in Formgrader): the export's total adds it.
    cell, points = written[0]
    rows = _grade_rows(instructor)
    assert rows["alice", cell] == (None, None, True), "a written answer waits for the instructor"
    _manual_score(instructor, "alice", cell, points, "Clear and to the point.")
    assert float(_export(instructor)["alice"]["score"]) == full + points

    # Formgrader's copy of each submission exists, without outputs.
    copy = notebooks.read(instructor / "autograded" / "alice" / LESSON / f"{LESSON}.ipynb")
    assert all(not c.get("outputs") for c in copy.cells if c.cell_type == "code")

    # Feedback: released, and each student fetches only their own page.
    _nbgrader(["release_feedback", LESSON], instructor)
    pages = {}
    for name, student in (("alice", alice), ("bob", bob)):
        _nbgrader(["fetch_feedback", LESSON], student)
        found = sorted((student / LESSON / "feedback").rglob("*.html"))
        assert len(found) == 1, f"{name} fetched {found}"
        pages[name] = found[0].read_text(encoding="utf-8")
        assert pages[name] == (instructor / "feedback" / name / LESSON / f"{LESSON}.html").read_text(encoding="utf-8")
    assert "Alice answers" in pages["alice"] and "Bob" not in pages["alice"]
    assert "your instructor grades it by hand" in pages["alice"], "the page says who grades the written answer"
    assert "Bob answers" in pages["bob"] and "Alice" not in pages["bob"]
    assert "seu professor a corrige à mão" in pages["bob"] and "grades it by hand" not in pages["bob"], \
        "Bob's page speaks his edition's language"

    # A re-grade of one student (after a hidden-test fix): only their rows move; the manual score stays.
    before = _grade_rows(instructor)
    _spoil_automatic_scores(instructor, "bob")
    _grade(instructor, "--student", "bob")
    after = _grade_rows(instructor)
    assert {k: v for k, v in after.items() if k[0] == "bob"} == {k: v for k, v in before.items() if k[0] == "bob"}, \
        "the re-grade wrote Bob's rows again"
    assert {k: v for k, v in after.items() if k[0] == "alice"} == {k: v for k, v in before.items() if k[0] == "alice"}
    assert after["alice", cell][1] == points


def _spoil_automatic_scores(instructor: Path, student: str) -> None:
    """Overwrite a student's automatic scores with -1, so that a re-grade that wrote nothing would show."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{instructor / 'gradebook.db'}", COURSE_ID) as gb:
        for grade in gb.find_submission_notebook(LESSON, LESSON, student).grades:
            if grade.auto_score is not None:
                grade.auto_score = -1.0
        gb.db.commit()


# --- recording twice, or after a crash: no notebook runs ---------------------------------------------------------

def _results(students: list[str]) -> list[SubmissionResult]:
    cells = [CellResult(gid, points if k % 2 == 0 else 0.0, points, PASSED if k % 2 == 0 else "failed")
             for k, (gid, points) in enumerate(_tests())]
    cells += [CellResult(gid, 0.0, points, NEEDS_MANUAL) for gid, points in _written_answers()]
    return [SubmissionResult(s, LESSON, GRADED, cells=[CellResult(**vars(c)) for c in cells]) for s in students]


def _submissions(folder: Path, students: list[str]) -> Path:
    for s in students:
        notebooks.write(notebooks.read(course.lesson_notebook(LESSON)), folder / s / LESSON / f"{LESSON}.ipynb")
    return folder


def test_recording_twice_or_after_a_crash_leaves_the_gradebook_as_one_clean_recording(tmp_path, monkeypatch):
    students = ["ann", "ben", "cat"]
    submissions = _submissions(tmp_path / "submitted", students)
    pages = tmp_path / "graded" / "feedback"
    clean = _instructor(tmp_path / "clean", tmp_path / "exchange")
    gradebook.record(_results(students), submissions, nbgrader_course.load(clean), pages)
    expected = _grade_rows(clean)
    assert len(expected) == len(students) * (len(_tests()) + len(_written_answers()) + 1)

    crashed = _instructor(tmp_path / "crashed", tmp_path / "exchange")
    nbc = nbgrader_course.load(crashed)
    real, calls = gradebook._write_autograded, []

    def crash_on_the_second(*args):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt("the grader was stopped")
        return real(*args)

    monkeypatch.setattr(gradebook, "_write_autograded", crash_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        gradebook.record(_results(students), submissions, nbc, pages)
    monkeypatch.setattr(gradebook, "_write_autograded", real)
    for _ in range(2):  # after the crash, and once more: the same rows
        gradebook.record(_results(students), submissions, nbc, pages)
        assert _grade_rows(crashed) == expected


def test_results_for_a_cell_the_gradebook_never_saw_are_refused_with_what_to_do(tmp_path):
    instructor = _instructor(tmp_path / "instructor", tmp_path / "exchange")
    nbc = nbgrader_course.load(instructor)
    submissions = _submissions(tmp_path / "submitted", ["ann"])
    gradebook.record(_results(["ann"]), submissions, nbc, tmp_path / "pages")
    renamed = _results(["ann"])
    renamed[0].cells[0].cell = "a-cell-the-gradebook-never-saw"
    with pytest.raises(SystemExit, match="no graded cell 'a-cell-the-gradebook-never-saw'"):
        gradebook.record(renamed, submissions, nbc, tmp_path / "pages")


def test_a_course_without_an_id_stops_before_grading(tmp_path, monkeypatch):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.course_id = ''\n", encoding="utf-8")
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", "")
    with pytest.raises(SystemExit, match="no nbgrader course id"):
        nbgrader_course.load(tmp_path)


def test_grading_results_read_back_from_the_csvs_are_the_same(tmp_path):
    """`gradebook OUT` records a merged folder from its CSVs: nothing may change on the way."""
    from autograder.grading.results import read_csvs, write_csvs

    results = _results(["=sum(A1)", "ann"])
    results[0].flags, results[0].reason = ["edited a locked test cell (x)"], "-1 stopped | odd"
    write_csvs(results, tmp_path)
    back = sorted(read_csvs(tmp_path), key=lambda r: r.student)
    assert [(r.student, r.reason, r.flags, r.cells, r.manual_points) for r in back] == \
           [(r.student, r.reason, r.flags, r.cells, r.manual_points) for r in sorted(results, key=lambda r: r.student)]
    with open(tmp_path / "grades.csv", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    assert float(row["manual_points"]) == sum(points for _, points in _written_answers())


def test_one_student_can_be_graded_again_alone(tmp_path):
    from autograder.grading import intake

    _submissions(tmp_path, ["ann", "ben"])
    assert intake.discover(tmp_path, None, ["ben"]) == (["ben"], [LESSON])
    with pytest.raises(SystemExit, match="no folder for student"):
        intake.discover(tmp_path, None, ["zed"])


def test_the_shared_server_set_up_shows_the_assignment_list_on_the_admins_exchange(tmp_path, monkeypatch):
    import json

    import courselab

    hub = courselab.settings_dir("hub")
    extensions = json.loads((hub / "jupyter_server_config.json").read_text())["ServerApp"]["jpserver_extensions"]
    assert extensions["nbgrader.server_extensions.assignment_list"] and not extensions["nbgrader.server_extensions.formgrader"]
    hidden = json.loads((hub / "labconfig" / "page_config.json").read_text())["disabledExtensions"]
    assert "@jupyter/nbgrader:assignment-list" not in hidden and hidden["@jupyter/nbgrader:formgrader"]
    # the laptop set-up stays as it was: no exchange panels
    laptop = json.loads((courselab.settings_dir("student") / "labconfig" / "page_config.json").read_text())
    assert laptop["disabledExtensions"]["@jupyter/nbgrader:assignment-list"]
    monkeypatch.setenv("COURSE_EXCHANGE", str(tmp_path / "exchange"))
    monkeypatch.setenv("COURSE_ID", "torch-202")
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(hub))
    (tmp_path / "nbgrader_config.py").write_text("", encoding="utf-8")
    nbc = nbgrader_course.load(tmp_path)
    assert nbc.course_id == "torch-202" and nbc.config.Exchange.root == str(tmp_path / "exchange")
    args = courselab.lab_arguments("hub", [], here=tmp_path)
    assert f"--ServerApp.root_dir={tmp_path}" in args, "a student on a server works in the folder they start from"


def test_a_shard_does_not_write_the_gradebook_alone(tmp_path):
    """Shards grade at once on many machines: the gradebook is written once, from the merged folder."""
    from autograder.cli import main

    with pytest.raises(SystemExit, match="merge them, then run python -m autograder gradebook"):
        main(["grade", str(tmp_path), "--shard", "0/2", "--gradebook"])


def test_hostile_exchange_files_are_neither_followed_nor_trusted(tmp_path):
    """timestamp.txt and submission_secret.txt come from the student's own submission folder: a link is never
    followed (the secret would be copied into the feedback folder) and a timestamp that is no time is recorded as
    on time, with a note; the scores are recorded all the same."""
    submissions = _submissions(tmp_path / "submitted", ["mallory"])
    folder = submissions / "mallory" / LESSON
    (folder / "timestamp.txt").write_text("=HYPERLINK(\"http://127.0.0.1\")", encoding="utf-8")
    (folder / "submission_secret.txt").symlink_to("/etc/passwd")
    pages = tmp_path / "graded" / "feedback"
    notebooks_page = pages / "mallory" / f"{LESSON}.html"
    notebooks_page.parent.mkdir(parents=True)
    notebooks_page.write_text("<html>page</html>", encoding="utf-8")
    nbc = nbgrader_course.load(_instructor(tmp_path / "instructor", tmp_path / "exchange"))
    done = gradebook.record(_results(["mallory"]), submissions, nbc, pages)
    assert done.submissions == 1 and done.no_exchange == [f"mallory/{LESSON}"] and done.feedback == 0
    assert any("is not a time" in note for note in done.notes)
    assert not (tmp_path / "instructor" / "feedback").exists(), "nothing of the link reached the feedback folder"
    assert (tmp_path / "instructor" / "autograded" / "mallory" / LESSON / f"{LESSON}.ipynb").is_file()


def test_formgrader_shows_a_students_markdown_without_running_it(tmp_path, monkeypatch):
    """The instructor set-up sanitises what Formgrader renders: a written answer is the student's own markdown."""
    import nbformat
    from nbconvert.exporters import HTMLExporter

    monkeypatch.setenv("COURSE_EXCHANGE", str(tmp_path))   # no exchange folder made in this checkout
    nbc = nbgrader_course.load(course.ROOT)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell('My answer <img src=x onerror="alert(1)"><script>alert(2)</script>')]
    page, _ = HTMLExporter(config=nbc.config).from_notebook_node(nb)
    assert "&lt;script&gt;alert(2)" in page and "&lt;img src=x onerror" in page, "shown as text"
    assert "<script>alert(2)" not in page and "<img src" not in page, "never as HTML"


# --- a class with the oddities ordinary students hand in: everyone graded, recorded and shown -------------------

# A 1x1 PNG, as JupyterLab stores a screenshot pasted into a markdown cell.
PASTED_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def odd_class(folder: Path) -> dict[str, str]:
    """Lesson 00 handed in by two honest students and four whose notebooks are odd in an everyday way; returns
    student -> what is odd about their submission."""
    import nbformat

    def hand_in(student: str, nb, stamp: str = "2027-01-10 10:00:00.000000 UTC") -> None:
        target = folder / student / LESSON
        notebooks.write(nb, target / f"{LESSON}.ipynb")
        (target / "timestamp.txt").write_text(stamp, encoding="utf-8")

    for honest in ("ann", "ben"):
        hand_in(honest, student_copy(LESSON))
    pasted = student_copy(LESSON)
    shot = nbformat.v4.new_markdown_cell("My screenshot of the error:\n\n![screenshot](attachment:image.png)")
    shot["attachments"] = {"image.png": {"image/png": PASTED_PNG}}
    pasted.cells.insert(3, shot)
    hand_in("paster", pasted)
    foreign = student_copy(LESSON)
    copied = nbformat.v4.new_code_cell("x = 1  # pasted from a classmate's notebook, grading metadata and all")
    copied.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True, "points": 2}   # no grade_id
    foreign.cells.insert(5, copied)
    hand_in("copier", foreign)
    hand_in("clock", student_copy(LESSON), stamp="submitted on time, honest!")
    renamed = student_copy(LESSON)
    renamed.cells[2].id = "my answer (v2)"
    hand_in("renamer", renamed)
    return {"paster": "a pasted image", "copier": "nbgrader metadata the release does not have",
            "clock": "a timestamp.txt that is not a time", "renamer": "a cell id the format forbids"}


@contextlib.contextmanager
def nbgrader_api(course_root: Path):
    """nbgrader's own API, as Formgrader's pages call it, on the course in ``course_root`` (read from there, as
    nbgrader's commands read it)."""
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.apps.baseapp import NbGrader
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    here = os.getcwd()
    os.chdir(course_root)
    try:
        app = NbGrader()
        app.initialize([])
        yield NbGraderAPI(CourseDirectory(parent=app), Authenticator(parent=app), parent=app)
    finally:
        os.chdir(here)


@pytest.mark.slow
def test_one_students_odd_notebook_costs_the_class_nothing(tmp_path):
    """Each oddity is repaired at intake and flagged; every student is graded and recorded; nbgrader's own API (what
    Formgrader's pages call) answers for the class; the paster's feedback page shows the pasted image."""
    from nbgrader.api import Gradebook

    instructor = _instructor(tmp_path / "instructor", tmp_path / "exchange")
    odd_class(instructor / "submitted")
    done = _grade(instructor)
    assert "6 submission(s) recorded" in done.stdout, done.stdout
    rows = {r["student"]: r for r in csv.DictReader(open(instructor / "graded" / "grades.csv", encoding="utf-8"))}
    full = sum(points for _, points in _tests())
    assert all(float(r["score"]) == full and r["status"] == GRADED for r in rows.values()), rows
    assert not rows["ann"]["flags"] and not rows["ben"]["flags"]
    assert "nbgrader metadata removed" in rows["copier"]["flags"]
    assert "timestamp.txt is not a time" in rows["clock"]["flags"]
    assert "cell id(s)" in rows["renamer"]["flags"]
    for student in ("copier", "clock", "renamer"):   # a pasted image is kept as it is: nothing to repair
        assert f"? {student} / {LESSON}" in done.stdout, f"the summary names {student}'s repair"
    # The paster's page shows the screenshot, inline; the graded copy Formgrader shows keeps it as an image too.
    page = (instructor / "graded" / "feedback" / "paster" / f"{LESSON}.html").read_text(encoding="utf-8")
    assert f'src="data:image/png;base64,{PASTED_PNG}"' in page and "could not be rendered" not in rows["paster"]["reason"]
    shown = notebooks.read(instructor / "autograded" / "paster" / LESSON / f"{LESSON}.ipynb")
    assert any(f"data:image/png;base64,{PASTED_PNG}" in c.source for c in shown.cells)
    # The timestamp: nbgrader reads a time everywhere; the student's text is kept beside it.
    clock = instructor / "submitted" / "clock" / LESSON
    assert (clock / "timestamp.txt.not-a-time").read_text(encoding="utf-8") == "submitted on time, honest!"
    with Gradebook(f"sqlite:///{instructor / 'gradebook.db'}", COURSE_ID) as gb:
        assert sorted(s.id for s in gb.students) == sorted(rows)
        assert gb.find_submission(LESSON, "clock").timestamp is not None
    # nbgrader's API, as Formgrader's pages call it, answers for every student.
    with nbgrader_api(instructor) as api:
        listed = api.get_submissions(LESSON)
        assert sorted(s["student"] for s in listed) == sorted(rows) and all(s["autograded"] for s in listed)
        for student in rows:
            assert api.get_submission(LESSON, student)["autograded"]
            assert api.get_student_submissions(student)
        assert len(api.get_notebook_submissions(LESSON, LESSON)) == len(rows)
        assert api.get_student_notebook_submissions("renamer", LESSON)


def test_collect_takes_only_names_a_person_could_have_written_and_everyone_else(tmp_path):
    """On a shared exchange the students name their inbound folders: one unreadable or hostile name stops nbgrader's
    own collect for the whole class; the course's collect leaves it in the exchange, says so, and collects the rest."""
    exchange = tmp_path / "exchange"
    instructor = _instructor(tmp_path / "instructor", exchange)
    inbound = exchange / COURSE_ID / "inbound"
    names = {"alice+00_setup+2027-01-10 10:00:00.000000 UTC+a1": "alice's",
             "bob+00_setup+2027-01-11 09:00:00.000000 UTC+b1": "bob's only readable one",
             "bob+00_setup+not a time at all+b2": "bob's unreadable one",
             'x"><img src=x onerror=alert(1)>+00_setup+2027-01-10 10:00:00.000000 UTC+c1': "a hostile id"}
    for name, words in names.items():
        nb = notebooks.read(course.lesson_notebook(LESSON))
        nb.cells[0].source = words
        notebooks.write(nb, inbound / name / f"{LESSON}.ipynb")
        (inbound / name / "timestamp.txt").write_text(name.split("+")[2], encoding="utf-8")
    output = _nbgrader(["collect", LESSON], instructor)
    submitted = instructor / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == ["alice", "bob"]
    assert notebooks.read(submitted / "bob" / LESSON / f"{LESSON}.ipynb").cells[0].source == "bob's only readable one"
    assert output.count("Not collected") == 2 and "is not a student id" in output and "its time is not a time" in output
    assert "<img" not in output, "the hostile name is quoted safely"


@pytest.mark.slow
def test_nbgraders_own_autograde_grades_through_the_course_grader(tmp_path):
    """`nbgrader autograde` (what Formgrader's button and `make nbgrader ARGS=autograde` run) gives the score
    `grade --gradebook` gives: a written-in CPU device loses its point; nothing of the student's runs outside the
    box (a notebook that writes outside its folder leaves no file); a folder that is no student id gets no row."""
    from nbgrader.api import Gradebook

    instructor = _instructor(tmp_path / "instructor", tmp_path / "exchange")
    outside = tmp_path / "written-by-a-submission.txt"
    device_written = {"choose-device": 'import torch\n\ndef choose_device():\n    return torch.device("cpu")\n'}
    escape = (f"from pathlib import Path\nfor p in [{str(outside)!r}, '../../escaped.txt', '/tmp/escaped-autograde.txt']:\n"
              "    try:\n        Path(p).write_text('out')\n    except OSError:\n        pass\n")
    handed_in = {"cpu-only": student_copy(LESSON, replace=device_written),
                 "escaper": student_copy(LESSON, insert_before={"choose-device": escape}),
                 "bad<name>": student_copy(LESSON)}
    for student, nb in handed_in.items():
        notebooks.write(nb, instructor / "submitted" / student / LESSON / f"{LESSON}.ipynb")
    _grade(instructor, expect=3)   # 3: a folder that is no student id asks the instructor to look
    expected = {s: _grade_rows(instructor)[s, "choose-device-tests"] for s in ("cpu-only", "escaper")}
    assert expected["cpu-only"][0] == 0 and expected["escaper"][0] == 1
    for student in ("cpu-only", "escaper"):
        _spoil_automatic_scores(instructor, student)
    result = nbgrader(["autograde", LESSON, "--force"], instructor, timeout=900, extra_env={"JUPYTER_CONFIG_PATH": ""})
    assert "Grading with the course's grader" in result.output, result.output[-3000:]
    assert "No student with ID 'bad<name>'" in result.output, "nbgrader itself refuses the folder: no row for it"
    rows = _grade_rows(instructor)
    assert {s: rows[s, "choose-device-tests"] for s in expected} == expected, "the same scores as grade --gradebook"
    with Gradebook(f"sqlite:///{instructor / 'gradebook.db'}", COURSE_ID) as gb:
        assert sorted(s.id for s in gb.students) == ["cpu-only", "escaper"]
    assert not outside.exists() and not (instructor / "escaped.txt").exists()
    shown = notebooks.read(instructor / "autograded" / "cpu-only" / LESSON / f"{LESSON}.ipynb")
    assert all(not c.get("outputs") for c in shown.cells if c.cell_type == "code"), "nbgrader wrote the grader's copy"


def test_a_submission_that_cannot_be_recorded_is_named_and_the_rest_are_recorded(tmp_path, monkeypatch):
    students = ["ann", "ben", "cat"]
    submissions = _submissions(tmp_path / "submitted", students)
    nbc = nbgrader_course.load(_instructor(tmp_path / "instructor", tmp_path / "exchange"))
    real = gradebook._formgrader_copy

    def fails_for_ben(nbc_, result, submitted, task):
        if result.student == "ben":
            raise KeyError("grade_id")   # what nbgrader's OverwriteCells raised on an odd notebook
        return real(nbc_, result, submitted, task)

    monkeypatch.setattr(gradebook, "_formgrader_copy", fails_for_ben)
    results = _results(students)
    done = gradebook.record(results, submissions, nbc, tmp_path / "pages")
    assert done.submissions == 2 and done.failed == ["ben/00_setup: KeyError while writing it into the gradebook"]
    ben = next(r for r in results if r.student == "ben")
    assert ben.status == "not recorded" and "grade this student again" in ben.reason
    assert "NOT RECORDED: ben" in done.summary(nbc)
    with_rows = {student for student, _ in _grade_rows(tmp_path / "instructor")}
    assert with_rows == {"ann", "cat"}
    from autograder.cli import _exit_code

    assert _exit_code(results) == 3
