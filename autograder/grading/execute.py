"""``python -m autograder.grading.execute JOB_DIR``: run one prepared notebook in its sandbox, and nothing else.

The grader writes ``JOB_DIR/job.json`` (job.py) and ``JOB_DIR/run.ipynb`` (the student's notebook with
the test cells put back, hidden tests included) in a folder the sandbox never sees. This process, outside
the box, starts the kernel inside it (sandbox.py), sends it the cells one at a time over unix sockets,
and writes ``JOB_DIR/executed.ipynb`` and ``JOB_DIR/report.json``. The kernel never sees the composed
notebook file; it only receives each cell as it runs. Verdicts and scores come later, in the grader,
after the kernel is gone.

- A cell that runs past the per-cell limit is interrupted; if it ignores the interrupt, the kernel is
  killed with everything it started, and the cells that ran before it keep their results.
- A kernel that dies (segfault, killed for memory) ends the run at that cell, likewise.
- Each cell's output is capped.
- The grader's channel is a pipe: the kernel holds its write end (``coursekit.hidden`` sends the hidden
  tests' records on it, the kernel guard its reports), this process reads it to its end. The kernel can
  add to it but never read or take back what it sent.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from pathlib import Path

from ..core.settings import skip_slow_unused_imports

skip_slow_unused_imports()  # before nbformat: this process starts once per submission

import nbformat  # noqa: E402
from jupyter_client import AsyncKernelManager  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellTimeoutError, DeadKernelError  # noqa: E402

from . import sandbox  # noqa: E402
from ..core import settings  # noqa: E402
from ..core.settings import CELL_TIME_LIMIT  # noqa: E402
from .job import Job, RunReport, Stop  # noqa: E402
from .kernel_guard import RUN_NAME  # noqa: E402

INTERRUPT_GRACE_S = 10              # how long an interrupted cell may take to stop before the kernel is killed
MAX_OUTPUT_CHARS = 2_000_000        # per cell, before the feedback's own, stricter cut
MAX_CHANNEL_BYTES = 256 * 2**20     # what the channel keeps of one run (MNIST's 10,000 predictions are 110 kB)


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel runs in the box and talks over unix sockets in ``ipc_dir``."""

    def __init__(self, *, job: Job, channel_fd: int, **kwargs):
        self.job, self.channel_fd = job, channel_fd
        super().__init__(transport="ipc", ip=os.path.join(job.ipc, "k"), **kwargs)
        self.kernel_spec.interrupt_mode = "message"  # a signal to the box's process group would end the box

    def format_kernel_cmd(self, extra_arguments=None) -> list[str]:
        job = self.job
        work, home, ipc = Path(job.work), Path(job.home), Path(job.ipc)
        inside = sandbox.inside_paths(job.sandboxed, work=work, home=home, ipc=ipc)
        info = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in self.get_connection_info().items()}
        info["ip"] = f"{inside['ipc']}/k"  # the same sockets, under the path the kernel sees
        Path(job.ipc, "kernel.json").write_text(json.dumps(info), encoding="utf-8")
        guard = (f"import runpy as _r; _r.run_path({inside['guard']!r}, run_name={RUN_NAME!r}); del _r")
        # ignore_cwd and PYTHONSAFEPATH (sandbox.kernel_environment): the working folder is never on sys.path.
        kernel = [sys.executable, "-m", "ipykernel_launcher", "-f", f"{inside['ipc']}/kernel.json",
                  f"--IPKernelApp.exec_lines={guard}", "--IPKernelApp.ignore_cwd=True",
                  "--HistoryManager.enabled=False", "--quiet"]
        env = sandbox.kernel_environment(job.limits, job.runner, home=inside["home"], work=inside["work"],
                                         channel_fd=self.channel_fd, data=sandbox.inside_data(job.sandboxed, job.data))
        if job.sandboxed:
            return sandbox.bwrap_command(kernel, job.limits, job.runner, work=work, home=home, ipc=ipc, env=env, data=job.data)
        return ["env", "-i", *(f"{k}={v}" for k, v in env.items())] + sandbox.rlimits_prefix(job.limits) + kernel


class BoundedClient(NotebookClient):
    """nbclient, with each cell's output capped."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sizes: dict[int, int] = {}
        self.cut: set[int] = set()

    def output(self, outs, msg, display_id, cell_index):
        size = len(json.dumps(msg.get("content", {}), default=str))
        self.sizes[cell_index] = self.sizes.get(cell_index, 0) + size
        if self.sizes[cell_index] <= MAX_OUTPUT_CHARS:
            return super().output(outs, msg, display_id, cell_index)
        if cell_index not in self.cut:
            self.cut.add(cell_index)
            outs.append(nbformat.v4.new_output(
                "stream", name="stdout", text=f"\n... [output past {MAX_OUTPUT_CHARS:,} characters cut by the grader]\n"))
        return None


class ChannelReader(threading.Thread):
    """Reads the grader's channel until it closes, so a chatty kernel never blocks on a full pipe."""

    def __init__(self, fd: int, limit: int = MAX_CHANNEL_BYTES):
        super().__init__(daemon=True)
        self.fd, self.limit, self.data = fd, limit, bytearray()

    def run(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            if len(self.data) < self.limit:
                self.data += chunk[: self.limit - len(self.data)]

    def records(self) -> list[dict]:
        found = []
        for line in self.data.decode("utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                found.append(record)
        return found


async def _wait_until_idle(client: NotebookClient, seconds: float) -> bool:
    """After an interrupt: True once the kernel answers a request on its shell channel again."""
    msg_id = client.kc.kernel_info()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            reply = await client.kc.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
        except Exception:
            return False
        if reply.get("parent_header", {}).get("msg_id") == msg_id:
            return True
    return False


def _error_output(name: str, message: str):
    return nbformat.v4.new_output("error", ename=name, evalue=message, traceback=[f"{name}: {message}"])


async def run(job: Job, nb) -> RunReport:
    limits = job.limits
    report = RunReport()
    read_fd, write_fd = os.pipe()
    reader = ChannelReader(read_fd)
    reader.start()
    km = SandboxedKernelManager(job=job, channel_fd=write_fd)
    client = BoundedClient(nb, km=km, timeout=limits.cell_s, iopub_timeout=settings.IOPUB_TIMEOUT_S,
                           allow_errors=True, coalesce_streams=True, startup_timeout=120,
                           resources={"metadata": {"path": job.work}})
    deadline = time.monotonic() + limits.wall_s
    client.timeout_func = lambda cell: max(1, int(min(limits.cell_s, deadline - time.monotonic())))
    try:
        async with client.async_setup_kernel(pass_fds=(write_fd,)):
            os.close(write_fd)  # the kernel holds the only write end now: EOF once it is gone
            write_fd = -1
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                if time.monotonic() >= deadline:
                    report.stopped = Stop(index, "wall")
                    break
                try:
                    await client.async_execute_cell(cell, index)
                except CellTimeoutError:
                    if time.monotonic() >= deadline - 1:
                        report.stopped = Stop(index, "wall")
                        break
                    await km.interrupt_kernel()
                    stopped = await _wait_until_idle(client, INTERRUPT_GRACE_S)
                    cell.outputs.append(_error_output(
                        CELL_TIME_LIMIT, f"this cell ran for more than {limits.cell_s} s and was stopped by the grader"
                        + ("" if stopped else "; it ignored the interrupt, so its kernel was ended")))
                    if not stopped:
                        report.stopped = Stop(index, "unstoppable")
                        break
                except DeadKernelError:
                    report.stopped = Stop(index, "crashed")
                    break
    except Exception as error:  # the kernel never started: the box or the interpreter is broken
        if not any(c.get("execution_count") for c in nb.cells if c.cell_type == "code"):
            report.error = f"{type(error).__name__}: {error}"[:500]
        else:
            report.stopped = report.stopped or Stop(None, "crashed")
    finally:
        try:
            await km.shutdown_kernel(now=True)
        except Exception:
            pass
        if write_fd >= 0:
            os.close(write_fd)
    reader.join(timeout=10)
    os.close(read_fd)
    report.channel = reader.records()
    report.channel_full = len(reader.data) >= reader.limit
    return report


def main(argv: list[str] | None = None) -> int:
    job_dir = Path((argv or sys.argv[1:])[0])
    job = Job.read(job_dir)
    nb = nbformat.read(str(job_dir / "run.ipynb"), as_version=4)
    start = time.monotonic()
    report = asyncio.run(run(job, nb))
    report.seconds = time.monotonic() - start
    nbformat.write(nb, str(job_dir / "executed.ipynb"))
    report.write(job_dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
