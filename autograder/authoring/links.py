"""Links in the course's markdown: what they point at, and the pages of docs/ that lessons carry beside them.

A student's JupyterLab opens at ``lessons/`` (and a lesson fetched on a shared server is its folder alone), so a link
from a lesson to ``../../docs/...`` would lead nowhere. A solution notebook links a page of docs/ (or a result page of
bench/results/) as the repository holds it, ``../../docs/pytorch-patterns.md#anchor`` (that link works in the
instructor's JupyterLab and on GitHub);
``release`` rewrites it in the lesson to a copy beside the notebook, ``pytorch-patterns.md#anchor``, and writes that
copy (:func:`page_copy`). GitHub names a heading's anchor one way (:func:`slug`) and JupyterLab another (the heading's
words joined by dashes, case and punctuation kept), so the copy carries an HTML anchor under GitHub's name before
each heading: one link then scrolls to its heading in both.

:func:`links` and :func:`anchors` are also what ``tests/test_links.py`` reads to find links that lead nowhere.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..core import course

# A markdown link or image: [text](target) or [text](target "title"); the target without spaces.
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"\s*>", re.IGNORECASE)
# In a lesson's source: a link to a page of docs/ or of bench/results/, from solutions/NN/ (two levels down).
_DOCS_LINK = re.compile(r"\]\(\.\./\.\./((?:docs|bench/results)/[A-Za-z0-9_.-]+\.md)(#[^)\s]*)?\)")


def _outside_code(text: str) -> list[str]:
    """The lines of ``text`` outside fenced code blocks, inline code blanked out (links in code are not links)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        lines.append("" if fenced else re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line))
    return lines


def links(text: str) -> list[str]:
    """Every link target of the markdown ``text``, in order (links inside code are left out)."""
    return [match.group(1) for line in _outside_code(text) for match in _LINK.finditer(line)]


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its words in lower case, punctuation (and inline code's backticks) dropped,
    spaces turned into dashes."""
    words = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link in a heading keeps its text
    words = re.sub(r"[^\w\- ]", "", words.strip().lower())
    return words.replace(" ", "-")


def headings(text: str) -> list[str]:
    """The headings of the markdown ``text`` (outside fenced code), in order."""
    found, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            found.append(match.group(2))
    return found


def anchors(text: str) -> set[str]:
    """Every anchor a link may name in the markdown ``text``: GitHub's for each heading (a repeated one gets -1, -2,
    ... as GitHub numbers them), JupyterLab's (the heading's words joined by dashes), and explicit HTML anchors."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in headings(text):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
        found.add(re.sub(r"`", "", heading).replace(" ", "-"))
    found |= {match.group(1) for match in _HTML_ANCHOR.finditer(text)}
    return found


def localise(markdown: str) -> tuple[str, set[str]]:
    """A lesson's markdown with its links to pages of docs/ (or bench/results/) pointing at copies beside the
    notebook, and the pages it needs, as paths from the course root ("docs/pytorch-patterns.md")."""
    pages: set[str] = set()

    def beside(match: re.Match) -> str:
        pages.add(match.group(1))
        return f"]({Path(match.group(1)).name}{match.group(2) or ''})"

    return _DOCS_LINK.sub(beside, markdown), pages


_NOTE = "<!-- A copy of "


def _note(source: str) -> str:
    return (f"{_NOTE}{source}, written beside this lesson by `python -m autograder release` so that the lesson's links "
            f"open here; edit {source} instead. -->")


def stale_copies(folder: Path, pages: set[str]) -> list[Path]:
    """Copies in a lesson's folder that release wrote (they start with its note) and that no link needs now."""
    wanted = {Path(page).name for page in pages}
    return [path for path in sorted(folder.glob("*.md")) if path.name not in wanted
            and path.read_text(encoding="utf-8").startswith(_NOTE)]


def _heading_anchors(text: str) -> list[str]:
    """The anchor GitHub gives each heading of ``text`` outside code fences, in order (a repeated one numbered)."""
    found, fenced, seen = [], False, {}
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.append(base if count == 0 else f"{base}-{count}")
    return found


def page_copy(source: str, translated: str | None = None) -> str:
    """The page ``source`` (a path from the course root, "docs/pytorch-patterns.md") as a lesson carries it: a line
    that says where it comes from, then the page, with an HTML anchor under GitHub's name before each heading, so that
    a link's anchor works in JupyterLab too. ``translated``: an edition's text of the page, whose headings keep the
    English anchors (the lesson's links name them), heading for heading."""
    english = (course.ROOT / source).read_text(encoding="utf-8")
    if any(not target.startswith(("#", "http://", "https://", "mailto:")) for target in links(english)):
        raise ValueError(f"{source} links to other files: a lesson's copy of it cannot follow those links")
    text = english if translated is None else translated
    anchors = iter(_heading_anchors(english))
    if translated is not None and len(_heading_anchors(translated)) != len(_heading_anchors(english)):
        raise ValueError(f"the translation of {source} does not have the headings of its English")
    out, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and _HEADING.match(line):
            out += [f'<a id="{next(anchors)}"></a>', ""]
        out.append(line)
    return "\n".join([_note(source), "", *out]) + "\n"
