"""A copy of the course as a fresh clone of the next commit would hold it, for tests that must not rely
on anything this checkout has beyond its files (a virtual environment, build folders, local work files)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from autograder.core import course


def working_tree_files() -> list[str]:
    """Tracked and new, not ignored, files of the working tree (what `git add -A` then a clone would give)."""
    if shutil.which("git") is None or not (course.ROOT / ".git").exists():
        import pytest

        pytest.skip("needs git and a git checkout to know which files a fresh clone holds")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=course.ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    return [name for name in listed if name and (course.ROOT / name).is_file()]


def fresh_copy(dest: Path) -> Path:
    """Copy the course's files into ``dest`` (created); return it."""
    for name in working_tree_files():
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(course.ROOT / name, target)
    return dest
