"""Trying other answers against a notebook's tests, the way an instructor vets hidden tests.

A variants file ``tests/variants/<assignment>.py`` defines dicts keyed by a solution cell's grade_id,
each mapping a class of mistake (coursekit.testing.CLASSES) to a list of cell sources:

- ``WRONG``: plausible mistakes of that class; each must make a test cell right after that solution
  cell fail;
- ``RIGHT``: other correct answers, written the other ways that class allows; each must leave every
  test cell passing;
- ``ONE_WAY`` (optional): classes of a cell that have one correct spelling only, with the reason;
- ``NOT_TESTED`` (optional): classes that seem to apply to a cell but are deliberately not tested
  there, with the reason;
- ``LEAVE_OUT`` (optional): plain (ungraded) cells this run skips, each named by its first line, with
  the reason: a long run that only plots and prose read, before a cell that has variants. If a test
  cell did read what one makes, the solution would fail that test here, loudly.

Together they are the table of promises, docs/promises.md (``python -m autograder promises``).

Everything runs in one kernel per notebook: the source notebook (hidden tests included) is executed
top to bottom, and at each solution cell that has variants, each variant is run followed by the
test cells it feeds, then the real solution is run again before moving on. The run ends with the
last variant of the last cell that has any: what follows cannot change a verdict, and the grading
tests already run every solution to its end with full marks.

Each variant is judged as grading judges a submission: its test cells run as the grader composes them
(compose.test_cell_source), their records leave the kernel on a channel of their own, and verdicts.py
judges them against the reference run of the solution (the one grading uses, from the grader's cache or
run now, in the sandbox where there is one). A wrong answer is caught when a test cell would lose
points (scoring.cell_score); a right one must keep every point. A wrong answer's run stops at the first
check that fails (Judge.run_tests): its report names the test cell that caught it first.
"""

from __future__ import annotations

import ast
import copy
import os
import runpy
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..core import course, notebooks, settings
from ..grading import compose, reference, runner, sandbox, scoring, verdicts
from ..grading.assignment import load as load_assignment
from ..grading.job import Limits
from ..grading.rules import error_name

VARIANTS_DIR = course.ROOT / "tests" / "variants"


@dataclass
class VariantResult:
    cell: str
    kind: str  # "wrong" or "right"
    index: int
    mistake: str  # the class of mistake (coursekit.testing.CLASSES)
    failing_tests: list[str]  # test cells that raised with this variant in place
    messages: list[str]

    @property
    def ok(self) -> bool:
        return bool(self.failing_tests) if self.kind == "wrong" else not self.failing_tests


Variants = dict[str, dict[str, list[str]]]  # cell -> class of mistake -> sources


def _by_class(table: dict) -> Variants:
    """Accept a plain list of sources for a cell as its 'values' class."""
    return {cell: (entry if isinstance(entry, dict) else {"values": list(entry)}) for cell, entry in table.items()}


def load_file(assignment: str) -> dict[str, dict]:
    """Everything a variants file declares: WRONG, RIGHT, ONE_WAY and NOT_TESTED, by cell and class."""
    path = VARIANTS_DIR / f"{assignment}.py"
    namespace = runpy.run_path(str(path)) if path.is_file() else {}
    return {"WRONG": _by_class(namespace.get("WRONG", {})), "RIGHT": _by_class(namespace.get("RIGHT", {})),
            "ONE_WAY": namespace.get("ONE_WAY", {}), "NOT_TESTED": namespace.get("NOT_TESTED", {}),
            "LEAVE_OUT": namespace.get("LEAVE_OUT", {})}


def load_variants(assignment: str) -> tuple[Variants, Variants]:
    declared = load_file(assignment)
    return declared["WRONG"], declared["RIGHT"]


def _error(cell) -> str | None:
    """The cell's error, if any."""
    error = notebooks.first_error(cell)
    return f"{error[0]}: {error[1]}"[:300] if error else None


def tests_after(nb, index: int) -> list[int]:
    """Indices of the test cells between solution cell ``index`` and the next solution cell."""
    found = []
    for j in range(index + 1, len(nb.cells)):
        if notebooks.is_solution_cell(nb.cells[j]):
            break
        if notebooks.is_test_cell(nb.cells[j]):
            found.append(j)
    return found


def varied_cells(nb, wrong: Variants, right: Variants) -> list[int]:
    """Indices of the solution cells that have variants, in notebook order."""
    named = set(wrong) | set(right)
    return [i for i, c in enumerate(nb.cells) if notebooks.is_solution_cell(c) and notebooks.grading(c)["grade_id"] in named]


def judged_with_a_correct_answer(nb, wrong: Variants, right: Variants) -> set[int]:
    """Indices of the test cells the variants run judges with a correct answer in place: those of every solution cell
    it runs before the last one that has variants, and that last one's when it has RIGHT variants (the run stops
    there)."""
    varied = varied_cells(nb, wrong, right)
    if not varied:
        return set()
    judged = {j for i, c in enumerate(nb.cells[:varied[-1]]) if notebooks.is_solution_cell(c) for j in tests_after(nb, i)}
    if right.get(notebooks.grading(nb.cells[varied[-1]])["grade_id"]):
        judged |= set(tests_after(nb, varied[-1]))
    return judged


def _trials(wrong: Variants, right: Variants, grade_id: str) -> list[tuple[str, str, int, str]]:
    """(kind, mistake, number, source) of every variant of cell ``grade_id``."""
    return [(kind, mistake, number, source)
            for kind, table in (("wrong", wrong), ("right", right))
            for mistake, sources in table.get(grade_id, {}).items()
            for number, source in enumerate(sources)]


class Channel:
    """The grader's channel for a local kernel: a file the kernel appends records to, read after each cell."""

    def __init__(self, folder: Path):
        self.path = folder / "channel.jsonl"
        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.read_from = 0

    def new_records(self) -> list[dict]:
        import json

        with open(self.path, "rb") as f:
            f.seek(self.read_from)
            data = f.read()
        end = data.rfind(b"\n") + 1
        self.read_from += end
        found = []
        for line in data[:end].decode("utf-8", errors="replace").splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
        return found

    def close(self) -> None:
        os.close(self.fd)


@dataclass
class Judge:
    """Runs test cells the way grading composes them and judges their records against the reference."""
    client: object
    channel: Channel
    reference: reference.Reference
    nb: object

    def run_tests(self, indices: list[int], first_catch: bool = False) -> dict[str, tuple[float, float, str]]:
        """grade_id -> (score, points, first failure in words) of the test cells at ``indices``, run now.

        With ``first_catch`` (a WRONG variant, which one lost point proves caught) the run stops at the first check
        that fails: each test cell runs piece by piece (``_pieces``), its records judged after each piece, and no
        test cell runs after the one that caught it. A check that failed stays failed whatever follows, so the
        verdict is the one the whole cell would get; only the time is saved (a hidden test often trains a model
        after its quick checks)."""
        outcome = {}
        for j in indices:
            if notebooks.is_gpu_test_cell(self.nb.cells[j]):
                continue   # the reference is a CPU runner's: a GPU-only cell is graded on a GPU runner only
            original = self.nb.cells[j]
            test = copy.deepcopy(original)
            gid = notebooks.grading(test)["grade_id"]
            points = float(notebooks.grading(test).get("points", 0))
            source = compose.test_cell_source(test.source, gid)
            self.channel.new_records()   # whatever came before belongs to other cells
            records: list[dict] = []
            for piece in (_pieces(source) if first_catch and points > 0 else [source]):
                test.source = piece
                test.outputs = []
                self.client.execute_cell(test, j)
                records += self.channel.new_records()
                if first_catch and (notebooks.first_error(test) or _reported_failures(self.judge(records, gid))):
                    break
            self.nb.cells[j] = original   # nbclient stores the cell it ran in the notebook: keep the test as written
            judged = self.judge(records, gid)
            error = notebooks.first_error(test)
            score, _ = scoring.cell_score(points, judged, error is not None, trusted=True)
            failed, reported = [c for c in judged.checks if not c.passed], _reported_failures(judged)
            why = (f"{reported[0].name}: {reported[0].message}" if reported
                   else f"the cell raised {error_name([error[0]])}: {error[1]}" if error
                   else failed[0].message if failed else "")
            outcome[gid] = (score, points, why[:400])
            if first_catch and score < points:
                break
        return outcome

    def judge(self, records: list[dict], gid: str) -> verdicts.CellChecks:
        """Test cell ``gid``'s checks judged against the reference, from the records it has sent so far."""
        return verdicts.judge(self.reference.records, records, self.reference.rules, cells={gid}).get(gid, verdicts.CellChecks(gid))


def _reported_failures(judged: verdicts.CellChecks) -> list[verdicts.Check]:
    """The checks that reported and failed (one that has not reported yet may still pass)."""
    return [c for c in judged.checks if not c.passed and c.message != verdicts.NOT_REPORTED]


def _pieces(source: str) -> list[str]:
    """A test cell cut after each top-level statement that sends a record (one that mentions ``hidden.``), so that
    its records can be judged as they come. Top-level statements run one after another in a cell anyway, so the
    pieces run as the whole would; a cell that is not plain Python (a magic) stays whole."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return [source]
    lines = source.splitlines(keepends=True)
    cuts = [node.end_lineno for k, node in enumerate(body)
            if "hidden." in ast.get_source_segment(source, node) and
            (k + 1 == len(body) or body[k + 1].lineno > node.end_lineno)]
    pieces, start = [], 0
    for cut in cuts:
        pieces.append("".join(lines[start:cut]))
        start = cut
    rest = "".join(lines[start:])
    if rest.strip() or not pieces:
        pieces.append(rest)
    return pieces


def _trial(judge: Judge, index: int, assignment: str, kind: str, mistake: str, number: int, source: str) -> VariantResult:
    """Run one variant in place of solution cell ``index``, then the test cells that follow it."""
    cell = judge.nb.cells[index]
    grade_id = notebooks.grading(cell)["grade_id"]
    trial = copy.deepcopy(cell)
    trial.source = source
    judge.client.execute_cell(trial, index)
    if _error(trial):  # a variant that cannot even run proves nothing about the tests
        raise ValueError(f"{assignment} {kind} {mistake} variant #{number} of {grade_id} fails on its own: {_error(trial)}")
    failing, messages = [], []
    for gid, (score, points, why) in judge.run_tests(tests_after(judge.nb, index), first_catch=kind == "wrong").items():
        if score < points:
            failing.append(gid)
            messages.append(why)
    return VariantResult(grade_id, kind, number, mistake, failing, messages)


def local_reference(assignment: str, scratch: Path) -> reference.Reference:
    """The reference run grading would use on a CPU runner: from the cache, or run now (in the sandbox where
    bubblewrap works; the course's own solution needs no box, so without one it runs plainly)."""
    box = runner.Box(Limits(), "cpu", sandbox.unavailable_reason() is None, sandbox.data_folders(), None)
    return reference.load(load_assignment(assignment), box, scratch)


def _first_line(cell) -> str:
    return cell.source.strip().partition("\n")[0].strip()


def left_out(nb, assignment: str, leave_out: dict[str, str]) -> set[int]:
    """Indices of the cells named in LEAVE_OUT: each name must match exactly one plain code cell."""
    found = set()
    for line in leave_out:
        matches = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and _first_line(c) == line.strip()]
        if len(matches) != 1:
            raise ValueError(f"{assignment} LEAVE_OUT {line!r} should name one code cell by its first line; "
                             f"it matches {len(matches)}")
        if notebooks.grading(nb.cells[matches[0]]):
            raise ValueError(f"{assignment} LEAVE_OUT {line!r} is a graded cell: only plain cells may be left out")
        found |= set(matches)
    return found


def try_variants(assignment: str) -> list[VariantResult]:
    declared = load_file(assignment)
    wrong, right = declared["WRONG"], declared["RIGHT"]
    path = course.solution_notebook(assignment)
    nb = notebooks.read(path)
    ids = {notebooks.grading(c).get("grade_id") for c in nb.cells if notebooks.is_solution_cell(c)}
    unknown = sorted((set(wrong) | set(right)) - ids)
    if unknown:
        raise ValueError(f"{assignment} variants name cells that are not solution cells: {unknown}")
    skipped = left_out(nb, assignment, declared["LEAVE_OUT"])
    varied = varied_cells(nb, wrong, right)
    results: list[VariantResult] = []
    with tempfile.TemporaryDirectory(prefix="variants-") as scratch:
        ref = local_reference(assignment, Path(scratch))
        channel = Channel(Path(scratch))
        client = notebooks.client(nb, path.parent, timeout=settings.CELL_TIMEOUT_S)
        judge = Judge(client, channel, ref, nb)
        env = {**os.environ, sandbox.CHANNEL_VARIABLE: str(channel.fd)}
        try:
            with client.setup_kernel(env=env, pass_fds=(channel.fd,)):
                for index, cell in enumerate(nb.cells[:max(varied, default=-1) + 1]):
                    if cell.cell_type != "code" or index in skipped:
                        continue
                    grade_id = notebooks.grading(cell).get("grade_id")
                    if notebooks.is_test_cell(cell):
                        continue   # run with their solution cell, below
                    if index in varied:
                        # Each variant in place of this cell, with the cells above run as written.
                        results += [_trial(judge, index, assignment, *trial) for trial in _trials(wrong, right, grade_id)]
                        if index == varied[-1]:
                            break  # nothing below can change a verdict (a training cell can take a minute)
                    # The real cell, once, for the cells that follow; its tests must give it every point.
                    client.execute_cell(cell, index)
                    if _error(cell):  # the ground the variants stand on (and a LEAVE_OUT that took too much)
                        raise ValueError(f"{assignment}: the solution fails at cell {index} ({_first_line(cell)!r}) "
                                         f"in the variants run: {_error(cell)}")
                    if notebooks.is_solution_cell(cell):
                        for gid, (score, points, why) in judge.run_tests(tests_after(nb, index)).items():
                            if score < points:
                                raise ValueError(f"{assignment}: the solution fails its own test {gid} in the variants "
                                                 f"run: {why}")
        finally:
            channel.close()
    return results


def report(assignment: str) -> int:
    results = try_variants(assignment)
    if not results:
        print(f"{assignment}: no variants in {VARIANTS_DIR.relative_to(course.ROOT)}/{assignment}.py")
        return 0
    for r in results:
        verdict = "ok" if r.ok else "PROBLEM"
        what = "caught by " + ", ".join(r.failing_tests) if r.failing_tests else "passes every test"
        print(f"{verdict:<8} {r.cell:<24} {r.mistake:<10} {r.kind} #{r.index}: {what}")
        if r.kind == "wrong" and r.messages:
            print(f"{'':<8} {'':<24} first message: {r.messages[0].splitlines()[0]}")
    return 0 if all(r.ok for r in results) else 1
