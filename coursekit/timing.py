"""Timing that is fair to accelerators: warm up, synchronise, repeat, report the median."""

from __future__ import annotations

import statistics
import time
from contextlib import contextmanager
from typing import Callable, Iterator

import torch

__all__ = ["synchronize", "Timer", "measure", "report_time"]


def synchronize(device: torch.device | str | None = None) -> None:
    """Wait until queued GPU work is done (a no-op on the CPU), so the clock reads real time."""
    device = torch.device(device) if device is not None else None
    if device is not None and device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device is not None and device.type == "mps":
        torch.mps.synchronize()


class Timer:
    """``with Timer() as t: ...`` then ``t.seconds``; synchronises ``device`` on both ends."""

    def __init__(self, device: torch.device | str | None = None):
        self.device = device
        self.seconds = float("nan")

    def __enter__(self) -> "Timer":
        synchronize(self.device)
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        synchronize(self.device)
        self.seconds = time.perf_counter() - self._start


def measure(fn: Callable[[], object], *, warmup: int = 2, repeats: int = 5,
            device: torch.device | str | None = None) -> float:
    """Median seconds per call of ``fn`` after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        with Timer(device) as t:
            fn()
        times.append(t.seconds)
    return statistics.median(times)


@contextmanager
def report_time(label: str, device: torch.device | str | None = None) -> Iterator[Timer]:
    """Print how long the block took: ``with report_time("epoch 1"): ...``."""
    with Timer(device) as t:
        yield t
    print(f"{label}: {t.seconds:.2f} s")

