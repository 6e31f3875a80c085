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
from pathlib import Path

from .job import Limits

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
CHANNEL_VARIABLE = "AUTOGRADER_CHANNEL_FD"  # the same name as coursekit.hidden's (a test checks they agree)


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


def _outside_paths() -> list[str]:
    """The interpreter, its standard library, the virtual environment, their site-packages and coursekit, as the
    grader reaches them (a path may go through a link: ``.venv -> /elsewhere/venv``)."""
    import importlib.util

    package = str(Path(importlib.util.find_spec("coursekit").origin).parent)  # found without importing torch
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, package}
    paths |= {p for p in sys.path if p and os.path.isdir(p) and "site-packages" in p}
    return sorted(os.path.abspath(p) for p in paths)


def read_only_binds() -> list[tuple[str, str]]:
    """(real path outside, path inside) for everything of Python the kernel needs: each folder at its real path
    and, when the grader reaches it through a link, at that path too, since the kernel is started by the very
    path the grader runs (``sys.executable``). Folders inside the system folders are bound with them."""
    system = tuple(p + os.sep for p in _system_paths())
    binds: dict[str, str] = {}
    for apparent in _outside_paths():
        real = os.path.realpath(apparent)
        for inside in dict.fromkeys((real, apparent)):
            if not (inside + os.sep).startswith(system):
                binds.setdefault(inside, real)
    kept = []
    for inside in sorted(binds):   # a folder already bound with its parent, from the same place, needs no bind
        if any(inside.startswith(done + os.sep) and binds[inside] == os.path.join(binds[done], os.path.relpath(inside, done))
               for done, _ in kept):
            continue
        kept.append((inside, binds[inside]))
    return [(real, inside) for inside, real in kept]


def _system_paths() -> list[str]:
    return [p for p in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/sys") if os.path.lexists(p)]


def data_folders() -> dict[str, tuple[str, str]]:
    """Data set name -> (its environment variable, the folder on this machine holding its verified files, for a
    read-only view). Read here, in the grader, from coursekit.data's table, so the executor never imports coursekit
    (and torch with it) just to name a variable."""
    from coursekit import data

    found = {}
    for name, info in data.DATASETS.items():
        folder = os.environ.get(info.env_var)
        if folder and os.path.isdir(folder):
            found[name] = (info.env_var, os.path.realpath(folder))
            continue
        cached = data.cache_root() / name
        if cached.is_dir():
            found[name] = (info.env_var, os.path.realpath(cached))
    return found


def gpu_devices() -> list[str]:
    """The NVIDIA device files a GPU runner's kernel needs (none on a CPU machine)."""
    return sorted(glob.glob("/dev/nvidia*")) + sorted(glob.glob("/dev/dri/renderD*"))


def kernel_environment(limits: Limits, runner: str, *, home: str, work: str, channel_fd: int,
                       data: dict[str, tuple[str, str]]) -> dict[str, str]:
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
        "PYTHONSAFEPATH": "1",           # no folder of the kernel's (its working folder) on sys.path: nothing shadows
        "COURSEKIT_CACHE": "/tmp/coursekit-cache",
        # Lesson 09's torch.compile measurement grades nothing, and in a fresh box (no compile cache) it costs about
        # 20 s per submission; the lesson's own switch skips it, as its text tells students on machines without a compiler.
        "COURSEKIT_SKIP_COMPILE": "1",
        CHANNEL_VARIABLE: str(channel_fd),
        "JPY_SESSION_NAME": f"{work}/notebook.ipynb",
    }
    env.update({name: os.environ[name] for name in INHERITED_ENV if name in os.environ})
    if runner == "gpu":
        env["COURSEKIT_GPU_RUNNER"] = "1"  # a GPU check that finds no CUDA fails instead of skipping
    for variable, folder in data.values():
        env[variable] = folder
    return env


def bwrap_command(inner: list[str], limits: Limits, runner: str, *, work: Path, home: Path, ipc: Path,
                  env: dict[str, str], data: dict[str, tuple[str, str]]) -> list[str]:
    """``inner`` (the kernel's command line) run inside the box. ``data`` maps each data set to its variable and its
    folder outside; ``env`` must already name the inside paths."""
    cmd = [bwrap(), "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
           "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--disable-userns",
           "--die-with-parent", "--hostname", "grader", "--clearenv"]
    if not limits.network:
        cmd.append("--unshare-net")
    # The private /proc, /dev, /tmp and /dev/shm first: a later mount hides whatever was bound below it, and a
    # virtual environment, the course or a data folder may well live under /tmp.
    cmd += ["--proc", "/proc", "--dev", "/dev",
            "--size", str(limits.tmp_mb * 2**20), "--tmpfs", "/tmp",
            "--size", str(limits.tmp_mb * 2**20), "--tmpfs", "/dev/shm"]
    for path in _system_paths():
        if os.path.islink(path):
            cmd += ["--symlink", os.readlink(path), path]
        else:
            cmd += ["--ro-bind", path, path]
    for real, inside in read_only_binds():
        cmd += ["--ro-bind", real, inside]
    cmd += ["--ro-bind", str(GUARD_SOURCE), INSIDE_GUARD]
    for name, (_, folder) in data.items():
        cmd += ["--ro-bind", folder, f"{INSIDE_DATA}/{name}"]
    cmd += ["--bind", str(work), INSIDE_WORK, "--bind", str(home), INSIDE_HOME, "--bind", str(ipc), INSIDE_IPC,
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


def inside_data(sandboxed: bool, data: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """The data sets as the kernel sees them: each folder at a fixed short path in the box."""
    return {name: (variable, f"{INSIDE_DATA}/{name}" if sandboxed else folder) for name, (variable, folder) in data.items()}


def preflight(limits: Limits, runner: str, data: dict[str, tuple[str, str]]) -> str | None:
    """None when this Python starts in the box and imports what a grading kernel needs; otherwise why not, in one
    line that says what to do. ``grade`` calls it once before the first submission."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="box-check-") as scratch:
        folders = {name: Path(scratch, name) for name in ("work", "home", "ipc")}
        for folder in folders.values():
            folder.mkdir()
        env = kernel_environment(limits, runner, home=INSIDE_HOME, work=INSIDE_WORK, channel_fd=1,
                                 data=inside_data(True, data))
        # The interpreter starts and finds the kernel's packages where the box shows them (found, not imported: a
        # second at most instead of torch's and ipykernel's imports).
        inner = [sys.executable, "-c", "import importlib.util as u; missing = [m for m in ('ipykernel', 'coursekit', "
                 "'torch') if u.find_spec(m) is None]; assert not missing, f'cannot find {missing}'"]
        command = bwrap_command(inner, limits, runner, env=env, data=data, **folders)
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return "a kernel's Python did not start in the sandbox within 300 s: is the machine overloaded?"
    if done.returncode == 0:
        return None
    last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1][:300]
    return (f"the sandbox cannot start this Python ({sys.executable}): {last}. The box shows the Python installation, "
            "the virtual environment and coursekit at their real paths and at the paths this process uses; run "
            "grade from a virtual environment whose folders it can read (not through a link into a folder "
            "only root may enter), or with --unsafe-no-sandbox on a machine you trust with these submissions")

