"""The course's editions: the languages it is translated into, what each translates, and what each ships.

This module owns one fact: **which translations are shipped**. A shipped catalog is declared complete: `release`
writes its lesson (``lessons/<code>/NN/NN.ipynb``) or document (``docs/<code>/<name>.md``), and
``python -m autograder translations --check`` (and the suite) fails until every entry is translated and current.
A catalog that is not shipped yet is *in progress*: it exists in ``translations/<code>/``, the check reports its
coverage, and nothing is released from it. To ship one, add its name to ``shipped`` below once
``translations --check`` shows it at 100%, and run ``python -m autograder release``.

The catalogs themselves (``translations/<code>/<name>.po``) are read by ``coursekit/i18n.py``, loaded here from its
file so that the Jupyter server and the command line do not import torch (``i18n``).
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from . import course

# Catalogs of the course's own words: the package the notebooks import (checks, data helpers, plots), the
# Validate button, and the grader (the feedback page, its verdicts, the marker of an untranslated paragraph).
PACKAGES = ("coursekit", "courselab", "autograder")
# Documents translated like the lessons, by paragraph; each edition's copy is docs/<code>/<name>.md.
DOCUMENTS = {"pytorch-patterns": course.ROOT / "docs" / "pytorch-patterns.md"}
# The key of a notebook's metadata that names its language (absent: English).
LANGUAGE_KEY = "language"
EVERY_NOTEBOOK = "*"


@dataclass(frozen=True)
class Edition:
    code: str                     # gettext's language code; the name of its folders in translations/, lessons/, docs/
    name: str                     # the language's name, in the language
    language_pack: str            # JupyterLab's language pack on PyPI (requirements.txt), for the menus
    notebooks: tuple[str, ...]    # the notebooks it translates (EVERY_NOTEBOOK: all of them)
    documents: tuple[str, ...]    # the documents it translates (keys of DOCUMENTS)
    shipped: tuple[str, ...]      # the catalogs declared complete (released; the suite fails unless 100%)

    def targets(self) -> list[str]:
        """Every catalog this edition has: the packages', then its notebooks', then its documents'."""
        notebooks = course.assignments() if EVERY_NOTEBOOK in self.notebooks else list(self.notebooks)
        return list(PACKAGES) + notebooks + list(self.documents)

    def shipped_notebooks(self) -> list[str]:
        return [name for name in course.assignments() if name in self.shipped]

    def shipped_documents(self) -> list[str]:
        return [name for name in self.documents if name in self.shipped]


EDITIONS: dict[str, Edition] = {
    "pt_BR": Edition(
        code="pt_BR", name="Português (Brasil)", language_pack="jupyterlab-language-pack-pt-BR",
        notebooks=(EVERY_NOTEBOOK,), documents=(),
        shipped=PACKAGES + ("00_setup", "01_tensors", "02_autograd", "03_modules", "04_losses_optimizers",
                            "05_training_loop", "06_data", "07_devices_amp", "08_mnist_mlp", "09_patterns",
                            "ex1_batchnorm", "ex2_lr_finder", "ex3_amp", "ex4_fashion_mnist", "ex5_sgd_momentum")),
    "zh_TW": Edition(
        code="zh_TW", name="繁體中文（台灣）", language_pack="jupyterlab-language-pack-zh-TW",
        notebooks=("09_patterns",), documents=("pytorch-patterns",),
        shipped=PACKAGES + ("09_patterns", "pytorch-patterns")),
}


def edition(code: str) -> Edition:
    """The edition ``code`` ("pt-BR" and "pt_br" are accepted); an unknown one is an error that lists the editions."""
    wanted = code.replace("-", "_").split(".")[0].lower()
    for known in EDITIONS.values():
        if known.code.lower() == wanted:
            return known
    raise SystemExit(f"unknown language {code!r}: the course's editions are {', '.join(EDITIONS)} "
                     "(autograder/core/editions.py)")


def chosen(codes: list[str] | None) -> list[Edition]:
    """The editions named by ``--lang`` options (``all`` or none: every edition)."""
    if not codes or "all" in codes:
        return list(EDITIONS.values())
    return [edition(code) for code in codes]


def catalog_path(code: str, name: str) -> Path:
    return course.ROOT / "translations" / code / f"{name}.po"


def lesson_notebook(code: str, name: str) -> Path:
    return course.LESSONS / code / name / f"{name}.ipynb"


def document_path(code: str, name: str) -> Path:
    return course.ROOT / "docs" / code / f"{name}.md"


def notebook_language(nb) -> str:
    """The edition a notebook belongs to, from its metadata: a shipped edition's code, or "en" (anything else, a
    student's edit included, is English: the language only chooses words, never what is graded)."""
    value = nb.get("metadata", {}).get(LANGUAGE_KEY) if isinstance(nb.get("metadata"), dict) else None
    return value if isinstance(value, str) and value in EDITIONS else i18n().ENGLISH


def i18n() -> ModuleType:
    """``coursekit.i18n``, the one reader of catalogs, loaded from its file when coursekit is not imported yet (it
    is standalone; importing coursekit itself would import torch). Registered under its own name, so a later
    ``import coursekit.i18n`` finds this very module."""
    loaded = sys.modules.get("coursekit.i18n")
    if loaded is not None:
        return loaded
    package = importlib.util.find_spec("coursekit")   # finds the folder without importing the package
    if package is None or not package.origin:
        raise ImportError("coursekit is not installed: run `make install`")
    spec = importlib.util.spec_from_file_location("coursekit.i18n", Path(package.origin).parent / "i18n.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["coursekit.i18n"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules["coursekit.i18n"]
        raise
    return module


def words(name: str, code: str):
    """The ``Catalog`` of ``translations/<code>/<name>.po`` (English for "en" or a missing catalog)."""
    return i18n().catalog(name, code)
