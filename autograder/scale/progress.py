"""How far a long ``grade`` has come: done / total, failures so far, and the time left.

On a terminal, a tqdm bar on the last line, with each submission's line printed above it (``tqdm.write``).
Elsewhere (a Slurm log, a pipe, a CI log) plain lines only: each submission's line as before, and a
progress line at every tenth of the work and at the end, with no control characters.

The bar advances by each submission's measured cost (its assignment's time, timings.py), not by one per
submission, and the time left weighs the remaining submissions the same way, so that a run that starts with
short notebooks does not promise to end too early.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable, TextIO

from tqdm import tqdm

from ..grading.results import SubmissionResult
from ..core.settings import FINISHED

BAR_FORMAT = "|{bar:24}| {desc}"   # tqdm draws the bar; the words after it are ours (status())


def duration(seconds: float) -> str:
    """``seconds`` in words a person reads at a glance: '40 s', '12 min', '3 h 05 min'."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def failed(result: SubmissionResult) -> bool:
    """A submission the grader could not grade in full (the same rule as grade's exit code)."""
    return result.status not in FINISHED


class Progress:
    """Thread-safe: ``grade --jobs`` reports from several threads."""

    def __init__(self, costs: list[float], stream: TextIO | None = None, tty: bool | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.costs = list(costs)
        self.stream = stream if stream is not None else sys.stdout
        self.tty = _isatty(self.stream) if tty is None else tty
        self.clock = clock
        self.start = clock()
        self.done = 0
        self.failed = 0
        self.done_cost = 0.0
        self.total_cost = sum(self.costs)
        self._next_tenth = 1
        self._lock = threading.Lock()
        self._bar = None
        if self.tty and self.costs:
            # mininterval=0: a submission takes seconds, so every one may redraw the bar
            self._bar = tqdm(total=self.total_cost, file=self.stream, bar_format=BAR_FORMAT, desc=self.status(),
                             mininterval=0, leave=True)

    @property
    def total(self) -> int:
        return len(self.costs)

    def left(self) -> str:
        if self.done == self.total:
            return f"done in {duration(self.clock() - self.start)}"
        if self.done == 0 or self.done_cost <= 0:
            return "time left: estimating"
        elapsed = self.clock() - self.start
        return f"about {duration(elapsed / self.done_cost * (self.total_cost - self.done_cost))} left"

    def status(self) -> str:
        return f"{self.done}/{self.total} done, {self.failed} failed, {self.left()}"

    def report(self, result: SubmissionResult, line: str, cost: float | None = None) -> None:
        """One submission finished: print its ``line`` and the progress (``cost``: its expected seconds)."""
        with self._lock:
            cost = cost if cost is not None else self.total_cost / max(1, self.total)
            self.done += 1
            self.failed += failed(result)
            self.done_cost += cost
            if self._bar is not None:
                self._bar.set_description_str(self.status(), refresh=False)
                self._bar.update(cost)
                self._bar.write(line, file=self.stream)
                return
            self.stream.write(line + "\n")
            if self.done * 10 >= self._next_tenth * self.total or self.done == self.total:
                while self._next_tenth * self.total <= self.done * 10:
                    self._next_tenth += 1
                self.stream.write(f"progress: {self.status()}\n")
            self.stream.flush()

    def close(self) -> None:
        """End the bar's line (on a terminal), so that what follows starts on a line of its own."""
        with self._lock:
            if self._bar is not None:
                self._bar.set_description_str(self.status(), refresh=True)
                self._bar.close()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
