"""``coursekit.purepython`` against PyTorch: same values, same gradients, same optimizer steps.

Lesson 05 times this pure-Python framework against PyTorch; the comparison is only fair if both
compute the same thing. PyTorch runs in float64 here (Python floats are 64-bit), and every value
must agree within 1e-6 relative error (plus 1e-12 absolute, for values that are zero).
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from coursekit import purepython as pp

RTOL, ATOL = 1e-6, 1e-12


def assert_close(actual, expected, what: str) -> None:
    """``actual``: nested lists of floats; ``expected``: a tensor of the same shape."""
    got = torch.tensor(actual, dtype=torch.float64)
    expected = expected.detach().to(torch.float64)
    assert got.shape == expected.shape, f"{what}: shape {tuple(got.shape)}, expected {tuple(expected.shape)}"
    err = (got - expected).abs()
    bound = RTOL * expected.abs() + ATOL
    assert bool((err <= bound).all()), f"{what}: max abs error {err.max().item():.3g} beyond 1e-6 relative"


def param_tensor(p: pp.Parameter) -> torch.Tensor:
    return torch.tensor(p.data, dtype=torch.float64).reshape(p.shape)


def batch(n: int, d: int, seed: int, scale: float = 1.0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(n, d, generator=g, dtype=torch.float64) * scale).requires_grad_(True)


def upstream(n: int, d: int, seed: int) -> torch.Tensor:
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def test_framework_uses_only_the_standard_library():
    source = Path(pp.__file__).read_text()
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"__future__", "math", "random", "typing"}, f"unexpected imports: {sorted(imported)}"


@pytest.mark.parametrize("n, d_in, d_out", [(5, 3, 4), (1, 6, 2), (7, 1, 3)])
def test_linear_forward_and_gradients(n, d_in, d_out):
    layer = pp.Linear(d_in, d_out, random.Random(n + d_in))
    ref = nn.Linear(d_in, d_out).double()
    with torch.no_grad():
        ref.weight.copy_(param_tensor(layer.weight))
        ref.bias.copy_(param_tensor(layer.bias))
    x = batch(n, d_in, seed=1)
    out = layer(x.tolist())
    expected = ref(x)
    assert_close(out, expected, "Linear forward")
    g = upstream(n, d_out, seed=2)
    grad_in = layer.backward(g.tolist())
    expected.backward(g)
    assert_close(grad_in, x.grad, "Linear gradient wrt the input")
    assert_close(layer.weight.grad, ref.weight.grad.flatten(), "Linear gradient wrt the weight")
    assert_close(layer.bias.grad, ref.bias.grad, "Linear gradient wrt the bias")
    assert layer.backward(g.tolist(), need_input_grad=False) is None
    assert_close(layer.weight.grad, 2 * ref.weight.grad.flatten(), "Linear gradients accumulate like PyTorch's")


def test_relu_forward_and_gradient():
    x = batch(6, 5, seed=3)
    relu = pp.ReLU()
    out = relu(x.tolist())
    expected = torch.relu(x)
    assert_close(out, expected, "ReLU forward")
    g = upstream(6, 5, seed=4)
    expected.backward(g)
    assert_close(relu.backward(g.tolist()), x.grad, "ReLU gradient")


@pytest.mark.parametrize("scale", [1.0, 500.0])  # 500: exp() would overflow without the max shift
def test_softmax_cross_entropy_loss_and_gradient(scale):
    logits = batch(7, 4, seed=11, scale=scale)
    targets = torch.tensor([0, 3, 1, 1, 2, 0, 3])
    loss_fn = pp.CrossEntropyLoss()
    loss = loss_fn(logits.tolist(), targets.tolist())
    expected = F.cross_entropy(logits, targets)
    assert_close(loss, expected, "cross-entropy loss")
    expected.backward()
    assert_close(loss_fn.backward(), logits.grad, "cross-entropy gradient wrt the logits")


def _copy_into_torch(ours: pp.Sequential) -> nn.Sequential:
    layers = []
    for layer in ours.layers:
        if isinstance(layer, pp.Linear):
            ref = nn.Linear(layer.in_features, layer.out_features).double()
            with torch.no_grad():
                ref.weight.copy_(param_tensor(layer.weight))
                ref.bias.copy_(param_tensor(layer.bias))
        elif isinstance(layer, pp.ReLU):
            ref = nn.ReLU()
        else:
            raise TypeError(type(layer))
        layers.append(ref)
    return nn.Sequential(*layers)


def test_a_whole_network_backpropagates_like_pytorch():
    ours = pp.mlp([3, 8, 5, 2], seed=1)
    ref = _copy_into_torch(ours)
    x = batch(9, 3, seed=12).detach()
    y = torch.tensor([0, 1, 1, 0, 1, 0, 0, 1, 1])
    loss_fn = pp.CrossEntropyLoss()
    loss = loss_fn(ours(x.tolist()), y.tolist())
    assert ours.backward(loss_fn.backward()) is None  # the data needs no gradient
    expected = F.cross_entropy(ref(x), y)
    expected.backward()
    assert_close(loss, expected, "MLP loss")
    for p, q in zip(ours.parameters(), ref.parameters()):
        assert_close(p.grad, q.grad.flatten(), f"MLP gradient of a {p.shape} parameter")


@pytest.mark.parametrize("weight_decay", [0.0, 0.01])
def test_adam_steps_match_torch(weight_decay):
    rng = torch.Generator().manual_seed(13)
    start = [torch.randn(3, 4, generator=rng, dtype=torch.float64), torch.randn(4, generator=rng, dtype=torch.float64)]
    ours = [pp.Parameter(t.flatten().tolist(), tuple(t.shape)) for t in start]
    theirs = [t.clone().requires_grad_(True) for t in start]
    opt = pp.Adam(ours, lr=0.05, betas=(0.8, 0.95), eps=1e-6, weight_decay=weight_decay)
    ref = torch.optim.Adam(theirs, lr=0.05, betas=(0.8, 0.95), eps=1e-6, weight_decay=weight_decay, foreach=False)
    for step in range(5):
        grads = [torch.randn(t.shape, generator=rng, dtype=torch.float64) for t in start]
        opt.zero_grad()
        for p, g in zip(ours, grads):
            p.grad = [a + b for a, b in zip(p.grad, g.flatten().tolist())]
        for t, g in zip(theirs, grads):
            t.grad = g.clone()
        opt.step()
        ref.step()
        for p, t in zip(ours, theirs):
            assert_close(p.data, t.detach().flatten(), f"Adam parameters after step {step + 1}")


def test_dropout_scales_in_training_and_is_the_identity_in_eval():
    layer = pp.Dropout(0.25, random.Random(0))
    x = [[float(k + 1) for k in range(50)] for _ in range(80)]  # 4,000 values
    out = layer(x)
    kept = dropped = 0
    for row_in, row_out in zip(x, out):
        for v, o in zip(row_in, row_out):
            if o == 0.0:
                dropped += 1
            else:
                kept += 1
                assert o == pytest.approx(v / 0.75, rel=1e-12), "kept values are scaled by 1 / (1 - p)"
    assert 0.22 < dropped / (kept + dropped) < 0.28, f"dropped {dropped / (kept + dropped):.3f}, expected about 0.25"
    grad = layer.backward([[1.0] * 50 for _ in range(80)])
    assert all((g == 0.0) == (o == 0.0) for gr, orow in zip(grad, out) for g, o in zip(gr, orow)), \
        "the gradient flows through the same units as the forward pass"
    layer.eval()
    assert layer(x) == x and layer.backward(x) == x, "in eval mode dropout is the identity"
    assert pp.Dropout(0.0)(x) == x


def test_train_and_eval_reach_every_layer():
    model = pp.mlp([2, 4, 4, 2], dropout=0.1)
    model.eval()
    assert not any(layer.training for layer in model.layers)
    model.train()
    assert all(layer.training for layer in model.layers)


def test_dataloader_batches_and_seeded_shuffling():
    xs = [[float(k)] for k in range(10)]
    ys = list(range(10))
    plain = list(pp.DataLoader(xs, ys, batch_size=4))
    assert [len(b[1]) for b in plain] == [4, 4, 2] and [y for _, b in plain for y in b] == ys
    assert all(x[0] == float(y) for xb, yb in plain for x, y in zip(xb, yb))
    first = pp.DataLoader(xs, ys, batch_size=3, shuffle=True, seed=5)
    second = pp.DataLoader(xs, ys, batch_size=3, shuffle=True, seed=5)
    epoch_a = [y for _, b in first for y in b]
    epoch_b = [y for _, b in first for y in b]
    assert sorted(epoch_a) == ys and sorted(epoch_b) == ys, "each epoch visits every sample once"
    assert epoch_a != epoch_b, "each epoch gets a new order"
    assert [y for _, b in second for y in b] == epoch_a, "the same seed gives the same order"
    assert len(first) == 4
    with pytest.raises(ValueError):
        pp.DataLoader(xs, ys[:-1])


def test_training_loop_follows_pytorch_step_for_step():
    ours = pp.mlp([2, 6, 2], seed=3)
    ref = _copy_into_torch(ours)
    g = torch.Generator().manual_seed(14)
    x = torch.randn(24, 2, generator=g, dtype=torch.float64)
    y = (x.norm(dim=1) > 1.0).long()
    loader = pp.DataLoader(x.tolist(), y.tolist(), batch_size=8)
    optimizer = pp.Adam(ours.parameters(), lr=0.02)
    ref_opt = torch.optim.Adam(ref.parameters(), lr=0.02)
    for epoch in range(3):
        loss = pp.train_epoch(ours, loader, optimizer, pp.CrossEntropyLoss())
        total = 0.0
        for k in range(0, 24, 8):
            ref_opt.zero_grad()
            batch_loss = F.cross_entropy(ref(x[k:k + 8]), y[k:k + 8])
            batch_loss.backward()
            ref_opt.step()
            total += batch_loss.item() * 8
        assert_close(loss, torch.tensor(total / 24, dtype=torch.float64), f"mean loss of epoch {epoch + 1}")
    for p, q in zip(ours.parameters(), ref.parameters()):
        assert_close(p.data, q.detach().flatten(), "parameters after three epochs")
    with torch.no_grad():
        expected = (ref(x).argmax(1) == y).double().mean().item()
    assert pp.accuracy(ours, x.tolist(), y.tolist()) == pytest.approx(expected)
    assert not ours.training, "accuracy() evaluates in eval mode"
