"""One owner per fact, for what the pages point at and what they measure: every link of the README, docs/, the
JupyterLab set-ups' README, bench/results/ and the notebooks (solutions and lessons) leads to a file that exists and to
a heading it has; a lesson's links stay inside the lesson's folder (a student's JupyterLab opens at lessons/, and on a
shared server a lesson is fetched alone); and no notebook states how long it takes to run, a fact the README's lessons
table owns (it is written from autograder/scale/grading_times.json), in the style of tests/test_options.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.authoring import links
from autograder.core import course, notebooks

ROOT = course.ROOT
PAGES = sorted([ROOT / "README.md", ROOT / "jupyter" / "README.md", *(ROOT / "docs").glob("*.md"),
                *(ROOT / "bench" / "results").glob("*.md"), *course.LESSONS.glob("*/*.md")])
NOTEBOOKS = sorted([*course.SOLUTIONS.glob("*/*.ipynb"), *course.LESSONS.glob("*/*.ipynb")])
# "the whole notebook runs in about a minute", "Validate takes about 30 s": a run time stated in a notebook.
RUN_TIME = re.compile(r"(whole\s+notebook|notebook.s time|[Vv]alidate)\b[^.;]*?\b(\d+(\.\d+)?\s*(s|seconds?|minutes?)\b|a minute|"
                      r"half a minute|(two|three|a few) minutes)")


def _markdown(path: Path) -> str:
    """A page's text, or a notebook's markdown cells one after the other."""
    if path.suffix == ".ipynb":
        return "\n\n".join(cell.source for cell in notebooks.read(path).cells if cell.cell_type == "markdown")
    return path.read_text(encoding="utf-8")


def _anchors(path: Path) -> set[str]:
    return links.anchors(_markdown(path))


def broken(path: Path, text: str | None = None) -> list[str]:
    """Each link of ``path`` (or of ``text``, read as if it were that file) that leads nowhere, with the reason."""
    text = _markdown(path) if text is None else text
    lesson = path.parent if course.LESSONS in path.parents else None
    found = []
    for target in links.links(text):
        if re.match(r"[a-z]+:", target):          # http:, https:, mailto:: outside this check (offline)
            continue
        where, _, anchor = target.partition("#")
        resolved = (path.parent / where).resolve() if where else path
        if not resolved.exists():
            found.append(f"{target}: no such file ({resolved.relative_to(ROOT) if ROOT in resolved.parents else resolved})")
            continue
        if lesson is not None and lesson != resolved and lesson not in resolved.parents:
            found.append(f"{target}: outside the lesson's folder, which is all a student's JupyterLab or a shared server "
                         f"may have (release copies pages of docs/ beside the lesson: link ../../docs/NAME.md)")
            continue
        if anchor and resolved.suffix in (".md", ".ipynb") and anchor not in _anchors(resolved):
            found.append(f"{target}: {resolved.name} has no heading or anchor {anchor!r}")
    return found


@pytest.mark.parametrize("path", PAGES + NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_to_a_file_and_a_heading_that_exist(path: Path):
    found = broken(path)
    assert not found, f"{path.relative_to(ROOT)} has links that lead nowhere:\n" + "\n".join(found)


@pytest.mark.parametrize("path", sorted(course.SOLUTIONS.glob("*/*.ipynb")), ids=lambda p: p.parent.name)
def test_no_notebook_states_its_own_run_time(path: Path):
    """How long a notebook takes (to run, to validate, to grade) is the README's lessons table's fact: a number in a
    notebook drifts from it as soon as the lesson or the machine changes."""
    stated = [m.group(0) for m in RUN_TIME.finditer(_markdown(path))]
    assert not stated, (f"{path.relative_to(ROOT)} states its run time ({stated}): the README's lessons table owns it "
                        "(python -m autograder list --write, from autograder/scale/grading_times.json)")


def test_the_reader_catches_drift(tmp_path):
    lesson = course.LESSONS / "09_patterns" / "09_patterns.ipynb"
    text = ("[fine](pytorch-patterns.md#anti-patterns-lesson-09) [lab's own anchor](pytorch-patterns.md#Anti-patterns-(lesson-09)) "
            "[a heading](#anything) [gone](no-such-page.md) [no heading](pytorch-patterns.md#no-such-heading) "
            "[outside](../../docs/pytorch-patterns.md) [web](https://pytorch.org) `[in code](nowhere.md)`\n"
            "```\n[fenced](nowhere.md)\n```\n")
    found = "\n".join(broken(lesson, text))
    assert "no-such-page.md: no such file" in found
    assert "has no heading or anchor 'no-such-heading'" in found and "'anything'" in found
    assert "outside the lesson's folder" in found
    assert "anti-patterns" not in found and "pytorch.org" not in found and "nowhere" not in found
    stated = [m.group(0) for m in RUN_TIME.finditer(
        "The whole notebook runs in about a minute. Validate takes about 30 s. A sweep takes about 2 seconds.")]
    assert len(stated) == 2 and "sweep" not in " ".join(stated)


def test_github_and_jupyterlab_name_headings_as_the_reader_does():
    assert links.slug("Save the state dict, load with `weights_only=True` (lessons 03, 08)") == \
        "save-the-state-dict-load-with-weights_onlytrue-lessons-03-08"
    anchors = links.anchors("## Evaluation: eval mode (lessons 03, 08)\n\n## Evaluation: eval mode (lessons 03, 08)\n")
    assert {"evaluation-eval-mode-lessons-03-08", "evaluation-eval-mode-lessons-03-08-1",
            "Evaluation:-eval-mode-(lessons-03,-08)"} <= anchors
    copy = links.page_copy("docs/pytorch-patterns.md")
    assert '<a id="anti-patterns-lesson-09"></a>\n\n## Anti-patterns (lesson 09)' in copy
    assert copy.startswith("<!-- A copy of docs/pytorch-patterns.md")
