"""``release``: regenerate the student copies in lessons/ from the sources in solutions/."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ..core import course, editions, notebooks, settings
from . import catalogs, links, nbval_tags, translate
from .nbgrader_run import nbgrader, write_config


class ReleaseError(RuntimeError):
    pass


def tidy_sources(names: list[str]) -> list[Path]:
    """Make each source notebook canonical (see notebooks.tidy); return those that changed."""
    changed = []
    for name in names:
        path = course.solution_notebook(name)
        if notebooks.write(notebooks.tidy(notebooks.read(path)), path):
            changed.append(path)
    return changed


def copy_source(name: str, dest: Path) -> None:
    shutil.copytree(course.SOLUTIONS / name, dest / name, ignore=shutil.ignore_patterns(*settings.IGNORED))


def generate(names: list[str], into: Path) -> dict[str, list[Path]]:
    """Run nbgrader generate_assignment for ``names`` and write the results under ``into``.

    nbgrader works in a scratch folder (so no gradebook appears in the course), and files are only
    rewritten when their content changes, so a second release leaves every byte as it was.
    """
    written: dict[str, list[Path]] = {}
    with tempfile.TemporaryDirectory(prefix="release-") as tmp:
        root = Path(tmp)
        write_config(root)
        for name in names:
            copy_source(name, root / "source")
        # One nbgrader process for them all: the scratch source folder holds exactly ``names``, so "*" releases
        # those and nothing else (each nbgrader start costs about 2 s, the conversion itself a fraction of that).
        result = nbgrader(["generate_assignment", "*", "--force", "--no-db"], root)
        missing = [name for name in names if not (root / "release" / name).is_dir()]
        if result.returncode != 0 or missing:
            raise ReleaseError(f"nbgrader could not release {', '.join(missing) or ', '.join(names)}:\n"
                               f"{result.output[-4000:]}")
        for name in names:
            out_dir = root / "release" / name
            written[name] = []
            for produced in sorted(out_dir.rglob("*")):
                if produced.is_dir():
                    continue
                target = into / name / produced.relative_to(out_dir)
                if produced.suffix == ".ipynb":
                    solution = notebooks.read(course.solution_notebook(name))
                    lesson, pages = _with_local_pages(nbval_tags.tag_lesson(notebooks.read(produced), solution))
                    changed = notebooks.write(lesson, target)
                    for page in sorted(pages):   # the pages of docs/ the lesson links to, beside it
                        copy = target.parent / Path(page).name
                        if _write_text(copy, links.page_copy(page)):
                            written[name].append(copy)
                    for stale in links.stale_copies(target.parent, pages):   # a copy no link needs any more
                        stale.unlink()
                        written[name].append(stale)
                else:
                    changed = not target.exists() or target.read_bytes() != produced.read_bytes()
                    if changed:
                        target.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(produced, target)
                if changed:
                    written[name].append(target)
    return written


def _with_local_pages(lesson):
    """The lesson with its markdown's links to docs/ pointing at copies beside it, and the pages those need."""
    pages: set[str] = set()
    for cell in lesson.cells:
        if cell.cell_type == "markdown":
            cell.source, needed = links.localise(cell.source)
            pages |= needed
    return lesson, pages


def _write_text(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` only if it changes; return whether it did."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def release_editions(names: list[str], into: Path, chosen: list[editions.Edition],
                     preview: bool = False) -> dict[str, list[Path]]:
    """Each chosen edition of the English lessons ``names`` (already released into ``into``), as
    ``into/<code>/<name>/``: the shipped ones, or with ``preview`` every one the edition translates (core/editions.py).
    Keyed by "<code>/<name>"."""
    written: dict[str, list[Path]] = {}
    for edition in chosen:
        wanted = edition.targets() if preview else edition.shipped_notebooks()
        for name in names:
            if name in wanted:
                written[f"{edition.code}/{name}"] = translate.write_lesson(edition.code, name, into / name, into)
    return written


def _not_released(names: list[str], chosen: list[editions.Edition]) -> list[str]:
    """Why a named lesson gets no edition in a chosen language, one line each."""
    lines = []
    for edition in chosen:
        for name in names:
            if name in edition.targets() and name not in edition.shipped:
                coverage = catalogs.status(edition, name).coverage
                lines.append(f"{edition.code}/{name}: in progress ({coverage:.0%} translated), not released; preview it with "
                             f"--into DIR, or ship it in autograder/core/editions.py once `python -m autograder "
                             f"translations --check` shows it complete")
    return lines


def release(names: list[str] | None = None, into: Path | None = None, tidy: bool = True,
            languages: list[str] | None = None) -> dict[str, list[Path]]:
    """The English lessons ``names`` (default all), then their editions in ``languages`` (default every edition; the
    shipped lessons, or with ``into`` every one an edition translates, as a preview), then, on a release of the whole
    course, the shipped editions of the documents."""
    whole = not names
    names = course.assignments(names)
    chosen = editions.chosen(languages)
    if tidy:
        for path in tidy_sources(names):
            print(f"tidied {path.relative_to(course.ROOT)} (cell ids, outputs, metadata)")
    written = generate(names, into or course.LESSONS)
    written |= release_editions(names, into or course.LESSONS, chosen, preview=into is not None and bool(languages))
    for name, files in written.items():
        print(f"{name}: " + (", ".join(str(p.relative_to(p.parents[1])) for p in files) + " updated" if files else "unchanged"))
    if into is None and languages and not whole:
        for line in _not_released(names, chosen):
            print(line)
    if whole and into is None:
        for edition in chosen:
            for document in edition.shipped_documents():
                changed = translate.write_document(edition.code, document)
                path = editions.document_path(edition.code, document).relative_to(course.ROOT)
                print(f"{path}: {'updated' if changed else 'unchanged'}")
    return written
