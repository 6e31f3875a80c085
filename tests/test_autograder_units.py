"""Fast tests of the autograder's parts that need no nbgrader run."""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest

from autograder.core import course, notebooks
from autograder.authoring.check import check, format_table, CheckRow
from autograder.grading.feedback import HIDDEN_NOTE, HideHiddenTests, prepare_for_feedback, strip_hidden, verdict_output
from autograder.core.settings import FEEDBACK_STEPS, configure
from autograder.authoring.variants import left_out


def _test_cell(source: str):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "t", "points": 1, "locked": True}
    return cell


def test_strip_hidden_keeps_visible_lines_and_marks_the_cut():
    source = "visible()\n    ### BEGIN HIDDEN TESTS\n    secret()\n    ### END HIDDEN TESTS\nafter()"
    stripped, cut = strip_hidden(source)
    assert cut and "secret" not in stripped and "visible()" in stripped and "after()" in stripped
    assert f"    {HIDDEN_NOTE}" in stripped


def test_feedback_preprocessor_hides_hidden_source_and_every_output_from_the_first_test_cell_on():
    """The same policy for nbgrader's own generate_feedback: no kernel output once hidden tests have run."""
    before = nbformat.v4.new_code_cell("print('early')")
    before.outputs = [nbformat.v4.new_output("stream", name="stdout", text="early\n")]
    cell = _test_cell("ok()\n### BEGIN HIDDEN TESTS\nsecret_check(42)\n### END HIDDEN TESTS")
    cell.outputs = [nbformat.v4.new_output("error", ename="CheckFailed", evalue="result should be 3",
                                           traceback=["File <cell>, line 3: secret_check(42)"]),
                    verdict_output("Grader: 0 / 1 points.")]
    after = nbformat.v4.new_code_cell("### BEGIN HIDDEN TESTS is only text here\nprint(1)")
    after.outputs = [nbformat.v4.new_output("stream", name="stdout", text="aGlkZGVu\n")]
    nb = nbformat.v4.new_notebook(cells=[before, cell, after])
    nb, _ = HideHiddenTests().preprocess(nb, {})
    assert "secret_check" not in nb.cells[1].source and HIDDEN_NOTE in nb.cells[1].source
    assert [o.output_type for o in nb.cells[1].outputs] == ["display_data"], "only the grader's verdict stays"
    assert nb.cells[0].outputs and not nb.cells[2].outputs
    assert nb.cells[2].source == after.source  # only test cells' sources are touched


def test_feedback_shows_one_block_per_print_however_the_kernel_flushed_it():
    """The kernel may deliver print("permute :", x) as one stream message or two; the page must not differ."""
    def ran(*pieces):
        cell = nbformat.v4.new_code_cell('print("permute :", x)\nshow(x)')
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=t) for t in pieces]
        cell.outputs.append(nbformat.v4.new_output("display_data", data={"text/plain": "<figure>"}))
        cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text="after the figure\n"))
        return prepare_for_feedback(nbformat.v4.new_notebook(cells=[cell])).cells[0].outputs

    whole = ran("permute : tensor([0, 6])\n")
    split = ran("permute : ", "tensor([0, 6])\n")
    assert split == whole
    assert [o.output_type for o in whole] == ["stream", "display_data", "stream"]  # order kept, no merging across


def test_nbgrader_feedback_runs_the_same_steps_as_the_autograder():
    """An instructor running `nbgrader generate_feedback` by hand must get the same student view."""
    from traitlets.config import Config

    c = Config()
    configure(c, source="solutions", release="lessons")
    steps = list(c.GenerateFeedback.preprocessors)
    assert steps[0] == "nbgrader.preprocessors.GetGrades"
    assert steps[1:1 + len(FEEDBACK_STEPS)] == list(FEEDBACK_STEPS)
    assert "autograder.grading.feedback.HideHiddenTests" in FEEDBACK_STEPS


def test_tidy_is_idempotent_and_sets_ids_from_grade_ids():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# hi"), _test_cell("x = 1")])
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="noise")]
    nb.cells[1].execution_count = 4
    once = notebooks.dumps(notebooks.tidy(nb))
    twice = notebooks.dumps(notebooks.tidy(nbformat.reads(once, as_version=4)))
    assert once == twice
    tidied = nbformat.reads(once, as_version=4)
    assert tidied.cells[1].id == "t" and tidied.cells[1].outputs == [] and tidied.cells[1].execution_count is None
    assert notebooks.grading(tidied.cells[1])["schema_version"] == 3


def test_tidy_rejects_duplicate_grade_ids():
    nb = nbformat.v4.new_notebook(cells=[_test_cell("a"), _test_cell("b")])
    with pytest.raises(ValueError, match="unique"):
        notebooks.tidy(nb)


def test_check_table_shows_hints_and_points():
    table = format_table([CheckRow("a-tests", 2, True, ""), CheckRow("b-tests", 3, False, "CheckFailed: bad\nHint: do this")])
    assert "2 / 5 points" in table and "Hint: do this" in table and "FAIL" in table


def test_check_explains_missing_and_broken_notebooks(tmp_path):
    with pytest.raises(SystemExit, match="does not exist"):
        check(tmp_path / "nope.ipynb")
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{ this is not json", encoding="utf-8")
    with pytest.raises(SystemExit, match="not a readable notebook: it is not valid JSON"):
        check(broken)
    deep = tmp_path / "deep.ipynb"
    deep.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(SystemExit, match="nested more than 64 levels deep"):
        check(deep)


def test_every_execution_path_waits_for_late_outputs():
    """nbclient's 4 s default dropped outputs under load and made feedback pages differ between runs."""
    from traitlets.config import Config

    from autograder.core import settings

    c = Config()
    settings.configure(c, source="s", release="r")
    assert c.Execute.iopub_timeout == settings.IOPUB_TIMEOUT_S >= 60
    runner = notebooks.client(nbformat.v4.new_notebook(), ".", timeout=5)
    assert runner.iopub_timeout == settings.IOPUB_TIMEOUT_S and runner.allow_errors


def test_a_notebook_run_leaves_no_kernel_behind():
    import psutil

    before = {p.pid for p in psutil.Process().children(recursive=True)}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    notebooks.client(nb, ".", timeout=60).execute()
    runner = notebooks.client(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("y = 2")]), ".", timeout=60)
    with runner.setup_kernel():
        runner.execute_cell(runner.nb.cells[0], 0)
    left = [p for p in psutil.Process().children(recursive=True) if p.pid not in before and p.is_running()
            and p.status() != psutil.STATUS_ZOMBIE]
    assert not left, f"kernels still running after their runs: {[p.cmdline()[:3] for p in left]}"


def _ran(cell, ename=None, evalue=""):
    cell.execution_count = 1
    cell.outputs = [nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[])] if ename else []
    return cell


def test_check_explains_a_missing_name_by_the_cell_that_failed_above():
    from autograder.authoring.check import explain

    demo = _ran(nbformat.v4.new_code_cell("plot(lrs)"), "ValueError", "x and y must have same first dimension")
    stub = _ran(nbformat.v4.new_code_cell("def f(): raise NotImplementedError()"), "NotImplementedError")
    test = _ran(_test_cell("check(f2())"), "NameError", "name 'f2' is not defined")
    nb = nbformat.v4.new_notebook(cells=[demo, stub, test])
    # Any unfinished exercise above wins, even when another cell failed before it.
    assert explain(nb, 2, "NameError: name 'f2' is not defined").startswith("not done yet")
    nb.cells = [demo, test]
    message = explain(nb, 1, "NameError: name 'f2' is not defined")
    assert "a cell above failed first" in message and "ValueError: x and y" in message
    assert explain(nb, 1, None) is None
    assert explain(nb, 1, "NotImplementedError: ").startswith("not done yet")


def test_leave_out_names_one_plain_cell_by_its_first_line_and_nothing_else():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("long_run()\nmore()"),
                                         _test_cell("check(x == 1)"), nbformat.v4.new_code_cell("twice()"),
                                         nbformat.v4.new_code_cell("twice()")])
    assert left_out(nb, "demo", {"long_run()": "why"}) == {1} == left_out(nb, "demo", {"  long_run()  ": "why"})
    assert left_out(nb, "demo", {}) == set()
    with pytest.raises(ValueError, match="matches 0"):
        left_out(nb, "demo", {"no_such_cell()": "why"})
    with pytest.raises(ValueError, match="matches 2"):
        left_out(nb, "demo", {"twice()": "why"})
    nb.cells[1].metadata["nbgrader"] = {"grade": False, "solution": True, "grade_id": "s"}
    with pytest.raises(ValueError, match="graded cell"):
        left_out(nb, "demo", {"long_run()": "why"})


def test_the_executor_skips_the_slow_unused_iri_checker_and_still_validates_notebooks():
    code = ("import sys, autograder.grading.execute, nbformat; from autograder.core import notebooks; "
            f"nbformat.validate(notebooks.read({str(course.solution_notebook('01_tensors'))!r})); "
            "print(sys.modules.get('rfc3987_syntax', 'absent'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None", "the executor (one process per submission) imported rfc3987_syntax"


def test_the_executor_starts_a_kernel_without_importing_torch():
    """One executor per submission: naming the data sets' variables (coursekit.data) or anything else must not pull
    in torch, 1.3 s of every submission's start on a 2-core machine. The grader passes what it needs in the job."""
    from autograder.grading import sandbox
    from autograder.grading.job import Limits

    code = ("import sys, autograder.grading.execute as e, autograder.grading.sandbox as s; "
            "from autograder.grading.job import Limits; "
            "s.kernel_environment(Limits(), 'cpu', home='h', work='w', channel_fd=3, data={'mnist': ('COURSEKIT_MNIST_DIR', '/d')}); "
            "print('torch' in sys.modules, 'coursekit' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"], "the executor imported torch or coursekit"
    assert sandbox.kernel_environment(Limits(), "cpu", home="h", work="w", channel_fd=3,
                                      data={"mnist": ("COURSEKIT_MNIST_DIR", "/d")})["COURSEKIT_MNIST_DIR"] == "/d"
