"""The cell harness (autograder/authoring/harness.py): one run of a notebook, each trial forked from it.

Lesson 00 is the quickest notebook; its ``count-labels`` cell stands for any graded cell. Every behaviour the
variants and the mutants rely on is tried in one harness run: a right answer keeps every point, a wrong one is
caught (and stopped at the first failing check), an answer that raises on its own says so, one that ends its
process or never ends is stopped and counted as a lost point, and no trial sees what another did.
"""

from __future__ import annotations

import os

import pytest

from autograder.authoring import harness
from autograder.authoring.harness import Trial

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

SIGNATURE = "def count_labels(labels, num_classes=10):\n"
TRIALS = {
    # another correct spelling: every point kept
    "right": SIGNATURE + "    return torch.nn.functional.one_hot(labels, num_classes).sum(0)\n",
    # forgets the classes that never appear: caught, and the trial stops there
    "wrong": SIGNATURE + "    return torch.bincount(labels)\n",
    # breaks the notebook's state for whoever runs after it in the same process: no other trial may see it
    "vandal": "import torch as _t\n_t.bincount = lambda *a, **k: _t.zeros(1, dtype=_t.long)\n" + SIGNATURE
              + "    return _t.bincount(labels, minlength=num_classes)\n",
    # the cell itself raises: reported as the trial's own error
    "raises": SIGNATURE + "    return 0\nraise RuntimeError('this cell is broken')\n",
    # ends its process from the cell: the trial is stopped, never the run
    "exits": "import os\nos._exit(3)\n",
    # never finishes: stopped at the time limit
    "hangs": "while True:\n    pass\n",
}


@pytest.fixture(scope="module")
def outcomes() -> dict[str, harness.Outcome]:
    order = ["vandal", "right", "wrong", "raises", "exits", "hangs"]
    trials = [Trial(key, "count-labels", TRIALS[key], first_catch=key != "right") for key in order]
    return dict(zip(order, harness.run("00_setup", trials, jobs=2, limit_s=20)))


def test_a_right_answer_keeps_every_point_and_a_wrong_one_loses_some(outcomes):
    right, wrong = outcomes["right"], outcomes["wrong"]
    assert not right.lost_points and not right.own_error and [t.grade_id for t in right.tests] == ["count-labels-tests"]
    assert right.tests[0].score == right.tests[0].points == 1
    assert wrong.lost_points and wrong.tests[0].score == 0 and "count_labels" in wrong.first_failure


def test_a_vandal_trial_changes_nothing_for_the_others(outcomes):
    """The vandal ran first, in the same state; the right answer after it still gets every point."""
    assert outcomes["vandal"].lost_points
    assert not outcomes["right"].lost_points


def test_a_cell_that_raises_is_reported_as_its_own_error(outcomes):
    assert "RuntimeError: this cell is broken" in (outcomes["raises"].own_error or "")


def test_a_trial_that_ends_its_process_or_never_ends_is_stopped_and_loses_points(outcomes):
    assert outcomes["exits"].stopped.startswith("crashed") and outcomes["exits"].lost_points
    assert outcomes["hangs"].stopped == "time limit" and outcomes["hangs"].lost_points


def test_trials_of_a_cell_that_is_not_a_solution_cell_are_refused():
    with pytest.raises(harness.HarnessError, match="not solution cells"):
        harness.run("00_setup", [Trial("x", "no-such-cell", "pass")])


def test_a_record_written_just_before_its_cell_ends_is_judged_with_it(tmp_path):
    """The child writes a check's record, then the event that ends its cell; the parent reads them from two files. A
    record written between the parent's two reads must still count (under load it was lost: "never reported")."""
    seen = []

    class Judge:
        def cell(self, gid, points, records, error):
            seen.append(records)
            return harness.TestOutcome(gid, points, points)

    channel, events = tmp_path / "channel.jsonl", tmp_path / "events.jsonl"
    channel.write_text("")
    events.write_text('{"start": "t"}\n')

    wrote = []

    class ChildWritesBetweenReads(harness._Lines):
        def new(self):
            found = super().new()
            if not wrote:   # the child, between the parent's two reads: the cell's last record, then its end
                wrote.append(True)
                with open(channel, "a") as out:
                    out.write('{"record": 1, "cell": "t", "name": "last check"}\n')
                with open(events, "a") as out:
                    out.write('{"end": "t"}\n')
            return found

    children = harness._Children(1, 10, tmp_path, Judge(), lambda _: None)
    run = harness._Running({"key": "k", "grade_id": "g"}, [("t", 1.0, "")], 0.0, ChildWritesBetweenReads(events),
                           ChildWritesBetweenReads(channel), outcome=harness.Outcome("k", "g"))
    for _ in range(2):
        children._read(run)
    assert seen and [r["name"] for r in seen[0]] == ["last check"]


def test_a_worker_that_imports_another_copy_of_the_course_refuses_to_judge(tmp_path):
    assert harness._foreign_code({"root": str(harness._code_root())}) is None
    said = harness._foreign_code({"root": str(tmp_path)})
    assert str(tmp_path) in said and "make install" in said


def test_progress_bars_use_a_lock_of_their_own_process():
    """tqdm's default lock is shared across processes: a trial killed while it held it hung every later bar. The
    harness's processes take a lock of their own (and tqdm.auto's bars follow it)."""
    from tqdm import tqdm
    from tqdm.auto import tqdm as auto_tqdm

    before = {kind: kind.get_lock() for kind in (tqdm, auto_tqdm)}
    try:
        harness._private_progress_lock()
        assert type(tqdm.get_lock()).__name__ == "RLock" and auto_tqdm.get_lock() is tqdm.get_lock()
        with open(os.devnull, "w") as sink, auto_tqdm(range(2), file=sink) as bar:
            list(bar)
    finally:
        for kind, lock in before.items():
            kind.set_lock(lock)
