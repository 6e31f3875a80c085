"""Student work on every page an instructor opens, in a real browser (Chromium through Playwright).

On the instructor set-up (`make instructor`, on a fresh copy of the course), a class of lesson 00 is graded into
the gradebook with ``grade --gradebook``:

- honest students, and the everyday oddities of ``test_classroom.odd_class`` (a pasted image, nbgrader metadata
  the release does not have, a timestamp that is not a time, a cell id the format forbids);
- ``mallory``, whose written answer, code, raw cell, attachments, outputs and notebook metadata hold every kind of
  hostile HTML in tests/hostile_html.py; each payload, if it ran, would mark the page, write a file into the course
  through Jupyter's contents API with the instructor's session, and call a server this test runs on 127.0.0.1;
- a folder whose name is an HTML tag (grade refuses it by name), and, as if another tool had put them there, a
  student id and a name holding HTML written straight into the gradebook: the second line of defence
  (courselab/page_policy.py) must hold where the first (the grader) was never asked;
- ``cpu-only`` (a device written in) and ``escaper`` (writes outside its folder), for Formgrader's Autograde button;
- after grading, as a roster or an LMS would put them there through nbgrader's API: ``ben``'s first and last name and
  e-mail holding a script and handlers (nbgrader's template printed the name as it is in the manual-grading page's
  navigation bar, and the page policy then allowed the script it found there); an HTML page, an SVG image and a page
  with a script beside mallory's notebook; a 200 KB feedback page.

Then every Formgrader page that shows them is opened (the assignment's and the notebook's lists, the submissions
list, every submission's manual-grading page, the students' pages), and the submitted and graded notebooks in the
instructor's JupyterLab: no marker is set, no file is written, the server on 127.0.0.1 hears nothing, no request of
those pages reaches Jupyter's API, and no image of mallory's reaches ``/logout`` or Formgrader's API. Mallory's
files through ``/files/`` and her notebook through ``/nbconvert/html/`` (Print Preview) are inert; a feedback page
over 64 KiB arrives whole; the manual-grading page's keys work (Tab, Escape, Enter, Ctrl+.). Screenshots go to
``test-artifacts/browser/`` (11 to 19). Finally the Autograde button re-grades two students: the scores are
``grade --gradebook``'s, and nothing escaped.
"""

from __future__ import annotations

import base64
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse

import nbformat
import pytest

from autograder.core import notebooks
from browser_lab import ARTIFACTS, open_lab
from hostile_html import action, markdown_payloads, svg_with_script
from submission_factory import student_copy
from test_classroom import odd_class

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.data]

LESSON = "00_setup"
COURSE_ID = "pytorch-course"   # the instructor set-up's (jupyter/instructor/nbgrader_config.py)
HOSTILE_FOLDER = 'x"><img src=x onerror="top.__pwned=[99]">'
WRONG_DEVICE = {"choose-device": 'import torch\n\ndef choose_device():\n    return torch.device("cpu")\n'}


class _Listener(http.server.BaseHTTPRequestHandler):
    """The attacker's server: every request it hears is a payload that ran or a fetch that got out."""
    heard: list[str] = []

    def do_GET(self):
        _Listener.heard.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def _hostile_notebook(port: int, lab_base: str):
    cell = next(c for c in notebooks.read(notebooks_source()).cells if notebooks.is_manual_cell(c))
    answer = "My answer: one device variable at the top.\n\n" + "\n\n".join(
        f"**{kind}**: {payload}" for kind, payload in markdown_payloads(port))
    nb = student_copy(LESSON, replace={notebooks.grading(cell)["grade_id"]: answer})
    nb.cells.append(nbformat.v4.new_code_cell(f"note = '</script><script>{action(40, port)}</script>'"))
    raw = nbformat.v4.new_raw_cell(f"<script>{action(41, port)}</script>")
    raw.metadata["raw_mimetype"] = "text/html"
    copied = nbformat.v4.new_code_cell("y = 1")
    copied.metadata["nbgrader"] = {"grade_id": f'"><img src=x onerror="{action(42, port)}">', "grade": True, "points": 1}
    pasted = nbformat.v4.new_markdown_cell('pasted: ![x](attachment:evil.svg) ![y](attachment:"><img src=x>.png)')
    pasted["attachments"] = {"evil.svg": {"image/svg+xml": svg_with_script(43, port)},
                             '"><img src=x>.png': {"image/png": base64.b64encode(b"not a png").decode()}}
    shown = nbformat.v4.new_code_cell("z = 2")
    shown.outputs = [nbformat.v4.new_output("display_data", data={
        "text/html": f'<img src=x onerror="{action(45, port)}">', "application/javascript": action(46, port),
        "text/plain": "z"})]
    nb.cells += [raw, copied, pasted, shown, nbformat.v4.new_markdown_cell(
        "\n\n".join(f"**{kind}**: {payload}" for kind, payload in _own_endpoint_images(lab_base)))]
    nb.metadata["kernelspec"]["display_name"] = f'<img src=x onerror="{action(47, port)}">'
    return nb


def _own_endpoint_images(lab_base: str) -> list[tuple[str, str]]:
    """Markdown whose pictures, loaded by the instructor's browser, would call the server with the instructor's
    cookies: log them out, or read Formgrader's API."""
    host = lab_base.split("//", 1)[1]
    return [("image at /logout", '<img src="/logout">'), ("image at the server's /logout", f'<img src="{lab_base}/logout">'),
            ("protocol-relative image", f'<img src="//{host}/logout">'),
            ("markdown image on Formgrader's API", f"![grades]({lab_base}/formgrader/api/assignments)"),
            ("video at /logout", f'<video src="{lab_base}/logout" autoplay></video>'),
            ("styled background", f'<div style="background-image:url({lab_base}/logout)">bg</div>')]


# What only an attack asks for: a request for one of these with the instructor's cookies is a hole.
OWN_ENDPOINTS = re.compile(r"^/(logout|formgrader/api/|api/contents/fetched-by-an-image)")


def notebooks_source():
    from autograder.core import course

    return course.solution_notebook(LESSON)


def _grade(root, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "autograder", "grade", "submitted", "--assignment", LESSON, "--runner", "cpu",
               "--gradebook", "--out", "graded", *extra]
    # the grader of this checkout, on the copy's instructor course, as make nbgrader sets it
    env = {**os.environ, "JUPYTER_CONFIG_PATH": str(root / "jupyter" / "instructor"), "PYTHONSAFEPATH": "1"}
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def graded_class(instructor_lab):
    from nbgrader.api import Gradebook

    listener = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Listener)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    port = listener.server_port
    root = instructor_lab["root"]
    submitted = root / "submitted"
    odd = odd_class(submitted)
    handed_in = {"mallory": _hostile_notebook(port, instructor_lab["base"]), "cpu-only": student_copy(LESSON, replace=WRONG_DEVICE),
                 "escaper": student_copy(LESSON, insert_before={"choose-device": (
                     "from pathlib import Path\n"
                     f"for p in [{str(root / 'escaped.txt')!r}, '../../escaped.txt', '/tmp/escaped-by-a-student.txt']:\n"
                     "    try:\n        Path(p).write_text('out')\n    except OSError:\n        pass\n")}),
                 HOSTILE_FOLDER: student_copy(LESSON)}
    for student, nb in handed_in.items():
        notebooks.write(nb, submitted / student / LESSON / f"{LESSON}.ipynb")
    done = _grade(root)
    assert done.returncode == 3, done.stdout[-3000:] + done.stderr[-3000:]   # 3: the folder that is no student id
    assert "is not a student id" in done.stdout
    db = f"sqlite:///{root / '.instructor' / 'gradebook.db'}"
    hostile_id = f'"><img src=x onerror="{action(48, port)}">'
    with Gradebook(db, COURSE_ID) as gb:   # what another tool could have written into the gradebook
        gb.update_or_create_student(hostile_id, first_name=f'<img src=x onerror="{action(49, port)}">', last_name="L")
        ids = {s: gb.find_submission_notebook(LESSON, LESSON, s).id
               for s in ["ann", "ben", "mallory", "cpu-only", "escaper", *odd]}
        scores = {s: gb.find_grade("choose-device-tests", LESSON, LESSON, s).auto_score for s in ("cpu-only", "escaper")}
        # ben's names and e-mail as a roster import or an LMS sync could write them (nbgrader db student import)
        gb.update_or_create_student("ben", first_name=f"<script>{action(50, port)}</script>",
                                    last_name=f'"><img src=x onerror="{action(51, port)}">',
                                    email=f'"><svg onload="{action(52, port)}">@example.org')
    _students_own_files(submitted / "mallory" / LESSON, port)
    # nbgrader's Autograde (Formgrader's button) copies what was handed in beside the notebook into autograded/
    shutil.copy(submitted / "mallory" / LESSON / "notes.html", root / "autograded" / "mallory" / LESSON / "notes.html")
    yield {"root": root, "port": port, "db": db, "hostile_id": hostile_id, "submission_ids": ids, "scores": scores,
           "listener": listener, "big_pages": _big_feedback_pages(root)}
    listener.shutdown()


def _students_own_files(folder, port: int) -> None:
    """What a student can hand in beside the notebook (nbgrader's collect copies the whole folder)."""
    (folder / "notes.html").write_text(
        f"<html><head><style>@import url(http://127.0.0.1:{port}/css-in-a-page); p {{ color: #236; }}</style></head>"
        f"<body><p>My notes, as a page.</p><script>{action(60, port)}</script><img src=x onerror=\"{action(61, port)}\">"
        f'<img src="/logout"><iframe src="/api/contents"></iframe><form action="/api/contents"><button>go</button></form>'
        "</body></html>", encoding="utf-8")
    (folder / "figure.svg").write_bytes(base64.b64decode(svg_with_script(62, port)))


def _big_feedback_pages(root) -> dict[str, int]:
    """A feedback page grown to 200 KB (more than three times the 64 KiB the page policy once cut pages at), in the
    grader's output folder and where ``release_feedback`` finds pages (a students' folder): path -> size."""
    page = (root / "graded" / "feedback" / "ann" / f"{LESSON}.html").read_text(encoding="utf-8")
    filler = "".join(f"<p>Note {i}: the grader wrote this line to make the page long.</p>" for i in range(3000))
    grown = page.replace("</body>", f"{filler}<p>END OF THE FEEDBACK PAGE</p></body>", 1)
    sizes = {}
    for path in (f"graded/feedback/ann/{LESSON}-200k.html", f"feedback/ann/{LESSON}/{LESSON}-200k.html"):
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(grown, encoding="utf-8")
        sizes[path] = target.stat().st_size
    return sizes


def _traces(page, lab, graded_class) -> list[str]:
    """Every trace a payload that ran would have left."""
    found = []
    marker = page.evaluate("() => window.__pwned || null")
    if marker:
        found.append(f"page marker {marker}")
    found += [f"the listener heard {path}" for path in _Listener.heard]
    found += [f"file {p}" for p in graded_class["root"].rglob("pwned-*")]
    return found


def _visit(page, lab, path: str, wait_for: str, screenshot: str | None = None, timeout_s: float = 60,
           settle_s: float = 1.0) -> None:
    # as from a link in JupyterLab: Jupyter serves /files/ and /nbconvert/ only to its own pages (the Referer)
    response = page.goto(f"{lab['base']}{path}", referer=f"{lab['base']}/lab")
    assert response is not None and response.status < 400, f"{path}: {response.status if response else 'no answer'}"
    page.wait_for_function("(s) => document.body.innerText.includes(s)", arg=wait_for, timeout=timeout_s * 1000)
    time.sleep(settle_s)   # what fires late (details' toggle, autofocus, animations, image errors) has fired
    if screenshot:
        page.screenshot(path=str(ARTIFACTS / screenshot))


def _log_in(page, lab) -> None:
    """The instructor's session (a cookie), without loading JupyterLab."""
    assert page.goto(f"{lab['base']}/api/status?token={lab['token']}").ok


def _from_lab(lab) -> dict[str, str]:
    """The headers of a request made from JupyterLab's page."""
    return {"Referer": f"{lab['base']}/lab"}


ACTIVE_IN_DOM = """(root) => {
  const scope = root ? document.querySelector(root) : document;
  const found = [];
  for (const el of scope.querySelectorAll('*')) {
    const tag = el.tagName.toLowerCase();
    if (['script', 'iframe', 'object', 'embed', 'form', 'base', 'svg', 'math', 'style', 'link', 'meta'].includes(tag))
      found.push('<' + tag + '>');
    for (const a of el.attributes) {
      const value = a.value.replace(/[\\s\\x00-\\x1f]/g, '').toLowerCase();
      if (a.name.startsWith('on')) found.push(tag + ' ' + a.name);
      if (['href', 'src', 'action', 'formaction'].includes(a.name) && /^(javascript|vbscript):/.test(value))
        found.push(tag + ' ' + a.name + '=' + value.slice(0, 20));
    }
  }
  return found;
}"""


def _watch(page) -> dict[str, list]:
    """What the page's requests reached the server (URL, kind: a request the policy blocks never gets an answer), and
    what the browser refuses or reports as an error, from now on."""
    seen: dict[str, list] = {"answered": [], "refused": [], "errors": []}
    page.on("response", lambda r: seen["answered"].append((r.url, r.request.resource_type)))
    page.on("console", lambda m: seen["refused"].append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    return seen


def test_every_formgrader_page_shows_hostile_student_work_inert(page, instructor_lab, graded_class):
    lab = instructor_lab
    seen = _watch(page)
    open_lab(page, lab)   # JupyterLab logs the browser in (a cookie), as an instructor's session
    # JupyterLab's own pictures, fonts and styles all come from the folders its policy keeps them to
    page.get_by_text("Python 3").first.wait_for()   # the launcher, with its kernels' logos
    assert not seen["refused"] and not seen["errors"], f"the policy refused JupyterLab's own files: {seen}"
    seen["answered"].clear()   # JupyterLab's own calls to Jupyter's API; from here on, Formgrader's pages only
    api = f"{lab['base']}/api/"
    hostile = urllib.parse.quote(graded_class["hostile_id"], safe="")
    ids = graded_class["submission_ids"]
    pages = [("/formgrader/manage_assignments", LESSON, "12-formgrader-assignments.png"),
             (f"/formgrader/manage_submissions/{LESSON}", "mallory", "13-formgrader-submissions-with-a-hostile-id.png"),
             ("/formgrader/gradebook", LESSON, None),
             (f"/formgrader/gradebook/{LESSON}", LESSON, None),
             (f"/formgrader/gradebook/{LESSON}/{LESSON}", "Submission #", "14-formgrader-notebook-submissions.png"),
             ("/formgrader/manage_students", "mallory", "15-formgrader-students-with-a-hostile-name.png"),
             ("/formgrader/manage_students/mallory", LESSON, None),
             (f"/formgrader/manage_students/mallory/{LESSON}", LESSON, None)]
    pages += [(f"/formgrader/submissions/{sid}/", "Submission", None) for student, sid in ids.items()]
    for path, wait_for, screenshot in pages:
        seen["refused"].clear()
        _visit(page, lab, path, wait_for, screenshot)
        assert not _traces(page, lab, graded_class), f"{path}: {_traces(page, lab, graded_class)}"
        if "/submissions/" in path:
            assert not page.evaluate(ACTIVE_IN_DOM, "#notebook-container"), f"{path}: {page.evaluate(ACTIVE_IN_DOM, '#notebook-container')}"
        # the templates' own scripts all run: the policy, read from the templates, allows every one of them
        assert not [m for m in seen["refused"] if "script" in m], f"{path}: {seen['refused']}"
    assert not seen["errors"], f"a Formgrader page failed: {seen['errors']}"
    # ben's names from the roster, shown in the navigation bar as the text they are
    _visit(page, lab, f"/formgrader/submissions/{ids['ben']}/", "Submission")
    page.locator(".glyphicon.name-hidden").click()   # the eye icon: its action bound by the course's script
    shown = page.locator("a.name-shown")
    shown.wait_for(state="visible")
    assert "<script>" in shown.inner_text() and "onerror" in shown.inner_text(), shown.inner_text()
    page.screenshot(path=str(ARTIFACTS / "18-formgrader-roster-name-as-text.png"))
    assert not _traces(page, lab, graded_class)
    # the templates' links and buttons whose onclick attributes the course's templates replaced still work
    _visit(page, lab, "/formgrader/manage_students", "ben")
    page.get_by_text("Add new student...").click()
    page.locator(".modal-dialog").wait_for(state="visible")
    _visit(page, lab, f"/formgrader/gradebook/{LESSON}/{LESSON}", "Submission #")
    page.locator("#toggle_names").click()
    page.wait_for_function("() => document.getElementById('toggle_names').textContent === 'Hide All Names'")
    assert page.get_by_text("<script>").count(), "ben's name shows as text in the list"
    assert not _traces(page, lab, graded_class)
    # Mallory's written answer on the manual-grading page: her words are there, as harmless markup.
    _visit(page, lab, f"/formgrader/submissions/{ids['mallory']}/", "My answer: one device variable")
    answer = page.get_by_text("My answer: one device variable").first
    answer.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "11-formgrader-hostile-written-answer-inert.png"))
    assert page.get_by_text("img onerror").count() and page.get_by_text("iframe srcdoc").count()
    # The second line alone: pages of a student id no person could have, written into the gradebook by hand.
    for path in (f"/formgrader/manage_students/{hostile}", f"/formgrader/manage_students/{hostile}/{LESSON}"):
        response = page.goto(f"{lab['base']}{path}")
        assert response.status == 400 and "no person could have written" in page.inner_text("body")
        assert not _traces(page, lab, graded_class)
    assert not [url for url, _ in seen["answered"] if url.startswith(api)], "a page reached Jupyter's API"
    page.screenshot(path=str(ARTIFACTS / "16-formgrader-refuses-a-hostile-address.png"))


def test_the_manual_grading_pages_keys_work(page, instructor_lab, graded_class):
    """nbgrader's formgrade.js sets up its keys once MathJax says it has typeset the page; nbconvert's MathJax comes
    from a CDN the policy blocks, so the course's template stands in for it (courselab/templates/formgrade)."""
    lab = instructor_lab
    _log_in(page, lab)
    seen = _watch(page)
    _visit(page, lab, f"/formgrader/submissions/{graded_class['submission_ids']['ann']}/", "Submission")
    page.wait_for_function("() => window.formgrader && formgrader.loaded && formgrader.grades.loaded", timeout=60_000)
    focused = "() => Array.prototype.indexOf.call(document.querySelectorAll('.tabbable'), document.activeElement)"
    page.wait_for_function(f"() => ({focused})() === 0", timeout=10_000)   # the first score box, when set-up ends
    page.keyboard.press("Tab")
    page.wait_for_function(f"() => ({focused})() === 1", timeout=10_000)
    page.keyboard.press("Escape")
    page.wait_for_function(f"() => ({focused})() === -1", timeout=10_000)
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => ({focused})() === 1", timeout=10_000)
    page.screenshot(path=str(ARTIFACTS / "19-formgrader-keys-work.png"))
    here = page.url
    page.keyboard.press("Control+Period")   # the same box of the next submission (or the list after the last)
    page.wait_for_url(lambda url: url != here and "/formgrader/" in url, timeout=30_000)
    assert not seen["errors"], seen["errors"]
    assert not [m for m in seen["refused"] if "script" in m], seen["refused"]


def test_students_html_is_served_inert(page, instructor_lab, graded_class):
    """Mallory's own page and figure beside her notebook (/files/), and her notebook as Print Preview and Export as
    HTML convert it (/nbconvert/html/): inert, whatever she wrote."""
    lab = instructor_lab
    _log_in(page, lab)
    seen = _watch(page)
    folder = f"submitted/mallory/{LESSON}"
    for path, text in ((f"/files/{folder}/notes.html", "My notes, as a page."),
                       (f"/nbconvert/html/{folder}/{LESSON}.ipynb?download=false", "My answer: one device variable")):
        seen["answered"].clear()
        _visit(page, lab, path, text)
        assert "shown inert by the course" in page.inner_text("body")
        assert not _traces(page, lab, graded_class), f"{path}: {_traces(page, lab, graded_class)}"
        active = [found for found in page.evaluate(ACTIVE_IN_DOM, "body") if found != "<style>"]   # styles fetch nothing
        assert not active, f"{path}: {active}"
        fetched = [url for url, _ in seen["answered"] if urllib.parse.urlparse(url).path != path.split("?")[0]
                   and not url.endswith("/favicon.ico")]
        assert not fetched, f"{path} made the browser fetch {fetched}"
    page.screenshot(path=str(ARTIFACTS / "20-a-students-notebook-as-print-preview-inert.png"))
    exported = page.request.get(f"{lab['base']}/nbconvert/html/{folder}/{LESSON}.ipynb?download=true", headers=_from_lab(lab))
    assert "attachment" in exported.headers["content-disposition"] and b"<script" not in exported.body()
    assert "<meta http-equiv=\"Content-Security-Policy\"" in exported.text(), "a saved copy forbids scripts itself"
    figure = page.request.get(f"{lab['base']}/files/{folder}/figure.svg", headers=_from_lab(lab))
    assert "attachment" in figure.headers["content-disposition"] and "sandbox" in figure.headers["content-security-policy"]
    # Formgrader's own route to the files beside a submission's copy, at the server's origin: pictures only
    beside = page.goto(f"{lab['base']}/formgrader/submissions/{graded_class['submission_ids']['mallory']}/notes.html")
    assert beside.status == 403 and "not shown on Formgrader's pages" in page.inner_text("body")
    time.sleep(1.0)
    assert not _traces(page, lab, graded_class)


def test_html_of_any_size_is_served_whole(page, instructor_lab, graded_class):
    lab = instructor_lab
    _log_in(page, lab)
    for path, size in graded_class["big_pages"].items():
        assert size > 3 * 65536
        _visit(page, lab, f"/files/{path}", "END OF THE FEEDBACK PAGE", settle_s=0)
        served = page.request.get(f"{lab['base']}/files/{path}", headers=_from_lab(lab))
        assert served.ok and b"END OF THE FEEDBACK PAGE" in served.body()
        if path.startswith("graded/"):
            assert len(served.body()) == size, "the grader's own page, byte for byte"


def test_the_instructors_jupyterlab_shows_the_hostile_notebook_inert(page, instructor_lab, graded_class):
    seen = _watch(page)
    for path in (f"submitted/mallory/{LESSON}/{LESSON}.ipynb", f"autograded/mallory/{LESSON}/{LESSON}.ipynb"):
        open_lab(page, instructor_lab, path)
        cells = page.locator(".jp-NotebookPanel .jp-Cell")
        for i in range(cells.count()):   # every cell rendered (JupyterLab renders cells as they come into view)
            cells.nth(i).scroll_into_view_if_needed()
        time.sleep(2.0)
        assert page.get_by_text("My answer: one device variable").count(), f"{path}: the written answer is shown"
        assert not _traces(page, instructor_lab, graded_class), f"{path}: {_traces(page, instructor_lab, graded_class)}"
    called = [url for url, kind in seen["answered"] if OWN_ENDPOINTS.match(urllib.parse.urlparse(url).path)]
    assert not called, f"mallory's pictures called the server with the instructor's cookies: {called}"
    still_in = page.request.get(f"{instructor_lab['base']}/api/status")
    assert still_in.ok, "the instructor is still logged in"


def test_formgraders_autograde_button_grades_as_grade_does_and_nothing_escapes(page, instructor_lab, graded_class):
    """Formgrader's Autograde button is nbgrader's autograde, routed through the course's grader
    (autograder/classroom/nbgrader_autograde.py): the box, the verdicts outside it, the same scores."""
    from nbgrader.api import Gradebook

    lab, root = instructor_lab, graded_class["root"]
    expected = graded_class["scores"]
    assert expected == {"cpu-only": 0.0, "escaper": 1.0}, "grade --gradebook: the written-in device loses its point"
    with Gradebook(graded_class["db"], COURSE_ID) as gb:   # spoiled, so that a button that graded nothing would show
        for student in expected:
            gb.find_grade("choose-device-tests", LESSON, LESSON, student).auto_score = -1.0
        gb.db.commit()
    open_lab(page, lab)
    for student in expected:
        _visit(page, lab, f"/formgrader/manage_submissions/{LESSON}", student)
        page.locator("tr", has_text=student).locator(".glyphicon-flash").click()
        modal = page.locator("#success-modal, #error-modal")
        modal.wait_for(timeout=600_000)
        if page.locator("#error-modal").count():
            pytest.fail(f"Autograde failed for {student}: {modal.inner_text()[:3000]}")
        page.screenshot(path=str(ARTIFACTS / f"17-formgrader-autograde-{student}.png"))
    with Gradebook(graded_class["db"], COURSE_ID) as gb:
        scores = {s: gb.find_grade("choose-device-tests", LESSON, LESSON, s).auto_score for s in expected}
    assert scores == expected, "the button's scores are grade --gradebook's"
    assert not (root / "escaped.txt").exists() and not (root.parent / "escaped.txt").exists()
    assert not os.path.exists("/tmp/escaped-by-a-student.txt")
