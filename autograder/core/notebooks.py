"""Reading, tidying and writing notebooks so that diffs stay small and releases byte-identical."""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import nbformat
from nbformat import NotebookNode

if TYPE_CHECKING:
    from nbclient import NotebookClient

NBGRADER_SCHEMA_VERSION = 3
_VALID_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")  # what nbformat 4.5 allows for a cell id


def read(path: str | Path) -> NotebookNode:
    return nbformat.read(str(path), as_version=4)


# --- a notebook nobody vouches for (a student's): bounded in depth, size and encoding ---------------------------

# A notebook's own structure is six levels deep (notebook, cells, cell, outputs, output, data); metadata and widget
# state add a few more. Past this, the JSON is no notebook, and readers that recurse (the JSON parser, nbformat's
# validator, copy) would run out of stack on it.
MAX_JSON_DEPTH = 64
# Lists and objects in one file (counted as brackets, those inside strings too: an upper bound found before
# parsing): each costs the parser memory, and 64 MB of "[]" would be two gigabytes of them.
MAX_CONTAINERS = 2_000_000
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
SAVE_AGAIN = "open it in JupyterLab, save it (File > Save Notebook) and hand it in again"


class NotReadable(ValueError):
    """Why a file is not a readable notebook, in words that end with what to do."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _text_of(raw: bytes) -> str:
    encoding = next((name for bom, name in _BOMS if raw.startswith(bom)), "utf-8")
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as error:
        raise NotReadable(f"it is not UTF-8 text (byte {error.start}): another editor may have saved it in another "
                          f"encoding; {SAVE_AGAIN}") from None


def _bounded(data: object, repair_text: bool) -> int:
    """Check that ``data`` (parsed JSON) is no deeper than MAX_JSON_DEPTH, without recursing; with ``repair_text``,
    replace each lone surrogate in its strings and keys (text no file can hold) with U+FFFD. Returns how many
    strings were repaired."""
    repaired, stack = 0, [(data, 1)]

    def fix(value):
        nonlocal repaired
        if isinstance(value, str) and repair_text and _SURROGATE.search(value):
            repaired += 1
            return _SURROGATE.sub("\ufffd", value)
        return value

    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise NotReadable(f"its JSON is nested more than {MAX_JSON_DEPTH} levels deep, which no notebook is; "
                              f"{SAVE_AGAIN}")
        if isinstance(node, dict):
            if repair_text:
                items = [(fix(k), fix(v)) for k, v in node.items()]
                node.clear()
                node.update(items)
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            if repair_text:
                node[:] = [fix(v) for v in node]
            stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list)))
    return repaired


def _upgraded(data: dict) -> tuple[dict, list[str]]:
    """A notebook of an older format as nbformat 4 (nbformat converts it), with a note; one of a format this
    grader cannot read is named as such."""
    major = data.get("nbformat", 4 if isinstance(data.get("cells"), list) else None)
    if major == 4 and not isinstance(major, bool):
        return data, []
    if isinstance(major, int) and not isinstance(major, bool) and 1 <= major < 4:
        try:
            nb = nbformat.convert(nbformat.reader.reads(json.dumps(data)), 4)
        except Exception:  # noqa: BLE001 - whatever the converter meets in a hostile file, the answer is the same
            raise NotReadable(f"it is in nbformat {major} (an older Jupyter's format) and could not be upgraded: "
                              f"JupyterLab upgrades it when it opens it; {SAVE_AGAIN}") from None
        return json.loads(json.dumps(nb)), [f"upgraded from nbformat {major} (an older Jupyter's format) to nbformat 4"]
    if isinstance(major, int) and not isinstance(major, bool) and major > 4:
        raise NotReadable(f"it is in nbformat {major}, newer than this grader reads; save it as nbformat 4 "
                          "(JupyterLab's own format) and hand it in again")
    raise NotReadable("it has no notebook format version (nbformat) a notebook has; " + SAVE_AGAIN)


def from_bytes(raw: bytes) -> tuple[dict, list[str]]:
    """The JSON of a notebook file that nobody vouches for, as nbformat 4, and what was repaired on the way (for the
    flags column); raises NotReadable with a reason that fits. Bounded: nesting (MAX_JSON_DEPTH), lists and objects
    (MAX_CONTAINERS); the caller bounds the bytes. A byte-order mark is read past; lone surrogates become U+FFFD;
    an older format is upgraded. What the JSON holds is not checked here (grading/intake.py's well_formed)."""
    containers = raw.count(b"[") + raw.count(b"{")
    if containers > MAX_CONTAINERS:
        raise NotReadable(f"it holds more than {MAX_CONTAINERS:,} lists and objects; clear its outputs (Edit > Clear "
                          "Outputs of All Cells), save it and hand it in again")
    text = _text_of(raw)
    try:
        data = json.loads(text)
    except RecursionError:   # the parser's own bound, far below a hostile file's depth
        raise NotReadable(f"its JSON is nested more than {MAX_JSON_DEPTH} levels deep, which no notebook is; "
                          f"{SAVE_AGAIN}") from None
    except json.JSONDecodeError as error:
        raise NotReadable(f"it is not valid JSON (line {error.lineno}): it was cut short or edited outside "
                          "JupyterLab; restore your last good version (File > Revert Notebook to Checkpoint, or "
                          "your own copy) and hand it in again") from None
    if not isinstance(data, dict):
        raise NotReadable("it is JSON but not a notebook (no list of cells)")
    repaired = _bounded(data, repair_text=bool(_SURROGATE_ESCAPE.search(raw)))
    notes = [f"{repaired} text(s) holding lone surrogates (characters no file can store) repaired with U+FFFD"] if repaired else []
    data, upgraded = _upgraded(data)
    return data, notes + upgraded


def read_bounded(path: str | Path, max_bytes: int = 64 * 2**20) -> NotebookNode:
    """A notebook file someone hands to a tool of the course (``check``), read as ``from_bytes`` reads it: raises
    NotReadable with a reason that fits, never a parser's traceback."""
    size = Path(path).stat().st_size
    if size > max_bytes:
        raise NotReadable(f"it is {size / 2**20:.0f} MB, over the {max_bytes / 2**20:.0f} MB a notebook may have; clear "
                          "its outputs (Edit > Clear Outputs of All Cells), save it and try again")
    data, _ = from_bytes(Path(path).read_bytes())
    return nbformat.from_dict(data)


def dumps(nb: NotebookNode) -> str:
    """One canonical text form: nbformat's own layout plus a final newline."""
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def write(nb: NotebookNode, path: str | Path) -> bool:
    """Write ``nb`` to ``path`` only if the text changes; return whether it did."""
    path = Path(path)
    text = dumps(nb)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def client(nb: NotebookNode, folder: str | Path, timeout: int) -> "NotebookClient":
    """An nbclient runner for ``nb`` that starts its kernel in ``folder``, keeps going after errors
    and waits for late outputs (see ``settings.IOPUB_TIMEOUT_S``). On Linux and macOS the kernel talks
    over unix sockets in a private temporary folder rather than over TCP on localhost."""
    import atexit
    import os
    import shutil
    import tempfile

    from jupyter_client import AsyncKernelManager
    from nbclient import NotebookClient  # imported here: most users of this module never execute

    from . import settings

    km = None
    if os.name == "posix":
        sockets = tempfile.mkdtemp(prefix="course-kernel-")
        atexit.register(shutil.rmtree, sockets, True)
        km = AsyncKernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "k"))
    runner = NotebookClient(nb, km=km, timeout=timeout, iopub_timeout=settings.IOPUB_TIMEOUT_S, kernel_name="python3",
                            allow_errors=True, resources={"metadata": {"path": str(folder)}})
    # nbclient shuts down only kernels whose manager it made itself; this one is ours to stop too, or each
    # run would leave an idle kernel (600 MB for a training lesson) until the process ends.
    runner.owns_km = True
    return runner


def errors(cell: NotebookNode) -> list[NotebookNode]:
    """The cell's error outputs, in order (the one place that reads them)."""
    return [out for out in cell.get("outputs", []) if out.get("output_type") == "error"]


def first_error(cell: NotebookNode) -> tuple[str, str] | None:
    """(name, message) of the cell's first error, or None."""
    found = errors(cell)
    return (found[0].get("ename", "Error"), found[0].get("evalue", "")) if found else None


def stream_text(cell: NotebookNode, name: str = "stdout") -> str:
    """Everything the cell printed on one stream."""
    return "".join(out.get("text", "") for out in cell.get("outputs", [])
                   if out.get("output_type") == "stream" and out.get("name") == name)


def grading(cell: NotebookNode) -> dict:
    """The cell's nbgrader metadata ({} when it has none)."""
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def is_test_cell(cell: NotebookNode) -> bool:
    """An autograded test cell: graded, not a solution, code."""
    meta = grading(cell)
    return cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


def is_manual_cell(cell: NotebookNode) -> bool:
    """A manually graded answer (nbgrader's grade + solution cell, a written answer here): scored by a person."""
    meta = grading(cell)
    return bool(meta.get("grade")) and bool(meta.get("solution"))


def is_solution_cell(cell: NotebookNode) -> bool:
    """An exercise: an answer cell (nbgrader's "Autograded answer") that the test cells after it check.
    A written answer (:func:`is_manual_cell`) is not one: a person grades it."""
    meta = grading(cell)
    return bool(meta.get("solution")) and not meta.get("grade")


def is_gpu_test_cell(cell: NotebookNode) -> bool:
    """A GPU-only test cell: by convention its grade_id ends in '-gpu-tests'."""
    return is_test_cell(cell) and str(grading(cell).get("grade_id", "")).endswith("-gpu-tests")


def test_cells(nb: NotebookNode) -> Iterator[NotebookNode]:
    return (cell for cell in nb.cells if is_test_cell(cell))


# nbval's cell tags that the course uses (see authoring/nbval_tags.py for the ones release generates).
NBVAL_SKIP = "nbval-skip"                  # GPU-only cells: nbval on a CPU skips them
NBVAL_CHECK_OUTPUT = "nbval-check-output"  # a solution cell whose stored output nbval compares


def checks_output(cell: NotebookNode) -> bool:
    return NBVAL_CHECK_OUTPUT in cell.get("metadata", {}).get("tags", [])


def tidy(nb: NotebookNode) -> NotebookNode:
    """Make a source notebook canonical, in place.

    - graded and solution cells get their ``grade_id`` as cell id (stable across edits);
    - other cells keep a valid, unique id, or get one derived from their position and text;
    - nbgrader metadata carries ``schema_version`` 3;
    - outputs and execution counts are cleared (the source is code, not a record of a run), except in the few
      cells tagged ``nbval-check-output``: their output is a fact the lesson teaches, which nbval compares;
    - GPU-only test cells are tagged ``nbval-skip`` (nbval on a CPU skips them; the GPU runner runs them);
    - kernel and language metadata are fixed to the course's Python 3 kernel.
    """
    nb.nbformat, nb.nbformat_minor = 4, max(nb.get("nbformat_minor", 5), 5)
    seen: set[str] = set()
    for index, cell in enumerate(nb.cells):
        meta = grading(cell)
        if meta:
            meta["schema_version"] = NBGRADER_SCHEMA_VERSION
            cell_id = meta.get("grade_id")
            if is_gpu_test_cell(cell):
                # The GPU checks run under `make gpu-check`; nbval, where someone runs it, skips them.
                tags = cell.metadata.setdefault("tags", [])
                if NBVAL_SKIP not in tags:
                    tags.append(NBVAL_SKIP)
        else:
            cell_id = cell.get("id")
            if not cell_id or not _VALID_ID.match(cell_id) or cell_id in seen:
                digest = hashlib.sha1(cell.source.encode("utf-8")).hexdigest()[:8]
                cell_id = f"cell-{index:02d}-{digest}"
        if cell_id in seen:
            raise ValueError(f"two cells share the id {cell_id!r}: every grade_id must be unique in a notebook")
        seen.add(cell_id)
        cell["id"] = cell_id
        if cell.cell_type == "code" and checks_output(cell) and cell.outputs:
            cell.execution_count = 1   # nbval compares only cells that ran; the number itself is noise
            for output in cell.outputs:
                if "execution_count" in output:
                    output["execution_count"] = 1
                output.get("metadata", {}).clear()
        elif cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)
        cell.metadata.pop("collapsed", None)
    nb.metadata = NotebookNode({
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    })
    return nb
