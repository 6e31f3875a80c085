"""Grading a class in shards: the partition, and merge giving exactly what one unsharded grade gives.

The plan must be the same wherever a shard computes it; the merged grades.csv, cells.csv, feedback
pages and summary must equal a serial run's (the seconds aside); a shard that died is named with
the pairs it missed, and re-running just that shard completes the class.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import cli
from autograder.core import course, notebooks
from autograder.scale import estimate, shard_results, shards, timings
from autograder.scale.grade import grade
from autograder.scale.merge import MergeError, MissingShards, merge
from autograder.grading.results import CellResult, SubmissionResult
from autograder.grading.sandbox import unavailable_reason
from grading_compare import ASSIGNMENTS, quiet, assert_same_class, summary_of
from submission_factory import student_copy

WRONG_COUNT = "def count_labels(labels, num_classes=10):\n    return torch.bincount(labels)\n"


# --- the plan -------------------------------------------------------------------------------------

def test_parse_shard():
    assert shards.parse_shard("0/1") == (0, 1) and shards.parse_shard("3/4") == (3, 4)
    for bad in ("4/4", "-1/2", "1", "a/b", "0/0", "1/2/3"):
        with pytest.raises(Exception, match="K"):
            shards.parse_shard(bad)


def test_the_partition_gives_every_task_once_and_balances_by_time():
    rng = random.Random(13)
    for _ in range(50):
        costs = [rng.choice(list(timings.SECONDS.values())) for _ in range(rng.randint(1, 120))]
        n = rng.randint(1, 9)
        owners = shards.partition(costs, n)
        assert len(owners) == len(costs) and set(owners) <= set(range(n))
        assert owners == shards.partition(list(costs), n), "the same input must give the same plan"
        loads = [sum(c for c, o in zip(costs, owners) if o == k) for k in range(n)]
        assert max(loads) <= sum(costs) / n + max(costs) + 1e-9  # greedy longest-first bound
        if len(costs) >= n:
            assert max(loads) - min(loads) <= max(costs) + 1e-9


def test_long_assignments_are_spread_over_the_shards():
    tasks = [(a, f"s{i}") for a in ("00_setup", "ex5_sgd_momentum") for i in range(4)]
    plan = shards.Plan(tuple(tasks), tuple(shards.partition([timings.expected(a) for a, _ in tasks], 4)),
                       tuple(timings.expected(a) for a, _ in tasks), 4)
    for k in range(4):
        assert [a for a, _ in plan.mine(k)] == ["00_setup", "ex5_sgd_momentum"]


def _tiny_class(root: Path) -> Path:
    for student in ("b", "a", "-h", "=1+1", ".hidden", "ü ß"):
        for assignment in course.assignments()[:3]:
            if (student, assignment) != ("b", course.assignments()[1]):
                (root / student / assignment).mkdir(parents=True)
    return root


def _plan_elsewhere(submissions: Path, n: int, seed: str) -> str:
    code = ("import sys; from pathlib import Path; from autograder.grading import intake; from autograder.scale import shards; "
            "s, a = intake.discover(Path(sys.argv[1]), None); "
            "p = shards.make_plan(Path(sys.argv[1]), [(x, y) for x in a for y in s], int(sys.argv[2])); "
            "print(p.fingerprint(), p.owners)")
    env = {**os.environ, "PYTHONHASHSEED": seed, "LC_ALL": "C.UTF-8"}
    return subprocess.run([sys.executable, "-c", code, str(submissions), str(n)], env=env, capture_output=True,
                          text=True, check=True).stdout


def test_every_shard_computes_the_same_plan_wherever_it_runs(tmp_path):
    subs = _tiny_class(tmp_path / "subs")
    assert _plan_elsewhere(subs, 3, "1") == _plan_elsewhere(subs, 3, "987654")
    from autograder.grading import intake

    students, assignments = intake.discover(subs, None)
    plan = shards.make_plan(subs, [(a, s) for a in assignments for s in students], 3)
    mine = [plan.mine(k) for k in range(3)]
    assert sorted(t for part in mine for t in part) == sorted(plan.tasks)
    missing = (course.assignments()[1], "b")
    assert plan.costs[plan.tasks.index(missing)] == timings.NOT_SUBMITTED_S


def test_a_record_keeps_every_value_exactly(tmp_path):
    plan = shards.Plan((("a1", "x"),), (0,), (1.0,), 1)
    recorder = shard_results.Recorder(tmp_path, plan, 0, tmp_path)
    odd = SubmissionResult("=HYPERLINK(\"x\")\udcff\n'", "a1", "graded", "reason, with \"quotes\"\nand a line",
                           1.25, [CellResult("c=1", 0.1 + 0.2, 2, "passed")], ["-flag", "@two"], "none (why)")
    recorder.add(odd)
    recorder.finish(3.5)
    record = shard_results.read(tmp_path)
    assert record.finished and record.seconds == 3.5 and record.fingerprint == plan.fingerprint()
    assert record.results[("a1", odd.student)] == odd


def _fake_shard(folder: Path, plan: shards.Plan, k: int, finish: bool = True) -> None:
    """A shard's record and pages as grade would leave them, without grading anything."""
    recorder = shard_results.Recorder(folder, plan, k, folder)
    for assignment, student in plan.mine(k):
        page = folder / "feedback" / student / f"{assignment}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"<p>{student} {assignment}</p>")
        recorder.add(SubmissionResult(student, assignment, "graded", "", 1.0, [CellResult("t", 1, 1, "passed")], [],
                                      "bubblewrap"))
    if finish:
        recorder.finish(2.0)


def test_merge_waits_for_shards_still_running_then_names_them(tmp_path):
    tasks = [("a1", s) for s in ("x", "y", "z")]
    plan = shards.Plan(tuple(tasks), tuple(shards.partition([1.0] * 3, 2)), (1.0,) * 3, 2)
    _fake_shard(tmp_path / "s0", plan, 0)
    _fake_shard(tmp_path / "s1", plan, 1, finish=False)
    results, printed = quiet(merge, [tmp_path / "s0", tmp_path / "s1"], tmp_path / "out", wait_s=0.5)
    assert [r.student for r in results] == ["x", "y", "z"]  # every result there: merged, unfinished flag or not
    assert (tmp_path / "out" / "feedback" / "y" / "a1.html").read_text() == "<p>y a1</p>"
    assert "Graded 3 student(s), 3 submission(s) in 2 s." in printed
    (tmp_path / "s1" / shard_results.RESULTS).write_text("")  # shard 1 has graded nothing yet
    started = time.monotonic()
    with pytest.raises(MissingShards) as caught:
        quiet(merge, [tmp_path / "s0", tmp_path / "s1"], tmp_path / "out2", wait_s=0.5)
    assert time.monotonic() - started >= 0.5 and caught.value.missing == {1: plan.mine(1)}


def test_progress_and_timings_share_the_measured_figures():
    assert timings.expected("ex5_sgd_momentum") == timings.SECONDS["ex5_sgd_momentum"]
    assert timings.expected("ex5_sgd_momentum", submitted=False) == timings.NOT_SUBMITTED_S
    assert timings.expected("a-new-lesson") == timings.UNMEASURED_S
    assert set(timings.SECONDS) == set(course.assignments()), "measure new assignments: bench/grading_throughput.py --measure"


def test_the_docs_show_the_figures_timings_computes():
    text = estimate.DOC.read_text(encoding="utf-8")
    assert estimate.doc_section() in text, "run: python -m autograder.scale.estimate --write"


# --- merge == serial ------------------------------------------------------------------------------

STUDENTS = ("ann.lee@uni.example", "s-2027_007", "zed")
NOT_AN_ID = "-h"   # a folder no person has as an id: a row that says so in every shard, never graded


def _class(root: Path) -> Path:
    """Three students, two short assignments: complete, blank, one mistake, and one pair not handed in; and a folder
    whose name is no student id."""
    first, second, third = STUDENTS
    for name in ASSIGNMENTS:
        notebooks.write(student_copy(name), root / first / name / f"{name}.ipynb")
        notebooks.write(notebooks.read(course.lesson_notebook(name)), root / second / name / f"{name}.ipynb")
        notebooks.write(student_copy(name), root / NOT_AN_ID / name / f"{name}.ipynb")
    notebooks.write(student_copy("00_setup", replace={"count-labels": WRONG_COUNT}),
                    root / third / "00_setup" / "00_setup.ipynb")
    return root


needs_sandbox = pytest.mark.skipif(unavailable_reason() is not None, reason=f"needs the sandbox: {unavailable_reason()}")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("sharded")
    subs = _class(root / "subs")
    serial, serial_out = quiet(grade, subs, root / "serial", runner="cpu")
    outs = [root / f"shard-{k}" for k in range(2)]
    shard_outputs = [quiet(grade, subs, outs[k], runner="cpu", shard=(k, 2))[1] for k in range(2)]
    return subs, root, serial_out, outs, shard_outputs


@pytest.mark.slow
@needs_sandbox
def test_merged_shards_equal_one_serial_grade(graded, tmp_path):
    subs, root, serial_out, outs, shard_outputs = graded
    results, merge_out = quiet(merge, outs, tmp_path / "merged")
    assert_same_class(tmp_path / "merged", root / "serial")
    assert summary_of(merge_out) == summary_of(serial_out)
    assert [(r.student, r.assignment) for r in results] == [(s, a) for a in ASSIGNMENTS for s in sorted([*STUDENTS, NOT_AN_ID])]
    assert {r.status for r in results if r.student == NOT_AN_ID} == {"not a student id"}
    # each shard graded a part, both parts together once each
    records = [shard_results.read(out) for out in outs]
    assert all(r.finished and r.results for r in records)
    assert sorted(k for r in records for k in r.results) == sorted(records[0].plan.tasks)
    for output in shard_outputs:
        assert re.search(r"^shard \d/2: \d+ of 8 submissions", output, re.M)
        assert "progress: " in output and "\r" not in output


@pytest.mark.slow
@needs_sandbox
def test_a_dead_shard_is_named_with_its_pairs_and_a_rerun_completes_the_class(graded, tmp_path):
    subs, root, _, outs, _ = graded
    died = tmp_path / "shard-1"
    shutil.copytree(outs[1], died)
    record = shard_results.read(died)
    lines = (died / shard_results.RESULTS).read_text().splitlines()
    (died / shard_results.RESULTS).write_text(lines[0] + "\n" + lines[1][:25])  # killed while writing its second result
    manifest = json.loads((died / shard_results.MANIFEST).read_text())
    (died / shard_results.MANIFEST).write_text(json.dumps({**manifest, "finished": False}))
    first = shard_results.from_json(lines[0])
    expected_missed = [t for t in record.plan.mine(1) if t != (first.assignment, first.student)]

    with pytest.raises(MissingShards) as caught:
        quiet(merge, [outs[0], died], tmp_path / "merged")
    assert caught.value.missing == {1: expected_missed}
    message = str(caught.value)
    assert "shard 1/2" in message and str(died) in message and f"--shard 1/2 --out {died}" in message
    for assignment, student in expected_missed:
        assert f"{student} / {assignment}" in message
    assert not (tmp_path / "merged" / "grades.csv").exists(), "nothing is written while a shard is missing"

    # the command line says the same, with exit code 4
    code, printed = quiet(cli.main, ["merge", str(outs[0]), str(died), "--out", str(tmp_path / "merged"),
                                      "--rerun-hint", "sbatch --array={shards} shards.sbatch"])
    assert code == 4 and "sbatch --array=1 shards.sbatch" in printed

    quiet(grade, subs, died, runner="cpu", shard=(1, 2))  # re-run just that shard
    quiet(merge, [outs[0], died], tmp_path / "merged")
    assert_same_class(tmp_path / "merged", root / "serial")


@pytest.mark.slow
@needs_sandbox
def test_a_shard_that_never_started_is_named_by_its_folder(graded, tmp_path):
    _, _, _, outs, _ = graded
    never = tmp_path / "shard-1"
    never.mkdir()
    with pytest.raises(MissingShards) as caught:
        merge([never, outs[0]], tmp_path / "merged")
    plan = shard_results.read(outs[0]).plan
    assert caught.value.missing == {1: plan.mine(1)} and caught.value.folders[1] == never.resolve()


@pytest.mark.slow
@needs_sandbox
def test_shards_of_different_plans_or_given_twice_are_refused(graded, tmp_path):
    _, _, _, outs, _ = graded
    other = tmp_path / "other"
    shutil.copytree(outs[1], other)
    manifest = json.loads((other / shard_results.MANIFEST).read_text())
    manifest["tasks"] = manifest["tasks"][:-1] + [["01_tensors", "a-student-added-later"]]
    (other / shard_results.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(MergeError, match="different plans"):
        merge([outs[0], other], tmp_path / "merged")
    with pytest.raises(MergeError, match="in both"):
        merge([outs[0], outs[0]], tmp_path / "merged")
