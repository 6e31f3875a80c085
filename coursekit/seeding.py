"""Seeding: one call that makes a run repeatable."""

from __future__ import annotations

import os
import random

import torch

__all__ = ["set_seed"]


def set_seed(seed: int, deterministic: bool = False) -> torch.Generator:
    """Seed Python, NumPy (when installed) and PyTorch on every device; return a seeded CPU generator.

    ``deterministic=True`` also asks PyTorch for deterministic kernels (on a GPU this turns off
    cuDNN's benchmark mode, which picks algorithms by timing and so can differ from run to run).
    """
    random.seed(seed)
    try:
        import numpy as np

        np.random.seed(seed % 2**32)
    except ImportError:  # NumPy is optional for the course
        pass
    torch.manual_seed(seed)  # seeds the CPU and every CUDA device
    if deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # needed by deterministic cuBLAS
        torch.use_deterministic_algorithms(True)
        torch.backends.cudnn.benchmark = False
    return torch.Generator().manual_seed(seed)
