"""``slurm``: grade a class as a Slurm job array, one shard per task, and merge when every task has ended.

Writes two batch scripts into OUT/slurm/ and submits them:

- ``shards.sbatch``, an array ``--array=0-(N-1)``: task K runs ``grade SUBMISSIONS --shard K/N --out
  OUT/shards/shard-K`` (with ``--gres=gpu:1`` and ``--runner gpu`` when asked for GPUs);
- ``merge.sbatch``, submitted with ``--dependency=afterany:<array>``: ``merge`` of every shard into
  OUT (grades.csv, cells.csv, feedback/), or, when a shard died, the shards to submit again.

Jobs run as the submitting user, with this machine's Python and course folder: both must be on a
file system the compute nodes share (as a home or project folder usually is). Logs go to
OUT/slurm/logs/. ``--dry-run`` prints the scripts and the sbatch commands and submits nothing.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import cluster, shard_results, shards
from ..core import course
from ..grading import intake, sandbox
from .progress import duration

# Characters that would break a #SBATCH line or that Slurm expands in file names (%a, %j...).
_UNSAFE_IN_SBATCH_LINE = set(" \t\n\"'%\\")


@dataclass
class SlurmRun:
    submissions: Path
    out: Path
    shards: int
    partition: str | None = None
    gpu: bool = False
    jobs: int = 1                       # submissions graded at once in each shard (grade --jobs)
    cpus_per_task: int | None = None    # default: --jobs x --threads
    threads: int = 1
    time: str | None = None
    sbatch_options: list[str] = field(default_factory=list)
    grading: list[str] = field(default_factory=list)    # grade's options, passed on to every shard
    only: list[int] | None = None       # submit just these shards (re-running ones that died)
    python: str = sys.executable
    root: Path = course.ROOT

    def __post_init__(self):
        self.submissions, self.out = Path(self.submissions).resolve(), Path(self.out).resolve()

    @property
    def scripts(self) -> Path:
        return self.out / "slurm"

    @property
    def logs(self) -> Path:
        return self.scripts / "logs"

    @property
    def results(self) -> Path:
        return self.out / "shards"

    def options(self) -> list[str]:
        """#SBATCH options both scripts share."""
        lines = [f"--partition={self.partition}"] if self.partition else []
        return lines + list(self.sbatch_options)

    def shard_script(self) -> str:
        cpus = self.cpus_per_task or self.jobs * self.threads
        lines = ["--job-name=autograde", f"--array=0-{self.shards - 1}", f"--output={self.logs}/shard-%a.job%A.out",
                 "--ntasks=1", f"--cpus-per-task={cpus}", f"--chdir={self.root}"]
        if self.gpu:
            lines.append("--gres=gpu:1")
        if self.time:
            lines.append(f"--time={self.time}")
        command = cluster.shard_command(self.python, str(self.submissions), str(self.results), "SLURM_ARRAY_TASK_ID",
                                        self.shards, "gpu" if self.gpu else "cpu", self.jobs, self.grading)
        return _script(f"Grades shard $SLURM_ARRAY_TASK_ID of {self.shards} of {self.submissions}.",
                       lines + self.options(),
                       ['echo "shard $SLURM_ARRAY_TASK_ID/' f'{self.shards} on $(hostname), job $SLURM_JOB_ID, $(date)"',
                        command])

    def merge_script(self) -> str:
        lines = ["--job-name=autograde-merge", f"--output={self.logs}/merge.job%j.out", "--ntasks=1",
                 "--cpus-per-task=1", f"--chdir={self.root}"]
        rerun = self.command_line(only="{shards}")
        merge = [shlex.quote(self.python), "-m", "autograder", "merge",
                 *map(shlex.quote, cluster.merge_arguments(str(self.results), self.shards)),
                 "--out", shlex.quote(str(self.out)), "--rerun-hint", shlex.quote(rerun)]
        return _script(f"Merges the {self.shards} shards into {self.out}.", lines + self.options(),
                       [cluster.succeeds_when_graded(" ".join(merge))])

    def command_line(self, only: str) -> str:
        """This same ``slurm`` command, submitting only the shards ``only``."""
        words = [self.python, "-m", "autograder", "slurm", str(self.submissions), "--shards", str(self.shards),
                 "--out", str(self.out), "--jobs", str(self.jobs)]
        words += ["--partition", self.partition] if self.partition else []
        words += ["--gpu"] if self.gpu else []
        words += ["--cpus-per-task", str(self.cpus_per_task)] if self.cpus_per_task else []
        words += ["--time", self.time] if self.time else []
        words += [f"--sbatch-option={option}" for option in self.sbatch_options]
        return shlex.join(words + self.grading) + f" --only {only}"


def _script(what: str, sbatch_lines: list[str], body: list[str]) -> str:
    return "\n".join(["#!/bin/bash", f"# Written by `python -m autograder slurm`. {what}",
                      *(f"#SBATCH {line}" for line in sbatch_lines), *body]) + "\n"


def check(run: SlurmRun) -> shards.Plan:
    """Refuse what would fail on the cluster, before anything is submitted; the class's plan."""
    if run.shards < 1:
        raise SystemExit("--shards must be at least 1")
    for name, path in (("--out", run.out), ("the course folder", run.root), ("the Python interpreter", Path(run.python))):
        bad = sorted(_UNSAFE_IN_SBATCH_LINE & set(str(path)))
        if bad:
            raise SystemExit(f"{name} {path} holds {' '.join(map(repr, bad))}, which #SBATCH lines cannot carry; "
                             "choose a path without them")
    if run.out == run.submissions or run.submissions in run.out.parents:
        raise SystemExit(f"--out {run.out} lies inside {run.submissions}: it would be graded as a student")
    names = [run.grading[i + 1] for i, word in enumerate(run.grading) if word == "--assignment"]
    students, assignments = intake.discover(run.submissions, names or None)
    if not students or not assignments:
        raise SystemExit(f"nothing to grade in {run.submissions}: expected <student>/<assignment>/<assignment>.ipynb")
    for k in run.only or []:
        if not 0 <= k < run.shards:
            raise SystemExit(f"--only {k}: shards are numbered 0..{run.shards - 1}")
    if not run.only and run.results.is_dir() and any(shard_results.read(f) for f in run.results.iterdir()):
        raise SystemExit(f"{run.results} holds shards of an earlier run. Remove that folder or choose another --out "
                         "to grade the class again; to re-run some shards of that run, add --only K[,K...]")
    return shards.make_plan(run.submissions, [(a, s) for a in assignments for s in students], run.shards)


def _sbatch(arguments: list[str], env: dict[str, str] | None = None) -> str:
    done = subprocess.run(["sbatch", "--parsable", *arguments], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"sbatch {' '.join(arguments)} failed: {(done.stderr or done.stdout).strip()}")
    return done.stdout.strip().split(";")[0]


def submit(run: SlurmRun, dry_run: bool = False) -> tuple[str, str] | None:
    """Write and submit both scripts (print them instead with ``dry_run``); (array job id, merge job id)."""
    plan = check(run)
    loads = plan.loads()
    busiest = max(loads) / max(1, run.jobs)
    array = ["--array=" + ",".join(map(str, run.only))] if run.only else []
    shard_path, merge_path = run.scripts / "shards.sbatch", run.scripts / "merge.sbatch"
    expect = (f"{len(plan.tasks)} submissions in {run.shards} shard(s); the longest shard is expected to take about "
              f"{duration(busiest)} (measured times, autograder/timings.py)")
    if dry_run:
        print(f"# {shard_path}\n{run.shard_script()}\n# {merge_path}\n{run.merge_script()}")
        print(f"# would run:\nsbatch --parsable {' '.join(array + [str(shard_path)])}\n"
              f"sbatch --parsable --dependency=afterany:<array job id> {merge_path}\n# {expect}")
        return None
    if shutil.which("sbatch") is None:
        raise SystemExit("sbatch is not on PATH: run this on a Slurm login node (or use --dry-run to see the scripts)")
    why_not = sandbox.unavailable_reason()
    if why_not and "--unsafe-no-sandbox" not in run.grading:
        print(f"note: the sandbox cannot run on this machine ({why_not}). Each shard checks its own node, and refuses "
              "to grade where it cannot run either (see docs/grading-at-scale.md).", file=sys.stderr)
    run.logs.mkdir(parents=True, exist_ok=True)
    run.results.mkdir(parents=True, exist_ok=True)
    shard_path.write_text(run.shard_script(), encoding="utf-8")
    merge_path.write_text(run.merge_script(), encoding="utf-8")
    array_id = _sbatch([*array, str(shard_path)])
    merge_id = _sbatch([f"--dependency=afterany:{array_id}", str(merge_path)])
    which = ",".join(map(str, run.only)) if run.only else f"0-{run.shards - 1}"
    print(f"Submitted shards {which} of {run.shards} as job array {array_id}, and the merge as job {merge_id} "
          "(it starts when every shard has ended).\n"
          f"  {expect}\n"
          f"  shard results: {run.results}/shard-K/   logs: {run.logs}/\n"
          f"  class results: {run.out}/grades.csv, cells.csv and feedback/ (merge log: {run.logs}/merge.job{merge_id}.out)\n"
          f"  watch: squeue -j {array_id},{merge_id}")
    return array_id, merge_id


def from_args(args, grading: list[str]) -> SlurmRun:
    try:
        only = sorted({int(k) for k in args.only.split(",")}) if args.only else None
    except ValueError:
        raise SystemExit(f"--only takes shard numbers separated by commas, e.g. --only 1,3 (got {args.only!r})")
    return SlurmRun(args.submissions, args.out, args.shards, partition=args.partition, gpu=args.gpu, jobs=args.jobs,
                    cpus_per_task=args.cpus_per_task, threads=args.threads, time=args.time,
                    sbatch_options=list(args.sbatch_option or []), grading=grading, only=only)
