"""The similarity report: one HTML page per assignment, the listed pairs with their answers side by side.

Everything a student controls (code, written text, student ids, the reasons that name their files) is inserted
as text, escaped with ``html.escape``: no markdown is rendered and no student HTML survives. The page has no
script and loads nothing (its Content-Security-Policy allows inline styles only), so opening it runs nothing a
student wrote, whatever the answers hold.
"""

from __future__ import annotations

import html
import time

MAX_PAIRS_SHOWN = 100  # per track; the CSV lists them all
CSP = "default-src 'none'; style-src 'unsafe-inline'"
STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
.note { background: #fff7e0; border-left: 4px solid #e0a800; padding: .6em 1em; max-width: 60em; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
mark { background: #ffd54f; }
section.pair { border-top: 2px solid #888; margin-top: 2em; }
.muted { color: #666; }
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def marked(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` escaped, with the stretches ``spans`` (character ranges, in order) in ``<mark>``."""
    pieces, at = [], 0
    for start, end in sorted(spans):
        start = max(start, at)
        if end <= start:
            continue
        pieces += [_e(text[at:start]), "<mark>", _e(text[start:end]), "</mark>"]
        at = end
    pieces.append(_e(text[at:]))
    return "".join(pieces)


def _cell(comparison, pair, match, agrees: bool) -> str:
    """One cell of a pair (a ``similarity.CellMatch``): both answers side by side, the matching stretches of the
    readings that counted marked."""
    first = comparison.track.representations[0]
    fa = comparison.fingerprints[first.name][match.cell][pair.a]
    fb = comparison.fingerprints[first.name][match.cell][pair.b]
    spans_a = [s for r in match.readings for s in r.spans_a]
    spans_b = [s for r in match.readings for s in r.spans_b]
    state = "agrees" if agrees else ("stands out" if not pair.listed and match in pair.cells
                                     else "answered by both; does not agree on its own")
    readings = ", ".join(r.name for r in match.readings)
    return (f"<h4>{_e(match.cell)} <span class='muted'>({state}, evidence {match.evidence:.2f} from "
            f"{_e(readings)}: {_e(match.why())}; {_e(fa.own)} and {_e(fb.own)} {first.unit} of their own)</span></h4>\n"
            f"<div class='side'><div><b>{_e(pair.a)}</b><pre>{marked(fa.tokens.text, spans_a)}</pre></div>"
            f"<div><b>{_e(pair.b)}</b><pre>{marked(fb.tokens.text, spans_b)}</pre></div></div>\n")


def _track(comparison, pairs: list) -> str:
    """One track's pairs shown (a ``similarity.Comparison`` and its shown pairs, listed or not): the table, then each
    pair."""
    track = comparison.track
    title = "Code answers" if track.name == "code" else "Written answers"
    listed = sum(p.listed for p in pairs)
    parts = [f"<h2>{title}</h2>\n",
             f"<p>{len(comparison.cells)} answer cells ({_e(', '.join(comparison.cells))}), read as "
             f"{_e(', '.join(r.name for r in track.representations))}. A pair is listed when its score reaches "
             f"{track.threshold:g} and at least {track.min_cells} cell(s) agree; a cell counts when both answers have "
             f"at least {track.min_own} {track.unit} of their own. <b>{listed} pair(s) listed.</b> The pairs below "
             f"the line are shown too (the class's highest, and those far above its typical pair): they are not "
             f"listed, and most are honest work.</p>\n"]
    if not pairs:
        return "".join(parts + ["<p>No pair to show.</p>\n"])
    parts.append("<table><tr><th>#</th><th>student</th><th>student</th><th>score</th><th>listed</th><th>why</th></tr>\n")
    for rank, pair in enumerate(pairs, start=1):
        link = f"<a href='#{track.name}-{rank}'>{rank}</a>" if rank <= MAX_PAIRS_SHOWN else str(rank)
        mark = "<b>listed</b>" if pair.listed else "<span class='muted'>below the line</span>"
        row = "<tr>" if pair.listed else "<tr class='muted'>"
        parts.append(f"{row}<td>{link}</td><td>{_e(pair.a)}</td>"
                     f"<td>{_e(pair.b)}</td><td>{pair.score:.3f}</td><td>{mark}</td><td>{_e(pair.why())}</td></tr>\n")
    parts.append("</table>\n")
    if len(pairs) > MAX_PAIRS_SHOWN:
        parts.append(f"<p>The first {MAX_PAIRS_SHOWN} pairs are shown below; the CSV file lists all {len(pairs)}.</p>\n")
    for rank, pair in enumerate(pairs[:MAX_PAIRS_SHOWN], start=1):
        state = "listed" if pair.listed else "not listed"
        parts.append(f"<section class='pair' id='{track.name}-{rank}'><h3>{rank}. {_e(pair.a)} and {_e(pair.b)}: "
                     f"score {pair.score:.3f}, {state}</h3>\n")
        parts += [_cell(comparison, pair, m, pair.listed) for m in pair.cells]
        parts += [_cell(comparison, pair, m, False) for m in pair.others]
        parts.append("</section>\n")
    return "".join(parts)


def render(answers, comparisons: list, shown: dict[str, list]) -> str:
    """The whole page for one assignment (``similarity.ClassAnswers``, a ``Comparison`` per track, its pairs shown)."""
    parts = ["<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n",
             f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">\n",
             "<meta name='referrer' content='no-referrer'>\n",
             f"<title>Similar answers: {_e(answers.assignment)}</title><style>{STYLE}</style></head><body>\n",
             f"<h1>Similar answers: {_e(answers.assignment)}</h1>\n",
             "<p class='note'>Each listed pair is evidence to look at, never a verdict: two students who worked "
             "together as allowed, who followed the same tutorial, or who both wrote the obvious answer can share "
             "code. Read the answers side by side; matching stretches are <mark>marked</mark> (names, comments, "
             "layout, the text of strings and the order of independent statements are ignored when matching, so a "
             "marked stretch may differ in those; in written answers, word endings and small words are ignored). "
             "docs/similarity.md explains the score.</p>\n",
             f"<p>{len(answers.students)} students compared, {len(answers.skipped)} not compared; made "
             f"{_e(time.strftime('%Y-%m-%d %H:%M'))} on this machine, from nothing but the submitted notebooks.</p>\n"]
    parts += [_track(c, shown[c.track.name]) for c in comparisons]
    if answers.skipped:
        parts.append("<h2>Not compared</h2>\n<table><tr><th>folder</th><th>why</th></tr>\n")
        parts += [f"<tr><td>{_e(s.student)}</td><td>{_e(s.reason)}</td></tr>\n" for s in answers.skipped]
        parts.append("</table>\n")
    parts.append("</body></html>\n")
    return "".join(parts)
