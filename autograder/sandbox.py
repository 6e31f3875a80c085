"""The box a submission's kernel runs in: bubblewrap, its limits, and what the kernel may see.

Inside the box the kernel runs as an unprivileged user (uid 65534, no capabilities, no new
privileges, no further user namespaces) and sees:

- read only: the system folders, the Python installation and its virtual environment, ``coursekit``,
  the grader's guard, and the data folders;
- read and write: one folder, ``/submission`` (a scratch copy of the student's folder, its working
  folder), a private ``HOME``, and a private, size-capped ``/tmp`` and ``/dev/shm``;
- its own ``/proc`` (only its own processes), no network (not even the host's loopback), and an
  environment built from an allow-list.

It never sees the solutions, the tests, other submissions, the grader's private folder (the notebook
with hidden tests, the scores) or the output folder. When the kernel's process tree ends or the
grader kills it, the kernel of the namespace ends every process left inside, and the scratch
folders are deleted: nothing survives the submission.

Where bubblewrap or user namespaces are missing, :func:`unavailable_reason` says why and ``grade``
refuses to start unless given ``--unsafe-no-sandbox``.
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from . import settings

GUARD_SOURCE = Path(__file__).with_name("kernel_guard.py")
SANDBOX_UID = 65534  # "nobody": the user the kernel runs as inside the box
# Where things appear inside the box. Short on purpose: unix socket paths (DataLoader workers) must
# stay under 108 characters, however long the grader's own folders are.
INSIDE_WORK = "/submission"
INSIDE_HOME = "/home/student"
INSIDE_IPC = "/run/kernel"
INSIDE_GUARD = "/opt/autograder/kernel_guard.py"
INSIDE_DATA = "/data"
# Environment variables a kernel may inherit from the grader (values are copied, nothing else is).
INHERITED_ENV = ("LANG", "LC_ALL", "TZ", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES")
DATA_VARIABLES = {"mnist": "COURSEKIT_MNIST_DIR", "fashion-mnist": "COURSEKIT_FASHION_MNIST_DIR"}


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


def bwrap() -> str | None:
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=None)
def unavailable_reason() -> str | None:
    """None when bubblewrap can build the box here; otherwise why not, in words."""
    if sys.platform != "linux":
        return f"bubblewrap needs Linux (this is {sys.platform})"
    if bwrap() is None:
        return ("bubblewrap is not installed: `sudo apt-get install bubblewrap` (Debian/Ubuntu) or "
                "`sudo dnf install bubblewrap` (Fedora/RHEL)")
    probe = subprocess.run([bwrap(), "--unshare-all", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
                            "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true"],
                           capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        why = probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else f"exit code {probe.returncode}"
        return (f"bubblewrap cannot create user namespaces here ({why}); ask the administrator to allow "
                "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 or "
                "user.max_user_namespaces > 0)")
    return None


def _python_paths() -> list[str]:
    """The interpreter, its standard library and the virtual environment, as real paths."""
    paths = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    paths |= {os.path.realpath(p) for p in sys.path if p and os.path.isdir(p) and "site-packages" in p}
    return sorted(paths)


def _system_paths() -> list[str]:
    return [p for p in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/sys") if os.path.lexists(p)]


def data_folders() -> dict[str, str]:
    """Data set name -> the folder on this machine holding its verified files (for a read-only view)."""
    from coursekit import data

    found = {}
    for name, variable in DATA_VARIABLES.items():
        folder = os.environ.get(variable)
        if folder and os.path.isdir(folder):
            found[name] = os.path.realpath(folder)
            continue
        cached = data.cache_root() / name
        if cached.is_dir():
            found[name] = os.path.realpath(cached)
    return found


def gpu_devices() -> list[str]:
    """The NVIDIA device files a GPU runner's kernel needs (none on a CPU machine)."""
    return sorted(glob.glob("/dev/nvidia*")) + sorted(glob.glob("/dev/dri/renderD*"))


def kernel_environment(limits: Limits, runner: str, *, home: str, work: str, guard_fd: int,
                       data: dict[str, str]) -> dict[str, str]:
    """The kernel's whole environment: an allow-list, never the grader's own variables."""
    threads = str(limits.threads)
    env = {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": home,
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{home}/.matplotlib",
        "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "COURSEKIT_CACHE": "/tmp/coursekit-cache",
        "AUTOGRADER_GUARD_FD": str(guard_fd),
        "JPY_SESSION_NAME": f"{work}/notebook.ipynb",
    }
    env.update({name: os.environ[name] for name in INHERITED_ENV if name in os.environ})
    if runner == "gpu":
        env["COURSEKIT_GPU_RUNNER"] = "1"  # a GPU check that finds no CUDA fails instead of skipping
    for name, folder in data.items():
        env[DATA_VARIABLES[name]] = folder
    return env


def bwrap_command(inner: list[str], limits: Limits, runner: str, *, work: Path, home: Path, ipc: Path,
                  env: dict[str, str], data: dict[str, str]) -> list[str]:
    """``inner`` (the kernel's command line) run inside the box. ``data`` maps each data set to its
    folder outside; ``env`` must already name the inside paths."""
    cmd = [bwrap(), "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
           "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--disable-userns",
           "--die-with-parent", "--hostname", "grader", "--clearenv"]
    if not limits.network:
        cmd.append("--unshare-net")
    for path in _system_paths():
        if os.path.islink(path):
            cmd += ["--symlink", os.readlink(path), path]
        else:
            cmd += ["--ro-bind", path, path]
    for path in _python_paths():
        cmd += ["--ro-bind", path, path]
    import importlib.util

    package = str(Path(importlib.util.find_spec("coursekit").origin).resolve().parent)  # without importing torch
    cmd += ["--ro-bind", package, package, "--ro-bind", str(GUARD_SOURCE), INSIDE_GUARD]
    for name, folder in data.items():
        cmd += ["--ro-bind", folder, f"{INSIDE_DATA}/{name}"]
    cmd += ["--proc", "/proc", "--dev", "/dev",
            "--size", str(limits.tmp_mb * 2**20), "--tmpfs", "/tmp",
            "--size", str(limits.tmp_mb * 2**20), "--tmpfs", "/dev/shm",
            "--bind", str(work), INSIDE_WORK, "--bind", str(home), INSIDE_HOME, "--bind", str(ipc), INSIDE_IPC,
            "--chdir", INSIDE_WORK]
    if runner == "gpu":
        for device in gpu_devices():
            cmd += ["--dev-bind", device, device]
    for name, value in env.items():
        cmd += ["--setenv", name, value]
    return cmd + ["--"] + rlimits_prefix(limits) + inner


def rlimits_prefix(limits: Limits) -> list[str]:
    """``prlimit`` applying the per-process limits to the kernel and everything it starts."""
    prlimit = shutil.which("prlimit") or "/usr/bin/prlimit"
    return [prlimit, f"--data={limits.memory_mb * 2**20}", f"--fsize={limits.file_mb * 2**20}",
            f"--nproc={limits.processes}", "--core=0", "--"]


def inside_paths(sandboxed: bool, *, work: Path, home: Path, ipc: Path) -> dict[str, str]:
    """Where the kernel sees its folders: fixed short paths in the box, the real ones without it."""
    if sandboxed:
        return {"work": INSIDE_WORK, "home": INSIDE_HOME, "ipc": INSIDE_IPC, "guard": INSIDE_GUARD}
    return {"work": str(work), "home": str(home), "ipc": str(ipc), "guard": str(GUARD_SOURCE)}


def inside_data(sandboxed: bool, data: dict[str, str]) -> dict[str, str]:
    return {name: (f"{INSIDE_DATA}/{name}" if sandboxed else folder) for name, folder in data.items()}
