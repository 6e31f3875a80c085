"""The hostile zoo (tests/hostile_zoo.py), graded in one run beside correct submissions.

Every submission must end with a CSV row, the expected score and the expected reason or flag; the
correct ones keep full marks and no flag; the run leaves no process, no connection and no change to
the originals behind; feedback pages run no script and show no hidden test; CSV fields cannot start
a spreadsheet formula.
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
import socket
import threading
from pathlib import Path

import psutil
import pytest

from autograder.grading import assignment
from autograder.core import notebooks
from autograder.core.settings import NOT_A_STUDENT
from autograder.scale.grade import grade
from autograder.grading.sandbox import Limits, unavailable_reason
from hostile_zoo import ENCODED_LEAKS, ENV_MARK, EXTRA_FILES, NAME, PROC_MARK, SLEEPER_TAG, SYMLINKS, zoo

pytestmark = [pytest.mark.slow, pytest.mark.skipif(unavailable_reason() is not None,
                                                   reason=f"needs the sandbox: {unavailable_reason()}")]


@pytest.fixture(scope="module")
def listener():
    """A TCP listener on the host's 127.0.0.1, outside the sandbox, that counts connections."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    accepted, stop = [], threading.Event()

    def serve():
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join(timeout=2)
    server.close()


def write_submissions(folder: Path, entries: dict[str, object]) -> None:
    for student, nb in entries.items():
        path = folder / student / NAME / f"{NAME}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(nb, str):
            path.write_text(nb, encoding="utf-8")
        else:
            notebooks.write(nb, path)


def page_text(out: Path, student: str) -> str:
    page = (out / "feedback" / student / f"{NAME}.html").read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.fixture(scope="module")
def zoo_run(tmp_path_factory, listener):
    port, accepted = listener
    folder, out = tmp_path_factory.mktemp("zoo"), tmp_path_factory.mktemp("zoo-graded")
    canary = folder / "correct" / NAME / "do-not-delete.txt"
    entries = zoo(port, str(canary), str(out / "feedback"), str(folder / "correct" / NAME))
    write_submissions(folder, {student: nb for student, (nb, _) in entries.items()})
    for student, files in EXTRA_FILES.items():
        for relative, content in files.items():
            target = folder / student / NAME / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
    canary.write_text("the grader must keep this file\n", encoding="utf-8")
    for student, target in SYMLINKS.items():
        (folder / student / NAME).mkdir(parents=True)
        os.symlink(target(), folder / student / NAME / f"{NAME}.ipynb")
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and not p.is_symlink()}
    # 1 GB of memory (lesson 01's kernel needs about 250 MB): the memory hog must reach the limit well inside the
    # per-cell limit even on a busy machine. It is a data limit, so the hog's allocation past 1 GB fails at once: its
    # whole submission, kernel start included, took 4.2 s here (alone, 10 s per cell). 10 s per cell is also ten times
    # lesson 01's slowest cell (about 1 s alone). The two submissions that run into the limit (a loop, one that
    # ignores the interrupt) burn a core for as long as it allows, so a longer one would only cost the suite time.
    results = grade(folder, out, limits=Limits(wall_s=300, cell_s=10, memory_mb=1024), jobs=2, runner="cpu")
    return {r.student: r for r in results}, {s: e for s, (_, e) in entries.items()}, out, folder, before, accepted


def _said(result) -> str:
    return f"{result.status} {result.reason} {' '.join(result.flags)}"


def test_every_submission_gets_its_expected_score_status_and_words(zoo_run):
    results, expected, *_ = zoo_run
    problems = []
    for student, expect in expected.items():
        r = results[student]
        if expect.score is not None and r.score != expect.score:
            problems.append(f"{student}: score {r.score:g}, expected {expect.score:g} ({_said(r)})")
        for words in expect.words:
            if words not in _said(r):
                problems.append(f"{student}: expected {words!r} in {_said(r)!r}")
        if expect.status and r.status != expect.status:
            problems.append(f"{student}: status {r.status}, expected {expect.status} ({r.reason})")
        if expect.no_flags and r.flags:
            problems.append(f"{student}: unexpected flags {r.flags}")
    assert not problems, "\n".join(problems)


def test_links_are_refused_without_quoting_their_target(zoo_run):
    results, _, out, *_ = zoo_run
    for student in SYMLINKS:
        r = results[student]
        assert r.status == "invalid notebook" and r.score == 0 and "symbolic link" in r.reason, _said(r)
        assert "root:" not in _said(r) and "root:" not in (out / "grades.csv").read_text(encoding="utf-8")
        assert "root:" not in page_text(out, student)


def test_hidden_tests_never_reach_a_feedback_page(zoo_run):
    _, _, out, *_ = zoo_run
    hidden = assignment.load(NAME).hidden_lines()
    text = page_text(out, "reads-hidden-tests")
    assert "Outputs below are not shown" in text, "what the kernel printed once hidden tests ran never reaches the page"
    shown = [line for line in hidden if line in text]
    assert not shown, f"hidden test lines in the feedback: {shown[:3]}"
    assert "before_test" not in text and "coursekit.hidden" not in text, "the grader's own lines must not show"


def _decodings(text: str) -> list[str]:
    """``text`` and every reading of it a student could have used to smuggle source out: base64 and hex runs decoded,
    the whole text reversed."""
    import base64
    import binascii

    found = [text, text[::-1]]
    for run in re.findall(r"[A-Za-z0-9+/=]{16,}", text):
        for candidate in (run, run.rstrip("=")):
            try:
                found.append(base64.b64decode(candidate + "=" * (-len(candidate) % 4)).decode("utf-8", "ignore"))
                break
            except (binascii.Error, ValueError):
                continue
    for run in re.findall(r"(?:[0-9a-fA-F]{2}){8,}", text):
        found.append(bytes.fromhex(run).decode("utf-8", "ignore"))
    return found


def test_hidden_tests_reach_no_page_in_any_encoding(zoo_run):
    results, _, out, *_ = zoo_run
    hidden = [line for line in assignment.load(NAME).hidden_lines(min_length=12)]
    assert hidden
    for student in _with_pages(results):
        page = out / "feedback" / student / f"{NAME}.html"
        raw = page.read_text(encoding="utf-8")
        for reading in _decodings(raw) + _decodings(page_text(out, student)):
            shown = [line for line in hidden if line in reading]
            assert not shown, f"{student}: hidden test lines on the feedback page (encoded): {shown[:2]}"
    for student in ENCODED_LEAKS:
        assert "Grader: 2 / 2 points" in page_text(out, student), "the leaking notebook is still graded normally"


def test_the_box_shows_no_other_process_no_grader_variable_and_no_other_folder(zoo_run):
    _, _, out, folder, *_ = zoo_run
    text = page_text(out, "looks-around")
    processes = int(re.search(re.escape(PROC_MARK) + r"\s*(\d+)", text).group(1))
    assert processes < 10, f"the kernel saw {processes} processes: the host's /proc is visible"
    names = set(json.loads(re.search(re.escape(ENV_MARK) + r"\s*(\[.*?\])", text).group(1)))
    allowed = {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "MPLBACKEND", "MPLCONFIGDIR", "OMP_NUM_THREADS",
               "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "PYTHONDONTWRITEBYTECODE", "PYTHONNOUSERSITE", "COURSEKIT_CACHE",
               "COURSEKIT_SKIP_COMPILE",
               "COURSEKIT_MNIST_DIR", "COURSEKIT_FASHION_MNIST_DIR", "AUTOGRADER_CHANNEL_FD", "JPY_SESSION_NAME", "PYTHONSAFEPATH",
               "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "PWD", "SHLVL", "_",
               # what ipykernel itself sets in its own process
               "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "GIT_PAGER", "PAGER", "TERM", "PYDEVD_USE_FRAME_EVAL",
               "JPY_PARENT_PID", "LC_CTYPE"}
    assert names <= allowed, f"grader variables reached the kernel: {sorted(names - allowed)}"
    assert "cannot reach" in text and not list(out.rglob("zoo-was-here.html"))
    assert not list(folder.rglob("zoo-was-here.html"))


def test_feedback_pages_run_no_script(zoo_run):
    _, _, out, *_ = zoo_run
    for page in (out / "feedback").rglob("*.html"):
        raw = page.read_text(encoding="utf-8")
        assert "Content-Security-Policy" in raw and "script-src" not in raw.split("Content-Security-Policy")[1][:200]
        lowered = raw.lower()
        assert "<script" not in lowered, f"{page}: a script element"
        assert not re.search(r"<[^>]+\son\w+\s*=", lowered), f"{page}: an event-handler attribute"
        assert not re.search(r"""(href|src)\s*=\s*["']?\s*javascript:""", lowered), f"{page}: a javascript: URL"
        assert "<iframe" not in lowered


def test_csv_fields_never_start_a_formula(zoo_run):
    _, _, out, *_ = zoo_run
    for name in ("grades.csv", "cells.csv"):
        with open(out / name, encoding="utf-8") as f:
            for row in csv.DictReader(f):
                for column, value in row.items():
                    assert not value.startswith(("=", "+", "-", "@", "\t", "\r")), f"{name} {column}: {value!r}"
    with open(out / "grades.csv", encoding="utf-8") as f:
        students = {row["student"] for row in csv.DictReader(f)}
    assert {"'=1+1", "'-h", "'--force", "[ab]", ".hidden"} <= students, "every folder gets a row, whatever its name"
    with open(out / "grades.csv", encoding="utf-8") as f:
        refused = {row["student"]: row for row in csv.DictReader(f) if row["status"] == NOT_A_STUDENT}
    assert set(refused) == {"'=1+1", "'-h", "'--force", "[ab]", ".hidden"}, "and says which are no student id"


def test_no_process_is_left_running(zoo_run):
    left = [p for p in psutil.process_iter(["cmdline"]) if SLEEPER_TAG in " ".join(p.info["cmdline"] or [])]
    assert not left, "processes started by a submission outlived its grading"


def test_the_originals_are_unchanged(zoo_run):
    *_, folder, before, _ = zoo_run
    after = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and not p.is_symlink()}
    assert after == before


def test_no_connection_left_the_sandbox(zoo_run):
    *_, accepted = zoo_run
    assert accepted == [], "a submission reached a listener outside its sandbox"


def _with_pages(results) -> list[str]:
    """The students who get a feedback page: all but the folders whose names are no student id (no page, no row in
    the gradebook: nobody to give it to)."""
    return [student for student, r in results.items() if r.status != NOT_A_STUDENT]


def test_huge_outputs_are_cut_and_every_student_has_feedback(zoo_run):
    results, _, out, *_ = zoo_run
    for student in _with_pages(results):
        assert (out / "feedback" / student / f"{NAME}.html").is_file(), student
    for student in set(results) - set(_with_pages(results)):
        assert not (out / "feedback" / student).exists(), student
    assert (out / "feedback" / "big-output" / f"{NAME}.html").stat().st_size < 5_000_000
