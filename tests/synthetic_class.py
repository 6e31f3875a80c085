"""A synthetic class for the similarity report: honest students and planted copies, built from the course's own
right answers.

Honest students: for each graded code cell, one right answer chosen at random (the solution, or any RIGHT variant of
``tests/variants/NN.py``: however many there are), then written in the student's own way: at every spot where
Python offers another spelling of the same thing (``_Touches``: operand order, a method or torch's function, an axis
by keyword or by position, a name for the result, a check of the first argument) the other one taken or not at
random, and in the student's own habits (``HONEST_STYLES``: names, comments, loops or comprehensions, the order of
independent statements, and in the held-out styles other forms of the same step and helpers of their own; see
synthetic_code.py). Written answers: sentences of the student's own, with the figures of their own run
(synthetic_prose.py); some students write in Brazilian Portuguese.

Planted copies: a copier takes one honest student's notebook and hides the copy (``PLANTED``: renamed, recommented,
statements reordered, loops turned into comprehensions and back, code moved into helpers, one cell replaced by an
answer of their own; written answers with words changed or swapped for synonyms, figures kept). A ring is three
students: one honest, one who copied them lightly, one who copied the copy and restructured it.

**Held out**: the disguises and honest styles marked ``held_out`` were never used to choose a threshold or a weight:
bench/similarity_scale.py reports them apart, as the nearest thing to the private class the maintainers measure on.

Nothing here runs a notebook: the report reads code, it never executes it.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

import synthetic_code as code
import synthetic_prose as prose
from autograder.authoring.variants import load_file
from autograder.core import course, notebooks
from submission_factory import without_solution_markers


@dataclass(frozen=True)
class Disguise:
    """How a copier hides a copy: code edits (synthetic_code.rewrite's, with their chance), renaming, comments, a
    cell replaced by an answer of the copier's own, and what is done to the written answers."""
    code: tuple[tuple[str, float], ...] = ()
    naming: str | None = None
    comments: float = 0.0
    cell: str | None = None        # "one": a cell at random, "longest": the longest one, replaced
    written: str = "reworded"      # "reworded", "synonyms" (words swapped, figures kept), "shuffled"
    held_out: bool = False


_RESTRUCTURE = (("reorder", 1.0), ("loops", 1.0), ("helpers", 1.0))
PLANTED = {
    "renamed": Disguise(naming="copier"),
    "recommented": Disguise(comments=0.3),
    "reordered": Disguise((("reorder", 1.0),), written="synonyms"),
    "loops": Disguise((("loops", 1.0),), written="synonyms"),
    "helpers": Disguise((("helpers", 1.0),), written="synonyms"),
    "restructured": Disguise(_RESTRUCTURE, written="synonyms"),
    "restructured-renamed": Disguise(_RESTRUCTURE + (("strings", 1.0),), "copier", 0.3, written="synonyms"),
    "one-cell-changed": Disguise((), "copier", 0.3, cell="one"),
    # held out: never used to choose anything
    "tail-helper-renamed": Disguise((("tail_helper", 1.0), ("reorder", 1.0)), "copier", 0.2, written="shuffled",
                                    held_out=True),
    "restructured-long-cell-rewritten": Disguise(_RESTRUCTURE, "copier", 0.2, cell="longest", written="shuffled",
                                                 held_out=True),
    "ring": Disguise(_RESTRUCTURE, "copier", written="synonyms", held_out=True),
}
TUNED = tuple(name for name, d in PLANTED.items() if not d.held_out)
HELD_OUT = tuple(name for name, d in PLANTED.items() if d.held_out)
# An honest student's habits: edit -> (the share of students who have it, its chance at each place it applies).
HONEST_STYLES = {"loops": (0.4, 0.7), "reorder": (0.3, 1.0)}
HELD_OUT_STYLES = {"variety": (0.6, 0.3), "helpers": (0.2, 0.5), "tail_helper": (0.1, 0.5)}
NAMING = (None, None, "short", "long", "camel")
RESULT_NAMES = code.RESULT_NAMES
TOUCH = 0.4  # the chance that an honest student writes any one spot of an answer in another of its ways
AXIS_METHODS = {"sum", "mean", "max", "min", "argmax", "softmax", "log_softmax", "cumsum", "std", "var", "unsqueeze"}
PORTUGUESE = 0.15  # the share of students who write their answers in Brazilian Portuguese


@dataclass
class SyntheticClass:
    assignment: str
    students: list[str]
    honest: list[str]
    copies: dict[str, str] = field(default_factory=dict)   # copier -> the student copied
    disguise: dict[str, str] = field(default_factory=dict)  # copier -> PLANTED's key
    rings: list[tuple[str, str, str]] = field(default_factory=list)  # (honest, light copy, copy of the copy)

    def planted(self) -> dict[frozenset, str]:
        """Every pair that shares copied work -> its disguise (a ring's three pairs are "ring")."""
        found = {frozenset(pair): self.disguise[pair[0]] for pair in self.copies.items()}
        for ring in self.rings:
            found |= {frozenset(p): "ring" for p in ((ring[0], ring[1]), (ring[1], ring[2]), (ring[0], ring[2]))}
        return found


def right_answers(assignment: str) -> dict[str, list[str]]:
    """For each graded code cell: the solution's answer and every RIGHT variant."""
    right = load_file(assignment)["RIGHT"]
    pool = {}
    for cell in notebooks.read(course.solution_notebook(assignment)).cells:
        if notebooks.is_solution_cell(cell) and cell.cell_type == "code":
            gid = notebooks.grading(cell)["grade_id"]
            pool[gid] = [without_solution_markers(cell.source)] + [s for sources in right.get(gid, {}).values()
                                                                  for s in sources]
    return pool


class _Touches(ast.NodeTransformer):
    """One honest student's way of writing: at each spot where the language offers another spelling of the same
    thing, take it or not at random (a commutative operand order, the order of keyword arguments and of a dict's
    keys, an axis by keyword or by position, ``x += y`` or ``x = x + y``, ``x.shape[0]`` or ``x.size(0)``, a name
    for a result or for an argument computed on the way)."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def coin(self) -> bool:
        return self.rng.random() < TOUCH

    def visit_BinOp(self, node):
        self.generic_visit(node)
        literal = any(isinstance(n, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(n, "value", None), str)
                      for n in (node.left, node.right))
        if isinstance(node.op, (ast.Add, ast.Mult)) and not literal and self.coin():
            node.left, node.right = node.right, node.left
        elif isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) and node.right.value == 2 \
                and isinstance(node.left, ast.Name) and self.coin():
            return ast.BinOp(node.left, ast.Mult(), ast.Name(node.left.id, ast.Load()))
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        flip = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}
        if len(node.ops) == 1 and type(node.ops[0]) in flip and self.coin():
            return ast.Compare(node.comparators[0], [flip[type(node.ops[0])]()], [node.left])
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if isinstance(node.target, ast.Name) and self.coin():
            return ast.Assign([node.target], ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value))
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape" and \
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int) and self.coin():
            return ast.Call(ast.Attribute(node.value.value, "size", ast.Load()), [node.slice], [])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in AXIS_METHODS and self.coin():
            if len(node.args) == 1 and not node.keywords and isinstance(node.args[0], (ast.Constant, ast.UnaryOp)):
                node.keywords, node.args = [ast.keyword("dim", node.args[0])], []
            elif not node.args and len(node.keywords) == 1 and node.keywords[0].arg == "dim":
                node.args, node.keywords = [node.keywords[0].value], []
        if isinstance(func, ast.Name) and func.id == "range" and len(node.args) == 1 and self.coin():
            node.args = [ast.Constant(0), node.args[0]]
        if len(node.keywords) >= 2 and all(k.arg for k in node.keywords) and self.coin():
            self.rng.shuffle(node.keywords)
        if isinstance(func, ast.Attribute) and func.attr == "float" and not node.args and self.coin():
            node.func = ast.Attribute(func.value, "to", ast.Load())
            node.args = [ast.Attribute(ast.Name("torch", ast.Load()), "float32", ast.Load())]
        return node

    def visit_Dict(self, node):
        self.generic_visit(node)
        if len(node.keys) >= 2 and None not in node.keys and self.coin():
            items = list(zip(node.keys, node.values))
            self.rng.shuffle(items)
            node.keys, node.values = [k for k, _ in items], [v for _, v in items]
        return node

    def hoisted(self, body: list) -> list:
        """Statements whose call takes a call or a subscript as its first argument: some get it named first."""
        out = []
        for statement in body:
            value = getattr(statement, "value", None)
            if isinstance(statement, (ast.Expr, ast.Assign, ast.Return)) and isinstance(value, ast.Call) and \
                    value.args and isinstance(value.args[0], (ast.Call, ast.Subscript)) and self.coin():
                name = self.rng.choice(RESULT_NAMES) + "_" + self.rng.choice(["in", "arg", "x", "tmp"])
                out.append(ast.Assign([ast.Name(name, ast.Store())], value.args[0]))
                value.args[0] = ast.Name(name, ast.Load())
            out.append(statement)
        return out

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        node.body = self.hoisted(node.body)
        last = node.body[-1]
        if isinstance(last, ast.Return) and last.value is not None and self.coin():
            name = self.rng.choice(RESULT_NAMES)
            node.body[-1:] = [ast.Assign([ast.Name(name, ast.Store())], last.value), ast.Return(ast.Name(name, ast.Load()))]
        arguments = [a.arg for a in node.args.args if a.arg != "self"]
        if arguments and self.coin():
            check = ast.parse(self.rng.choice([f"assert {arguments[0]} is not None",
                                                f"if {arguments[0]} is None:\n    raise ValueError('missing')"])).body
            docstring = isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
            node.body[int(docstring):int(docstring)] = check
        return node



def lesson_names(assignment: str) -> set[str]:
    """The functions and classes the lesson defines (the tests call them: nobody renames them)."""
    nb = notebooks.read(course.lesson_notebook(assignment))
    names = set()
    for cell in nb.cells:
        if cell.cell_type == "code":
            try:
                tree = ast.parse(cell.source)
            except SyntaxError:
                continue
            names |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    return names


class Student:
    """One honest student: their habits, kept for every cell they write."""

    def __init__(self, rng: random.Random, held_out_styles: bool):
        styles = HONEST_STYLES | (HELD_OUT_STYLES if held_out_styles else {})
        self.edits = {name: chance for name, (share, chance) in styles.items() if rng.random() < share}
        self.naming = rng.choice(NAMING)
        self.comments = rng.choice([0.0, 0.0, 0.1, 0.3])
        self.language = "portuguese" if rng.random() < PORTUGUESE else "english"

    def write(self, source: str, rng: random.Random, keep: set[str]) -> str:
        return code.rewrite(source, rng, self.edits, keep, lambda r: _Touches(r), self.naming, self.comments)


def notebook(assignment: str, answers: dict[str, str]) -> nbformat.NotebookNode:
    """The released lesson with ``answers`` (by grade_id) typed in."""
    nb = notebooks.read(course.lesson_notebook(assignment))
    for cell in nb.cells:
        gid = notebooks.grading(cell).get("grade_id")
        if gid in answers:
            cell.source = answers[gid]
    return nb


def _copy(work: dict, drafts: dict, source: str, disguise: Disguise, pool: dict, keep: set[str],
          writer: Student, rng: random.Random, topics: dict) -> tuple[dict[str, str], dict]:
    """The copier's answers, made from ``source``'s."""
    answers = {gid: code.rewrite(text, rng, dict(disguise.code), keep, None, disguise.naming, disguise.comments)
               for gid, text in work[source].items() if gid in pool}
    if disguise.cell:
        changed = rng.choice(sorted(pool)) if disguise.cell == "one" else \
            max(sorted(pool), key=lambda gid: len(work[source][gid]))
        answers[changed] = writer.write(rng.choice(pool[changed]), rng, keep)
    copied_drafts = {}
    for gid, draft in drafts[source].items():
        if disguise.written == "reworded":
            answers[gid] = prose.reworded(draft.text(), rng)
            copied_drafts[gid] = draft
            continue
        if disguise.written == "synonyms":
            new = prose.swap_synonyms(draft, rng, 0.6)
        else:
            new = prose.shuffled(draft, rng, 0.7, prose.Writer(rng, draft.language, topics[gid]))
        answers[gid], copied_drafts[gid] = new.text(), new
    return answers, copied_drafts


def build(folder: Path, assignment: str, honest: int, seed: int, copiers: tuple[str, ...] = tuple(PLANTED),
          prefix: str = "s", held_out_styles: bool = True) -> SyntheticClass:
    """Write ``honest`` honest students and one copier per entry of ``copiers`` (keys of PLANTED; a name may come
    back; a ring adds two students) under ``folder/<student>/<assignment>/<assignment>.ipynb``; each copier copies a
    different honest student. ``held_out_styles``: honest students may also have the held-out habits."""
    rng = random.Random(seed)
    pool = right_answers(assignment)
    keep = lesson_names(assignment)
    written_cells = [notebooks.grading(c)["grade_id"] for c in notebooks.read(course.solution_notebook(assignment)).cells
                     if notebooks.is_manual_cell(c)]
    topics = {gid: prose.topic(assignment, gid) for gid in written_cells}
    extra = sum(1 for c in copiers if c == "ring")
    names = [f"{prefix}{i:04d}" for i in range(honest + len(copiers) + extra)]
    rng.shuffle(names)
    honest_names, copier_names = sorted(names[:honest]), names[honest:]
    work: dict[str, dict[str, str]] = {}
    drafts: dict[str, dict] = {}
    for student in honest_names:
        person = Student(rng, held_out_styles)
        work[student] = {gid: person.write(rng.choice(sources), rng, keep) for gid, sources in pool.items()}
        drafts[student] = {gid: prose.Writer(rng, person.language, topics[gid]).answer() for gid in written_cells}
        work[student] |= {gid: d.text() for gid, d in drafts[student].items()}
    synthetic = SyntheticClass(assignment, sorted(names), honest_names)
    sources = rng.sample(honest_names, len(copiers))
    names_left = iter(copier_names)
    for source, disguise in zip(sources, copiers):
        how = PLANTED[disguise]
        copier = next(names_left)
        writer = Student(rng, held_out_styles)
        if disguise == "ring":  # a light copy first, then the copy of the copy, restructured
            light = copier
            work[light], drafts[light] = _copy(work, drafts, source, PLANTED["renamed"], pool, keep, writer, rng, topics)
            copier = next(names_left)
            synthetic.rings.append((source, light, copier))
            source = light
        work[copier], drafts[copier] = _copy(work, drafts, source, how, pool, keep, writer, rng, topics)
        if disguise != "ring":
            synthetic.copies[copier] = source
            synthetic.disguise[copier] = disguise
    for student, answers in work.items():
        target = folder / student / assignment
        target.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook(assignment, answers), str(target / f"{assignment}.ipynb"))
    return synthetic
