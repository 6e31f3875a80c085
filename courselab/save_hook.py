"""The instructor set-up's pre-save hook: solution notebooks are saved tidy.

Opening a solution notebook in JupyterLab starts a kernel, which adds its own metadata (versions, language
details); running it adds outputs; autosave then writes both, and ``make test`` fails with "is not tidy".
This hook gives every ``solutions/NN/NN.ipynb`` that JupyterLab saves the form ``python -m autograder
release`` gives it (``autograder.core.notebooks.tidy``: cell ids from grade_id, outputs cleared, fixed kernel
metadata), so what reaches the disk is what the tests expect. The notebook on screen keeps its outputs.
Configured in ``jupyter/instructor/jupyter_server_config.json``.
"""

from __future__ import annotations

from pathlib import PurePosixPath


def is_solution_notebook(path: str) -> bool:
    """``path`` (relative to the server root, with /) is a course source: solutions/NAME/NAME.ipynb."""
    parts = PurePosixPath(path.lstrip("/")).parts
    return len(parts) == 3 and parts[0] == "solutions" and parts[2] == f"{parts[1]}.ipynb"


def tidy_solution_before_save(model: dict, path: str, contents_manager=None, **kwargs) -> None:
    """Tidy ``model`` in place when it is a solution notebook; leave every other file alone.

    A notebook that cannot be tidied (two cells with one grade_id, say) is saved as it is, with a warning
    in the server log: losing the instructor's edits would be worse than an untidy file.
    """
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict) or not is_solution_notebook(path):
        return
    import nbformat

    from autograder.core import notebooks

    try:
        nb = nbformat.from_dict(model["content"])
        model["content"] = notebooks.tidy(nb)
    except Exception as error:  # noqa: BLE001 (saving must go on whatever the notebook holds)
        log = getattr(contents_manager, "log", None)
        if log is not None:
            log.warning("courselab: %s saved untidy (%s); run `python -m autograder release %s`",
                        path, error, PurePosixPath(path).parent.name)
