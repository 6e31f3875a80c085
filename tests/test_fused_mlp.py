"""bench/fused_mlp.FusedMLP (benchmark only: private PyTorch APIs) computes the Build's network and its gradients exactly, and trains the model it wraps."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from coursekit.checks import rel_error
from fused_mlp import FusedMLP, dropout_keep_mask, mlp_train_forward
from coursekit.mnist import MNISTModel

from gpu_params import DEVICES


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("p", [0.2, 0.5, 0.0])
def test_hand_written_backward_matches_autograd(p, device):
    """Same weights, same masks: the network written with autograd's ordinary operations is the reference."""
    torch.manual_seed(0)
    reference = MNISTModel().double().to(device)
    x = torch.rand(64, 784, dtype=torch.float64, device=device)
    y = torch.randint(0, 10, (64,), device=device)
    keep = dropout_keep_mask((64, 384), p, device).double()   # drawn on the device
    assert keep.device.type == device
    flat = torch.cat([t.detach().reshape(-1) for t in reference.parameters()]).requires_grad_()  # (235146,)
    logits = mlp_train_forward(x, flat, keep[:, :256], keep[:, 256:], p)
    nn.functional.cross_entropy(logits, y).backward()
    w1, b1, w2, b2, w3, b3 = (t.detach().clone().requires_grad_() for t in reference.parameters())
    h1 = torch.relu(x @ w1.T + b1) * keep[:, :256] / (1 - p)
    h2 = torch.relu(h1 @ w2.T + b2) * keep[:, 256:] / (1 - p)
    expected = h2 @ w3.T + b3
    nn.functional.cross_entropy(expected, y).backward()
    expected_grad = torch.cat([w.grad.reshape(-1) for w in (w1, b1, w2, b2, w3, b3)])
    # float64: a wrong formula gives errors near 1
    assert ((flat.grad - expected_grad).norm() / expected_grad.norm()).item() < 1e-10
    if device == "cpu":  # same kernels in the same order: even the largest element-wise error is tiny
        assert rel_error(logits, expected) < 1e-8
        assert rel_error(flat.grad, expected_grad) < 1e-8
    assert expected_grad.abs().sum() > 0


@pytest.mark.parametrize("device", DEVICES)
def test_training_stays_on_the_device(device):
    torch.manual_seed(10)
    model = MNISTModel().to(device)
    fused = FusedMLP(model)
    optimizer = torch.optim.Adam(fused.parameters(), lr=1e-3, fused=True)
    optimizer.zero_grad()
    x, y = torch.rand(64, 784, device=device), torch.randint(0, 10, (64,), device=device)
    nn.functional.cross_entropy(fused(x), y).backward()
    optimizer.step()
    assert fused.flat.grad.device.type == device
    assert all(t.device.type == device for t in model.parameters())


def test_eval_mode_computes_the_wrapped_model():
    torch.manual_seed(1)
    model = MNISTModel()
    fused = FusedMLP(model).eval()
    model.eval()
    x = torch.rand(9, 1, 28, 28)  # image-shaped input is flattened like the model does
    with torch.no_grad():
        torch.testing.assert_close(fused(x), model(x))


def test_dropout_only_in_train_mode():
    torch.manual_seed(2)
    fused = FusedMLP(MNISTModel())
    x = torch.rand(32, 784)
    fused.train()
    assert not torch.equal(fused(x), fused(x))
    fused.eval()
    with torch.no_grad():
        first, second = fused(x), fused(x)
    assert torch.equal(first, second) and first.grad_fn is None


def test_training_writes_into_the_wrapped_model_and_its_state_dict():
    torch.manual_seed(3)
    model = MNISTModel()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    fused = FusedMLP(model)
    optimizer = torch.optim.Adam(fused.parameters(), lr=1e-3, fused=True)
    assert [p.numel() for p in fused.parameters()] == [235_146]
    x, y = torch.rand(64, 784), torch.randint(0, 10, (64,))
    for _ in range(3):
        optimizer.zero_grad()
        nn.functional.cross_entropy(fused(x), y).backward()
        optimizer.step()
    after = model.state_dict()
    assert all(not torch.equal(before[k], after[k]) for k in before)
    fresh = MNISTModel().eval()
    fresh.load_state_dict(after)
    model.eval()
    fused.eval()
    with torch.no_grad():
        torch.testing.assert_close(fresh(x), fused(x))


def test_without_dropout_it_trains_exactly_like_the_plain_model():
    """Same weights, same batches, Adam: the hand-written backward must give the same trajectory."""
    torch.manual_seed(4)
    plain = MNISTModel(dropout=0.0)
    wrapped = MNISTModel(dropout=0.0)
    wrapped.load_state_dict(plain.state_dict())
    fused = FusedMLP(wrapped, dropout=0.0)
    opt_plain = torch.optim.Adam(plain.parameters(), lr=1e-3)
    opt_fused = torch.optim.Adam(fused.parameters(), lr=1e-3)
    for step in range(5):
        x, y = torch.rand(64, 784), torch.randint(0, 10, (64,))
        for model, opt in ((plain, opt_plain), (fused, opt_fused)):
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    for name, value in plain.state_dict().items():
        torch.testing.assert_close(wrapped.state_dict()[name], value, rtol=1e-4, atol=1e-6)


def test_moving_keeps_the_model_and_the_buffer_shared():
    torch.manual_seed(5)
    model = MNISTModel()
    fused = FusedMLP(model).to(torch.float64)
    assert fused.flat.dtype == torch.float64 and model.net[0].weight.dtype == torch.float64
    with torch.no_grad():
        fused.flat.zero_()
    assert all(float(p.detach().abs().sum()) == 0.0 for p in model.parameters())


def test_layers_registered_in_any_order_are_found_by_shape():
    class LastLayerFirst(nn.Module):
        def __init__(self):
            super().__init__()
            self.out = nn.Linear(128, 10)
            self.hidden2 = nn.Linear(256, 128)
            self.hidden1 = nn.Linear(784, 256)
            self.drop = nn.Dropout(0.2)

        def forward(self, x):
            x = self.drop(torch.relu(self.hidden1(x)))
            return self.out(self.drop(torch.relu(self.hidden2(x))))

    torch.manual_seed(9)
    model = LastLayerFirst().eval()
    fused = FusedMLP(model).eval()
    x = torch.rand(4, 784)
    with torch.no_grad():
        torch.testing.assert_close(fused(x), model(x))


def test_other_networks_get_a_clear_error():
    with pytest.raises(ValueError, match="Build's network only"):
        FusedMLP(MNISTModel(hidden=(128, 64)))
    with pytest.raises(ValueError, match="Dropout layers use p="):
        FusedMLP(MNISTModel(dropout=0.5))

    class SoftmaxAtTheEnd(MNISTModel):
        def forward(self, x):
            return torch.softmax(super().forward(x), dim=1)

    with pytest.raises(ValueError, match="no softmax at the end"):
        FusedMLP(SoftmaxAtTheEnd())


def test_keep_mask_drops_the_stated_fraction():
    torch.manual_seed(6)
    mask = dropout_keep_mask((4096, 4096), 0.2)
    expected = 13107 / 65536  # round(0.2 * 65536) / 65536, as the docstring says
    n = mask.numel()
    dropped = 1.0 - mask.double().mean().item()
    assert abs(dropped - expected) < 5 * (expected * (1 - expected) / n) ** 0.5
    # neighbouring entries come from the same 64-bit draw: they must still be independent
    left, right = mask[:, 0::4].double(), mask[:, 1::4].double()
    both = (left * right).mean().item()
    assert abs(both - (1 - expected) ** 2) < 5 * (0.16 / left.numel()) ** 0.5


def test_keep_mask_is_repeatable_and_rejects_bad_p():
    torch.manual_seed(7)
    first = dropout_keep_mask((64, 384), 0.2)
    torch.manual_seed(7)
    assert torch.equal(first, dropout_keep_mask((64, 384), 0.2))
    assert bool((dropout_keep_mask((8, 8), 0.0) == 1).all())
    for bad in (-0.1, 1.0, 1.5):
        with pytest.raises(ValueError, match=r"\[0, 1\)"):
            dropout_keep_mask((2, 2), bad)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 70), cols=st.integers(1, 40), p=st.floats(0.0, 0.95))
def test_keep_mask_shape_and_values(rows, cols, p):
    mask = dropout_keep_mask((rows, cols), p)
    assert mask.shape == (rows, cols) and mask.dtype == torch.float32
    assert bool(((mask == 0) | (mask == 1)).all())

