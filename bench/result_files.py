"""Where measurements live: files a command writes, each stamped with when, where and how it was measured.

Every figure the README, docs/ or the course's code quotes about speed comes from a file written here by a bench
script (bench/results/*.md, and autograder/scale/grading_times.json for the grader's per-assignment times); prose
links to the file instead of copying its numbers, so that a new measurement never leaves an old number behind.
"""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "bench" / "results"


def machine() -> str:
    """The processor, its count, the system and Python, in one line."""
    cpuinfo = Path("/proc/cpuinfo")
    model = platform.processor()
    if cpuinfo.exists():
        model = next((line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                      if line.startswith("model name")), model)
    return f"{platform.system()} {platform.machine()}, {model}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def commit() -> str:
    found = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    return found.stdout.strip() or "unknown"


def command() -> str:
    """The command that is running, as a user would type it."""
    return " ".join(["python", os.path.relpath(sys.argv[0], ROOT), *sys.argv[1:]])


def stamp() -> dict[str, str]:
    """When, where and how: date, machine, commit, command, and the load average at the start (a busy machine
    measures slow)."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    return {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "machine": machine(), "commit": commit(),
            "command": command(), "load average": load}


def header(title: str, facts: dict[str, str]) -> list[str]:
    """The first lines of a results page: its title and the stamp, as a list."""
    return [f"# {title}", ""] + [f"- {key}: `{value}`" if key == "command" else f"- {key}: {value}"
                                 for key, value in facts.items()] + [""]


def write(name: str, lines: list[str]) -> Path:
    """Write bench/results/NAME (markdown lines) and say where."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    path = FOLDER / name
    path.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)}")
    return path


class _Tee:
    """A stream that writes to the terminal and keeps a copy."""

    def __init__(self, stream):
        self.stream, self.kept = stream, []

    def write(self, text: str) -> int:
        self.kept.append(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


@contextlib.contextmanager
def recorded(name: str, title: str):
    """Everything the block prints, also written to bench/results/NAME under a stamp (written only when the block
    finishes: an interrupted run leaves the last complete results in place)."""
    facts = stamp()
    tee = _Tee(sys.stdout)
    sys.stdout = tee
    try:
        yield
    finally:
        sys.stdout = tee.stream
    write(name, header(title, facts) + ["```text", "".join(tee.kept).rstrip(), "```"])
