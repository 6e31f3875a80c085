"""courselab: JupyterLab for the course, in three set-ups from one install.

``python -m courselab`` (or ``make course``) starts the **student** set-up on ``lessons/``; with ``--lang pt_BR`` (or
``make course LANG=pt_BR``) on that edition's lessons, ``lessons/pt_BR/``, with JupyterLab's menus in its language;
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

__all__ = ["ROOT", "ROLES", "settings_dir", "server_environment", "lab_arguments", "edition_settings", "main"]


def settings_dir(role: str) -> Path:
    if role not in ROLES:
        raise SystemExit(f"unknown set-up {role!r}: choose one of {', '.join(ROLES)}")
    return SETTINGS / role


def server_environment(role: str = "student", base: dict[str, str] | None = None, language: str | None = None) -> dict[str, str]:
    """The environment the Jupyter server of ``role`` runs in; its kernels inherit it.

    ``MPLBACKEND`` is removed whatever its value, so that each kernel picks the inline backend and shows
    its figures; the set-up's folder goes first on ``JUPYTER_CONFIG_PATH``; this Python's scripts folder
    goes first on ``PATH``; the offline data folders beside the repository are used when no data folder is
    set (as the Makefile does). For an edition (``language``), its kernels speak its language (``COURSEKIT_LANG``,
    coursekit/i18n.py) and JupyterLab keeps its settings in the edition's folder (``edition_settings``).
    """
    env = dict(os.environ if base is None else base)
    if language:
        env["COURSEKIT_LANG"] = language
        env["JUPYTERLAB_SETTINGS_DIR"] = str(edition_settings(language, env))
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


def lab_arguments(role: str, extra: list[str], here: Path | None = None, language: str | None = None) -> list[str]:
    """``jupyter lab`` options for ``role`` (``here``: where the command was started; ``language``: an edition, whose
    lessons are the root); options in ``extra`` come last, so they win."""
    args = []
    if not any("root_dir" in a or "notebook_dir" in a or "notebook-dir" in a for a in extra):
        root = ROOT_DIRS[role] / language if language and role == "student" else ROOT_DIRS[role]
        args.append(f"--ServerApp.root_dir={root or here or Path.cwd()}")
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in extra:
        args.append("--allow-root")  # containers and CI machines run as root; JupyterLab refuses without this
    return args + list(extra)


def edition_settings(language: str, env: dict[str, str]) -> Path:
    """The JupyterLab user settings folder of an edition's set-up, beside the student's own (``user-settings-pt_BR``
    next to ``user-settings``): made on the first start as a copy of the student's settings with JupyterLab's
    language set to the edition's, then left to the student (Settings > Language still changes it there).

    Why a folder of its own: JupyterLab translates its menus on the server from the *user's* language setting
    (jupyterlab_server's ``get_current_locale``), so a default (an ``overrides.json``) changes only the labels the
    page translates itself; and the English set-up must stay English whatever was chosen here."""
    import json
    import shutil

    own = Path(env.get("JUPYTERLAB_SETTINGS_DIR") or Path.home() / ".jupyter" / "lab" / "user-settings").expanduser()
    folder = own.with_name(f"{own.name}-{language}")
    if not folder.exists():
        if own.is_dir():
            shutil.copytree(own, folder)
        plugin = folder / "@jupyterlab" / "translation-extension" / "plugin.jupyterlab-settings"
        plugin.parent.mkdir(parents=True, exist_ok=True)
        plugin.write_text(json.dumps({"locale": language}, indent=2) + "\n", encoding="utf-8")
    return folder


def _language_option(argv: list[str]) -> str | None:
    """Take ``--lang CODE`` (or ``--lang=CODE``) out of ``argv``; the edition's code, checked."""
    for i, arg in enumerate(argv):
        if arg == "--lang" or arg.startswith("--lang="):
            value = arg.split("=", 1)[1] if "=" in arg else (argv[i + 1] if i + 1 < len(argv) else "")
            del argv[i: i + (1 if "=" in arg else 2)]
            if not value:
                raise SystemExit("--lang needs an edition, e.g. --lang pt_BR")
            from autograder.core import editions

            edition = editions.edition(value)
            if not edition.shipped_notebooks():
                raise SystemExit(f"the {edition.code} edition ships no lesson yet (autograder/core/editions.py)")
            return edition.code
    return None


_USAGE = """usage: python -m courselab [student|instructor|hub] [--lang CODE] [jupyter lab options...]

Starts JupyterLab with the course's settings: `student` (the default) on lessons/,
`instructor` at the repository root, `hub` (a student on a shared server, with the
Assignment List) in the current folder. --lang pt_BR opens the student set-up on an
edition's lessons (lessons/pt_BR/), JupyterLab's menus and the course's messages in its
language. Other options go to `jupyter lab` unchanged (for example --no-browser, --port=8890)."""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help"):
        print(_USAGE)
        return 0
    role = argv.pop(0) if argv and not argv[0].startswith("-") else "student"
    settings_dir(role)  # rejects an unknown role with the list of known ones
    language = _language_option(argv)
    if language and role != "student":
        raise SystemExit("--lang opens an edition's lessons: it goes with the student set-up only")
    if language:
        import importlib.util

        from autograder.core import editions

        pack = editions.edition(language).language_pack
        if importlib.util.find_spec(pack.replace("-", "_")) is None:   # the distribution's module has its name
            print(f"courselab: {pack} is not installed, so JupyterLab's own menus stay in English "
                  f"(pip install -r requirements.txt installs it)", file=sys.stderr)
    if os.environ.get("MPLBACKEND"):
        print(f"courselab: not passing MPLBACKEND={os.environ['MPLBACKEND']} to the notebooks "
              "(their figures would not show)", file=sys.stderr)
    # Computed before the clear: it starts from this process's environment (HOME, LANG, thread limits...).
    env = server_environment(role, language=language)
    os.environ.clear()
    os.environ.update(env)
    if role == "instructor":
        INSTRUCTOR_WORK.mkdir(exist_ok=True)
    here = Path.cwd()
    # Validate reads the course's nbgrader_config.py (per-cell time limit) from the working directory.
    os.chdir(ROOT)
    from jupyterlab.labapp import LabApp

    LabApp.launch_instance(argv=lab_arguments(role, argv, here, language))
    return 0


def _jupyter_server_extension_points():
    return [{"module": "courselab"}]


_TRUSTED = "courselab_trusted_code"   # the settings key of the instructor set-up's page policy (page_policy.Trusted)


def _load_jupyter_server_extension(serverapp) -> None:
    from . import page_policy, validate

    validate.add_handlers(serverapp)
    if serverapp.jpserver_extensions.get("nbgrader.server_extensions.formgrader"):   # the instructor set-up
        serverapp.web_app.settings[_TRUSTED] = page_policy.add_to(serverapp)


async def _start_jupyter_server_extension(serverapp) -> None:
    # Called once every extension has loaded: nbgrader's Formgrader (loaded after courselab, by name) has put its
    # renderers in the settings, which the course's replace; JupyterLab's templates are known.
    from . import page_policy

    trusted = serverapp.web_app.settings.get(_TRUSTED)
    if trusted is not None:
        page_policy.start(serverapp, trusted)
