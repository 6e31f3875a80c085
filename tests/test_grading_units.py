"""Fast tests of the grading pipeline's parts, without running a kernel: intake, composing the notebook
to run, integrity and scoring from an executed notebook, feedback redaction and sanitising, CSV safety."""

from __future__ import annotations

import copy
import csv
import os
import re

import nbformat
import pytest

import torch

from autograder.core import course, notebooks, regions
from autograder.core.settings import FAILED, INVALID, MISSING, NEEDS_GPU, NOT_RUN, NOT_SUBMITTED, PARTIAL, PASSED
from autograder.grading import assignment, compose, feedback, intake, sandbox, scoring, verdicts
from autograder.grading.job import Limits, RunReport
from autograder.grading.results import SubmissionResult, write_csvs
from coursekit import hidden
from submission_factory import student_copy

NAME = "01_tensors"
TASK = assignment.load(NAME)


# --- intake ------------------------------------------------------------------------------------

def _folder(tmp_path, name="s"):
    folder = tmp_path / name / NAME
    folder.mkdir(parents=True)
    return folder


def test_intake_reads_a_regular_notebook(tmp_path):
    folder = _folder(tmp_path)
    notebooks.write(student_copy(NAME), folder / f"{NAME}.ipynb")
    assert isinstance(intake.read_submission(folder, TASK), nbformat.NotebookNode)


def test_intake_refuses_links_without_quoting_their_target(tmp_path):
    folder = _folder(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT", encoding="utf-8")
    os.symlink(secret, folder / f"{NAME}.ipynb")
    refusal = intake.read_submission(folder, TASK)
    assert refusal.status == INVALID and "symbolic link" in refusal.reason and "TOP-SECRET" not in refusal.reason
    linked = tmp_path / "t" / NAME
    linked.parent.mkdir()
    os.symlink(folder, linked)
    assert intake.read_submission(linked, TASK).status == INVALID


def test_intake_explains_missing_and_broken_notebooks(tmp_path):
    folder = _folder(tmp_path)
    (folder / "other.ipynb").write_text("{}", encoding="utf-8")
    missing = intake.read_submission(folder, TASK)
    assert missing.status == MISSING and "other.ipynb" in missing.reason
    (folder / f"{NAME}.ipynb").write_text('{"cells": [ "SECRET-BYTES', encoding="utf-8")
    broken = intake.read_submission(folder, TASK)
    assert broken.status == INVALID and "not valid JSON" in broken.reason and "SECRET" not in broken.reason
    (folder / f"{NAME}.ipynb").write_text('{"hello": 1}', encoding="utf-8")
    assert intake.read_submission(folder, TASK).status == INVALID
    assert intake.read_submission(tmp_path / "nobody" / NAME, TASK).status == NOT_SUBMITTED


def test_every_folder_is_a_student_whatever_its_name(tmp_path):
    for name in ("-h", "--force", "[ab]", ".hidden", "=1+1", "plain"):
        _folder(tmp_path, name)
    (tmp_path / "stray-file.txt").write_text("x", encoding="utf-8")
    students, assignments = intake.discover(tmp_path, None)
    assert students == sorted(["-h", "--force", "[ab]", ".hidden", "=1+1", "plain"]) and assignments == [NAME]


def test_the_box_gets_the_notebook_and_nothing_else_unless_declared(tmp_path, monkeypatch):
    folder = _folder(tmp_path)
    nb = student_copy(NAME)
    notebooks.write(nb, folder / f"{NAME}.ipynb")
    (folder / "coursekit").mkdir()
    (folder / "coursekit" / "__init__.py").write_text("raise SystemExit('shadowed')", encoding="utf-8")
    (folder / "ipykernel_launcher.py").write_text("print('runs before the kernel')", encoding="utf-8")
    (folder / "weights.pt").write_bytes(b"\0" * 16)
    os.symlink("/etc/passwd", folder / "passwd")
    files, notes = intake.box_files(folder, NAME, intake.read_submission(folder, TASK))
    assert list(files) == [f"{NAME}.ipynb"] and not notes
    assert nbformat.reads(files[f"{NAME}.ipynb"].decode(), as_version=4).cells[0].source == nb.cells[0].source
    monkeypatch.setattr(course, "submission_files", lambda name: ["weights.pt", "passwd", "absent.csv"])
    files, notes = intake.box_files(folder, NAME, nb)
    assert sorted(files) == [f"{NAME}.ipynb", "weights.pt"] and len(notes) == 2, "a declared link or a missing file is noted"


def test_declared_submission_files_must_be_plain_names(tmp_path, monkeypatch):
    (tmp_path / "lesson").mkdir()
    monkeypatch.setattr(course, "SOLUTIONS", tmp_path)
    assert course.submission_files("lesson") == []
    (tmp_path / "lesson" / course.SUBMISSION_FILES).write_text("# data the box needs\nweights.pt\n\n", encoding="utf-8")
    assert course.submission_files("lesson") == ["weights.pt"]
    (tmp_path / "lesson" / course.SUBMISSION_FILES).write_text("../../etc/passwd\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="plain file names"):
        course.submission_files("lesson")


# --- composing the notebook to run ---------------------------------------------------------------

def _source_test(grade_id: str) -> str:
    cells = notebooks.read(course.solution_notebook(NAME)).cells
    return next(c.source for c in cells if notebooks.grading(c).get("grade_id") == grade_id)


def _ids(plan) -> list[str]:
    return [notebooks.grading(c).get("grade_id", "") for c in plan.nb.cells]


def test_compose_puts_back_the_real_tests_with_the_guard_and_the_hidden_begin_line():
    nb = student_copy(NAME, replace={"make-grid-tests": "print('all good')"})
    plan = compose.build(nb, TASK)
    assert [s.grade_id for s in plan.tests] == [g for g in _ids(plan) if g.endswith("-tests")]
    slot = plan.tests[0]
    source = plan.nb.cells[slot.index].source
    assert source.startswith(compose.prologue(slot.grade_id, slot.nonce))
    assert compose.hidden_begins(slot.grade_id) in source and "BEGIN HIDDEN TESTS" not in source
    assert regions.visible(_source_test("make-grid-tests"))[0].split("# (hidden")[0].strip() in source
    assert any("edited a locked test cell (make-grid-tests" in f for f in plan.flags)
    assert len({s.nonce for s in plan.tests}) == len(plan.tests), "one nonce per test cell"
    assert compose.build(nb, TASK).tests[0].nonce != slot.nonce, "nonces are new for every grading"
    assert set(plan.visible) == {s.grade_id for s in plan.tests} and "hidden." not in plan.visible[slot.grade_id]


def test_grader_blocks_never_reach_the_kernel():
    source = ("check()\n    ### BEGIN HIDDEN TESTS\n    hidden.same('x', f())\n    ### BEGIN GRADER\n"
              "    def secret_rule(got, reference):\n        return None\n    ### END GRADER\n    ### END HIDDEN TESTS\nafter()")
    kernel = compose.test_cell_source(source, "t")
    assert "secret_rule" not in kernel and "hidden.same('x', f())" in kernel and "after()" in kernel
    assert f"    {compose.hidden_begins('t')}" in kernel
    assert regions.grader_code(source).startswith("def secret_rule")
    with pytest.raises(regions.RegionError):
        regions.lines("### BEGIN GRADER\nx\n### END GRADER")


def test_compose_matches_cells_whose_metadata_another_editor_stripped():
    nb = student_copy(NAME)
    expected = _ids(compose.build(nb, TASK))
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    assert _ids(compose.build(copy.deepcopy(nb), TASK)) == expected  # by cell id
    for cell in nb.cells:
        cell.pop("id", None)
    plan = compose.build(nb, TASK)  # by content and order
    assert _ids(plan) == expected and not plan.flags and "matched to the lesson" in plan.notes[0]


def test_compose_drops_a_duplicated_locked_cell_and_restores_a_deleted_one():
    nb = student_copy(NAME, drop=("flatten-images-tests",))
    index = next(i for i, c in enumerate(nb.cells) if notebooks.grading(c).get("grade_id") == "make-grid-tests")
    nb.cells.insert(index + 1, copy.deepcopy(nb.cells[index]))
    plan = compose.build(nb, TASK)
    ids = _ids(plan)
    assert ids.count("make-grid-tests") == 1 and ids.count("flatten-images-tests") == 1
    assert ids.index("flatten-images") < ids.index("flatten-images-tests") < ids.index("channels-last")
    assert any("duplicated" in f for f in plan.flags) and any("deleted a graded cell" in f for f in plan.flags)


def test_a_student_cell_cannot_pose_as_a_test_cell():
    nb = student_copy(NAME)
    fake = nbformat.v4.new_code_cell("print('I am a test')")
    fake.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "my-own-tests", "points": 100, "locked": True}
    nb.cells.insert(3, fake)
    plan = compose.build(nb, TASK)
    assert "my-own-tests" not in [s.grade_id for s in plan.tests] and sum(s.points for s in plan.tests) == 10
    assert "nbgrader" not in plan.nb.cells[3].metadata


# --- verdicts, integrity and scoring from an executed notebook ------------------------------------

def _record(cell: str, name: str, value, kind: str = "value", hint: str = "") -> dict:
    return {"record": 1, "cell": cell, "name": name, "kind": kind, "rule": "same", "hint": hint,
            "params": {"rtol": 0.0, "atol": 0.0, "dtype": True, "grad": False}, "value": hidden.encode(value)}


def _reference(plan) -> list[dict]:
    """Two values and, for the last cell, an observation, per test cell: what the solution would send."""
    found = []
    for slot in plan.tests:
        found += [_record(slot.grade_id, "first", torch.arange(3.0), hint="use arange"), _record(slot.grade_id, "second", 7)]
    found.append(_record(plan.tests[-1].grade_id, "modes", [False], kind="observation"))
    return found


def _executed(plan, *, skip=(), fail=(), wrong=(), silent=(), found=None, unreported=(), observed_wrong=()):
    """What the executor would bring back if every test ran (with the given exceptions)."""
    nb = copy.deepcopy(plan.nb)
    channel = []
    for slot in plan.tests:
        cell = nb.cells[slot.index]
        if slot.grade_id in skip:
            continue
        cell.execution_count = 1
        if slot.grade_id not in unreported:
            channel.append({"cell": slot.grade_id, "nonce": slot.nonce, "found": (found or {}).get(slot.grade_id, [])})
        if slot.grade_id in fail:
            cell.outputs = [nbformat.v4.new_output("error", ename="CheckFailed", evalue="wrong", traceback=[])]
            continue
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="\u2713 fine\n"),
                        nbformat.v4.new_output("stream", name="stderr", text="UserWarning: harmless\n")]
        if slot.grade_id not in silent:
            channel += [_record(slot.grade_id, "first", torch.arange(3.0) + (slot.grade_id in wrong)),
                        _record(slot.grade_id, "second", 7)]
    last = plan.tests[-1].grade_id
    if last not in skip and last not in silent and last not in fail:
        channel.append(_record(last, "modes", [last in observed_wrong], kind="observation"))
    return nb, RunReport(channel=channel)


def _score(plan, nb, report, runner="cpu"):
    checks = verdicts.judge(_reference(plan), report.channel)
    return scoring.score(plan, nb, report, runner, checks), checks


def _statuses(outcome):
    return {c.cell: (c.score, c.status) for c in outcome.cells}


def test_a_clean_run_scores_every_point_and_stderr_costs_nothing():
    plan = compose.build(student_copy(NAME), TASK)
    outcome, _ = _score(plan, *_executed(plan))
    assert all(status == PASSED for _, status in _statuses(outcome).values()) and not outcome.flags
    assert sum(c.score for c in outcome.cells) == 10


def test_a_wrong_value_a_missing_record_or_an_error_costs_the_cell():
    plan = compose.build(student_copy(NAME), TASK)
    nb, report = _executed(plan, wrong=("make-grid-tests",), silent=("rows-mean-above-tests",), fail=("flatten-images-tests",))
    got = _statuses(_score(plan, nb, report)[0])
    assert got["make-grid-tests"] == got["rows-mean-above-tests"] == got["flatten-images-tests"] == (0.0, FAILED)
    assert got["channels-last-tests"] == (2.0, PASSED)


def test_a_wrong_observation_costs_its_share_only():
    plan = compose.build(student_copy(NAME), TASK)
    last = plan.tests[-1].grade_id
    got = _statuses(_score(plan, *_executed(plan, observed_wrong=(last,)))[0])
    assert got[last] == (1.5, PARTIAL) and sum(score for score, _ in got.values()) == 9.5


def test_the_guard_only_decides_whether_observations_are_trusted():
    plan = compose.build(student_copy(NAME), TASK)
    last = plan.tests[-1].grade_id
    nb, report = _executed(plan, found={last: [["input transformer", "_keep_ends"]],
                                        "flatten-images-tests": [["function replaced", "torch.allclose"]]},
                           unreported=("make-grid-tests",))
    outcome, _ = _score(plan, nb, report)
    got = _statuses(outcome)
    assert got["make-grid-tests"] == (2.0, PASSED), "values are judged outside, whatever the guard said"
    assert got[last] == (1.5, PARTIAL), "observations made while a transformer was active are not counted"
    assert any("function replaced: torch.allclose" in f and "put back" in f for f in outcome.flags)
    assert any("input transformer: _keep_ends" in f and "not trusted" in f for f in outcome.flags)
    assert any("never reported" in f for f in outcome.flags)


def test_unrun_cells_and_gpu_cells_on_a_cpu_runner():
    nb_student = student_copy("08_mnist_mlp")
    plan = compose.build(nb_student, assignment.load("08_mnist_mlp"))
    gpu = [s.grade_id for s in plan.tests if s.gpu]
    assert gpu == ["train-gpu-tests"]
    nb, report = _executed(plan, skip=("train-mnist-tests",))
    got = _statuses(_score(plan, nb, report)[0])
    assert got["train-gpu-tests"][1] == NEEDS_GPU and got["train-mnist-tests"] == (0.0, NOT_RUN)
    # On a GPU runner, a GPU check that printed the skip line never passes.
    gpu_slot = next(s for s in plan.tests if s.gpu)
    nb.cells[gpu_slot.index].outputs[0]["text"] += "GPU-only check: checked on a GPU runner; skipped here\n"
    assert _statuses(_score(plan, nb, report, "gpu")[0])["train-gpu-tests"] == (0.0, FAILED)


def test_scores_never_exceed_a_cells_points_and_nothing_the_kernel_prints_is_a_score():
    plan = compose.build(student_copy(NAME), TASK)
    nb, report = _executed(plan, wrong=tuple(s.grade_id for s in plan.tests))
    for slot in plan.tests:  # a number left as a cell's value is nbgrader's partial credit; never here
        nb.cells[slot.index].outputs.append(nbformat.v4.new_output("execute_result", data={"text/plain": "5000"}))
    assert sum(c.score for c in _score(plan, nb, report)[0].cells) == 0


# --- feedback ------------------------------------------------------------------------------------

def test_feedback_shows_the_graders_words_no_later_output_and_runs_no_script():
    plan = compose.build(student_copy(NAME), TASK)
    nb, report = _executed(plan, wrong=("make-grid-tests",))
    hidden_source = TASK.hidden_lines()
    first = plan.tests[0].index
    nb.cells[first + 1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="LATER-OUTPUT\n")]
    nb.cells[1].outputs = [
        nbformat.v4.new_output("display_data", data={"text/html": "<script>alert(1)</script><b onclick='x()'>b</b>",
                                                     "text/plain": "x"}),
        nbformat.v4.new_output("display_data", data={"application/javascript": "alert(2)"}),
        nbformat.v4.new_output("stream", name="stdout", text="EARLY-OUTPUT\n" + "\n".join(hidden_source[:3]) + "\n"),
    ]
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("<img src=x onerror=alert(3)> [x](javascript:alert(4))"))
    plan.tests = [compose.TestSlot(s.index + 1, s.grade_id, s.points, s.gpu, s.nonce) for s in plan.tests]
    outcome, checks = _score(plan, nb, report)
    result = SubmissionResult("s", NAME, "graded", "", 0, outcome.cells)
    page = feedback.render_page(nb, plan, result, checks, hidden_source)
    text = page.lower()
    assert "<script" not in text and not re.search(r"<[^>]+\son\w+\s*=", text)
    assert not re.search(r"""(href|src)\s*=\s*["']?\s*javascript:""", text)
    assert "content-security-policy" in text
    assert not [line for line in hidden_source if line in page], "a hidden-test line reached the page"
    assert "EARLY-OUTPUT" in page and "LATER-OUTPUT" not in page and "Outputs below are not shown" in page
    assert "\u2713 fine" not in page and "UserWarning" not in page, "a test cell shows the grader's words, not the kernel's"
    assert "Grader: 0 / 2 points" in page and "expected" in page and "Hint: use arange" in page
    assert not any(s.nonce in page for s in plan.tests) and "before_test" not in page and "hidden.begin" not in page


def test_problem_pages_escape_what_they_quote():
    result = SubmissionResult("<b>x</b>", NAME, INVALID, "<script>alert(1)</script>", 0, [])
    page = feedback.problem_page(result)
    assert "<script>" not in page and "Content-Security-Policy" in page


# --- CSV and the sandbox check ---------------------------------------------------------------------

def test_csv_fields_that_would_start_a_formula_are_quoted(tmp_path):
    """grades.csv goes through core/csv_safe.py (tests/test_csv_safe.py has its rules)."""
    write_csvs([SubmissionResult("=HYPERLINK(1)", NAME, "graded", "-reason", 0, [], ["=flag"])], tmp_path)
    with open(tmp_path / "grades.csv", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    assert row["student"] == "'=HYPERLINK(1)" and row["reason"] == "'-reason" and row["flags"] == "'=flag"


def test_grade_refuses_without_a_sandbox_unless_told(tmp_path, monkeypatch):
    from autograder.scale import grade as grade_mod

    monkeypatch.setattr(sandbox, "unavailable_reason", lambda: "bubblewrap is not installed")
    with pytest.raises(SystemExit, match="--unsafe-no-sandbox"):
        grade_mod.make_context(tmp_path, tmp_path, Limits(), "cpu", unsafe_no_sandbox=False, keep=False)
    ctx = grade_mod.make_context(tmp_path, tmp_path, Limits(), "cpu", unsafe_no_sandbox=True, keep=False)
    assert not ctx.box.sandboxed and ctx.sandbox_label.startswith("none (--unsafe-no-sandbox")


def test_the_kernel_environment_is_an_allow_list(monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "nope")
    monkeypatch.setenv("AUTOGRADER_OUT", "/somewhere")
    env = sandbox.kernel_environment(Limits(), "cpu", home="/home/student", work="/submission", channel_fd=5,
                                     data={"mnist": ("COURSEKIT_MNIST_DIR", "/data/mnist")})
    assert "AWS_SECRET_ACCESS_KEY" not in env and "AUTOGRADER_OUT" not in env
    assert env["COURSEKIT_MNIST_DIR"] == "/data/mnist" and env["TMPDIR"] == "/tmp" and "COURSEKIT_GPU_RUNNER" not in env
    assert env["PYTHONSAFEPATH"] == "1" and env[sandbox.CHANNEL_VARIABLE] == "5"
    assert sandbox.kernel_environment(Limits(), "gpu", home="h", work="w", channel_fd=5, data={})["COURSEKIT_GPU_RUNNER"]


def test_the_box_never_binds_the_course_the_tests_or_the_output(tmp_path):
    if sandbox.bwrap() is None:
        pytest.skip("bubblewrap is not installed")
    cmd = sandbox.bwrap_command(["python"], Limits(), "cpu", work=tmp_path / "w", home=tmp_path / "h",
                                ipc=tmp_path / "i", env={}, data={})
    sources = [cmd[i + 1] for i, arg in enumerate(cmd) if arg in ("--bind", "--ro-bind", "--dev-bind")]
    for forbidden in (course.SOLUTIONS, course.ROOT / "tests", course.LESSONS, course.ROOT / "autograder"):
        assert not any(str(forbidden) == s or str(forbidden).startswith(s.rstrip("/") + "/") for s in sources if s != "/"), forbidden
    assert "--unshare-net" in cmd and "--disable-userns" in cmd and "--clearenv" in cmd
    writable = [cmd[i + 2] for i, arg in enumerate(cmd) if arg == "--bind"]
    assert sorted(writable) == sorted([sandbox.INSIDE_WORK, sandbox.INSIDE_HOME, sandbox.INSIDE_IPC])


def test_a_reference_run_the_guard_flags_is_refused_but_a_clean_one_is_not():
    """Whatever the guard flags in the course's own solution it would flag in every correct submission: the reference
    run stops grading instead (grading/reference.py). The solution's hidden tests, which differ from the released
    test cells, are not an edit."""
    from autograder.grading import reference, runner

    plan = compose.build(notebooks.read(course.solution_notebook(NAME)), TASK)
    nb, report = _executed(plan)
    assert reference._unsound(plan, runner.Run(True, "", report, nb), "cpu") is None
    nb, report = _executed(plan, found={"make-grid-tests": [["function replaced", "torch.allclose"]]})
    why = reference._unsound(plan, runner.Run(True, "", report, nb), "cpu")
    assert why and "flagged the solution itself" in why and "torch.allclose" in why, why
    nb, report = _executed(plan, unreported=("make-grid-tests",))
    assert "never reported" in reference._unsound(plan, runner.Run(True, "", report, nb), "cpu")




def test_a_generated_case_names_the_smallest_failing_input_in_the_pages_language():
    """The rule of hidden.generated reports the smallest of the inputs where the result differs, described as the
    reference run described it; on a Portuguese page that description is Portuguese too."""
    from coursekit import hidden as hidden_module
    from coursekit import strategies as cs
    from autograder.grading import rules
    from autograder.grading.feedback import Voice

    strategy = cs.calls(cs.tensors(cs.shapes(dims=(1, 2), side=(1, 6))))

    def record(fn):
        before = len(hidden_module.local_records())
        hidden_module.begin("cell-tests")
        hidden_module.generated("abs on generated tensors", fn, strategy, examples=12)
        return hidden_module.local_records()[before:][-1]

    reference = record(lambda x: x.abs())
    assert rules.generated(reference["value"], reference["value"], **reference["params"]) is None
    wrong = record(lambda x: x.abs() if x.numel() < 5 else x)   # wrong on every input of 5 elements or more
    message = rules.generated(wrong["value"], reference["value"], **reference["params"])
    failing = [d for d, w in zip(reference["value"]["draws"], wrong["value"]["draws"])
               if rules.same(w["result"], d["result"]) and d["size"] >= 5]
    assert message and message.startswith(f"{len(failing)} of 12 generated inputs")
    smallest = min(failing, key=lambda d: d["size"])
    assert smallest["input"] in message
    portuguese = Voice("pt_BR").say(message)
    assert "entradas geradas" in portuguese and "um tensor float32 de shape" in portuguese, portuguese
