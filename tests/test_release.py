"""The student copies in lessons/ are exactly what `release` makes from solutions/, and leak nothing."""

from __future__ import annotations

import re

import pytest

from autograder.core import course, editions, notebooks
from autograder.authoring.release import generate, release_editions

MARKERS = re.compile(r"(BEGIN|END) (SOLUTION|HIDDEN TESTS)")


def _marked_regions(source: str, begin: str, end: str) -> list[str]:
    """Lines inside begin/end markers that are specific enough to recognise elsewhere."""
    lines, inside = [], False
    for line in source.splitlines():
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        elif inside and len(line.strip()) >= 12:
            lines.append(line.strip())
    return lines


def _outside_markers(source: str) -> list[str]:
    lines, inside = [], False
    for line in source.splitlines():
        if "BEGIN SOLUTION" in line or "BEGIN HIDDEN TESTS" in line:
            inside = True
        elif "END SOLUTION" in line or "END HIDDEN TESTS" in line:
            inside = False
        elif not inside:
            lines.append(line)
    return lines


@pytest.fixture(scope="module")
def fresh_release(tmp_path_factory, assignments):
    into = tmp_path_factory.mktemp("release")
    generate(assignments, into)
    release_editions(assignments, into, list(editions.EDITIONS.values()))   # lessons/<code>/: the shipped editions
    return into


def test_every_source_has_a_lesson_and_back(assignments):
    lessons = sorted(p.name for p in course.LESSONS.iterdir() if p.is_dir() and p.name not in editions.EDITIONS)
    assert lessons == assignments, "lessons/ and solutions/ must hold the same assignments: run `python -m autograder release`"


def test_sources_are_tidy(assignments):
    for name in assignments:
        path = course.solution_notebook(name)
        assert notebooks.dumps(notebooks.tidy(notebooks.read(path))) == path.read_text(encoding="utf-8"), (
            f"{path} is not tidy (cell ids, outputs or metadata): run `python -m autograder release {name}`")


def test_release_reproduces_committed_lessons(fresh_release, assignments):
    for name in assignments:
        produced = sorted(p.relative_to(fresh_release / name) for p in (fresh_release / name).rglob("*") if p.is_file())
        committed = sorted(p.relative_to(course.LESSONS / name) for p in (course.LESSONS / name).rglob("*")
                           if p.is_file() and ".ipynb_checkpoints" not in p.parts)
        assert produced == committed, f"lessons/{name} holds other files than a fresh release"
        for rel in produced:
            assert (fresh_release / name / rel).read_bytes() == (course.LESSONS / name / rel).read_bytes(), (
                f"lessons/{name}/{rel} differs from a fresh release: run `python -m autograder release {name}`")


def test_release_reproduces_every_edition(fresh_release):
    """lessons/<code>/ holds exactly what a fresh release makes of the shipped editions (core/editions.py)."""
    def files(folder):
        return sorted(p.relative_to(folder) for p in folder.rglob("*")
                      if p.is_file() and ".ipynb_checkpoints" not in p.parts) if folder.is_dir() else []

    for code in editions.EDITIONS:
        produced, committed = files(fresh_release / code), files(course.LESSONS / code)
        assert produced == committed, f"lessons/{code} holds other files than a fresh release: run `python -m autograder release`"
        for rel in produced:
            assert (fresh_release / code / rel).read_bytes() == (course.LESSONS / code / rel).read_bytes(), (
                f"lessons/{code}/{rel} differs from a fresh release: run `python -m autograder release {rel.parts[0]}`")


def test_lessons_hold_no_markers_solutions_or_hidden_tests(assignments):
    for name in assignments:
        lesson_text = course.lesson_notebook(name).read_text(encoding="utf-8")
        assert not MARKERS.search(lesson_text), f"nbgrader markers left in lessons/{name}"
        source = notebooks.read(course.solution_notebook(name))
        secret, public = [], set()
        for cell in source.cells:
            secret += _marked_regions(cell.source, "BEGIN SOLUTION", "END SOLUTION")
            secret += _marked_regions(cell.source, "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
            public |= {line.strip() for line in _outside_markers(cell.source)}
        lesson_lines = {line.strip() for c in notebooks.read(course.lesson_notebook(name)).cells for line in c.source.splitlines()}
        # A secret line that the source also shows openly (a demo cell, a hint) is no leak.
        leaked = [line for line in secret if line in lesson_lines and line not in public and not line.startswith("#")]
        assert not leaked, f"lessons/{name} contains solution or hidden-test lines: {leaked[:3]}"


def test_each_exercise_states_its_points(assignments):
    """The markdown above each solution cell announces the points its test cells are worth."""
    heading = re.compile(r"### Exercise [^\n]*\((\d+(?:\.\d+)?) points?\)")
    for name in assignments:
        cells = notebooks.read(course.solution_notebook(name)).cells
        for i, cell in enumerate(cells):
            if not notebooks.is_solution_cell(cell):
                continue
            intro = next((c.source for c in reversed(cells[:i]) if c.cell_type == "markdown"), "")
            match = heading.search(intro)
            gid = notebooks.grading(cell)["grade_id"]
            assert match, f"{name}: the markdown above {gid} needs a heading '### Exercise k (P points): ...'"
            points = 0.0
            for later in cells[i + 1:]:
                if notebooks.is_solution_cell(later):
                    break
                if notebooks.is_test_cell(later) and not notebooks.is_gpu_test_cell(later):  # GPU cells state their points apart
                    points += float(notebooks.grading(later)["points"])
            assert float(match.group(1)) == points, f"{name}/{gid}: heading says {match.group(1)} points, tests give {points:g}"
            assert "check looks for" in intro, f"{name}/{gid}: say what the check looks for"


def test_graded_cells_follow_the_conventions(assignments):
    for name in assignments:
        nb = notebooks.read(course.solution_notebook(name))
        tests = list(notebooks.test_cells(nb))
        exercises = [c for c in nb.cells if notebooks.is_solution_cell(c)]
        assert 3 <= len(exercises) <= 6, f"{name}: notebooks have 3 to 6 graded exercises, found {len(exercises)}"
        for cell in tests:
            meta = notebooks.grading(cell)
            assert meta["locked"] and meta["points"] > 0, f"{name}/{meta['grade_id']}: test cells are locked and worth points"
            assert "BEGIN HIDDEN TESTS" in cell.source, f"{name}/{meta['grade_id']}: every test cell needs hidden tests"
            assert "assert " not in cell.source.split("BEGIN HIDDEN TESTS")[0], (
                f"{name}/{meta['grade_id']}: visible checks use coursekit.checks (with hints), not bare assert")


def _decisions_in_the_kernel(source: str) -> list[str]:
    """What in a test cell's hidden region would decide in the student's kernel: an assert, a raise, a check_*
    call or another helper that raises on a wrong answer (everything must be sent with coursekit.hidden instead)."""
    import ast
    import textwrap

    from autograder.core import regions

    hidden = textwrap.dedent("\n".join(line.text for line in regions.lines(source) if line.region == "hidden"))
    found = []
    for node in ast.walk(ast.parse(hidden)):
        if isinstance(node, (ast.Assert, ast.Raise)):
            found.append(f"line {node.lineno}: {type(node).__name__.lower()}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
            deciding = name == "check" or name.startswith("check_") or name in ("expect_error", "runs", "passed")
            if deciding and owner != "hidden":
                found.append(f"line {node.lineno}: {owner + '.' if owner else ''}{name}(...)")
    return found


@pytest.mark.parametrize("name", course.assignments())
def test_hidden_tests_decide_nothing_in_the_kernel(name):
    """docs/hidden-tests.md: hidden regions send values with coursekit.hidden; they never compare, assert or raise."""
    problems = {}
    for cell in notebooks.test_cells(notebooks.read(course.solution_notebook(name))):
        found = _decisions_in_the_kernel(cell.source)
        if found:
            problems[notebooks.grading(cell)["grade_id"]] = found[:4]
    assert not problems, f"{name}: hidden tests that decide in the kernel: {problems}"


def test_the_kernel_decision_finder_sees_each_kind():
    source = ("v()\n### BEGIN HIDDEN TESTS\nassert x\ncheck_close(a, b)\nchecks.check_shape(out, (2, 3))\n"
              "spy.check_mode('x')\nhidden.check('n', v, rule='r')\n### END HIDDEN TESTS\n")
    assert [f.split(": ")[1] for f in _decisions_in_the_kernel(source)] == [
        "assert", "check_close(...)", "checks.check_shape(...)", "spy.check_mode(...)"]


def test_a_source_nbgrader_cannot_release_is_named(tmp_path, monkeypatch):
    """All assignments go through one nbgrader process; when one of them fails, the error names that one."""
    import nbformat

    from autograder.authoring import release

    def solution(source: str):
        cell = nbformat.v4.new_code_cell(source, metadata={"nbgrader": {
            "grade": False, "grade_id": "answer", "locked": False, "schema_version": 3, "solution": True, "task": False}})
        return nbformat.v4.new_notebook(cells=[cell])

    sources = tmp_path / "solutions"
    for name, source in (("aa_good", "### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n"),
                         ("bb_broken", "### BEGIN SOLUTION\nx = 1\n")):   # no END SOLUTION: nbgrader refuses it
        notebooks.write(solution(source), sources / name / f"{name}.ipynb")
    monkeypatch.setattr(course, "SOLUTIONS", sources)
    with pytest.raises(release.ReleaseError, match="could not release bb_broken:"):
        generate(["aa_good", "bb_broken"], tmp_path / "lessons")
