"""Formgrader's pages in the instructor's browser: a second line of defence for what students wrote.

The first line is the grader's: the copy Formgrader shows holds only inert markup, and only person-like student
ids reach the gradebook (autograder/classroom). Formgrader itself renders student work into pages served at the
origin of the instructor's Jupyter server, where a script could use the instructor's session; so that one vector
the first line misses is not enough, every Formgrader page gets a Content-Security-Policy here:

- scripts only from Formgrader's own static folder, plus the inline scripts and the few inline handlers
  (``onclick``) of nbgrader's own templates, allowed one by one by their hash. A hash is taken only from the part
  of a page nbgrader's template writes before any student content: on the manual-grading page, everything before
  the notebook (``id="notebook-container"``); on every other page, the whole page, which holds no student content
  (its lists are filled in by script, from Formgrader's JSON API);
- requests only to Formgrader's own API and static files: no script, image, style or font of a student's can
  reach Jupyter's API (files, kernels, terminals) or another host; no forms, frames, objects or ``<base>``;
- a page whose URL carries a student, assignment or notebook name that no person could have written is refused
  (nbgrader's templates put those names into an inline script unescaped).

This is tornado's own mechanism for rewriting responses (an ``OutputTransform``), added by courselab's server
extension; nbgrader's code is not changed.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from urllib.parse import unquote

from tornado.web import OutputTransform

# nbgrader's manual-grading template opens the student's notebook with this element; nothing before it is theirs.
STUDENT_CONTENT_STARTS = 'id="notebook-container"'
_SEGMENT = re.compile(r"[A-Za-z0-9._@-]*")       # path segments Formgrader's page URLs may carry
_HOST = re.compile(r"[A-Za-z0-9.\-]+(:\d{1,5})?|\[[0-9A-Fa-f:.]+\](:\d{1,5})?")
_JS_TYPES = {"", "text/javascript", "application/javascript", "module"}


class _InlineCode(HTMLParser):
    """The inline scripts and the event-handler attributes of an HTML text, as the browser hashes them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts: list[str] = []
        self.handlers: list[str] = []
        self._in_script = False
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.handlers += [value or "" for name, value in attrs if name.startswith("on")]
        if tag == "script" and "src" not in attributes and (attributes.get("type") or "").lower() in _JS_TYPES:
            self._in_script, self._text = True, []

    def handle_data(self, data):
        if self._in_script:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._in_script:
            self.scripts.append("".join(self._text))
            self._in_script = False


def _hash(code: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode("ascii") + "'"


def policy(page: str, host: str, base_url: str, student_content: bool) -> str:
    """The Content-Security-Policy of a Formgrader page (``page``, its HTML as served)."""
    trusted = page.split(STUDENT_CONTENT_STARTS, 1)[0] if student_content else page
    code = _InlineCode()
    code.feed(trusted)
    code.close()
    own = f"{host}{base_url}formgrader/" if _HOST.fullmatch(host or "") else "'self'"
    static = f"{own}static/" if own != "'self'" else own
    scripts = " ".join(sorted({_hash(s) for s in code.scripts} | {_hash(h) for h in code.handlers}))
    unsafe_hashes = " 'unsafe-hashes'" if code.handlers else ""
    return (f"default-src 'none'; script-src {static} {scripts}{unsafe_hashes}; "
            f"style-src {static} 'unsafe-inline'; img-src {static} data:; font-src {static} data:; "
            f"connect-src {own}api/; form-action 'none'; base-uri 'none'; object-src 'none'; frame-src 'none'; "
            "frame-ancestors 'self'")


def unsafe_names(path: str, prefix: str) -> bool:
    """Whether a Formgrader page's URL carries a name (student, assignment, notebook) no person could have written."""
    return any(not _SEGMENT.fullmatch(unquote(segment)) for segment in path[len(prefix):].split("/"))


def transform_class(base_url: str) -> type:
    """The OutputTransform for a server whose URLs start with ``base_url``."""
    prefix = f"{base_url}formgrader/"

    class FormgraderPolicy(OutputTransform):
        def __init__(self, request):
            super().__init__(request)
            path = request.path
            self.active = path.startswith(prefix) and not path.startswith((f"{prefix}static/", f"{prefix}api/"))
            self.request = request

        def transform_first_chunk(self, status_code, headers, chunk, finishing):
            if not self.active or not headers.get("Content-Type", "").startswith("text/html"):
                return status_code, headers, chunk
            if unsafe_names(self.request.path, prefix):
                chunk = (b"<!DOCTYPE html><title>Refused</title><p>This address names a student, assignment or "
                         b"notebook that no person could have written; Formgrader does not show it.</p>")
                status_code = 400
                headers["Content-Security-Policy"] = "default-src 'none'"
            else:
                page = chunk.decode("utf-8", "replace") if finishing else ""   # a streamed page gets no inline code
                grading_page = self.request.path.startswith(f"{prefix}submissions/")
                headers.add("Content-Security-Policy", policy(page, self.request.host, base_url, grading_page))
            if "Content-Length" in headers:
                headers["Content-Length"] = str(len(chunk))
            return status_code, headers, chunk

    return FormgraderPolicy


def add_to(serverapp) -> None:
    """Put the policy on every Formgrader page of ``serverapp`` (called by courselab's server extension hook)."""
    base_url = serverapp.web_app.settings.get("base_url", "/")
    serverapp.web_app.add_transform(transform_class(base_url if base_url.endswith("/") else base_url + "/"))
    serverapp.log.info("courselab: Formgrader's pages carry a Content-Security-Policy (student work stays inert)")
