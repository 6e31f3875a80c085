"""Student content made inert (autograder/core/inert.py): unit tests, no browser. The second line of defence on the
instructor's pages is tested in tests/test_page_policy.py; the browser tests of the same pages are in
tests/test_instructor_pages.py."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import nbformat
import pytest

from autograder.classroom.formgrader_copy import inert_copy
from autograder.core import inert
from autograder.grading import assignment
from hostile_html import markdown_payloads, svg_with_script
from submission_factory import student_copy

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
ACTIVE_TAGS = {"script", "iframe", "object", "embed", "form", "base", "meta", "link", "style", "svg", "math", "frame",
               "frameset", "applet", "input", "button", "textarea", "select", "video", "audio", "source", "noscript"}


class _Active(HTMLParser):
    """Everything in an HTML text that a browser could run, or that would make it fetch."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ACTIVE_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            value = re.sub(r"[\s\x00-\x1f]", "", value or "").lower()
            if name.startswith("on") or name in ("style", "srcdoc", "formaction", "action", "xlink:href"):
                self.found.append(f"{tag} {name}=")
            if name in ("href", "src") and (value.startswith(("javascript:", "vbscript:")) or
                                            (value.startswith("data:") and not (tag == "img" and name == "src"))):
                self.found.append(f"{tag} {name}={value[:30]}")
            if tag == "img" and name == "src" and not value.startswith("data:image/"):
                self.found.append(f"img fetching {value[:40]}")


def active(html: str) -> list[str]:
    parser = _Active()
    parser.feed(html)
    parser.close()
    return parser.found


@pytest.mark.parametrize("kind, payload", markdown_payloads(8123), ids=[k for k, _ in markdown_payloads(8123)])
def test_each_payload_leaves_nothing_active(kind, payload):
    from nbconvert.filters.markdown import markdown2html

    if kind not in ("MathJax \\href", "markdown javascript: link"):   # text until MathJax runs; mistune's own guard
        assert active(markdown2html(payload)), f"the check itself misses {kind} when nothing cleans it"
    cleaned = inert.markdown_html(f"My answer: {payload} (end)")
    assert not active(cleaned), f"{kind}: {active(cleaned)} in {cleaned}"
    assert "My answer" in cleaned and "(end)" in cleaned, "the student's own words stay"


def test_all_payloads_together_and_passed_through_markdown_again_stay_inert():
    from nbconvert.filters.markdown import markdown2html

    source = "\n\n".join(p for _, p in markdown_payloads(8123)) + "\n\n```\ncode <b>x</b>\n\nafter a blank [z](javascript:alert(1))\n```\n"
    stored = inert.as_markdown(inert.markdown_html(source))
    assert "\n" not in stored, "one HTML block on one line: markdown cannot re-read part of it"
    again = markdown2html(stored)   # what Formgrader's template does with the stored copy
    assert again.strip() == stored.strip() and not active(again)


def test_a_pasted_image_shows_inline_and_an_svg_only_as_an_image():
    attachments = {"shot.png": {"image/png": PNG}, "evil.svg": {"image/svg+xml": svg_with_script(40, 8123)},
                   "notes.txt": {"text/plain": "aGVsbG8="}}
    html = inert.markdown_html("![shot](attachment:shot.png) ![svg](attachment:evil.svg) ![t](attachment:notes.txt) "
                               "![gone](attachment:missing.png)", attachments)
    assert f'<img src="data:image/png;base64,{PNG}" alt="shot">' in html
    assert 'src="data:image/svg+xml;base64,' in html and "<svg" not in html, "SVG as an <img>, never inline"
    assert "data:text/plain" not in html and 'alt="gone"' in html and not active(html)


def test_formgraders_copy_holds_the_students_work_and_nothing_active():
    nb = student_copy("00_setup")
    hostile = "\n\n".join(p for _, p in markdown_payloads(8123))
    nb.cells.append(nbformat.v4.new_markdown_cell(hostile))
    raw = nbformat.v4.new_raw_cell("<script>alert(1)</script>")
    raw.metadata["raw_mimetype"] = "text/html"
    code = nbformat.v4.new_code_cell("x = '</script><script>alert(2)</script>'")
    code.outputs = [nbformat.v4.new_output("display_data", data={"text/html": "<img src=x onerror=alert(3)>"})]
    code.metadata["nbgrader"] = {"grade_id": '"><img src=x onerror=alert(4)>', "grade": True}
    nb.cells += [raw, code]
    nb.metadata["kernelspec"]["display_name"] = "<img src=x onerror=alert(5)>"
    shown = inert_copy(nb, assignment.load("00_setup"))
    markdown = "".join(c.source for c in shown.cells if c.cell_type == "markdown")
    assert not active(markdown) and "&lt;script&gt;alert(1)" in markdown, "the raw cell shows as text"
    assert all(not c.get("outputs") for c in shown.cells if c.cell_type == "code")
    assert "onerror" not in str(shown.metadata) and "onerror=alert(4)" not in str([c.metadata for c in shown.cells])
    assert shown.cells[-1].source == code.source, "code stays the student's (Formgrader shows it as text)"


def test_a_deleted_graded_cell_is_put_back_where_the_lesson_had_it():
    from autograder.core import notebooks

    nb = student_copy("00_setup", drop=("choose-device", "choose-device-tests"))
    shown = inert_copy(nb, assignment.load("00_setup"))
    ids = [notebooks.grading(c).get("grade_id") for c in shown.cells]
    assert ids.index("choose-device") + 1 == ids.index("choose-device-tests")
    assert len({c.id for c in shown.cells}) == len(shown.cells)


# --- a whole page someone else made (inert.document) -------------------------------------------------------------

def test_a_students_whole_page_keeps_its_words_and_looks_and_nothing_that_runs_or_fetches():
    hostile = "".join(payload for _, payload in markdown_payloads(8123))
    page = (f"<html><head><title>T</title><style>p {{ color: #236 }}</style><meta http-equiv=refresh content=0>"
            f"<link rel=stylesheet href=x><base href=http://x/></head><body class=page><p class=note>My words.</p>{hostile}"
            f"<img src='data:image/png;base64,{PNG}'><img src=/logout></body></html>")
    shown = inert.document(page.encode(), "notes.html", "shown inert")
    head, body = shown.split("<body>", 1)
    assert head.index('http-equiv="Content-Security-Policy"') < head.index("<title>"), "the policy comes first"
    assert f'content="{inert.DOCUMENT_POLICY}"' in head and "default-src 'none'" in inert.DOCUMENT_POLICY
    assert [found for found in active(body) if found != "<style>"] == [], active(body)   # a style sheet fetches nothing
    assert re.findall(r'src="([^"]*)"', body) == [f"data:image/png;base64,{PNG}"], "nothing else to fetch from"
    assert '<p class="note">My words.</p>' in body and "p { color: #236 }" in body, "its words and its look stay"
    assert f"data:image/png;base64,{PNG}" in body and "<title>notes.html</title>" in head


def test_a_page_too_big_to_clean_is_refused_with_its_size():
    with pytest.raises(ValueError, match="MB"):
        inert.document(b"x" * (inert.MAX_DOCUMENT_BYTES + 1), "big.html")
