"""The instructor's pages in the browser: a second line of defence for what students wrote.

The first line is the grader's: the copy Formgrader shows holds only inert markup, and only person-like student
ids reach the gradebook (autograder/classroom). But the instructor's browser also renders student work the grader
never touched (a submission opened from ``submitted/`` in JupyterLab, a name another tool wrote into the gradebook),
at the origin of the instructor's Jupyter server, where a script could use the instructor's session. So that one
vector the first line misses is not enough, the instructor set-up gives every page a Content-Security-Policy:

- **Formgrader's pages**: scripts only from Formgrader's own static folder, plus the inline scripts and the few
  inline handlers (``onclick``) of nbgrader's own templates, allowed one by one by their hash. A hash is taken only
  from the part of a page nbgrader's template writes before any student content: on the manual-grading page,
  everything before the notebook (``id="notebook-container"``); on every other page, the whole page, which holds no
  student content (its lists are filled in by script, from Formgrader's JSON API). Requests go only to Formgrader's
  own API and static files: no script, image, style or font of a student's reaches Jupyter's API or another host;
  no forms, frames, objects or ``<base>``. A page whose URL carries a student, assignment or notebook name no
  person could have written is refused (nbgrader's templates put those names into an inline script unescaped).
- **JupyterLab's pages**: scripts only from the server (and the page's own inline script, by its hash); images,
  fonts and styles only from the server or inline; requests only to the server. A student's markdown rendered
  there (JupyterLab's own sanitiser runs first) can neither run script nor make the browser fetch from elsewhere.

This is tornado's own mechanism for rewriting responses (an ``OutputTransform``), added by courselab's server
extension in the instructor set-up; neither nbgrader's nor JupyterLab's code is changed.
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
# Pages that are not the instructor's application: files a user opens raw (Jupyter serves them in a sandbox of their
# own), and what is not a page at all.
_NOT_APP_PAGES = ("files/", "view/", "static/", "api/", "nbconvert/", "formgrader/")


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


def _inline_code(trusted: str) -> tuple[str, str]:
    """(the hashes of the inline scripts and handlers of ``trusted``, "'unsafe-hashes'" when there are handlers)."""
    code = _InlineCode()
    code.feed(trusted)
    code.close()
    hashes = " ".join(sorted({_hash(s) for s in code.scripts} | {_hash(h) for h in code.handlers}))
    return hashes, (" 'unsafe-hashes'" if code.handlers else "")


def _own(host: str) -> str | None:
    """The server's host as a CSP source (no scheme: it matches the page's own), or None for an odd Host header."""
    return host if _HOST.fullmatch(host or "") else None


def formgrader_policy(page: str, host: str, base_url: str, student_content: bool) -> str:
    """The Content-Security-Policy of a Formgrader page (``page``, its HTML as served)."""
    hashes, unsafe_hashes = _inline_code(page.split(STUDENT_CONTENT_STARTS, 1)[0] if student_content else page)
    own = f"{_own(host)}{base_url}formgrader/" if _own(host) else "'self'"
    static = f"{own}static/" if own != "'self'" else own
    return (f"default-src 'none'; script-src {static} {hashes}{unsafe_hashes}; "
            f"style-src {static} 'unsafe-inline'; img-src {static} data:; font-src {static} data:; "
            f"connect-src {own}api/; form-action 'none'; base-uri 'none'; object-src 'none'; frame-src 'none'; "
            "frame-ancestors 'self'")


def lab_policy(page: str, host: str) -> str:
    """The Content-Security-Policy of a JupyterLab page. JupyterLab compiles its settings' schemas at run time
    (``'unsafe-eval'``), which only code already running can use; no markup can start a script."""
    hashes, unsafe_hashes = _inline_code(page)
    sockets = f" ws://{_own(host)} wss://{_own(host)}" if _own(host) else ""
    return (f"default-src 'self'; script-src 'self' 'unsafe-eval' {hashes}{unsafe_hashes}; "
            "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; "
            f"connect-src 'self'{sockets}; worker-src 'self' blob:; frame-src 'self' blob: data:; object-src 'none'; "
            "base-uri 'self'; form-action 'self'; frame-ancestors 'self'")


def unsafe_names(path: str, prefix: str) -> bool:
    """Whether a Formgrader page's URL carries a name (student, assignment, notebook) no person could have written."""
    return any(not _SEGMENT.fullmatch(unquote(segment)) for segment in path[len(prefix):].split("/"))


REFUSED = (b"<!DOCTYPE html><title>Refused</title><p>This address names a student, assignment or notebook that no "
           b"person could have written; Formgrader does not show it.</p>")


def transform_class(base_url: str) -> type:
    """The OutputTransform for a server whose URLs start with ``base_url``."""
    formgrader = f"{base_url}formgrader/"

    class PagePolicy(OutputTransform):
        def __init__(self, request):
            super().__init__(request)
            self.request = request

        def transform_first_chunk(self, status_code, headers, chunk, finishing):
            path = self.request.path
            if not headers.get("Content-Type", "").startswith("text/html") or not path.startswith(base_url):
                return status_code, headers, chunk
            page = chunk.decode("utf-8", "replace") if finishing else ""   # a streamed page gets no inline code
            if path.startswith(formgrader) and not path.startswith((f"{formgrader}static/", f"{formgrader}api/")):
                if unsafe_names(path, formgrader):
                    chunk, status_code = REFUSED, 400
                    headers["Content-Security-Policy"] = "default-src 'none'"
                else:
                    student_content = path.startswith(f"{formgrader}submissions/")
                    headers.add("Content-Security-Policy",
                                formgrader_policy(page, self.request.host, base_url, student_content))
            elif not path[len(base_url):].startswith(_NOT_APP_PAGES):
                headers.add("Content-Security-Policy", lab_policy(page, self.request.host))
            if "Content-Length" in headers:
                headers["Content-Length"] = str(len(chunk))
            return status_code, headers, chunk

    return PagePolicy


def add_to(serverapp) -> None:
    """Put the policies on the pages of ``serverapp`` (called by courselab's server extension hook)."""
    base_url = serverapp.web_app.settings.get("base_url", "/")
    serverapp.web_app.add_transform(transform_class(base_url if base_url.endswith("/") else base_url + "/"))
    serverapp.log.info("courselab: the instructor's pages carry a Content-Security-Policy (student work stays inert)")
