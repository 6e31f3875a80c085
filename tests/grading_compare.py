"""Comparing two graded classes: a sharded, merged or Slurm run against one serial grade."""

from __future__ import annotations

import contextlib
import csv
import io
import re
from pathlib import Path

from autograder.grading.results import TIMING_COLUMNS

ASSIGNMENTS = ("00_setup", "01_tensors")  # the two shortest lessons: a class grades in a minute or two


def quiet(fn, *args, **kwargs):
    """(return value, stdout) of ``fn``."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        value = fn(*args, **kwargs)
    return value, buffer.getvalue()


def summary_of(output: str) -> str:
    """The summary printed by grade or merge, without its times and output paths."""
    text = output[output.index("Graded "):output.index("\nWrote ")]
    text = re.sub(r" in \d+ s\.", " in N s.", text)
    return "\n".join(line for line in text.splitlines() if not line.startswith("  wall time per submission"))


def csv_without_timing(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    keep = [i for i, name in enumerate(rows[0]) if name not in TIMING_COLUMNS]
    return [[row[i] for i in keep] for row in rows]


def tree(folder: Path, addresses: bool = True) -> dict[str, bytes]:
    """Every file under ``folder``: its bytes. ``addresses=False`` blanks object addresses ('at 0x7f...'),
    which a notebook that prints an object's repr (lesson 02 prints ``y.grad_fn``) changes on every run."""
    files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    return files if addresses else {name: re.sub(rb"0x[0-9a-f]{6,16}", b"0x...", data) for name, data in files.items()}


def assert_same_class(merged: Path, serial: Path, addresses: bool = True) -> None:
    assert csv_without_timing(merged / "grades.csv") == csv_without_timing(serial / "grades.csv"), "grades.csv"
    assert (merged / "cells.csv").read_bytes() == (serial / "cells.csv").read_bytes(), "cells.csv"
    assert tree(merged / "feedback", addresses) == tree(serial / "feedback", addresses), "feedback pages"
    # byte for byte, the seconds field aside
    assert _without_seconds(merged / "grades.csv") == _without_seconds(serial / "grades.csv")


def _without_seconds(path: Path) -> bytes:
    """The file's bytes with the last field of each row (seconds) emptied."""
    return re.sub(rb",[0-9.]+\r\n", b",\r\n", path.read_bytes())

