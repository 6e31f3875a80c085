"""The autograder is a stack of small rooms: every import points down, none in a circle.

Levels, bottom first (a module may import only from lower levels, function-level imports included):
settings, kernel_guard and course know nothing of the rest; notebooks, results, sandbox and intake
build on them; then compose and execute; then integrity and feedback; then scoring; then the
commands (grade, release, check, variants, promises, and the cluster tools); cli, then the package's
entry points, on top.
"""

from __future__ import annotations

import ast
import subprocess

import pytest

from autograder import course

PACKAGE = course.ROOT / "autograder"
LEVELS = [
    {"settings", "kernel_guard", "course"},
    {"notebooks", "results", "sandbox", "intake", "nbgrader_run", "timings"},
    {"compose", "execute", "shards", "progress", "cluster"},
    {"integrity", "feedback", "shard_results", "estimate"},
    {"scoring"},
    {"grade", "release", "check", "variants", "merge", "kubernetes"},
    {"promises", "slurm"},
    {"cli"},
    {"__main__", "__init__"},
]


def _imports(module: str) -> set[str]:
    """Sibling modules of the package that ``module`` imports, anywhere in its body."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif node.level == 1:
                found |= {alias.name for alias in node.names}
            elif node.module and node.module.split(".")[0] == "autograder":
                parts = node.module.split(".")
                found |= {parts[1]} if len(parts) > 1 else {alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("autograder.")}
    return found - {module}


def _level(module: str) -> int:
    for number, members in enumerate(LEVELS):
        if module in members:
            return number
    raise AssertionError(f"autograder/{module}.py has no level in tests/test_architecture.py: add it to LEVELS")


def test_every_import_points_down():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py"))
    upward = []
    for module in modules:
        for imported in _imports(module):
            if _level(imported) >= _level(module):
                upward.append(f"{module} (level {_level(module)}) imports {imported} (level {_level(imported)})")
    assert not upward, "imports that point up or sideways:\n" + "\n".join(upward)


def test_settings_is_the_bottom():
    assert _imports("settings") == set()


def test_readme_layout_names_every_helper_module_and_top_level_folder():
    readme = (course.ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout"):]
    layout = layout[:layout.index("\n## ", 1)]
    helpers = [p.name for p in (course.ROOT / "coursekit").glob("*.py") if p.name != "__init__.py"]
    folders = ["solutions/", "lessons/", "coursekit/", "autograder/", "courselab/", "jupyter/", "bench/", "tests/", "docs/"]
    missing = [name for name in helpers + folders if name not in layout]
    assert not missing, f"README's Layout does not mention {missing}: add a line for each"
    # Every folder at the top of the repository that git tracks is in that list (hidden ones aside).
    listed = subprocess.run(["git", "ls-files"], cwd=course.ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked folders are unknown")
    top = {line.split("/")[0] + "/" for line in listed.stdout.splitlines() if "/" in line and not line.startswith(".")}
    unlisted = sorted(top - set(folders))
    assert not unlisted, f"top-level folders missing from README's Layout: {unlisted}"
