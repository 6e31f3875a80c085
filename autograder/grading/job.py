"""What the grader and the executor tell each other about one run: the limits, the job, and the report.

``Limits`` is the one place the limits and their defaults live (``grade``'s options, the shards' command
lines and docs/options.md are built from it). ``Job`` is written as ``job.json`` into the grader's
private folder, next to ``run.ipynb``, and read back by ``python -m autograder.grading.execute``; the executor
answers with a ``RunReport`` (``report.json``) and ``executed.ipynb``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import ClassVar

from ..core import settings


@dataclass(frozen=True)
class Limits:
    wall_s: float = 1800.0      # whole submission
    cell_s: int = settings.CELL_TIMEOUT_S
    memory_mb: int = 4096       # RLIMIT_DATA per process (heap and private mappings); the Build peaks near 1 GB
    file_mb: int = 512          # largest file a process may write
    tmp_mb: int = 1024          # size of the private /tmp and /dev/shm (memory-backed)
    processes: int = 512        # RLIMIT_NPROC; binds only when the grader is not root (see docs/grading-security.md)
    threads: int = 1            # maths threads per kernel: two per job on a loaded 2-core machine ran 10-20x slower
    network: bool = False       # True keeps the host's network (for courses that download; not this one)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Job:
    """One run of a notebook in a box: a student's submission, or the reference run of a solution."""
    work: str                    # the box's working folder (outside path): the submitted notebook, nothing else
    home: str                    # the box's HOME (outside path)
    ipc: str                     # the kernel's sockets (outside path)
    runner: str                  # "cpu" or "gpu"
    sandboxed: bool
    limits: Limits = field(default_factory=Limits)
    data: dict[str, tuple[str, str]] = field(default_factory=dict)   # data set -> (its variable, its folder outside)

    FILE: ClassVar[str] = "job.json"

    def write(self, folder: Path) -> None:
        (folder / self.FILE).write_text(json.dumps({**asdict(self), "limits": self.limits.to_dict()}), encoding="utf-8")

    @classmethod
    def read(cls, folder: Path) -> "Job":
        raw = json.loads((folder / cls.FILE).read_text(encoding="utf-8"))
        data = {name: tuple(pair) for name, pair in raw.get("data", {}).items()}
        return cls(**{**raw, "limits": Limits(**raw["limits"]), "data": data})


@dataclass
class Stop:
    """Where and why a run ended before its last cell."""
    cell: int | None      # the code cell it stopped at (None: the kernel died between cells)
    why: str              # "wall" (the submission's time ran out), "unstoppable" (ignored the interrupt), "crashed"


@dataclass
class RunReport:
    """What the executor says of one run, besides the executed notebook."""
    channel: list[dict] = field(default_factory=list)   # the hidden tests' records and the kernel guard's reports
    stopped: Stop | None = None
    error: str | None = None     # the kernel never started (the box or the interpreter is broken)
    channel_full: bool = False   # the notebook sent more than the grader keeps: later records were lost
    seconds: float = 0.0

    FILE: ClassVar[str] = "report.json"

    def write(self, folder: Path) -> None:
        (folder / self.FILE).write_text(json.dumps(asdict(self)), encoding="utf-8")

    @classmethod
    def read(cls, folder: Path) -> "RunReport":
        raw = json.loads((folder / cls.FILE).read_text(encoding="utf-8"))
        return cls(**{**raw, "stopped": Stop(**raw["stopped"]) if raw.get("stopped") else None})
