"""The instructor's pages in the browser: a second line of defence for what students (and rosters) wrote.

The first line is the grader's: the copy Formgrader shows holds only inert markup, and only person-like student
ids reach the gradebook (autograder/classroom); the course's templates escape every name Formgrader prints
(courselab/formgrader_pages.py). But the instructor's browser also renders what neither touched (a submission opened
from ``submitted/`` in JupyterLab, a name another tool wrote into the gradebook), at the origin of the instructor's
Jupyter server, where a script could use the instructor's session. So that one vector the first line misses is not
enough, the instructor set-up gives every page a Content-Security-Policy:

- **Formgrader's pages**: scripts only from Formgrader's own static folder, plus the inline scripts of the templates
  as installed, allowed one by one by their hash (courselab/template_code.py: read from the template files when the
  server starts, never from a page as served, so nothing that reaches a page can be allowed); no inline event
  handler at all. Requests go only to Formgrader's own API and static files: no script, image, style or font of a
  student's reaches Jupyter's API or another host; no forms, frames, objects or ``<base>``. A page whose URL
  carries a student, assignment or notebook name no person could have written is refused.
- **JupyterLab's pages**: scripts only from the server (and the inline scripts of Jupyter server's and JupyterLab's
  templates, by hash, read the same way); images, media, fonts and styles only from the server's own asset folders
  (``static/``, ``lab/extensions/``, ``lab/api/themes/``, ``kernelspecs/``) and ``files/`` (a notebook's pictures), or
  inline: a student's ``<img src="/logout">`` or ``/formgrader/api/...`` in a markdown cell is never requested;
  requests by script only to the server.
- **Students' folders** (``submitted/``, ``autograded/``, ``feedback/``, the exchange): ``/files/`` and
  ``/nbconvert/`` serve their HTML made inert (courselab/inert_files.py); Formgrader's own route to the files
  beside a submission serves pictures only.

This is tornado's own mechanism for rewriting responses (an ``OutputTransform``), added by courselab's server
extension in the instructor set-up; neither nbgrader's nor JupyterLab's code is changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from tornado.web import OutputTransform

from . import formgrader_pages, inert_files
from .template_code import TrustedCode, trusted_code

_SEGMENT = re.compile(r"[A-Za-z0-9._@-]*")       # path segments Formgrader's page URLs may carry
_HOST = re.compile(r"[A-Za-z0-9.\-]+(:\d{1,5})?|\[[0-9A-Fa-f:.]+\](:\d{1,5})?")
# Pages that are not the instructor's application: files a user opens raw (students' folders are handled by
# inert_files), and what is not a page at all.
_NOT_APP_PAGES = ("files/", "view/", "static/", "api/", "nbconvert/", "formgrader/")
# Where JupyterLab's own pictures, fonts and style sheets come from (below the server's base URL); a notebook's
# pictures come from files/. Nothing else on the server answers an <img>, <video> or @font-face.
LAB_ASSETS = ("static/", "lab/extensions/", "lab/api/themes/", "kernelspecs/", "files/")
_NBCONVERT = re.compile(r"nbconvert/[^/]+/(.*)")
# Formgrader serves the files beside a submission's copy in autograded/ (nbgrader's Autograde copies there whatever
# the student handed in beside the notebook) at the server's own origin, for the pictures of the manual-grading page.
_SUBMISSION_FILE = re.compile(r"submissions/(?!components/)[^/]+/(?!(?:next|prev|next_incorrect|prev_incorrect)/?$).+")


@dataclass
class Trusted:
    """The inline code each kind of page may run, read from the templates when the server starts (None before)."""
    formgrader: TrustedCode | None = None
    lab: TrustedCode | None = None


def _own(host: str) -> str | None:
    """The server's host as a CSP source (no scheme: it matches the page's own), or None for an odd Host header."""
    return host if _HOST.fullmatch(host or "") else None


def formgrader_policy(host: str, base_url: str, code: TrustedCode) -> str:
    """The Content-Security-Policy of a Formgrader page."""
    own = f"{_own(host)}{base_url}formgrader/" if _own(host) else "'self'"
    static = f"{own}static/" if own != "'self'" else own
    return (f"default-src 'none'; script-src {static} {code.csp()}; "
            f"style-src {static} 'unsafe-inline'; img-src {static} data:; font-src {static} data:; "
            f"connect-src {own}api/; form-action 'none'; base-uri 'none'; object-src 'none'; frame-src 'none'; "
            "frame-ancestors 'self'")


def lab_policy(host: str, base_url: str, code: TrustedCode) -> str:
    """The Content-Security-Policy of a JupyterLab page. JupyterLab compiles its settings' schemas at run time
    (``'unsafe-eval'``), which only code already running can use; no markup can start a script."""
    own = _own(host)
    assets = " ".join(f"{own}{base_url}{folder}" for folder in LAB_ASSETS) if own else "'self'"
    sockets = f" ws://{own} wss://{own}" if own else ""
    return (f"default-src 'none'; script-src 'self' 'unsafe-eval' {code.csp()}; "
            f"style-src {assets} 'unsafe-inline'; img-src {assets} data: blob:; media-src {assets} data: blob:; "
            f"font-src {assets} data:; connect-src 'self'{sockets}; worker-src 'self' blob:; "
            "frame-src 'self' blob: data:; manifest-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
            "frame-ancestors 'self'")


def unsafe_names(path: str, prefix: str) -> bool:
    """Whether a Formgrader page's URL carries a name (student, assignment, notebook) no person could have written."""
    return any(not _SEGMENT.fullmatch(unquote(segment)) for segment in path[len(prefix):].split("/"))


REFUSED = (b"<!DOCTYPE html><title>Refused</title><p>This address names a student, assignment or notebook that no "
           b"person could have written; Formgrader does not show it.</p>")
STARTING = (b"<!DOCTYPE html><title>Starting</title><p>Formgrader's pages are being set up (the course's templates "
            b"and their policy); reload in a moment. If this stays, the server's log says why.</p>")
NOT_ON_FORMGRADER = (b"<!DOCTYPE html><title>Not shown</title><p>A student's file is not shown on Formgrader's "
                     b"pages. Open it from JupyterLab's file browser, where a page a student made is shown inert.</p>")
NOT_SHOWN = (b"<!DOCTYPE html><title>Not shown</title><p>This conversion of a student's notebook came in parts, "
             b"which the course cannot make inert; open the notebook in JupyterLab instead.</p>")


def transform_class(base_url: str, trusted: Trusted, settings: dict, root_dir: str) -> type:
    """The OutputTransform for a server whose URLs start with ``base_url``; ``settings``: the server's."""
    formgrader = f"{base_url}formgrader/"

    class PagePolicy(OutputTransform):
        def __init__(self, request):
            super().__init__(request)
            self.request = request
            self.dropping = False   # the rest of a response that was replaced whole

        def transform_first_chunk(self, status_code, headers, chunk, finishing):
            path = self.request.path
            if not path.startswith(base_url):
                return status_code, headers, chunk
            converted = _NBCONVERT.fullmatch(unquote(path[len(base_url):]))
            if converted and inert_files.student_folder_of(settings, root_dir, converted.group(1)):
                return self._inert_conversion(status_code, headers, chunk, finishing, converted.group(1))
            if path.startswith(formgrader) and _SUBMISSION_FILE.fullmatch(path[len(formgrader):]):
                return self._students_file(status_code, headers, chunk, finishing)
            if not headers.get("Content-Type", "").startswith("text/html"):
                return status_code, headers, chunk
            if path.startswith(formgrader) and not path.startswith((f"{formgrader}static/", f"{formgrader}api/")):
                if unsafe_names(path, formgrader):
                    return self._replaced(400, headers, REFUSED, "default-src 'none'", finishing)
                if trusted.formgrader is None:
                    return self._replaced(503, headers, STARTING, "default-src 'none'", finishing)
                headers.add("Content-Security-Policy", formgrader_policy(self.request.host, base_url, trusted.formgrader))
            elif not path[len(base_url):].startswith(_NOT_APP_PAGES):
                headers.add("Content-Security-Policy", lab_policy(self.request.host, base_url, trusted.lab or TrustedCode()))
            return status_code, headers, chunk

        def transform_chunk(self, chunk, finishing):
            return b"" if self.dropping else chunk

        def _replaced(self, status_code, headers, body: bytes, policy: str, finishing: bool):
            """The response replaced whole by ``body`` (what the handler writes after a first part is dropped)."""
            headers["Content-Security-Policy"] = policy
            headers["Content-Type"] = "text/html; charset=UTF-8"
            headers["Content-Length"] = str(len(body))
            headers.pop("Content-Disposition", None)
            self.dropping = not finishing
            return status_code, headers, body

        def _students_file(self, status_code, headers, chunk, finishing):
            """A file beside a submission's copy, through Formgrader: a picture as it is, nothing that could run."""
            headers["Content-Security-Policy"] = inert_files.POLICY
            headers["X-Content-Type-Options"] = "nosniff"
            kind = headers.get("Content-Type", "").split(";")[0].strip()
            if status_code in (200, 206) and kind not in inert_files.SHOWN_AS_THEY_ARE:
                return self._replaced(403, headers, NOT_ON_FORMGRADER, inert_files.POLICY, finishing)
            return status_code, headers, chunk

        def _inert_conversion(self, status_code, headers, chunk, finishing, notebook: str):
            """nbconvert's output for a notebook in a students' folder: HTML made inert, other types as files are."""
            kind = headers.get("Content-Type", "").split(";")[0].strip()
            if status_code != 200:
                headers["Content-Security-Policy"] = inert_files.POLICY
                return status_code, headers, chunk
            if kind in inert_files.HTML_TYPES:
                if not finishing:
                    return self._replaced(500, headers, NOT_SHOWN, inert_files.POLICY, finishing)
                download = headers.get("Content-Disposition")    # Export as HTML: still a download, of the inert page
                status_code, headers, chunk = self._replaced(status_code, headers, inert_files.inert_page(
                    chunk, Path(notebook).name), inert_files.POLICY, finishing)
                if download:
                    headers["Content-Disposition"] = download
            else:
                headers["Content-Security-Policy"] = inert_files.POLICY
                if kind not in inert_files.SHOWN_AS_THEY_ARE and "Content-Disposition" not in headers:
                    headers["Content-Disposition"] = "attachment"
            headers["X-Content-Type-Options"] = "nosniff"
            return status_code, headers, chunk

    return PagePolicy


def add_to(serverapp) -> Trusted:
    """Put the policies on the pages of ``serverapp`` (called by courselab's server extension when it loads); their
    inline code is read by ``start`` once every extension has loaded."""
    base_url = serverapp.web_app.settings.get("base_url", "/")
    base_url = base_url if base_url.endswith("/") else base_url + "/"
    trusted = Trusted()
    serverapp.web_app.add_transform(transform_class(base_url, trusted, serverapp.web_app.settings, serverapp.root_dir))
    serverapp.log.info("courselab: the instructor's pages carry a Content-Security-Policy (student work stays inert)")
    return trusted


def start(serverapp, trusted: Trusted) -> None:
    """Once every extension has loaded (nbgrader's Formgrader, JupyterLab): the course's Formgrader templates in
    place, and the inline code of every template the pages are rendered from read into ``trusted``."""
    settings = serverapp.web_app.settings
    base_url = settings.get("base_url", "/")
    folders = formgrader_pages.install(settings)
    trusted.formgrader = trusted_code(folders, base_url.rstrip("/"))
    lab_folders = [Path(p) for p in settings.get("template_path", [])]
    for apps in serverapp.extension_manager.extension_apps.values():
        lab_folders += [Path(p) for app in apps for p in getattr(app, "template_paths", [])]
    trusted.lab = trusted_code(lab_folders, base_url)
    serverapp.log.info("courselab: Formgrader's pages from the course's templates; %d inline scripts allowed on "
                       "Formgrader's pages, %d on JupyterLab's, by hashes read from the templates",
                       len(trusted.formgrader.sources), len(trusted.lab.sources))
