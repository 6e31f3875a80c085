"""Feedback pages: what a student sees of their graded notebook, and nothing more.

What the page shows:

- every markdown cell, and the source of every cell the student wrote;
- what the cells printed, drew or raised **up to the first test cell** only: from there on the kernel
  has received hidden tests, so nothing it writes (stdout, stderr, tracebacks, display data) may reach
  the page, in any encoding. A note marks the place;
- for each test cell, its visible checks (the hidden region replaced by a note) and the grader's own
  verdict in place of its output: the points, each failed check with what was expected and what came
  back (shapes, dtypes, numbers; never a string, an error message or a class name the kernel made) and
  the course's hint for it (verdicts.py, rules.py).

Nothing in the page runs: markdown and outputs are made inert by nh3 (``make_inert``, core/inert.py: no
scripts, event handlers, frames, ``javascript:`` links or fetched images; a pasted image shows inline; SVG
only as an image; JavaScript and widget outputs dropped), and a Content-Security-Policy forbids every script
and every request in case anything slipped through.
"""

from __future__ import annotations

import base64
import copy
import html
import re
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from ..core import inert, notebooks, regions
from ..core.settings import FAILED, NEEDS_GPU, NOT_RUN, PARTIAL, PASSED
from .compose import Plan
from .results import SubmissionResult
from .rules import error_name
from .verdicts import NOT_REPORTED, OBSERVATION, CellChecks

HIDDEN_NOTE = regions.HIDDEN_NOTE
VERDICT = "autograder_verdict"   # marks the output that holds the grader's words
REDACTED = "[a line of the hidden tests was removed here]"
OUTPUTS_STOP = ("**Outputs below are not shown.** From the first test cell on, the grader's hidden tests were running in "
                "your notebook's kernel, so nothing the kernel printed or drew after that point reaches this page. "
                "Each test cell shows the grader's verdict instead; run the notebook yourself to see the outputs.")
MAX_FAILURES_SHOWN = 3
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"
_SCRIPT = re.compile(r"<script\b.*?</script\s*>", re.S | re.I)   # the template's own (MathJax, require.js)
# What the grader says of an error that stopped a test cell. Only the error's name is read, and only when Python
# defines it; the kernel's message is never shown.
_STOPPED_BY = {
    "NotImplementedError": "an exercise above is not done yet (it still raises NotImplementedError)",
    "CheckFailed": "one of the visible checks above the hidden tests failed: run this cell in your notebook to see which",
    "NameError": "a name it uses is not defined: did a cell above fail, or was it not run?",
    "CellTimeLimit": "it ran past the per-cell time limit and was stopped",
    "KernelExitBlocked": "the code tried to end the Python process",
    "MemoryError": "it ran out of memory",
}


# Under a written answer: the grader gives it no points; the instructor does, in Formgrader.
WRITTEN_NOTE = ("*Written answer, {points:g} point(s): your instructor grades it by hand. Its points are not in the "
                "score above until then.*")


def strip_hidden(source: str) -> tuple[str, bool]:
    """Source without its hidden-test regions (marker lines included), and whether any was cut."""
    return regions.visible(source)


def verdict_output(text: str):
    """An output holding the grader's words (the only output a test cell keeps on a page)."""
    return nbformat.v4.new_output("display_data", data={"text/plain": text}, metadata={VERDICT: True})


def _is_verdict(output) -> bool:
    return bool(output.get("metadata", {}).get(VERDICT))


class HideHiddenTests(Preprocessor):
    """The page's policy on any executed notebook (ours, and nbgrader's own ``generate_feedback``): hidden regions
    cut from test cells; from the first test cell on, no output of the kernel's (test cells keep only the grader's
    verdict, when there is one)."""

    enabled = Bool(True)  # nbconvert preprocessors are off unless enabled

    def preprocess(self, nb, resources):
        tests = [i for i, cell in enumerate(nb.cells) if notebooks.is_test_cell(cell)]
        first = min(tests, default=len(nb.cells))
        for index, cell in enumerate(nb.cells):
            if notebooks.is_test_cell(cell):
                cell.source, _ = strip_hidden(cell.source)
            if index >= first and cell.cell_type == "code":
                cell.outputs = [o for o in cell.get("outputs", []) if _is_verdict(o)]
        return nb, resources


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

    from ..core.settings import FEEDBACK_STEPS

    for path in FEEDBACK_STEPS:
        nb, _ = import_item(path)(enabled=True).preprocess(nb, {})
    return nb


# --- what the page may show ----------------------------------------------------------------------------

def _redact_text(text: str, hidden: list[str]) -> str:
    return "\n".join(REDACTED if any(h in line for h in hidden) else line for line in text.split("\n"))


def _redact_value(value, hidden: list[str]):
    if isinstance(value, str):
        return _redact_text(value, hidden)
    if isinstance(value, list):
        return [_redact_value(v, hidden) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v, hidden) for k, v in value.items()}
    return value


def redact(nb, hidden: list[str]) -> None:
    """Cut every line of hidden-test source from every output of ``nb`` (the outputs a page keeps come from cells
    that ran before any hidden test reached the kernel, so this is a second line of defence)."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            for key in ("text", "evalue", "traceback", "data"):
                if key in output:
                    output[key] = _redact_value(output[key], hidden)


def _stopped_by(cell) -> str:
    error = notebooks.first_error(cell)
    if not error:
        return ""
    name = error[0] if error[0] in _STOPPED_BY else error_name([error[0]])
    return _STOPPED_BY.get(name, f"the code it tests raised {'an error' if name == 'an error' else name}")


def verdict_text(status: str, score: float, points: float, judged: CellChecks | None, cell, untrusted: str | None) -> str:
    """The grader's words for one test cell: its points, what failed and the hints."""
    head = f"Grader: {score:g} / {points:g} points"
    if status == NEEDS_GPU:
        return f"Grader: {points:g} points checked on a GPU runner only: not graded here, neither passed nor failed."
    if status == NOT_RUN:
        return f"{head}. This cell did not run: the notebook stopped before it (see the reason at the top of the page)."
    checks = judged.checks if judged else []
    failed = [c for c in checks if not c.passed]
    lines = [head + (". Every check of the hidden tests passed." if status == PASSED else ".")]
    stopped = _stopped_by(cell)
    if stopped:
        lines.append(f"The cell stopped with an error: {stopped}.")
    shown = [c for c in failed if not (stopped and c.message == NOT_REPORTED)][:MAX_FAILURES_SHOWN]
    for check in shown:
        kind = " (an observation)" if check.kind == OBSERVATION else ""
        lines.append(f"\u2717 {check.name}{kind}: {check.message}.")
        if check.hint:
            lines.append(f"  Hint: {check.hint}")
    more = len(failed) - len(shown)
    if more > 0:
        lines.append(f"{more} more check(s) failed" + (" or never ran" if stopped else "") + ".")
    if checks:
        lines.append(f"{len(checks) - len(failed)} of {len(checks)} checks passed.")
    if status == PARTIAL:
        lines.append("The values are right, so the cell keeps the points they decide; the observation above costs the rest.")
    if untrusted and any(c.kind == OBSERVATION for c in checks):
        lines.append(f"Its observations were not counted: {untrusted}.")
    if status == FAILED and not checks and not stopped:
        lines.append("No check of this cell reported.")
    return "\n".join(lines) + "\n"


def page_notebook(nb, plan: Plan, result: SubmissionResult, checks: dict[str, CellChecks], untrusted: dict[str, str],
                  hidden: list[str]):
    """A copy of the executed notebook ``nb`` holding only what the page may show."""
    nb = copy.deepcopy(nb)
    first_test = min((slot.index for slot in plan.tests), default=len(nb.cells))
    scores = {c.cell: c for c in result.cells}
    slots = {slot.index: slot for slot in plan.tests}
    cells = []
    for index, cell in enumerate(nb.cells):
        if index in slots:
            slot = slots[index]
            scored = scores[slot.grade_id]
            text = verdict_text(scored.status, scored.score, scored.max_score, checks.get(slot.grade_id), cell,
                                untrusted.get(slot.grade_id))
            cell.source = plan.visible.get(slot.grade_id, "")
            cell.outputs = [verdict_output(text)]
            meta = notebooks.grading(cell)
            meta["score"], meta["points"] = scored.score, scored.max_score
        elif index > first_test and cell.cell_type == "code":
            cell.outputs = []
        written = scores.get(notebooks.grading(cell).get("grade_id")) if notebooks.is_manual_cell(cell) else None
        if written is not None:
            notebooks.grading(cell)["grade"] = False  # the page scores it in words below, not with a score box
        cells.append(cell)
        if written is not None:
            cells.append(nbformat.v4.new_markdown_cell(WRITTEN_NOTE.format(points=written.max_score)))
        if index == first_test:
            cells.append(nbformat.v4.new_markdown_cell(OUTPUTS_STOP))
    nb.cells = cells
    redact(nb, hidden)
    return nb


# What an output may show on the page, and how: images as images (SVG only as an <img>, never as inline markup,
# which could hold script), HTML and markdown cleaned by nh3 (core/inert.py), text as text. Everything else
# (JavaScript, widgets, LaTeX for a MathJax the page never loads, PDFs) is dropped.
_RASTER_OUTPUTS = ("image/png", "image/jpeg", "image/gif")


def _inert_output(output) -> bool:
    """Reduce ``output`` to what the page may show (in place); False when nothing of it may be shown."""
    data = output.get("data")
    if not isinstance(data, dict):
        return True   # a stream or an error: text, escaped by the template
    kept = {key: data[key] for key in ("text/plain", *_RASTER_OUTPUTS) if key in data}
    html_parts = []
    if isinstance(data.get("text/html"), str):
        html_parts.append(inert.clean(data["text/html"]))
    if isinstance(data.get("text/markdown"), str):
        html_parts.append(inert.markdown_html(data["text/markdown"]))
    if isinstance(data.get("image/svg+xml"), str) and not any(k in kept for k in _RASTER_OUTPUTS):
        svg = base64.b64encode(data["image/svg+xml"].encode("utf-8")).decode("ascii")
        html_parts.append(inert.clean(f'<img src="data:image/svg+xml;base64,{svg}" alt="figure">'))
    if html_parts:
        kept["text/html"] = "".join(html_parts)
    output["data"] = kept
    return bool(kept)


def make_inert(nb) -> None:
    """Everything a student's notebook could make a browser run, made inert (core/inert.py): each markdown cell
    replaced by its cleaned rendering (links keep only http, https and mailto; images only the cell's own
    attachments, inline); each raw cell shown as text (nbconvert would paste it into the page as it is); outputs
    reduced to text, cleaned HTML and images."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = inert.as_markdown(inert.markdown_html(cell.source, cell.get("attachments")))
            cell.pop("attachments", None)   # now inside the cell's HTML
        elif cell.cell_type == "raw":
            cell.cell_type, cell.source = "markdown", inert.as_markdown(inert.as_text(cell.source))
            cell.pop("attachments", None)
        if cell.cell_type == "code":
            cell.outputs = [output for output in cell.outputs if _inert_output(output)]
    nb.metadata.pop("widgets", None)


# --- the page ------------------------------------------------------------------------------------

def _exporter():
    import nbgrader
    from nbconvert.exporters import HTMLExporter
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor

    package = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
    exporter = HTMLExporter(template_name="feedback", extra_template_basedirs=[str(package / "templates")],
                            extra_template_paths=[str(package / "static" / "node_modules" / "bootstrap" / "dist" / "css")])
    exporter.register_preprocessor(CSSHTMLHeaderPreprocessor(), enabled=True)
    return exporter


def _with_policy(page: str) -> str:
    """The page with its Content-Security-Policy first in <head> (no script runs, nothing is fetched), and without
    the template's own <script> elements (the policy would block them; the page needs none)."""
    page = _SCRIPT.sub("", page)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{CSP}" />'
    return page.replace("<head>", f"<head>\n{meta}", 1)


def render_page(nb, plan: Plan, result: SubmissionResult, checks: dict[str, CellChecks], hidden: list[str],
                untrusted: dict[str, str] | None = None) -> str:
    """The feedback page for one executed notebook (``nb`` is not changed); ``hidden``: the assignment's hidden-test
    lines (Assignment.hidden_lines), cut from anything the page shows."""
    nb = page_notebook(nb, plan, result, checks, untrusted or {}, hidden)
    make_inert(nb)
    nb = prepare_for_feedback(nb)
    resources = {"nbgrader": {"student": result.student, "assignment": result.assignment, "notebook": result.assignment,
                              "score": result.score, "max_score": result.max_score, "late_penalty": 0}}
    body, _ = _exporter().from_notebook_node(nb, resources=resources)
    return _with_policy(body)


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
