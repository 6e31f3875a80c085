"""Every CSV file the course writes (core/csv_safe.py): what a student or a roster puts in a field never becomes a
formula, never moves a column, never breaks the file, and reads back as it was; ids stay quoted text.

Fast: no notebook runs. The files of a graded class (grades.csv, cells.csv, the similarity lists, nbgrader's export
through the course's settings) are checked again on a real class in tests/test_exchange_fuzz.py.
"""

from __future__ import annotations

import csv

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.core import csv_safe

HOSTILE = ["=HYPERLINK(\"http://127.0.0.1/?\"&A1,\"x\")", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "\uff1d1+1",
           "'=1+1", "''=1", "Lee, Ann", "two\nlines", 'say "hi"', "0012", "1e5", "TRUE", "2027-01-10", "3-4",
           "x\ud800y", "nul\x00byte", "", " =1"]


def _raw_rows(path) -> list[str]:
    return path.read_bytes().decode("utf-8").split("\r\n")


def test_no_field_starts_a_formula_and_each_stays_in_its_column(tmp_path):
    csv_safe.write(tmp_path / "x.csv", ["id", "name", "score"], [[value, value, 1.5] for value in HOSTILE])
    with open(tmp_path / "x.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["id", "name", "score"] and len(rows) == len(HOSTILE) + 1
    for row in rows[1:]:
        assert len(row) == 3 and row[2] == "1.5", row
        assert not row[0].startswith(csv_safe.FORMULA_START), row
    by_value = dict(zip(HOSTILE, rows[1:]))
    assert by_value["=HYPERLINK(\"http://127.0.0.1/?\"&A1,\"x\")"][0].startswith("'=")
    assert by_value["Lee, Ann"][1] == "Lee, Ann" and by_value["two\nlines"][1] == "two\nlines"
    assert by_value["'=1+1"][0] == "''=1+1", "a quote before a formula gets one more: it reads back as it was"
    assert by_value["x\ud800y"][0] == "x\\ud800y" and by_value["nul\x00byte"][0] == "nul\\x00byte"


def test_text_is_always_quoted_and_numbers_never_so_ids_stay_text(tmp_path):
    csv_safe.write(tmp_path / "x.csv", ["student", "score", "max", "when"], [["0012", 2.0, 3, None], ["1e5", 0.25, 3, "TRUE"]])
    lines = _raw_rows(tmp_path / "x.csv")
    assert lines[:3] == ['"student","score","max","when"', '"0012",2,3,', '"1e5",0.25,3,"TRUE"']
    assert lines[3] == "", "every row ends with CRLF"


def test_what_is_written_reads_back_as_it_was(tmp_path):
    readable = [v for v in HOSTILE if v.isprintable() or "\n" in v or "\t" in v or "\r" in v]
    readable = [v for v in readable if "\ud800" not in v and "\x00" not in v]
    csv_safe.write(tmp_path / "x.csv", ["a"], [[v] for v in readable])
    assert [row["a"] for row in csv_safe.read(tmp_path / "x.csv")] == readable


def test_a_file_is_written_whole_or_not_at_all(tmp_path):
    target = tmp_path / "grades.csv"
    csv_safe.write(target, ["a"], [["kept"]])

    def rows():
        yield ["one"]
        raise RuntimeError("stopped half way")

    with pytest.raises(RuntimeError):
        csv_safe.write(target, ["a"], rows())
    assert csv_safe.read(target) == [{"a": "kept"}] and [p.name for p in tmp_path.iterdir()] == ["grades.csv"]


class _Gradebook:
    """What the export plugin reads of nbgrader's Gradebook (the real one, through `nbgrader export`, is in
    tests/test_exchange_fuzz.py: opening one costs seconds)."""

    def __init__(self, roster: dict[str, tuple[str, str, str]], handed_in: dict[str, float]):
        from types import SimpleNamespace as Row

        self.assignments = [Row(name="00_setup", duedate=None, max_score=3.0)]
        self.students = [Row(id=sid, first_name=first, last_name=last, email=email)
                         for sid, (first, last, email) in roster.items()]
        self._handed_in = {sid: Row(timestamp="2027-01-10 10:00:00", score=score, late_submission_penalty=None)
                           for sid, score in handed_in.items()}

    def find_submission(self, assignment: str, student: str):
        from nbgrader.api import MissingEntry

        if student not in self._handed_in:
            raise MissingEntry()
        return self._handed_in[student]


def test_nbgrader_export_through_the_course_plugin_quotes_a_hostile_roster(tmp_path):
    """`nbgrader export`'s plugin (routed by core/settings.py): the same columns as nbgrader's own, roster names and
    e-mails that would be formulas or split columns written safely, scores as numbers."""
    from traitlets.config import Config

    from autograder.classroom.nbgrader_export import COLUMNS, SafeCsvExport
    from autograder.core.settings import configure

    config = Config()
    configure(config, source="s", release="r")
    assert config.ExportApp.plugin_class == "autograder.classroom.nbgrader_export.SafeCsvExport"
    roster = {"0012": ("=HYPERLINK(\"http://127.0.0.1\",\"x\")", "Lee, Ann", "-2+3@evil.example"),
              "1e5": ("@SUM(1)", "O'Brien\n=1", "+x@example.org"), "TRUE": ("", "", "")}
    SafeCsvExport(to=str(tmp_path / "export.csv")).export(_Gradebook(roster, {"0012": 2.5, "1e5": 3.0}))
    with open(tmp_path / "export.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == COLUMNS
    by_id = {row["student_id"]: row for row in rows}
    assert set(by_id) == set(roster), "ids exactly as they are: 0012, 1e5, TRUE"
    assert by_id["0012"]["first_name"].startswith("'=") and by_id["0012"]["last_name"] == "Lee, Ann"
    assert by_id["0012"]["email"] == "'-2+3@evil.example" and by_id["1e5"]["email"] == "'+x@example.org"
    assert by_id["1e5"]["first_name"] == "'@SUM(1)" and by_id["1e5"]["last_name"] == "O'Brien\n=1"
    assert float(by_id["0012"]["score"]) == 2.5 and by_id["0012"]["timestamp"] == "2027-01-10 10:00:00"
    assert float(by_id["TRUE"]["score"]) == 0 and by_id["TRUE"]["timestamp"] == "", "nothing handed in: 0, as nbgrader's"
    raw = (tmp_path / "export.csv").read_bytes().decode("utf-8")
    assert '"0012",' in raw and ",2.5,0,2.5,3\r\n" in raw, "ids quoted, scores bare numbers"


@settings(max_examples=200, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(st.one_of(st.text(), st.integers(-10**6, 10**6), st.none()), min_size=3, max_size=3),
                     max_size=8))
def test_any_text_stays_in_its_column_starts_no_formula_and_reads_back(tmp_path, rows):
    """Fuzzed fields (hypothesis's text includes line breaks, quotes, commas, control characters, lone surrogates)."""
    csv_safe.write(tmp_path / "x.csv", ["a", "b", "c"], rows)
    with open(tmp_path / "x.csv", newline="", encoding="utf-8") as f:
        written = list(csv.reader(f))[1:]
    assert len(written) == len(rows) and all(len(row) == 3 for row in written)
    texts = [field for given_row, row in zip(rows, written) for value, field in zip(given_row, row) if isinstance(value, str)]
    assert not any(field.startswith(csv_safe.FORMULA_START) for field in texts), "a negative number may; text never"
    back = [list(row.values()) for row in csv_safe.read(tmp_path / "x.csv")]
    for given_row, read_row in zip(rows, back):
        for value, field in zip(given_row, read_row):
            if isinstance(value, str) and not any("\ud800" <= ch <= "\udfff" or ch == "\x00" for ch in value):
                assert field == value
            elif isinstance(value, int):
                assert int(field) == value
