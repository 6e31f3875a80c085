"""Feedback pages: what a student sees of their graded notebook, and nothing more.

- Hidden tests never appear: their regions are cut from every test cell's source, every line of
  hidden-test source is cut from every output of every cell (a student's code can print the cell it
  runs in), and test-cell tracebacks are reduced to their message, which the course writes as a hint.
- The grader's own lines (the guard's check, the completion tokens) are cut the same way.
- Nothing in the page runs: outputs and markdown are sanitised (no scripts, event handlers or
  ``javascript:`` links; JavaScript and widget outputs are dropped), every ``<script>`` element is
  removed, and a Content-Security-Policy forbids scripts in case anything slipped through.
"""

from __future__ import annotations

import copy
import html
import re
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from . import notebooks
from .compose import Plan, epilogue, prologue
from .results import SubmissionResult

BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
HIDDEN_NOTE = "# (hidden tests ran here; they are not shown)"
REDACTED = "[a line of the hidden tests was removed here]"
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"
_SCRIPT = re.compile(r"<script\b.*?</script\s*>", re.S | re.I)
# A last pass over the whole page, after every cell was sanitised: nothing of these may remain.
_HANDLER = re.compile(r"""(<[^>]*?)\son[a-z]+\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""", re.I)
_BAD_URL = re.compile(r"""\b(href|src|action|formaction|xlink:href)\s*=\s*(["']?)\s*(javascript|vbscript|data):""", re.I)
_EMBEDS = re.compile(r"<(iframe|object|embed|base|form)\b[^>]*>", re.I)
_MARKDOWN_TAGS = {"p", "div", "span", "img", "br", "hr", "pre", "code", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6",
                  "table", "thead", "tbody", "tr", "td", "th", "sub", "sup", "del", "ins", "dl", "dt", "dd"}


def strip_hidden(source: str) -> tuple[str, bool]:
    """Source without its hidden-test regions (marker lines included), and whether any was cut."""
    kept, hidden, cut = [], False, False
    for line in source.split("\n"):
        if BEGIN in line:
            hidden = cut = True
            kept.append(line[: len(line) - len(line.lstrip())] + HIDDEN_NOTE)
        elif END in line:
            hidden = False
        elif not hidden:
            kept.append(line)
    return "\n".join(kept), cut


class HideHiddenTests(Preprocessor):
    """Cut hidden regions from test cells and reduce their tracebacks to the error's message."""

    enabled = Bool(True)  # nbconvert preprocessors are off unless enabled

    def preprocess_cell(self, cell, resources, index):
        if not notebooks.is_test_cell(cell):
            return cell, resources
        cell.source, _ = strip_hidden(cell.source)
        for output in notebooks.errors(cell):
            message = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}".rstrip(": ")
            output["traceback"] = [message, "(the test code is not shown; the message above says what to fix)"]
        return cell, resources


class TruncateOutputs(Preprocessor):
    """Cut any text output longer than ``limit`` characters, so a flood of prints stays readable."""

    enabled = Bool(True)
    limit = 20_000

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            if isinstance(output.get("text"), str) and len(output["text"]) > self.limit:
                cut = len(output["text"]) - self.limit
                output["text"] = output["text"][: self.limit] + f"\n... [{cut:,} more characters cut by the grader]\n"
            data = output.get("data", {})
            text = data.get("text/plain")
            if isinstance(text, str) and len(text) > self.limit:
                data["text/plain"] = text[: self.limit] + "\n... [cut by the grader]\n"
            for key in list(data):
                if key not in ("text/plain", "image/png") and len(str(data[key])) > self.limit:
                    del data[key]
        return cell, resources


def prepare_for_feedback(nb):
    """``nb`` (an executed notebook, changed in place and returned) after every step of settings.FEEDBACK_STEPS."""
    from traitlets.utils.importstring import import_item

    from .settings import FEEDBACK_STEPS

    for path in FEEDBACK_STEPS:
        nb, _ = import_item(path)(enabled=True).preprocess(nb, {})
    return nb


# --- what the grader added, and what a student's code printed of the hidden tests ------------------

def _redact_text(text: str, secrets: list[str], hidden: list[str]) -> str:
    lines = []
    for line in text.split("\n"):
        if any(s in line for s in secrets):
            continue
        if any(h in line for h in hidden):
            lines.append(REDACTED)
            continue
        lines.append(line)
    return "\n".join(lines)


def _redact_value(value, secrets: list[str], hidden: list[str]):
    if isinstance(value, str):
        return _redact_text(value, secrets, hidden)
    if isinstance(value, list):
        return [_redact_value(v, secrets, hidden) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v, secrets, hidden) for k, v in value.items()}
    return value


def redact(nb, plan: Plan, hidden: list[str]) -> None:
    """Remove the grader's lines and tokens from ``nb``, and hidden-test lines from every output."""
    secrets = [slot.token for slot in plan.tests] + [slot.nonce for slot in plan.tests]
    for slot in plan.tests:
        cell = nb.cells[slot.index]
        own = {prologue(slot.grade_id, slot.nonce), epilogue(slot.token)}
        cell.source = "\n".join(line for line in cell.source.split("\n") if line not in own).strip("\n")
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            for key in ("text", "evalue", "traceback", "data"):
                if key in output:
                    output[key] = _redact_value(output[key], secrets, hidden)


def sanitize_markdown(nb) -> None:
    """Replace each markdown cell by its rendering with anything active removed (links keep only
    http, https and mailto; no scripts, handlers or frames)."""
    import bleach
    from nbconvert.filters.markdown import markdown2html

    tags = set(bleach.sanitizer.ALLOWED_TAGS) | _MARKDOWN_TAGS
    attributes = {"a": ["href", "title"], "img": ["src", "alt", "title"], "td": ["align"], "th": ["align"]}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = bleach.clean(markdown2html(cell.source), tags=tags, attributes=attributes,
                                       protocols=["http", "https", "mailto"], strip=False)


# --- the page ------------------------------------------------------------------------------------

def _exporter():
    import nbgrader
    from nbconvert.exporters import HTMLExporter
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbconvert.preprocessors.sanitize import SanitizeHTML

    package = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
    exporter = HTMLExporter(template_name="feedback", extra_template_basedirs=[str(package / "templates")],
                            extra_template_paths=[str(package / "static" / "node_modules" / "bootstrap" / "dist" / "css")],
                            sanitize_html=True)
    exporter.register_preprocessor(SanitizeHTML(), enabled=True)
    exporter.register_preprocessor(CSSHTMLHeaderPreprocessor(), enabled=True)
    return exporter


def _no_scripts(page: str) -> str:
    page = _SCRIPT.sub("", page)
    while _HANDLER.search(page):
        page = _HANDLER.sub(r"\1", page)
    page = _BAD_URL.sub(r"\1=\2#blocked:", page)
    page = _EMBEDS.sub("", page)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{CSP}" />'
    return page.replace("<head>", f"<head>\n{meta}", 1)


def render_page(nb, plan: Plan, result: SubmissionResult, hidden: list[str]) -> str:
    """The feedback page for one executed notebook (``nb`` is not changed)."""
    nb = copy.deepcopy(nb)
    redact(nb, plan, hidden)
    scores = {c.cell: c for c in result.cells}
    for cell in nb.cells:
        meta = notebooks.grading(cell)
        if notebooks.is_test_cell(cell) and meta.get("grade_id") in scores:
            meta["score"], meta["points"] = scores[meta["grade_id"]].score, scores[meta["grade_id"]].max_score
    nb.metadata.pop("widgets", None)
    sanitize_markdown(nb)
    nb = prepare_for_feedback(nb)
    resources = {"nbgrader": {"student": result.student, "assignment": result.assignment, "notebook": result.assignment,
                              "score": result.score, "max_score": result.max_score, "late_penalty": 0}}
    body, _ = _exporter().from_notebook_node(nb, resources=resources)
    return _no_scripts(body)


def problem_page(result: SubmissionResult) -> str:
    """A short feedback page for a submission that could not be graded normally."""
    rows = "".join(f"<tr><td>{html.escape(c.cell)}</td><td>{c.score:g} / {c.max_score:g}</td>"
                   f"<td>{html.escape(c.status)}</td></tr>" for c in result.cells)
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}" />'
        f"<title>{html.escape(result.assignment)}</title></head><body>"
        f"<h1>{html.escape(result.assignment)}: {html.escape(result.status)}</h1>"
        f"<p>{html.escape(result.reason)}</p>"
        f"<p>Score: {result.score:g} / {result.max_score:g}</p>"
        f"<table><tr><th>graded cell</th><th>points</th><th>status</th></tr>{rows}</table></body></html>\n"
    )
