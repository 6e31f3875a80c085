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
