"""One assignment as grading needs it: its solution and its lesson, read once per grading run and handed to every
stage (intake, compose, the reference run, the verdicts' rules, the feedback page, the rows of a submission that
could not run).

Everything is derived from the two notebooks as they were read: the graded cells and their points, which cells
the release gave nbgrader metadata, the hidden tests and their GRADER blocks, the written answers. The grader never
opens either file again during the run, so a solution edited while a class is being graded cannot give two students
two different assignments.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import nbformat
from nbformat import NotebookNode

from ..core import course, notebooks, regions


@dataclass(frozen=True)
class Assignment:
    name: str
    solution_file: bytes       # the solution notebook as stored: the reference run's key and the file it runs
    solution: NotebookNode     # the instructor's source: solutions, visible and hidden tests, GRADER blocks
    lesson: NotebookNode       # the student copy as released

    @cached_property
    def tests(self) -> dict[str, NotebookNode]:
        """grade_id -> the solution's test cell, hidden tests included, in the notebook's order."""
        return {notebooks.grading(c)["grade_id"]: c for c in notebooks.test_cells(self.solution)}

    @cached_property
    def test_points(self) -> list[tuple[str, float, bool]]:
        """(grade_id, points, GPU-only) of each test cell."""
        return [(gid, float(notebooks.grading(c).get("points", 0)), notebooks.is_gpu_test_cell(c))
                for gid, c in self.tests.items()]

    @cached_property
    def written(self) -> list[tuple[str, float]]:
        """(grade_id, points) of each written answer (graded by hand)."""
        return [(notebooks.grading(c)["grade_id"], float(notebooks.grading(c).get("points", 0)))
                for c in self.solution.cells if notebooks.is_manual_cell(c)]

    @cached_property
    def released(self) -> dict[str, NotebookNode]:
        """grade_id -> the lesson's cell, for every cell the release gave nbgrader metadata (graded or locked)."""
        return {notebooks.grading(c)["grade_id"]: c for c in self.lesson.cells if notebooks.grading(c).get("grade_id")}

    @cached_property
    def visible(self) -> dict[str, str]:
        """grade_id -> what a student may see of the test cell (its hidden regions cut)."""
        return {gid: regions.visible(c.source)[0] for gid, c in self.tests.items()}

    @cached_property
    def grader_rules(self) -> dict:
        """Each test cell's GRADER rules, cell -> name -> rules.Rule (the course's code, compiled here): a block's rules
        serve its cell and the test cells after it."""
        from . import rules   # torch: only where records are judged

        return rules.notebook_rules([(gid, regions.grader_code(c.source)) for gid, c in self.tests.items()], self.name)

    def hidden_lines(self, min_length: int = 8) -> list[str]:
        """The lines of the hidden tests that are specific enough to look for in outputs."""
        return [line for cell in self.tests.values() for line in regions.hidden_lines(cell.source, min_length)]


def load(name: str) -> Assignment:
    """The assignment ``name``, read from solutions/ and lessons/ (each file once)."""
    solution_file = course.solution_notebook(name).read_bytes()
    return Assignment(name, solution_file, nbformat.reads(solution_file.decode("utf-8"), as_version=4),
                      notebooks.read(course.lesson_notebook(name)))
