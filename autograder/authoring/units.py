"""What a translator translates, cut out of the English: markdown by paragraph, code comments, and the strings a
notebook's code hands to the course's checks and hidden tests.

The same cuts serve both ways: ``translations --update`` reads the English into catalog entries, and ``release``
puts each entry's translation back in its place (``authoring/translate.py``). Nothing else of a cell is touched:
code, strings, cell ids and metadata stay the English lesson's.

Markdown is cut into blocks (docs/translations/README.md shows the rules): a heading, a paragraph, one list item, a
block quote, a whole table; the English of a block, with its line breaks folded into spaces, is the message id, so
rewrapping a paragraph changes nothing. Fenced code and display maths (``$$`` on lines of their own) are never
translated, except the comments of a fenced Python block. Why not mdpo: it gives every table cell its own entry
(a translator sees "2" or "then" without the row), asks for display maths as if it were prose, renumbers ordered
lists and respaces ``$$`` when it writes the markdown back, and shows an untranslated paragraph in English with no
mark, where an edition must say so.

Comments come from Python's tokenizer, so a ``#`` inside a string is never taken for one; a comment without a word
(``# (2, 3)``) is left alone.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Callable, Iterator

from ..core import editions

# msgctxt of the strings that code hands to checks and hidden tests (coursekit/i18n.py looks them up by it).
CHECK_CONTEXT, HIDDEN_CONTEXT = editions.i18n().CHECK_CONTEXT, editions.i18n().HIDDEN_CONTEXT

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
_HEADING = re.compile(r"^(\s*#{1,6}\s+)(.*?)\s*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(\s+)(\S.*)$")
_QUOTE = re.compile(r"^(\s*>\s?)(.*)$")
_WORD = re.compile(r"[^\W\d_]{2,}")
_NO_COMMENT = re.compile(r"^#+\s*(YOUR CODE HERE|YOUR ANSWER HERE|BEGIN |END |noqa|type:|pragma|%%|!)")
PYTHON_FENCES = ("python", "py", "python3", "ipython", "ipython3")


@dataclass
class Block:
    """A run of markdown lines: translatable (``body`` is its message id) or kept as it is."""
    lines: list[str]
    kind: str                  # heading, paragraph, item, quote, table; or code, math, blank (kept)
    lead: str = ""             # what precedes the text on the first line ("## ", "  1. ", "> ")
    rest: str = ""             # what precedes the text on the lines after it (an item's indent, "> ")
    language: str = ""         # a fenced block's language

    @property
    def body(self) -> str:
        if self.kind == "table":
            return "\n".join(line.strip() for line in self.lines)
        first = self.lines[0][len(self.lead):]
        rest = [line[len(self.rest):] if line.startswith(self.rest) else line for line in self.lines[1:]]
        return " ".join(part.strip() for part in [first, *rest] if part.strip())

    @property
    def translatable(self) -> bool:
        return self.kind in ("heading", "paragraph", "item", "quote", "table") and bool(_WORD.search(self.body))


def _starts_block(line: str, in_paragraph: bool) -> bool:
    """Whether ``line`` starts a block of its own after a paragraph's line (CommonMark: an ordered list interrupts a
    paragraph only when it starts at 1, so a wrapped '1998. ' stays in its paragraph)."""
    if not line.strip() or _FENCE.match(line) or _HEADING.match(line) or line.lstrip().startswith(("|", "$$")):
        return True
    item = _ITEM.match(line)
    if item:
        marker = item.group(2)
        return not in_paragraph or not marker[0].isdigit() or marker[:-1] == "1"
    return False


def blocks(text: str) -> list[Block]:
    """``text`` (markdown) as blocks; joining every block's lines with newlines gives ``text`` back."""
    lines = text.split("\n")
    out: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            end = i + 1
            while end < len(lines) and not lines[end].strip().startswith(fence.group(2)):
                end += 1
            out.append(Block(lines[i:end + 1], "code", language=fence.group(3).lower()))
            i = end + 1
            continue
        if not line.strip():
            out.append(Block([line], "blank"))
            i += 1
            continue
        if line.lstrip().startswith("$$"):
            end = i
            while not (lines[end].rstrip().endswith("$$") and (end > i or len(lines[end].strip()) > 2)) and end + 1 < len(lines):
                end += 1
            out.append(Block(lines[i:end + 1], "math"))
            i = end + 1
            continue
        heading = _HEADING.match(line)
        if heading:
            out.append(Block([line], "heading", lead=heading.group(1)))
            i += 1
            continue
        if line.lstrip().startswith("|"):
            end = i
            while end + 1 < len(lines) and lines[end + 1].lstrip().startswith("|"):
                end += 1
            out.append(Block(lines[i:end + 1], "table"))
            i = end + 1
            continue
        quote = _QUOTE.match(line)
        item = _ITEM.match(line)
        if quote:
            end = i
            while end + 1 < len(lines) and _QUOTE.match(lines[end + 1]) and lines[end + 1].strip() != ">":
                end += 1
            out.append(Block(lines[i:end + 1], "quote", lead=quote.group(1), rest=quote.group(1)))
            i = end + 1
            continue
        if item:
            lead = item.group(1) + item.group(2) + item.group(3)
            kind, rest = "item", " " * len(lead)
        else:
            lead = line[: len(line) - len(line.lstrip())]
            kind, rest = "paragraph", lead
        end = i
        while end + 1 < len(lines) and not _starts_block(lines[end + 1], in_paragraph=kind == "paragraph"):
            end += 1
        out.append(Block(lines[i:end + 1], kind, lead=lead, rest=rest))
        i = end + 1
    return out


def render(block: Block, text: str) -> list[str]:
    """The lines of ``block`` with ``text`` (a translation of its body) in place of its English."""
    if block.kind == "table":
        return text.split("\n")
    if block.kind == "heading":
        return [block.lead + " ".join(text.split())]
    first, *more = text.split("\n")
    return [block.lead + first] + [block.rest + line if line.strip() else line for line in more]


def with_marker(block: Block, marker: str) -> list[str]:
    """The English lines of ``block`` with ``marker`` where a reader sees it: at the end of its text, or, after a
    table, in a paragraph of its own."""
    if block.kind == "table":
        return block.lines + ["", marker]
    return block.lines[:-1] + [block.lines[-1].rstrip() + " " + marker]


# --- code ------------------------------------------------------------------------------------------------------

@dataclass
class Comment:
    line: int       # 0-based line of the source
    column: int
    lead: str       # "# " (the hashes and the space before the words)
    text: str       # the words: the message id


def comments(source: str) -> list[Comment]:
    """The comments of a Python cell or block that hold words; none when the tokenizer cannot read it (IPython
    magics it does not know, a cell that does not parse yet)."""
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type != tokenize.COMMENT or _NO_COMMENT.match(token.string):
                continue
            words = token.string.lstrip("#")
            text = words.strip()
            if not _WORD.search(text) or text.startswith("!"):
                continue
            lead = token.string[: len(token.string) - len(words)] + words[: len(words) - len(words.lstrip())]
            found.append(Comment(token.start[0] - 1, token.start[1], lead, text))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    return found


def replace_comments(source: str, translate: Callable[[str], str | None]) -> str:
    """``source`` with each comment's words replaced by ``translate(words)`` where it gives one."""
    lines = source.split("\n")
    for comment in comments(source):
        translated = translate(comment.text)
        if translated:
            line = lines[comment.line]
            lines[comment.line] = line[: comment.column] + comment.lead + " ".join(translated.split())
    return "\n".join(lines)


# --- strings handed to checks and hidden tests ------------------------------------------------------------------

CHECK_FUNCTIONS = {"check", "check_tensor", "check_shape", "check_dtype", "check_device", "check_close", "check_equal",
                   "passed"}


def prose(text: str) -> bool:
    """A name worth translating reads as words ("the two channels of pixel (0, 0)"), not as code ("make_grid(2, 3)")."""
    return sum(1 for word in text.split() if re.fullmatch(r"[^\W\d_]{2,}[,.:;]?", word)) >= 2


def _text(node: ast.AST | None, names: dict[str, str]) -> str | None:
    """The string ``node`` always is: a literal, a name the code set to one, or such strings added together."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left, names), _text(node.right, names)
        return left + right if left is not None and right is not None else None
    return None


def _literal_names(tree: ast.AST) -> dict[str, str]:
    """Names a cell sets once, to a string it always is (``hint = "..."`` above the calls that use it)."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    value = _text(node.value, found) if isinstance(node, ast.Assign) and node.value is not None else None
                    if target.id in seen or value is None:
                        found.pop(target.id, None)   # set twice, or to something computed: not a constant
                    else:
                        found[target.id] = value
                    seen.add(target.id)
    return found


@dataclass
class CodeString:
    text: str
    context: str
    what: str       # "hint", "name", "message": for the translator's note
    line: int = 0


def _called(node: ast.Call) -> tuple[str, str]:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
    return owner, name


def code_strings(source: str, hidden: bool) -> list[CodeString]:
    """The constant strings of ``source`` that the student reads when a check fails: the hints, the messages and the
    prose names given to coursekit's checks (``hidden`` False) or to ``coursekit.hidden``'s functions (True): a
    literal, a name set once to one, or literals added together. A computed string (an f-string, a value added in)
    is left out: it shows in English."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found: list[CodeString] = []
    context = HIDDEN_CONTEXT if hidden else CHECK_CONTEXT
    names = _literal_names(tree)

    def _constant(node: ast.AST | None) -> str | None:
        text = _text(node, names)
        return text if text and text.strip() else None

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        owner, name = _called(node)
        if hidden and owner != "hidden":
            continue
        if not hidden and name not in CHECK_FUNCTIONS:
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        hint = _constant(keywords.get("hint"))
        label = _constant(keywords.get("name"))
        what = _constant(keywords.get("what"))
        if name == "passed" and not hidden:
            what = _constant(node.args[0] if node.args else None)
        if name == "check" and not hidden:
            what = what or _constant(node.args[1] if len(node.args) > 1 else None)
            hint = hint or _constant(node.args[2] if len(node.args) > 2 else None)
        if hidden:
            label = label or _constant(node.args[0] if node.args else None)
        for text, kind in ((what, "message"), (label, "name"), (hint, "hint")):
            if text and (kind != "name" or prose(text)):
                found.append(CodeString(text, context, kind, node.lineno))
    found.sort(key=lambda s: s.line)
    return found


# --- a catalog's units ------------------------------------------------------------------------------------------

@dataclass
class Unit:
    """One entry of a catalog: its message id, its context, where it occurs and what it is (for the translator)."""
    msgid: str
    context: str | None = None
    where: list[str] = field(default_factory=list)
    note: str = ""
    fields: bool = False          # a template with {fields} (Python's format): a translation must keep them


def markdown_units(text: str, where: str) -> Iterator[Unit]:
    for block in blocks(text):
        if block.translatable:
            yield Unit(block.body, where=[where], note="markdown table: keep its rows and pipes" if block.kind == "table"
                       else f"markdown {block.kind}")
        elif block.kind == "code" and block.language in PYTHON_FENCES:
            for comment in comments("\n".join(block.lines[1:-1])):
                yield Unit(comment.text, where=[where], note="comment in a code block")


def merged(units: Iterator[Unit]) -> list[Unit]:
    """Units in order of first appearance, one per (context, message id), their places put together."""
    found: dict[tuple[str | None, str], Unit] = {}
    for unit in units:
        key = (unit.context, unit.msgid)
        if key in found:
            found[key].where += [w for w in unit.where if w not in found[key].where]
        else:
            found[key] = unit
    return list(found.values())
