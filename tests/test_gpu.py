"""GPU-only checks, run together by `make gpu-check`; each skips with the reason on a CPU machine."""

from __future__ import annotations

import pytest
import torch

from coursekit import pick_device
from coursekit.checks import GPU_SKIPPED, NeedsGPU, check_device, run_gpu_checks

from gpu_params import needs_cuda


def test_gpu_checks_skip_with_one_line_on_a_cpu_and_fail_on_a_gpu_runner_without_cuda(capsys, monkeypatch):
    monkeypatch.delenv("COURSEKIT_GPU_RUNNER", raising=False)
    if torch.cuda.is_available():
        assert run_gpu_checks() is True
        return
    assert run_gpu_checks() is False  # a student's Run All goes on
    printed = capsys.readouterr().out
    assert GPU_SKIPPED in printed and printed.count("\n") == 1
    monkeypatch.setenv("COURSEKIT_GPU_RUNNER", "1")  # the grader's GPU runner: a skip must never pass
    with pytest.raises(NeedsGPU, match="no CUDA"):
        run_gpu_checks()


@pytest.mark.gpu
@needs_cuda
def test_pick_device_prefers_cuda():
    assert pick_device().type == "cuda"


@pytest.mark.gpu
@needs_cuda
def test_checks_accept_cuda_tensors():
    x = torch.ones(3, device="cuda")
    check_device(x, "cuda")
    check_device(x, x.device)


def _assignments_with_gpu_cells() -> list[str]:
    from autograder import course, notebooks

    return [name for name in course.assignments()
            if any(map(notebooks.is_gpu_test_cell, notebooks.read(course.solution_notebook(name)).cells))]


@pytest.mark.gpu
@needs_cuda
@pytest.mark.parametrize("name", _assignments_with_gpu_cells())
def test_gpu_only_cells_pass_on_the_solution(name):
    """Run the whole solution notebook on the GPU machine; every GPU-only test cell must pass."""
    from autograder import course, notebooks

    path = course.solution_notebook(name)
    nb = notebooks.read(path)
    notebooks.client(nb, path.parent, timeout=900).execute()
    failures = []
    for cell in nb.cells:
        gid = notebooks.grading(cell).get("grade_id", "")
        if notebooks.is_gpu_test_cell(cell):
            errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
            if errors:
                failures.append(f"{gid}: {errors[0].get('ename')}: {errors[0].get('evalue')}")
    assert not failures, failures


@pytest.mark.gpu
@needs_cuda
def test_gpu_cells_graded_on_a_gpu_runner_pass_and_are_counted(tmp_path):
    """The grader's GPU runner: the box gets the GPU, and every GPU-only cell of a correct submission passes."""
    from autograder import notebooks
    from autograder.grade import grade
    from autograder.settings import PASSED
    from submission_factory import student_copy

    names = _assignments_with_gpu_cells()
    for name in names:
        notebooks.write(student_copy(name), tmp_path / "subs" / "complete" / name / f"{name}.ipynb")
    results = grade(tmp_path / "subs", tmp_path / "out", runner="gpu")
    for result in results:
        gpu_cells = [c for c in result.cells if c.cell.endswith("-gpu-tests")]
        assert gpu_cells and all(c.status == PASSED for c in gpu_cells), (result.assignment, gpu_cells, result.reason)
        assert result.gpu_points == 0 and result.score == result.max_score, result
