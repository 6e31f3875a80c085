"""The instructor's pages, second line of defence (courselab/: page_policy.py, template_code.py, formgrader_pages.py,
inert_files.py): unit tests, no server and no browser. The same pages in a real browser, on a real server, are
tested in tests/test_instructor_pages.py.

A roster or an LMS may hold any text in a name, an e-mail or an id: every Formgrader page is rendered here from the
course's templates with such names, and must show them as text and run only code its policy allows, a policy read
from the template files, never from the page."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from tornado.httputil import HTTPHeaders
from traitlets.config import Config

from courselab import formgrader_pages, inert_files, page_policy
from courselab.template_code import TrustedCode, sha256_source, trusted_code
from submission_factory import student_copy

HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(2)>', "'><svg onload=alert(3)>",
           "</script><script>alert(4)</script>", "x\\", "{{ 7*7 }}"]
JS_TYPES = {"", "text/javascript", "application/javascript", "module"}


class _Page(HTMLParser):
    """A rendered page's executable inline scripts, event-handler attributes and elements that could run."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self.handlers: list[str] = []
        self.elements: list[str] = []
        self._text: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.handlers += [f"{tag} {name}" for name, _ in attrs if name.startswith("on")]
        attributes = dict(attrs)
        if tag in ("img", "svg", "iframe"):
            self.elements.append(tag)
        if tag == "script" and "src" not in attributes and (attributes.get("type") or "").lower() in JS_TYPES:
            self._text = []

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._text is not None:
            self.scripts.append("".join(self._text))
            self._text = None


def _parsed(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


@pytest.fixture(scope="module")
def formgrader():
    """Formgrader's renderers as the instructor set-up installs them, and the code their policy allows."""
    settings = {"nbgrader_formgrader": SimpleNamespace(config=Config())}
    folders = formgrader_pages.install(settings)
    return settings, trusted_code(folders, "")


# nbgrader 0.9.6's list pages and what its handlers pass them (server_extensions/formgrader/handlers.py)
LIST_PAGES = ["manage_assignments.tpl", "manage_submissions.tpl", "gradebook_assignments.tpl", "gradebook_notebooks.tpl",
              "gradebook_notebook_submissions.tpl", "manage_students.tpl", "manage_students_assignments.tpl",
              "manage_students_notebook_submissions.tpl", "base_403.tpl", "base_500.tpl"]


@pytest.mark.parametrize("name", HOSTILE)
def test_every_list_page_shows_any_name_as_text_and_runs_only_allowed_code(formgrader, name):
    settings, trusted = formgrader

    def render(template: str, name: str) -> str:
        return settings["nbgrader_jinja2_env"].get_template(template).render(
            base_url="", assignment_id=name, notebook_id=name, student_id=name, url_prefix=".", default_timezone="+0000",
            course_dir=name, exchange=name, exchange_missing=True, current_config=name, course_id="c", error_code=500,
            windows=False)

    for template in LIST_PAGES:
        page = _parsed(render(template, name))
        assert not page.handlers, f"{template}: {page.handlers}"
        assert page.elements == _parsed(render(template, "ann")).elements, f"{template}: a name became markup"
        unknown = [s for s in page.scripts if sha256_source(s) not in trusted.sources]
        assert not unknown, f"{template}: scripts the policy would refuse: {unknown}"
        assert not [s for s in page.scripts if "alert(" in s], f"{template}: a name became script"


def _manual_grading_page(settings, **names) -> str:
    resources = {"assignment_id": "00_setup", "notebook_id": "00_setup", "submission_id": "4f0c", "index": 0, "total": 3,
                 "base_url": "", "student": "ann", "last_name": "Lee", "first_name": "Ann",
                 "notebook_path": "./autograded/ann/00_setup/00_setup.ipynb", **names}
    html, _ = settings["nbgrader_exporter"].from_notebook_node(student_copy("00_setup"), resources=resources)
    return html


@pytest.mark.parametrize("name", HOSTILE)
def test_the_manual_grading_page_shows_roster_names_as_text_and_runs_only_allowed_code(formgrader, name):
    settings, trusted = formgrader
    html = _manual_grading_page(settings, student=name, last_name=name, first_name=name,
                                notebook_path=f"./autograded/{name}/00_setup/00_setup.ipynb")
    before_notebook = html.split('id="notebook-container"', 1)[0]
    page = _parsed(before_notebook)
    assert not page.handlers and not page.elements, (page.handlers, page.elements)
    assert [s for s in page.scripts if sha256_source(s) not in trusted.sources] == []
    assert not [s for s in page.scripts if "alert(" in s], "a roster name became script"
    shown = re.search(r'class="name-shown"[^>]*>(.*?)</a>', before_notebook, re.S).group(1)
    assert "&lt;" in shown or "&gt;" in shown or "&quot;" in shown or name in ("x\\", "{{ 7*7 }}"), shown


def test_the_manual_grading_page_loads_no_mathjax_and_tells_formgrade_js_it_is_ready(formgrader):
    settings, trusted = formgrader
    html = _manual_grading_page(settings)
    assert "cdnjs" not in html and "MathJax.js" not in html and "latest.js" not in html, "nothing from outside"
    shim = [s for s in _parsed(html).scripts if "window.MathJax" in s]
    assert len(shim) == 1 and sha256_source(shim[0]) in trusted.sources
    assert 'listener("End")' in shim[0], "formgrade.js sets up its keys on MathJax's End signal"


def test_the_policy_comes_from_the_template_files_never_from_a_page(tmp_path):
    (tmp_path / "page.html").write_text(
        '<script>var fixed = 1;</script><script>var base = "{{ base_url }}/x";</script>'
        '<script>var who = "{{ student_id }}";</script><script type="application/json">{{ data }}</script>'
        '<span onclick="go()">g</span>', encoding="utf-8")
    code = trusted_code([tmp_path], "/base")
    assert code.sources == {sha256_source("var fixed = 1;"), sha256_source('var base = "/base/x";')}
    assert code.left_out == ["page.html: a script with student_id"] and code.handlers == ["page.html: span onclick='go()'"]
    policy = page_policy.formgrader_policy("127.0.0.1:8888", "/", code)
    assert "'unsafe-hashes'" not in policy and sha256_source("go()") not in policy, "no inline handler, ever"
    assert "'unsafe-inline'" not in policy.split("style-src")[0], "no inline script but the hashed ones"
    for directive in ("default-src 'none'", "connect-src 127.0.0.1:8888/formgrader/api/", "form-action 'none'",
                      "base-uri 'none'", "frame-ancestors 'self'", "script-src 127.0.0.1:8888/formgrader/static/"):
        assert directive in policy
    assert "evil" not in page_policy.formgrader_policy("x; script-src *; evil", "/", code), "an odd Host header"


def test_the_course_templates_leave_no_handler_and_no_per_page_script_to_a_page(formgrader):
    """Every template nbgrader ships with an inline handler or a per-page script is one the course replaces: the
    ones left in nbgrader's files are in blocks and macros the course's templates override (checked by rendering
    above); this lists them, so that a new one in a later nbgrader shows here first."""
    _, trusted = formgrader
    replaced = {"gradebook_notebook_submissions.tpl", "gradebook_notebooks.tpl", "manage_assignments.tpl",
                "manage_students.tpl", "manage_students_assignments.tpl", "manage_students_notebook_submissions.tpl",
                "manage_submissions.tpl", "formgrade_macros.html.j2"}
    nbconvert_outputs = {"base.html.j2", "index.html.j2", "jupyter_widgets.html.j2"}   # after the notebook, or unused
    named = {entry.split(":")[0] for entry in trusted.handlers + trusted.left_out}
    assert named - replaced - nbconvert_outputs == set(), named


def test_names_no_person_could_have_are_refused_in_formgraders_urls():
    prefix = "/formgrader/"
    assert not page_policy.unsafe_names("/formgrader/manage_students/alice.b@x.org/00_setup", prefix)
    assert page_policy.unsafe_names('/formgrader/manage_students/%22%3E%3Cscript%3E', prefix)
    assert page_policy.unsafe_names("/formgrader/manage_students/a b", prefix)


def test_jupyterlabs_pictures_fonts_and_styles_come_only_from_its_asset_folders():
    code = TrustedCode({sha256_source("var x = 1;")})
    policy = page_policy.lab_policy("127.0.0.1:8888", "/", code)
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    for kind in ("img-src", "media-src", "font-src", "style-src"):
        sources = directives[kind].split()
        assert "'self'" not in sources and "127.0.0.1:8888/" not in sources, f"{kind}: not the whole server"
        assert "127.0.0.1:8888/static/" in sources and "127.0.0.1:8888/files/" in sources
        assert not [s for s in sources if re.search(r":8888/(logout|api/|formgrader/)", s)], kind
    assert directives["default-src"] == "'none'" and sha256_source("var x = 1;") in directives["script-src"]
    assert "connect-src 'self' ws://127.0.0.1:8888 wss://127.0.0.1:8888" in policy and "object-src 'none'" in policy


def _transform(path: str, **arguments):
    trusted = page_policy.Trusted(formgrader=TrustedCode(), lab=TrustedCode())
    request = SimpleNamespace(path=path, host="127.0.0.1:8888", arguments=arguments)
    return page_policy.transform_class("/", trusted, {}, "/srv/course")(request)


def test_a_page_sent_in_parts_keeps_its_length():
    """Jupyter sends a file in 64 KiB parts, with the whole length first: the policy must not cut it to the first."""
    headers = HTTPHeaders({"Content-Type": "text/html", "Content-Length": "200000"})
    _, headers, chunk = _transform("/lab/tree/x").transform_first_chunk(200, headers, b"x" * 65536, False)
    assert headers["Content-Length"] == "200000" and len(chunk) == 65536


def test_a_students_notebook_converted_to_html_is_served_inert():
    transform = _transform("/nbconvert/html/submitted/mallory/00/00.ipynb", download=[b"true"])
    headers = HTTPHeaders({"Content-Type": "text/html; charset=utf-8", "Content-Length": "60",
                           "Content-Disposition": "attachment; filename*=utf-8''00.html"})
    page = b"<html><body><p>answer</p><script>alert(1)</script><img src=x onerror=alert(2)></body></html>"
    status, headers, chunk = transform.transform_first_chunk(200, headers, page, True)
    assert status == 200 and b"<p>answer</p>" in chunk and b"alert" not in chunk
    assert headers["Content-Length"] == str(len(chunk)) and headers["Content-Security-Policy"] == inert_files.POLICY
    assert headers["Content-Disposition"].startswith("attachment"), "Export as HTML stays a download"
    # the instructor's own notebooks convert as Jupyter converts them
    mine = HTTPHeaders({"Content-Type": "text/html"})
    _, _, chunk = _transform("/nbconvert/html/solutions/00/00.ipynb").transform_first_chunk(200, mine, page, True)
    assert chunk == page


def test_formgrader_serves_the_files_beside_a_submission_as_pictures_only():
    page = b"<html><body><script>alert(1)</script></body></html>"
    for served in ("text/html", "image/svg+xml", "application/octet-stream"):
        headers = HTTPHeaders({"Content-Type": served, "Content-Length": "200000"})
        status, headers, chunk = _transform("/formgrader/submissions/4f0c/notes.html").transform_first_chunk(
            200, headers, page, False)
        assert status == 403 and b"alert" not in chunk and headers["Content-Length"] == str(len(chunk)), served
    picture = HTTPHeaders({"Content-Type": "image/png"})
    status, headers, chunk = _transform("/formgrader/submissions/4f0c/shot.png").transform_first_chunk(200, picture, b"png", True)
    assert (status, chunk) == (200, b"png") and headers["Content-Security-Policy"] == inert_files.POLICY
    for page_itself in ("/formgrader/submissions/4f0c/", "/formgrader/submissions/4f0c/next"):
        headers = HTTPHeaders({"Content-Type": "text/html"})
        status, _, chunk = _transform(page_itself).transform_first_chunk(200, headers, page, True)
        assert (status, chunk) == (200, page), page_itself


def test_students_folders_are_found_as_written_and_as_resolved(tmp_path):
    root = tmp_path / "course"
    (root / "submitted" / "ann").mkdir(parents=True)
    (root / "lessons").mkdir()
    (root / "lessons" / "into-submitted").symlink_to(root / "submitted" / "ann")
    settings: dict = {}
    found = lambda relative: inert_files.student_folder_of(settings, str(root), relative)   # noqa: E731
    assert found("submitted/ann/00/notes.html") == root / "submitted"
    assert found("Submitted/ann/notes.html") == root / "submitted", "a case-blind disk's other spelling"
    assert found("lessons/into-submitted/notes.html") == root / "submitted", "a link into a students' folder"
    assert found("lessons/00/00.ipynb") is None and found("submitted/../lessons/x.html") is None
    assert found("autograded/ann/x.html") == root / "autograded" and found("feedback/x.html") == root / "feedback"
