"""Mutation analysis of the hidden tests: ``python -m autograder mutants NN [GRADE_ID]``.

The variants of tests/variants/ are the mistakes the course's authors foresaw. Mutants are the ones nobody named:
each is the solution of one graded cell with one small change (mutation_operators.py: mutmut's operators and the
course's own for PyTorch), tried in place of the solution through the cell harness (harness.py) against the test
cells that follow it, exactly as a wrong variant is. A mutant that makes a test cell lose points is *killed*; one
that keeps every point *survived*. A survivor either shows a hole in the tests, or is *equivalent* (it computes the
same thing, or differs only where the words allow any answer): a person says so, with a one-line reason, in
``tests/mutants/NN.toml``::

    [equivalent]
    "3f9c0a1b2d" = "clamp(min=0) for relu: the same values and the same gradient everywhere"

The full run writes ``tests/mutants/NN.json`` (``--write``): per graded cell, the mutants tried, killed, equivalent
and the survivors; docs/promises.md shows each cell's score from it (``python -m autograder promises``). The goal
is 95% of the non-equivalent mutants killed in every graded cell. The suite tries a fixed sample of the killed
ones again (tests/test_variants.py), in the same run as the variants.

A mutant's id is a hash of its cell, its operator and the code it changes (not its line number), so an edit
elsewhere in the cell keeps every other mutant's id, and a reason given for one stays with it.
"""

from __future__ import annotations

import hashlib
import json
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..core import course, notebooks
from . import harness

MUTANTS_DIR = course.ROOT / "tests" / "mutants"
GOAL = 0.95                 # the share of non-equivalent mutants each graded cell's tests must kill
SAMPLE_PER_CELL = 3         # killed mutants of each cell the suite tries again
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


@dataclass(frozen=True)
class Mutant:
    id: str
    grade_id: str
    operator: str
    line: int          # the line of the cell where the change starts (1-based)
    before: str        # the code changed, as written
    after: str         # the same code, mutated
    source: str        # the whole cell with the change

    def label(self) -> str:
        before, after = _narrowed(" ".join(self.before.split()), " ".join(self.after.split()))
        return f"{self.id} line {self.line} [{self.operator}] {before} -> {after}"


def _common_ends(a, b) -> tuple[int, int]:
    """How many items two sequences (strings, lists of lines) share at their start, then at their end after that."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return start, end


def _narrowed(a: str, b: str, context: int = 24) -> tuple[str, str]:
    """The part of two lines that differs, with a little of what surrounds it."""
    start, end = _common_ends(a, b)
    lo = max(0, start - context)
    cut = (lambda s: ("..." if lo else "") + s[lo:len(s) - max(0, end - context)] + ("..." if end > context else ""))
    return cut(a), cut(b)


def _solution_lines(source: str) -> tuple[int, int] | None:
    """(first, last) 1-based lines strictly between the solution markers, or None."""
    lines = source.split("\n")
    starts = [i for i, line in enumerate(lines, 1) if line.strip() == BEGIN]
    ends = [i for i, line in enumerate(lines, 1) if line.strip() == END]
    if not starts or not ends:
        return None
    return starts[0] + 1, ends[-1] - 1


def _nodes(wrapper) -> list[tuple[object, int, int]]:
    """(node, first line, last line) of every node of a parsed cell, in the order they are written."""
    import libcst as cst
    from libcst.metadata import PositionProvider

    found = []

    class Nodes(cst.CSTVisitor):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def on_visit(self, node: cst.CSTNode) -> bool:
            try:
                where = self.get_metadata(PositionProvider, node)
            except KeyError:
                return True
            found.append((node, where.start.line, where.end.line))
            return True

    wrapper.visit(Nodes())
    return found


def mutants_of(source: str, grade_id: str) -> list[Mutant]:
    """Every mutant of the solution region of one cell (the code between the solution markers), each once."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper

    from .mutation_operators import OPERATORS

    span = _solution_lines(source)
    if span is None:
        return []
    first, last = span
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError:
        return []
    module = wrapper.module
    seen, found, counts = {source}, [], {}
    for node, start, end in _nodes(wrapper):
        if start < first or end > last:
            continue
        for name, (node_type, operator) in OPERATORS.items():
            if not isinstance(node, node_type):
                continue
            for changed in operator(node):
                code = module.deep_replace(node, changed).code
                if code in seen:
                    continue
                try:
                    compile(code, "<mutant>", "exec")
                except SyntaxError:
                    continue
                seen.add(code)
                line, before, after = _changed_lines(source, code)
                key = (name, before, after)
                counts[key] = counts.get(key, 0) + 1
                digest = hashlib.sha1(f"{grade_id}|{name}|{before}|{after}|{counts[key]}".encode()).hexdigest()[:10]
                found.append(Mutant(digest, grade_id, name, line, before, after, code))
    return found


def _changed_lines(original: str, mutated: str) -> tuple[int, str, str]:
    """(first line, original lines, mutated lines) of the part of a cell a mutation changed."""
    a, b = original.split("\n"), mutated.split("\n")
    top, bottom = _common_ends(a, b)
    return top + 1, "\n".join(a[top:len(a) - bottom]).strip(), "\n".join(b[top:len(b) - bottom]).strip()


def solution_cells(assignment: str) -> dict[str, str]:
    """grade_id -> source of each graded solution cell (an autograded answer) of the assignment."""
    nb = notebooks.read(course.solution_notebook(assignment))
    return {notebooks.grading(c)["grade_id"]: c.source for c in nb.cells if notebooks.is_solution_cell(c)}


def all_mutants(assignment: str, grade_id: str | None = None) -> list[Mutant]:
    cells = solution_cells(assignment)
    if grade_id is not None and grade_id not in cells:
        raise SystemExit(f"{assignment} has no graded answer cell {grade_id!r}; it has: {', '.join(cells)}")
    return [m for gid, source in cells.items() if grade_id in (None, gid) for m in mutants_of(source, gid)]


def equivalent(assignment: str) -> dict[str, str]:
    """Mutant id -> the reason a person gave for it computing what the words ask (tests/mutants/NN.toml)."""
    path = MUTANTS_DIR / f"{assignment}.toml"
    if not path.is_file():
        return {}
    with open(path, "rb") as f:
        table = tomllib.load(f).get("equivalent", {})
    return {str(k): str(v) for k, v in table.items()}


@dataclass
class CellScore:
    grade_id: str
    mutants: int = 0
    killed: int = 0
    equivalent: int = 0
    survivors: list[str] = field(default_factory=list)      # labels of the mutants that survived
    equivalents: list[str] = field(default_factory=list)    # labels, each with its reason

    @property
    def score(self) -> float:
        relevant = self.mutants - self.equivalent
        return 1.0 if relevant == 0 else self.killed / relevant


def killed(outcome: harness.Outcome) -> bool:
    """Whether a mutant is killed: grading would take points (a test cell scored lower, or the run stopped), or the
    mutated cell cannot even run (a student's answer that raises loses the points of the tests that need it)."""
    return outcome.lost_points or bool(outcome.own_error)


def analyse(assignment: str, grade_id: str | None = None, jobs: int = 1, progress: bool = False) -> dict:
    """Run every mutant of ``assignment`` (or of one cell) and score each cell; the run's record as a dict."""
    from .variants import load_file

    mutants = all_mutants(assignment, grade_id)
    reasons = equivalent(assignment)
    start = time.monotonic()
    trials = [harness.Trial(m.id, m.grade_id, m.source, first_catch=True) for m in mutants]
    outcomes = harness.run(assignment, trials, leave_out=load_file(assignment)["LEAVE_OUT"], jobs=jobs,
                           progress=progress) if trials else []
    cells: dict[str, CellScore] = {gid: CellScore(gid) for gid in solution_cells(assignment) if grade_id in (None, gid)}
    killed_ids = []
    for mutant, outcome in zip(mutants, outcomes):
        cell = cells[mutant.grade_id]
        cell.mutants += 1
        if killed(outcome):
            cell.killed += 1
            killed_ids.append(mutant.id)
        elif mutant.id in reasons:
            cell.equivalent += 1
            cell.equivalents.append(f"{mutant.label()}: {reasons[mutant.id]}")
        else:
            cell.survivors.append(mutant.label())
    stale = sorted(set(reasons) - {m.id for m in (mutants if grade_id is None else all_mutants(assignment))})
    return {"assignment": assignment, "seconds": round(time.monotonic() - start, 1),
            "cells": {gid: {**asdict(c), "score": round(c.score, 4)} for gid, c in cells.items()},
            "killed": sorted(killed_ids), "stale_reasons": stale}


def results_path(assignment: str) -> Path:
    return MUTANTS_DIR / f"{assignment}.json"


def read_results(assignment: str) -> dict | None:
    path = results_path(assignment)
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def sample(assignment: str) -> list[Mutant]:
    """The killed mutants the suite tries again: per cell, the ``SAMPLE_PER_CELL`` with the smallest ids that the
    recorded run killed (a fixed choice, so a run that kills fewer shows)."""
    recorded = read_results(assignment)
    if not recorded:
        return []
    killed = set(recorded["killed"])
    chosen: dict[str, list[Mutant]] = {}
    for mutant in sorted(all_mutants(assignment), key=lambda m: m.id):
        if mutant.id in killed and len(chosen.setdefault(mutant.grade_id, [])) < SAMPLE_PER_CELL:
            chosen[mutant.grade_id].append(mutant)
    return [m for group in chosen.values() for m in group]


def report(assignment: str, grade_id: str | None = None, write: bool = False, jobs: int = 1) -> int:
    """Print each cell's score and its survivors; with ``write``, record the run in tests/mutants/NN.json."""
    record = analyse(assignment, grade_id, jobs=jobs, progress=True)
    below = []
    for gid, cell in record["cells"].items():
        print(f"{assignment} {gid:<24} {cell['killed']:>4}/{cell['mutants'] - cell['equivalent']:<4} killed "
              f"({cell['score']:.0%}), {cell['equivalent']} equivalent")
        for label in cell["survivors"]:
            print(f"    survived: {label}")
        if cell["score"] < GOAL:
            below.append(gid)
    for stale in record["stale_reasons"]:
        print(f"    tests/mutants/{assignment}.toml names {stale}, which is no longer a mutant: remove it")
    print(f"{assignment}: {record['seconds']:.0f} s")
    if write:
        if grade_id is not None:
            previous = read_results(assignment) or {"cells": {}, "killed": []}
            kept = [k for k in previous["killed"] if not any(k == m.id for m in all_mutants(assignment, grade_id))]
            record = {**record, "cells": {**previous["cells"], **record["cells"]},
                      "killed": sorted(set(kept) | set(record["killed"]))}
        MUTANTS_DIR.mkdir(exist_ok=True)
        results_path(assignment).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 1 if below else 0
