"""What every way of running shards on a cluster shares: one shard's command line, and the grading
options passed on to every shard.

A shard is ``python -m autograder grade SUBMISSIONS --shard K/N --out RESULTS/shard-K``, where K comes
from the scheduler's task index (Slurm's ``$SLURM_ARRAY_TASK_ID``, Kubernetes'
``$JOB_COMPLETION_INDEX``, or any job array's). ``grade`` exits with 3 when it finished but some
submissions could not be graded in full (their rows say why); for a scheduler that shard has
done its work, so the command turns 3 into 0, and only a shard that did not finish fails.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from ..core.settings import EXIT_NEEDS_INSTRUCTOR
from ..grading.job import Limits

# grade's options that change what a submission gets (cli.add_grading_options), passed on to every shard.
LIMIT_OPTIONS = (("--timeout", "timeout", "wall_s"), ("--cell-timeout", "cell_timeout", "cell_s"),
                 ("--memory-mb", "memory_mb", "memory_mb"), ("--file-mb", "file_mb", "file_mb"),
                 ("--tmp-mb", "tmp_mb", "tmp_mb"), ("--processes", "processes", "processes"),
                 ("--threads", "threads", "threads"))
SHARD_FOLDER = "shard-{k}"
# The memory to plan for each grading job on a machine or in a pod: a lesson peaks near 1 GB in its kernel, with the
# grader and the box around it; the box caps any one process's heap at Limits.memory_mb (--memory-mb) whatever this says.
MEMORY_PER_JOB_MB = 3072


def grading_options(args: argparse.Namespace) -> list[str]:
    """The grading options of a parsed ``slurm`` or ``kubernetes`` command line, as ``grade`` takes them
    (only those that differ from the defaults, so that the scripts stay short)."""
    defaults = Limits()
    options: list[str] = []
    for name in getattr(args, "names", None) or []:
        options += ["--assignment", name]
    for flag, dest, field in LIMIT_OPTIONS:
        value = getattr(args, dest, None)
        if value is not None and value != getattr(defaults, field):
            options += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    if getattr(args, "allow_network", False):
        options.append("--allow-network")
    if getattr(args, "unsafe_no_sandbox", False):
        options.append("--unsafe-no-sandbox")
    return options


def shard_folder(results: str | Path, k: int | str) -> str:
    return f"{results}/{SHARD_FOLDER.format(k=k)}"


def shard_command(python: str, submissions: str, results: str, index_variable: str, shards: int, runner: str,
                  jobs: int, options: list[str]) -> str:
    """A POSIX shell line grading shard ``$index_variable`` of ``shards`` into RESULTS/shard-K.

    ``python``, ``submissions`` and ``results`` are quoted here; ``index_variable`` names an
    environment variable holding K."""
    k = f'"${index_variable}"'
    words = [shlex.quote(python), "-m", "autograder", "grade", shlex.quote(submissions),
             "--shard", f'{k}/{shards}', "--out", shard_folder(shlex.quote(results), k),
             "--runner", runner, "--jobs", str(jobs), *map(shlex.quote, options)]
    return succeeds_when_graded(" ".join(words))


def succeeds_when_graded(command: str) -> str:
    """``command`` in a shell line that also succeeds when it graded everything but some rows need the instructor
    (exit EXIT_NEEDS_INSTRUCTOR): only a shard or a merge that did not finish fails its task."""
    return f"{command}; status=$?; if [ $status -eq {EXIT_NEEDS_INSTRUCTOR} ]; then status=0; fi; exit $status"


def merge_arguments(results: str, shards: int) -> list[str]:
    """The shard folders, in order, as ``merge`` takes them."""
    return [shard_folder(results, k) for k in range(shards)]
