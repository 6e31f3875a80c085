"""Running nbgrader's command line in a course folder, bounded in time, leaving nothing behind."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..core import settings
from ..core.processes import kill_tree


@dataclass
class RunResult:
    returncode: int | None  # None when the run was killed for taking too long
    output: str


def write_config(root: Path, *, source: str = "source", release: str = "release",
                 cell_timeout: int = settings.CELL_TIMEOUT_S) -> None:
    """An nbgrader_config.py for a grading folder, with the course's settings."""
    (root / "nbgrader_config.py").write_text(
        "from autograder.core.settings import configure\n"
        f"configure(get_config(), source={source!r}, release={release!r}, cell_timeout={cell_timeout!r})\n",
        encoding="utf-8",
    )


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    # nbgrader calls `alembic` by name: the interpreter's own bin/ must come first on PATH.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def nbgrader(args: list[str], root: Path, timeout: float | None = None, *,
             wrap=None, extra_env: dict[str, str] | None = None, max_output: int = 2_000_000) -> RunResult:
    """Run ``nbgrader ARGS`` in ``root``; kill the whole process tree if it outlives ``timeout``.

    ``wrap`` turns the command into a sandboxed one (see sandbox.wrap); ``extra_env`` adds to the
    environment. Output beyond ``max_output`` characters is dropped (keeping the end).
    """
    command = [sys.executable, "-m", "nbgrader", *args]
    env = _environment()
    env.update(extra_env or {})
    proc = subprocess.Popen(
        wrap(command) if wrap else command,
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, text=True, errors="replace", start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=timeout)
        return RunResult(proc.returncode, output[-max_output:])
    except subprocess.TimeoutExpired:
        kill_tree(proc.pid)
        output, _ = proc.communicate()
        return RunResult(None, output[-max_output:])
    finally:
        if proc.poll() is None:
            kill_tree(proc.pid)
