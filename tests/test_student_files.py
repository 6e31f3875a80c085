"""A student's files are data (core/student_files.py) and a notebook file is decoded within bounds
(core/notebooks.py ``from_bytes``, through grading/intake.py): each kind of entry a student can leave, one at a time.

Fast: no notebook runs and no nbgrader command. The same entries go through ``nbgrader collect``,
``grade --gradebook``, ``similarity`` and ``nbgrader export`` together, beside honest students, in
tests/test_exchange_fuzz.py.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from autograder.core import notebooks, student_files
from autograder.core.student_files import Refused, TreeLimits
from autograder.grading import assignment, intake
from submission_factory import student_copy, unix_socket_at

LESSON = "00_setup"
TASK = assignment.load(LESSON)
HONEST = nbformat.writes(student_copy(LESSON)).encode("utf-8")


@pytest.fixture
def odd_entries(tmp_path):
    """A folder holding one of each kind of entry a student can leave, and a file outside it that links point to."""
    outside = tmp_path / "outside.ipynb"
    outside.write_bytes(HONEST)
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "notebook.ipynb").write_bytes(HONEST)
    (folder / "sub").mkdir()
    (folder / "sub" / "data.csv").write_text("x\n", encoding="utf-8")
    (folder / "absolute-link").symlink_to(outside)
    (folder / "relative-link").symlink_to(os.path.relpath(outside, folder))
    (folder / "folder-link").symlink_to(tmp_path)
    (folder / "loop-a").symlink_to("loop-b")
    (folder / "loop-b").symlink_to("loop-a")
    (folder / "itself").symlink_to("itself")
    (folder / "zero").symlink_to("/dev/zero")
    os.mkfifo(folder / "pipe")
    server = unix_socket_at(folder / "socket")
    yield folder, outside
    server.close()


def test_only_regular_files_are_read_and_every_other_entry_is_named_by_its_kind(odd_entries):
    folder, _ = odd_entries
    assert student_files.read_in_submission(folder, "notebook.ipynb", 10**6) == HONEST
    expected = {"absolute-link": "a symbolic link", "relative-link": "a symbolic link", "folder-link": "a symbolic link",
                "loop-a": "a symbolic link", "itself": "a symbolic link", "zero": "a symbolic link",
                "pipe": "a named pipe (FIFO)", "socket": "a socket", "sub": "a folder"}
    for name, words in expected.items():
        with pytest.raises(Refused) as refused:
            student_files.read_in_submission(folder, name, 10**6)
        assert refused.value.reason == words, name
    with pytest.raises(Refused, match="over the limit of 1 KB"):
        student_files.read_in_submission(folder, "notebook.ipynb", 1024)
    with pytest.raises(Refused, match="symbolic link, not a folder"):
        student_files.read_in_submission(folder / "folder-link", "outside.ipynb", 10**6)
    assert (folder / "folder-link" / "student").is_dir(), "a real folder, reached through a student's link"
    with pytest.raises(Refused, match="symbolic link, not a folder"):
        student_files.read_in_submission(folder / "folder-link" / "student", "notebook.ipynb", 10**6)
    with pytest.raises(FileNotFoundError):
        student_files.read_in_submission(folder, "missing.ipynb", 10**6)


def test_a_link_or_a_pipe_put_in_place_after_the_check_is_still_never_read(odd_entries, monkeypatch):
    """The race: the entry is checked with lstat, then swapped before it is opened. O_NOFOLLOW refuses the link,
    O_NONBLOCK and fstat the pipe; neither blocks or is read."""
    folder, _ = odd_entries
    real_stat = os.stat
    regular = real_stat(folder / "notebook.ipynb", follow_symlinks=False)

    def checked_as_regular(path, *args, **kwargs):
        return regular if str(path) in ("absolute-link", "pipe") else real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", checked_as_regular)
    with pytest.raises(Refused, match="a symbolic link"):
        student_files.read_in_submission(folder, "absolute-link", 10**6)
    with pytest.raises(Refused, match="a named pipe"):
        student_files.read_in_submission(folder, "pipe", 10**6)


def test_a_file_the_grader_may_not_read_is_refused_with_that_reason(tmp_path, monkeypatch):
    (tmp_path / "locked.ipynb").write_bytes(HONEST)
    real_open = os.open

    def denied(path, flags, *args, **kwargs):
        if str(path) == "locked.ipynb":
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(Refused, match="permission denied"):
        student_files.read_in_submission(tmp_path, "locked.ipynb", 10**6)


def test_a_copy_holds_regular_files_and_folders_only_and_lists_the_rest(odd_entries, tmp_path):
    folder, outside = odd_entries
    copied = student_files.copy_tree(folder, tmp_path / "copy")
    found = sorted(str(p.relative_to(tmp_path / "copy")) for p in (tmp_path / "copy").rglob("*"))
    assert found == ["notebook.ipynb", "sub", "sub/data.csv"]
    assert all(not p.is_symlink() for p in (tmp_path / "copy").rglob("*"))
    assert dict(copied.left_out) == {"absolute-link": "a symbolic link", "relative-link": "a symbolic link",
                                     "folder-link": "a symbolic link", "loop-a": "a symbolic link",
                                     "loop-b": "a symbolic link", "itself": "a symbolic link", "zero": "a symbolic link",
                                     "pipe": "a named pipe (FIFO)", "socket": "a socket"}
    assert copied.files == 2 and outside.read_bytes() == HONEST


def test_a_copy_is_bounded_in_size_count_and_depth(tmp_path):
    folder = tmp_path / "student"
    deep = folder.joinpath(*["d"] * 4)
    deep.mkdir(parents=True)
    (deep / "deepest.txt").write_text("x", encoding="utf-8")
    (folder / "big.bin").write_bytes(b"0" * 3000)
    (folder / "small.txt").write_text("x", encoding="utf-8")
    copied = student_files.copy_tree(folder, tmp_path / "a", TreeLimits(file_bytes=2000, depth=2))
    assert dict(copied.left_out) == {"big.bin": "a file of 3 KB, over the limit of 2 KB", "d/d/d/": "a folder more than 2 levels deep"}
    with pytest.raises(Refused, match="more than 3 KB in all"):
        student_files.copy_tree(folder, tmp_path / "b", TreeLimits(total_bytes=3000))
    with pytest.raises(Refused, match="more than 3 files and folders"):
        student_files.copy_tree(folder, tmp_path / "c", TreeLimits(entries=3))
    with pytest.raises(Refused, match="not a folder"):
        (tmp_path / "linked").symlink_to(folder)
        student_files.copy_tree(tmp_path / "linked", tmp_path / "d")


# --- a notebook file that nobody vouches for -----------------------------------------------------------------

def _hand_in(tmp_path: Path, raw: bytes, name: str = "student") -> Path:
    folder = tmp_path / name / LESSON
    folder.mkdir(parents=True)
    (folder / f"{LESSON}.ipynb").write_bytes(raw)
    return folder


def _read(tmp_path: Path, raw: bytes):
    repairs: list[str] = []
    got = intake.read_submission(_hand_in(tmp_path, raw), TASK, repairs)
    return got, repairs


def _old_format(version: int) -> bytes:
    return nbformat.writes(nbformat.convert(student_copy(LESSON), version), version=version).encode("utf-8")


@pytest.mark.parametrize("raw, words", [
    (b"[" * 100_000 + b"]" * 100_000, "nested more than 64 levels deep"),
    (b'{"cells": [], "metadata": ' + b'{"a":' * 70 + b"1" + b"}" * 70 + b', "nbformat": 4}', "nested more than 64 levels deep"),
    (b"[" + b"[]," * 2_100_000 + b"[]]", "more than 2,000,000 lists and objects"),
    (HONEST.decode("utf-8").replace("Setup", "S\u00e9tup").encode("latin-1", "replace"), "not UTF-8 text"),
    (HONEST[: len(HONEST) // 2], "not valid JSON (line"),
    (json.dumps({**json.loads(HONEST), "nbformat": 5}).encode(), "nbformat 5, newer than this grader reads"),
    (json.dumps({"nbformat": 3, "worksheets": 7}).encode(), "nbformat 3 (an older Jupyter's format) and could not be upgraded"),
    (json.dumps({"cells": "none"}).encode(), "no notebook format version"),
], ids=["100000-deep", "70-deep-metadata", "millions-of-lists", "latin-1", "cut-short", "nbformat-5", "broken-nbformat-3",
        "no-version"])
def test_a_pathological_notebook_is_not_a_readable_notebook_with_a_reason_that_fits(tmp_path, raw, words):
    got, _ = _read(tmp_path, raw)
    assert isinstance(got, intake.Refusal) and got.status == "invalid notebook", got
    assert got.reason.startswith(f"{LESSON}.ipynb is not a readable notebook: ") and words in got.reason, got.reason
    assert "re-download" not in got.reason.lower()


def test_a_notebook_over_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    folder = _hand_in(tmp_path, b"")
    with open(folder / f"{LESSON}.ipynb", "wb") as f:
        f.truncate(intake.MAX_NOTEBOOK_MB * 2**20 + 1)   # sparse: nothing is written
    monkeypatch.setattr(student_files, "_read_all", lambda *a: pytest.fail("a file over the limit was read"))
    got = intake.read_submission(folder, TASK)
    assert isinstance(got, intake.Refusal) and "over the limit of 64 MB" in got.reason and "Clear Outputs" in got.reason


@pytest.mark.parametrize("raw, flag", [
    (b"\xef\xbb\xbf" + HONEST, None),
    (HONEST.decode("utf-8").encode("utf-16"), None),
    (_old_format(3), "upgraded from nbformat 3"),
    (HONEST.replace(b'"cells": [', b'"cells": [{"cell_type": "markdown", "metadata": {"\\udc80": 1}, '
                                   b'"source": "I wrote \\ud83d here"},', 1), "lone surrogates"),
], ids=["utf-8-bom", "utf-16", "nbformat-3", "lone-surrogates"])
def test_an_honest_notebook_in_an_odd_encoding_or_format_is_read_and_can_be_written(tmp_path, raw, flag):
    got, repairs = _read(tmp_path, raw)
    assert not isinstance(got, intake.Refusal), got
    assert [c for c in got.cells if notebooks.is_solution_cell(c)], "the answers are there"
    assert (flag is None and not repairs) or any(flag in r for r in repairs), repairs
    files, _ = intake.box_files(tmp_path / "student" / LESSON, LESSON, got)   # UnicodeEncodeError before the repair
    nbformat.validate(nbformat.reads(files[f"{LESSON}.ipynb"].decode("utf-8"), as_version=4))


def test_more_outputs_than_a_lesson_has_are_dropped_unread_not_the_student(tmp_path, monkeypatch):
    monkeypatch.setattr(intake, "MAX_OUTPUTS", 3)
    nb = student_copy(LESSON)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hi\n")]
    got, repairs = _read(tmp_path, nbformat.writes(nb).encode("utf-8"))
    assert not isinstance(got, intake.Refusal) and any("stored outputs were removed unread" in r for r in repairs)
    assert not any(c.get("outputs") for c in got.cells)


@pytest.mark.parametrize("make, words", [
    (lambda p: p.symlink_to("/dev/zero"), "is a symbolic link, not a notebook"),
    (lambda p: os.mkfifo(p), "is a named pipe (FIFO), not a notebook"),
    (lambda p: p.symlink_to(p.name), "is a symbolic link, not a notebook"),
    (lambda p: p.mkdir(), "is a folder, not a notebook"),
], ids=["link-to-dev-zero", "fifo", "link-loop", "folder"])
def test_a_notebook_that_is_no_regular_file_is_refused_by_its_kind(tmp_path, make, words):
    folder = tmp_path / "student" / LESSON
    folder.mkdir(parents=True)
    make(folder / f"{LESSON}.ipynb")
    got = intake.read_submission(folder, TASK)
    assert isinstance(got, intake.Refusal) and got.status == "invalid notebook" and words in got.reason, got


def test_a_student_entry_that_is_no_folder_gets_a_row_saying_what_it_is(tmp_path):
    (tmp_path / "ann" / LESSON).mkdir(parents=True)
    (tmp_path / "ann" / LESSON / f"{LESSON}.ipynb").write_bytes(HONEST)
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "linked").symlink_to(tmp_path / "ann")
    (tmp_path / "roster.csv").write_text("id\n", encoding="utf-8")
    students, assignments = intake.discover(tmp_path, None)
    assert students == ["ann", "linked", "pipe"] and assignments == [LESSON], "a plain file is no student"
    for student, words in (("pipe", "pipe is a named pipe (FIFO), not a folder"),
                           ("linked", "linked is a symbolic link, not a folder")):
        got = intake.read_submission(tmp_path / student / LESSON, TASK)
        assert isinstance(got, intake.Refusal) and words in got.reason, got
    assert intake.read_timestamp(tmp_path / "pipe" / LESSON) == (None, None)


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
              st.text(alphabet=st.characters(blacklist_categories=()), max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(alphabet=st.characters(blacklist_categories=()), max_size=8), inner, max_size=4)),
    max_leaves=40)
notebook_like = st.builds(
    lambda cells, version, extra: json.dumps({"cells": cells, "nbformat": version, "metadata": extra}).encode(),
    st.lists(st.one_of(json_values, st.fixed_dictionaries({"cell_type": st.sampled_from(["code", "markdown", "raw"]),
                                                           "source": json_values, "metadata": json_values})), max_size=5),
    st.one_of(st.sampled_from([2, 3, 4, 4, 4, 5]), json_values), json_values)
spliced = st.builds(lambda at, junk: HONEST[:at] + junk + HONEST[at + len(junk):],
                    st.integers(0, len(HONEST)), st.binary(min_size=1, max_size=8))

def _with_text(index: int, text: str, ascii_only: bool, bom: bytes) -> bytes:
    nb = json.loads(HONEST)
    nb["cells"][index % len(nb["cells"])]["source"] = text
    return bom + json.dumps(nb, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


any_text = st.text(alphabet=st.characters(blacklist_categories=()), max_size=30)
honest_with_text = st.builds(_with_text, st.integers(0, 100), any_text, st.booleans(), st.sampled_from([b"", b"\xef\xbb\xbf"]))
prefixed = st.builds(lambda bom, body: bom + body, st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b""]),
                     st.one_of(notebook_like, spliced))


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(raw=st.one_of(st.binary(max_size=200), notebook_like, spliced, prefixed))
def test_whatever_bytes_a_notebook_file_holds_intake_reads_or_refuses_it_in_words(tmp_path, raw):
    """Fuzzed bytes (random, JSON of every shape and version with any Unicode, the honest notebook with bytes spliced
    in, byte-order marks): read and writable, or refused with a reason; never an exception."""
    folder = tmp_path / "student" / LESSON
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{LESSON}.ipynb").write_bytes(raw)
    got = intake.read_submission(folder, TASK, [])
    if isinstance(got, intake.Refusal):
        event(f"refused: {got.reason[len(LESSON) + 7:60]}")
        assert got.status == "invalid notebook" and got.reason.startswith(f"{LESSON}.ipynb "), got
        return
    event("taken in")
    files, _ = intake.box_files(folder, LESSON, got)
    nbformat.validate(nbformat.reads(files[f"{LESSON}.ipynb"].decode("utf-8"), as_version=4))


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(raw=honest_with_text)
def test_any_text_in_an_honest_notebook_is_read_and_can_be_written(tmp_path, raw):
    """Any Unicode in a cell (lone surrogates as JSON escapes included), with or without a byte-order mark: the
    notebook is read and written whole; only bytes that are no UTF-8 at all (an encoded surrogate) are refused."""
    folder = tmp_path / "student" / LESSON
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{LESSON}.ipynb").write_bytes(raw)
    got = intake.read_submission(folder, TASK, [])
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        assert isinstance(got, intake.Refusal) and "not UTF-8 text" in got.reason
        return
    assert not isinstance(got, intake.Refusal), got
    files, _ = intake.box_files(folder, LESSON, got)
    assert files[f"{LESSON}.ipynb"].decode("utf-8")
