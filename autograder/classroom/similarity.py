"""Copied answers across a class: which pairs of students handed in answers too alike to be chance.

``python -m autograder similarity NN`` reads every submission of assignment NN (``submitted/<student>/NN/NN.ipynb``,
through intake, as grading reads it), fingerprints each graded answer once in each of its readings
(``Representation``: code as tokens and as its normalised structure, code_structure.py; written answers as stemmed
phrases, terms, figures and the order of their points, prose.py), and compares every pair of students, cell by
cell, over the whole assignment. Code answers and written answers are two separate comparisons (``TRACKS``),
reported separately. Nothing is sent anywhere: it all runs on this machine.

How a pair is scored (``Comparison``; docs/similarity.md says it for instructors): in each cell, only what the
student wrote counts (the fingerprints of what the course gave out, in any edition of the lesson, are removed),
and a cell where either answer has fewer than ``min_own`` tokens of its own (a one-line idiom) counts for nothing.
A reading's evidence in a cell is how similar the two answers are times how rare such a match is in the class; the
track combines its readings' evidence into the cell's (``Track.combine``); the pair's score is the mean evidence of
its cells, weighed by their length. A pair is listed when its score reaches ``threshold`` and at least
``min_cells`` cells agree on their own (evidence of at least ``agree``). The report shows the listed pairs and the
class's next ones below the line (``Comparison.shown``); each says which cells agree, which readings counted, how
many tokens match, and how many answers of the class are as close.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np

from ..core import csv_safe, editions, notebooks
from ..grading import intake
from ..grading.assignment import Assignment, load
from . import code_structure, prose
from . import fingerprints as fps

MAX_ANSWER_CHARS = 100_000  # a cell longer than any honest answer is compared on its first 100,000 characters
CSV_COLUMNS = ["student_a", "student_b", "score", "listed", "cells"]
TOP = 20        # the page and the CSV show at least the class's 20 highest pairs, listed or not...
SPREADS = 4.0
RING = 1        # others as close as a pair that still leave its match rare (a ring of three copiers)   # ... and every pair whose score stands this many spreads above the class's typical pair
_FENCED = re.compile(r"```[^\n]*\n(.*?)```", re.S)
_INLINE = re.compile(r"`([^`\n]+)`")


@dataclass(frozen=True)
class Representation:
    """One way of reading an answer into tokens, and how its fingerprints are taken."""
    name: str
    unit: str          # what its tokens are called in the report
    read: Callable[[str, frozenset], fps.Tokens]   # (text, names the lesson defines) -> tokens
    k: int
    window: int
    min_own: int       # it counts in a cell only when both answers have this many tokens of their own in it
    floor: int = 1     # a similarity is a share of at least this many tokens' weight (a few shared ones say little)
    by_language: bool = False   # a token's rarity is counted among the answers in its language (words, not figures)


@dataclass(frozen=True)
class Track:
    """One way of comparing: which cells, the representations, how their evidence combines, when a pair is listed.
    The first representation is the answer's length: it weighs a cell and decides whether it counts."""
    name: str          # "code" or "written"
    unit: str          # what a token of the first representation is called in the report
    representations: tuple[Representation, ...]
    combine: Callable[[dict[str, np.ndarray]], np.ndarray]   # representation -> evidence, to the cell's evidence
    counted: Callable[[dict[str, float]], list[str]]         # which representations made one pair's cell evidence
    agree: float       # a cell agrees when its evidence reaches this
    min_cells: int     # a pair is listed only when this many cells agree
    threshold: float   # ... and its score reaches this
    min_total: int     # a pair's score reaches 1 only over this many tokens of its own (short work, weak evidence)

    @property
    def min_own(self) -> int:
        return self.representations[0].min_own


def _code_evidence(by: dict[str, np.ndarray]) -> np.ndarray:
    """Either reading may carry a copy: renamed and moved code keeps its tokens, restructured code its structure."""
    return np.maximum(by["tokens"], by["structure"])


def _written_evidence(by: dict[str, np.ndarray]) -> np.ndarray:
    """The text's own evidence, raised towards the figures' where the two answers also quote the same measured
    figures. The text's: its shared phrases, or the order of its points, or its rare terms where the order agrees
    too (the geometric mean: two answers on one subject share terms, not the order they come in). Figures alone
    never list a pair (two students may run the same seeded code), and words swapped for synonyms leave the figures
    and the order as they were."""
    text = np.maximum(np.maximum(by["phrases"], by["argument"]), np.sqrt(by["terms"] * by["argument"]))
    return np.sqrt(text * np.maximum(text, by["figures"]))


def _code_counted(by: dict[str, float]) -> list[str]:
    return [max(by, key=by.get)]


def _written_counted(by: dict[str, float]) -> list[str]:
    terms = (by.get("terms", 0.0) * by.get("argument", 0.0)) ** 0.5
    text = max(("phrases", "argument"), key=lambda name: by.get(name, 0.0))
    counted = [text] + (["terms"] if terms > by.get(text, 0.0) else [])
    return counted + (["figures"] if by.get("figures", 0.0) > max(by.get(text, 0.0), terms) else [])


TOKENS = Representation("tokens", "tokens", lambda text, keep: fps.code_tokens(text), fps.K_CODE, fps.WINDOW_CODE, min_own=20)
STRUCTURE = Representation("structure", "structure tokens", code_structure.structure_tokens, fps.K_STRUCTURE, fps.WINDOW_STRUCTURE,
                           min_own=20)
PHRASES = Representation("phrases", "stems in shared phrases", lambda text, keep: prose.stems(text), fps.K_TEXT,
                         fps.WINDOW_TEXT, min_own=12, by_language=True)
TERMS = Representation("terms", "terms", lambda text, keep: prose.stems(text), 1, 1, min_own=12, floor=12,
                       by_language=True)
FIGURES = Representation("figures", "figures", lambda text, keep: prose.figures(text), 1, 1, min_own=3, floor=4)
ARGUMENT = Representation("argument", "ordered pairs", lambda text, keep: prose.argument(text), 1, 1, min_own=12,
                          floor=12, by_language=True)
CODE = Track("code", "tokens", (TOKENS, STRUCTURE), _code_evidence, _code_counted, agree=0.5, min_cells=2, threshold=0.75,
             min_total=100)
WRITTEN = Track("written", "words", (PHRASES, TERMS, FIGURES, ARGUMENT), _written_evidence,
                _written_counted, agree=0.4, min_cells=1, threshold=0.4, min_total=20)
# The written line: the combined evidence (geometric means) runs lower than the old word shingles did; 0.4 stands
# above every honest pair of the synthetic classes used to choose it (the highest 0.33, at 300 students).
TRACKS = (CODE, WRITTEN)


def _is_answer(track: Track, cell) -> bool:
    if track.name == "code":
        return notebooks.is_solution_cell(cell) and cell.cell_type == "code"
    return notebooks.is_manual_cell(cell) and cell.cell_type == "markdown"


def answer_cells(task: Assignment, track: Track) -> list[str]:
    """The grade_ids of the assignment's answer cells of this kind, in notebook order."""
    return [notebooks.grading(c)["grade_id"] for c in task.solution.cells if _is_answer(track, c)]


def lesson_editions(task: Assignment) -> list:
    """The lesson as released, and its editions' lessons that exist (``lessons/<code>/NN/NN.ipynb``, a translation:
    the same code cells, translated prose and comments), for what the course gave out in any of them."""
    found = [task.lesson]
    for edition in editions.EDITIONS.values():
        path = editions.lesson_notebook(edition.code, task.name)
        if path.is_file():
            found.append(notebooks.read(path))
    return found


def given_out(task: Assignment, track: Track, representation: Representation | None = None,
              lessons: list | None = None) -> np.ndarray:
    """The hashes of what the course gave out with the lesson (in each of its editions): for code, every code cell
    (the stubs included) and the code in its instructions (fenced blocks and inline code); for written answers, all of
    its prose (and for figures, the numbers in its code too)."""
    representation = representation or track.representations[0]
    texts = []
    for lesson in lessons or [task.lesson]:
        for cell in lesson.cells:
            if track.name == "code":
                if cell.cell_type == "code":
                    texts.append(cell.source)
                elif cell.cell_type == "markdown":
                    texts += _FENCED.findall(cell.source) + _INLINE.findall(cell.source)
            elif cell.cell_type == "markdown" or representation.name == "figures":
                texts.append(cell.source)
    if representation.name == "figures":  # the lesson's figures in the other notation too (95.8 is 95,8 in Brazil)
        texts += [prose.other_notation(t) for t in texts]
    keep = lesson_names(lessons or [task.lesson])
    return fps.boilerplate([representation.read(t, keep) for t in texts], representation.k)


def lesson_names(lessons: list) -> frozenset[str]:
    """The functions, classes and methods the lesson defines: the ones the tests call, never a student's helper."""
    return frozenset(name for lesson in lessons for cell in lesson.cells if cell.cell_type == "code"
                     for name in code_structure.defined_names(cell.source))


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


Fingerprints = dict[str, dict[str, dict[str, fps.Fingerprint]]]   # representation -> cell -> student -> fingerprint


@dataclass
class ClassAnswers:
    """Every student's fingerprints for one assignment, by track, representation and cell, and who was left out."""
    assignment: str
    students: list[str]
    fingerprints: dict[str, Fingerprints]   # track -> representation -> cell -> student -> fingerprint
    cells: dict[str, list[str]]             # track -> cells in notebook order
    skipped: list[Skipped] = field(default_factory=list)


def read_class(submitted: Path, assignment: str, students: list[str],
               advance: Callable[[], None] = lambda: None) -> ClassAnswers:
    """Read and fingerprint each student's notebook once. Folders that are not student ids, missing, unreadable
    and empty notebooks are listed in ``skipped``, never an error."""
    task = load(assignment)   # the solution and the lesson, read once for the whole class
    lessons = lesson_editions(task)
    keep = lesson_names(lessons)
    cells = {t.name: answer_cells(task, t) for t in TRACKS}
    given = {(t.name, r.name): given_out(task, t, r, lessons) for t in TRACKS for r in t.representations}
    found: dict[str, Fingerprints] = {t.name: {r.name: {c: {} for c in cells[t.name]} for r in t.representations}
                                      for t in TRACKS}
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
                for rep in track.representations:   # the first: the answer's length; none, no other reading
                    fp = fps.fingerprint(rep.read(text, keep), rep.k, rep.window, given[track.name, rep.name])
                    if not fp.own and rep is track.representations[0]:
                        break
                    if fp.own:
                        found[track.name][rep.name][cell][student] = fp
                        own += fp.own if rep is track.representations[0] else 0
        if not own:
            skipped.append(Skipped(student, "no answer of its own: every answer cell is empty or as the lesson gave it"))
            continue
        kept.append(student)
    return ClassAnswers(assignment, kept, found, cells, skipped)


@dataclass
class Reading:
    """What one representation says about one cell of one pair."""
    name: str
    unit: str
    matched: int      # tokens of the first student's answer inside matching stretches
    own: int          # the first student's own tokens in that answer
    close: int        # other answers in the class at least as close to either of the two
    evidence: float   # similarity x rarity, 0..1
    spans_a: list[tuple[int, int]] = field(default_factory=list)
    spans_b: list[tuple[int, int]] = field(default_factory=list)
    shared: list[str] = field(default_factory=list)   # the figures both quote (for figures)


@dataclass
class CellMatch:
    """The evidence of one cell for one pair: the cell's, and each representation's that counted in it."""
    cell: str
    answers: int      # answers to this cell in the class
    evidence: float   # the representations' evidence combined (Track.combine)
    readings: list[Reading]   # the representations that counted, the strongest first

    @property
    def lead(self) -> Reading:
        return self.readings[0]

    def why(self) -> str:
        parts = []
        for r in self.readings:
            figures = f" ({', '.join(r.shared[:8])}{', ...' if len(r.shared) > 8 else ''})" if r.shared else ""
            parts.append(f"{r.matched} of {r.own} {r.unit} match{figures}")
        return (f"{self.cell}: {'; '.join(parts)}, "
                f"{self.lead.close} of the {max(self.answers - 2, 0)} other answers as close")


@dataclass
class Pair:
    a: str
    b: str
    score: float
    cells: list[CellMatch]   # the cells that agree, in notebook order (or, for a pair that is not listed, its best)
    others: list[CellMatch]  # the other cells both answered, for the report
    listed: bool = True

    def why(self) -> str:
        return "; ".join(c.why() for c in self.cells) or "no cell agrees on its own"


@dataclass
class _Reading:
    """One representation's comparison of one cell over the class, every matrix (n, n) over the students."""
    close: np.ndarray       # other answers at least as close to either of the two
    evidence: np.ndarray    # similarity x rarity (0 where either answer is too short in this reading)


@dataclass
class _Cell:
    answers: int
    readings: dict[str, _Reading]
    evidence: np.ndarray    # combined
    counts: np.ndarray      # bool: both answers long enough for the cell to count


def rarity(close: np.ndarray, answers) -> np.ndarray:
    """How rare a match is when ``close`` other answers of ``answers`` (a number, or one per entry) are as close: 1
    when none is, and ``log(N / (close + 2)) / log(N / 2)`` (clipped to 0..1) otherwise: 0 when every answer is."""
    answers = np.asarray(answers, dtype=float)
    safe = np.maximum(answers, 3.0)
    found = np.clip(np.log(safe / (close + 2.0)) / np.log(safe / 2.0), 0.0, 1.0)
    return np.where(answers <= 2, 1.0, found)


def _readers(held_fps: dict[str, fps.Fingerprint], index: dict[str, int], hashes: np.ndarray,
             by_language: bool) -> np.ndarray | int:
    """How many answers could hold each hash: the whole class, or for a reading of words, the answers written in the
    languages where the hash is found (a word that every Portuguese answer uses is common, however few they are)."""
    held = {index[s]: fp for s, fp in held_fps.items() if s in index}
    if not by_language:
        return len(held)
    groups: dict[str, list[np.ndarray]] = {}
    for fp in held.values():
        groups.setdefault(prose.language(fp.tokens.text), []).append(fp.unique())
    readers = np.zeros(len(hashes))
    for unique in groups.values():
        present = fps.member(hashes, np.unique(np.concatenate(unique)))
        readers += present * len(unique)
    return readers


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


def _reading(held_fps: dict[str, fps.Fingerprint], index: dict[str, int], rep: Representation) -> _Reading:
    """The similarity of every pair's answers in one reading (the share of the shorter one's fingerprints found in
    the other, each weighed by its rarity in the class), and its evidence: times the rarity of so close a match."""
    n = len(index)
    held = {index[s]: fp.unique() for s, fp in held_fps.items() if s in index}
    own = np.zeros(n, dtype=np.int64)
    for s, fp in held_fps.items():
        if s in index:
            own[index[s]] = fp.own
    everything = np.concatenate(list(held.values())) if held else np.zeros(0, dtype=np.int64)
    hashes, counts = np.unique(everything, return_counts=True)
    # a piece only the two have weighs 1; one everybody (who writes in its language) has, 0
    weights = rarity(counts - 2, _readers(held_fps, index, hashes, rep.by_language))
    mass = np.zeros(n)  # each answer's fingerprints, weighed by their rarity
    for i, unique in held.items():
        mass[i] = weights[np.searchsorted(hashes, unique)].sum()
    shared = counts >= 2  # a fingerprint only one student has matches nobody
    hashes, weights = hashes[shared], weights[shared]
    incidence = np.zeros((n, len(hashes)), dtype=np.float32)
    for i, unique in held.items():
        incidence[i, np.searchsorted(hashes, unique[fps.member(unique, hashes)])] = 1.0
    smaller = np.minimum.outer(mass, mass)
    similarity = ((incidence * weights.astype(np.float32)) @ incidence.T) / np.maximum(smaller, rep.floor)
    np.fill_diagonal(similarity, 0.0)
    answering = own > 0
    close = _as_close(similarity, answering)
    # One other answer as close is still a rare match: three students who copied in a ring are each as close to
    # the other two, and that should not excuse any of them.
    evidence = similarity * rarity(np.maximum(close - RING, 0), int(answering.sum()))
    evidence = np.where(np.minimum.outer(own, own) >= rep.min_own, evidence, 0.0)
    return _Reading(close, evidence)


class Comparison:
    """Every pair of one class on one track: scores (``score[i, j]`` for i < j) and the cells that agree.

    Per cell and representation (``_reading``): how similar two answers are and how rare such a match is in the
    class; the track combines the representations' evidence into the cell's (``Track.combine``). The pair's score is
    the mean of its cells' evidence, each cell weighed by the pair's own tokens in it (the shorter answer's, after the
    boilerplate, in the first representation), over the cells where both answers have at least ``min_own`` of them.
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
        first = track.representations[0].name
        for cell in self.cells:
            readings = {rep.name: _reading(self.fingerprints[rep.name][cell], index, rep)
                        for rep in track.representations}
            evidence = track.combine({name: r.evidence for name, r in readings.items()})
            np.fill_diagonal(evidence, 0.0)
            own = np.zeros(n, dtype=np.int64)
            for s, fp in self.fingerprints[first][cell].items():
                own[index[s]] = fp.own
            weight = np.minimum.outer(own, own)
            counts_in = weight >= track.min_own
            weighted += np.where(counts_in, weight * evidence, 0.0)
            total += np.where(counts_in, weight, 0.0)
            self.agreeing += counts_in & (evidence >= track.agree)
            self.per_cell[cell] = _Cell(int((own > 0).sum()), readings, evidence, counts_in)
        self.score = np.triu(weighted / np.maximum(total, track.min_total), k=1)
        self.hit = (self.score >= track.threshold) & (self.agreeing >= track.min_cells)

    def _order(self, hit: np.ndarray) -> list[tuple[int, int]]:
        i, j = np.nonzero(np.triu(hit, k=1))
        return sorted(zip(i.tolist(), j.tolist()), key=lambda p: (-self.score[p], p))

    def is_listed(self) -> np.ndarray:
        """(n, n) bool: the pairs to look at: score at least the threshold and enough cells that agree."""
        return self.hit.copy()

    def ranked(self) -> list[tuple[str, str, float]]:
        """Every pair with a score above 0, highest first (ties in the order of the students' names)."""
        return [(self.students[a], self.students[b], float(self.score[a, b])) for a, b in self._order(self.score > 0)]

    def listed(self) -> list[Pair]:
        """The pairs to look at, highest first."""
        return [self.pair(a, b) for a, b in self._order(self.is_listed())]

    def shown(self, top: int = TOP, spreads: float = SPREADS, most: int = 10 * TOP) -> list[Pair]:
        """The pairs the report shows, listed or not, highest first: every listed pair, the ``top`` highest, and every
        pair whose score stands ``spreads`` spreads above the class's typical pair (the median; the spread is the
        median absolute deviation, scaled to a standard deviation), at most ``most`` of those."""
        n = len(self.students)
        scores = self.score[np.triu_indices(n, k=1)]
        hit = self.is_listed()
        if len(scores):
            typical = float(np.median(scores))
            spread = 1.4826 * float(np.median(np.abs(scores - typical))) or float(scores.std())
            near = np.triu(self.score > max(typical + spreads * spread, 0.0), k=1)
            ranked = self._order(self.score > 0)
            above = [p for p in ranked if near[p]][:most]
            for a, b in ranked[:top] + above:
                hit[a, b] = True
        return [self.pair(a, b) for a, b in self._order(hit)]

    def pair(self, i: int, j: int) -> Pair:
        """Pair (i, j), i < j, with the evidence of each cell both students answered."""
        a, b = self.students[i], self.students[j]
        listed = bool(self.hit[i, j])
        agree, others = [], []
        for cell in self.cells:
            info = self.per_cell[cell]
            readings = [self._reading(rep, cell, a, b, info.readings[rep.name], i, j)
                        for rep in self.track.representations]
            readings = [r for r in readings if r is not None]
            if not readings:
                continue
            counted = self.track.counted({r.name: r.evidence for r in readings})
            match = CellMatch(cell, info.answers, float(info.evidence[i, j]),
                              sorted((r for r in readings if r.name in counted), key=lambda r: -r.evidence)
                              or readings[:1])
            (agree if info.counts[i, j] and match.evidence >= self.track.agree else others).append(match)
        if not listed and not agree:  # a pair shown below the line: its strongest cells say why it stands out
            others.sort(key=lambda m: -m.evidence)
            agree, others = [m for m in others[:3] if m.evidence > 0], others[3:] + [m for m in others[:3]
                                                                                      if m.evidence <= 0]
        return Pair(a, b, float(self.score[i, j]), agree, others, listed)

    def _reading(self, rep: Representation, cell: str, a: str, b: str, info: _Reading, i: int,
                 j: int) -> Reading | None:
        fa, fb = self.fingerprints[rep.name][cell].get(a), self.fingerprints[rep.name][cell].get(b)
        if fa is None or fb is None:
            return None
        shared = np.intersect1d(fa.unique(), fb.unique())
        matched_a, spans_a = fps.matched(fa, shared)
        _, spans_b = fps.matched(fb, shared)
        figures = []
        if rep.name == "figures":
            common = set(shared.tolist())
            figures = sorted({fa.tokens.kinds[p] for p, h in zip(fa.positions.tolist(), fa.hashes.tolist()) if h in common},
                             key=fa.tokens.kinds.index)
        return Reading(rep.name, rep.unit, matched_a, fa.own, int(info.close[i, j]), float(info.evidence[i, j]),
                       spans_a, spans_b, figures)


def write_csv(path: Path, pairs: list[Pair]) -> None:
    csv_safe.write(path, CSV_COLUMNS, ([p.a, p.b, round(p.score, 3), "yes" if p.listed else "no", p.why()]
                                       for p in pairs))


@dataclass
class Outcome:
    """What one assignment's comparison produced."""
    assignment: str
    compared: int
    skipped: list[Skipped]
    listed: dict[str, list[Pair]]   # track -> listed pairs
    files: list[Path]

    def line(self) -> str:
        code, written = len(self.listed.get("code", [])), len(self.listed.get("written", []))
        return (f"{self.assignment}: {self.compared} students compared, {len(self.skipped)} not compared; "
                f"{code} pairs to look at in code, {written} in written answers ({self.files[-1]})")


@dataclass(frozen=True)
class Options:
    """What the instructor may change: the line of each track (None: the track's own), and how many pairs to show."""
    threshold: float | None = None
    written_threshold: float | None = None
    top: int = TOP

    def tracks(self) -> tuple[Track, ...]:
        for value in (self.threshold, self.written_threshold):
            if value is not None and not 0 < value <= 1:
                raise SystemExit(f"a threshold is a score between 0 and 1 (0 excluded), not {value:g}")
        if self.top < 0:
            raise SystemExit(f"--top is a number of pairs, 0 or more, not {self.top}")
        tracks = []
        for track, line in ((CODE, self.threshold), (WRITTEN, self.written_threshold)):
            line = line or track.threshold  # a lower line lowers what a cell needs to agree too
            tracks.append(replace(track, threshold=line, agree=min(track.agree, line)))
        return tuple(tracks)


def compare_assignment(submitted: Path, assignment: str, students: list[str], out: Path,
                       advance: Callable[[], None] = lambda: None, options: Options = Options()) -> Outcome:
    """Compare one assignment's class and write ``NN.csv`` (code), ``NN-written.csv`` (where the assignment has
    written answers) and ``NN.html`` under ``out``: the pairs shown (Comparison.shown), each marked listed or not."""
    from . import similarity_report

    answers = read_class(submitted, assignment, students, advance)
    comparisons = [Comparison(answers, t) for t in options.tracks() if answers.cells[t.name]]
    out.mkdir(parents=True, exist_ok=True)
    shown, files = {}, []
    for comparison in comparisons:
        track = comparison.track
        shown[track.name] = comparison.shown(options.top)
        path = out / (f"{assignment}.csv" if track.name == "code" else f"{assignment}-{track.name}.csv")
        write_csv(path, shown[track.name])
        files.append(path)
    page = out / f"{assignment}.html"
    page.write_text(similarity_report.render(answers, comparisons, shown), encoding="utf-8")
    files.append(page)
    listed = {name: [p for p in pairs if p.listed] for name, pairs in shown.items()}
    return Outcome(assignment, len(answers.students), answers.skipped, listed, files)


def run(submitted: Path, names: list[str] | None, out: Path, options: Options = Options()) -> list[Outcome]:
    """``python -m autograder similarity``: each assignment named (or every one with submissions), in turn."""
    options.tracks()  # a bad option stops before the first notebook is read
    students, assignments = intake.discover(submitted, names)
    if not assignments:
        raise SystemExit(f"no submissions of any assignment of the course in {submitted} "
                         "(expected SUBMITTED/<student>/<assignment>/<assignment>.ipynb)")
    bar = _progress(len(students) * len(assignments))
    outcomes = []
    try:
        for assignment in assignments:
            outcome = compare_assignment(submitted, assignment, students, out, bar.update if bar else lambda: None,
                                         options)
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
