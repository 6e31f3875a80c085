"""How the synthetic class writes code: each honest student's own ways, and the edits a copier makes to hide a copy.

Everything works on the syntax tree of one answer (``ast``) and writes it back with ``ast.unparse``; a source that
does not parse is left as it is. The edits keep what the program does, as a student's or a copier's would (a test
never runs these answers: the similarity report only reads them, so "keeps" is checked by construction, not run).

This file is the generator's, written apart from ``autograder/classroom/code_structure.py`` (the normaliser that
must see through these edits): it decides on its own what may be reordered, what a helper takes and returns.
"""

from __future__ import annotations

import ast
import copy
import random

RESULT_NAMES = ("out", "result", "answer", "value", "res", "ret", "output", "final")
HELPER_WORDS = ("compute", "get", "make", "do", "calc", "prepare", "build", "apply", "step", "check")
# Calls whose order against their neighbours is part of what the program means: never moved past.
ORDERED_CALLS = {"step", "backward", "zero_grad", "train", "eval", "manual_seed", "set_seed", "seed", "load_state_dict",
                 "append", "extend", "update", "write", "print", "close", "add_", "mul_", "copy_", "sub_", "div_"}
COMMENTS = ("here", "step", "why not", "as in class", "todo", "the main part", "check this", "see above",
            "important", "works", "careful with shapes", "from the lecture", "my version", "simple", "done")
TORCH_METHODS = ("sum", "mean", "exp", "log", "abs", "sqrt", "argmax", "softmax", "flatten", "max", "min")


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _unparse(tree: ast.AST) -> str:
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _blocks(tree: ast.AST):
    """Every list of statements in the tree (bodies, else-branches, handlers)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield node, field, block


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _touches(statement: ast.stmt) -> tuple[set[str], set[str], bool]:
    """(names read, names written, whether it makes an order-sensitive call): a copier's rough view."""
    reads, writes, ordered = set(), set(), False
    for node in ast.walk(statement):
        if isinstance(node, ast.Name):
            (reads if isinstance(node.ctx, ast.Load) else writes).add(node.id)
        elif isinstance(node, ast.Attribute):
            path = _dotted(node)
            if path:
                (reads if isinstance(node.ctx, ast.Load) else writes).add(path)
        elif isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            base = _dotted(node.value)
            if base:
                writes.add(base)
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            ordered |= name in ORDERED_CALLS
    return reads, writes, ordered


def _swappable(a: ast.stmt, b: ast.stmt) -> bool:
    simple = (ast.Assign, ast.AugAssign, ast.AnnAssign)
    if not isinstance(a, simple) or not isinstance(b, simple):
        return False
    ra, wa, oa = _touches(a)
    rb, wb, ob = _touches(b)
    roots = lambda names: names | {n.split(".")[0] for n in names}  # noqa: E731
    return not (oa or ob) and not (wa & roots(rb | wb)) and not (wb & roots(ra | wa))


# --- restructuring edits (a copier's, and some honest students' habits) ---------------------------------------


def reorder_statements(tree: ast.Module, rng: random.Random, passes: int = 3) -> None:
    """Swap neighbouring statements that do not depend on each other, at random; functions and methods too."""
    for _, _, block in list(_blocks(tree)):
        for _ in range(passes):
            for i in range(len(block) - 1):
                if _swappable(block[i], block[i + 1]) and rng.random() < 0.6:
                    block[i], block[i + 1] = block[i + 1], block[i]
    defs = [i for i, n in enumerate(tree.body) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    moved = [tree.body[i] for i in defs]
    rng.shuffle(moved)
    for i, node in zip(defs, moved):
        tree.body[i] = node
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
            rng.shuffle(methods)
            node.body = [n for n in node.body if not isinstance(n, ast.FunctionDef)] + methods


def _loop_for(name: str, comprehension: ast.ListComp) -> list[ast.stmt]:
    """``name = []`` and the loop that fills it as the comprehension would."""
    inner: ast.stmt = ast.Expr(ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "append", ast.Load()),
                                        [comprehension.elt], []))
    for generator in reversed(comprehension.generators):
        for condition in reversed(generator.ifs):
            inner = ast.If(condition, [inner], [])
        inner = ast.For(generator.target, generator.iter, [inner], [])
    return [ast.Assign([ast.Name(name, ast.Store())], ast.List([], ast.Load())), inner]


def _comprehension_of(start: ast.stmt, loop: ast.stmt) -> ast.stmt | None:
    """``xs = []`` then ``for ...: xs.append(e)`` (ifs and nested loops allowed) as one ``xs = [...]``."""
    if not (isinstance(start, ast.Assign) and len(start.targets) == 1 and isinstance(start.targets[0], ast.Name)
            and isinstance(start.value, ast.List) and not start.value.elts and isinstance(loop, ast.For)):
        return None
    name, generators, node = start.targets[0].id, [], loop
    while True:
        if isinstance(node, ast.For) and len(node.body) == 1 and not node.orelse:
            generators.append(ast.comprehension(node.target, node.iter, [], 0))
            node = node.body[0]
        elif isinstance(node, ast.If) and generators and len(node.body) == 1 and not node.orelse:
            generators[-1].ifs.append(node.test)
            node = node.body[0]
        else:
            break
    call = node.value if isinstance(node, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name) and call.func.value.id == name and len(call.args) == 1):
        return None
    return ast.Assign([ast.Name(name, ast.Store())], ast.ListComp(call.args[0], generators))


def convert_loops(tree: ast.Module, rng: random.Random, chance: float = 1.0) -> None:
    """Comprehensions written as loops that fill a list, and such loops written as comprehensions, at random."""
    for node, field, block in list(_blocks(tree)):
        out, i = [], 0
        while i < len(block):
            statement = block[i]
            made = _comprehension_of(statement, block[i + 1]) if i + 1 < len(block) else None
            if made is not None and rng.random() < chance:
                out.append(made)
                i += 2
                continue
            value = getattr(statement, "value", None)
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], ast.Name) and isinstance(value, ast.ListComp) \
                    and rng.random() < chance:
                out += _loop_for(statement.targets[0].id, value)
            elif isinstance(statement, (ast.Return, ast.Assign, ast.Expr)) and isinstance(value, (ast.ListComp, ast.Call)) \
                    and rng.random() < chance:
                inner = value if isinstance(value, ast.ListComp) else next(
                    (a for a in value.args if isinstance(a, ast.ListComp)), None)
                if inner is None:
                    out.append(statement)
                else:
                    name = rng.choice(RESULT_NAMES) + "_list"
                    out += _loop_for(name, inner)
                    if inner is value:
                        statement.value = ast.Name(name, ast.Load())
                    else:
                        value.args = [ast.Name(name, ast.Load()) if a is inner else a for a in value.args]
                    out.append(statement)
            else:
                out.append(statement)
            i += 1
        setattr(node, field, out)


def _locals(function: ast.FunctionDef) -> set[str]:
    found = {a.arg for a in function.args.args + function.args.kwonlyargs}
    return found | {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _helper_name(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = f"_{rng.choice(HELPER_WORDS)}_{rng.choice(['part', 'values', 'it', 'stuff', 'terms', 'one', 'all'])}"
        if name not in taken:
            taken.add(name)
            return name


def _functions(tree: ast.Module) -> list[tuple[list, ast.FunctionDef]]:
    """(the block it sits in, the function) for the cell's functions and methods."""
    found = []
    for node in [tree] + [n for n in tree.body if isinstance(n, ast.ClassDef)]:
        found += [(node.body, f) for f in node.body if isinstance(f, ast.FunctionDef)]
    return found


def extract_helpers(tree: ast.Module, rng: random.Random, chance: float = 1.0, tail: bool = False) -> None:
    """Move a run of statements of a function into a helper of its own (the names it needs as parameters, the names
    it sets that are used later as the values it returns), or a long expression into a function that returns it.
    ``tail``: the run is the end of the function, its ``return`` included (a copier's other habit)."""
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    for block, function in _functions(tree):
        body = function.body
        start = 1 if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) else 0
        if len(body) - start < 2 or rng.random() >= chance:
            continue
        local = _locals(function)
        if tail:
            first = rng.randrange(start, len(body) - 1)
            run, after = body[first:], []
            if not isinstance(run[-1], ast.Return):
                continue
        else:
            simple = [i for i in range(start, len(body)) if isinstance(body[i], (ast.Assign, ast.AugAssign, ast.Assert, ast.If))
                      and not any(isinstance(n, (ast.Return, ast.Yield)) for n in ast.walk(body[i]))]
            if not simple:
                continue
            first = rng.choice(simple)
            last = first
            while last + 1 < len(body) and last + 1 in simple and last - first < 2 and rng.random() < 0.6:
                last += 1
            run, after = body[first:last + 1], body[last + 1:]
        stored = [n.id for s in run for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        params = _inputs(run, local)
        later = {n.id for s in after for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        outputs = list(dict.fromkeys(n for n in stored if n in later))
        name = _helper_name(rng, taken)
        helper_body = copy.deepcopy(run)
        if not tail and outputs:
            value = ast.Name(outputs[0], ast.Load()) if len(outputs) == 1 else \
                ast.Tuple([ast.Name(o, ast.Load()) for o in outputs], ast.Load())
            helper_body.append(ast.Return(value))
        helper = ast.FunctionDef(name, ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, []),
                                 helper_body, [], None)
        call = ast.Call(ast.Name(name, ast.Load()), [ast.Name(p, ast.Load()) for p in params], [])
        if tail:
            replacement = [ast.Return(call)]
        elif not outputs:
            replacement = [ast.Expr(call)]
        else:
            target = ast.Name(outputs[0], ast.Store()) if len(outputs) == 1 else \
                ast.Tuple([ast.Name(o, ast.Store()) for o in outputs], ast.Store())
            replacement = [ast.Assign([target], call)]
        function.body = body[:first] + replacement + after
        where = block.index(function)
        block.insert(where if rng.random() < 0.5 else where + 1, helper)
        if block is not tree.body:  # a method's helper: a function of the module, before the class
            block.remove(helper)
            tree.body.insert(0, helper)


def _order_of_use(node: ast.AST):
    """(name, read?) for the names of ``node`` in the order the program meets them (a value before its target)."""
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        for part in ([node.value] if node.value is not None else []) + getattr(node, "targets", [getattr(node, "target", None)]):
            yield from _order_of_use(part)
    elif isinstance(node, ast.AugAssign):
        yield from _order_of_use(node.value)
        if isinstance(node.target, ast.Name):
            yield node.target.id, True
        yield from _order_of_use(node.target)
    elif isinstance(node, (ast.For, ast.comprehension)):
        yield from _order_of_use(node.iter)
        yield from _order_of_use(node.target)
        for part in getattr(node, "body", []) + getattr(node, "orelse", []) + getattr(node, "ifs", []):
            yield from _order_of_use(part)
    elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        for generator in node.generators:
            yield from _order_of_use(generator)
        for part in (getattr(node, "elt", None), getattr(node, "key", None), getattr(node, "value", None)):
            if part is not None:
                yield from _order_of_use(part)
    elif isinstance(node, ast.Name):
        yield node.id, isinstance(node.ctx, ast.Load)
    else:
        for child in ast.iter_child_nodes(node):
            yield from _order_of_use(child)


def _inputs(run: list[ast.stmt], local: set[str]) -> list[str]:
    """The function's own names that the run reads before it sets them: what a helper made of it must be given."""
    seen, inputs = set(), []
    for statement in run:
        for name, read in _order_of_use(statement):
            if name in seen:
                continue
            seen.add(name)
            if read and name in local:
                inputs.append(name)
    return inputs


class Renamer(ast.NodeTransformer):
    """Every name the cell binds, but the functions and classes the lesson defines (which the tests call)."""

    def __init__(self, keep: set[str], rng: random.Random, style: str = "copier"):
        self.keep, self.rng, self.style, self.names = keep, rng, style, {}

    def new(self, name: str) -> str:
        if name in self.keep or name == "self":
            return name
        if name not in self.names:
            n = len(self.names)
            bare = name.strip("_") or "v"
            self.names[name] = {
                "copier": f"{self.rng.choice(['my', 'tmp', 'the', 'x'])}_{bare[::-1]}_{n}",
                "short": f"{bare[0]}{n}",
                "long": f"{bare}_{self.rng.choice(['value', 'tensor', 'item', 'data', 'current'])}",
                "camel": bare.split("_")[0] + "".join(w.title() for w in bare.split("_")[1:]) + "X" * (n % 2),
            }[self.style]
        return self.names[name]

    def visit_Name(self, node):
        if node.id in self.bound:
            node.id = self.new(node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.new(node.arg)
        return node

    def visit_FunctionDef(self, node):
        if node.name in self.bound:
            node.name = self.new(node.name)
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr in self.attributes:
            node.attr = self.new(node.attr)
        return node

    def rename(self, tree: ast.Module) -> ast.Module:
        self.bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self.bound |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
        self.bound |= {f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name.startswith("_")
                       and not f.name.startswith("__")}
        self.attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
        return self.visit(tree)


def comment(text: str, rng: random.Random, density: float) -> str:
    """Comments of the writer's own at the ends of some lines."""
    lines = text.splitlines()
    return "\n".join(line + ("  # " + rng.choice(COMMENTS) if rng.random() < density and line.strip()
                             and not line.rstrip().endswith((":", ",", "(", "\\", '"""')) else "")
                     for line in lines) + "\n"


# --- honest variety that no normaliser undoes ------------------------------------------------------------------


class Variety(ast.NodeTransformer):
    """Another of the ways an honest student writes the same step: a method or torch's function (``x.sum()`` or
    ``torch.sum(x)``), a loop over indices instead of items, an extra check of their own, a conditional return
    spelt as an if/else. These change the program's form, so two honest answers stay apart after any normalisation."""

    def __init__(self, rng: random.Random, chance: float):
        self.rng, self.chance = rng, chance

    def coin(self) -> bool:
        return self.rng.random() < self.chance

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in TORCH_METHODS and not isinstance(func.value, ast.Name) \
                and self.coin():
            return ast.Call(ast.Attribute(ast.Name("torch", ast.Load()), func.attr, ast.Load()),
                            [func.value] + node.args, node.keywords)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "torch" \
                and func.attr in TORCH_METHODS and node.args and self.coin():
            return ast.Call(ast.Attribute(node.args[0], func.attr, ast.Load()), node.args[1:], node.keywords)
        return node

    def visit_For(self, node):
        self.generic_visit(node)
        if isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Name) and self.coin():
            index = node.target.id + "_i"
            pick = ast.Assign([ast.Name(node.target.id, ast.Store())],
                              ast.Subscript(ast.Name(node.iter.id, ast.Load()), ast.Name(index, ast.Load()), ast.Load()))
            node.iter = ast.Call(ast.Name("range", ast.Load()), [ast.Call(ast.Name("len", ast.Load()),
                                                                          [ast.Name(node.iter.id, ast.Load())], [])], [])
            node.target = ast.Name(index, ast.Store())
            node.body = [pick] + node.body
        return node

    def visit_Return(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.IfExp) and self.coin():
            return ast.If(node.value.test, [ast.Return(node.value.body)], [ast.Return(node.value.orelse)])
        return node

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        params = [a.arg for a in node.args.args if a.arg != "self"]
        if params and self.coin():
            name = self.rng.choice(params)
            check = self.rng.choice([f"assert {name} is not None, 'no {name}'",
                                     f"if {name} is None:\n    raise TypeError('{name} is missing')",
                                     f"print('{node.name}:', type({name}).__name__)"])
            at = 1 if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) else 0
            node.body[at:at] = ast.parse(check).body
        return node


# --- one answer, written ------------------------------------------------------------------------------------------


def rewrite(source: str, rng: random.Random, edits: dict[str, float], keep: set[str], touches=None,
            naming: str | None = None, comments: float = 0.0) -> str:
    """``source`` with ``edits`` made (name -> chance at each place it applies), then renamed in the ``naming``
    style and commented at that density. ``touches``: an honest student's own spellings (a NodeTransformer class)."""
    tree = _parse(source)
    if tree is None:
        return source
    if touches is not None:
        tree = touches(rng).visit(tree)
    if "variety" in edits:
        tree = Variety(rng, edits["variety"]).visit(tree)
    if "loops" in edits:
        convert_loops(tree, rng, edits["loops"])
    if "helpers" in edits:
        extract_helpers(tree, rng, edits["helpers"])
    if "tail_helper" in edits:
        extract_helpers(tree, rng, edits["tail_helper"], tail=True)
    if "reorder" in edits and rng.random() < edits["reorder"]:
        reorder_statements(tree, rng)
    if "strings" in edits:
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                node.value = node.value.upper() + " (see notes)"
    if naming:
        tree = Renamer(keep | set(dir(__builtins__)), rng, naming).rename(tree)
    text = _unparse(tree)
    return comment(text, rng, comments) if comments else text
