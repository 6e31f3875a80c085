"""The similarity report on synthetic classes of 30 and 300: recall per disguise, precision, what each reading adds,
and how long ``python -m autograder similarity`` takes for 300 students of one assignment.

    python bench/similarity_scale.py                      # 30 and 300 students of 06, 09, ex1, 01 and ex2
    python bench/similarity_scale.py --quick              # one seed at 30, no 300 (a few minutes less)

The classes come from tests/synthetic_class.py: honest students who each write the course's right answers their
own way (held-out habits included), and planted copies of every disguise of ``PLANTED``. The disguises marked held
out, and the honest habits marked so, were never looked at while the thresholds and weights were chosen; the
seeds here are used nowhere else (the tests use theirs, the choices were made on others). Recall is per disguise
(a ring counts its three pairs); precision is the share of listed pairs that are planted.

At 30 students each class has four copiers (the disguises taken in turn over the classes), at 300 each disguise
three times. Each timed run is a fresh ``python -m autograder similarity NN`` process, start included; building the
class is not timed. The figures per reading come from the same classes, compared again with one reading alone.

Writes bench/results/similarity_scale.md (stamped with the date, the machine, the commit and the command), which
docs/similarity.md links to. A benchmark, not a test: its times depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from autograder.classroom import similarity as sim  # noqa: E402
import result_files  # noqa: E402  (bench/result_files.py)
from synthetic_class import HELD_OUT, PLANTED, TUNED, build  # noqa: E402

ASSIGNMENTS = ["06_data", "09_patterns", "ex1_batchnorm", "01_tensors", "ex2_lr_finder"]
SEEDS = [4201, 4202, 4203]
ONE_READING = {  # the same comparison with one reading alone (what each adds)
    "code": {"tokens only": lambda by: by["tokens"], "structure only": lambda by: by["structure"]},
    "written": {"phrases only": lambda by: by["phrases"], "argument only": lambda by: by["argument"],
                "no figures": lambda by: sim._written_evidence(by | {"figures": 0 * by["figures"]})},
}
LOWER_LINE = {"code": 0.65, "written": 0.3}   # every reading, a lower line (--threshold, --written-threshold)


def timed_command(submitted: Path, out: Path, assignment: str) -> float:
    command = [sys.executable, "-m", "autograder", "similarity", assignment, "--submitted", str(submitted),
               "--out", str(out)]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "MPLBACKEND": "Agg"})
    return time.perf_counter() - start


FIGURES = 3   # a copy "shares figures" when it quotes at least this many of the original's measured figures
SWAPPED = "words swapped for synonyms, 3+ figures shared"
SWAPPED_RARE = "words swapped for synonyms, 3+ figures shared that at most one other answer quotes"


def _shared_figures(comparison: sim.Comparison, a: str, b: str, rare: bool = False) -> int:
    """How many figures of their own two students' written answers have in common (the most in any cell); ``rare``:
    only those that at most one other answer of the class quotes (the original's own run, not the seeded one)."""
    found = 0
    for by_student in comparison.fingerprints["figures"].values():
        if a in by_student and b in by_student:
            common = set(by_student[a].unique().tolist()) & set(by_student[b].unique().tolist())
            if rare:
                quoted = [h for fp in by_student.values() for h in set(fp.unique().tolist()) & common]
                common = {h for h in common if quoted.count(h) <= 3}
            found = max(found, len(common))
    return found


class Tally:
    """Planted pairs listed per disguise, and honest pairs listed, over many classes, for one track and reading."""

    def __init__(self):
        self.found = defaultdict(lambda: [0, 0])   # disguise -> [listed, planted]
        self.false = 0
        self.honest_pairs = 0
        self.accused: set[tuple[str, str]] = set()

    def add(self, comparison: sim.Comparison, synthetic, label: str) -> None:
        planted = synthetic.planted()
        index = {s: i for i, s in enumerate(comparison.students)}
        hit = comparison.is_listed()
        for pair, disguise in planted.items():
            i, j = sorted(index[s] for s in pair)
            self.found[disguise][0] += bool(hit[i, j])
            self.found[disguise][1] += 1
            if comparison.track.name == "written" and PLANTED[disguise].written != "reworded":
                for group, rare in ((SWAPPED, False), (SWAPPED_RARE, True)):
                    if _shared_figures(comparison, *pair, rare=rare) >= FIGURES:
                        self.found[group][0] += bool(hit[i, j])
                        self.found[group][1] += 1
        for i, j in zip(*hit.nonzero()):
            pair = frozenset((comparison.students[i], comparison.students[j]))
            if i < j and pair not in planted:
                self.false += 1
                self.accused |= {(label, s) for s in pair}
        n = len(synthetic.honest)
        self.honest_pairs += n * (n - 1) // 2

    def recall(self, names) -> tuple[int, int]:
        return sum(self.found[d][0] for d in names), sum(self.found[d][1] for d in names)

    def precision(self) -> str:
        listed = self.recall(PLANTED)[0]
        return f"{listed / (listed + self.false):.3f}" if listed + self.false else "nothing listed"


def run_classes(scratch: Path, size: int, assignments: list[str], seeds: list[int], copies: int,
                times: dict) -> dict:
    """Build and compare every class of one size; tallies by (track, reading)."""
    tallies = defaultdict(Tally)
    turn = itertools.cycle(PLANTED)
    for assignment, seed in itertools.product(assignments, seeds):
        copiers = tuple(PLANTED) * copies if size >= 100 else tuple(next(turn) for _ in range(copies))
        honest = size - len(copiers) - copiers.count("ring")
        submitted = scratch / f"{size}-{assignment}-{seed}"
        synthetic = build(submitted, assignment, honest, seed, copiers=copiers)
        if size >= 100:
            times[assignment] = timed_command(submitted, scratch / "out", assignment)
        answers = sim.read_class(submitted, assignment, synthetic.students)
        label = f"{assignment}-{seed}"
        for track in sim.TRACKS:
            if not answers.cells[track.name]:
                continue
            tallies[track.name, "all readings"].add(sim.Comparison(answers, track), synthetic, label)
            lower = sim.Options(**{"threshold" if track.name == "code" else "written_threshold":
                                   LOWER_LINE[track.name]}).tracks()[0 if track.name == "code" else 1]
            tallies[track.name, f"line at {lower.threshold:g}"].add(sim.Comparison(answers, lower), synthetic, label)
            for reading, combine in ONE_READING[track.name].items():
                tallies[track.name, reading].add(sim.Comparison(answers, replace(track, combine=combine)), synthetic,
                                                 label)
        print(f"{size} students, {assignment}, seed {seed}: done", flush=True)
    return tallies


def _share(found: tuple[int, int]) -> str:
    listed, total = found
    return f"{listed}/{total} ({listed / total:.0%})" if total else "-"


def table(tallies: dict, track: str) -> list[str]:
    readings = ["all readings", f"line at {LOWER_LINE[track]:g}"] + list(ONE_READING[track])
    lines = ["| disguise | held out | " + " | ".join(readings) + " |", "|---|---|" + "---|" * len(readings)]
    for disguise in PLANTED:
        if not tallies[track, "all readings"].found[disguise][1]:
            continue
        lines.append(f"| {disguise} | {'yes' if disguise in HELD_OUT else ''} | "
                     + " | ".join(_share(tuple(tallies[track, r].found[disguise])) for r in readings) + " |")
    for group in (SWAPPED, SWAPPED_RARE):
        if tallies[track, "all readings"].found[group][1]:
            lines.append(f"| **{group}** (any disguise) | | "
                         + " | ".join(_share(tuple(tallies[track, r].found[group])) for r in readings) + " |")
    for label, names in (("**tuned disguises**", TUNED), ("**held-out disguises**", HELD_OUT)):
        lines.append(f"| {label} | | " + " | ".join(_share(tallies[track, r].recall(names)) for r in readings) + " |")
    lines.append("| honest pairs listed (false accusations) | | " + " | ".join(
        f"{tallies[track, r].false} of {tallies[track, r].honest_pairs}" for r in readings) + " |")
    lines.append("| honest students named | | " + " | ".join(
        str(len(tallies[track, r].accused)) for r in readings) + " |")
    lines.append("| **precision** | | " + " | ".join(tallies[track, r].precision() for r in readings) + " |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignments", nargs="+", default=ASSIGNMENTS)
    parser.add_argument("--seeds", type=int, nargs="+", default=SEEDS)
    parser.add_argument("--quick", action="store_true", help="one seed at 30 students, and no class of 300")
    args = parser.parse_args()
    report = result_files.header("Similarity report: recall per disguise, precision, time", result_files.stamp())
    report += [f"- classes: tests/synthetic_class.py, assignments {', '.join(args.assignments)}; seeds "
               f"{', '.join(map(str, args.seeds))}",
               f"- thresholds: code {sim.CODE.threshold:g} with at least {sim.CODE.min_cells} cells agreeing; "
               f"written {sim.WRITTEN.threshold:g}",
               "- disguises: " + "; ".join(f"{name}{' (held out)' if d.held_out else ''}" for name, d in PLANTED.items()),
               ""]
    sizes = [(30, args.seeds[:1] if args.quick else args.seeds, 4)] + ([] if args.quick else [(300, args.seeds[:1], 3)])
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for size, seeds, copies in sizes:
            tallies = run_classes(Path(scratch), size, args.assignments, seeds, copies, times)
            count = len(args.assignments) * len(seeds)
            report += [f"## {size} students ({count} classes)", "",
                       "Planted pairs listed, per disguise, with every reading (at the default line, and at a lower "
                       "one) and with one reading alone:", "",
                       "Code answers:", ""] + table(tallies, "code")
            report += ["", "Written answers (assignments that have them):", ""] + table(tallies, "written") + [""]
    if times:
        report += ["## Time for 300 students", "",
                   "`python -m autograder similarity NN`, a fresh process (reading, fingerprinting, comparing and "
                   "writing the CSV files and the page), 300 students:", ""]
        report += [f"- {name}: {seconds:.1f} s" for name, seconds in times.items()]
    report += ["", f"Load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}.", ""]
    result_files.write("similarity_scale.md", report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
