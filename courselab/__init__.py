"""courselab: JupyterLab for the course, in three set-ups from one install.

``python -m courselab`` (or ``make course``) starts the **student** set-up on ``lessons/``;
``python -m courselab instructor`` (or ``make instructor``) the **instructor** set-up at the repository root;
``python -m courselab hub`` the set-up of a student on a shared server, in the folder it is started from.
Each set-up is a folder of ordinary Jupyter configuration committed under ``jupyter/<role>/``, put first on
Jupyter's config search path with ``JUPYTER_CONFIG_PATH`` (see ``jupyter/README.md``):

- student: nbgrader's Validate button only (no Create Assignment, Formgrader, Assignment or Course List),
  no news or update pop-ups;
- instructor: Create Assignment and Formgrader on this course (gradebook and a local exchange under the
  git-ignored ``.instructor/``), and solution notebooks tidied on every save;
- hub: a student on a shared server (JupyterHub): the Assignment List (fetch, validate, submit, fetch feedback)
  on the exchange and course id of ``jupyter/hub/nbgrader_config.py``; no instructor tools.

All three serve Validate from :mod:`courselab.validate` (in a child process, so that a long validation
never blocks the server), and neither hands a plotting backend to the notebook kernels: a kernel that
inherits ``MPLBACKEND=Agg`` (as test and grading runs set it) draws every figure to nowhere.

This package is imported by the Jupyter server, never by a notebook, and imports neither torch nor coursekit.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / "jupyter"
ROLES = ("student", "instructor", "hub")
# Where each set-up opens: the student copies, the whole course (solutions, lessons, nbgrader_config.py), or, for
# a student on a shared server, the folder it is started from (their home: the Assignment List fetches there).
ROOT_DIRS = {"student": ROOT / "lessons", "instructor": ROOT, "hub": None}
# Work files of the instructor set-up (formgrader's gradebook); git-ignored.
INSTRUCTOR_WORK = ROOT / ".instructor"
# The offline data folders the Makefile also uses, when they sit beside the repository.
_SHARED_DATA = {"COURSEKIT_MNIST_DIR": "mnist", "COURSEKIT_FASHION_MNIST_DIR": "fashion-mnist"}

__all__ = ["ROOT", "ROLES", "settings_dir", "server_environment", "lab_arguments", "main"]


def settings_dir(role: str) -> Path:
    if role not in ROLES:
        raise SystemExit(f"unknown set-up {role!r}: choose one of {', '.join(ROLES)}")
    return SETTINGS / role


def server_environment(role: str = "student", base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment the Jupyter server of ``role`` runs in; its kernels inherit it.

    ``MPLBACKEND`` is removed whatever its value, so that each kernel picks the inline backend and shows
    its figures; the set-up's folder goes first on ``JUPYTER_CONFIG_PATH``; this Python's scripts folder
    goes first on ``PATH``; the offline data folders beside the repository are used when no data folder is
    set (as the Makefile does).
    """
    env = dict(os.environ if base is None else base)
    env.pop("MPLBACKEND", None)
    # nbgrader runs `alembic` by name when it creates a gradebook: this environment's scripts must be on PATH
    # even when it was not activated (`.venv/bin/python -m courselab`).
    scripts = str(Path(sys.executable).parent)
    if env.get("PATH", "").split(os.pathsep)[0] != scripts:
        env["PATH"] = os.pathsep.join([scripts, env["PATH"]]) if env.get("PATH") else scripts
    path = [str(settings_dir(role))] + [p for p in env.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep) if p]
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(path)
    for var, folder in _SHARED_DATA.items():
        shared = ROOT.parent / "shared" / "data" / folder
        if not env.get(var) and any(shared.glob("*.gz")):
            env[var] = str(shared)
    return env


def lab_arguments(role: str, extra: list[str], here: Path | None = None) -> list[str]:
    """``jupyter lab`` options for ``role`` (``here``: where the command was started); options in ``extra`` come
    last, so they win."""
    args = []
    if not any("root_dir" in a or "notebook_dir" in a or "notebook-dir" in a for a in extra):
        args.append(f"--ServerApp.root_dir={ROOT_DIRS[role] or here or Path.cwd()}")
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in extra:
        args.append("--allow-root")  # containers and CI machines run as root; JupyterLab refuses without this
    return args + list(extra)


_USAGE = """usage: python -m courselab [student|instructor|hub] [jupyter lab options...]

Starts JupyterLab with the course's settings: `student` (the default) on lessons/,
`instructor` at the repository root, `hub` (a student on a shared server, with the
Assignment List) in the current folder. Other options go to `jupyter lab` unchanged
(for example --no-browser, --port=8890)."""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help"):
        print(_USAGE)
        return 0
    role = argv.pop(0) if argv and not argv[0].startswith("-") else "student"
    settings_dir(role)  # rejects an unknown role with the list of known ones
    if os.environ.get("MPLBACKEND"):
        print(f"courselab: not passing MPLBACKEND={os.environ['MPLBACKEND']} to the notebooks "
              "(their figures would not show)", file=sys.stderr)
    # Computed before the clear: it starts from this process's environment (HOME, LANG, thread limits...).
    env = server_environment(role)
    os.environ.clear()
    os.environ.update(env)
    if role == "instructor":
        INSTRUCTOR_WORK.mkdir(exist_ok=True)
    here = Path.cwd()
    # Validate reads the course's nbgrader_config.py (per-cell time limit) from the working directory.
    os.chdir(ROOT)
    from jupyterlab.labapp import LabApp

    LabApp.launch_instance(argv=lab_arguments(role, argv, here))
    return 0


def _jupyter_server_extension_points():
    return [{"module": "courselab"}]


def _load_jupyter_server_extension(serverapp) -> None:
    from . import page_policy, validate

    validate.add_handlers(serverapp)
    if serverapp.jpserver_extensions.get("nbgrader.server_extensions.formgrader"):   # the instructor set-up
        page_policy.add_to(serverapp)
