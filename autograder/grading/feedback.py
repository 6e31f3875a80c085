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

from ..core import editions, inert, notebooks, regions
from ..core.settings import FAILED, NEEDS_GPU, NOT_RUN, PARTIAL, PASSED
from .compose import Plan
from .results import SubmissionResult
from .rules import error_name
from .verdicts import NOT_REPORTED, OBSERVATION, CellChecks

Words = editions.i18n().Words
HIDDEN_CONTEXT = editions.i18n().HIDDEN_CONTEXT

N_ = editions.i18n().N_
HIDDEN_NOTE = regions.HIDDEN_NOTE
N_("# (hidden tests ran here; they are not shown)")   # HIDDEN_NOTE, in the catalog for the page's code cells
VERDICT = "autograder_verdict"   # marks the output that holds the grader's words
REDACTED = N_("[a line of the hidden tests was removed here]")
OUTPUTS_STOP = N_("**Outputs below are not shown.** From the first test cell on, the grader's hidden tests were running "
                  "in your notebook's kernel, so nothing the kernel printed or drew after that point reaches this page. "
                  "Each test cell shows the grader's verdict instead; run the notebook yourself to see the outputs.")
MAX_FAILURES_SHOWN = 3
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"
_SCRIPT = re.compile(r"<script\b.*?</script\s*>", re.S | re.I)   # the template's own (MathJax, require.js)
# What the grader says of an error that stopped a test cell. Only the error's name is read, and only when Python
# defines it; the kernel's message is never shown.
_STOPPED_BY = {
    "NotImplementedError": N_("an exercise above is not done yet (it still raises NotImplementedError)"),
    "CheckFailed": N_("one of the visible checks above the hidden tests failed: run this cell in your notebook to see which"),
    "NameError": N_("a name it uses is not defined: did a cell above fail, or was it not run?"),
    "CellTimeLimit": N_("it ran past the per-cell time limit and was stopped"),
    "KernelExitBlocked": N_("the code tried to end the Python process"),
    "MemoryError": N_("it ran out of memory"),
}


# Under a written answer: the grader gives it no points; the instructor does, in Formgrader.
WRITTEN_NOTE = N_("*Written answer, {points:g} point(s): your instructor grades it by hand. Its points are not in the "
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

def _redact_text(text: str, hidden: list[str], note: str) -> str:
    return "\n".join(note if any(h in line for h in hidden) else line for line in text.split("\n"))


def _redact_value(value, hidden: list[str], note: str):
    if isinstance(value, str):
        return _redact_text(value, hidden, note)
    if isinstance(value, list):
        return [_redact_value(v, hidden, note) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v, hidden, note) for k, v in value.items()}
    return value


def redact(nb, hidden: list[str], note: str = REDACTED) -> None:
    """Cut every line of hidden-test source from every output of ``nb`` (the outputs a page keeps come from cells
    that ran before any hidden test reached the kernel, so this is a second line of defence)."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            for key in ("text", "evalue", "traceback", "data"):
                if key in output:
                    output[key] = _redact_value(output[key], hidden, note)


class Voice:
    """The page's language: the grader's words (translations/<code>/autograder.po) and the names and hints of the
    assignment's hidden tests (its own catalog, keyed by their English); English where a catalog has no translation."""

    def __init__(self, language: str = "en", assignment: str = ""):
        self.language = language
        # The grader's words, and the course package's (a generated case's input is described by coursekit.strategies).
        self.grader = editions.words("autograder", language)
        self.grader.entries = {**editions.words("coursekit", language).entries, **self.grader.entries}
        self.course = editions.words(assignment, language) if assignment and language != "en" else editions.words("", "en")

    def say(self, message: str, **fields) -> str:
        """``message`` (Words, or a template with ``fields``) in the page's language."""
        return self.grader.words(Words(message, **fields) if fields else message)

    def name(self, name: str) -> str:
        """A check's name; a repeated one ends in " (#k)", which stays."""
        base, number = re.fullmatch(r"(.*?)((?: \(#\d+\))?)", name, re.S).groups()
        return self.course.gettext(base, HIDDEN_CONTEXT) + number

    def hint(self, hint: str) -> str:
        return self.course.gettext(hint, HIDDEN_CONTEXT)


ENGLISH = Voice()


def _stopped_by(cell) -> str:
    error = notebooks.first_error(cell)
    if not error:
        return ""
    name = error[0] if error[0] in _STOPPED_BY else error_name([error[0]])
    if name in _STOPPED_BY:
        return _STOPPED_BY[name]
    return Words("the code it tests raised {name}", name=name)


def verdict_text(status: str, score: float, points: float, judged: CellChecks | None, cell, untrusted: str | None,
                 voice: Voice = ENGLISH) -> str:
    """The grader's words for one test cell, in ``voice``'s language: its points, what failed and the hints."""
    say = voice.say
    head = say("Grader: {score:g} / {points:g} points", score=score, points=points)
    if status == NEEDS_GPU:
        return say("Grader: {points:g} points checked on a GPU runner only: not graded here, neither passed nor failed.",
                   points=points)
    if status == NOT_RUN:
        return say("{head}. This cell did not run: the notebook stopped before it (see the reason at the top of the "
                   "page).", head=head)
    checks = judged.checks if judged else []
    failed = [c for c in checks if not c.passed]
    lines = [say("{head}. Every check of the hidden tests passed.", head=head) if status == PASSED else head + "."]
    stopped = _stopped_by(cell)
    if stopped:
        lines.append(say("The cell stopped with an error: {reason}.", reason=say(stopped)))
    shown = [c for c in failed if not (stopped and c.message == NOT_REPORTED)][:MAX_FAILURES_SHOWN]
    for check in shown:
        kind = say(" (an observation)") if check.kind == OBSERVATION else ""
        lines.append(f"\u2717 {voice.name(check.name)}{kind}: {say(check.message)}.")
        if check.hint:
            lines.append("  " + say("Hint: {hint}", hint=voice.hint(check.hint)))
    more = len(failed) - len(shown)
    if more > 0:
        lines.append(say("{more} more check(s) failed or never ran." if stopped else "{more} more check(s) failed.",
                         more=more))
    if checks:
        lines.append(say("{passed} of {total} checks passed.", passed=len(checks) - len(failed), total=len(checks)))
    if status == PARTIAL:
        lines.append(say("The values are right, so the cell keeps the points they decide; the observation above costs "
                         "the rest."))
    if untrusted and any(c.kind == OBSERVATION for c in checks):
        lines.append(say("Its observations were not counted: {why}.", why=untrusted))
    if status == FAILED and not checks and not stopped:
        lines.append(say("No check of this cell reported."))
    return "\n".join(lines) + "\n"


def page_notebook(nb, plan: Plan, result: SubmissionResult, checks: dict[str, CellChecks], untrusted: dict[str, str],
                  hidden: list[str], voice: Voice = ENGLISH):
    """A copy of the executed notebook ``nb`` holding only what the page may show, the grader's words in ``voice``'s
    language."""
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
                                untrusted.get(slot.grade_id), voice)
            cell.source = plan.visible.get(slot.grade_id, "").replace(HIDDEN_NOTE, voice.say(HIDDEN_NOTE))
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
            cells.append(nbformat.v4.new_markdown_cell(voice.say(WRITTEN_NOTE, points=written.max_score)))
        if index == first_test:
            cells.append(nbformat.v4.new_markdown_cell(voice.say(OUTPUTS_STOP)))
    nb.cells = cells
    redact(nb, hidden, voice.say(REDACTED))
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
    lines (Assignment.hidden_lines), cut from anything the page shows. The page speaks the language of the edition
    the student handed in (``metadata.language`` of the submitted notebook, as composed before it ran)."""
    voice = Voice(editions.notebook_language(plan.nb), result.assignment)
    nb = page_notebook(nb, plan, result, checks, untrusted or {}, hidden, voice)
    make_inert(nb)
    nb = prepare_for_feedback(nb)
    resources = {"nbgrader": {"student": result.student, "assignment": result.assignment, "notebook": result.assignment,
                              "score": result.score, "max_score": result.max_score, "late_penalty": 0}}
    body, _ = _exporter().from_notebook_node(nb, resources=resources)
    return _with_policy(body)


def problem_page(result: SubmissionResult, language: str = "en") -> str:
    """A short feedback page for a submission that could not be graded normally (``language``: the edition's, when
    the notebook could be read)."""
    say = Voice(language).say
    rows = "".join(f"<tr><td>{html.escape(c.cell)}</td><td>{c.score:g} / {c.max_score:g}</td>"
                   f"<td>{html.escape(c.status)}</td></tr>" for c in result.cells)
    head = "".join(f"<th>{html.escape(say(label))}</th>" for label in (N_("graded cell"), N_("points"), N_("status")))
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}" />'
        f"<title>{html.escape(result.assignment)}</title></head><body>"
        f"<h1>{html.escape(result.assignment)}: {html.escape(result.status)}</h1>"
        f"<p>{html.escape(say(result.reason))}</p>"
        f"<p>{html.escape(say('Score: {score:g} / {points:g}', score=result.score, points=result.max_score))}</p>"
        f"<table><tr>{head}</tr>{rows}</table></body></html>\n"
    )
