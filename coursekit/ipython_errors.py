"""How errors from exercises look in a notebook: one line for an exercise not done yet, the message and
hint first for a failed check.

Only what IPython *shows* changes. The error itself (its type and message, the ``ename`` and ``evalue`` of
the cell's error output, from which nbgrader and the autograder decide pass or fail) stays exactly as raised,
``%tb`` still prints the full traceback, and outside IPython (plain Python, pytest) nothing changes at all.

- :class:`coursekit.checks.CheckFailed` renders through ``_render_traceback_`` (an IPython convention):
  the message, the hint, then the one line of the cell where the check failed.
- ``raise NotImplementedError()`` left in an exercise's solution cell is caught by an IPython custom
  exception handler, installed when coursekit is imported in IPython, which names the exercise (from the
  notebook's ``### Exercise k`` heading when the kernel knows its notebook) or the unfinished function.
  Any other ``NotImplementedError`` (one with a message, or from library code: PyTorch raises it for
  operations a device lacks) keeps its usual traceback.
- A DataLoader whose workers are fresh Pythons (``spawn``: Windows, macOS) and need a class or a function defined in
  the notebook says only that a worker "exited unexpectedly"; the same handler shows instead what happened and what
  to do (:func:`coursekit.workers.explain`). Every other error keeps its usual traceback.
"""

from __future__ import annotations

import json
import linecache
import os
import pickle
import re
import sys
import traceback
from pathlib import Path

from .i18n import gettext as _

RED, BOLD, DIM, RESET = "\x1b[31m", "\x1b[1m", "\x1b[2m", "\x1b[0m"
_HEADING = r"^#+\s*((?:{word})\s+\d+)\b[^\n:]*(?::\s*(.+))?"   # {word}: "Exercise", or the edition's word for it
_STUB = re.compile(r"^\s*raise\s+NotImplementedError\b")

__all__ = ["install", "render_check_failure", "not_done_message"]


def _shell():
    """The running IPython shell, or None (without importing IPython where it is not loaded)."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    return get() if get else None


def _cell_label(shell, filename: str) -> str | None:
    """'In[7]' when ``filename`` is a notebook cell the shell ran, else None."""
    try:
        named = shell.compile.format_code_name(filename)
    except Exception:  # noqa: BLE001 (an older or different shell: no label, the message still works)
        return None
    return named[1] if named else None


def _prompt(label: str) -> str:
    """IPython's 'In[7]' as JupyterLab's prompt shows it: '[7]'."""
    return label[2:] if label.startswith("In[") else label


def _cell_frames(shell, tb):
    """(frame, line number, label) for each frame of ``tb`` that runs in a notebook cell, outermost first."""
    found = []
    for frame, lineno in traceback.walk_tb(tb):
        label = _cell_label(shell, frame.f_code.co_filename) if shell is not None else None
        if label:
            found.append((frame, lineno, label))
    return found


def render_check_failure(error: BaseException) -> list[str]:
    """The lines IPython shows for a failed check: message, hint, then where in the cell it failed."""
    what = getattr(error, "what", None) or str(error)
    hint = getattr(error, "hint", None)
    lines = [f"{RED}{BOLD}✗ {_('Check failed:')}{RESET} {what}"]
    if hint:
        lines.append(f"{BOLD}{_('Hint:')}{RESET} {hint}")
    shell = _shell()
    cells = _cell_frames(shell, error.__traceback__)
    if cells:
        frame, lineno, label = cells[-1]
        code = linecache.getline(frame.f_code.co_filename, lineno).strip()
        where = _("(cell {cell}, line {line}: {code}; %tb shows the full traceback)").format(
            cell=_prompt(label), line=lineno, code=code)
        lines.append(f"{DIM}{where}{RESET}")
    return lines


def _exercise_heading(function: str | None, cell_source: str) -> str | None:
    """'Exercise 2 (`count_labels`)' from the notebook the kernel belongs to, or None.

    JupyterLab tells each kernel its notebook's path (``JPY_SESSION_NAME``); the cell is found by its
    source or by the function it defines, and the exercise by the nearest heading above it.
    """
    path = os.environ.get("JPY_SESSION_NAME", "")
    if not path.endswith(".ipynb") or not os.path.isfile(path):
        return None
    try:
        cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
        sources = ["".join(c.get("source", "")) if isinstance(c.get("source"), list) else c.get("source", "")
                   for c in cells]
    except Exception:  # noqa: BLE001 (an unreadable notebook only costs the exercise's number)
        return None
    wanted = cell_source.strip()
    index = next((i for i, (c, s) in enumerate(zip(cells, sources))
                  if c.get("cell_type") == "code" and wanted and s.strip() == wanted), None)
    if index is None and function:
        pattern = re.compile(rf"^\s*def\s+{re.escape(function)}\s*\(", re.MULTILINE)
        index = next((i for i, (c, s) in enumerate(zip(cells, sources))
                      if c.get("cell_type") == "code" and pattern.search(s)), None)
    if index is None:
        return None
    heading = re.compile(_HEADING.format(word="|".join(map(re.escape, {"Exercise", _("Exercise")}))), re.MULTILINE)
    for cell, source in zip(reversed(cells[:index]), reversed(sources[:index])):
        if cell.get("cell_type") == "markdown":
            match = heading.search(source)
            if match:
                title = (match.group(2) or "").strip()
                return f"{match.group(1)} ({title})" if title else match.group(1)
    return None


def not_done_message(shell, error: BaseException, tb) -> str | None:
    """The one line for a ``raise NotImplementedError()`` stub left in a notebook cell, or None when the
    error comes from elsewhere (library code, a line that is not such a stub, an error with a message)."""
    frames = list(traceback.walk_tb(tb))
    if not frames or str(error):
        return None
    frame, lineno = frames[-1]  # where it was raised
    filename = frame.f_code.co_filename
    label = _cell_label(shell, filename)
    if not label or not _STUB.match(linecache.getline(filename, lineno)):
        return None
    function = frame.f_code.co_name if frame.f_code.co_name != "<module>" else None
    exercise = _exercise_heading(function, "".join(linecache.getlines(filename)))
    running = _cell_frames(shell, tb)
    here = bool(running) and running[0][0].f_code.co_filename == filename
    what = exercise or (f"`{function}`" if function else _("this exercise"))
    if here:
        advice = _("{what}: replace `raise NotImplementedError()` in this cell with your code, and run it again.")
    else:
        advice = _("{what}: replace `raise NotImplementedError()` in cell {cell} with your code, run that cell, then "
                   "this one again.")
    return f"{RED}{BOLD}✗ {_('Not done yet:')}{RESET} " + advice.format(what=what, cell=_prompt(label))


def _worker_message(value: BaseException, tb) -> str | None:
    """The course's message for a DataLoader whose spawned workers needed the notebook's definitions, or None."""
    from .workers import explain   # imported here: torch loads only when a notebook's error needs it

    try:
        message = explain(value, tb)
    except Exception:  # noqa: BLE001 (the explanation is a courtesy: the error itself still shows)
        return None
    return f"{RED}{BOLD}✗ DataLoader workers:{RESET} {message}" if message else None


def _handle_error(shell, etype, value, tb, tb_offset=None):
    """IPython custom exception handler (see ``InteractiveShell.set_custom_exc``): a stub left in an exercise, or
    DataLoader workers that could not load the notebook's classes; every other error shows as usual."""
    if isinstance(value, NotImplementedError):
        message = not_done_message(shell, value, tb)
    else:
        message = _worker_message(value, tb)
    sys.last_type, sys.last_value, sys.last_traceback = etype, value, tb  # for %tb and %debug
    if sys.version_info >= (3, 12):
        sys.last_exc = value
    if message is None:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    else:
        shell._showtraceback(etype, value, [message])  # keeps ename/evalue: only the shown lines change
    return None


# The errors the handler looks at: a stub's NotImplementedError, and what a DataLoader raises when its spawned workers
# cannot load the notebook's classes (a worker "exited unexpectedly") or cannot pickle a lambda.
_HANDLED = (NotImplementedError, RuntimeError, pickle.PicklingError)


def install() -> bool:
    """Register the handler in the running IPython shell; True when done.

    Does nothing outside IPython, or where another custom exception handler is already registered.
    """
    shell = _shell()
    if shell is None or not hasattr(shell, "set_custom_exc"):
        return False
    current = tuple(getattr(shell, "custom_exceptions", ()) or ())
    if current and current != _HANDLED:
        return False
    shell.set_custom_exc(_HANDLED, _handle_error)
    return True
