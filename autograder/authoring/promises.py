"""The table of promises: for every graded exercise, the classes of mistake its hidden tests catch, and how
many of its points are decided outside the student's kernel.

It is generated from tests/variants/ (each class of a cell is a row with its wrong answers, and its
right answers where the class can be written several ways) and from the hidden tests themselves (which
of their checks send values, which observations), and kept in docs/promises.md; tests/test_promises.py
fails when the two differ, when a graded cell has no row, when a row lacks its variants, or when a test
cell does not call the probe of a class its row names. tests/test_variants.py checks that the kinds read
here from the source are the kinds the reference run sends.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from coursekit.testing import CLASSES

from ..core import course, notebooks, regions
from ..core.settings import split_points
from .mutants import GOAL, read_results
from .variants import load_file

VALUE_CALLS = {"same", "like", "shapes", "on_meta", "raises", "accuracy", "check", "attempt"}
OBSERVATION_CALLS = {"observed"}
MIN_OUTSIDE_SHARE = 0.9   # of all hidden-test points (issue 20): tests/test_promises.py holds the course to it

TABLE = course.ROOT / "docs" / "promises.md"


@dataclass
class Row:
    assignment: str
    cell: str
    mistake: str
    wrong: int
    right: int
    one_way: str = ""   # why there is no other correct spelling, when that is declared


def check_kinds(source: str) -> set[str]:
    """The kinds of check ("value", "observation") a test cell's hidden tests send, read from its source."""
    tree = ast.parse(regions.for_kernel(source))
    kinds = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "hidden":
            observed = any(k.arg == "observation" and isinstance(k.value, ast.Constant) and k.value.value is True
                           for k in node.keywords)
            if node.func.attr in OBSERVATION_CALLS or (node.func.attr == "check" and observed):
                kinds.add("observation")
            elif node.func.attr in VALUE_CALLS:
                kinds.add("value")
    return kinds


def cell_split(cell) -> tuple[float, float]:
    """(points decided outside, points resting on observations) of a test cell."""
    kinds = check_kinds(cell.source)
    points = float(notebooks.grading(cell).get("points", 0))
    if not kinds:
        return 0.0, points   # nothing sent: decided in the kernel alone (tests/test_release.py forbids it)
    return split_points(points, "value" in kinds, "observation" in kinds)


def splits(assignment: str) -> dict[str, tuple[float, float]]:
    """Solution cell grade_id -> (points decided outside, points resting on observations) of its test cells."""
    cells = notebooks.read(course.solution_notebook(assignment)).cells
    found: dict[str, tuple[float, float]] = {}
    current = None
    for cell in cells:
        if notebooks.is_solution_cell(cell):
            current = notebooks.grading(cell)["grade_id"]
            found[current] = (0.0, 0.0)
        elif current and notebooks.is_test_cell(cell):
            outside, observed = cell_split(cell)
            found[current] = (found[current][0] + outside, found[current][1] + observed)
    return found


def outside_share() -> tuple[float, float]:
    """(points decided outside, all hidden-test points) of the whole course."""
    outside = total = 0.0
    for name in course.assignments():
        for a, b in splits(name).values():
            outside, total = outside + a, total + a + b
    return outside, total


def exercises(assignment: str) -> list[tuple[str, float]]:
    """(solution cell grade_id, points of the test cells that follow it), in notebook order."""
    cells = notebooks.read(course.solution_notebook(assignment)).cells
    found = []
    for i, cell in enumerate(cells):
        if notebooks.is_solution_cell(cell):
            points = 0.0
            for later in cells[i + 1:]:
                if notebooks.is_solution_cell(later):
                    break
                if notebooks.is_test_cell(later):
                    points += float(notebooks.grading(later).get("points", 0))
            found.append((notebooks.grading(cell)["grade_id"], points))
    return found


def rows(assignment: str) -> list[Row]:
    declared = load_file(assignment)
    found = []
    for cell, _ in exercises(assignment):
        classes = [c for c in CLASSES if c in declared["WRONG"].get(cell, {}) or c in declared["RIGHT"].get(cell, {})]
        for mistake in classes:
            found.append(Row(assignment, cell, mistake, len(declared["WRONG"].get(cell, {}).get(mistake, [])),
                             len(declared["RIGHT"].get(cell, {}).get(mistake, [])),
                             declared["ONE_WAY"].get(cell, {}).get(mistake, "")))
    return found


def render() -> str:
    names = course.assignments()
    columns = list(CLASSES)
    lines = [
        "# The table of promises",
        "",
        "<!-- Generated by `python -m autograder promises` from tests/variants/; tests/test_promises.py checks it. -->",
        "",
        "For every graded exercise, the classes of mistake its hidden tests are proven to catch: each entry",
        "`w/r` counts the wrong answers of that class that must fail and the correct answers, written another",
        "way, that must keep full marks (`python -m autograder variants NAME` runs them). An empty entry means",
        "the class does not apply to that exercise; the list at the end names the classes that seem to apply",
        "but are deliberately not tested, with the reason. The classes and their probes: `coursekit/testing.py`.",
        "",
        "`outside` is the exercise's points decided outside the student's kernel: the values its code returned,",
        "judged by the grader against the course's solution (guaranteed). `observed` is the points that rest on",
        "an instrument inside the student's process (best effort): a cell with both puts a quarter of its points",
        "on its observations (docs/hidden-tests.md, docs/grading-security.md).",
        "",
        "`mutants` is the cell's mutation score: of the small changes `python -m autograder mutants NAME` makes to the",
        "solution, the share its hidden tests catch, leaving out those a person marked as computing what the words ask",
        f"(`tests/mutants/NAME.toml`). Every cell must reach {GOAL:.0%}; the survivors and the equivalent mutants are",
        "listed at the end.",
        "",
        "| class | the mistake |",
        "|---|---|",
        *[f"| {name} | {what} |" for name, what in CLASSES.items()],
        "",
        "| notebook | exercise | points | outside | observed | mutants | " + " | ".join(columns) + " |",
        "|---|---|---|---|---|---|" + "---|" * len(columns),
    ]
    total_rows = 0
    skipped, one_way, survivors, equivalents = [], [], [], []
    killed_all = relevant_all = 0
    for name in names:
        declared = load_file(name)
        mutation = (read_results(name) or {}).get("cells", {})
        by_cell: dict[str, dict[str, Row]] = {}
        for row in rows(name):
            by_cell.setdefault(row.cell, {})[row.mistake] = row
            total_rows += 1
            if row.one_way:
                one_way.append(f"- `{name}` / `{row.cell}` / {row.mistake}: {row.one_way}")
        split = splits(name)
        for cell, points in exercises(name):
            entries = [(f"{r.wrong}/{r.right}" if (r := by_cell.get(cell, {}).get(c)) else "") for c in columns]
            outside, observed = split.get(cell, (0.0, 0.0))
            scored = mutation.get(cell)
            if scored:
                relevant = scored["mutants"] - scored["equivalent"]
                killed_all, relevant_all = killed_all + scored["killed"], relevant_all + relevant
                score = f"{scored['killed']}/{relevant} ({scored['score']:.0%})"
                survivors += [f"- `{name}` / `{cell}`: {label}" for label in scored["survivors"]]
                equivalents += [f"- `{name}` / `{cell}`: {label}" for label in scored["equivalents"]]
            else:
                score = "not run"
            lines.append(f"| {name} | {cell} | {points:g} | {outside:g} | {observed:g} | {score} | "
                         + " | ".join(entries) + " |")
        for cell, reasons in declared["NOT_TESTED"].items():
            for mistake, why in reasons.items():
                skipped.append(f"- `{name}` / `{cell}` / {mistake}: {why}")
    cells = sum(len(exercises(n)) for n in names)
    outside, total = outside_share()
    lines += ["", f"{cells} graded exercises, {total_rows} rows (exercise × class). Of {total:g} hidden-test points, "
              f"{outside:g} ({outside / total:.1%}) are decided outside the student's kernel and {total - outside:g} rest "
              "on observations.", ""]
    if relevant_all:
        lines += [f"Mutation analysis: {killed_all} of {relevant_all} non-equivalent mutants killed "
                  f"({killed_all / relevant_all:.1%}).", ""]
    if one_way:
        lines += ["## Rows with a single correct spelling", "", *one_way, ""]
    lines += ["## Classes deliberately not tested", ""] + (skipped or ["(none)"]) + [""]
    lines += ["## Mutants that survive", ""] + (survivors or ["(none)"]) + [""]
    lines += ["## Mutants that compute what the words ask (equivalent)", ""] + (equivalents or ["(none)"]) + [""]
    return "\n".join(lines)


SECURITY = course.ROOT / "docs" / "grading-security.md"
SECTION = ("<!-- points: begin (python -m autograder promises) -->", "<!-- points: end -->")


def security_section() -> str:
    """Per notebook, the hidden-test points decided outside and those resting on observations, and which cells
    have observations: the part of docs/grading-security.md that ``promises`` writes."""
    lines = ["| notebook | hidden-test points | decided outside | on observations | cells with observations |",
             "|---|---|---|---|---|"]
    for name in course.assignments():
        outside = observed = 0.0
        with_observations = []
        for cell in notebooks.test_cells(notebooks.read(course.solution_notebook(name))):
            a, b = cell_split(cell)
            outside, observed = outside + a, observed + b
            if b:
                with_observations.append(f"`{notebooks.grading(cell)['grade_id']}` ({b:g})")
        lines.append(f"| {name} | {outside + observed:g} | {outside:g} | {observed:g} | {', '.join(with_observations) or '-'} |")
    outside, total = outside_share()
    lines += ["", f"In all, {outside:g} of {total:g} hidden-test points ({outside / total:.1%}) are decided outside the kernel."]
    return "\n".join(lines)


def _with_section(page: str) -> str:
    begin, end = SECTION
    if begin not in page or end not in page:
        raise SystemExit(f"{SECURITY} lacks the markers {begin} ... {end}")
    head, rest = page.split(begin, 1)
    return f"{head}{begin}\n{security_section()}\n{end}{rest.split(end, 1)[1]}"


def write() -> bool:
    """Regenerate docs/promises.md and the points section of docs/grading-security.md; whether either changed."""
    changed = False
    for path, text in ((TABLE, render()), (SECURITY, _with_section(SECURITY.read_text(encoding="utf-8")))):
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        path.write_text(text, encoding="utf-8")
        changed = True
    return changed


def current() -> bool:
    """Whether both generated pages are what ``write`` would make."""
    return TABLE.is_file() and TABLE.read_text(encoding="utf-8") == render() and \
        SECURITY.read_text(encoding="utf-8") == _with_section(SECURITY.read_text(encoding="utf-8"))
