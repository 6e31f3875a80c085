"""Building student submissions from the course's own notebooks, for the grading tests."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import nbformat

from autograder.core import course, notebooks


def unix_socket_at(path: Path) -> socket.socket:
    """A listening-kind entry (a Unix socket) at ``path``, as a hostile student can leave one. bind() takes at most
    107 bytes of path, which a CI's deep temporary folder exceeds: the socket is bound by its name from its folder."""
    server = socket.socket(socket.AF_UNIX)
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        server.bind(path.name)
    finally:
        os.chdir(here)
    return server


def without_solution_markers(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if "BEGIN SOLUTION" not in line and "END SOLUTION" not in line)


def _answered(cell) -> bool:
    """A cell the student writes in: an exercise, or a written answer."""
    return notebooks.is_solution_cell(cell) or notebooks.is_manual_cell(cell)


def student_copy(name: str, leave_stub: str | None = None, replace: dict[str, str] | None = None,
                 drop: tuple[str, ...] = (), insert_before: dict[str, str] | None = None,
                 lesson: nbformat.NotebookNode | None = None) -> nbformat.NotebookNode:
    """The released lesson (or ``lesson``: an edition of it) with the solutions typed in, as a student would hand it in.

    ``leave_stub`` keeps one exercise unanswered; ``replace`` sets any cell's source by grade_id;
    ``drop`` deletes cells; ``insert_before`` adds a plain code cell before the named cell.
    """
    import copy

    answers = {notebooks.grading(c)["grade_id"]: without_solution_markers(c.source)
               for c in notebooks.read(course.solution_notebook(name)).cells if _answered(c)}
    nb = copy.deepcopy(lesson) if lesson is not None else notebooks.read(course.lesson_notebook(name))
    cells = []
    for cell in nb.cells:
        gid = notebooks.grading(cell).get("grade_id")
        if gid in drop:
            continue
        if gid in (insert_before or {}):
            cells.append(nbformat.v4.new_code_cell(insert_before[gid]))
        if _answered(cell) and gid != leave_stub:
            cell.source = answers[gid]
        if gid in (replace or {}):
            cell.source = replace[gid]
        cells.append(cell)
    nb.cells = cells
    return nb
