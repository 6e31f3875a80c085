"""Real-browser tests' shared pieces: Debian's Chromium through Playwright, JupyterLab started as `make course` and
`make instructor` start it, and the instructor set-up on a fresh copy of the course. The fixtures built from them
(``browser``, ``page``, ``instructor_lab``) are in conftest.py; tests/test_browser.py (the student's JupyterLab and
Formgrader's round trip) and tests/test_instructor_pages.py (student work on every instructor page) use them.

Screenshots and the servers' logs go to ``test-artifacts/browser/`` (git-ignored). Everything skips with its reason
where Playwright or Chromium is missing; nothing downloads a browser (no ``playwright install``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from autograder.core import course
from fresh_copy import fresh_copy

ARTIFACTS = course.ROOT / "test-artifacts" / "browser"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
def chromium() -> str | None:
    # Debian's Chromium here; GitHub's Ubuntu runners have Google Chrome (Ubuntu's chromium is a snap stub).
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def browser_missing() -> str | None:
    """Why this file's tests cannot run here, or None when they can."""
    import importlib.util

    if importlib.util.find_spec("playwright") is None:
        return "Playwright for Python is not installed (requirements.txt)"
    if chromium() is None:
        return "no Chromium on this machine (Debian: apt-get install chromium; .ci/run does it)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fresh_user(scratch: Path) -> dict[str, str]:
    """The environment of a first-time user: empty Jupyter user config, settings, workspaces and runtime
    folders; otherwise this test process's, MPLBACKEND=Agg included, as a shell or a Makefile could pass it on.

    One difference from a student's laptop: one maths thread per kernel (as the grader runs). On a 2-core
    machine busy with other work, two threads per kernel made lesson 08's training 10 to 20 times slower,
    past nbgrader's 10-minute limit per cell in Validate; what this test checks does not depend on it.
    """
    return {**os.environ, "MPLBACKEND": "Agg", "JUPYTER_CONFIG_DIR": str(scratch / "user-config"),
            "JUPYTERLAB_SETTINGS_DIR": str(scratch / "user-settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(scratch / "workspaces"), "JUPYTER_RUNTIME_DIR": str(scratch / "runtime"),
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@contextlib.contextmanager
def start_lab(role: str, root: Path, options: str, env: dict[str, str], log_name: str, language: str | None = None):
    """Start JupyterLab as `make course` / `make instructor` does (the launcher where there is no make) in
    ``root`` (a course folder), in an edition's set-up with ``language`` (`make course LANG=pt_BR`); yield (base URL,
    token); stop it, and every process it started, at the end."""
    port, token = free_port(), uuid.uuid4().hex
    options = f"--no-browser --ServerApp.ip=127.0.0.1 --port={port} --IdentityProvider.token={token} {options}".strip()
    target = {"student": "course", "instructor": "instructor"}[role]
    if shutil.which("make"):  # exactly the make target (its install step is not redone here)
        venv = Path(sys.executable).parent.parent  # this interpreter's environment, wherever ``root`` is
        command = ["make", "--no-print-directory", "-o", "install", target, f"VENV={venv}", f"LAB_ARGS={options}"]
        command += [f"LANG={language}"] if language else []
    else:
        command = [sys.executable, "-m", "courselab", role, *([f"--lang={language}"] if language else []), *options.split()]
    log_path = ARTIFACTS / log_name
    log = log_path.open("w")
    server = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5):
                break
        except (urllib.error.URLError, ConnectionError, OSError):
            if server.poll() is not None or time.monotonic() > deadline:
                os.killpg(server.pid, signal.SIGKILL)
                pytest.fail(f"JupyterLab did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.5)
    try:
        yield base, token
    finally:
        stop(server)
        log.close()


def stop(server: subprocess.Popen) -> None:
    """End the process group a test started (make, the server, its kernels): politely, then for good."""
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def open_lab(page, lab, path: str = ""):
    """Open JupyterLab (a notebook when ``path`` is given) in a workspace of its own."""
    where = f"/tree/{path}" if path else ""
    page.goto(f"{lab['base']}/lab/workspaces/w{uuid.uuid4().hex[:8]}{where}?token={lab['token']}")
    page.wait_for_selector("#jp-main-dock-panel", timeout=60_000)
    if path:
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=60_000)
        wait_idle(page, 120)


def wait_idle(page, timeout_s: float):
    """Until the notebook's kernel has started and is idle (the status bar says so)."""
    page.wait_for_function("""() => /\\|\\s*Idle/.test((document.querySelector('#jp-main-statusbar') || {}).textContent || '')""",
                           timeout=timeout_s * 1000)


def formgrader_page_shows(page, lab, path: str, text: str, screenshot: str) -> None:
    """Open one of Formgrader's own pages and wait until it shows ``text`` (it fills its tables by script)."""
    page.goto(f"{lab['base']}{path}?token={lab['token']}")
    try:
        page.wait_for_function("(s) => document.body.innerText.includes(s)", arg=text, timeout=60_000)
    finally:
        page.screenshot(path=str(ARTIFACTS / screenshot))
    assert text in page.inner_text("body")


@contextlib.contextmanager
def instructor_lab_at(scratch: Path):
    """The instructor set-up on a fresh copy of the course (its own .instructor/, never this checkout's)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    root = fresh_copy(scratch / "course")
    # The copy's own packages come first, so that courselab finds the copy's settings and course.
    env = {**fresh_user(scratch), "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    with start_lab("instructor", root, "", env, "jupyterlab-instructor.log") as (base, token):
        yield {"base": base, "token": token, "root": root}
