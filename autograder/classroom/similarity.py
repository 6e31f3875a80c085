"""Copied answers across a class: which pairs of students handed in answers too alike to be chance.

``python -m autograder similarity NN`` reads every submission of assignment NN (``submitted/<student>/NN/NN.ipynb``,
through intake, as grading reads it), fingerprints each graded answer once (fingerprints.py), and compares every
pair of students, cell by cell, over the whole assignment. Code answers and written answers are two separate
comparisons (``TRACKS``), reported separately. Nothing is sent anywhere: it all runs on this machine.

How a pair is scored (``Comparison``; docs/similarity.md says it for instructors): in each cell, only what the
student wrote counts (the fingerprints of what the course gave out are removed), and a cell where either answer
has fewer than ``min_own`` tokens of its own (a one-line idiom) counts for nothing. A cell's evidence is how
similar the two answers are times how rare such a match is in the class; the pair's score is the mean evidence of
its cells, weighed by their length. A pair is listed when its score reaches ``threshold`` and at least
``min_cells`` cells agree on their own (evidence of at least ``agree``). Each listed pair says which cells agree,
how many tokens match, and how many answers of the class are as close.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from ..core import csv_safe, notebooks
from ..grading import intake
from ..grading.assignment import Assignment, load
from . import fingerprints as fps

MAX_ANSWER_CHARS = 100_000  # a cell longer than any honest answer is compared on its first 100,000 characters
CSV_COLUMNS = ["student_a", "student_b", "score", "cells"]
_FENCED = re.compile(r"```[^\n]*\n(.*?)```", re.S)
_INLINE = re.compile(r"`([^`\n]+)`")


@dataclass(frozen=True)
class Track:
    """One way of comparing: which cells, how they are read, and when a pair is listed."""
    name: str          # "code" or "written"
    unit: str          # what a token is called in the report
    k: int
    window: int
    min_own: int       # a cell counts only when both answers have this many tokens of their own
    agree: float       # a cell agrees when its own share reaches this
    min_cells: int     # a pair is listed only when this many cells agree
    threshold: float   # ... and its score reaches this
    min_total: int     # a pair's score reaches 1 only over this many tokens of its own (short work, weak evidence)


CODE = Track("code", "tokens", fps.K_CODE, fps.WINDOW_CODE, min_own=20, agree=0.5, min_cells=2, threshold=0.75,
             min_total=100)
WRITTEN = Track("written", "words", fps.K_TEXT, fps.WINDOW_TEXT, min_own=20, agree=0.5, min_cells=1, threshold=0.5,
                min_total=40)
TRACKS = (CODE, WRITTEN)


def _is_answer(track: Track, cell) -> bool:
    if track is CODE:
        return notebooks.is_solution_cell(cell) and cell.cell_type == "code"
    return notebooks.is_manual_cell(cell) and cell.cell_type == "markdown"


def _tokens(track: Track, text: str) -> fps.Tokens:
    return fps.code_tokens(text) if track is CODE else fps.text_tokens(text)


def answer_cells(task: Assignment, track: Track) -> list[str]:
    """The grade_ids of the assignment's answer cells of this kind, in notebook order."""
    return [notebooks.grading(c)["grade_id"] for c in task.solution.cells if _is_answer(track, c)]


def given_out(task: Assignment, track: Track) -> np.ndarray:
    """The hashes of what the course gave out with the lesson: for code, every code cell (the stubs included) and
    the code in its instructions (fenced blocks and inline code); for written answers, all of its prose."""
    texts = []
    for cell in task.lesson.cells:
        if track is CODE:
            if cell.cell_type == "code":
                texts.append(cell.source)
            elif cell.cell_type == "markdown":
                texts += _FENCED.findall(cell.source) + _INLINE.findall(cell.source)
        elif cell.cell_type == "markdown":
            texts.append(cell.source)
    return fps.boilerplate([_tokens(track, t) for t in texts], track.k)


def _source(cell) -> str:
    source = cell.get("source", "")
    source = "".join(source) if isinstance(source, list) else str(source)
    return source[:MAX_ANSWER_CHARS]


def answers_of(nb, cells: list[str]) -> dict[str, str]:
    """The student's answer to each cell, found by its nbgrader grade_id, else by the cell id (which survives
    most editors that drop nbgrader's metadata); the first such cell where the student duplicated one."""
    found: dict[str, str] = {}
    for by_id in (False, True):
        for cell in nb.cells:
            gid = cell.get("id") if by_id else notebooks.grading(cell).get("grade_id")
            if gid in cells and gid not in found:
                found[gid] = _source(cell)
    return found


@dataclass
class Skipped:
    student: str
    reason: str


@dataclass
class ClassAnswers:
    """Every student's fingerprints for one assignment, by track and cell, and who was left out and why."""
    assignment: str
    students: list[str]
    fingerprints: dict[str, dict[str, dict[str, fps.Fingerprint]]]  # track -> cell -> student -> fingerprint
    cells: dict[str, list[str]]                                          # track -> cells in notebook order
    skipped: list[Skipped] = field(default_factory=list)


def read_class(submitted: Path, assignment: str, students: list[str],
               advance: Callable[[], None] = lambda: None) -> ClassAnswers:
    """Read and fingerprint each student's notebook once. Folders that are not student ids, missing, unreadable
    and empty notebooks are listed in ``skipped``, never an error."""
    task = load(assignment)   # the solution and the lesson, read once for the whole class
    cells = {t.name: answer_cells(task, t) for t in TRACKS}
    given = {t.name: given_out(task, t) for t in TRACKS}
    found: dict[str, dict[str, dict[str, fps.Fingerprint]]] = {t.name: {c: {} for c in cells[t.name]} for t in TRACKS}
    kept, skipped = [], []
    for student in students:
        advance()
        problem = intake.student_id_problem(student)
        if problem:
            skipped.append(Skipped(student, problem))
            continue
        try:
            nb = intake.read_submission(submitted / student / assignment, task)
        except Exception as error:  # noqa: BLE001 - one student's files never stop the comparison of the class
            nb = intake.Refusal("", f"it could not be read ({type(error).__name__})")
        if isinstance(nb, intake.Refusal):
            skipped.append(Skipped(student, nb.reason))
            continue
        own = 0
        for track in TRACKS:
            for cell, text in answers_of(nb, cells[track.name]).items():
                fp = fps.fingerprint(_tokens(track, text), track.k, track.window, given[track.name])
                if fp.own:
                    found[track.name][cell][student] = fp
                    own += fp.own
        if not own:
            skipped.append(Skipped(student, "no answer of its own: every answer cell is empty or as the lesson gave it"))
            continue
        kept.append(student)
    return ClassAnswers(assignment, kept, found, cells, skipped)


@dataclass
class CellMatch:
    """The evidence of one cell for one pair."""
    cell: str
    matched: int      # tokens of the first student's answer inside matching stretches
    own: int          # the first student's own tokens in that answer
    close: int        # other answers in the class at least as close to either of the two
    answers: int      # answers to this cell in the class
    evidence: float   # similarity x rarity, 0..1
    spans_a: list[tuple[int, int]] = field(default_factory=list)
    spans_b: list[tuple[int, int]] = field(default_factory=list)

    def why(self, unit: str) -> str:
        return (f"{self.cell}: {self.matched} of {self.own} {unit} match, "
                f"{self.close} of the {max(self.answers - 2, 0)} other answers as close")


@dataclass
class Pair:
    a: str
    b: str
    score: float
    cells: list[CellMatch]   # the cells that agree, in notebook order
    others: list[CellMatch]  # the other cells both answered, for the report

    def why(self, unit: str) -> str:
        return "; ".join(c.why(unit) for c in self.cells)


@dataclass
class _Cell:
    """One cell's comparison over the class, every matrix (n, n) over the students."""
    answers: int
    close: np.ndarray       # other answers at least as close to either of the two
    evidence: np.ndarray    # similarity x rarity
    counts: np.ndarray      # bool: both answers long enough for the cell to count


def rarity(close: np.ndarray, answers: int) -> np.ndarray:
    """How rare a match is when ``close`` other answers of ``answers`` are as close: 1 when none is, and
    ``log(N / (close + 2)) / log(N / 2)`` (clipped to 0..1) otherwise: 0 when every answer is."""
    if answers <= 2:
        return np.ones_like(close, dtype=float)
    return np.clip(np.log(answers / (close + 2.0)) / np.log(answers / 2.0), 0.0, 1.0)


def _as_close(similarity: np.ndarray, answering: np.ndarray) -> np.ndarray:
    """For each pair (a, b): how many other answering students are at least as close to a as b is, or to b as a is."""
    n = len(similarity)
    beyond = np.zeros((n, n), dtype=np.int64)  # beyond[a, b]: students x (not a) with similarity[a, x] >= [a, b]
    for a in np.flatnonzero(answering):
        row = similarity[a, answering & (np.arange(n) != a)]
        ordered = np.sort(row)
        beyond[a] = len(ordered) - np.searchsorted(ordered, similarity[a], side="left")
    # b itself is among those found from a's side, and a among those from b's side.
    return np.maximum(np.maximum(beyond, beyond.T) - 1, 0)


class Comparison:
    """Every pair of one class on one track: scores (``score[i, j]`` for i < j) and the cells that agree.

    Per cell: the similarity of two answers is the share of the shorter one's fingerprints found in the other; its
    rarity says how many other answers of the class come as close to either (an answer half the class shares is
    weak evidence); the cell's evidence is the product. The pair's score is the mean of its cells' evidence, each
    cell weighed by the pair's own tokens in it (the shorter answer's, after the boilerplate), over the cells where
    both answers have at least ``min_own`` tokens of their own.
    """

    def __init__(self, answers: ClassAnswers, track: Track):
        self.track = track
        self.students = answers.students
        self.fingerprints = answers.fingerprints[track.name]
        self.cells = answers.cells[track.name]
        n = len(self.students)
        index = {s: i for i, s in enumerate(self.students)}
        weighted = np.zeros((n, n))
        total = np.zeros((n, n))
        self.agreeing = np.zeros((n, n), dtype=np.int32)
        self.per_cell: dict[str, _Cell] = {}
        for cell in self.cells:
            held = {index[s]: fp.unique() for s, fp in self.fingerprints[cell].items()}
            own = np.zeros(n, dtype=np.int64)
            for s, fp in self.fingerprints[cell].items():
                own[index[s]] = fp.own
            everything = np.concatenate(list(held.values())) if held else np.zeros(0, dtype=np.int64)
            hashes, counts = np.unique(everything, return_counts=True)
            weights = rarity(counts - 2, len(held))  # a piece only the two have weighs 1; one everybody has, 0
            mass = np.zeros(n)  # each answer's fingerprints, weighed by their rarity
            for i, unique in held.items():
                mass[i] = weights[np.searchsorted(hashes, unique)].sum()
            shared = counts >= 2  # a fingerprint only one student has matches nobody
            hashes, weights = hashes[shared], weights[shared]
            incidence = np.zeros((n, len(hashes)), dtype=np.float32)
            for i, unique in held.items():
                incidence[i, np.searchsorted(hashes, unique[np.isin(unique, hashes)])] = 1.0
            smaller = np.minimum.outer(mass, mass)
            similarity = ((incidence * weights.astype(np.float32)) @ incidence.T) / np.where(smaller > 0, smaller, 1.0)
            np.fill_diagonal(similarity, 0.0)
            answering = own > 0
            close = _as_close(similarity, answering)
            evidence = similarity * rarity(close, int(answering.sum()))
            weight = np.minimum.outer(own, own)
            counts_in = (weight >= track.min_own) & (smaller > 0)
            weighted += np.where(counts_in, weight * evidence, 0.0)
            total += np.where(counts_in, weight, 0.0)
            self.agreeing += counts_in & (evidence >= track.agree)
            self.per_cell[cell] = _Cell(int(answering.sum()), close, evidence, counts_in)
        self.score = np.triu(weighted / np.maximum(total, track.min_total), k=1)

    def ranked(self) -> list[tuple[str, str, float]]:
        """Every pair with a score above 0, highest first (ties in the order of the students' names)."""
        i, j = np.nonzero(self.score > 0)
        order = sorted(zip(i.tolist(), j.tolist()), key=lambda p: (-self.score[p], p))
        return [(self.students[a], self.students[b], float(self.score[a, b])) for a, b in order]

    def listed(self) -> list[Pair]:
        """The pairs to look at: score at least the threshold and enough cells that agree, highest first."""
        hit = (self.score >= self.track.threshold) & (self.agreeing >= self.track.min_cells)
        i, j = np.nonzero(np.triu(hit, k=1))
        order = sorted(zip(i.tolist(), j.tolist()), key=lambda p: (-self.score[p], p))
        return [self.pair(a, b) for a, b in order]

    def pair(self, i: int, j: int) -> Pair:
        """Pair (i, j), i < j, with the evidence of each cell both students answered."""
        a, b = self.students[i], self.students[j]
        agree, others = [], []
        for cell in self.cells:
            fa, fb = self.fingerprints[cell].get(a), self.fingerprints[cell].get(b)
            if fa is None or fb is None:
                continue
            info = self.per_cell[cell]
            shared = np.intersect1d(fa.unique(), fb.unique())
            matched_a, spans_a = fps.matched(fa, shared)
            _, spans_b = fps.matched(fb, shared)
            match = CellMatch(cell, matched_a, fa.own, int(info.close[i, j]), info.answers,
                              float(info.evidence[i, j]), spans_a, spans_b)
            (agree if info.counts[i, j] and match.evidence >= self.track.agree else others).append(match)
        return Pair(a, b, float(self.score[i, j]), agree, others)


def write_csv(path: Path, pairs: list[Pair], unit: str) -> None:
    csv_safe.write(path, CSV_COLUMNS, ([p.a, p.b, round(p.score, 3), p.why(unit)] for p in pairs))


@dataclass
class Outcome:
    """What one assignment's comparison produced."""
    assignment: str
    compared: int
    skipped: list[Skipped]
    listed: dict[str, list[Pair]]   # track -> pairs
    files: list[Path]

    def line(self) -> str:
        code, written = len(self.listed.get("code", [])), len(self.listed.get("written", []))
        return (f"{self.assignment}: {self.compared} students compared, {len(self.skipped)} not compared; "
                f"{code} pairs to look at in code, {written} in written answers ({self.files[-1]})")


def compare_assignment(submitted: Path, assignment: str, students: list[str], out: Path,
                       advance: Callable[[], None] = lambda: None) -> Outcome:
    """Compare one assignment's class and write ``NN.csv`` (code), ``NN-written.csv`` (where the assignment has
    written answers) and ``NN.html`` under ``out``."""
    from . import similarity_report

    answers = read_class(submitted, assignment, students, advance)
    comparisons = [Comparison(answers, t) for t in TRACKS if answers.cells[t.name]]
    out.mkdir(parents=True, exist_ok=True)
    listed, files = {}, []
    for comparison in comparisons:
        track = comparison.track
        listed[track.name] = comparison.listed()
        path = out / (f"{assignment}.csv" if track is CODE else f"{assignment}-{track.name}.csv")
        write_csv(path, listed[track.name], track.unit)
        files.append(path)
    page = out / f"{assignment}.html"
    page.write_text(similarity_report.render(answers, comparisons, listed), encoding="utf-8")
    files.append(page)
    return Outcome(assignment, len(answers.students), answers.skipped, listed, files)


def run(submitted: Path, names: list[str] | None, out: Path) -> list[Outcome]:
    """``python -m autograder similarity``: each assignment named (or every one with submissions), in turn."""
    students, assignments = intake.discover(submitted, names)
    if not assignments:
        raise SystemExit(f"no submissions of any assignment of the course in {submitted} "
                         "(expected SUBMITTED/<student>/<assignment>/<assignment>.ipynb)")
    bar = _progress(len(students) * len(assignments))
    outcomes = []
    try:
        for assignment in assignments:
            outcome = compare_assignment(submitted, assignment, students, out, bar.update if bar else lambda: None)
            outcomes.append(outcome)
            (bar.write if bar else print)(outcome.line())
    finally:
        if bar:
            bar.close()
    return outcomes


def _progress(total: int):
    """A tqdm bar on a terminal for a class worth one (None elsewhere: each assignment prints its line when done)."""
    if not sys.stderr.isatty() or total < 200:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="notebook", desc="similarity", file=sys.stderr)
