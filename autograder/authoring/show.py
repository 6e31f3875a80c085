"""``python -m autograder show NN [GRADE_ID]`` and ``list``: an assignment as plain text, for an instructor.

For each graded cell: its points, the first lines of what the student is asked (the markdown above the answer),
the course's solution, the test cells that follow it (visible checks, hidden tests, GRADER blocks), and the rule
that judges each hidden check: one of ``grading/rules.py``'s library or a function of the cell's GRADER block.
GPU-only test cells and written answers say so. ``list`` gives every assignment with its points. Everything is
read from the solution notebook; nothing runs.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from dataclasses import dataclass, field

from nbformat import NotebookNode

from ..core import course, notebooks, regions
from ..grading import rules

INSTRUCTION_LINES = 8   # of the markdown above an answer: enough for the exercise's heading and its ask
RULE = "─" * 100


@dataclass
class Exercise:
    """One answer cell (a written answer included) and the test cells that follow it."""
    grade_id: str
    instructions: str            # the markdown cell above the answer ('' when there is none)
    answer: str                  # the course's solution (a written answer: its model answer and rubric)
    written: bool = False
    points: float = 0.0          # a written answer's points (an exercise's points are its test cells')
    tests: list[NotebookNode] = field(default_factory=list)

    def total(self) -> float:
        return self.points + sum(_points(t) for t in self.tests)

    def ids(self) -> set[str]:
        return {self.grade_id} | {notebooks.grading(t)["grade_id"] for t in self.tests}


def _points(cell: NotebookNode) -> float:
    return float(notebooks.grading(cell).get("points", 0))


def _worth(points: float) -> str:
    return f"{points:g} point" + ("" if points == 1 else "s")


def exercises(nb: NotebookNode) -> list[Exercise]:
    """The graded cells of a source notebook, grouped by the answer they check, in notebook order. A test cell
    belongs to the answer its grade_id names (``X-tests`` and ``X-gpu-tests`` check ``X``, wherever they stand),
    else to the last answer above it; one with neither stands alone."""
    found: list[Exercise] = []
    by_id: dict[str, Exercise] = {}
    above = ""
    for cell in nb.cells:
        meta = notebooks.grading(cell)
        if notebooks.is_manual_cell(cell):
            found.append(Exercise(meta["grade_id"], above, cell.source, written=True, points=_points(cell)))
        elif notebooks.is_solution_cell(cell):
            found.append(Exercise(meta["grade_id"], above, cell.source))
            by_id[meta["grade_id"]] = found[-1]
        elif notebooks.is_test_cell(cell):
            base = meta["grade_id"].removesuffix("-tests").removesuffix("-gpu")
            owner = by_id.get(base) or (found[-1] if found and not found[-1].written else None)
            if owner is None:
                owner = Exercise(meta["grade_id"], above, "")
                found.append(owner)
            owner.tests.append(cell)
        if cell.cell_type == "markdown":
            above = cell.source
    return found


@dataclass(frozen=True)
class Points:
    automatic: float     # test cells scored on any runner
    gpu: float           # GPU-only test cells: scored on a GPU runner only
    written: float       # written answers: scored by a person in Formgrader

    def total(self) -> float:
        return self.automatic + self.gpu + self.written

    def __str__(self) -> str:
        parts = [f"{self.automatic:g}"] + [f"{v:g} {what}" for v, what in ((self.written, "written"), (self.gpu, "GPU"))
                                          if v]
        return " + ".join(parts)


def points(found: list[Exercise]) -> Points:
    tests = [t for e in found for t in e.tests]
    return Points(automatic=sum(_points(t) for t in tests if not notebooks.is_gpu_test_cell(t)),
                  gpu=sum(_points(t) for t in tests if notebooks.is_gpu_test_cell(t)),
                  written=sum(e.points for e in found if e.written))


# --- the hidden checks of a test cell and the rules that judge them -----------------------------------------

@functools.lru_cache(maxsize=None)
def _helper_rules() -> dict[str, tuple[str | None, str]]:
    """coursekit.hidden's helpers -> (the rule each one records, or None where the caller names it; the kind of
    record), read from the helpers' own source, so that the helpers stay the one owner of that fact."""
    from coursekit import hidden

    found = {}
    for node in ast.parse(inspect.getsource(hidden)).body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
            continue
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "_record":
                words = {k.arg: k.value for k in call.keywords}
                rule = words.get("rule")
                kind = words.get("kind")
                found[node.name] = (rule.value if isinstance(rule, ast.Constant) else None,
                                    kind.value if isinstance(kind, ast.Constant) else "value")
    return found


@dataclass(frozen=True)
class HiddenCheck:
    helper: str          # coursekit.hidden's function the test calls
    name: str            # the check's name, as the test writes it (an f-string stays one)
    rule: str            # the rule that judges it ('?' where the test computes the rule's name)
    kind: str            # "value" or "observation"


def hidden_checks(code: str) -> list[HiddenCheck]:
    """The ``hidden.X(...)`` calls of a hidden region, in order, with their rules ([] where it does not parse)."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        return []
    helpers = _helper_rules()
    found = []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and getattr(call.func.value, "id", None) == "hidden" and call.func.attr in helpers):
            continue
        rule, kind = helpers[call.func.attr]
        words = {k.arg: k.value for k in call.keywords}
        if rule is None:
            given = words.get("rule")
            rule = given.value if isinstance(given, ast.Constant) else "?"
        if isinstance(words.get("observation"), ast.Constant) and words["observation"].value is True:
            kind = "observation"
        name = ast.unparse(call.args[0]) if call.args else "?"
        found.append(((call.lineno, call.col_offset), HiddenCheck(call.func.attr, name, rule, kind)))
    return [check for _, check in sorted(found, key=lambda pair: pair[0])]   # ast.walk is breadth-first


def grader_functions(code: str) -> set[str]:
    """The functions a cell's GRADER blocks define: the rules of its own."""
    try:
        return {n.name for n in ast.parse(code).body if isinstance(n, ast.FunctionDef)}
    except SyntaxError:
        return set()


def _rule_owner(rule: str, own: set[str]) -> str:
    if rule in own:
        return "this cell's GRADER block"
    if rule in rules.LIBRARY:
        return "grading/rules.py"
    return "not found: the reference run would stop here"


# --- the text ----------------------------------------------------------------------------------------------

def _indent(text: str, pad: str = "    ") -> str:
    return textwrap.indent(text.rstrip("\n"), pad, lambda line: True) if text.strip() else pad + "(empty)"


def instructions(markdown: str, lines: int = INSTRUCTION_LINES) -> str:
    """The first lines of what a student is asked: from the markdown's last heading on (an exercise's heading
    follows the lesson's prose in the same cell), at most ``lines`` of them."""
    text = markdown.strip().split("\n")
    headings = [k for k, line in enumerate(text) if line.startswith("#")]
    text = text[headings[-1]:] if headings else text
    shown = text[:lines]
    return "\n".join(shown) + ("\n..." if len(text) > lines else "")


def _test_cell(cell: NotebookNode) -> list[str]:
    meta = notebooks.grading(cell)
    flags = "  [GPU-only: scored on a GPU runner; a CPU runner reports it as not run]" if notebooks.is_gpu_test_cell(cell) else ""
    out = [f"  Test cell {meta['grade_id']} ({_worth(_points(cell))}){flags}"]
    parts = regions.lines(cell.source)
    visible = "\n".join(line.text for line in parts if line.region == "visible")
    hidden = "\n".join(line.text for line in parts if line.region == "hidden")
    grader = regions.grader_code(cell.source)
    out += ["  Visible checks (the student sees and runs these):", _indent(visible, "      ")]
    if not hidden.strip():
        return out + ["  Hidden tests: none"]
    out += ["  Hidden tests (run only when grading, in the box):", _indent(hidden, "      ")]
    own = grader_functions(grader)
    checks = hidden_checks(hidden)
    if checks:
        out.append("  What the hidden tests send, and the rule that judges it outside the box:")
        for c in checks:
            what = " (observation)" if c.kind == "observation" else ""
            out.append(f"      hidden.{c.helper}({c.name}){what}: rule {c.rule}, {_rule_owner(c.rule, own)}")
    if grader:
        out += ["  GRADER block (the cell's own rules, run by the grader outside the box):", _indent(grader, "      ")]
    return out


def describe(exercise: Exercise) -> str:
    """One graded cell (and its test cells) as plain text."""
    if exercise.written:
        head = f"{exercise.grade_id}: written answer, {_worth(exercise.points)}, scored by a person in Formgrader"
    else:
        gpu = sum(_points(t) for t in exercise.tests if notebooks.is_gpu_test_cell(t))
        head = f"{exercise.grade_id}: {_worth(exercise.total())}" + (f" ({gpu:g} GPU-only)" if gpu else "")
    out = [RULE, head, RULE]
    if exercise.instructions.strip():
        out += ["Instructions (the first lines of the markdown above it):", _indent(instructions(exercise.instructions))]
    if exercise.answer:
        out += ["Model answer and rubric:" if exercise.written else "Solution:", _indent(exercise.answer)]
    for cell in exercise.tests:
        out += _test_cell(cell)
    return "\n".join(out) + "\n"


def _title(nb: NotebookNode) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.startswith("# "):
            return cell.source.split("\n", 1)[0][2:].strip()
    return ""


def show(assignment: str, grade_id: str | None = None) -> str:
    """The text of ``python -m autograder show``: the whole assignment, or the graded cell named ``grade_id`` (the
    answer's id or one of its test cells')."""
    [assignment] = course.assignments([assignment])
    path = course.solution_notebook(assignment)
    nb = notebooks.read(path)
    found = exercises(nb)
    if grade_id is not None:
        picked = [e for e in found if grade_id in e.ids()]
        if not picked:
            known = ", ".join(e.grade_id for e in found)
            raise SystemExit(f"{assignment} has no graded cell {grade_id!r}; its graded cells are: {known}")
        return describe(picked[0])
    total = points(found)
    head = (f"{assignment}: {_title(nb)}\n{path.relative_to(course.ROOT)}\n"
            f"{_worth(total.total())}: {total} ({len(found)} graded answers)\n")
    return head + "".join("\n" + describe(e) for e in found)


def listing() -> str:
    """The text of ``python -m autograder list``: every assignment with its points."""
    rows = [("assignment", "points", "automatic", "GPU-only", "written", "graded answers", "title")]
    for name in course.assignments():
        nb = notebooks.read(course.solution_notebook(name))
        found = exercises(nb)
        p = points(found)
        rows.append((name, f"{p.total():g}", f"{p.automatic:g}", f"{p.gpu:g}", f"{p.written:g}", str(len(found)),
                     _title(nb)))
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]) - 1)]
    return "".join("  ".join(cell.ljust(w) if k == 0 else cell.rjust(w) for k, (cell, w) in enumerate(zip(r, widths)))
                   + "  " + r[-1] + "\n" for r in rows)


# --- the README's lessons table ---------------------------------------------------------------------------------

README = course.ROOT / "README.md"
LESSONS_BEGIN = "<!-- lessons: begin (python -m autograder list --write) -->"
LESSONS_END = "<!-- lessons: end -->"


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds // 60:.0f} min {seconds % 60:02.0f} s"


def lessons_table() -> str:
    """The README's lessons table: each assignment's title and points (from its solution notebook) and the time to
    grade one complete submission (autograder/scale/grading_times.json, which a bench writes)."""
    from ..scale import timings

    lines = [LESSONS_BEGIN, "", "| notebook | what it covers | points | time* |", "|---|---|---|---:|"]
    for name in course.assignments():
        nb = notebooks.read(course.solution_notebook(name))
        title = _title(nb).split(" \u00b7 ", 1)[-1]
        lines.append(f"| `{name}` | {title} | {points(exercises(nb))} | {_duration(timings.expected(name))} |")
    lines += ["", f"\\* Grading one complete submission in the sandbox, about as long as running the notebook: measured "
              f"{timings.MEASURED_ON}, in [`grading_times.json`](autograder/scale/grading_times.json).", "", LESSONS_END]
    return "\n".join(lines)


def write_readme() -> bool:
    """Put the current lessons table into README.md; whether it changed."""
    text = README.read_text(encoding="utf-8")
    start, end = text.index(LESSONS_BEGIN), text.index(LESSONS_END) + len(LESSONS_END)
    updated = text[:start] + lessons_table() + text[end:]
    if updated != text:
        README.write_text(updated, encoding="utf-8")
    return updated != text
