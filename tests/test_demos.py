"""Ungraded cells that reuse a student's function work with every answer the words allow (issue 35).

A lesson's plain cells often call the function a student just wrote (lesson 04's valley plot runs the student's
momentum and Adam steps). Where the words allow updating arguments in place or returning new tensors, either answer
gets full marks, so the plain cells after it must not depend on which one the solution chose. For each solution cell
that a later plain cell uses (directly, or through another solution cell), each of its right answers in
tests/variants/ that writes into one of its function's arguments where the solution does not (or the other way round)
takes the solution's place; the notebook runs from the top to the last plain cell that uses it; and every name those
plain cells assign or read must hold what it holds in the solution's own run (the same values within rounding, the
same structure and types). Writing in place is read from the source: an in-place tensor method called on an argument
or a view of one (``param.add_``, ``x.detach().view(-1)[i] = ...``), ``nn.init.*_(param)``, or ``param -= ...`` on an
argument the function returns or indexes.
"""

from __future__ import annotations

import ast
import json

import nbformat
import pytest
import torch

from autograder.authoring.variants import load_variants
from autograder.core import course, notebooks, settings
from autograder.grading import rules

RTOL, ATOL = 1e-4, 1e-5   # a different but correct order of in-place arithmetic moves the last bits


def _defined(source: str) -> set[str]:
    """Top-level functions and classes a cell defines."""
    return {node.name for node in ast.parse(source).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def _names(source: str) -> tuple[set[str], set[str]]:
    """(names the cell reads, names it assigns at top level)."""
    tree = ast.parse(source)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    assigned = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
        for target in targets:
            assigned |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return read, assigned


# The in-place methods of a tensor that change its numbers (requires_grad_ changes a flag of a new leaf).
_IN_PLACE = {name for name in dir(torch.Tensor) if name.endswith("_") and not name.startswith("_")} - {"requires_grad_"}
_COPIES = {"clone", "copy", "deepcopy", "tolist", "item", "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"}


def _rooted(node: ast.AST, names: set[str]) -> bool:
    """Whether an expression is one of ``names`` or a view of it: ``x``, ``x.detach()``, ``x.view(-1)``, ``x[0]``
    (a chain with a copy in it, ``x.clone()``, is not)."""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr not in _COPIES and _rooted(node.func.value, names)
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        return _rooted(node.value, names)
    if isinstance(node, ast.IfExp):
        return _rooted(node.body, names) or _rooted(node.orelse, names)
    return False


def _module(node: ast.AST, views: set[str]) -> bool:
    """Whether an expression names a module (``nn.init``, ``torch``): dotted names, none of them an argument."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id not in views


def writes_into_an_argument(source: str) -> bool:
    """Whether a function of ``source`` changes one of its tensor arguments in place, or a view of one: an in-place
    tensor method (``param.add_``, ``nn.init.zeros_(param)``), ``view[i] = ...``, or ``param -= ...`` on an argument
    it treats as a tensor (returns, indexes or reads an attribute of; ``width += 1`` on a number is no write)."""
    for function in (n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)):
        views = {a.arg for a in function.args.args + function.args.kwonlyargs}
        for _ in range(3):   # views of views
            views |= {t.id for n in ast.walk(function) if isinstance(n, ast.Assign) and _rooted(n.value, views)
                      for t in n.targets if isinstance(t, ast.Name)}
        tensors = {n.value.id for n in ast.walk(function) if isinstance(n, (ast.Attribute, ast.Subscript))
                   and isinstance(n.value, ast.Name)}
        tensors |= {n.id for r in ast.walk(function) if isinstance(r, ast.Return) and r.value is not None
                    for n in (r.value.elts if isinstance(r.value, ast.Tuple) else [r.value]) if isinstance(n, ast.Name)}
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _IN_PLACE \
                    and _rooted(node.func.value, views):
                return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _module(node.func.value, views) \
                    and node.func.attr.endswith("_") and node.args and _rooted(node.args[0], views):
                return True   # a library function that fills its argument: nn.init.normal_(param)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, ast.AugAssign) else []
            for target in targets:
                if isinstance(node, ast.AugAssign) and isinstance(target, ast.Name) and target.id in views & tensors:
                    return True
                if isinstance(target, ast.Subscript) and _rooted(target.value, views):
                    return True
    return False


def demos(nb) -> dict[int, list[int]]:
    """Solution cell index -> the plain code cells after it that use what it defines (directly, or through a later
    solution cell that uses it)."""
    cells = nb.cells
    solutions = [i for i, c in enumerate(cells) if notebooks.is_solution_cell(c)]
    plain = [i for i, c in enumerate(cells) if c.cell_type == "code" and not notebooks.grading(c)]
    found = {}
    for s in solutions:
        names = _defined(cells[s].source)
        for later in solutions:   # a later answer that calls this one carries its names further
            if later > s and _names(cells[later].source)[0] & names:
                names |= _defined(cells[later].source)
        users = [i for i in plain if i > s and _names(cells[i].source)[0] & names]
        if users:
            found[s] = users
    return found


def _cases(name: str) -> list[tuple[int, str]]:
    """(solution cell index, a right answer) for each cell a plain cell reuses, where the right answer writes into an
    argument and the solution does not, or the other way round."""
    nb = notebooks.read(course.solution_notebook(name))
    _, right = load_variants(name)
    cases = []
    for index in demos(nb):
        in_place = writes_into_an_argument(nb.cells[index].source)
        grade_id = notebooks.grading(nb.cells[index])["grade_id"]
        cases += [(index, source) for sources in right.get(grade_id, {}).values() for source in sources
                  if writes_into_an_argument(source) != in_place]
    return cases


def _capture(names: set[str]):
    """A cell that prints the encoded values (coursekit.hidden.encode) of the notebook's ``names``, as one JSON line."""
    return nbformat.v4.new_code_cell(
        "import json as _json\nfrom coursekit.hidden import encode as _encode\n"
        f"print(_json.dumps({{_n: _encode(globals()[_n]) for _n in {sorted(names)!r} if _n in globals()}}))\n")


def _run(name: str, swap: tuple[int, str] | None, watched: dict[int, set[str]]) -> dict[int, dict]:
    """The solution notebook run from the top (with ``swap``'s source in place of its cell) to the last watched cell:
    after each watched cell, the encoded values of its names. A cell that raises is a failure of the test."""
    nb = notebooks.read(course.solution_notebook(name))
    path = course.solution_notebook(name)
    client = notebooks.client(nb, path.parent, timeout=settings.CELL_TIMEOUT_S)
    seen = {}
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells[:max(watched) + 1]):
            if cell.cell_type != "code":
                continue
            if swap and index == swap[0]:
                cell.source = swap[1]
            client.execute_cell(cell, index)
            error = notebooks.first_error(cell)
            assert not error, f"{name}: cell {index} raised {error[0]}: {error[1][:300]}"
            if index in watched:
                probe = _capture(watched[index])
                client.execute_cell(probe, index)
                text = "".join(o.get("text", "") for o in probe.outputs if o.get("output_type") == "stream")
                seen[index] = json.loads(text.strip().splitlines()[-1])
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("name", course.assignments())
def test_plain_cells_give_the_same_results_whether_a_right_answer_writes_in_place_or_not(name):
    cases = _cases(name)
    if not cases:
        pytest.skip(f"{name}: no plain cell reuses an answer that has a right variant writing in place where the "
                    "solution does not (or the other way round)")
    nb = notebooks.read(course.solution_notebook(name))
    users = demos(nb)
    watched = {}
    for index, _ in cases:
        for user in users[index]:
            read, assigned = _names(nb.cells[user].source)
            watched[user] = read | assigned
    reference = _run(name, None, watched)
    problems = []
    for index, source in cases:
        mine = {user: watched[user] for user in users[index]}
        got = _run(name, (index, source), mine)
        grade_id = notebooks.grading(nb.cells[index])["grade_id"]
        for user, values in got.items():
            for variable, encoded in values.items():
                why = rules.same(encoded, reference[user][variable], rtol=RTOL, atol=ATOL)
                if why:
                    first = source.strip().splitlines()[0]
                    problems.append(f"cell {user} after {grade_id}'s right answer {first!r}...: `{variable}` {why}")
    assert not problems, f"{name}: plain cells that depend on how a right answer is written:\n" + "\n".join(problems)


@pytest.mark.parametrize(("source", "writes"), [
    ("def step(p, g, v, lr, mu):\n    v.mul_(mu).add_(g)\n    p.add_(v, alpha=-lr)\n    return p, v\n", True),
    ("def step(p, g, v, lr, mu):\n    v = mu * v + g\n    p -= lr * v\n    return p, v\n", True),
    ("def step(p, g, v, lr, mu):\n    v = mu * v + g\n    return p - lr * v, v\n", False),
    ("def grad(f, x):\n    flat = x.detach().reshape(-1)\n    flat[0] = 1.0\n    return flat\n", True),
    ("def grad(f, x):\n    flat = x.detach().clone().reshape(-1)\n    flat[0] = 1.0\n    return flat\n", False),
    ("def init(m):\n    nn.init.zeros_(m.bias)\n", True),
    ("def leaf(f, x):\n    y = x.detach().requires_grad_()\n    f(y).backward()\n    return y.grad\n", False),
    ("def mlp(width, depth):\n    width += (-width) % 8\n    return nn.Linear(width, depth)\n", False),
    ("def step(model, opt, scaler):\n    scaler.unscale_(opt)\n    return model\n", False),
])
def test_writing_into_an_argument_is_read_from_the_source(source, writes):
    assert writes_into_an_argument(source) is writes
