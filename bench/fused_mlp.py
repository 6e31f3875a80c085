"""The Build's network as one autograd node, with its backward pass written by hand (lesson 08).

At batch size 64 a training step of the Build's MLP is mostly overhead, not arithmetic: autograd
records about a dozen nodes per step, ``nn.Dropout`` draws its masks with a slow random-number
path, and every small operation pays PyTorch's fixed dispatch cost. :class:`FusedMLP` computes the
very same function (784 -> 256 -> ReLU -> Dropout -> 128 -> ReLU -> Dropout -> 10) with fewer,
larger pieces:

- all six parameter tensors live in one flat buffer, so ``Adam(fused=True)`` updates one tensor;
- the forward pass is one :class:`torch.autograd.Function`, and its backward is the chain rule
  written out (three matrix products per layer at most, no graph to walk);
- ReLU and dropout share one pass, and dropout's keep/drop decisions come from 16 random bits each,
  four per 64-bit draw (drop probability round(p * 65536) / 65536, see :func:`dropout_keep_mask`).

It wraps a model the student built: the model's ``nn.Linear`` weights become views into the flat
buffer, so every optimizer step is visible in ``model`` and ``model.state_dict()`` saves the trained
weights. ``train()`` / ``eval()`` switch dropout on and off exactly as in the wrapped model.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["FusedMLP", "dropout_keep_mask", "mlp_forward", "mlp_train_forward"]

LAYER_SHAPES = ((256, 784), (128, 256), (10, 128))  # (out_features, in_features) of the Build's layers


def dropout_keep_mask(shape: tuple[int, int], p: float, device: torch.device | str = "cpu") -> torch.Tensor:
    """Float mask of ``shape``: each entry 1.0 (kept) with probability about ``1 - p``, else 0.0.

    ``nn.Dropout`` on a CPU draws one random number per entry through a general-purpose path
    (about 9 ns per entry here). This draws 64 random bits at a time and reads them as four 16-bit
    integers u, uniform on [0, 65536); an entry is dropped when u < round(p * 65536). The drop
    probability is therefore round(p * 65536) / 65536: for p = 0.2 that is 13107 / 65536 = 0.199997,
    3 parts in a million below 0.2, far inside the sampling noise of one epoch's 23 million draws.
    Uses the global random generator, so ``set_seed`` makes the masks repeatable.
    """
    if not 0.0 <= p < 1.0:
        raise ValueError(f"dropout probability must be in [0, 1), got {p}")
    count = shape[0] * shape[1]
    words = torch.empty((count + 3) // 4, dtype=torch.int64, device=device).random_(-2**63, None)
    u = words.view(torch.int16)[:count].view(shape).float()  # integers in [-32768, 32768): u - 32768
    first_kept = round(p * 65536) - 32768
    # integers: below first_kept -> 0, from first_kept on -> 1 (two cheap float operations, no bool tensors)
    return u.clamp_(first_kept - 1, first_kept).sub_(first_kept - 1)


def _split(flat: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Views (W1, b1, W2, b2, W3, b3) into the flat parameter buffer, in ``model.parameters()`` order."""
    views, start = [], 0
    for out_f, in_f in LAYER_SHAPES:
        views.append(flat[start:start + out_f * in_f].view(out_f, in_f))
        start += out_f * in_f
        views.append(flat[start:start + out_f])
        start += out_f
    return tuple(views)


_relu_backward = torch.ops.aten.threshold_backward  # grad where the ReLU's output is > 0, else 0: one kernel


class _MLPFunction(torch.autograd.Function):
    """Forward and hand-written backward of the MLP for one batch, with given dropout masks.

    Masks hold 0.0 / 1.0; dropout's 1/(1-p) rescaling rides on the next matrix product (``alpha``),
    so a hidden layer costs one matrix product and two element-wise passes.
    """

    @staticmethod
    def forward(ctx, x: torch.Tensor, flat: torch.Tensor, weights: tuple[torch.Tensor, ...],
                keep1: torch.Tensor, keep2: torch.Tensor, scale: float) -> torch.Tensor:
        w1, b1, w2, b2, w3, b3 = weights
        h1 = torch.addmm(b1, x, w1.t()).mul_(keep1).relu_()                  # (B, 256), unscaled
        h2 = torch.addmm(b2, h1, w2.t(), alpha=scale).mul_(keep2).relu_()    # (B, 128), unscaled
        ctx.save_for_backward(x, h1, h2)
        ctx.weights, ctx.scale, ctx.size = weights, scale, flat.shape
        return torch.addmm(b3, h2, w3.t(), alpha=scale)                     # (B, 10)

    @staticmethod
    def backward(ctx, grad_logits: torch.Tensor):
        x, h1, h2 = ctx.saved_tensors
        _, _, w2, _, w3, _ = ctx.weights
        scale = ctx.scale
        grad = grad_logits.new_empty(ctx.size)
        g_w1, g_b1, g_w2, g_b2, g_w3, g_b3 = _split(grad)
        # logits = scale * h2 @ w3.T + b3
        torch.mm(grad_logits.t(), h2, out=g_w3).mul_(scale)                         # (10, 128)
        torch.sum(grad_logits, 0, out=g_b3)
        grad_a2 = _relu_backward(torch.mm(grad_logits, w3), h2, 0).mul_(scale)     # (B, 128)
        # a2 = scale * h1 @ w2.T + b2
        torch.mm(grad_a2.t(), h1, out=g_w2).mul_(scale)                             # (128, 256)
        torch.sum(grad_a2, 0, out=g_b2)
        grad_a1 = _relu_backward(torch.mm(grad_a2, w2), h1, 0).mul_(scale)         # (B, 256)
        # a1 = x @ w1.T + b1; x needs no gradient
        torch.mm(grad_a1.t(), x, out=g_w1)                                          # (256, 784)
        torch.sum(grad_a1, 0, out=g_b1)
        return None, grad, None, None, None, None


def mlp_forward(x: torch.Tensor, flat: torch.Tensor) -> torch.Tensor:
    """Logits (B, 10) for x (B, 784) with every unit kept (evaluation), as plain tensor operations."""
    w1, b1, w2, b2, w3, b3 = _split(flat)
    h1 = torch.addmm(b1, x, w1.t()).relu_()    # (B, 256)
    h2 = torch.addmm(b2, h1, w2.t()).relu_()   # (B, 128)
    return torch.addmm(b3, h2, w3.t())        # (B, 10)


def mlp_train_forward(x: torch.Tensor, flat: torch.Tensor, keep1: torch.Tensor, keep2: torch.Tensor, p: float,
                      weights: tuple[torch.Tensor, ...] | None = None) -> torch.Tensor:
    """Logits (B, 10) with 0/1 dropout masks ``keep1`` (B, 256) and ``keep2`` (B, 128); differentiable in ``flat``.

    ``weights`` may pass ``_split(flat.detach())`` made once, to save slicing on every step.
    """
    weights = _split(flat.detach()) if weights is None else weights
    return _MLPFunction.apply(x, flat, weights, keep1, keep2, 1.0 / (1.0 - p))


class FusedMLP(nn.Module):
    """Train ``model`` (the Build's 784-256-128-10 MLP) through one hand-written autograd node.

    Give the optimizer ``FusedMLP(model).parameters()`` (one flat tensor) and use the wrapper wherever
    the model would go: ``train_one_epoch(fused, ...)``, ``evaluate(fused, ...)``. ``model`` keeps
    seeing the current weights. Build it after moving ``model`` to its device.
    """

    def __init__(self, model: nn.Module, dropout: float = 0.2):
        super().__init__()
        all_linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
        found = {tuple(m.weight.shape): m for m in all_linears}
        shapes = [tuple(m.weight.shape) for m in all_linears]
        linears = [found.get(shape) for shape in LAYER_SHAPES]  # in the network's order, however registered
        if len(all_linears) != 3 or any(m is None or m.bias is None for m in linears):
            raise ValueError(
                "FusedMLP reproduces the Build's network only: three Linear layers with bias, of shapes "
                f"{list(LAYER_SHAPES)} (out, in). This model's Linear layers have shapes {shapes}. "
                "Train other models with the plain loop.")
        dropouts = [m.p for m in model.modules() if isinstance(m, nn.Dropout)]
        if dropouts and any(abs(p - dropout) > 1e-12 for p in dropouts):
            raise ValueError(f"the model's Dropout layers use p={dropouts}, but FusedMLP was asked for "
                             f"dropout={dropout}: pass the same value.")
        self.p = dropout
        tensors = [t for m in linears for t in (m.weight, m.bias)]
        self.flat = nn.Parameter(torch.cat([t.detach().reshape(-1) for t in tensors]))  # (235146,)
        object.__setattr__(self, "_linears", linears)  # not a submodule: its parameters are views of flat
        self._share_with_model()
        self._check_same_function(model)

    def _share_with_model(self) -> None:
        """Point the wrapped model's weights at views of the flat buffer (again after ``.to()``)."""
        self._weights = _split(self.flat.detach())  # reused by every step: views see each update
        views = iter(self._weights)
        for linear in self._linears:
            linear.weight.data = next(views)
            linear.bias.data = next(views)

    def _apply(self, fn, recurse=True):
        super()._apply(fn, recurse)
        self._share_with_model()
        return self

    def _check_same_function(self, model: nn.Module) -> None:
        was_training = model.training
        model.eval()
        probe = torch.rand(7, 784, generator=torch.Generator().manual_seed(0)).to(self.flat)  # (7, 784)
        with torch.no_grad():
            theirs = model(probe)
            ours = mlp_forward(probe, self.flat)
        model.train(was_training)
        if theirs.shape != ours.shape or not torch.allclose(theirs, ours, rtol=1e-4, atol=1e-5):
            gap = (theirs - ours).abs().max().item() if theirs.shape == ours.shape else f"shape {tuple(theirs.shape)}"
            raise ValueError(
                "the model's outputs differ from Linear -> ReLU -> Dropout -> Linear -> ReLU -> Dropout -> Linear "
                f"with the same weights (largest difference {gap}). FusedMLP needs raw logits from exactly "
                "that network: no softmax at the end, ReLU after each hidden layer.")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.flatten(1)  # (B, 784)
        dropping = self.training and self.p > 0.0
        if not dropping and not (torch.is_grad_enabled() and self.flat.requires_grad):
            return mlp_forward(x, self.flat)  # evaluation: nothing to record
        if dropping:
            keep = dropout_keep_mask((x.shape[0], 384), self.p, x.device).to(x.dtype)  # (B, 256 + 128), one draw
        else:  # gradients wanted without dropout: every unit kept
            keep = x.new_ones(x.shape[0], 384)
        return mlp_train_forward(x, self.flat, keep[:, :256], keep[:, 256:], self.p if dropping else 0.0, self._weights)
