"""``check``: run a student's notebook and list each graded cell's visible result, with hints."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from nbclient.exceptions import CellTimeoutError, DeadKernelError

from coursekit.checks import GPU_SKIPPED

from ..core import editions, notebooks, settings

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
Words = editions.i18n().Words   # the table's words; said in the notebook's language by ``check`` (autograder.po)


@dataclass
class CheckRow:
    cell: str
    points: float
    passed: bool
    message: str
    needs_gpu: bool = False  # a GPU-only check on a machine without CUDA: neither passed nor failed


def _error_message(cell) -> str | None:
    error = notebooks.first_error(cell)
    return _ANSI.sub("", f"{error[0]}: {error[1]}").strip() if error else None


def _errors_before(nb, index: int) -> list[str]:
    """Error messages of the failing non-test code cells above ``index``, top first."""
    messages = (_error_message(c) for c in nb.cells[:index] if c.cell_type == "code" and not notebooks.is_test_cell(c))
    return [m for m in messages if m]


def explain(nb, index: int, message: str | None) -> str | None:
    """Turn the raw error of the test cell at ``index`` into what the student should do next."""
    if not message:
        return message
    if message.startswith("NotImplementedError"):
        return Words("not done yet: replace `raise NotImplementedError()` in the exercise above with your code")
    if message.startswith("NameError"):
        # A name is missing because a cell above failed; say which kind of failure it was.
        earlier = _errors_before(nb, index)
        if any("NotImplementedError" in m for m in earlier):
            return Words("not done yet: an exercise above still raises NotImplementedError")
        if earlier:
            return Words("{message}\na cell above failed first, fix it and run again: {earlier}", message=message,
                         earlier=earlier[0].splitlines()[0][:200])
    return message


def run_checks(path: Path, cell_timeout: int = settings.CELL_TIMEOUT_S) -> tuple[list[CheckRow], float]:
    import os

    nb = notebooks.read_bounded(path)
    client = notebooks.client(nb, path.parent, timeout=cell_timeout)
    start = time.monotonic()
    # An edition's notebook runs in a kernel that speaks its language (the checks' lines and hints).
    env = {**os.environ, editions.i18n().LANGUAGE_VARIABLE: editions.notebook_language(nb)}
    try:
        client.execute(env=env)
    except (CellTimeoutError, DeadKernelError) as exc:
        print(f"warning: the run stopped early ({type(exc).__name__}); cells after that count as not run")
    rows = []
    for index, cell in enumerate(nb.cells):
        if not notebooks.is_test_cell(cell):
            continue
        meta = notebooks.grading(cell)
        ran = cell.get("execution_count") is not None
        message = explain(nb, index, _error_message(cell)) if ran else Words("not run (the notebook stopped before this cell)")
        skipped = notebooks.is_gpu_test_cell(cell) and GPU_SKIPPED in notebooks.stream_text(cell)
        rows.append(CheckRow(meta["grade_id"], float(meta.get("points", 0)), message is None, message or "", skipped))
    return rows, time.monotonic() - start


def format_table(rows: list[CheckRow], language: str = "en") -> str:
    """The table ``check`` prints; its words (not the cells' ids or the kernel's messages) in ``language``."""
    say = editions.words("autograder", language).words
    width = max([len(r.cell) for r in rows] + [4])
    lines = [f"{'cell':<{width}}  points  result"]
    for r in rows:
        if r.needs_gpu:
            lines.append(f"{r.cell:<{width}}  {r.points:>6g}  SKIP  " + say(Words("needs a GPU runner (not counted here)")))
            continue
        first, *rest = (say(r.message) if r.message else "passed").splitlines()
        lines.append(f"{r.cell:<{width}}  {r.points:>6g}  {'PASS' if r.passed else 'FAIL'}  {'' if r.passed else first}")
        lines.extend(f"{'':<{width}}  {'':>6}        {line}" for line in rest if line.strip())
    earned = sum(r.points for r in rows if r.passed)
    total = sum(r.points for r in rows if not r.needs_gpu)
    lines.append(say(Words("Visible checks: {earned:g} / {total:g} points. Hidden tests run only when the instructor "
                           "grades.", earned=earned, total=total)))
    return "\n".join(lines)


def check(path: Path) -> int:
    path = Path(path).resolve()
    if not path.is_file():
        raise SystemExit(f"{path} does not exist: give the path of a lesson notebook, e.g. lessons/01_tensors/01_tensors.ipynb")
    try:
        rows, seconds = run_checks(path)
    except notebooks.NotReadable as error:
        raise SystemExit(f"{path} is not a readable notebook: {error.reason}") from None
    if not rows:
        print(f"{path.name} has no graded cells.")
        return 0
    print(format_table(rows, editions.notebook_language(notebooks.read(path))))
    print(f"(ran in {seconds:.1f} s)")
    return 0 if all(r.passed or r.needs_gpu for r in rows) else 1
