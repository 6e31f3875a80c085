"""The course's words in the student's language: gettext catalogs read with polib, English as the fallback.

Every catalog lives in ``translations/<language>/<name>.po`` (docs/translations/README.md): the package's own words
(``coursekit.po``, ``courselab.po``, ``autograder.po``) and one per notebook (``01_tensors.po``: its paragraphs,
comments, check messages and hidden tests' hints). Only entries that are translated and not fuzzy count; anything
else is said in English.

Which language a notebook kernel speaks (``language()``), first match wins:

1. the notebook the kernel was started for (JupyterLab sets ``JPY_SESSION_NAME`` to its path): an edition's lesson
   sits in a folder named after its language, ``lessons/pt_BR/01_tensors/01_tensors.ipynb``;
2. ``COURSEKIT_LANG``, set by the tools that read the notebook's ``metadata.language`` (Validate, ``check``) and by
   the student set-up of an edition (``python -m courselab --lang pt_BR``);
3. the kernel's working folder (nbval and nbclient start the kernel in the notebook's folder);

else English. A language counts only when ``translations/`` has a folder for it, so a stray value is English.

This module is standalone on purpose (the standard library and polib, no relative import, no torch): the kernel
imports it as ``coursekit.i18n``, and the Jupyter server and the grader load it from its file
(``autograder/core/editions.py``) without paying for the torch import of ``coursekit/__init__``.
"""

from __future__ import annotations

import os
import string
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

__all__ = ["ENGLISH", "LANGUAGE_VARIABLE", "TRANSLATIONS", "available", "normalise", "language", "Catalog",
           "catalog", "notebook_strings", "Words", "N_", "gettext"]

ENGLISH = "en"
LANGUAGE_VARIABLE = "COURSEKIT_LANG"
# The catalogs sit beside the packages in the course's checkout; COURSEKIT_TRANSLATIONS points elsewhere (tests).
TRANSLATIONS = Path(os.environ.get("COURSEKIT_TRANSLATIONS") or Path(__file__).resolve().parent.parent / "translations")
# msgctxt of the strings a notebook's code hands to the course's checks and hidden tests (authoring/units.py
# extracts them): the lookups below are keyed by the English string in that context.
CHECK_CONTEXT = "check"
HIDDEN_CONTEXT = "hidden test"


@lru_cache(maxsize=None)
def available() -> tuple[str, ...]:
    """The languages that have catalogs (folders of translations/), sorted (read once per process)."""
    if not TRANSLATIONS.is_dir():
        return ()
    return tuple(sorted(p.name for p in TRANSLATIONS.iterdir() if p.is_dir() and not p.name.startswith(".")))


def normalise(code: str | None) -> str | None:
    """``code`` as the name of a language with catalogs ("pt-BR", "pt_br.UTF-8" -> "pt_BR"), ENGLISH for English
    ("en", "en_US.UTF-8", "C"), None when it names nothing the course has."""
    text = (code or "").strip().split(".")[0].split("@")[0].replace("-", "_")
    if not text:
        return None
    if text.lower() in ("c", "posix") or text.lower().split("_")[0] == ENGLISH:
        return ENGLISH
    return next((known for known in available() if known.lower() == text.lower()), None)


def _in_path(path: str) -> str | None:
    """The language of an edition's folder that ``path`` passes through, if any."""
    known = set(available())
    return next((part for part in reversed(Path(path).parts) if part in known), None) if path and known else None


def language(environ: dict[str, str] | None = None, cwd: str | None = None) -> str:
    """The language this kernel speaks to the student (see the module's docstring for the order)."""
    env = os.environ if environ is None else environ
    session = env.get("JPY_SESSION_NAME", "")
    if session.endswith(".ipynb"):
        return _in_path(session) or ENGLISH   # the notebook itself knows best: an English lesson is English
    explicit = normalise(env.get(LANGUAGE_VARIABLE))
    if explicit:
        return explicit
    try:
        here = cwd if cwd is not None else os.getcwd()
    except OSError:  # a working folder removed under the kernel
        return ENGLISH
    return _in_path(here) or ENGLISH


class _Prose(string.Formatter):
    """Fills a translated template: percentages in prose take the language's decimal sign (92,5%); every other
    field is formatted as Python formats it (a value stays as the code printed it)."""

    def __init__(self, decimal: str):
        super().__init__()
        self.decimal = decimal

    def format_field(self, value: Any, format_spec: str) -> str:
        text = super().format_field(value, format_spec)
        if format_spec.endswith("%") and isinstance(value, (int, float)) and self.decimal != ".":
            text = text.replace(".", self.decimal)
        return text


class Words(str):
    """A message in English that remembers how it was made (a template and its fields), so a page can say it again
    in the reader's language with ``Catalog.words``. Everywhere else it is the plain English string it equals.

    >>> Words("expected {n} rows", n=3)
    'expected 3 rows'
    """

    template: str
    fields: dict[str, Any]

    def __new__(cls, template: str, **fields: Any) -> "Words":
        self = super().__new__(cls, template.format(**fields))
        self.template, self.fields = template, fields
        return self

    def __reduce__(self):   # pickled (a worker process) it stays a message that can be translated
        return (_rebuild, (self.template, self.fields))


def _rebuild(template: str, fields: dict[str, Any]) -> Words:
    return Words(template, **fields)


class Catalog:
    """One language's translations of one catalog (or several merged), as ``(context, English) -> translation``."""

    def __init__(self, language: str, entries: dict[tuple[str | None, str], str] | None = None, decimal: str = "."):
        self.language = language
        self.entries = dict(entries or {})
        self.decimal = decimal

    def gettext(self, message: str, context: str | None = None) -> str:
        """The translation of ``message``, or ``message`` itself (English) when there is none."""
        return self.entries.get((context, message)) or message

    def words(self, message: Any) -> str:
        """``message`` in this language: a :class:`Words` is rebuilt from its translated template and translated
        fields; any other string is looked up whole; a template whose translation does not fit its fields (a
        translator's slip) falls back to English rather than failing a page."""
        if not isinstance(message, Words):
            return self.gettext(str(message)) if isinstance(message, str) else str(message)
        # Only fields that are Words themselves are translated: any other field is a value (a shape, a number, a
        # path), shown as it is even where it happens to read like a message.
        fields = {key: self.words(value) if isinstance(value, Words) else value for key, value in message.fields.items()}
        translated = self.gettext(message.template)
        try:
            return _Prose(self.decimal).format(translated, **fields)
        except (KeyError, IndexError, ValueError):
            return _Prose(self.decimal).format(message.template, **fields)

    def __bool__(self) -> bool:
        return bool(self.entries)


def _read(paths: Iterable[Path], contexts: tuple[str, ...] | None = None) -> dict[tuple[str | None, str], str]:
    import polib   # only where something is translated: English kernels never parse a catalog

    entries: dict[tuple[str | None, str], str] = {}
    for path in paths:
        for entry in polib.pofile(str(path), wrapwidth=0):
            if entry.obsolete or entry.fuzzy or not entry.msgstr or (contexts and entry.msgctxt not in contexts):
                continue
            entries[(entry.msgctxt, entry.msgid)] = entry.msgstr
    return entries


def _decimal(language: str) -> str:
    try:
        from babel.numbers import get_decimal_symbol
    except ImportError:   # the kernel's environment need not have Babel: prose numbers stay as Python writes them
        return "."
    try:
        return get_decimal_symbol(language)
    except Exception:  # noqa: BLE001 (an unknown locale to Babel: keep the point)
        return "."


@lru_cache(maxsize=None)
def catalog(name: str, language: str) -> Catalog:
    """The catalog ``translations/<language>/<name>.po``; empty (so: English) for English or a missing file."""
    path = TRANSLATIONS / language / f"{name}.po"
    if language == ENGLISH or not path.is_file():
        return Catalog(language)
    return Catalog(language, _read([path]), _decimal(language))


@lru_cache(maxsize=None)
def notebook_strings(language: str) -> Catalog:
    """What the notebooks' code hands to checks and hidden tests (hints, names, messages), from every notebook
    catalog of ``language`` at once: a kernel does not always know which notebook it runs, and an English hint
    reads the same wherever it is written."""
    folder = TRANSLATIONS / language
    if language == ENGLISH or not folder.is_dir():
        return Catalog(language)
    return Catalog(language, _read(sorted(folder.glob("*.po")), (CHECK_CONTEXT, HIDDEN_CONTEXT)), _decimal(language))


def N_(message: str) -> str:
    """Marks ``message`` for the catalogs (``translations --update`` finds it) where it is translated later."""
    return message


def gettext(message: str) -> str:
    """``message`` in the kernel's language, from coursekit's catalog (the package's own words)."""
    lang = language()
    return message if lang == ENGLISH else catalog("coursekit", lang).gettext(message)
