"""A zoo of hostile or broken submissions, graded in one run beside a correct one.

Every submission must end with a CSV row and a reason; the correct one must keep full marks; the
run must end in bounded time and leave no process behind; the originals must stay untouched; and
grading with --jobs 2 must give the same CSV as --jobs 1.
"""

from __future__ import annotations

import csv
import socket
import threading
import time
from pathlib import Path

import psutil
import pytest

from autograder import course, notebooks
from autograder.grade import grade
from autograder.sandbox import Limits, namespaces_available
from submission_factory import student_copy

pytestmark = pytest.mark.slow

NAME = "01_tensors"
FULL = 10.0
# make_grid is exercise 1 (2 points). Hostile code goes at the top of its cell, above the answer, so a
# cell that is stopped or blocked costs exactly those 2 points (make_grid then stays undefined).
BEFORE = "make-grid"
MAKE_GRID = "def make_grid(rows, cols):\n    return torch.arange(rows * cols, dtype=torch.float32).reshape(rows, cols)\n"
SLEEPER_TAG = "autograder-zoo-sleeper"


def _zoo(listener_port: int, canary: Path) -> dict[str, object]:
    """student name -> notebook (or raw text for a broken file)."""
    hostile = {
        "loop": "while True:\n    pass\n",
        "loop-ignores-sigint": "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n",
        "memory-bomb": "bomb = bytearray(64 * 2**30)\n",
        # A hog keeps what it took, so later cells may fail too: only the reason is checked.
        "memory-hog": "hog = []\nwhile True:\n    hog.append(bytearray(200 * 2**20))\n",
        "os-exit": "import os\nos._exit(0)\n",
        "fork-bomb": (f"import subprocess\nkids = [subprocess.Popen(['sleep', '600', '{SLEEPER_TAG}']) for _ in range(100)]\n"
                      "print(len(kids), 'children started')\n"),
        "network": (f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {listener_port}), timeout=3)\n"
                    "    print('connected')\nexcept OSError as error:\n    print('no network:', error)\n"),
        "deletes-outside": (f"import os\ntry:\n    os.remove({str(canary)!r})\n    print('deleted')\n"
                            "except OSError as error:\n    print('could not delete:', error)\n"),
        "big-output": "print('x' * 50_000_000)\n",
    }
    zoo: dict[str, object] = {"correct": student_copy(NAME)}
    for student, code in hostile.items():
        zoo[student] = student_copy(NAME, replace={BEFORE: code + MAKE_GRID})
    zoo["segfault"] = student_copy(NAME, replace={BEFORE: "import ctypes\nctypes.string_at(0)\n"})
    zoo["tampered-tests"] = student_copy(NAME, replace={
        "make-grid": "def make_grid(rows, cols):\n    return torch.arange(rows * cols).reshape(rows, cols)\n",
        "make-grid-tests": "print('all good')"})
    zoo["deleted-test-cell"] = student_copy(NAME, replace={
        "make-grid": "def make_grid(rows, cols):\n    return torch.arange(rows * cols).reshape(rows, cols)\n"},
        drop=("make-grid-tests",))
    zoo["monkeypatch"] = student_copy(NAME, replace={
        "make-grid": ("import builtins\nimport coursekit.checks\n"
                      "for _name in ('check', 'check_close', 'check_dtype', 'check_shape'):\n"
                      "    setattr(coursekit.checks, _name, lambda *args, **kwargs: None)\n"
                      "def make_grid(rows, cols):\n    return torch.zeros(1)\n")})
    zoo["not-json"] = "{ this is not a notebook"
    return zoo


# student -> (expected score, words the reason or the flags must contain)
EXPECTED = {
    "correct": (FULL, ""),
    "loop": (FULL - 2, "time limit"),
    "loop-ignores-sigint": (FULL - 2, "time limit"),
    "memory-bomb": (FULL - 2, "memory"),
    "memory-hog": (None, "memory"),
    "os-exit": (FULL - 2, "os._exit"),
    "fork-bomb": (FULL, ""),
    "network": (FULL, "network connection attempt"),
    "deletes-outside": (FULL, "deleted or moved outside its folder"),
    "big-output": (FULL, ""),
    "segfault": (0.0, "crashed"),
    "tampered-tests": (FULL - 2, "edited a locked test cell"),
    "deleted-test-cell": (FULL - 2, "deleted a graded cell"),
    "monkeypatch": (None, "monkeypatches the course's helper package"),  # flagged; the score is not changed
    "not-json": (0.0, "could not be read as a notebook"),
}


@pytest.fixture(scope="module")
def listener():
    """A TCP listener on 127.0.0.1, outside the sandbox, that counts connections."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    accepted = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                accepted.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join(timeout=2)
    server.close()


def _write_zoo(folder: Path, zoo: dict[str, object]) -> None:
    for student, nb in zoo.items():
        path = folder / student / NAME / f"{NAME}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(nb, str):
            path.write_text(nb, encoding="utf-8")
        else:
            notebooks.write(nb, path)


def _sleepers() -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if SLEEPER_TAG in " ".join(proc.info["cmdline"] or []):
            found.append(proc)
    return found


@pytest.fixture(scope="module")
def zoo_run(tmp_path_factory, listener):
    port, accepted = listener
    folder = tmp_path_factory.mktemp("zoo")
    canary = folder / "correct" / NAME / "do-not-delete.txt"
    _write_zoo(folder, _zoo(port, canary))
    canary.write_text("the grader must keep this file\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    out = tmp_path_factory.mktemp("zoo-graded")
    limits = Limits(wall_s=240, cell_s=25)  # short limits keep the loops' cost down
    start = time.monotonic()
    results = grade(folder, out, limits=limits, jobs=2, runner="cpu")
    seconds = time.monotonic() - start
    return {r.student: r for r in results}, out, folder, before, accepted, seconds


def test_every_submission_gets_its_expected_score_and_reason(zoo_run):
    results, *_ = zoo_run
    problems = []
    for student, (score, words) in EXPECTED.items():
        r = results[student]
        said = f"{r.status} {r.reason} {' '.join(r.flags)}"
        if score is not None and r.score != score:
            problems.append(f"{student}: score {r.score:g}, expected {score:g} ({said})")
        if words and words not in said:
            problems.append(f"{student}: expected {words!r} in {said!r}")
    assert not problems, "\n".join(problems)


def test_the_correct_submission_is_untouched_by_its_neighbours(zoo_run):
    results, *_ = zoo_run
    assert results["correct"].status == "graded" and results["correct"].score == FULL and not results["correct"].flags


def test_no_process_is_left_running(zoo_run):
    assert not _sleepers(), "processes started by a submission outlived its grading"


def test_the_originals_are_unchanged(zoo_run):
    _, _, folder, before, *_ = zoo_run
    if not namespaces_available():
        pytest.skip("read-only re-mounts need root and unshare; the report says isolation was not applied")
    after = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before


def test_no_connection_left_the_sandbox(zoo_run):
    *_, accepted, _ = zoo_run
    if not namespaces_available():
        pytest.skip("network isolation needs root and unshare here")
    assert accepted == [], "a submission reached a listener outside its sandbox"


def test_the_run_is_bounded_and_every_student_has_feedback(zoo_run):
    results, out, _, _, _, seconds = zoo_run
    assert seconds < 900
    for student in EXPECTED:
        assert (out / "feedback" / student / f"{NAME}.html").is_file()
    big = out / "feedback" / "big-output" / f"{NAME}.html"
    assert big.stat().st_size < 5_000_000, "huge outputs must be cut in the feedback page"


def _csv_without_timing(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(f)]


def test_parallel_grading_matches_serial(tmp_path):
    folder = tmp_path / "subs"
    _write_zoo(folder, {"correct": student_copy(NAME), "blank": notebooks.read(course.lesson_notebook(NAME)),
                        "one-wrong": student_copy(NAME, leave_stub="make-grid")})
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    grade(folder, serial, jobs=1, runner="cpu")
    grade(folder, parallel, jobs=2, runner="cpu")
    assert _csv_without_timing(serial / "grades.csv") == _csv_without_timing(parallel / "grades.csv")
    assert (serial / "cells.csv").read_text() == (parallel / "cells.csv").read_text()
    for page in (serial / "feedback").rglob("*.html"):
        assert page.read_bytes() == (parallel / page.relative_to(serial)).read_bytes()
