"""An edition's lesson or document, made from the English and the edition's catalog.

A lesson's edition is the English lesson with its markdown and the comments of its ordinary code cells in the
edition's language, and ``metadata.language`` naming the language; everything else (code, nbgrader's cells, cell
ids, cell metadata with nbval's tags) is the English lesson's, byte for byte. A block whose translation is missing
or stale (fuzzy, or its English changed since) shows its English with a marker, in the edition's language, that
says so; a comment without a translation stays English.
"""

from __future__ import annotations

import copy
from pathlib import Path

import polib

from ..core import editions, notebooks
from . import catalogs, links, units

N_ = editions.i18n().N_

# What an edition shows beside a block still in English (the autograder catalog has its translations).
STALE_MARKER = N_("⚠️ *(not translated yet: this passage is in English)*")


class Translations:
    """The translated, current entries of one catalog file, and the marker for what it lacks."""

    def __init__(self, code: str, po: polib.POFile):
        self.language = code
        self.entries = {e.msgid: e.msgstr for e in po
                        if not e.obsolete and not e.fuzzy and e.msgstr and e.msgctxt is None
                        and not catalogs.broken(e.msgid, e.msgstr)}
        self.marker = editions.words("autograder", code).gettext(STALE_MARKER)

    @classmethod
    def of(cls, code: str, name: str) -> "Translations":
        return cls(code, catalogs.read(editions.catalog_path(code, name)))

    def markdown(self, text: str) -> str:
        lines: list[str] = []
        for block in units.blocks(text):
            if not block.translatable:
                if block.kind == "code" and block.language in units.PYTHON_FENCES:
                    inner = units.replace_comments("\n".join(block.lines[1:-1]), self.entries.get)
                    lines += [block.lines[0], *inner.split("\n"), block.lines[-1]] if len(block.lines) > 1 else block.lines
                else:
                    lines += block.lines
                continue
            translated = self.entries.get(block.body)
            lines += units.render(block, translated) if translated else units.with_marker(block, self.marker)
        return "\n".join(lines)

    def code(self, source: str) -> str:
        return units.replace_comments(source, self.entries.get)


def edition_notebook(english, code: str, translations: Translations):
    """The edition ``code`` of the English lesson ``english`` (not changed)."""
    nb = copy.deepcopy(english)
    for cell in nb.cells:
        if notebooks.grading(cell):
            continue   # answers, test cells and written answers are the same cells in every edition
        if cell.cell_type == "markdown":
            cell.source = translations.markdown(cell.source)
        elif cell.cell_type == "code":
            cell.source = translations.code(cell.source)
    nb.metadata[editions.LANGUAGE_KEY] = code
    return nb


def write_lesson(code: str, name: str, english_folder: Path, into: Path) -> list[Path]:
    """Write the edition of the English lesson folder ``english_folder`` into ``into/<code>/<name>/``: its notebook
    translated, any other file copied; only what changes is written. Return what was."""
    written = []
    translations = Translations.of(code, name)
    for produced in sorted(p for p in english_folder.rglob("*") if p.is_file() and ".ipynb_checkpoints" not in p.parts):
        target = into / code / name / produced.relative_to(english_folder)
        if produced.suffix == ".ipynb":
            changed = notebooks.write(edition_notebook(notebooks.read(produced), code, translations), target)
        elif (page := _translated_page(code, produced.name)) is not None:   # a docs page the lesson links to
            changed = not target.exists() or target.read_text(encoding="utf-8") != page
            if changed:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(page, encoding="utf-8")
        else:
            changed = not target.exists() or target.read_bytes() != produced.read_bytes()
            if changed:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(produced.read_bytes())
        if changed:
            written.append(target)
    return written


def _translated_page(code: str, file_name: str) -> str | None:
    """The copy of a docs page that a lesson of edition ``code`` carries beside it, in the edition's language, where
    the edition ships that document (the English lesson's copy otherwise: None)."""
    for name in editions.EDITIONS[code].shipped_documents():
        source = editions.DOCUMENTS[name]
        if source.name == file_name:
            english = source.read_text(encoding="utf-8")
            return links.page_copy(str(source.relative_to(source.parents[1])), Translations.of(code, name).markdown(english))
    return None


def write_document(code: str, name: str, into: Path | None = None) -> bool:
    """Write the edition ``code`` of document ``name`` (docs/<code>/<name>.md, or under ``into``); True when it
    changed."""
    source = editions.DOCUMENTS[name]
    english = source.read_text(encoding="utf-8")
    text = (f"<!-- Made by `python -m autograder release` from {source.relative_to(source.parents[1])} and "
            f"translations/{code}/{name}.po: edit those, never this file. -->\n" + Translations.of(code, name).markdown(english))
    target = (into / code / f"{name}.md") if into else editions.document_path(code, name)
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return True
