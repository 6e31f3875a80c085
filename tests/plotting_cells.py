"""Which cells of a notebook draw a figure, found by reading the code (no execution).

A cell draws when its top-level code (not a function or class it only defines) calls a plotting function:
a helper of ``coursekit.plots``, anything on ``plt`` (pyplot), an Axes drawing method (``ax.plot``,
``ax.imshow``...), or a function the notebook defines whose body draws (found to a fixed point, so a
helper calling a helper counts). Used by tests/test_student_plots.py and tests/test_browser.py.
"""

from __future__ import annotations

import ast
import re

import nbformat

from coursekit import plots

# Axes and Figure methods that draw something new. Left out on purpose: annotations, and `step`, which
# is far more often an optimizer's or a scheduler's than a staircase plot.
DRAWING_METHODS = {
    "plot", "imshow", "matshow", "bar", "barh", "scatter", "hist", "loglog", "semilogx", "semilogy",
    "fill_between", "errorbar", "contour", "contourf", "pcolormesh", "stem", "pie", "boxplot",
    "violinplot", "subplots", "add_subplot",
}
PYPLOT_NAMES = {"plt", "pyplot"}
# Calls that would hide a figure from a student's notebook (close it, or switch to a backend without display).
FIGURE_HIDERS = re.compile(r"\bplt\.close\(|matplotlib\.use\(|^\s*%matplotlib\b|\bplt\.ioff\(", re.MULTILINE)


def _parse(source: str) -> ast.Module | None:
    # IPython magics and shell escapes are not Python: blank them out, keeping line numbers.
    code = "\n".join("pass" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def _called_name(call: ast.Call) -> tuple[str | None, str | None]:
    """(base, name) of a call: plt.plot(...) -> ("plt", "plot"); show_digits(...) -> (None, "show_digits")."""
    func = call.func
    if isinstance(func, ast.Name):
        return None, func.id
    if isinstance(func, ast.Attribute):
        base = func.value.id if isinstance(func.value, ast.Name) else None
        return base, func.attr
    return None, None


def _draws(nodes, plotting_functions: set[str]) -> bool:
    for node in nodes:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                base, name = _called_name(inner)
                if base in PYPLOT_NAMES or name in plotting_functions or (base is not None and name in DRAWING_METHODS):
                    return True
    return False


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """Statements that run when the cell runs (definitions and imports only define names)."""
    skip = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
    return [stmt for stmt in tree.body if not isinstance(stmt, skip)]


def plotting_functions(nb: nbformat.NotebookNode) -> set[str]:
    """coursekit's plot helpers and the notebook's own functions that draw."""
    known = set(plots.__all__)
    defs = {}
    for cell in nb.cells:
        tree = _parse(cell.source) if cell.cell_type == "code" else None
        for stmt in (tree.body if tree else []):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs[stmt.name] = stmt.body
    while True:
        new = {name for name, body in defs.items() if name not in known and _draws(body, known)}
        if not new:
            return known
        known |= new


def plotting_cells(nb: nbformat.NotebookNode) -> list[int]:
    """Indices of the code cells whose top-level code draws a figure."""
    functions = plotting_functions(nb)
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tree = _parse(cell.source)
        if tree is not None and _draws(_top_level(tree), functions):
            found.append(index)
    return found


def images(cell: nbformat.NotebookNode) -> int:
    """How many PNG images a cell's outputs hold."""
    return sum(1 for out in cell.get("outputs", [])
               if out.get("output_type") in ("display_data", "execute_result") and "image/png" in out.get("data", {}))
