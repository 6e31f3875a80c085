"""The box each submission is graded in, and what could not be applied on this machine.

Layers, from the inside out:

1. a kernel guard (kernel_guard.py, run by IPython at kernel start): a per-cell alarm that stops
   even code that ignores Ctrl-C, ``os._exit`` turned into an ordinary error, one thread for the
   maths libraries, and an audit log of suspicious file and network use;
2. resource limits set by jail.py and inherited by nbgrader and the kernel: address space,
   file size, process count, no core dumps;
3. when running as root with ``unshare`` available: new PID, network and mount namespaces. The
   network has only loopback; the course files and the original submissions are re-mounted
   read-only; and when the sandbox's first process exits, the kernel ends every process left in
   it, so a fork bomb or a daemon cannot outlive its submission;
4. a wall-clock limit for the whole submission, enforced by killing the sandbox.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from . import course, settings

GUARD_SOURCE = Path(__file__).with_name("kernel_guard.py")


@dataclass
class Limits:
    wall_s: float = 1800.0      # whole submission
    cell_s: int = settings.CELL_TIMEOUT_S
    memory_mb: int = 4096       # private memory per process; the Build's kernel peaks near 1 GB
    file_mb: int = 512
    processes: int = 512        # does not bind root; the PID namespace is what contains root
    threads: int = 1            # two threads per job on a 2-core machine under load ran 10-20x slower
    network: bool = False       # False: isolate when the platform allows it


@functools.lru_cache(maxsize=None)
def namespaces_available() -> bool:
    """Whether `unshare` can give us PID, network and mount namespaces here."""
    if os.name != "posix" or shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    probe = subprocess.run(["unshare", "--pid", "--net", "--mount", "--fork", "--kill-child", "--", "true"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


def isolation_note(limits: Limits) -> str:
    """Empty when full isolation applies; otherwise what is missing, for the report."""
    if namespaces_available():
        return ""
    why = "not running as root" if os.name == "posix" and os.geteuid() != 0 else "`unshare` is not available"
    return (f"sandbox namespaces not applied ({why}): no network isolation, course files not re-mounted read-only, "
            "leftover processes are killed by process-tree walk instead")


def prepare_kernel_home(root: Path, submission_dir: Path, audit_log: Path, limits: Limits) -> dict[str, str]:
    """Environment for nbgrader and its kernel: the guard as an IPython startup file, private HOME and TMPDIR."""
    startup = root / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(GUARD_SOURCE, startup / "00-autograder-guard.py")
    home, tmp = root / "home", root / "tmp"
    home.mkdir(exist_ok=True)
    tmp.mkdir(exist_ok=True)
    threads = str(limits.threads)
    return {
        "IPYTHONDIR": str(root / "ipython"),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "MPLCONFIGDIR": str(home / ".matplotlib"),
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads,
        "AUTOGRADER_THREADS": threads,
        "AUTOGRADER_CELL_LIMIT_S": str(max(5, limits.cell_s - 10)),  # fire before nbgrader's own timeout
        "AUTOGRADER_AUDIT_LOG": str(audit_log),
        "AUTOGRADER_SUBMISSION_DIR": str(submission_dir),
        "AUTOGRADER_ALLOWED_WRITES": os.pathsep.join([str(submission_dir), str(home), str(tmp), str(root / "ipython")]),
        # What a submission has no business reading: the solutions, the tests and the gradebook.
        "AUTOGRADER_PROTECTED": os.pathsep.join([str(course.SOLUTIONS), str(course.ROOT / "tests"),
                                                 str(root / "gradebook.db")]),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def wrap(command: list[str], limits: Limits, read_only: list[Path]) -> list[str]:
    """``command`` run inside the jail (and the namespaces, where available)."""
    jail = [sys.executable, "-m", "autograder.jail", "--memory-mb", str(limits.memory_mb),
            "--file-mb", str(limits.file_mb), "--processes", str(limits.processes)]
    if namespaces_available():
        prefix = ["unshare", "--pid", "--fork", "--kill-child", "--mount"]
        if not limits.network:
            prefix.append("--net")
            jail.append("--loopback")
        for path in read_only:
            jail += ["--read-only", str(path)]
        return prefix + ["--"] + jail + ["--"] + command
    return jail + ["--"] + command
