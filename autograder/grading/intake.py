"""Taking submissions in: which students and assignments there are, and reading a notebook safely.

The rules: every student folder gets a row, whatever its name (names reach nothing but paths and
CSV fields); a notebook must be a regular file inside a real folder (a symbolic link, a pipe, a socket or a device
is refused by what it is, and the reason never quotes what a link points to), read as data through
core/student_files.py (never through a link, its size bounded before reading) and decoded by
core/notebooks.py's ``from_bytes`` (bounded in depth and count, any byte-order mark read past, lone surrogates
repaired, an older format upgraded); then made well formed here before anything else reads it.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
import warnings
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import nbformat

from ..core import course, notebooks, student_files
from .assignment import Assignment
from ..core.settings import INVALID, MISSING, NOT_SUBMITTED

MAX_NOTEBOOK_MB = 64  # a lesson with every output is well under 5 MB
# A lesson has about a hundred cells and as many outputs; each costs a schema check (about a millisecond) in
# well_formed, so a class's slowest intake stays in seconds.
MAX_CELLS = 5_000
MAX_OUTPUTS = 5_000
TIMESTAMP = "timestamp.txt"   # nbgrader's submit and collect leave it beside the notebook
# The forms of a time nbgrader writes (its own "%Y-%m-%d %H:%M:%S.%f %Z", and ISO 8601): anything else is not a time,
# however willing a lenient parser would be to read one into it.
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?( ?(Z|UTC|GMT|[+-]\d{2}:?\d{2}))?")

# The student ids a person could have: a login, a student number, an e-mail address. On a shared exchange the
# students themselves write these names (nbgrader's inbound folder names), and an id reaches every page an
# instructor opens (Formgrader's lists, the manual-grading page), so anything else is refused by name, never
# renamed: the instructor decides what it should have been.
STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,99}")
STUDENT_ID_RULE = "letters, digits, '.', '_', '-' and '@', starting with a letter or digit, at most 100 characters"


_MARKUP = str.maketrans({"<": "\\x3c", ">": "\\x3e", "&": "\\x26", '"': "\\x22"})


def shown(name: str) -> str:
    """A name from the submissions (a folder or file name) as a reason, a log or the terminal may quote it: itself
    when it is plain, else Python's escaped form of it: no terminal control character, and no markup even where a
    page shows the text as HTML (nbgrader's log windows)."""
    return name if re.fullmatch(r"[\w .@+-]{1,120}", name, re.ASCII) else ascii(name).translate(_MARKUP)


def student_id_problem(name: str) -> str | None:
    """Why ``name`` cannot be a student id (in words that quote it safely), or None when it can."""
    if STUDENT_ID.fullmatch(name):
        return None
    return (f"the folder name {shown(name)} is not a student id ({STUDENT_ID_RULE}): it was not graded. Rename the "
            "folder to the student's id (or remove it) and grade again")


@dataclass
class Refusal:
    """Why a submission cannot be run: a status of grades.csv and a reason in words."""
    status: str
    reason: str


def discover(submissions: Path, names: list[str] | None,
             wanted: list[str] | None = None) -> tuple[list[str], list[str]]:
    """(students, assignments) found under ``submissions``: every folder is a student, hidden ones included, and so is
    every other entry that is not a plain file (a link or a pipe gets a row saying what it is); ``wanted`` picks
    some of them (a name that has no folder is an error that says so).

    nbgrader's ``collect`` lays ``submitted/`` out the same way (with the latest submission of each student and
    its ``timestamp.txt``), so the instructor's ``submitted/`` folder is graded as it is."""
    if not submissions.is_dir():
        raise SystemExit(f"{submissions} is not a folder; expected SUBMISSIONS/<student>/<assignment>/<assignment>.ipynb")
    # a link, a pipe or a socket where a folder should be is a row too (refused, with what it is); plain files
    # (a roster, a README) are no students
    students = sorted(entry.name for entry in os.scandir(submissions) if not entry.is_file(follow_symlinks=False))
    if wanted:
        unknown = sorted(set(wanted) - set(students))
        if unknown:
            raise SystemExit(f"no folder for student(s) {', '.join(unknown)} in {submissions}")
        students = sorted(set(wanted))
    known = course.assignments(names)
    if names:
        return students, known
    present = sorted({a for s in students for a in known if (submissions / s / a).is_dir()})
    return students, present


def _raw_notebook(folder: Path, assignment: str, name: str | None = None) -> bytes | Refusal:
    """The notebook file's bytes (``name``, by default ``NN.ipynb``, inside the submission's folder), read as data
    (core/student_files.py: a regular file in a real folder, never through a link, bounded before reading), or why not."""
    name = name or f"{assignment}.ipynb"
    where = f"{shown(folder.parent.name)}/{folder.name}"
    try:
        fd = student_files.open_submission(folder)
    except FileNotFoundError:
        return Refusal(NOT_SUBMITTED, f"no folder {where}")
    except NotADirectoryError:
        return Refusal(INVALID, f"{where} is not a folder: hand in the folder itself")
    except student_files.Refused as refused:
        return Refusal(INVALID, f"{where} is {refused.reason}: hand in the folder itself")
    try:
        inner, _, filename = name.rpartition("/")
        if inner:   # an edition's copy, NN/<code>/NN.ipynb: its folder opened without following a link too
            sub = student_files.open_folder(inner, dir_fd=fd)
            os.close(fd)
            fd = sub
        return student_files.read_file(filename, MAX_NOTEBOOK_MB * 2**20, dir_fd=fd)
    except FileNotFoundError:
        with os.scandir(fd) as entries:   # the first thousand are plenty to name ten (a folder may hold millions)
            found = sorted(itertools.islice((e.name for e in entries if e.name.endswith(".ipynb")), 1000))
        return Refusal(MISSING, f"no {name} in the submission"
                       + (f" (found: {', '.join(shown(n) for n in found[:10])})" if found else ""))
    except (NotADirectoryError, student_files.Refused) as refused:
        reason = getattr(refused, "reason", "not a folder")
        if "over the limit" in reason:
            return Refusal(INVALID, f"{name} is {reason}: clear the outputs (Edit > Clear Outputs of All "
                                    "Cells) and hand it in again")
        return Refusal(INVALID, f"{name} is {reason}, not a notebook: hand in the notebook file itself")
    finally:
        os.close(fd)


def _answered(raw: bytes, task: Assignment) -> int:
    """How many of the assignment's answer cells a notebook file changed from the release's stubs (0 for a file that
    cannot be read: it is never the one a student worked in)."""
    try:
        data, _ = notebooks.from_bytes(raw)
    except notebooks.NotReadable:
        return 0
    stubs = {gid: _text(cell.source).strip() for gid, cell in task.released.items()
             if notebooks.is_solution_cell(cell) or notebooks.is_manual_cell(cell)}
    changed = 0
    for cell in data.get("cells", []) if isinstance(data, dict) else []:
        meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) and \
            isinstance(cell.get("metadata"), dict) else {}
        gid = meta.get("grade_id") if isinstance(meta, dict) else None
        if gid in stubs and _text(cell.get("source", "")).strip() != stubs[gid]:
            changed += 1
    return changed


def edition_chosen(folder: Path, task: Assignment, notes: list[str]) -> bytes | Refusal:
    """The notebook to grade: ``NN.ipynb``, or the copy of a shipped edition the student worked in.

    A release through the exchange carries each shipped edition as ``NN/<code>/NN.ipynb`` beside the English
    ``NN.ipynb`` (classroom/nbgrader_release.py). The one graded is the one whose answers the student wrote: the
    edition's copy when the English one is untouched (or absent), else the English one; when both hold answers the
    English one is graded and ``notes`` says so. Either way the assignment, its tests and its gradebook are the same."""
    from ..core import editions

    top = _raw_notebook(folder, task.name)
    copies = []
    for edition in editions.EDITIONS.values():
        if task.name in edition.shipped:
            raw = _raw_notebook(folder, task.name, f"{edition.code}/{task.name}.ipynb")
            if isinstance(raw, bytes):
                copies.append((edition.code, raw))
            elif raw.status == INVALID:
                notes.append(f"{edition.code}/{task.name}.ipynb was not read: {raw.reason}")
    worked = [(code, raw) for code, raw in copies if _answered(raw, task)]
    if isinstance(top, Refusal):
        if top.status == MISSING and (worked or copies):
            code, raw = (worked or copies)[0]
            notes.append(f"graded the {code} edition's copy, {code}/{task.name}.ipynb (there is no {task.name}.ipynb)")
            return raw
        return top
    if worked and not _answered(top, task):
        return worked[0][1]   # the usual case of a student who works in an edition: nothing to say
    if worked:
        notes.append(f"answers in two editions: {task.name}.ipynb was graded, "
                     f"{', '.join(f'{code}/{task.name}.ipynb' for code, _ in worked)} not")
    return top


def read_submission(folder: Path, task: Assignment, repairs: list[str] | None = None) -> nbformat.NotebookNode | Refusal:
    """The student's notebook for ``task``, well formed (``well_formed``; what was repaired is added to ``repairs``),
    or why it cannot be graded. Every reader of a student's notebook (grade, the gradebook, similarity) reads it here:
    a regular file, bounded in size (MAX_NOTEBOOK_MB), depth and encoding (``notebooks.from_bytes``)."""
    assignment = task.name
    try:
        parent = folder.parent.lstat()
    except FileNotFoundError:
        return Refusal(NOT_SUBMITTED, f"no folder {shown(folder.parent.name)}")
    if not stat.S_ISDIR(parent.st_mode):
        return Refusal(INVALID, f"{shown(folder.parent.name)} is {student_files.kind(parent.st_mode)}, not a folder: "
                                "hand in the folder itself")
    chosen: list[str] = []
    raw = edition_chosen(folder, task, chosen)
    if isinstance(raw, Refusal):
        return raw
    try:
        data, notes = notebooks.from_bytes(raw)
        notes = chosen + notes
    except notebooks.NotReadable as error:
        return Refusal(INVALID, f"{assignment}.ipynb is not a readable notebook: {error.reason}")
    if not isinstance(data.get("cells"), list) or not all(isinstance(c, dict) and "cell_type" in c for c in data["cells"]):
        return Refusal(INVALID, f"{assignment}.ipynb is JSON but not a notebook (no list of cells)")
    if len(data["cells"]) > MAX_CELLS:
        return Refusal(INVALID, f"{assignment}.ipynb is not a readable notebook: it has {len(data['cells'])} cells, more "
                                f"than {MAX_CELLS} (a lesson has about a hundred); hand in the lesson's notebook")
    outputs = sum(len(c["outputs"]) for c in data["cells"] if isinstance(c.get("outputs"), list))
    if outputs > MAX_OUTPUTS:   # grading runs the notebook afresh: the outputs it was handed in with grade nothing
        for cell in data["cells"]:
            if "outputs" in cell:
                cell["outputs"] = []
        notes.append(f"its {outputs} stored outputs were removed unread (more than {MAX_OUTPUTS}; grading runs the "
                     "notebook afresh and never uses them)")
    retyped = _retype(data)
    try:   # parsed and upgraded, not validated: well_formed() repairs what it can and says what it did
        nb = nbformat.convert(nbformat.reader.reads(json.dumps(data)), 4)
    except Exception as error:  # JSON, but not a notebook nbformat can read
        return Refusal(INVALID, f"{assignment}.ipynb could not be read as a notebook ({type(error).__name__}): "
                                f"{notebooks.SAVE_AGAIN}")
    found = well_formed(nb, assignment, frozenset(task.released))
    if isinstance(found, Refusal):
        return found
    if repairs is not None:
        repairs.extend(notes + ([f"metadata or attachments of the wrong type removed from {retyped} place(s)"] if retyped else [])
                       + found)
    return nb


def _retype(data: dict) -> int:
    """Give the notebook's and each cell's metadata, each cell's attachments and outputs, the types nbformat's reader
    assumes (it stops on a notebook whose metadata is not a mapping); return how many were replaced."""
    changed = 0
    for holder in [data, *data["cells"]]:
        if not isinstance(holder.get("metadata", {}), dict):
            holder["metadata"] = {}
            changed += 1
        if holder is not data and "attachments" in holder and not isinstance(holder["attachments"], dict):
            del holder["attachments"]
            changed += 1
        if holder is not data and "outputs" in holder:
            outputs = holder["outputs"] if isinstance(holder["outputs"], list) else None
            kept = [o for o in outputs or [] if isinstance(o, dict)]
            changed += outputs is None or len(kept) != len(outputs)
            holder["outputs"] = kept
    return changed


# --- a well-formed notebook before anything else reads it -----------------------------------------------------

_CELL_KEYS = {"code": {"id", "cell_type", "metadata", "source", "outputs", "execution_count"},
              "markdown": {"id", "cell_type", "metadata", "source", "attachments"},
              "raw": {"id", "cell_type", "metadata", "source", "attachments"}}
_CELL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
# nbgrader's flags and fields, and the types its preprocessors and Formgrader's pages assume.
_NBGRADER_FIELDS = {"grade": bool, "solution": bool, "locked": bool, "task": bool, "grade_id": str,
                    "points": (int, float), "schema_version": int, "checksum": str, "cell_type": str}


def _text(value) -> str:
    if isinstance(value, list):
        return "".join(v if isinstance(v, str) else str(v) for v in value)
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _valid(value, ref: str) -> bool:
    from nbformat import validator

    try:
        validator.validate(value, ref=ref, version=4, version_minor=5)
    except Exception:  # nbformat's ValidationError, or a value jsonschema cannot even walk
        return False
    return True


def _nbgrader_metadata(meta, released: frozenset[str]) -> dict | None:
    """The cell's nbgrader metadata when it is the release's and well typed, else None (it is removed)."""
    if not isinstance(meta, dict) or not isinstance(meta.get("grade_id"), str) or meta["grade_id"] not in released:
        return None
    if any(key in meta and not isinstance(meta[key], kind) for key, kind in _NBGRADER_FIELDS.items()):
        return None
    if isinstance(meta.get("points"), bool) or not all(key in _NBGRADER_FIELDS for key in meta):
        return None
    return meta


def well_formed(nb: nbformat.NotebookNode, assignment: str, released: frozenset[str]) -> list[str] | Refusal:
    """Make ``nb`` (a notebook as read) valid for nbformat and safe for nbgrader's tools, in place; return what was
    repaired, in words, for the flags column. Nothing the student wrote is dropped: sources, written answers and
    pasted images (attachments) stay; what goes is what the format or nbgrader cannot take (malformed outputs,
    metadata of the wrong type, nbgrader metadata of cells the release does not have, cell ids the format forbids)."""
    from nbformat import validator

    outputs_dropped, foreign, bad_ids, seen = 0, 0, 0, set()
    retyped = 0
    for cell in nb.cells:
        if cell.get("cell_type") not in _CELL_KEYS:   # kept as text: a markdown cell (an old heading cell) or a raw one
            cell.cell_type = "markdown" if cell.get("cell_type") == "heading" else "raw"
            retyped += 1
        for key in set(cell) - _CELL_KEYS[cell.cell_type]:
            del cell[key]
        cell.source = _text(cell.get("source"))
        if not isinstance(cell.get("metadata"), dict):
            cell.metadata = {}
        if "nbgrader" in cell.metadata:
            kept = _nbgrader_metadata(cell.metadata["nbgrader"], released)
            if kept is None:
                del cell.metadata["nbgrader"]
                foreign += 1
        if "id" in cell and not (isinstance(cell.id, str) and _CELL_ID.fullmatch(cell.id) and cell.id not in seen):
            del cell["id"]   # nbformat's normaliser below gives it a new one
            bad_ids += 1
        seen.add(cell.get("id"))
        if cell.cell_type == "code":
            outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
            cell.outputs = [o for o in outputs if _valid(o, "output")]
            outputs_dropped += len(outputs) - len(cell.outputs)
            if not (isinstance(cell.get("execution_count"), int) and not isinstance(cell.get("execution_count"), bool)
                    and cell.execution_count >= 0):
                cell.execution_count = None
        elif "attachments" in cell and not _valid(cell.attachments, "misc/attachments"):
            del cell["attachments"]
    if not isinstance(nb.get("metadata"), dict):
        nb.metadata = {}
    nb.nbformat, nb.nbformat_minor = 4, max(5, nb.get("nbformat_minor") if isinstance(nb.get("nbformat_minor"), int) else 5)
    with warnings.catch_warnings():   # the ids it repairs are counted above; its warnings would only be noise
        warnings.simplefilter("ignore")
        _, normal = validator.normalize(nb, version=4, version_minor=nb.nbformat_minor, strip_invalid_metadata=True)
    nb.clear()
    nb.update(nbformat.from_dict(normal))
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as error:
        where = "/".join(str(p) for p in list(error.absolute_path)[:4]) if hasattr(error, "absolute_path") else ""
        return Refusal(INVALID, f"{assignment}.ipynb is not a valid notebook even after repair (at {where or 'the top'}): "
                                "open it in JupyterLab, save it and hand it in again")
    repairs = [f"{retyped} cell(s) of a type the notebook format does not have kept as text"] if retyped else []
    if foreign:
        repairs.append(f"nbgrader metadata removed from {foreign} cell(s) the release does not have (the cells stay, as "
                       "the student's work)")
    if bad_ids:
        repairs.append(f"{bad_ids} cell id(s) that the notebook format does not allow or that were duplicated were replaced")
    if outputs_dropped:
        repairs.append(f"{outputs_dropped} malformed output(s) dropped")
    return repairs


def read_timestamp(folder: Path) -> tuple[datetime | None, str | None]:
    """When the student submitted, from the folder's ``timestamp.txt`` (nbgrader's submit and collect write it), read
    strictly: (the time, None); (None, None) without the file; (None, the problem) when it is not a time. Only the
    forms nbgrader writes are times (``2027-01-15 23:59:00.123456 UTC``, ISO 8601 with an offset or none)."""
    try:
        fd = student_files.open_submission(folder)
    except (OSError, student_files.Refused):
        return None, None   # no folder to find it in: reading the notebook says why
    try:
        text = student_files.read_file(TIMESTAMP, 256, dir_fd=fd).decode("utf-8", "replace").strip()
    except FileNotFoundError:
        return None, None
    except student_files.Refused:
        return None, f"{TIMESTAMP} is not a small regular file"
    finally:
        os.close(fd)
    if not _TIME.fullmatch(text):
        return None, f"{TIMESTAMP} is not a time"
    from nbgrader.utils import parse_utc

    try:
        when = parse_utc(text)
    except (ValueError, OverflowError):
        return None, f"{TIMESTAMP} is not a time"
    if not datetime(2000, 1, 1) <= when.replace(tzinfo=None) <= datetime(2200, 1, 1):   # nbgrader's times are naive UTC
        return None, f"{TIMESTAMP} is not a plausible time"
    return when, None


def box_files(folder: Path, assignment: str, nb: nbformat.NotebookNode) -> tuple[dict[str, bytes], list[str]]:
    """What the grading box gets from a submission: the notebook (as read) and the files the assignment declares
    (course.submission_files), each a regular file inside the folder; and notes on declared files not handed in.
    Nothing else of the folder enters the box: no file a student ships can shadow a module or the kernel."""
    files = {f"{assignment}.ipynb": nbformat.writes(nb).encode("utf-8")}
    notes = []
    for name in course.submission_files(assignment):
        try:
            files[name] = student_files.read_in_submission(folder, name, MAX_NOTEBOOK_MB * 2**20)
        except (FileNotFoundError, student_files.Refused) as error:
            why = getattr(error, "reason", "missing")
            notes.append(f"{name} (declared by the assignment) is {why}: not given to the box")
    return files, notes
