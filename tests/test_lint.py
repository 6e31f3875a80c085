"""The code is linted (ruff's pyflakes rules and syntax errors): the packages, the bench, the tests, and the
code cells of the solution notebooks, where the hidden tests live.

Two findings are allowed in the notebooks, on purpose:
- F401 (an unused import) in a notebook's first code cell: its imports are the student's toolbox for
  every exercise below (tqdm, torch.nn.functional, a timing helper), used or not by the solution;
- F811 (a name imported again): each test cell imports the checks it uses, so it reads and reruns alone.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.core import course, notebooks

RULES = ["--select", "F,E9"]


def _ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed (requirements.txt)")
    return found


def _findings(*paths: Path) -> list[dict]:
    done = subprocess.run([_ruff(), "check", "--no-cache", "--output-format", "json", *RULES, *map(str, paths)],
                          cwd=course.ROOT, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def _where(f: dict) -> str:
    cell = f" cell {f['cell']}" if f.get("cell") else ""
    return f"{Path(f['filename']).relative_to(course.ROOT)}{cell}:{f['location']['row']}: {f['code']} {f['message']}"


def _first_code_cell(path: Path) -> int:
    """The 1-based position among all cells (ruff's numbering) of the notebook's first code cell."""
    cells = notebooks.read(path).cells
    return next(k for k, c in enumerate(cells, start=1) if c.cell_type == "code")


def test_python_code_is_clean():
    found = _findings(*(course.ROOT / name for name in ("autograder", "coursekit", "courselab", "bench", "tests")))
    assert not found, "\n".join(map(_where, found))


def test_solution_notebooks_are_clean_but_for_the_toolbox_imports():
    paths = [course.solution_notebook(name) for name in course.assignments()]
    setup = {str(p): _first_code_cell(p) for p in paths}
    found = [f for f in _findings(*paths) if not (f["code"] == "F811" or (
        f["code"] == "F401" and f.get("cell") == setup[f["filename"]]))]
    assert not found, "\n".join(map(_where, found))


def test_the_lint_sees_a_mistake(tmp_path):
    (tmp_path / "bad.py").write_text("import os\nprint(undefined_name)\n", encoding="utf-8")
    codes = {f["code"] for f in _findings(tmp_path / "bad.py")}
    assert codes == {"F401", "F821"}


# --- dead code (vulture) and undeclared imports (deptry) ------------------------------------------------------

def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (requirements.txt)")
    return found


def _notebook_code(folder: Path) -> Path:
    """The solution notebooks' code cells as Python files (magics turned into calls), so that what only a notebook
    uses (a coursekit helper, Raised.is_a in a GRADER block) counts as used."""
    from IPython.core.inputtransformer2 import TransformerManager

    folder.mkdir()
    transform = TransformerManager().transform_cell
    for name in course.assignments():
        cells = [c.source for c in notebooks.read(course.solution_notebook(name)).cells if c.cell_type == "code"]
        (folder / f"{name}.py").write_text("\n\n".join(transform(source) for source in cells), encoding="utf-8")
    return folder


def _unused(*paths: Path) -> list[str]:
    """vulture's findings at every confidence (60% and up), with tests/vulture_whitelist.py's framework hooks."""
    done = subprocess.run([_tool("vulture"), "--min-confidence", "60", *map(str, paths)],
                          cwd=course.ROOT, capture_output=True, text=True)
    assert done.returncode in (0, 3), done.stdout + done.stderr   # 3: something unused was found
    return done.stdout.splitlines()


def test_no_code_that_nothing_reads(tmp_path):
    """The packages, the bench and the tests, read together with the solution notebooks' cells. The notebooks'
    own findings are left out: a GRADER rule is named by a string (rule="..."), and a notebook's helpers are its
    own business (ruff checks them)."""
    cells = _notebook_code(tmp_path / "notebooks")
    found = [line for line in _unused(*(course.ROOT / n for n in ("autograder", "coursekit", "courselab", "bench", "tests")),
                                      cells) if not line.startswith(str(cells))]
    assert not found, ("unused code: remove it, or if a framework calls it by name, add it to tests/vulture_whitelist.py "
                       "with who reads it:\n" + "\n".join(found))


def test_vulture_sees_dead_code(tmp_path):
    (tmp_path / "dead.py").write_text("def never_called():\n    return 1\n\n\nclass Plan:\n    grader_code = {}\n",
                                      encoding="utf-8")
    found = "\n".join(_unused(tmp_path / "dead.py"))
    assert "never_called" in found and "grader_code" in found


def test_every_imported_package_is_declared():
    """deptry: every package the code and the notebooks import is in pyproject.toml's dependencies, and every
    dependency there is imported ([tool.deptry] says what it leaves out, and why)."""
    done = subprocess.run([_tool("deptry"), ".", "--no-ansi"], cwd=course.ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
