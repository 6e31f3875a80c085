"""GPU-only checks, run together by `make gpu-check`; each skips with the reason on a CPU machine."""

from __future__ import annotations

import pytest
import torch

from coursekit import pick_device
from coursekit.checks import NeedsGPU, check_device, require_gpu

from gpu_params import needs_cuda


def test_require_gpu_says_why_on_a_cpu_machine():
    if torch.cuda.is_available():
        require_gpu()
    else:
        with pytest.raises(NeedsGPU, match="needs a GPU runner"):
            require_gpu()


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
