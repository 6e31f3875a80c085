"""coursekit.ipython_errors: short messages in a notebook, the error itself unchanged.

The grader and nbgrader decide pass or fail from a cell's error output (``ename``, ``evalue``), so these
tests check both what a student sees (the ``traceback`` lines) and that the error is reported as raised.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from autograder.core import course, notebooks
from coursekit import ipython_errors
from coursekit.checks import CheckFailed

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_nothing_changes_outside_ipython():
    assert ipython_errors.install() is False  # pytest is not IPython
    error = CheckFailed("x should be 3, got 4.", "add one")
    assert str(error) == "x should be 3, got 4.\nHint: add one"
    lines = ipython_errors.render_check_failure(error)
    assert lines[0].endswith("x should be 3, got 4.") and "add one" in lines[1] and len(lines) == 2


CELLS = {
    "setup": "import coursekit, torch\nfrom coursekit.checks import check_shape",
    "stub": "def make_grid(rows, cols):\n    # YOUR CODE HERE\n    raise NotImplementedError()",
    "call": "make_grid(2, 3)",
    "top": "# YOUR CODE HERE\nraise NotImplementedError()",
    "check": "check_shape(torch.zeros(3, 2), (2, 3), name=\"grid\")",
    "library": "torch.nn.Module()(torch.zeros(1))",  # torch raises NotImplementedError: no forward
    "message": "raise NotImplementedError(\"not on this device\")",
}


@pytest.fixture(scope="module")
def ran():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS.values()])
    notebooks.client(nb, course.ROOT, timeout=120).execute()
    return {name: notebooks.errors(cell) for name, cell in zip(CELLS, nb.cells)}


def _shown(errors) -> list[str]:
    return [line for line in ANSI.sub("", "\n".join(errors[0]["traceback"])).splitlines() if line.strip()]


@pytest.mark.slow
def test_an_exercise_not_done_yet_is_one_line_naming_it(ran):
    assert not ran["setup"] and not ran["stub"]
    (error,) = ran["call"]
    assert (error["ename"], error["evalue"]) == ("NotImplementedError", "")  # as raised
    shown = _shown(ran["call"])
    assert len(shown) == 1 and shown[0].startswith("✗ Not done yet: `make_grid`"), shown
    assert "in cell [2]" in shown[0]
    top = _shown(ran["top"])
    assert len(top) == 1 and "in this cell" in top[0], top


@pytest.mark.slow
def test_a_failed_check_shows_message_and_hint_first(ran):
    (error,) = ran["check"]
    assert error["ename"] == "CheckFailed" and error["evalue"].startswith("grid should have shape (2, 3), got (3, 2).")
    shown = _shown(ran["check"])
    assert shown[0] == "✗ Check failed: grid should have shape (2, 3), got (3, 2)."
    assert shown[1].startswith("Hint: the sizes are reversed")
    assert len(shown) == 3 and "check_shape(torch.zeros(3, 2)" in shown[2] and "checks.py" not in "\n".join(shown)


@pytest.mark.slow
def test_library_errors_keep_their_traceback(ran):
    (error,) = ran["library"]
    assert error["ename"] == "NotImplementedError" and "forward" in error["evalue"]
    assert "Not done yet" not in "\n".join(_shown(ran["library"])) and len(_shown(ran["library"])) > 3
    # One with a message is someone's own error, not the exercise's placeholder: its usual traceback.
    assert ran["message"][0]["evalue"] == "not on this device"
    assert "Not done yet" not in "\n".join(_shown(ran["message"])) and "not on this device" in _shown(ran["message"])[-1]


def test_an_edition_heading_names_the_exercise_whatever_its_colon(tmp_path, monkeypatch):
    """A Traditional Chinese heading writes the full-width colon (練習 1（2 分）：`name`); a Portuguese one the ASCII
    colon: either way the one-line message names the exercise and its title."""
    import nbformat

    from coursekit import ipython_errors

    for code, heading, expected in (("zh_TW", "### 練習 1（2 分）：`seeded_run`", "練習 1 (`seeded_run`)"),
                                    ("pt_BR", "### Exercício 1 (2 pontos): `seeded_run`", "Exercício 1 (`seeded_run`)")):
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(heading),
                                                   nbformat.v4.new_code_cell("def seeded_run(seed):\n    raise NotImplementedError()")])
        path = tmp_path / code / "09_patterns.ipynb"   # an edition's lesson: the folder names its language
        path.parent.mkdir()
        nbformat.write(notebook, path)
        monkeypatch.setenv("JPY_SESSION_NAME", str(path))
        assert ipython_errors._exercise_heading("seeded_run", "") == expected
