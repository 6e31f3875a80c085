"""grade's progress: a tqdm bar redrawn in place on a terminal, plain lines elsewhere (Slurm logs, pipes)."""

from __future__ import annotations

import io

from autograder.scale.progress import Progress, duration
from autograder.grading.results import SubmissionResult


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def finish(progress: Progress, clock: Clock, status: str, seconds: float, cost: float, name: str = "s") -> None:
    clock.now += seconds
    progress.report(SubmissionResult(name, "01_tensors", status), f"{name} 01_tensors {status}", cost)


def test_on_a_terminal_a_bar_is_redrawn_below_each_submission_line():
    stream, clock = Terminal(), Clock()
    progress = Progress([10.0, 10.0, 80.0], stream=stream, clock=clock)
    finish(progress, clock, "graded", 10, 10.0, "alice")
    finish(progress, clock, "error", 10, 10.0, "bob")
    text = stream.getvalue()
    assert "\r" in text, "the bar is redrawn in place"
    assert "alice 01_tensors graded\n" in text and "bob 01_tensors error\n" in text
    last = text.rsplit("\n", 1)[1].rsplit("\r", 1)[1]   # what the terminal shows on the bar's line now
    assert last.startswith("|") and "2/3 done, 1 failed" in last and "about 1 min left" in last  # 80 s left at 1 s per s
    assert last.count("#") < 24 // 2, "the bar advances by measured cost: 20 of 100 s done"
    finish(progress, clock, "graded", 80, 80.0, "carol")
    progress.close()
    text = stream.getvalue()
    assert text.endswith("3/3 done, 1 failed, done in 2 min\n")
    assert text.rsplit("\r", 1)[1].startswith("|" + "#" * 24 + "|"), "full at the end"


def test_elsewhere_plain_lines_with_progress_at_each_tenth():
    stream, clock = io.StringIO(), Clock()
    progress = Progress([5.0] * 20, stream=stream, clock=clock)
    for k in range(20):
        finish(progress, clock, "graded" if k % 7 else "incomplete", 5, 5.0, f"s{k}")
    progress.close()
    text = stream.getvalue()
    assert "\r" not in text and "\033" not in text
    lines = text.splitlines()
    assert sum(line.startswith("s") for line in lines) == 20, "one line per graded submission, as before"
    marks = [line for line in lines if line.startswith("progress: ")]
    assert len(marks) == 10
    assert marks[0] == "progress: 2/20 done, 1 failed, about 2 min left"  # 90 s of 100 left
    assert marks[-1] == "progress: 20/20 done, 3 failed, done in 2 min"


def test_time_left_weighs_the_remaining_work_by_measured_time():
    stream, clock = io.StringIO(), Clock()
    progress = Progress([10.0, 600.0], stream=stream, clock=clock)
    finish(progress, clock, "graded", 20, 10.0)  # twice as slow as measured: 600 s measured left -> 20 min
    assert "about 20 min left" in stream.getvalue()


def test_not_submitted_is_no_failure_and_durations_read_well():
    stream, clock = io.StringIO(), Clock()
    progress = Progress([0.05], stream=stream, clock=clock)
    finish(progress, clock, "not submitted", 0, 0.05)
    assert "1/1 done, 0 failed" in stream.getvalue()
    assert [duration(s) for s in (4, 59.4, 61, 3599, 3600, 3 * 3600 + 5 * 60)] == [
        "4 s", "59 s", "1 min", "1 h 00 min", "1 h 00 min", "3 h 05 min"]
