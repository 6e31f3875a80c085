"""Grading a class on Slurm: the scripts `slurm` writes, and a real run on a one-node Slurm.

The real run starts its own Slurm on 127.0.0.1 (tests/local_slurm.py: its own munged, slurmctld and
slurmd, all files in a scratch folder), submits a class of two students and two short assignments as
a 2-task array with its merge job, waits, and checks the merged results equal a serial grade. It
skips with the reason where Slurm or munge is not installed (.ci/run installs them).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import cli
from autograder.core import course, notebooks
from autograder.grading import sandbox
from autograder.scale import shard_results
from autograder.scale.grade import grade
from local_slurm import LocalSlurm, why_not
from submission_factory import student_copy
from grading_compare import ASSIGNMENTS, quiet, assert_same_class, summary_of


def _class(root: Path) -> Path:
    for name in ASSIGNMENTS:
        notebooks.write(student_copy(name), root / "complete" / name / f"{name}.ipynb")
        notebooks.write(notebooks.read(course.lesson_notebook(name)), root / "blank" / name / f"{name}.ipynb")
    return root


def _empty_class(root: Path) -> Path:
    for student in ("a", "b", "c"):
        for name in ASSIGNMENTS:
            (root / student / name).mkdir(parents=True)
    return root


def dry_run(capsys, subs: Path, out: Path, *options: str) -> str:
    assert cli.main(["slurm", str(subs), "--out", str(out), "--dry-run", *options]) == 0
    return capsys.readouterr().out


def test_dry_run_prints_an_array_of_shards_and_a_merge_that_waits_for_it(tmp_path, capsys):
    subs = _empty_class(tmp_path / "subs")
    text = dry_run(capsys, subs, tmp_path / "out", "--shards", "3", "--partition", "teaching", "--assignment", "01_tensors",
                   "--timeout", "900", "--time", "02:00:00", "--sbatch-option=--account=course")
    shard_script, merge_script = text.split("# " + str(tmp_path / "out" / "slurm" / "merge.sbatch"))
    assert "#SBATCH --array=0-2" in shard_script
    assert "#SBATCH --partition=teaching" in shard_script and "#SBATCH --partition=teaching" in merge_script
    assert "#SBATCH --account=course" in shard_script and "#SBATCH --time=02:00:00" in shard_script
    assert "--gres" not in shard_script
    command = next(line for line in shard_script.splitlines() if " -m autograder grade " in line)
    assert command.startswith(sys.executable) and str(subs) in command
    assert '--shard "$SLURM_ARRAY_TASK_ID"/3' in command
    assert f'--out {tmp_path / "out" / "shards"}/shard-"$SLURM_ARRAY_TASK_ID"' in command
    assert "--runner cpu" in command and "--assignment 01_tensors" in command and "--timeout 900" in command
    merge = next(line for line in merge_script.splitlines() if " -m autograder merge " in line)
    assert all(f"shard-{k}" in merge for k in range(3)) and f"--out {tmp_path / 'out'}" in merge
    assert re.search(r"sbatch --parsable --dependency=afterany:<array job id> \S+merge.sbatch", text)
    assert not (tmp_path / "out").exists(), "a dry run writes nothing"


def test_gpu_asks_each_shard_for_a_gpu_and_the_gpu_runner(tmp_path, capsys):
    text = dry_run(capsys, _empty_class(tmp_path / "subs"), tmp_path / "out", "--shards", "2", "--gpu", "--jobs", "2")
    assert "#SBATCH --gres=gpu:1" in text and "--runner gpu" in text
    assert "#SBATCH --cpus-per-task=2" in text and "--jobs 2" in text


def test_refusals_before_anything_is_submitted(tmp_path, capsys):
    subs = _empty_class(tmp_path / "subs")
    with pytest.raises(SystemExit, match="#SBATCH"):
        cli.main(["slurm", str(subs), "--shards", "2", "--out", str(tmp_path / "a b"), "--dry-run"])
    with pytest.raises(SystemExit, match="inside"):
        cli.main(["slurm", str(subs), "--shards", "2", "--out", str(subs / "graded"), "--dry-run"])
    with pytest.raises(SystemExit, match="nothing to grade"):
        cli.main(["slurm", str(subs / "a" / "00_setup"), "--shards", "2", "--out", str(tmp_path / "x"), "--dry-run"])
    with pytest.raises(SystemExit, match="--only 5"):
        cli.main(["slurm", str(subs), "--shards", "2", "--out", str(tmp_path / "o"), "--only", "5", "--dry-run"])
    earlier = tmp_path / "o" / "shards" / "shard-0"
    earlier.mkdir(parents=True)
    (earlier / shard_results.MANIFEST).write_text('{"format": 1, "shard": 0, "shards": 2, "plan": "x", "finished": true, '
                                                  '"seconds": 1, "submissions": "s", "tasks": [], "owners": [], "costs": []}')
    with pytest.raises(SystemExit, match="earlier run"):
        cli.main(["slurm", str(subs), "--shards", "2", "--out", str(tmp_path / "o"), "--dry-run"])
    text = dry_run(capsys, subs, tmp_path / "o", "--shards", "2", "--only", "1")
    assert "sbatch --parsable --array=1 " in text


def test_a_node_without_the_sandbox_refuses_with_its_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "unavailable_reason", lambda: "bubblewrap cannot create user namespaces here (test)")
    with pytest.raises(SystemExit, match="user namespaces here"):
        grade(_empty_class(tmp_path / "subs"), tmp_path / "out", runner="cpu", shard=(0, 2))
    assert not (tmp_path / "out" / shard_results.MANIFEST).exists(), "merge then names the shard as missing"


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv to switch user")
@pytest.mark.skipif(sandbox.unavailable_reason() is not None, reason=f"needs the sandbox: {sandbox.unavailable_reason()}")
def test_the_sandbox_needs_no_root():
    """Cluster jobs run as the instructor's own user: the box must build without root."""
    done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c",
                           "import os; from autograder.grading.sandbox import unavailable_reason; print(os.geteuid(), unavailable_reason())"],
                          capture_output=True, text=True, cwd=course.ROOT, timeout=120)
    if done.returncode != 0 and "Permission denied" in done.stderr:
        pytest.skip(f"the user nobody cannot run this Python: {done.stderr.strip()[-200:]}")
    assert done.stdout.split() == ["65534", "None"], done.stderr


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    reason = why_not()
    if reason:
        pytest.skip(f"needs a local Slurm: {reason}")
    with LocalSlurm(tmp_path_factory.mktemp("slurm"), cpus=2) as cluster:
        yield cluster


@pytest.mark.slurm
@pytest.mark.slow
@pytest.mark.skipif(sandbox.unavailable_reason() is not None, reason=f"needs the sandbox: {sandbox.unavailable_reason()}")
def test_a_class_graded_as_a_slurm_array_equals_a_serial_grade(slurm, tmp_path, monkeypatch):
    subs = _class(tmp_path / "subs")
    _, serial_out = quiet(grade, subs, tmp_path / "serial", runner="cpu")

    monkeypatch.setenv("SLURM_CONF", str(slurm.conf))
    out = tmp_path / "class"
    code, printed = quiet(cli.main, ["slurm", str(subs), "--shards", "2", "--out", str(out), "--partition", "debug"])
    assert code == 0
    array_id = re.search(r"job array (\d+)", printed).group(1)
    merge_id = re.search(r"merge as job (\d+)", printed).group(1)
    states = slurm.wait([array_id, merge_id], timeout=600)
    logs = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted((out / "slurm" / "logs").glob("*")))
    assert states == {array_id: ["COMPLETED", "COMPLETED"], merge_id: ["COMPLETED"]}, f"{states}\n{logs}\n{slurm.logs()}"

    assert_same_class(out, tmp_path / "serial")
    [merge_log] = (out / "slurm" / "logs").glob("merge.job*.out")
    assert summary_of(merge_log.read_text()) == summary_of(serial_out)
    shard_logs = sorted((out / "slurm" / "logs").glob("shard-*.out"))
    assert len(shard_logs) == 2
    for log in shard_logs:
        text = log.read_text()
        assert "progress: " in text and "\r" not in text, "plain progress lines in a Slurm log"
    records = [shard_results.read(out / "shards" / f"shard-{k}") for k in range(2)]
    assert all(r.finished and r.results for r in records), "both tasks graded a part"
