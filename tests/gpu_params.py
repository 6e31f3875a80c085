"""Test parameters for code that must run on every device: CUDA cases carry the `gpu` mark and skip with a reason."""

from __future__ import annotations

import pytest
import torch

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="needs a CUDA GPU: run `make gpu-check` on a GPU machine")
# For @pytest.mark.parametrize("device", DEVICES): always the CPU, and CUDA under `make gpu-check`.
DEVICES = ["cpu", pytest.param("cuda", marks=[pytest.mark.gpu, needs_cuda])]
