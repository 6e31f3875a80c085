"""The autograder's rooms, and the rules of the house (docs/architecture.md walks through them).

- ``core`` (facts every room shares), ``grading`` (one submission, from intake to feedback), ``scale``
  (a class: grade over a folder, shards, merge, clusters), ``classroom`` (the nbgrader course around the
  grader: gradebook, Formgrader's copies, feedback for release_feedback), ``authoring`` (release, check, variants,
  promises), then the command line on top. A module imports only from its own room and the rooms below,
  function-level imports included; within a room, no import goes round in a circle.
- What runs in the student's kernel (the guard, coursekit) never imports the grader.
- docs/architecture.md names every module, and its Layout every room, coursekit module and top-level folder.
"""

from __future__ import annotations

import ast
import subprocess

import pytest

from autograder.core import course

PACKAGE = course.ROOT / "autograder"
ROOMS = ["core", "grading", "scale", "classroom", "authoring"]          # bottom first
TOP = {"cli", "__main__", "__init__"}
EXPECTED = {
    "core": {"settings", "course", "notebooks", "regions", "processes", "inert", "student_files", "csv_safe", "editions"},
    "grading": {"assignment", "intake", "compose", "job", "sandbox", "kernel_guard", "execute", "runner", "reference", "rules",
                "verdicts", "integrity", "scoring", "feedback", "results", "submission"},
    "scale": {"grade", "timings", "progress", "shards", "shard_results", "merge", "cluster", "estimate", "slurm",
              "kubernetes"},
    "classroom": {"nbgrader_course", "gradebook", "formgrader_copy", "nbgrader_autograde", "nbgrader_collect",
                  "nbgrader_export", "nbgrader_release", "similarity", "fingerprints", "code_structure", "prose",
                  "similarity_report"},
    "authoring": {"nbgrader_run", "nbval_tags", "release", "check", "harness", "variants", "mutants", "mutation_operators",
                  "promises", "show", "options", "units", "catalogs", "translate", "links"},
}


def modules() -> dict[str, str]:
    """'room.module' (or 'module' on top) -> its room ('top' for the command line)."""
    found = {p.stem: "top" for p in PACKAGE.glob("*.py")}
    for room in ROOMS:
        found |= {f"{room}.{p.stem}": room for p in (PACKAGE / room).glob("*.py") if p.stem != "__init__"}
    return found


def _path(module: str):
    return PACKAGE / (module.replace(".", "/") + ".py")


def imports(module: str) -> set[str]:
    """The autograder modules ``module`` imports, as 'room.module' (or a room, for ``from .. import room``)."""
    room = module.split(".")[0] if "." in module else None
    tree = ast.parse(_path(module).read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if not (node.module or "").startswith("autograder"):
                    continue
                base = (node.module or "").split(".")[1:]
            elif node.level == 1:
                base = ([room] if room else []) + (node.module.split(".") if node.module else [])
            else:
                base = node.module.split(".") if node.module else []
            if len(base) >= 2:
                found.add(".".join(base[:2]))
            else:
                found |= {".".join(base + [alias.name]) if base else alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {".".join(a.name.split(".")[1:3]) for a in node.names if a.name.startswith("autograder.")}
    return {name for name in found if name and name != module}


def _room_of(name: str) -> str:
    first = name.split(".")[0]
    return first if first in ROOMS else "top"


def test_the_rooms_hold_what_they_should():
    found = {room: {p.stem for p in (PACKAGE / room).glob("*.py")} - {"__init__"} for room in ROOMS}
    assert found == EXPECTED, "a module was added, moved or removed: update EXPECTED and docs/architecture.md"
    assert {p.stem for p in PACKAGE.glob("*.py")} == TOP
    for room in ROOMS:
        assert ast.get_docstring(ast.parse((PACKAGE / room / "__init__.py").read_text(encoding="utf-8"))), room


def test_every_import_points_down_or_stays_in_its_room():
    order = {room: level for level, room in enumerate(ROOMS + ["top"])}
    upward = []
    for module, room in modules().items():
        for imported in imports(module):
            if order[_room_of(imported)] > order[room]:
                upward.append(f"{module} ({room}) imports {imported} ({_room_of(imported)})")
    assert not upward, "imports that point up:\n" + "\n".join(upward)


def test_no_import_cycle_within_a_room():
    graph = {m: {i for i in imports(m) if i in modules()} for m in modules()}
    done, active, cycles = set(), [], []

    def visit(node):
        if node in active:
            cycles.append(active[active.index(node):] + [node])
            return
        if node in done:
            return
        active.append(node)
        for nxt in graph.get(node, ()):
            visit(nxt)
        active.pop()
        done.add(node)

    for module in graph:
        visit(module)
    assert not cycles, f"import cycles: {cycles[:3]}"


def test_settings_is_the_bottom_and_the_kernel_side_imports_no_grader():
    assert imports("core.settings") == set()
    for path in [PACKAGE / "grading" / "kernel_guard.py", *sorted((course.ROOT / "coursekit").glob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] + \
                [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [n for n in names if n.startswith("autograder")], f"{path.name} runs in the kernel: no grader imports"
        if path.name == "kernel_guard.py":
            assert not [n for n in names if n.startswith(".")], "the guard is loaded from its file, alone"


def test_architecture_page_names_every_module_and_the_readme_every_room():
    page = (course.ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [m for m in modules() if m not in TOP and f"{m.split('.')[-1]}.py" not in page]
    assert not missing, f"docs/architecture.md does not mention {missing}"
    layout = _layout()
    assert all(f"{room}/" in layout for room in ROOMS), "the Layout of docs/architecture.md must name each room"


def _layout() -> str:
    """The Layout section of docs/architecture.md (the README points there)."""
    page = (course.ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    layout = page[page.index("## Layout"):]
    return layout[:layout.index("\n## ", 1)]


def test_the_layout_names_every_helper_module_and_top_level_folder():
    layout = _layout()
    helpers = [p.name for p in (course.ROOT / "coursekit").glob("*.py") if p.name != "__init__.py"]
    folders = ["solutions/", "lessons/", "translations/", "coursekit/", "autograder/", "courselab/", "jupyter/", "bench/",
               "tests/", "docs/"]
    missing = [name for name in helpers + folders if name not in layout]
    assert not missing, f"the Layout of docs/architecture.md does not mention {missing}: add a line for each"
    # Every folder at the top of the repository that git tracks is in that list (hidden ones aside).
    listed = subprocess.run(["git", "ls-files"], cwd=course.ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked folders are unknown")
    top = {line.split("/")[0] + "/" for line in listed.stdout.splitlines() if "/" in line and not line.startswith(".")}
    unlisted = sorted(top - set(folders))
    assert not unlisted, f"top-level folders missing from the Layout of docs/architecture.md: {unlisted}"
