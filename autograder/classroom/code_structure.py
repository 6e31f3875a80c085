"""The structure of a code answer: its syntax tree, brought to one form that a copier's restructuring does not change.

The token fingerprints (fingerprints.py) survive renaming, comments, layout and moved functions, but not edits that
change the order of the tokens while keeping the program: statements swapped, a loop written as a comprehension,
a check moved into a helper. This module reads the answer with Python's own parser (``ast``: maintained with the
language, and it reads exactly the code the kernel runs; a cell that does not parse has no structure and is
compared on its tokens alone) and undoes those edits before the tree is written out as tokens:

1. **small helpers inlined**: a function (or a method called as ``self.name(...)``) that the cell defines, that
   is not one the lesson asks for, and whose body is at most ``MAX_HELPER`` statements with at most a final
   ``return``, is replaced at each call by its body, its parameters by the arguments;
2. **loops that build a result become comprehensions**: ``out = []`` then ``for x in xs: [if c:] out.append(e)``
   is ``out = [e for x in xs if c]``; the same for a dict (``d[k] = v``), a set (``.add``) and a sum (``+=``);
3. **a comprehension used once is inlined**: ``t = [...]`` then one use of ``t`` later in the block is that use
   of the comprehension (what a loop that fills a list passed on amounts to);
4. **independent statements in one order**: in each block, statements that neither read nor write what the other
   writes are put in a canonical order (the smallest form first among those whose inputs are ready); a
   ``return``, ``break`` or ``continue`` is never moved across;
5. **written out with the names and literals normalised**: every name the cell binds (variables, parameters, its
   functions and classes, attributes it sets) is ``V``, an import's alias is the module it names, every string
   (f-strings and docstrings included) is ``S`` (a docstring is dropped), numbers are written by value (``1e-3``
   and ``0.001`` are one number), keyword arguments are sorted, ``a, b = x, y`` is two assignments, ``xs += [e]``
   is ``xs.append(e)``, type annotations are dropped. Comments never reach the tree.

What is deliberately *not* normalised: the order of operands, the direction of a comparison, ``x += y`` against
``x = x + y``, temporaries other than comprehensions. Honest students differ there, copiers rarely bother, and
every normalisation brings honest answers closer together (in a class of 300, answers that the normalisation makes
identical hide a copy among them).

What stays is what the program does and the library calls it makes. Each token keeps the character span of the
part of the answer it comes from, so the report can mark the matching stretches in the answer as handed in (an
inlined helper's tokens mark the helper).
"""

from __future__ import annotations

import ast
import copy
import heapq
import re
from dataclasses import dataclass, field

from .fingerprints import Tokens

MAX_HELPER = 8          # statements in a helper that is inlined: a longer function is a piece of design, kept
MAX_INLINED = 20_000    # syntax nodes that inlining may add to one answer (helpers calling helpers could multiply)
_MAGIC = re.compile(r"^([ \t]*)[%!?].*$", re.M)   # IPython's line magics and shell escapes: not Python
_COMPREHENSIONS = (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)
_EMPTY = {"list": ast.List, "dict": ast.Dict, "set": ast.Set}
WORLD = "<world>"       # what a call made for its effect (a statement that is only a call) may change


def parse(source: str) -> ast.Module | None:
    """The answer's syntax tree (magics read as ``pass``, line numbers unchanged), or None when it does not parse."""
    try:
        return ast.parse(_MAGIC.sub(lambda m: m.group(1) + "pass", source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def defined_names(source: str) -> set[str]:
    """The functions, classes and methods that ``source`` (a cell the lesson gave out) defines."""
    tree = parse(source)
    if tree is None:
        return set()
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def structure_tokens(source: str, keep: frozenset[str] = frozenset()) -> Tokens:
    """``source`` as normalised structure tokens (see the module's docstring); no tokens when it does not parse.
    ``keep``: the names the lesson defines (the functions the tests call), which are never inlined away."""
    tree = parse(source)
    if tree is None:
        return Tokens(source, [], [])
    try:
        _inline_helpers(tree, keep)
        return _Writer(source, tree).tokens()
    except (RecursionError, MemoryError):  # a tree nested past what any honest answer needs
        return Tokens(source, [], [])


# --- 1. helpers ---------------------------------------------------------------------------------------------------


def _returns_only_at_end(body: list[ast.stmt]) -> bool:
    for i, statement in enumerate(body):
        for node in _walk_here(statement):
            if isinstance(node, ast.Return) and not (node is statement and i == len(body) - 1):
                return False
            if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)):
                return False
    return True


def _walk_here(node: ast.AST):
    """``ast.walk`` that does not enter nested functions, classes or lambdas (their code runs elsewhere)."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                todo.append(child)


def _body(function: ast.FunctionDef) -> list[ast.stmt]:
    body = function.body
    if body and _is_docstring(body[0]):
        body = body[1:]
    return body


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) \
        and isinstance(statement.value.value, str)


def _helpers(tree: ast.Module, keep: frozenset[str]) -> dict[tuple[str, str], ast.FunctionDef]:
    """(kind, name) -> the helpers that can be inlined: ("function", name) for a function of the cell,
    ("method", name) for a method called on ``self``."""
    found = {}
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):  # a lambda's body is an expression
            continue
        members = [(("function", n.name), n) for n in body if isinstance(n, ast.FunctionDef)]
        if isinstance(node, ast.ClassDef):
            members = [(("method", name), n) for (_, name), n in members if not name.startswith("__")]
        for key, function in members:
            args = function.args
            body = _body(function)
            if key[1] in keep or function.decorator_list or args.vararg or args.kwarg or args.kwonlyargs \
                    or args.posonlyargs or not body or len(body) > MAX_HELPER or not _returns_only_at_end(body):
                continue
            calls_itself = any(isinstance(n, ast.Call) and _callee(n) == key for n in ast.walk(function))
            if not calls_itself:
                found[key] = function
    return found


def _callee(call: ast.Call) -> tuple[str, str] | None:
    func = call.func
    if isinstance(func, ast.Name):
        return ("function", func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        return ("method", func.attr)
    return None


class _Substitute(ast.NodeTransformer):
    """Parameters replaced by the arguments of one call (a parameter the helper assigns to is left as it is)."""

    def __init__(self, values: dict[str, ast.expr]):
        self.values = values

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return copy.deepcopy(self.values[node.id])
        return node


def _bind(function: ast.FunctionDef, call: ast.Call, method: bool) -> dict[str, ast.expr] | None:
    """The value of each parameter at this call, or None when the call cannot be matched to them."""
    params = [a.arg for a in function.args.args][1 if method else 0:]
    defaults = function.args.defaults
    values: dict[str, ast.expr] = dict(zip(params[len(params) - len(defaults):], defaults)) if defaults else {}
    if len(call.args) > len(params) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    values |= dict(zip(params, call.args))
    for keyword in call.keywords:
        if keyword.arg not in params:
            return None
        values[keyword.arg] = keyword.value
    if set(values) != set(params):
        return None
    assigned = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    return {name: value for name, value in values.items() if name not in assigned}


def _inline_helpers(tree: ast.Module, keep: frozenset[str]) -> None:
    """Inline the helpers at every call (helpers that call helpers: a few rounds), then drop the helpers that no
    longer have a use."""
    if not any(isinstance(n, ast.FunctionDef) and n.name not in keep for n in ast.walk(tree)):
        return  # the usual answer: the lesson's functions and nothing else
    state = _Inlining()
    seen: dict[tuple[str, str], ast.FunctionDef] = {}
    try:
        for _ in range(3):
            helpers = _helpers(tree, keep)
            seen |= helpers
            if not helpers or not _inline_round(tree, helpers, state):
                break
    except _Budget:
        pass  # what was inlined stays inlined; the rest keeps its helpers
    inlined = {key: seen[key] for key in state.done if key in seen}
    used = {_callee(n) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    used |= {("function", n.id) for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    used |= {("method", n.attr) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    unused = {id(f) for key, f in inlined.items() if key not in used}  # a function nobody called stays
    for node in ast.walk(tree):
        for field_name in ("body", "orelse", "finalbody"):
            block = getattr(node, field_name, None)
            if isinstance(block, list) and any(id(s) in unused for s in block):
                kept = [s for s in block if id(s) not in unused]
                setattr(node, field_name, kept or [ast.Pass()])


def _inline_round(tree: ast.Module, helpers: dict, state: _Inlining) -> bool:
    """Inline the helpers once wherever they are called; whether any was."""
    before = len(state.done), state.added
    for node in list(ast.walk(tree)):
        for field_name in ("body", "orelse", "finalbody"):
            block = getattr(node, field_name, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                continue
            out = []
            for statement in block:
                expanded = _inline_in(statement, helpers, state)
                out += expanded if expanded is not None else [statement]
            setattr(node, field_name, out)
    return (len(state.done), state.added) != before


class _Budget(Exception):
    """Inlining would add more than MAX_INLINED nodes: the answer keeps its helpers from there on."""


@dataclass
class _Inlining:
    done: set = field(default_factory=set)   # the helpers inlined at least once
    added: int = 0                           # syntax nodes added so far


def _inline_in(statement: ast.stmt, helpers: dict, state: _Inlining) -> list[ast.stmt] | None:
    """``statement`` with its first call of a helper inlined (the statements the helper runs first, then the
    statement with the call replaced by what the helper returns), or None when it calls none."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None
    for node in _walk_here(statement):
        if not isinstance(node, ast.Call) or _callee(node) not in helpers:
            continue
        kind, _ = _callee(node)
        function = helpers[_callee(node)]
        values = _bind(function, node, kind == "method")
        if values is None:
            continue
        body = [_Substitute(values).visit(copy.deepcopy(s)) for s in _body(function)]
        state.added += sum(1 for s in body for _ in ast.walk(s))
        if state.added > MAX_INLINED:
            raise _Budget
        result = body.pop().value if isinstance(body[-1], ast.Return) else None
        if isinstance(statement, ast.Expr) and statement.value is node:
            state.done.add(_callee(node))
            return body + ([ast.copy_location(ast.Expr(result), result)] if result is not None else [])
        if result is None:
            continue
        state.done.add(_callee(node))
        if isinstance(statement, ast.Assign) and statement.value is node and len(statement.targets) == 1:
            renamed = _returned_into(body, result, statement.targets[0])
            if renamed is not None:
                return renamed
        _replace(statement, node, result)
        return body + [statement]
    return None


def _returned_into(body: list[ast.stmt], result: ast.expr, target: ast.expr) -> list[ast.stmt] | None:
    """When the helper returns names it assigned (``return a`` or ``return a, b``) into names (``x = h()``,
    ``x, y = h()``), its body with those names renamed: what the code looked like before the helper was made."""
    returned = result.elts if isinstance(result, ast.Tuple) else [result]
    targets = target.elts if isinstance(target, ast.Tuple) else [target]
    if len(returned) != len(targets) or not all(isinstance(n, ast.Name) for n in returned + targets):
        return None
    assigned = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if not all(n.id in assigned for n in returned):
        return None
    names = {r.id: t.id for r, t in zip(returned, targets)}
    for statement in body:
        for n in ast.walk(statement):
            if isinstance(n, ast.Name) and n.id in names:
                n.id = names[n.id]
    return body


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for node in ast.walk(tree):
        for name, value in ast.iter_fields(node):
            if value is old:
                setattr(node, name, new)
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new


# --- 2. and 3. loops and temporaries, block by block ------------------------------------------------------------


def _empty_kind(value: ast.expr) -> str | None:
    """"list", "dict", "set" or "sum" when ``value`` starts an empty collection or a zero total."""
    if isinstance(value, ast.List) and not value.elts:
        return "list"
    if isinstance(value, ast.Dict) and not value.keys:
        return "dict"
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _EMPTY \
            and not value.args and not value.keywords:
        return value.func.id
    if isinstance(value, ast.Constant) and value.value in (0, 0.0) and not isinstance(value.value, bool):
        return "sum"
    return None


def _collector(statement: ast.stmt, name: str, kind: str):
    """What a loop body adds to ``name`` (its element, or key and value), or None when it does something else."""
    if kind in ("list", "set") and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        method = "append" if kind == "list" else "add"
        if isinstance(call.func, ast.Attribute) and call.func.attr == method and isinstance(call.func.value, ast.Name) \
                and call.func.value.id == name and len(call.args) == 1 and not call.keywords:
            return call.args[0]
    if kind == "dict" and isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name:
            return (target.slice, statement.value)
    if kind == "sum" and isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) \
            and isinstance(statement.target, ast.Name) and statement.target.id == name:
        return statement.value
    return None


def _as_comprehension(loop: ast.For, name: str, kind: str) -> ast.expr | None:
    """The comprehension a collecting loop (nested loops and ``if`` filters included) amounts to, or None."""
    generators = []
    node: ast.stmt = loop
    while True:
        if isinstance(node, ast.For) and not node.orelse and len(node.body) == 1:
            generators.append(ast.comprehension(node.target, node.iter, [], 0))
            node = node.body[0]
        elif isinstance(node, ast.If) and generators and not node.orelse and len(node.body) == 1:
            generators[-1].ifs.append(node.test)
            node = node.body[0]
        else:
            break
    if not generators:
        return None
    element = _collector(node, name, kind)
    if element is None or any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(loop.iter)):
        return None
    if kind == "dict":
        made = ast.DictComp(element[0], element[1], generators)
    elif kind == "set":
        made = ast.SetComp(element, generators)
    elif kind == "sum":
        made = ast.Call(ast.Name("sum", ast.Load()), [ast.GeneratorExp(element, generators)], [])
    else:
        made = ast.ListComp(element, generators)
    return ast.copy_location(made, loop)


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _split_tuples(block: list[ast.stmt]) -> list[ast.stmt]:
    """``a, b = x, y`` as ``a = x`` and ``b = y`` (when neither value reads a name assigned there); ``xs += [e]``
    as ``xs.append(e)``."""
    out = []
    for statement in block:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Tuple) and isinstance(statement.value, ast.Tuple) \
                and len(statement.targets[0].elts) == len(statement.value.elts) \
                and all(isinstance(t, ast.Name) for t in statement.targets[0].elts) \
                and not any(_mentions(v, t.id) for v in statement.value.elts for t in statement.targets[0].elts):
            out += [ast.copy_location(ast.Assign([t], v), statement)
                    for t, v in zip(statement.targets[0].elts, statement.value.elts)]
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) \
                and isinstance(statement.target, ast.Name) and isinstance(statement.value, ast.List) \
                and len(statement.value.elts) == 1:
            append = ast.Attribute(ast.Name(statement.target.id, ast.Load()), "append", ast.Load())
            call = ast.Call(ast.copy_location(append, statement.target), statement.value.elts, [])
            out.append(ast.copy_location(ast.Expr(ast.copy_location(call, statement)), statement))
        else:
            out.append(statement)
    return out


def _loops_to_comprehensions(block: list[ast.stmt]) -> list[ast.stmt]:
    block = _split_tuples(block)
    i = 0
    while i < len(block):
        start = block[i]
        kind = _empty_kind(start.value) if isinstance(start, ast.Assign) and len(start.targets) == 1 \
            and isinstance(start.targets[0], ast.Name) else None
        if kind:
            name = start.targets[0].id
            j = next((j for j in range(i + 1, len(block)) if _mentions(block[j], name)), None)
            made = _as_comprehension(block[j], name, kind) if j is not None and isinstance(block[j], ast.For) else None
            if made is not None:
                block[j] = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], made), block[j])
                del block[i]
                continue
        i += 1
    return block


def _inline_temporaries(block: list[ast.stmt], loads: dict[str, int], stores: dict[str, int]) -> list[ast.stmt]:
    """``t = [comprehension]`` followed, later in the block, by the only use of ``t`` in the cell: that use becomes
    the comprehension (when nothing in between writes what it reads). Only comprehensions: a loop that fills a list
    used once becomes one, and another temporary is a choice honest students make differently."""
    block = list(block)
    i = 0
    while i < len(block):
        statement = block[i]
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, _COMPREHENSIONS):
            name = statement.targets[0].id
            if loads.get(name) == 1 and stores.get(name) == 1:
                reads, _ = _effects(statement)
                for j in range(i + 1, len(block)):
                    use = next((n for n in _walk_here(block[j]) if isinstance(n, ast.Name) and n.id == name), None)
                    if use is not None:
                        _replace(block[j], use, statement.value)
                        del block[i]
                        i -= 1
                        break
                    if _effects(block[j])[1] & (reads | {name}):
                        break
        i += 1
    return block


# --- 4. the order of independent statements --------------------------------------------------------------------


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call, ast.Starred)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _effects(statement: ast.stmt) -> tuple[set[str], set[str]]:
    """(what the statement reads, what it writes): names, ``a.b`` for an attribute it sets, ``WORLD`` for a call made
    for its effect (and every call reads it)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        reads = {n.id for d in statement.decorator_list for n in ast.walk(d) if isinstance(n, ast.Name)}
        return reads, {statement.name}
    reads, writes = set(), set()
    for node in _walk_here(statement):
        if isinstance(node, ast.Name):
            (reads if isinstance(node.ctx, ast.Load) else writes).add(node.id)
        elif isinstance(node, ast.Attribute):
            path = _root(node)
            if path and not isinstance(node.ctx, ast.Load):
                writes |= {path, f"{path}.{node.attr}"}
            elif path:
                reads.add(f"{path}.{node.attr}")
        elif isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load) and _root(node):
            writes.add(_root(node))
        elif isinstance(node, ast.Call):
            reads.add(WORLD)
    if isinstance(statement, ast.Expr) and isinstance(statement.value, (ast.Call, ast.Await)):
        writes.add(WORLD)
        root = _root(statement.value)
        if root:
            writes.add(root)
    return reads, writes


def _is_barrier(statement: ast.stmt) -> bool:
    """A statement that nothing may cross: it leaves the block, or changes where control goes (a function's own
    ``return`` is the function's, not the block's)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    if isinstance(statement, (ast.Return, ast.Break, ast.Continue, ast.Raise)):
        return True
    return any(isinstance(n, (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Global,
                              ast.Nonlocal)) for n in _walk_here(statement))


def canonical_order(keys: list[tuple], effects: list[tuple[set, set]], barriers: list[bool]) -> list[int]:
    """The statements' indices in canonical order: between barriers, a statement waits for every earlier statement
    it conflicts with (one writes what the other reads or writes); of those ready, the smallest key goes first."""
    order: list[int] = []
    start = 0
    for end in [i for i, b in enumerate(barriers) if b] + [len(keys)]:
        segment = range(start, end)
        waits = {i: {j for j in range(start, i) if _conflict(effects[i], effects[j])} for i in segment}
        ready = [(keys[i], i) for i in segment if not waits[i]]
        heapq.heapify(ready)
        done = set()
        while ready:
            _, i = heapq.heappop(ready)
            order.append(i)
            done.add(i)
            for j in segment:
                if j not in done and i in waits[j]:
                    waits[j].discard(i)
                    if not waits[j]:
                        heapq.heappush(ready, (keys[j], j))
        if end < len(keys):
            order.append(end)
        start = end + 1
    return order


def _conflict(a: tuple[set, set], b: tuple[set, set]) -> bool:
    return bool(a[1] & (b[0] | b[1]) or b[1] & a[0])


# --- 5. written out ---------------------------------------------------------------------------------------------


class _Writer:
    """The normalised tree as tokens, each with the character span it comes from in the source."""

    def __init__(self, source: str, tree: ast.Module):
        self.source, self.tree = source, tree
        for node in ast.walk(tree):  # first, so that the counts of uses below see the loops as comprehensions
            for field_name in ("body", "orelse", "finalbody"):
                block = getattr(node, field_name, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    setattr(node, field_name, _loops_to_comprehensions(block))
        lines = source.splitlines(keepends=True)
        self.starts = [0]
        for line in lines:
            self.starts.append(self.starts[-1] + len(line))
        self.lines = lines
        self.aliases: dict[str, str] = {}
        self.bound: set[str] = set()
        self.own_attributes: set[str] = set()
        self.loads: dict[str, int] = {}
        self.stores: dict[str, int] = {}
        for node in ast.walk(tree):  # one walk: what the cell imports, binds, sets, and how often it uses each name
            if isinstance(node, ast.Name):
                counts = self.loads if isinstance(node.ctx, ast.Load) else self.stores
                counts[node.id] = counts.get(node.id, 0) + 1
                if not isinstance(node.ctx, ast.Load):
                    self.bound.add(node.id)
            elif isinstance(node, ast.arg):
                self.stores[node.arg] = self.stores.get(node.arg, 0) + 1
                self.bound.add(node.arg)
            elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                self.own_attributes.add(node.attr)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.bound.add(node.name)
            elif isinstance(node, ast.ClassDef):
                self.bound.add(node.name)
                self.own_attributes |= {f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.bound.add(node.name)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    self.aliases[a.asname or a.name] = f"{node.module or ''}.{a.name}"
        self.bound -= set(self.aliases)

    def tokens(self) -> Tokens:
        kinds, spans = [], []
        for kind, span in self.block(self.tree.body):
            kinds.append(kind)
            spans.append(span)
        return Tokens(self.source, kinds, spans)

    # where a node stands in the source
    def offset(self, line: int, column: int) -> int:
        if not 1 <= line <= len(self.lines):
            return len(self.source)
        text = self.lines[line - 1]
        if not text.isascii():  # ast counts columns in UTF-8 bytes
            column = len(text.encode("utf-8")[:column].decode("utf-8", errors="ignore"))
        return self.starts[line - 1] + column

    def span(self, node: ast.AST, first_line: bool = False) -> tuple[int, int]:
        if getattr(node, "lineno", None) is None:
            return (0, 0)
        start = self.offset(node.lineno, node.col_offset)
        if first_line or getattr(node, "end_lineno", None) is None:
            line_end = self.starts[min(node.lineno, len(self.lines))]
            return (start, max(start, len(self.source[:line_end].rstrip())))
        return (start, max(start, self.offset(node.end_lineno, node.end_col_offset)))

    # blocks and statements
    def block(self, statements: list[ast.stmt]) -> list[tuple[str, tuple[int, int]]]:
        statements = [s for s in statements if not _is_docstring(s)
                      and not isinstance(s, (ast.Pass, ast.Global, ast.Nonlocal))]
        statements = _inline_temporaries(statements, self.loads, self.stores)
        written = [self.statement(s) for s in statements]
        order = canonical_order([tuple(k for k, _ in w) for w in written], [_effects(s) for s in statements],
                                [_is_barrier(s) for s in statements])
        return [token for i in order for token in written[i]]

    def statement(self, node: ast.stmt) -> list[tuple[str, tuple[int, int]]]:
        out: list[tuple[str, tuple[int, int]]] = []
        head = self.span(node, first_line=True)

        def emit(kind: str) -> None:
            out.append((kind, head))

        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            emit("def")
            args = node.args
            for a in args.posonlyargs + args.args + args.kwonlyargs:
                out.append(("arg", self.span(a)))
            for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
                out += self.expression(default)
            for decorator in node.decorator_list:
                out += [("@", self.span(decorator))] + self.expression(decorator)
            out += self.block(node.body) + [("}", head)]
        elif isinstance(node, ast.ClassDef):
            emit("class")
            for base in node.bases:
                out += self.expression(base)
            out += self.block(node.body) + [("}", head)]
        elif isinstance(node, ast.Assign):
            emit("=")
            for target in node.targets:
                out += self.expression(target)
            out += self.expression(node.value)
        elif isinstance(node, ast.AugAssign):
            emit(type(node.op).__name__ + "=")
            out += self.expression(node.target) + self.expression(node.value)
        elif isinstance(node, ast.AnnAssign):
            emit("=")
            out += self.expression(node.target)
            if node.value is not None:
                out += self.expression(node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            emit("for")
            out += self.expression(node.target) + self.expression(node.iter)
            out += self.block(node.body) + self.otherwise(node.orelse, head)
        elif isinstance(node, ast.While):
            emit("while")
            out += self.expression(node.test) + self.block(node.body) + self.otherwise(node.orelse, head)
        elif isinstance(node, ast.If):
            emit("if")
            out += self.expression(node.test) + self.block(node.body) + self.otherwise(node.orelse, head)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            emit("with")
            for item in node.items:
                out += self.expression(item.context_expr)
                if item.optional_vars is not None:
                    out += self.expression(item.optional_vars)
            out += self.block(node.body) + [("}", head)]
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            emit("try")
            out += self.block(node.body)
            for handler in node.handlers:
                out.append(("except", self.span(handler, first_line=True)))
                if handler.type is not None:
                    out += self.expression(handler.type)
                out += self.block(handler.body)
            out += self.otherwise(node.orelse, head)
            if node.finalbody:
                out += [("finally", head)] + self.block(node.finalbody)
            out.append(("}", head))
        elif isinstance(node, ast.Expr):
            emit("expr")
            out += self.expression(node.value)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                emit("import " + (f"{node.module}.{a.name}" if isinstance(node, ast.ImportFrom) else a.name))
        else:  # return, raise, assert, del, break, continue, match...
            emit(type(node).__name__.lower())
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    out += self.expression(child)
                elif isinstance(child, ast.stmt):
                    out += self.statement(child)
        return out

    def otherwise(self, orelse: list[ast.stmt], head) -> list:
        return ([("else", head)] + self.block(orelse) if orelse else []) + [("}", head)]

    # expressions
    def expression(self, node: ast.expr) -> list[tuple[str, tuple[int, int]]]:
        span = self.span(node)
        if isinstance(node, ast.Name):
            return [("V" if node.id in self.bound else self.aliases.get(node.id, node.id), span)]
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, (str, bytes)):
                return [("S", span)]
            return [(repr(value), span)]
        if isinstance(node, ast.JoinedStr):
            return [("S", span)]
        if isinstance(node, ast.Attribute):
            attribute = "V" if node.attr in self.own_attributes else node.attr
            return self.expression(node.value) + [("." + attribute, span)]
        if isinstance(node, ast.Call):
            out = [("call", span)] + self.expression(node.func)
            for arg in node.args:
                out += self.expression(arg)
            for keyword in sorted(node.keywords, key=lambda k: k.arg or ""):
                out += [(f"{keyword.arg or '**'}=", span)] + self.expression(keyword.value)
            return out + [(")", span)]
        if isinstance(node, ast.BinOp):
            return [(type(node.op).__name__, span)] + self.expression(node.left) + self.expression(node.right)
        if isinstance(node, ast.BoolOp):
            return [(type(node.op).__name__, span)] + [t for v in node.values for t in self.expression(v)] + [(")", span)]
        if isinstance(node, ast.Compare):
            out = [("compare", span)] + self.expression(node.left)
            for op, right in zip(node.ops, node.comparators):
                out += [(type(op).__name__, span)] + self.expression(right)
            return out
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            kind = {ast.SetComp: "setcomp", ast.DictComp: "dictcomp"}.get(type(node), "comp")
            out = [(kind, span)]
            for generator in node.generators:
                out += [("in", span)] + self.expression(generator.target) + self.expression(generator.iter)
                for condition in generator.ifs:
                    out += [("if", span)] + self.expression(condition)
            if isinstance(node, ast.DictComp):
                return out + self.expression(node.key) + self.expression(node.value) + [(")", span)]
            return out + self.expression(node.elt) + [(")", span)]
        if isinstance(node, ast.Slice):
            parts = [node.lower, node.upper, node.step]
            return [("slice", span)] + [t for p in parts for t in (self.expression(p) if p else [("_", span)])]
        if isinstance(node, ast.Lambda):
            return [("lambda", span)] + [("arg", span) for _ in node.args.args] + self.expression(node.body)
        out = [(type(node).__name__, span)]
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                out += self.expression(child)
            elif isinstance(child, (ast.unaryop, ast.operator)):
                out.append((type(child).__name__, span))
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Subscript)):
            out.append((")", span))
        return out
