"""A real, single-node Slurm on 127.0.0.1, started and stopped by the tests (and the benchmark).

Everything lives in one scratch folder: its own munge key and munged (its own socket, so any munged
of the machine is left alone), its own slurm.conf (free ports, state, spool, logs and pid files in the
scratch folder), slurmctld and slurmd. Client commands find it through SLURM_CONF, set in ``env``.
Daemons are stopped by the PIDs in their pid files, never by name.

Needs Debian's ``slurm-wlm`` and ``munge``; ``why_not()`` says what is missing. No root needed: the
daemons run as the user who starts them (SlurmUser), and so do the jobs, as on a real cluster where
the instructor submits as themself.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scontrol", "sinfo", "scancel")


def _find(name: str) -> str | None:
    return shutil.which(name) or next((f"{d}/{name}" for d in ("/usr/sbin", "/sbin") if os.access(f"{d}/{name}", os.X_OK)), None)


def why_not() -> str | None:
    """None when a local Slurm can start here; else why not."""
    missing = [name for name in DAEMONS + CLIENTS if _find(name) is None]
    if missing:
        return f"{', '.join(missing)} not installed (Debian: apt-get install slurm-wlm munge; .ci/run does it)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalSlurm:
    """``with LocalSlurm(folder) as slurm:`` a cluster of one node (this machine, ``cpus`` CPUs, partition ``debug``)."""

    def __init__(self, folder: Path, cpus: int | None = None):
        self.dir = Path(folder)
        self.cpus = cpus or os.cpu_count() or 1
        self.node = socket.gethostname().split(".")[0]
        self.user = pwd.getpwuid(os.geteuid()).pw_name
        self.conf = self.dir / "slurm.conf"
        self.socket = self.dir / "munge" / "munge.socket"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}
        self.pid_files = {"slurmd": self.dir / "slurmd.pid", "slurmctld": self.dir / "slurmctld.pid",
                          "munged": self.dir / "munge" / "munged.pid"}

    def __enter__(self) -> "LocalSlurm":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _munge(self) -> None:
        folder = self.dir / "munge"
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        key = folder / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o400)
        subprocess.run([_find("munged"), "--force", f"--key-file={key}", f"--socket={self.socket}",
                        f"--pid-file={self.pid_files['munged']}", f"--log-file={folder / 'munged.log'}",
                        f"--seed-file={folder / 'munged.seed'}"], check=True, capture_output=True, timeout=60)

    def _write_conf(self) -> None:
        for sub in ("state", "spool", "log"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        lines = [
            "ClusterName=autogradertest",
            f"SlurmctldHost={self.node}(127.0.0.1)",
            f"SlurmctldPort={_free_port()}",
            f"SlurmdPort={_free_port()}",
            f"SlurmUser={self.user}",
            f"SlurmdUser={self.user}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.socket}",
            f"StateSaveLocation={self.dir / 'state'}",
            f"SlurmdSpoolDir={self.dir / 'spool'}",
            f"SlurmctldLogFile={self.dir / 'log' / 'slurmctld.log'}",
            f"SlurmdLogFile={self.dir / 'log' / 'slurmd.log'}",
            f"SlurmctldPidFile={self.pid_files['slurmctld']}",
            f"SlurmdPidFile={self.pid_files['slurmd']}",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "ReturnToService=2",
            "MpiDefault=none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "SchedulerParameters=batch_sched_delay=0,sched_min_interval=0",
            "MinJobAge=600",
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN",
            f"PartitionName=debug Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
        ]
        self.conf.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def start(self, timeout: float = 60) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self._munge()
        self._write_conf()
        for daemon, extra in (("slurmctld", []), ("slurmd", ["-N", self.node])):
            done = subprocess.run([_find(daemon), "-f", str(self.conf), *extra], env=self.env, capture_output=True,
                                  text=True, timeout=60)
            if done.returncode != 0:
                raise RuntimeError(f"{daemon} did not start: {done.stderr.strip()}\n{self.logs()}")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.run("sinfo", "-h", "-N", "-o", "%t", check=False).stdout.strip()
            if state in ("idle", "mix", "alloc"):
                return
            time.sleep(1)
        raise RuntimeError(f"the node did not become idle in {timeout:.0f} s (sinfo: {state!r})\n{self.logs()}")

    def run(self, *command: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run([_find(command[0]), *command[1:]], env=self.env, capture_output=True, text=True,
                              timeout=60, check=check)

    def job_state(self, job_id: str) -> list[str]:
        """The states of a job's parts (one per array task), e.g. ['COMPLETED', 'RUNNING']."""
        out = self.run("scontrol", "-o", "show", "job", job_id, check=False).stdout
        return [word.split("=", 1)[1] for line in out.splitlines() for word in line.split() if word.startswith("JobState=")]

    def wait(self, job_ids: list[str], timeout: float) -> dict[str, list[str]]:
        """Wait until every job has ended (or ``timeout``); their final states."""
        ended = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}
        deadline = time.monotonic() + timeout
        while True:
            states = {job: self.job_state(job) for job in job_ids}
            if all(s and set(s) <= ended for s in states.values()) or time.monotonic() > deadline:
                return states
            time.sleep(2)

    def logs(self) -> str:
        parts = []
        for name in ("slurmctld.log", "slurmd.log"):
            path = self.dir / "log" / name
            if path.exists():
                parts.append(f"--- {name} (end)\n" + "\n".join(path.read_text(errors="replace").splitlines()[-15:]))
        return "\n".join(parts)

    def stop(self) -> None:
        """Cancel what is left, then stop slurmd, slurmctld and munged by their pid files."""
        if self.conf.exists() and self.pid_files["slurmctld"].exists():
            subprocess.run([_find("scancel") or "scancel", "--user", str(os.geteuid())], env=self.env,
                           capture_output=True, timeout=30)
        for daemon in ("slurmd", "slurmctld", "munged"):
            _stop_pid_file(self.pid_files[daemon])


def _stop_pid_file(path: Path, timeout: float = 20) -> None:
    try:
        pid = int(path.read_text().strip())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
