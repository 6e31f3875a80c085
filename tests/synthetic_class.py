"""A synthetic class for the similarity report: honest students and planted copies, built from the course's own
right answers.

Honest students: for each graded code cell, one right answer chosen at random (the solution, or any RIGHT variant of
``tests/variants/NN.py``: however many there are), then written in the student's own way: at every spot where
Python offers another spelling of the same thing (operand order, a method or torch's function, an axis by keyword or
by position, a name for the result, a check of the first argument), the other one taken or not at random. Written answers:
sentences of words drawn at random from the lesson's prose (never its sentences, which the report treats as given).

Planted copies: a copier takes one honest student's notebook and hides the copy: renamed identifiers, new comments,
functions in another order, reformatted code (``ast.unparse``), other string literals, and in some one cell
replaced by an answer of its own. ``PLANTED`` names each copier's disguise.

Nothing here runs a notebook: the report reads code, it never executes it.
"""

from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.authoring.variants import load_file
from autograder.core import course, notebooks
from submission_factory import without_solution_markers

# What each planted copier does to the notebook it copies.
PLANTED = {
    "renamed": ("rename",),
    "recommented": ("comments", "format"),
    "reordered": ("reorder", "rename", "strings"),
    "disguised": ("rename", "comments", "reorder", "format", "strings"),
    "one-cell-changed": ("rename", "comments", "format", "one_cell"),
}
RESULT_NAMES = ("out", "result", "answer", "value", "res", "ret", "output", "final")
TOUCH = 0.4  # the chance that an honest student writes any one spot of an answer in another of its ways
AXIS_METHODS = {"sum", "mean", "max", "min", "argmax", "softmax", "log_softmax", "cumsum", "std", "var", "unsqueeze"}


@dataclass
class SyntheticClass:
    assignment: str
    students: list[str]
    honest: list[str]
    copies: dict[str, str] = field(default_factory=dict)   # copier -> the student copied
    disguise: dict[str, str] = field(default_factory=dict)  # copier -> PLANTED's key


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


def personal(source: str, rng: random.Random) -> str:
    """``source`` as one honest student writes it (``_Touches``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    return ast.unparse(ast.fix_missing_locations(_Touches(rng).visit(tree))) + "\n"


class _Renamer(ast.NodeTransformer):
    """Every name the cell binds, but the functions and classes it defines at the top (which the tests call)."""

    def __init__(self, keep: set[str], rng: random.Random):
        self.keep, self.rng, self.names = keep, rng, {}

    def new(self, name: str) -> str:
        if name in self.keep or name == "self":
            return name
        return self.names.setdefault(name, f"{self.rng.choice(['my', 'tmp', 'the', 'x'])}_{name[::-1].strip('_')}_{len(self.names)}")

    def visit_Name(self, node):
        if node.id in self.bound:
            node.id = self.new(node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.new(node.arg)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr in self.attributes:
            node.attr = self.new(node.attr)
        return node

    def rename(self, tree: ast.Module) -> ast.Module:
        self.bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self.bound |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
        self.attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
        return self.visit(tree)


def disguised(source: str, how: tuple[str, ...], rng: random.Random) -> str:
    """A copy of ``source`` hidden in the ways ``how`` names (PLANTED)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    if "rename" in how:
        top = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        tree = _Renamer(top | set(dir(__builtins__)), rng).rename(tree)
    if "reorder" in how:
        defs = [i for i, n in enumerate(tree.body) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        moved = [tree.body[i] for i in defs][::-1]
        for i, node in zip(defs, moved):
            tree.body[i] = node
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
                others = [n for n in node.body if not isinstance(n, ast.FunctionDef)]
                node.body = others + methods[::-1]
    if "strings" in how:
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                node.value = node.value.upper() + " (see notes)"
    text = ast.unparse(tree) + "\n" if ("format" in how or "rename" in how or "reorder" in how or "strings" in how) \
        else source
    if "comments" in how:
        lines = text.splitlines()
        text = "\n".join(line + ("  # " + rng.choice(["here", "step", "why not", "as in class", "todo"])
                                 if rng.random() < 0.3 and not line.rstrip().endswith((":", ",", "(", "\\")) else "")
                         for line in lines) + "\n"
    return text


def _prose_words(assignment: str) -> list[str]:
    nb = notebooks.read(course.lesson_notebook(assignment))
    words = re.findall(r"[A-Za-z]{3,}", " ".join(c.source for c in nb.cells if c.cell_type == "markdown"))
    return sorted(set(w.lower() for w in words))


def written_answer(words: list[str], rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(3, 6)):
        sentence = " ".join(rng.choice(words) for _ in range(rng.randint(8, 16)))
        sentences.append(sentence.capitalize() + ".")
    return " ".join(sentences)


def _reworded(text: str, words: list[str], rng: random.Random) -> str:
    tokens = text.split(" ")
    for _ in range(3):
        tokens[rng.randrange(len(tokens))] = rng.choice(words)
    return " ".join(tokens).upper()


def notebook(assignment: str, answers: dict[str, str]) -> nbformat.NotebookNode:
    """The released lesson with ``answers`` (by grade_id) typed in."""
    nb = notebooks.read(course.lesson_notebook(assignment))
    for cell in nb.cells:
        gid = notebooks.grading(cell).get("grade_id")
        if gid in answers:
            cell.source = answers[gid]
    return nb


def build(folder: Path, assignment: str, honest: int, seed: int, copiers: tuple[str, ...] = tuple(PLANTED),
          prefix: str = "s") -> SyntheticClass:
    """Write ``honest`` honest students and one copier per entry of ``copiers`` (keys of PLANTED) under
    ``folder/<student>/<assignment>/<assignment>.ipynb``; each copier copies a different honest student."""
    rng = random.Random(seed)
    pool = right_answers(assignment)
    written_cells = [notebooks.grading(c)["grade_id"] for c in notebooks.read(course.solution_notebook(assignment)).cells
                     if notebooks.is_manual_cell(c)]
    words = _prose_words(assignment)
    names = [f"{prefix}{i:04d}" for i in range(honest + len(copiers))]
    rng.shuffle(names)
    honest_names, copier_names = sorted(names[:honest]), names[honest:]
    work: dict[str, dict[str, str]] = {}
    for student in honest_names:
        work[student] = {gid: personal(rng.choice(sources), rng) for gid, sources in pool.items()}
        work[student] |= {gid: written_answer(words, rng) for gid in written_cells}
    synthetic = SyntheticClass(assignment, sorted(names), honest_names)
    sources = rng.sample(honest_names, len(copiers))
    for copier, source, disguise in zip(copier_names, sources, copiers):
        how = PLANTED[disguise]
        answers = {gid: disguised(text, how, rng) for gid, text in work[source].items() if gid in pool}
        answers |= {gid: _reworded(work[source][gid], words, rng) for gid in written_cells}
        if "one_cell" in how:
            changed = rng.choice(sorted(pool))
            answers[changed] = personal(rng.choice(pool[changed]), rng)
        work[copier] = answers
        synthetic.copies[copier] = source
        synthetic.disguise[copier] = disguise
    for student, answers in work.items():
        target = folder / student / assignment
        target.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook(assignment, answers), str(target / f"{assignment}.ipynb"))
    return synthetic
