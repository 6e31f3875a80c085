"""GPU-only checks, run together by `make gpu-check`; each skips with the reason on a CPU machine."""

from __future__ import annotations

import os

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
    from autograder.core import course, notebooks

    return [name for name in course.assignments()
            if any(map(notebooks.is_gpu_test_cell, notebooks.read(course.solution_notebook(name)).cells))]


@pytest.mark.gpu
@needs_cuda
@pytest.mark.parametrize("name", _assignments_with_gpu_cells())
def test_gpu_only_cells_pass_on_the_solution(name):
    """Run the whole solution notebook on the GPU machine; every GPU-only test cell must pass."""
    from autograder.core import course, notebooks

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
    from autograder.core import notebooks
    from autograder.core.settings import PASSED
    from autograder.grading.sandbox import unavailable_reason
    from autograder.scale.grade import grade
    from submission_factory import student_copy

    names = _assignments_with_gpu_cells()
    for name in names:
        notebooks.write(student_copy(name), tmp_path / "subs" / "complete" / name / f"{name}.ipynb")
    # A device left where it was: the GPU cell's hidden tests send tensors on the CPU where the solution's are on CUDA.
    notebooks.write(student_copy("07_devices_amp", replace={"to-device": "def to_device(batch, device):\n    return batch\n"}),
                    tmp_path / "subs" / "stays-on-cpu" / "07_devices_amp" / "07_devices_amp.ipynb")
    jobs = max(1, min(4, (os.cpu_count() or 2) // 4))   # a GPU machine's cores: the reference runs and submissions side by side
    results = grade(tmp_path / "subs", tmp_path / "out", runner="gpu", jobs=jobs,
                    unsafe_no_sandbox=unavailable_reason() is not None)
    for result in results:
        gpu_cells = [c for c in result.cells if c.cell.endswith("-gpu-tests")]
        if result.student == "stays-on-cpu":
            assert gpu_cells and all(c.score == 0 for c in gpu_cells), (gpu_cells, result.reason)
            continue
        assert gpu_cells and all(c.status == PASSED for c in gpu_cells), (result.assignment, gpu_cells, result.reason)
        assert result.gpu_points == 0 and result.score == result.max_score, result
