"""GPU-only checks, run together by `make gpu-check`; each skips with the reason on a CPU machine."""

from __future__ import annotations

import pytest
import torch

from coursekit import pick_device
from coursekit.checks import NeedsGPU, check_device, require_gpu

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="needs a CUDA GPU: run `make gpu-check` on a GPU machine")


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


@pytest.mark.gpu
@needs_cuda
def test_fused_mlp_on_cuda_matches_autograd_and_stays_on_the_device():
    from torch import nn

    from coursekit.fused_mlp import FusedMLP, dropout_keep_mask, mlp_train_forward
    from coursekit.mnist import MNISTModel

    torch.manual_seed(0)
    cuda = torch.device("cuda")
    keep = dropout_keep_mask((64, 384), 0.2, cuda).double()               # drawn on the GPU
    assert keep.device.type == "cuda" and 0.7 < keep.mean().item() < 0.9
    reference = MNISTModel().double().to(cuda)
    flat = torch.cat([p.detach().reshape(-1) for p in reference.parameters()]).requires_grad_()
    x = torch.rand(64, 784, dtype=torch.float64, device=cuda)
    y = torch.randint(0, 10, (64,), device=cuda)
    nn.functional.cross_entropy(mlp_train_forward(x, flat, keep[:, :256], keep[:, 256:], 0.2), y).backward()
    w1, b1, w2, b2, w3, b3 = (p.detach().clone().requires_grad_() for p in reference.parameters())
    h = torch.relu(x @ w1.T + b1) * keep[:, :256] / 0.8
    h = torch.relu(h @ w2.T + b2) * keep[:, 256:] / 0.8
    nn.functional.cross_entropy(h @ w3.T + b3, y).backward()
    expected = torch.cat([w.grad.reshape(-1) for w in (w1, b1, w2, b2, w3, b3)])
    assert ((flat.grad - expected).norm() / expected.norm()).item() < 1e-10   # float64; a wrong formula gives ~1

    model = MNISTModel().to(cuda)
    fused = FusedMLP(model)
    optimizer = torch.optim.Adam(fused.parameters(), lr=1e-3, fused=True)
    optimizer.zero_grad()
    nn.functional.cross_entropy(fused(x.float()), y).backward()
    optimizer.step()
    assert all(p.device.type == "cuda" for p in model.parameters())
    assert fused.flat.grad.device.type == "cuda"
