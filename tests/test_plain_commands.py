"""The README's commands for students without `make` work, from a fresh copy of the course.

The Linux/macOS lines are read from the README (the fenced block after the ``plain-commands: posix``
marker) and run one by one with bash in a copy of the working tree as a fresh clone of the next commit
would hold it (tests/fresh_copy.py); the last one, which starts JupyterLab, gets ``--no-browser`` and a
port and token, and the test asks the running server whether it is the student set-up on ``lessons/``.

What is real and what is not: a fresh install of requirements.txt downloads about 1.4 GB (PyTorch
above all), minutes of a suite that takes about a quarter of an hour, and needs the package index. So by
default the new virtual environment sees the packages of the environment running this test (a ``.pth``
file naming its site-packages, written right after the README's ``venv`` line, and ``python3`` is the
interpreter that environment was made from): the README's ``pip install -r requirements.txt`` then runs
for real, resolves every pin of requirements.txt against those packages and installs the course's own
package (``-e .``, from the copy) into the new environment. What this cannot catch is a pin that the
package index cannot serve; ``make install`` in CI installs the same file from the index anyway.
``COURSEKIT_FRESH_INSTALL=1`` runs the lines exactly as a student would, downloads included.

The Windows lines are checked against the POSIX ones (same steps, same order); no Windows machine runs them.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from autograder.core import course
from browser_lab import stop
from fresh_copy import fresh_copy

README = course.ROOT / "README.md"
MARKER = "<!-- plain-commands: posix"


def _block(after: str, fence: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index(after)
    body = text[start:].split(f"```{fence}\n", 1)[1].split("```", 1)[0]
    return [line.strip() for line in body.splitlines() if line.strip()]


def posix_commands() -> list[str]:
    return _block(MARKER, "bash")


def windows_commands() -> list[str]:
    return _block("Windows (PowerShell", "bat")


def test_readme_gives_the_same_steps_for_windows():
    posix, windows = posix_commands(), windows_commands()
    as_windows = [line.replace("python3 -m venv", "py -m venv").replace(".venv/bin/python", r".venv\Scripts\python")
                  for line in posix]
    assert windows == as_windows, f"the Windows lines should be the POSIX ones for Windows:\n{windows}\n{posix}"
    assert posix[-1].endswith("-m courselab"), "the last line starts JupyterLab with the student set-up"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, ""
    except (urllib.error.URLError, OSError):  # not listening yet
        return 0, ""


@pytest.mark.slow
def test_plain_commands_start_the_student_jupyterlab_from_a_fresh_copy(tmp_path):
    commands = posix_commands()
    root = fresh_copy(tmp_path / "course")
    fresh_install = os.environ.get("COURSEKIT_FRESH_INSTALL") == "1"
    here = Path(sys.executable).parent
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and Path(p) != here]  # not this environment
    if not fresh_install:  # `python3` is the interpreter this environment was made from (see the docstring)
        shim = tmp_path / "bin"
        shim.mkdir()
        (shim / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
        path.insert(0, str(shim))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "MPLBACKEND")}
    env.update(PATH=os.pathsep.join(path), JUPYTER_CONFIG_DIR=str(tmp_path / "user-config"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "user-settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    log = (tmp_path / "commands.log").open("w")
    for line in commands[:-1]:
        done = subprocess.run(["bash", "-c", line], cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                              timeout=3600)
        assert done.returncode == 0, f"`{line}` failed:\n{(tmp_path / 'commands.log').read_text()[-4000:]}"
        if re.search(r"-m venv\b", line) and not fresh_install:
            seed = next((root / ".venv" / "lib").glob("python*/site-packages"))
            (seed / "_course_test_seed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    marker = root / "lessons" / f"fresh-copy-{uuid.uuid4().hex[:8]}.txt"  # tells the copy's lessons/ from this checkout's
    marker.write_text("")
    port, token = _free_port(), uuid.uuid4().hex
    start = f"{commands[-1]} --no-browser --ServerApp.ip=127.0.0.1 --port={port} --IdentityProvider.token={token}"
    server = subprocess.Popen(["bash", "-c", f"exec {start}"], cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while _get(f"{base}/api/status?token={token}")[0] != 200:
            assert server.poll() is None, f"`{commands[-1]}` stopped:\n{(tmp_path / 'commands.log').read_text()[-4000:]}"
            assert time.monotonic() < deadline, "JupyterLab did not answer within 2 minutes"
            time.sleep(0.5)
        status, listing = _get(f"{base}/api/contents?token={token}")
        assert status == 200 and '"name": "01_tensors"' in listing.replace('":"', '": "'), "JupyterLab is not on lessons/"
        assert '"solutions"' not in listing
        status, page = _get(f"{base}/lab?token={token}")
        assert status == 200 and "@jupyter/nbgrader:create-assignment" in page, "the student settings are not in use"
        assert _get(f"{base}/formgrader?token={token}")[0] == 404, "Formgrader is served to students"
        assert marker.name in listing, "JupyterLab serves another lessons/ than the fresh copy's"
    finally:
        stop(server)   # the server this test started, and its kernels' group
        log.close()
