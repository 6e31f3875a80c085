"""nbgrader's Validate button, served without blocking the Jupyter server.

nbgrader 0.9.6 validates inside the request handler: the whole server (saving, the file browser, every
kernel's output) freezes until the notebook has run from top to bottom, minutes for the long lessons.
Here the same validation runs in a child process (``python -m courselab.validate``), one at a time,
while the server goes on serving; the button, its URLs and its answers are nbgrader's own.

In an edition's notebook (``metadata.language``), the kernel that runs it speaks the edition's language
(``COURSEKIT_LANG``: the checks' lines and hints), and so do this module's own messages (courselab.po). The dialog's
frame ("Validation Results", "The following cell failed:") is drawn by nbgrader's labextension, in English.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

from autograder.core.editions import i18n

Words = i18n().Words
LANGUAGE_VARIABLE = i18n().LANGUAGE_VARIABLE

# The labextension asks for these two URLs (nbgrader.server_extensions.validate_assignment).
VALIDATE_URL = "/assignments/validate"
VERSION_URL = "/nbgrader_version"


def add_handlers(serverapp) -> None:
    """Register the handlers on ``serverapp`` (called by courselab's server extension hook)."""
    from jupyter_server.utils import url_path_join
    from nbgrader.server_extensions.validate_assignment.handlers import NbGraderVersionHandler

    webapp = serverapp.web_app
    base_url = webapp.settings["base_url"]
    handler = _handler_class()
    webapp.settings["courselab_root_dir"] = serverapp.root_dir
    webapp.add_handlers(".*$", [(url_path_join(base_url, VALIDATE_URL), handler),
                                (url_path_join(base_url, VERSION_URL), NbGraderVersionHandler)])
    serverapp.log.info("courselab: Validate runs in a child process (the server stays responsive)")


def _handler_class():
    from jupyter_server.base.handlers import JupyterHandler
    from tornado import web

    lock = asyncio.Lock()  # one validation at a time: each starts a kernel and runs the whole notebook

    class ValidateInChildProcess(JupyterHandler):
        @web.authenticated
        async def post(self):
            try:
                path = self.get_argument("path")
            except web.MissingArgumentError:
                path = (self.get_json_body() or {}).get("path")
            if not path:
                raise web.HTTPError(400, "no notebook path given")
            root = Path(self.settings["courselab_root_dir"]).resolve()
            target = (root / path).resolve()
            if not target.is_relative_to(root):
                raise web.HTTPError(403, "Access denied: path outside allowed directory")
            async with lock:
                result = await validate_in_child(target, self.log)
            self.finish(json.dumps(result))

    return ValidateInChildProcess


async def validate_in_child(notebook: Path, log=None) -> dict:
    """Run :func:`validate` on ``notebook`` in a child process; nbgrader's answer as a dict.

    The child is waited for in a thread (asyncio's own subprocesses need an event loop that Windows'
    Jupyter server may not run).
    """
    with tempfile.TemporaryDirectory(prefix="courselab-validate-") as tmp:
        out = Path(tmp) / "result.json"
        command = [sys.executable, "-m", "courselab.validate", str(notebook), "--out", str(out)]
        child = await asyncio.get_running_loop().run_in_executor(
            None, lambda: subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
        if out.is_file():
            return json.loads(out.read_text(encoding="utf-8"))
        text = child.stdout.decode("utf-8", "replace")[-4000:]
        if log is not None:
            log.error("courselab: validation of %s stopped (exit code %s):\n%s", notebook, child.returncode, text)
        say = _voice(notebook_language(notebook))
        return {"success": False, "value": say(Words("The validation stopped before it finished (exit code {code}):",
                                                     code=child.returncode)) + f"\n{text}"}


def _nbgrader_config():
    """The nbgrader configuration the Validate button has always used: the nbgrader_config.py files on
    Jupyter's config path, then the one in the working directory (the course root, for its per-cell limit)."""
    from nbgrader.apps import NbGrader

    app = NbGrader()
    app.load_config_file()
    return app.config


def notebook_language(notebook: Path) -> str:
    """The edition ``notebook`` belongs to (its ``metadata.language``; English when it says none or cannot be read)."""
    from autograder.core import editions

    try:
        nb = json.loads(notebook.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "en"
    return editions.notebook_language(nb) if isinstance(nb, dict) else "en"


def _voice(language: str):
    """This module's messages in ``language`` (translations/<code>/courselab.po)."""
    from autograder.core import editions

    return editions.words("courselab", language).words


def validate(notebook: Path) -> dict:
    """What nbgrader's validate handler answers: {"success": bool, "value": results or a message}. The notebook's
    kernel speaks the notebook's language."""
    from nbgrader.nbgraderformat import SchemaTooNewError, SchemaTooOldError
    from nbgrader.validator import Validator

    language = notebook_language(notebook)
    say = _voice(language)
    before = os.environ.get(LANGUAGE_VARIABLE)
    os.environ[LANGUAGE_VARIABLE] = language   # the kernel nbgrader starts inherits it (coursekit/i18n.py)
    try:
        return {"success": True, "value": Validator(config=_nbgrader_config()).validate(str(notebook))}
    except SchemaTooOldError:
        return {"success": False, "value": say(Words(
            "The notebook '{notebook}' uses an old version of the nbgrader metadata format. Back up the notebook, then "
            "run:\n\nnbgrader update {notebook}\n", notebook=notebook))}
    except SchemaTooNewError:
        return {"success": False, "value": say(Words(
            "The notebook '{notebook}' uses a newer version of the nbgrader metadata format than the nbgrader "
            "installed here: update nbgrader.", notebook=notebook))}
    except Exception:
        return {"success": False, "value": traceback.format_exc()}
    finally:
        if before is None:
            os.environ.pop(LANGUAGE_VARIABLE, None)
        else:
            os.environ[LANGUAGE_VARIABLE] = before


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m courselab.validate", description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--out", type=Path, help="write nbgrader's answer here as JSON (default: print it)")
    args = parser.parse_args(argv)
    from autograder.core.settings import skip_slow_unused_imports

    skip_slow_unused_imports()  # 1.2 s less on every click of Validate (before nbgrader imports nbformat)
    text = json.dumps(validate(args.notebook.resolve()))
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(_main())
