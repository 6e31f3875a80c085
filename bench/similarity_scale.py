"""The similarity report on a synthetic class of 300: where the planted copies rank, how many honest students it
lists, and how long ``python -m autograder similarity`` takes.

    python bench/similarity_scale.py                     # 300 students of ex2_lr_finder, three classes
    python bench/similarity_scale.py --all-assignments   # and 300 students x every assignment, one run of --all

The classes come from tests/synthetic_class.py (honest students written from the course's right answers, five
planted copies, each disguised another way), with seeds that neither the tests nor the choice of the thresholds
used. Each timed run is a fresh ``python -m autograder similarity`` process, its start included; building the
class is not timed. The ranks come from the same comparison, in this process.

Writes bench/results/similarity_scale.md (stamped with the date, the machine, the commit and the command), which
docs/similarity.md links to. A benchmark, not a test: its times depend on the machine and on whatever else runs on
it (the load average is written too).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from autograder.classroom import similarity as sim  # noqa: E402
from autograder.core import course  # noqa: E402
import result_files  # noqa: E402  (bench/result_files.py)
from synthetic_class import PLANTED, build  # noqa: E402



def timed_command(submitted: Path, out: Path, names: list[str]) -> float:
    command = [sys.executable, "-m", "autograder", "similarity", *names, "--submitted", str(submitted), "--out", str(out)]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "MPLBACKEND": "Agg"})
    return time.perf_counter() - start


def measure(submitted: Path, synthetic) -> dict:
    """Ranks of the planted copies and the honest pairs listed, on both tracks."""
    answers = sim.read_class(submitted, synthetic.assignment, synthetic.students)
    planted = {frozenset(pair): synthetic.disguise[copier] for copier, pair in
               ((c, (c, s)) for c, s in synthetic.copies.items())}
    found = {}
    for track in sim.TRACKS:
        if not answers.cells[track.name]:
            continue
        comparison = sim.Comparison(answers, track)
        ranked = comparison.ranked()
        ranks = {planted[frozenset((a, b))]: (rank, score) for rank, (a, b, score) in enumerate(ranked, start=1)
                 if frozenset((a, b)) in planted}
        listed = comparison.listed()
        false = [p for p in listed if frozenset((p.a, p.b)) not in planted]
        n = len(synthetic.honest)
        found[track.name] = {"ranks": ranks, "listed": len(listed), "false": len(false),
                             "accused": len({s for p in false for s in (p.a, p.b) if s in synthetic.honest}),
                             "honest_pairs": n * (n - 1) // 2}
    return found


def _rank_cell(found: dict, disguise: str) -> str:
    rank, score = found["ranks"].get(disguise, (None, 0.0))
    return f"{rank} ({score:.2f})" if rank else "not ranked (0)"


def table(rows: list[tuple[str, dict]], track: str, threshold: float) -> list[str]:
    lines = [f"| class | {' | '.join(PLANTED)} | listed | honest pairs listed (false accusations) | honest students named |",
             "|" + "---|" * (len(PLANTED) + 4)]
    for label, found in rows:
        if track not in found:
            continue
        f = found[track]
        lines.append(f"| {label} | " + " | ".join(_rank_cell(f, d) for d in PLANTED) +
                     f" | {f['listed']} | {f['false']} of {f['honest_pairs']} | {f['accused']} |")
    listed = sum(f[track]["listed"] for _, f in rows if track in f)
    false = sum(f[track]["false"] for _, f in rows if track in f)
    planted_listed = listed - false
    lines += ["", f"At the threshold {threshold:g}: {planted_listed} of {sum(len(PLANTED) for _, f in rows if track in f)} "
                  f"planted copies listed, {false} honest pairs listed; precision "
                  f"{planted_listed / listed:.2f}" if listed else f"At the threshold {threshold:g}: nothing listed"]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", default="ex2_lr_finder")
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--seeds", type=int, nargs="+", default=[101, 102, 103])
    parser.add_argument("--all-assignments", action="store_true",
                        help="also: the whole course, --students each, compared in one run of --all")
    args = parser.parse_args()
    honest = args.students - len(PLANTED)
    load_before = os.getloadavg()
    report = result_files.header("Similarity report at scale", result_files.stamp()) + [
              f"- class: {args.students} students ({honest} honest, {len(PLANTED)} planted copies: "
              + ", ".join(f"{k} = {' + '.join(v)}" for k, v in PLANTED.items()) + ")",
              f"- thresholds: code {sim.CODE.threshold:g} with at least {sim.CODE.min_cells} cells agreeing; "
              f"written {sim.WRITTEN.threshold:g}", ""]
    rows, times = [], []
    with tempfile.TemporaryDirectory() as scratch:
        for seed in args.seeds:
            submitted = Path(scratch) / f"seed-{seed}"
            synthetic = build(submitted, args.assignment, honest, seed)
            times.append(timed_command(submitted, Path(scratch) / f"out-{seed}", [args.assignment]))
            rows.append((f"{args.assignment}, seed {seed}", measure(submitted, synthetic)))
            print(f"seed {seed}: {times[-1]:.1f} s", flush=True)
        report += [f"## {args.students} students of {args.assignment}", "",
                   "Time of `python -m autograder similarity " + args.assignment + "` (a fresh process, reading, "
                   "fingerprinting, comparing and writing the CSV files and the page): "
                   + ", ".join(f"{t:.1f} s" for t in times) + ".", "",
                   "Rank of each planted copy among all pairs (its score), and what the report lists:", "",
                   "Code answers:", ""] + table(rows, "code", sim.CODE.threshold)
        if any("written" in f for _, f in rows):
            report += ["", "Written answers:", ""] + table(rows, "written", sim.WRITTEN.threshold)
        if args.all_assignments:
            submitted = Path(scratch) / "course"
            classes = [build(submitted, name, honest, args.seeds[0]) for name in course.assignments()]
            seconds = timed_command(submitted, Path(scratch) / "out-course", ["--all"])
            print(f"every assignment: {seconds:.1f} s", flush=True)
            course_rows = [(c.assignment, measure(submitted, c)) for c in classes]
            report += ["", f"## {args.students} students x {len(classes)} assignments (seed {args.seeds[0]})", "",
                       f"Time of `python -m autograder similarity --all` over {args.students * len(classes)} notebooks: "
                       f"{seconds:.0f} s ({seconds / 60:.1f} min).", "", "Code answers:", ""] + \
                table(course_rows, "code", sim.CODE.threshold) + ["", "Written answers:", ""] + \
                table(course_rows, "written", sim.WRITTEN.threshold)
    report += ["", f"Load average (1, 5, 15 min) before: {' '.join(f'{x:.2f}' for x in load_before)}; after: "
                   f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}.", ""]
    result_files.write("similarity_scale.md", report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
