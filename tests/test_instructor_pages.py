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
- ``cpu-only`` (a device written in) and ``escaper`` (writes outside its folder), for Formgrader's Autograde button.

Then every Formgrader page that shows them is opened (the assignment's and the notebook's lists, the submissions
list, every submission's manual-grading page, the students' pages), and the submitted and graded notebooks in the
instructor's JupyterLab: no marker is set, no file is written, the server on 127.0.0.1 hears nothing, and no
request of those pages reaches Jupyter's API. Screenshots go to ``test-artifacts/browser/`` (11 to 16).
Finally the Autograde button re-grades two students: the scores are ``grade --gradebook``'s, and nothing escaped.
"""

from __future__ import annotations

import base64
import http.server
import os
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


def _hostile_notebook(port: int):
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
    nb.cells += [raw, copied, pasted, shown]
    nb.metadata["kernelspec"]["display_name"] = f'<img src=x onerror="{action(47, port)}">'
    return nb


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
    handed_in = {"mallory": _hostile_notebook(port), "cpu-only": student_copy(LESSON, replace=WRONG_DEVICE),
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
    yield {"root": root, "port": port, "db": db, "hostile_id": hostile_id, "submission_ids": ids, "scores": scores,
           "listener": listener}
    listener.shutdown()


def _traces(page, lab, graded_class) -> list[str]:
    """Every trace a payload that ran would have left."""
    found = []
    marker = page.evaluate("() => window.__pwned || null")
    if marker:
        found.append(f"page marker {marker}")
    found += [f"the listener heard {path}" for path in _Listener.heard]
    found += [f"file {p}" for p in graded_class["root"].rglob("pwned-*")]
    return found


def _visit(page, lab, path: str, wait_for: str, screenshot: str | None = None, timeout_s: float = 60) -> None:
    response = page.goto(f"{lab['base']}{path}")
    assert response is not None and response.status < 400, f"{path}: {response.status if response else 'no answer'}"
    page.wait_for_function("(s) => document.body.innerText.includes(s)", arg=wait_for, timeout=timeout_s * 1000)
    time.sleep(1.0)   # what fires late (details' toggle, autofocus, animations, image errors) has fired
    if screenshot:
        page.screenshot(path=str(ARTIFACTS / screenshot))


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


def test_every_formgrader_page_shows_hostile_student_work_inert(page, instructor_lab, graded_class):
    lab = instructor_lab
    open_lab(page, lab)   # JupyterLab logs the browser in (a cookie), as an instructor's session
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
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
        _visit(page, lab, path, wait_for, screenshot)
        assert not _traces(page, lab, graded_class), f"{path}: {_traces(page, lab, graded_class)}"
        if "/submissions/" in path:
            assert not page.evaluate(ACTIVE_IN_DOM, "#notebook-container"), f"{path}: {page.evaluate(ACTIVE_IN_DOM, '#notebook-container')}"
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
    assert not [url for url in requests if url.startswith(api)], "a page reached Jupyter's API"
    page.screenshot(path=str(ARTIFACTS / "16-formgrader-refuses-a-hostile-address.png"))


def test_the_instructors_jupyterlab_shows_the_hostile_notebook_inert(page, instructor_lab, graded_class):
    for path in (f"submitted/mallory/{LESSON}/{LESSON}.ipynb", f"autograded/mallory/{LESSON}/{LESSON}.ipynb"):
        open_lab(page, instructor_lab, path)
        cells = page.locator(".jp-NotebookPanel .jp-Cell")
        for i in range(cells.count()):   # every cell rendered (JupyterLab renders cells as they come into view)
            cells.nth(i).scroll_into_view_if_needed()
        time.sleep(2.0)
        assert page.get_by_text("My answer: one device variable").count(), f"{path}: the written answer is shown"
        assert not _traces(page, instructor_lab, graded_class), f"{path}: {_traces(page, instructor_lab, graded_class)}"


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
