"""bench/flat_adam.FlatAdam (benchmark only) is Adam(fused=True) for one tensor: the same weights bit for bit, the same state, the same hooks."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from flat_adam import FlatAdam
from fused_mlp import FusedMLP
from coursekit.mnist import MNISTModel

from gpu_params import DEVICES


def _trajectory(make_optimizer, steps=25, device="cpu", scheduler=None, resume_with=None, resume_at=10):
    """Weights after ``steps`` updates with seeded random gradients, and the optimizer that made them.

    ``resume_with`` swaps in a second optimizer after ``resume_at`` steps, through a state_dict, the
    way a resumed checkpoint would.
    """
    start = torch.randn(1000, generator=torch.Generator().manual_seed(0)).to(device)
    param = nn.Parameter(start.clone())
    optimizer = make_optimizer([param])
    schedule = scheduler(optimizer) if scheduler else None
    gradients = torch.Generator().manual_seed(1)
    for step in range(steps):
        if resume_with is not None and step == resume_at:
            state = optimizer.state_dict()
            optimizer = resume_with([param])
            optimizer.load_state_dict(state)
        optimizer.zero_grad()
        param.grad = torch.randn(1000, generator=gradients).mul_(1e-2).to(device)
        optimizer.step()
        if schedule:
            schedule.step()
    return param.detach(), optimizer


def _flat(params):
    return FlatAdam(params, lr=1e-2)


def _fused(params):
    return torch.optim.Adam(params, lr=1e-2, fused=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("options", [{}, {"weight_decay": 0.1}, {"betas": (0.8, 0.9), "eps": 1e-6}])
def test_same_weights_as_fused_adam_bit_for_bit(options, device):
    ours, _ = _trajectory(lambda p: FlatAdam(p, lr=1e-2, **options), device=device)
    theirs, _ = _trajectory(lambda p: torch.optim.Adam(p, lr=1e-2, fused=True, **options), device=device)
    reference, _ = _trajectory(lambda p: torch.optim.Adam(p, lr=1e-2, **options), device=device)
    assert torch.equal(ours, theirs)
    torch.testing.assert_close(ours, reference, rtol=1e-5, atol=1e-6)  # and Adam's plain for-loop agrees
    assert not torch.equal(ours, torch.randn(1000, generator=torch.Generator().manual_seed(0)).to(device))


def test_a_scheduler_changing_the_learning_rate_is_followed():
    def decay(optimizer):
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)

    ours, opt = _trajectory(_flat, scheduler=decay)
    theirs, _ = _trajectory(_fused, scheduler=decay)
    assert torch.equal(ours, theirs) and opt.param_groups[0]["lr"] == pytest.approx(1e-2 * 0.5 ** 5)


def test_state_dict_moves_between_flat_adam_and_adam_either_way():
    uninterrupted, _ = _trajectory(_fused)
    for first, second in ((_flat, _fused), (_fused, _flat)):
        resumed, optimizer = _trajectory(first, resume_with=second)
        assert torch.equal(resumed, uninterrupted), f"{first.__name__} -> {second.__name__}"
        assert float(optimizer.state[optimizer.param_groups[0]["params"][0]]["step"]) == 25.0


def test_step_hooks_run_once_per_step_and_the_update_still_matches():
    calls = []
    _, optimizer = _trajectory(_flat, steps=0)
    optimizer.register_step_pre_hook(lambda *_: calls.append("pre"))
    optimizer.register_step_post_hook(lambda *_: calls.append("post"))
    param = optimizer.param_groups[0]["params"][0]
    param.grad = torch.ones_like(param)
    before = param.detach().clone()
    optimizer.step()
    assert calls == ["pre", "post"]
    torch.testing.assert_close(param.detach(), before - 1e-2)  # Adam's first step moves each weight by lr


def test_closure_and_a_tensor_learning_rate_take_adams_own_path():
    param = nn.Parameter(torch.ones(3))
    optimizer = FlatAdam([param], lr=0.1)

    def closure():
        optimizer.zero_grad()
        loss = (param ** 2).sum()
        loss.backward()
        return loss

    assert optimizer.step(closure).item() == pytest.approx(3.0)
    assert bool((param.detach() < 1).all())
    after_closure = param.detach().clone()
    optimizer.param_groups[0]["lr"] = torch.tensor(0.1)  # a setting the short path leaves to Adam
    param.grad = torch.ones(3)
    optimizer.step()
    assert float(optimizer.state[param]["step"]) == 2.0
    assert bool((param.detach() < after_closure).all())


def test_zero_grad_clears_or_zeroes():
    param = nn.Parameter(torch.ones(4))
    optimizer = FlatAdam([param])
    param.grad = torch.ones(4)
    optimizer.zero_grad(set_to_none=False)
    assert torch.equal(param.grad, torch.zeros(4))
    optimizer.zero_grad()
    assert param.grad is None
    optimizer.step()  # no gradient: nothing to do, as with Adam
    assert torch.equal(param.detach(), torch.ones(4)) and not optimizer.state[param]


def test_more_than_one_tensor_gets_a_clear_error():
    with pytest.raises(ValueError, match=r"exactly one parameter tensor, but was given 6.*FusedMLP"):
        FlatAdam(MNISTModel().parameters())


def test_trains_the_wrapped_model_exactly_like_fused_adam():
    torch.manual_seed(3)
    model_a, model_b = MNISTModel(), MNISTModel()
    model_b.load_state_dict(model_a.state_dict())
    runs = []
    makers = (lambda p: FlatAdam(p, lr=1e-3), lambda p: torch.optim.Adam(p, lr=1e-3, fused=True))
    for model, make in zip((model_a, model_b), makers):
        torch.manual_seed(4)  # the same dropout masks for both
        fused = FusedMLP(model)
        optimizer = make(fused.parameters())
        for _ in range(5):
            x, y = torch.rand(64, 784), torch.randint(0, 10, (64,))
            optimizer.zero_grad()
            nn.functional.cross_entropy(fused(x), y).backward()
            optimizer.step()
        runs.append(model.state_dict())
    assert all(torch.equal(runs[0][name], runs[1][name]) for name in runs[0])
