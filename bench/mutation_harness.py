"""The cell harness against full gradings, side by side, and the full mutation run of the course.

    python bench/mutation_harness.py                 # 01_tensors: a sample of mutants tried both ways, one run
    python bench/mutation_harness.py --sample 12 --assignment 04_losses_optimizers
    python bench/mutation_harness.py --all           # and every assignment's full mutation run, timed

Trying a mutant (or a variant) the way a student's submission is graded means a whole grading: a box, a fresh kernel,
every cell of the lesson, the hidden tests. The cell harness (autograder/authoring/harness.py) runs the notebook once
and forks each trial from the cell it replaces. This script times both on the same mutants, in one process, one after
the other (the harness's run includes loading the notebook once; the gradings include nothing the harness skips but
the sandbox), and checks that they agree on which lose points. With ``--all`` it then runs
``python -m autograder mutants NN`` for every assignment and records how long each took and its scores.

Writes bench/results/mutation_harness.md (stamped with the date, the machine, the commit and the command). A
benchmark, not a test: its times depend on the machine and on whatever else runs on it (the load average is written
too). tests/test_harness_agrees_with_grade.py checks the agreement on a fixed sample in the suite.
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

from autograder.authoring import harness, mutants  # noqa: E402
from autograder.core import course, notebooks  # noqa: E402
from autograder.grading.sandbox import unavailable_reason  # noqa: E402
from autograder.scale.grade import grade  # noqa: E402
import result_files  # noqa: E402  (bench/result_files.py)
from submission_factory import student_copy, without_solution_markers  # noqa: E402


def side_by_side(assignment: str, sample: int) -> None:
    chosen = mutants.all_mutants(assignment)[:: max(1, len(mutants.all_mutants(assignment)) // sample)][:sample]
    trials = [harness.Trial(m.id, m.grade_id, m.source) for m in chosen]
    harness.run(assignment, trials[:1])   # the reference run, once, for both ways (it is cached)

    start = time.perf_counter()
    by_harness = harness.run(assignment, trials)
    harness_s = time.perf_counter() - start

    with tempfile.TemporaryDirectory() as scratch:
        submissions = Path(scratch) / "submissions"
        for k, mutant in enumerate(chosen):
            notebooks.write(student_copy(assignment, replace={mutant.grade_id: without_solution_markers(mutant.source)}),
                            submissions / f"m{k}" / assignment / f"{assignment}.ipynb")
        start = time.perf_counter()
        graded = grade(submissions, Path(scratch) / "out", jobs=1, runner="cpu",
                       unsafe_no_sandbox=unavailable_reason() is not None)
        grading_s = time.perf_counter() - start

    by_student = {r.student: r for r in graded}
    agree = 0
    for k, outcome in enumerate(by_harness):
        tested = {t.grade_id for t in outcome.tests}
        lost_h = {t.grade_id for t in outcome.tests if t.score < t.points}
        lost_g = {c.cell for c in by_student[f"m{k}"].cells if c.cell in tested and c.score < c.max_score}
        agree += lost_h == lost_g
    print(f"{assignment}: {len(chosen)} mutants")
    print(f"  cell harness (one run of the notebook, a fork per mutant): {harness_s:8.1f} s")
    print(f"  full gradings (a box and a kernel per mutant):             {grading_s:8.1f} s")
    print(f"  ratio (gradings / harness): {grading_s / harness_s:.1f}x; the two agree on {agree} of {len(chosen)}")


def full_run() -> None:
    print("\nThe full mutation run (python -m autograder mutants NN), one assignment after another:")
    total = 0.0
    for name in course.assignments():
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "autograder", "mutants", name], capture_output=True, text=True,
                              env={**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"})
        seconds = time.perf_counter() - start
        total += seconds
        scores = [line.split(None, 2)[2] for line in done.stdout.splitlines() if "killed (" in line]
        print(f"  {name:<22} {seconds:7.0f} s  " + "; ".join(s.split(" killed")[0].strip() for s in scores))
    print(f"  all assignments: {total / 60:.0f} min")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", default="01_tensors")
    parser.add_argument("--sample", type=int, default=8, help="mutants tried both ways (default 8)")
    parser.add_argument("--all", action="store_true", help="also time the full mutation run of every assignment")
    args = parser.parse_args()
    with result_files.recorded("mutation_harness.md", "The cell harness against full gradings, and the full mutation run"):
        side_by_side(args.assignment, args.sample)
        if args.all:
            full_run()


if __name__ == "__main__":
    main()
