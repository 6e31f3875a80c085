"""Adam for a single parameter tensor, with the Python around the update kernel trimmed (lesson 08).

``torch.optim.Adam(..., fused=True)`` updates every parameter with one kernel, ``torch._fused_adam_``.
On a CPU at batch size 64 that kernel takes about 0.07 ms for the Build's 235,146 weights, while
``Adam.step`` spends roughly as long again in Python before it gets there: it regroups the tensors by
device and dtype, re-reads every option of the parameter group and checks for features the step does not
use. When all the weights live in one flat tensor (``FusedMLP.flat``) none of that work is needed.

:class:`FlatAdam` is ``torch.optim.Adam`` with ``fused=True``: the same options (lr, betas, eps,
weight_decay), the same kernel with the same arguments, the same state (``step``, ``exp_avg``,
``exp_avg_sq``), so its ``state_dict`` loads into a plain ``Adam`` and back and the two produce the same
weights bit for bit. The kernel is PyTorch's internal one (a leading underscore): the course pins its
PyTorch version, and ``tests/test_flat_adam.py`` compares the weights with ``Adam(fused=True)``'s, so a
change in a future release shows up as a failing test, not as silently different training.
Only the common case takes the short path: one tensor with a dense gradient, no closure, no step hooks,
no AMSGrad, no gradient scaler and a float learning rate. Anything else runs ``Adam``'s own step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch.optim import optimizer as _optimizer_module

__all__ = ["FlatAdam"]


def _adam_step_with_hooks() -> Callable:
    """``Adam.step`` wrapped once in PyTorch's hook runner, for the steps FlatAdam does not shorten.

    Creating an optimizer wraps its class's ``step`` in a function that runs the step hooks (and marks
    it ``hooked``); ``Adam.step`` may or may not be wrapped yet, so unwrap it and wrap it exactly once.
    """
    step = torch.optim.Adam.step
    while getattr(step, "hooked", False):
        step = step.__wrapped__
    return torch.optim.Optimizer.profile_hook_step(step)


class FlatAdam(torch.optim.Adam):
    """``torch.optim.Adam(params, lr, betas, eps, weight_decay, fused=True)`` for exactly one parameter tensor.

    Use it where Adam would go, with one flat parameter::

        fast_model = FusedMLP(model)
        optimizer = FlatAdam(fast_model.parameters(), lr=1e-3)
    """

    def __init__(self, params: Iterable[torch.Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, fused=True)
        tensors = [p for group in self.param_groups for p in group["params"]]
        if len(tensors) != 1:
            raise ValueError(
                f"FlatAdam updates exactly one parameter tensor, but was given {len(tensors)}. Pass "
                "FusedMLP(model).parameters() (one flat tensor), or use torch.optim.Adam for other models.")

    def _takes_short_path(self, closure, group: dict, param: torch.Tensor) -> bool:
        """True when the step is the plain fused Adam update that the short path reproduces exactly."""
        hooks = (self._optimizer_step_pre_hooks or self._optimizer_step_post_hooks
                 or _optimizer_module._global_optimizer_pre_hooks or _optimizer_module._global_optimizer_post_hooks)
        return (closure is None and not hooks and len(self.param_groups) == 1
                and not group["amsgrad"] and not group["capturable"] and not group["differentiable"]
                and not group.get("decoupled_weight_decay", False) and group["fused"]
                and isinstance(group["lr"], float) and all(isinstance(b, float) for b in group["betas"])
                and getattr(self, "grad_scale", None) is None and getattr(self, "found_inf", None) is None
                and param.grad is not None and not param.grad.is_sparse)

    def step(self, closure: Callable[[], float] | None = None):
        group = self.param_groups[0]
        param = group["params"][0]
        if not self._takes_short_path(closure, group, param):
            return _adam_step_with_hooks()(self, closure)  # hooks, closures and every Adam option
        state = self.state[param]
        if not state:  # the same first state as Adam(fused=True) creates
            step_dtype = _optimizer_module._get_scalar_dtype(is_fused=True)
            state["step"] = torch.zeros((), dtype=step_dtype, device=param.device)
            state["exp_avg"] = torch.zeros_like(param, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(param, memory_format=torch.preserve_format)
        state["step"].add_(1)
        beta1, beta2 = group["betas"]
        # detach(): the same storage, updated in place without autograd noticing (what no_grad() does, cheaper)
        torch._fused_adam_([param.detach()], [param.grad], [state["exp_avg"]], [state["exp_avg_sq"]], [],
                           [state["step"]], lr=group["lr"], beta1=beta1, beta2=beta2,
                           weight_decay=group["weight_decay"], eps=group["eps"], amsgrad=False,
                           maximize=group["maximize"])
        return None

    # The short path runs no hooks (it is taken only when none are registered), so PyTorch's hook
    # runner, about 25 us a step here, stays off it; the long path adds the runner itself.
    step.hooked = True

    def zero_grad(self, set_to_none: bool = True) -> None:
        if not set_to_none:
            super().zero_grad(set_to_none=False)
            return
        for group in self.param_groups:
            for param in group["params"]:
                param.grad = None
