"""Student content made inert: the one HTML sanitiser of the kit (nh3, Rust's ammonia), for every page that shows
what a student wrote (the feedback page, the copy Formgrader shows the instructor).

A student's markdown may hold any HTML. What survives here is text and harmless markup: no script, event
handler, frame, object, form, style, SVG element, ``javascript:``/``data:`` link, relative URL (which would reach
the server the page came from: the instructor's Jupyter, with the instructor's session) or remote image (a page
that fetches tells someone it was opened). Images show only from the cell's own attachments (a screenshot pasted
into JupyterLab), as ``<img>`` with a ``data:`` URL of an image type: an image, SVG included, cannot run script
or fetch anything.

The pages add their own second line of defence (a Content-Security-Policy), so one vector this misses is not
enough; see docs/grading-security.md.

A whole page someone else made (an HTML file a student handed in beside a notebook, a submission converted to HTML by
Jupyter for Print Preview or *Export as HTML*) is made inert by ``document``: the same cleaning, plus its style
sheets and classes (so that it still looks like itself), under a policy written into the page that forbids every
script and every request, so that a copy saved and opened from disk runs and fetches nothing either.
"""

from __future__ import annotations

import base64
import binascii
import html
import re

import nh3

# What JupyterLab stores for a pasted or dropped image, and what an <img> may show.
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml")
_DATA_IMAGE = re.compile(r"data:(image/(?:png|jpeg|gif|webp|svg\+xml));base64,[A-Za-z0-9+/=\s]*\Z")
MAX_ATTACHMENT_BYTES = 5 * 2**20   # a screenshot is well under this; a bigger one is shown as its name only
# Markdown's own output, and the HTML a student may reasonably type into a written answer. nh3 strips every other
# tag (keeping its text) and removes <script> and <style> with their content.
TAGS = {"a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em", "h1", "h2", "h3", "h4",
        "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "ol", "p", "pre", "q", "s", "span", "strong", "sub", "sup",
        "table", "tbody", "td", "th", "thead", "tr", "u", "ul"}
ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title", "width", "height"}, "td": {"align"},
              "th": {"align"}, "ol": {"start"}}
LINK_SCHEMES = {"http", "https", "mailto"}


def _attachment_url(attachments: dict, name: str) -> str | None:
    """A ``data:`` URL of the attachment ``name`` when it is an image the page may show, else None."""
    bundle = attachments.get(name)
    if not isinstance(bundle, dict):
        return None
    for mime in IMAGE_TYPES:
        data = bundle.get(mime)
        if isinstance(data, list):
            data = "".join(data)
        if not isinstance(data, str) or len(data) > MAX_ATTACHMENT_BYTES * 4 // 3 + 4:
            continue
        try:
            base64.b64decode(data, validate=False)
        except (binascii.Error, ValueError):
            continue
        return f"data:{mime};base64," + re.sub(r"\s+", "", data)
    return None


def _kept(attachments: dict):
    """nh3's attribute filter: images only from ``attachments`` or ``data:`` URLs of an image type, no ``data:`` links."""
    def keep(tag: str, attribute: str, value: str) -> str | None:
        if tag == "img" and attribute == "src":
            if value.startswith("attachment:"):
                return _attachment_url(attachments, value[len("attachment:"):])
            return value if _DATA_IMAGE.match(value) else None     # no remote or relative image: nothing fetches
        if tag == "a" and attribute == "href":
            return None if value.lower().startswith("data:") else value
        return value

    return keep


def _cleaned(html_text: str, tags: set[str], attributes: dict, attachments: dict, clean_content: set[str]) -> str:
    return nh3.clean(html_text, tags=tags, attributes=attributes, attribute_filter=_kept(attachments),
                     clean_content_tags=clean_content, strip_comments=True,
                     url_schemes=LINK_SCHEMES | {"data", "attachment"}, url_relative="deny",
                     link_rel="noopener noreferrer nofollow")


def clean(fragment: str, attachments: dict | None = None) -> str:
    """``fragment`` (HTML) with only harmless markup left; ``<img src="attachment:NAME">`` becomes the cell's own
    image (``attachments``, a cell's attachments as nbformat stores them) or loses its source."""
    return _cleaned(fragment, TAGS, ATTRIBUTES, attachments if isinstance(attachments, dict) else {},
                    {"script", "style"})


# A whole page keeps its look: its style sheets (which can fetch nothing under DOCUMENT_POLICY), the classes they
# select, and the layout elements pages are made of. Its title becomes the page's own, as text.
DOCUMENT_TAGS = TAGS | {"style", "section", "article", "header", "footer", "main", "figure", "figcaption", "caption",
                        "col", "colgroup", "tfoot", "small", "mark", "cite", "center"}
DOCUMENT_ATTRIBUTES = {**ATTRIBUTES, "*": {"class"}}
# What a page made inert may still do: show its text, its inline styles and its data: images. Nothing runs, nothing is
# fetched, no form is sent, nothing else is framed. The same words go into the page (for a copy saved and opened from
# disk) and into the header of the response that serves it.
DOCUMENT_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'"
MAX_DOCUMENT_BYTES = 32 * 2**20   # a converted notebook with many figures is a few MB; a bigger page is not shown


def document(page: str | bytes, title: str, note: str = "") -> str:
    """A whole HTML page someone else made, as a page that runs and fetches nothing: cleaned like a fragment, less
    strictly about looks (see DOCUMENT_TAGS), under DOCUMENT_POLICY, with ``title`` and ``note`` (text, say what was
    done and why) at its top. Bytes are read as UTF-8 (a byte that is not is shown as U+FFFD)."""
    if isinstance(page, bytes):
        if len(page) > MAX_DOCUMENT_BYTES:
            raise ValueError(f"{len(page) / 2**20:.0f} MB: more than the {MAX_DOCUMENT_BYTES // 2**20} MB a page may "
                             "have to be shown here")
        page = page.decode("utf-8", "replace")
    body = _cleaned(page, DOCUMENT_TAGS, DOCUMENT_ATTRIBUTES, {}, {"script", "title"})
    banner = f'<p class="inert-note">{html.escape(note)}</p>' if note else ""
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{DOCUMENT_POLICY}">'
            f"<title>{html.escape(title)}</title></head>\n<body>{banner}{body}</body></html>\n")


def markdown_html(source: str, attachments: dict | None = None) -> str:
    """A markdown cell's source rendered as nbconvert (and so Formgrader) renders markdown, then cleaned. An image
    that names an attachment the cell does not have (nbconvert stops the whole page on it) shows as its alt text."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    attachments = attachments if isinstance(attachments, dict) else {}

    class Renderer(IPythonRenderer):
        def _embed_image_or_attachment(self, src: str) -> str:   # never a file of the machine, never an error
            if src.startswith("attachment:"):
                return _attachment_url(attachments, src[len("attachment:"):]) or ""
            return src

    return clean(MarkdownWithMath(renderer=Renderer(escape=False)).render(source), attachments)


def as_markdown(fragment: str) -> str:
    """Clean HTML as a markdown cell's source that every markdown renderer passes through unchanged: one HTML block
    on one line (a blank line would end the block and let the rest be read as markdown again)."""
    # MathJax (in JupyterLab, or in a page that loads it) skips these classes: a student's TeX stays text, so no
    # \href or \class of theirs becomes a link or markup.
    return ('<div class="student-markdown tex2jax_ignore mathjax_ignore">'
            + fragment.replace("\r", "").replace("\n", "&#10;") + "</div>")


def as_text(text: str) -> str:
    """Any text shown as itself, never as markup (a raw cell, a name)."""
    return "<pre>" + html.escape(text) + "</pre>"
