"""The inline code the server's own templates can write: what the instructor's pages allow by hash.

A Content-Security-Policy that allowed the inline scripts it found in a page as served would allow whatever reached
that page: a name from a roster printed unescaped by a template is then a script like any other. So the hashes come
from the template files as installed (nbgrader's Formgrader templates, nbconvert's, Jupyter server's and JupyterLab's,
and the course's own in ``courselab/templates/``), read once when the server starts:

- an inline script with no template expression is allowed as written;
- one whose only expression is the server's base URL (fixed while the server runs) is allowed as the template
  renders it with that value;
- one with any other expression (a student's, an assignment's or a notebook's name, which change from page to page)
  is never allowed: the course's own templates replace each such script a page needs, and pass the names as data
  (``courselab/templates/formgrade/page_values.j2``);
- an inline event handler (``onclick="..."``) is never allowed (no policy has ``'unsafe-hashes'``): the course's
  templates bind those actions in their scripts instead. ``handlers`` lists the ones the templates still have, for
  the tests.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import jinja2

# Script types a browser runs (and the policy governs); a JSON or MathJax-configuration block is data.
_JS_TYPES = {"", "text/javascript", "application/javascript", "module"}
_TEMPLATE_SUFFIXES = (".html", ".tpl", ".j2")
_EXPRESSION = re.compile(r"\{\{(.*?)\}\}", re.S)
_STATEMENT = re.compile(r"\{[%#]")
_SERVER_VALUES = {"base_url", "resources.base_url"}


def sha256_source(code: str) -> str:
    """The CSP source that allows the inline script (or handler) ``code``."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode("ascii") + "'"


class _InlineCode(HTMLParser):
    """The inline scripts and the event-handler attributes of a template's text."""

    def __init__(self):
        super().__init__(convert_charrefs=False)   # the text of a script is what the browser hashes: no entities
        self.scripts: list[str] = []
        self.handlers: list[str] = []
        self._text: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.handlers += [f"{tag} {name}={value!r}" for name, value in attrs if name.startswith("on")]
        attributes = dict(attrs)
        if tag == "script" and "src" not in attributes and (attributes.get("type") or "").lower() in _JS_TYPES:
            self._text = []

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._text is not None:
            self.scripts.append("".join(self._text))
            self._text = None


@dataclass
class TrustedCode:
    """The inline scripts of a set of template folders that a policy may allow, as CSP sources."""
    sources: set[str] = field(default_factory=set)
    handlers: list[str] = field(default_factory=list)     # "file: tag onclick='...'", each never allowed
    left_out: list[str] = field(default_factory=list)     # "file: script with {{ name }}", each never allowed

    def csp(self) -> str:
        """The sources, for script-src (sorted: the same templates give the same policy)."""
        return " ".join(sorted(self.sources))


def trusted_code(folders: list[Path], base_url: str) -> TrustedCode:
    """The inline code of the templates directly in ``folders`` (not their subfolders); ``base_url`` is the value the
    server's templates are given for ``base_url``."""
    found = TrustedCode()
    render = jinja2.Environment(autoescape=True)
    seen: set[Path] = set()
    for folder in folders:
        for path in sorted(Path(folder).glob("*")):
            if path.suffix not in _TEMPLATE_SUFFIXES or not path.is_file() or path.resolve() in seen:
                continue
            seen.add(path.resolve())
            code = _InlineCode()
            code.feed(path.read_text(encoding="utf-8"))
            code.close()
            found.handlers += [f"{path.name}: {h}" for h in code.handlers]
            for script in code.scripts:
                expressions = {e.strip() for e in _EXPRESSION.findall(script)}
                if not expressions and not _STATEMENT.search(script):
                    found.sources.add(sha256_source(script))
                elif expressions <= _SERVER_VALUES and not _STATEMENT.search(script):
                    text = render.from_string(script).render(base_url=base_url, resources={"base_url": base_url})
                    found.sources.add(sha256_source(text))
                else:
                    found.left_out.append(f"{path.name}: a script with {', '.join(sorted(expressions)) or 'statements'}")
    return found
