"""Every CSV file the course writes: grades.csv, cells.csv, the similarity lists, nbgrader's export.

A CSV file has no types: whatever opens it guesses them. A spreadsheet runs a field that starts with ``=``, ``+``,
``-`` or ``@`` (or a tab or carriage return before one) as a formula, and rewrites text that looks like a number,
a date or a truth value (``0012`` becomes 12, ``1e5`` 100000, ``TRUE`` a boolean, ``3-4`` a date). Ids, names,
e-mail addresses and reasons come from students and rosters, so the rules here hold for every file:

- text fields are always quoted, numbers never: a spreadsheet told to keep quoted fields as text (the instructor's
  guide says how) shows every id exactly as it was, and a comma or a line break in a name stays in its field;
- a text field that a spreadsheet would run (``FORMULA_START``, the full-width forms included) gets a leading
  ``'``, which spreadsheets show as text and ``read`` takes off again;
- text that is not valid Unicode (a lone surrogate, from a file name or a roster) is written escaped, never as an
  error halfway through the file; the file is written whole or not at all.
"""

from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path
from typing import Iterable, Sequence

# A field starting with one of these is a formula to some spreadsheet (the full-width forms: to some locales' input).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
QUOTE = "'"


def _runs(text: str) -> bool:
    """Whether a spreadsheet would run ``text``, or it would read as such once ``read`` took its quote off."""
    return text.startswith(FORMULA_START) or (text.startswith(QUOTE) and _runs(text[1:]))


def text(value: object) -> str:
    """``value`` as the text of a field: valid Unicode, and never a formula."""
    shown = str(value)
    if "\x00" in shown or any("\ud800" <= ch <= "\udfff" for ch in shown):
        shown = shown.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")
    return QUOTE + shown if _runs(shown) else shown


def original(field: str) -> str:
    """A text field as it was before ``text`` (the inverse, for files the course reads back)."""
    return field[1:] if field.startswith(QUOTE) and _runs(field[1:]) else field


def number(value: float) -> str:
    """A number as the files show it: integers without a decimal point, at most 10 significant digits."""
    return f"{value:.10g}"


def _field(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(value)
    return '"' + text(value).replace('"', '""') + '"'


def write(path: Path, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Write ``rows`` under ``columns`` to ``path``: ints and floats as numbers, None as an empty field, anything
    else as quoted text. The file appears whole (written beside it, then renamed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(",".join(_field(c) for c in columns) + "\r\n")
            for row in rows:
                f.write(",".join(_field(v) for v in row) + "\r\n")
        os.chmod(partial, 0o644)   # mkstemp's 0600 would hide the file from a course's teaching assistants
        os.replace(partial, path)
    except BaseException:
        os.unlink(partial)
        raise


def read(path: Path) -> list[dict[str, str]]:
    """The rows of a file ``write`` wrote, by column, each field as it was given (text without its quote)."""
    with open(path, newline="", encoding="utf-8") as f:
        return [{original(k): original(v or "") for k, v in row.items()} for row in csv.DictReader(f)]
