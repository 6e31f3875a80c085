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
