"""Student content made inert (autograder/core/inert.py), and Formgrader's second line of defence
(courselab/page_policy.py): unit tests, no browser. The browser tests of the same pages are in
tests/test_instructor_pages.py."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

import nbformat
import pytest

from autograder.classroom.formgrader_copy import inert_copy
from autograder.core import inert
from autograder.grading import assignment
from courselab import page_policy
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


# --- Formgrader's Content-Security-Policy -----------------------------------------------------------------------

PAGE = """<html><head><script src="/formgrader/static/js/a.js"></script><script>var base_url = "/";</script></head>
<body><span onclick="toggle_name(true);">n</span><div id="notebook-container"><script>alert(1)</script>
<img src=x onerror="alert(2)"></div></body></html>"""


def _digest(code: str) -> str:
    import hashlib

    return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode()).digest()).decode() + "'"


def test_the_policy_allows_the_templates_own_code_only():
    policy = page_policy.formgrader_policy(PAGE, "127.0.0.1:8888", "/", student_content=True)
    assert _digest('var base_url = "/";') in policy and _digest("toggle_name(true);") in policy
    assert _digest("alert(1)") not in policy and _digest("alert(2)") not in policy, "the student's part is not trusted"
    assert "'unsafe-inline'" not in policy.split("style-src")[0], "no inline script but the hashed ones"
    for directive in ("default-src 'none'", "connect-src 127.0.0.1:8888/formgrader/api/", "form-action 'none'",
                      "base-uri 'none'", "frame-ancestors 'self'", "script-src 127.0.0.1:8888/formgrader/static/"):
        assert directive in policy
    # a list page has no student content: its whole text is nbgrader's
    assert _digest("alert(1)") in page_policy.formgrader_policy(PAGE, "127.0.0.1:8888", "/", student_content=False)


def test_names_no_person_could_have_are_refused_in_formgraders_urls():
    prefix = "/formgrader/"
    assert not page_policy.unsafe_names("/formgrader/manage_students/alice.b@x.org/00_setup", prefix)
    assert page_policy.unsafe_names('/formgrader/manage_students/%22%3E%3Cscript%3E', prefix)
    assert page_policy.unsafe_names("/formgrader/manage_students/a b", prefix)
    # an odd Host header never reaches the policy as a source
    assert "evil" not in page_policy.formgrader_policy(PAGE, "x; script-src *; evil", "/", student_content=True)


def test_jupyterlabs_pages_run_their_own_code_and_fetch_only_from_the_server():
    page = '<html><head><script src="/static/lab/main.js"></script></head><body><script>/* token */ var x = 1;</script>'
    policy = page_policy.lab_policy(page, "127.0.0.1:8888")
    assert _digest("/* token */ var x = 1;") in policy and "'unsafe-inline'" not in policy.split("style-src")[0]
    assert "img-src 'self' data: blob:" in policy and "connect-src 'self' ws://127.0.0.1:8888 wss://127.0.0.1:8888" in policy
    assert "object-src 'none'" in policy and "default-src 'self'" in policy
