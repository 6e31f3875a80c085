"""Students' files as the instructor's Jupyter serves them: data, never a page that runs.

In the instructor set-up, the folders nbgrader fills with what students handed in (``submitted/``, ``autograded/``,
``feedback/``, and the exchange where it lies inside the course) hold files a student made: an HTML or SVG file beside
the notebook, a notebook whose cells hold any HTML. Jupyter serves them raw at the instructor's origin: ``/files/``
shows an HTML file as a page (in a sandbox that still runs its scripts and lets them fetch from anywhere), and
``/nbconvert/html/`` (Print Preview, *Export as HTML*) converts a notebook with its scripts. Here, under those folders:

- an HTML page (a file, or a notebook converted) is served made inert by ``autograder/core/inert.py`` (``document``:
  its text and look, no script, no request, a policy written into the page itself, so that a copy saved and opened
  from disk runs and fetches nothing either); a note at its top says so;
- an image of a type that cannot hold script, plain text and JSON are served as they are; everything else (SVG, XML,
  PDF, any other type) as a download;
- every response carries the same policy in its header, and a sandbox;
- a link inside a student's folder is not followed (404): its target is not the student's.

Everything outside those folders is served as Jupyter serves it.
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path

from jupyter_server.base.handlers import AuthenticatedFileHandler
from tornado import web

from autograder.core import inert, student_files

# Every response from a student's folder: the policy of an inert page, no origin of its own, framed only by the
# server's own pages (Jupyter's /view/).
POLICY = inert.DOCUMENT_POLICY + "; sandbox; frame-ancestors 'self'"
HTML_TYPES = ("text/html", "application/xhtml+xml")
# Types a browser shows without running anything in them.
SHOWN_AS_THEY_ARE = ("image/png", "image/jpeg", "image/gif", "image/webp", "text/plain", "application/json",
                     "application/x-ipynb+json", "text/csv")
NOTE = ("A student's page, shown inert by the course: no script runs, nothing is fetched, forms and frames are "
        "removed. The file on disk is unchanged.")
_DEFAULT_FOLDERS = ("submitted", "autograded", "feedback")


def student_folders(settings: dict, root_dir: str) -> list[Path]:
    """The folders of students' files (absolute), from Formgrader's nbgrader settings where the server has them."""
    formgrader = settings.get("nbgrader_formgrader")
    if formgrader is None:
        return [Path(root_dir, name) for name in _DEFAULT_FOLDERS]
    coursedir = formgrader.coursedir
    folders = [Path(coursedir.root, name) for name in
               (coursedir.submitted_directory, coursedir.autograded_directory, coursedir.feedback_directory)]
    exchange = formgrader.config.get("Exchange", {}).get("root")
    return folders + ([Path(exchange)] if exchange else [])


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def student_folder_of(settings: dict, root_dir: str, relative: str) -> Path | None:
    """The students' folder that ``relative`` (a path under the server's root, as a URL names it) lies in, or None.
    Both the path as written and the file it leads to count, case-blind (a folder named ``Submitted`` on a
    case-blind disk is the same folder)."""
    written = os.path.normpath(os.path.join(root_dir, relative.lstrip("/")))
    real = os.path.realpath(written)
    for folder in student_folders(settings, root_dir):
        lexical, resolved = os.path.normpath(os.path.abspath(folder)), os.path.realpath(folder)
        if _inside(written.lower(), lexical.lower()) or _inside(real, resolved):
            return Path(lexical)
    return None


def _has_link(path: str, folder: Path) -> bool:
    """Whether any part of ``path`` below ``folder`` is a symbolic link."""
    here = os.path.normpath(path)
    while _inside(here, str(folder)) and here != str(folder):
        if os.path.islink(here):
            return True
        here = os.path.dirname(here)
    return False


def inert_page(content: bytes, name: str) -> bytes:
    """A student's HTML page (``content``), as the server may show it."""
    try:
        return inert.document(content, name, NOTE).encode("utf-8")
    except ValueError as too_big:
        return not_shown(name, str(too_big))


def not_shown(name: str, reason: str) -> bytes:
    """A page in place of a student's page the server does not show, saying why (``reason`` quotes nothing of it)."""
    return inert.document("", name, f"This page is not shown here: {reason}. Open the file on disk with an editor, "
                                    "not a browser.").encode("utf-8")


class InertFilesHandler(AuthenticatedFileHandler):
    """Jupyter's ``/files/`` handler (``FileContentsManager.files_handler_class`` in the instructor set-up), with
    students' folders served as this module says. Authentication and the other checks stay Jupyter's own."""

    _student_folder: Path | None = None
    _page: bytes | None = None

    def validate_absolute_path(self, root: str, absolute_path: str) -> str:
        written = os.path.normpath(absolute_path)
        found = super().validate_absolute_path(root, absolute_path)
        self._student_folder = student_folder_of(self.settings, root, os.path.relpath(written, root))
        if self._student_folder is None:
            return found
        if _has_link(written, self._student_folder) or not os.path.isfile(found):
            raise web.HTTPError(404, "a link or a special file in a student's folder is not served")
        if self._served_type(found) in HTML_TYPES:
            try:   # read as every reader of a student's files reads them: a regular file, never a link, bounded
                self._page = inert_page(student_files.read_file(found, inert.MAX_DOCUMENT_BYTES), os.path.basename(found))
            except student_files.Refused as refused:
                self._page = not_shown(os.path.basename(found), refused.reason)
        return found

    @staticmethod
    def _served_type(path: str) -> str | None:
        return mimetypes.guess_type(path)[0]

    def get_content_type(self) -> str:
        if self._page is not None:
            return "text/html; charset=utf-8"
        return super().get_content_type()

    def set_extra_headers(self, path: str) -> None:
        super().set_extra_headers(path)
        if self._student_folder is None:
            return
        self.set_header("Content-Security-Policy", POLICY)
        self.set_header("X-Content-Type-Options", "nosniff")
        shown = self._page is not None or (self._served_type(self.absolute_path) or "") in SHOWN_AS_THEY_ARE
        if not shown:
            self.set_attachment_header(os.path.basename(self.absolute_path))

    def get_content_size(self) -> int:
        return len(self._page) if self._page is not None else super().get_content_size()

    def get_content(self, abspath: str, start: int | None = None, end: int | None = None):  # type: ignore[override]
        # tornado calls this on the instance; an inert page is served from memory, other files as tornado reads them
        if self._page is not None:
            return self._page[start:end]
        return super().get_content(abspath, start, end)
