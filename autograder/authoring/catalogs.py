"""The catalogs of the editions: made from the English, kept up to date as it changes, and checked.

``python -m autograder translations --update`` reads the English of every catalog an edition has (its notebooks,
documents and the packages' own words: ``core/editions.py``) and merges it into ``translations/<code>/<name>.po``
the way gettext's msgmerge does: an entry whose English is unchanged keeps its translation; an entry whose English
changed gets the old translation marked *fuzzy*, with the old English beside it (``#| msgid``), so the translator
sees what changed; a new entry starts empty; an entry whose English is gone is kept at the end as obsolete (``#~``),
for reuse. ``--check`` reports, per catalog, how much is translated, what is stale (fuzzy, or the English moved on)
and what is missing, and fails when a shipped catalog is not complete.

Where the English of each catalog comes from:

- a notebook: the English lesson's markdown and the comments of its ordinary code cells (what ``release`` translates;
  nbgrader's cells are never touched), the hints, messages and prose names its test cells hand to the checks, and
  the names and hints of its hidden tests (in the solution only; the feedback page shows them);
- a document: its markdown, and the comments of its Python blocks;
- a package: every ``_("...")``, ``N_("...")`` and ``Words("...")`` of its Python files.
"""

from __future__ import annotations

import ast
import difflib
import re
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import polib

from ..core import course, editions, notebooks, regions
from . import units

# The calls whose first argument is a message of a package's catalog (``say``: the feedback page's Voice.say).
MARKERS = {"_", "N_", "Words", "say"}
FUZZY_RATIO = 0.6                        # how alike an old English must be to lend its translation (msgmerge's idea)
_PLACEABLE = re.compile(r"`[^`\n]+`|\$[^$\n]+\$|<[^>\n]+>|\{[A-Za-z_][\w.]*(?:![rsa])?(?::[^{}\n]*)?\}")


def package_files(name: str) -> list[Path]:
    return sorted(p for p in (course.ROOT / name).rglob("*.py") if "__pycache__" not in p.parts)


def _has_fields(text: str) -> bool:
    try:
        return any(name is not None for _, name, _, _ in string.Formatter().parse(text))
    except ValueError:
        return False


def _messages(node: ast.AST | None) -> list[str]:
    """The messages a marker's argument can be: a constant, or either branch of ``a if c else b`` (both constants)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip():
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _messages(node.body) + _messages(node.orelse)
    return []


def package_units(name: str) -> list[units.Unit]:
    found = []
    for path in package_files(name):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in MARKERS]
        for node in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            for text in _messages(node.args[0] if node.args else None):
                found.append(units.Unit(text, where=[str(path.relative_to(course.ROOT))],   # no line: edits elsewhere move it
                                        fields=_has_fields(text)))
    return units.merged(iter(found))


def notebook_units(name: str) -> list[units.Unit]:
    lesson = notebooks.read(course.lesson_notebook(name))
    solution = notebooks.read(course.solution_notebook(name))

    def found():
        for cell in lesson.cells:
            where = cell.get("id", "")
            if notebooks.grading(cell):
                if notebooks.is_test_cell(cell):
                    for s in units.code_strings(regions.visible(cell.source)[0], hidden=False):
                        yield units.Unit(s.text, s.context, [where], f"visible check: {s.what}")
                continue   # nbgrader's cells (answers, tests, written answers) are the same in every edition
            if cell.cell_type == "markdown":
                yield from units.markdown_units(cell.source, where)
            elif cell.cell_type == "code":
                for comment in units.comments(cell.source):
                    yield units.Unit(comment.text, where=[where], note="code comment")
        for cell in notebooks.test_cells(solution):
            # Only hidden tests call coursekit.hidden; the whole cell parses where its hidden region alone may not.
            for s in units.code_strings(cell.source, hidden=True) or units.code_strings(_hidden_region(cell.source), True):
                yield units.Unit(s.text, s.context, [cell.get("id", "")], f"hidden test: {s.what} (feedback page)")
    return units.merged(found())


def _hidden_region(source: str) -> str:
    import textwrap

    return textwrap.dedent("\n".join(line.text for line in regions.lines(source) if line.region == "hidden"))


def document_units(name: str) -> list[units.Unit]:
    path = editions.DOCUMENTS[name]
    return units.merged(units.markdown_units(path.read_text(encoding="utf-8"), path.name))


def english(name: str) -> list[units.Unit]:
    """The units of catalog ``name``, from the English."""
    if name in editions.PACKAGES:
        return package_units(name)
    if name in editions.DOCUMENTS:
        return document_units(name)
    return notebook_units(name)


# --- merging --------------------------------------------------------------------------------------------------

def _header(code: str, name: str) -> dict[str, str]:
    return {"Project-Id-Version": f"pytorch-course-kit {name}", "Language": code, "MIME-Version": "1.0",
            "Content-Type": "text/plain; charset=UTF-8", "Content-Transfer-Encoding": "8bit"}


def read(path: Path) -> polib.POFile:
    if not path.is_file():
        return polib.POFile(wrapwidth=78)
    try:
        return polib.pofile(str(path), wrapwidth=78)
    except (OSError, ValueError) as error:
        raise SystemExit(f"{path} is not a readable gettext catalog ({error}); fix it or restore it from git") from None


def _entry(unit: units.Unit) -> polib.POEntry:
    entry = polib.POEntry(msgid=unit.msgid, msgstr="", msgctxt=unit.context, comment=unit.note or None,
                          occurrences=[(w, "") for w in unit.where])
    if unit.fields:
        entry.flags.append("python-brace-format")
    return entry


def _closest(msgid: str, context: str | None, pool: list[polib.POEntry]) -> polib.POEntry | None:
    best, score = None, FUZZY_RATIO
    for old in pool:
        if old.msgctxt != context or not old.msgstr:
            continue
        ratio = difflib.SequenceMatcher(None, msgid, old.msgid, autojunk=False).ratio()
        if ratio > score:
            best, score = old, ratio
    return best


def merge(old: polib.POFile, english_units: list[units.Unit], code: str, name: str) -> polib.POFile:
    """``old`` brought up to ``english_units`` (see the module's docstring); ``old`` is not changed."""
    new = polib.POFile(wrapwidth=78)
    new.metadata = {**_header(code, name), **{k: v for k, v in old.metadata.items() if k in ("Last-Translator",
                                                                                               "Language-Team")}}
    current = {(e.msgctxt, e.msgid): e for e in old if not e.obsolete}
    used: set[tuple[str | None, str]] = set()
    pool = [e for e in old if (e.msgctxt, e.msgid) not in {(u.context, u.msgid) for u in english_units}]
    for unit in english_units:
        entry = _entry(unit)
        previous = current.get((unit.context, unit.msgid))
        if previous is not None:
            entry.msgstr = previous.msgstr
            if previous.fuzzy:
                entry.flags.append("fuzzy")
                entry.previous_msgid = previous.previous_msgid
            entry.tcomment = previous.tcomment
        else:
            similar = _closest(unit.msgid, unit.context, [e for e in pool if (e.msgctxt, e.msgid) not in used])
            if similar is not None:
                used.add((similar.msgctxt, similar.msgid))
                entry.msgstr, entry.tcomment = similar.msgstr, similar.tcomment
                entry.flags.append("fuzzy")
                entry.previous_msgid = similar.msgid
        new.append(entry)
    for leftover in pool:   # English that is gone: its translation is kept for reuse, out of the way
        if leftover.msgstr and (leftover.msgctxt, leftover.msgid) not in used:
            kept = polib.POEntry(msgid=leftover.msgid, msgstr=leftover.msgstr, msgctxt=leftover.msgctxt,
                                 tcomment=leftover.tcomment, obsolete=True)
            new.append(kept)
    return new


def save(po: polib.POFile, path: Path) -> bool:
    """Write ``po`` to ``path`` only when its text changes; return whether it did."""
    text = str(po)
    text = text if text.endswith("\n") else text + "\n"
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def update(edition: editions.Edition, names: list[str] | None = None) -> list[Path]:
    """Bring the edition's catalogs (``names``, default all) up to the English; return those that changed."""
    changed = []
    for name in names or edition.targets():
        path = editions.catalog_path(edition.code, name)
        if save(merge(read(path), english(name), edition.code, name), path):
            changed.append(path)
    return changed


# --- checking -------------------------------------------------------------------------------------------------

def broken(msgid: str, msgstr: str) -> str | None:
    """Why a translation cannot stand for its English, or None: it must keep every code span, maths, HTML tag and
    {field} of the English (a reader copies code from the text; a page fills the fields), may add no {field} (a page
    could not fill it), and a table keeps its rows and their pipes. A code span of its own is allowed (a path)."""
    if not msgstr:
        return None
    wanted, got = _PLACEABLE.findall(msgid), _PLACEABLE.findall(msgstr)
    lost = [p for p in wanted if wanted.count(p) > got.count(p)]
    extra = [p for p in got if p.startswith("{") and got.count(p) > wanted.count(p)]
    if lost:
        return "keep the English's " + ", ".join(dict.fromkeys(lost[:3]))
    if extra:
        return "no field the English does not have: " + ", ".join(dict.fromkeys(extra[:3]))
    if msgid.lstrip().startswith("|") and [line.count("|") for line in msgid.split("\n")] != \
            [line.count("|") for line in msgstr.split("\n")]:
        return "a table keeps its rows and the pipes of each row"
    return None


@dataclass
class Status:
    code: str
    name: str
    shipped: bool
    total: int = 0
    translated: int = 0
    stale: list[str] = field(default_factory=list)      # English ids whose translation is out of date
    missing: list[str] = field(default_factory=list)    # English ids with no translation
    broken: list[tuple[str, str]] = field(default_factory=list)   # (English id, why)
    exists: bool = True

    @property
    def coverage(self) -> float:
        return self.translated / self.total if self.total else 1.0

    @property
    def complete(self) -> bool:
        return self.exists and self.translated == self.total and not self.broken


def status(edition: editions.Edition, name: str, english_units: list[units.Unit] | None = None) -> Status:
    """How far catalog ``name`` of ``edition`` is from its English as it is now (whether or not --update ran);
    ``english_units``: that English, when the caller has read it already."""
    path = editions.catalog_path(edition.code, name)
    found = Status(edition.code, name, name in edition.shipped, exists=path.is_file())
    po = read(path)
    entries = {(e.msgctxt, e.msgid): e for e in po if not e.obsolete}
    others = [e for e in po if e.msgstr]
    for unit in english(name) if english_units is None else english_units:
        found.total += 1
        entry = entries.get((unit.context, unit.msgid))
        if entry is not None and entry.msgstr and not entry.fuzzy:
            why = broken(unit.msgid, entry.msgstr)
            if why:
                found.broken.append((unit.msgid, why))
            else:
                found.translated += 1
        elif (entry is not None and entry.fuzzy) or (entry is None and _closest(unit.msgid, unit.context, others)):
            found.stale.append(unit.msgid)
        else:
            found.missing.append(unit.msgid)
    return found


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def report(statuses: list[Status], details: int = 3) -> str:
    lines = []
    for s in statuses:
        state = "shipped" if s.shipped else "in progress"
        counts = f"{s.translated}/{s.total} ({s.coverage:.0%})"
        extra = ", ".join(filter(None, [f"{len(s.stale)} stale" if s.stale else "", f"{len(s.missing)} missing" if s.missing
                                        else "", f"{len(s.broken)} broken" if s.broken else "",
                                        "no catalog: run --update" if not s.exists else ""]))
        flag = "FAIL" if s.shipped and not s.complete else ("ok" if s.complete else "")
        lines.append(f"{flag:<4}  {s.code:<6} {s.name:<22} {state:<12} {counts:<16} {extra}".rstrip())
        if s.shipped and not s.complete:
            lines += [f"        stale:   {_short(m)}" for m in s.stale[:details]]
            lines += [f"        missing: {_short(m)}" for m in s.missing[:details]]
            lines += [f"        broken:  {_short(m)}: {why}" for m, why in s.broken[:details]]
    return "\n".join(lines)


def check(chosen: list[editions.Edition], names: list[str] | None = None,
          english_of: Callable[[str], list[units.Unit]] = english) -> tuple[list[Status], bool]:
    """Every catalog's status (``english_of``: where each catalog's English is read); True when each shipped one is
    complete."""
    statuses = [status(e, name, english_of(name)) for e in chosen for name in e.targets() if not names or name in names]
    return statuses, all(s.complete for s in statuses if s.shipped)
