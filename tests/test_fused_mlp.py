"""FusedMLP computes the Build's network and its gradients exactly, and trains the model it wraps."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from coursekit.checks import rel_error
from coursekit.fused_mlp import FusedMLP, dropout_keep_mask, mlp_forward, mlp_train_forward
from coursekit.mnist import MNISTModel


def _autograd_reference(x, flat, keep1, keep2, p):
    """The same network written with autograd's ordinary operations and explicit dropout masks."""
    weights, start = [], 0
    for numel, shape in ((200704, (256, 784)), (256, (256,)), (32768, (128, 256)), (128, (128,)),
                         (1280, (10, 128)), (10, (10,))):
        weights.append(flat[start:start + numel].view(shape))
        start += numel
    w1, b1, w2, b2, w3, b3 = weights
    h1 = torch.relu(x @ w1.T + b1) * keep1 / (1 - p)
    h2 = torch.relu(h1 @ w2.T + b2) * keep2 / (1 - p)
    return h2 @ w3.T + b3


@pytest.mark.parametrize("p", [0.2, 0.5, 0.0])
def test_hand_written_backward_matches_autograd(p):
    torch.manual_seed(0)
    flat = torch.cat([t.detach().reshape(-1) for t in MNISTModel().double().parameters()])  # (235146,)
    x = torch.rand(64, 784, dtype=torch.float64)
    y = torch.randint(0, 10, (64,))
    keep = dropout_keep_mask((64, 384), p).double()
    ours = flat.clone().requires_grad_()
    theirs = flat.clone().requires_grad_()
    logits = mlp_train_forward(x, ours, keep[:, :256], keep[:, 256:], p)
    expected = _autograd_reference(x, theirs, keep[:, :256], keep[:, 256:], p)
    nn.functional.cross_entropy(logits, y).backward()
    nn.functional.cross_entropy(expected, y).backward()
    assert rel_error(logits, expected) < 1e-8  # float64: a wrong formula gives about 1
    assert rel_error(ours.grad, theirs.grad) < 1e-8
    assert theirs.grad.abs().sum() > 0


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
    assert all(float(p.abs().sum()) == 0.0 for p in model.parameters())


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


def test_eval_forward_function_matches_model():
    torch.manual_seed(8)
    model = MNISTModel().eval()
    flat = torch.cat([t.detach().reshape(-1) for t in model.parameters()])
    x = torch.rand(5, 784)
    with torch.no_grad():
        torch.testing.assert_close(mlp_forward(x, flat), model(x))
