"""A deep-learning framework in plain Python, for lesson 05's speed comparison with PyTorch.

Everything here works on Python lists of floats, one sample at a time, with ordinary ``for`` loops:
no PyTorch, no NumPy, no C extension. It does what PyTorch does for a multilayer perceptron
(forward, backward, an optimizer, a data loader, a training loop) so that the *same* network can be
trained both ways and timed. It is written to be clear and reasonably quick for pure Python, not
clever: the point of the comparison is what vectorised kernels buy you.

A batch is a list of samples; a sample is a list of floats (``list[list[float]]``, shape (B, D) in
the comments). Every layer remembers what its backward pass needs during ``forward`` and returns the
gradient with respect to its input from ``backward``; parameters accumulate their gradients in
``Parameter.grad`` until ``zero_grad`` clears them, exactly like PyTorch. Numbers are Python floats
(64-bit), so results match PyTorch in ``float64`` to about 1e-12.

    model = Sequential(Linear(2, 16, rng), ReLU(), Linear(16, 2, rng))
    optimizer = Adam(model.parameters(), lr=1e-2)
    loss_fn = CrossEntropyLoss()
    for xb, yb in DataLoader(xs, ys, batch_size=32, shuffle=True, seed=0):
        optimizer.zero_grad()                   # 1. clear old gradients
        logits = model(xb)                      # 2. forward             (B, C)
        loss = loss_fn(logits, yb)              # 3. loss                float
        model.backward(loss_fn.backward())      # 4. backward            (gradients into .grad)
        optimizer.step()                        # 5. update the parameters
"""

from __future__ import annotations

import math
import random
from typing import Iterator, Sequence

__all__ = [
    "Parameter", "Module", "Linear", "ReLU", "Dropout", "Sequential",
    "CrossEntropyLoss", "Adam", "DataLoader", "mlp", "train_epoch", "accuracy",
]

Batch = list  # list[list[float]]: one list of floats per sample, shape (B, D)


class Parameter:
    """A learnable tensor stored flat (row-major, like PyTorch), with its accumulated gradient."""

    def __init__(self, data: Sequence[float], shape: tuple[int, ...]):
        if math.prod(shape) != len(data):
            raise ValueError(f"{len(data)} values do not fill a shape {shape}")
        self.data = [float(v) for v in data]
        self.shape = tuple(shape)
        self.grad = [0.0] * len(self.data)

    def rows(self) -> list[list[float]]:
        """The values as a list of rows (a 2-D parameter) or as one row (a 1-D one)."""
        width = self.shape[-1]
        return [self.data[k:k + width] for k in range(0, len(self.data), width)]

    def __repr__(self) -> str:
        return f"Parameter(shape={self.shape})"


class Module:
    """Base class: ``train()``/``eval()``, ``parameters()``, ``zero_grad()``; ``model(x)`` calls ``forward``."""

    def __init__(self):
        self.training = True

    def children(self) -> list["Module"]:
        return []

    def own_parameters(self) -> list[Parameter]:
        return []

    def parameters(self) -> list[Parameter]:
        found = list(self.own_parameters())
        for child in self.children():
            found += child.parameters()
        return found

    def train(self, mode: bool = True) -> "Module":
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = [0.0] * len(p.data)

    def __call__(self, batch: Batch) -> Batch:
        return self.forward(batch)

    def forward(self, batch: Batch) -> Batch:  # pragma: no cover - every layer overrides it
        raise NotImplementedError

    def backward(self, grad_out: Batch, need_input_grad: bool = True) -> Batch | None:  # pragma: no cover
        """Add this layer's parameter gradients to ``.grad``; return d(loss)/d(input) (None if not needed)."""
        raise NotImplementedError


class Linear(Module):
    """y = x W^T + b, with W of shape (out, in), initialised like ``torch.nn.Linear`` (uniform ±1/sqrt(in))."""

    def __init__(self, in_features: int, out_features: int, rng: random.Random | None = None):
        super().__init__()
        rng = rng or random.Random(0)
        bound = 1.0 / math.sqrt(in_features)
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter([rng.uniform(-bound, bound) for _ in range(out_features * in_features)],
                                (out_features, in_features))
        self.bias = Parameter([rng.uniform(-bound, bound) for _ in range(out_features)], (out_features,))

    def own_parameters(self) -> list[Parameter]:
        return [self.weight, self.bias]

    def forward(self, batch: Batch) -> Batch:
        self._inputs = batch
        rows = self.weight.rows()                          # (out, in)
        pairs = list(zip(rows, self.bias.data))
        out = []
        for x in batch:                                    # one sample at a time: x is (in,)
            out.append([b + sum(w * v for w, v in zip(row, x)) for row, b in pairs])   # (out,)
        return out

    def backward(self, grad_out: Batch, need_input_grad: bool = True) -> Batch | None:
        columns = [list(c) for c in zip(*self.weight.rows())]   # W^T: (in, out)
        grad_rows = [[0.0] * self.in_features for _ in range(self.out_features)]
        grad_bias = [0.0] * self.out_features
        grad_in = []
        for x, g in zip(self._inputs, grad_out):           # x: (in,), g: (out,)
            for o, go in enumerate(g):
                grad_rows[o] = [acc + go * v for acc, v in zip(grad_rows[o], x)]   # dL/dW[o] += g[o] * x
                grad_bias[o] += go
            if need_input_grad:
                grad_in.append([sum(w * gg for w, gg in zip(col, g)) for col in columns])   # W^T g: (in,)
        flat = [v for row in grad_rows for v in row]
        self.weight.grad = [a + b for a, b in zip(self.weight.grad, flat)]
        self.bias.grad = [a + b for a, b in zip(self.bias.grad, grad_bias)]
        return grad_in if need_input_grad else None


class ReLU(Module):
    """max(0, x) elementwise; the gradient passes where the input was positive."""

    def forward(self, batch: Batch) -> Batch:
        self._inputs = batch
        return [[v if v > 0.0 else 0.0 for v in x] for x in batch]

    def backward(self, grad_out: Batch, need_input_grad: bool = True) -> Batch:
        return [[gv if v > 0.0 else 0.0 for gv, v in zip(g, x)] for g, x in zip(grad_out, self._inputs)]


class Dropout(Module):
    """Training: zero each value with probability p and scale the rest by 1/(1-p). Evaluation: identity."""

    def __init__(self, p: float = 0.5, rng: random.Random | None = None):
        super().__init__()
        if not 0.0 <= p < 1.0:
            raise ValueError(f"dropout probability must be in [0, 1), got {p}")
        self.p = p
        self.rng = rng or random.Random(0)

    def forward(self, batch: Batch) -> Batch:
        if not self.training or self.p == 0.0:
            self._masks = None
            return [list(x) for x in batch]
        scale, rand, p = 1.0 / (1.0 - self.p), self.rng.random, self.p
        self._masks = [[scale if rand() >= p else 0.0 for _ in x] for x in batch]
        return [[v * m for v, m in zip(x, mask)] for x, mask in zip(batch, self._masks)]

    def backward(self, grad_out: Batch, need_input_grad: bool = True) -> Batch:
        if self._masks is None:
            return [list(g) for g in grad_out]
        return [[gv * m for gv, m in zip(g, mask)] for g, mask in zip(grad_out, self._masks)]


class Sequential(Module):
    """Layers applied in order; ``backward`` runs them in reverse.

    A model's input is data, not something to learn, so by default ``backward`` does not compute
    the gradient with respect to it (PyTorch skips it too): the first Linear layer saves a third of
    its backward work. Pass ``need_input_grad=True`` to get it.
    """

    def __init__(self, *layers: Module):
        super().__init__()
        self.layers = list(layers)

    def children(self) -> list[Module]:
        return self.layers

    def forward(self, batch: Batch) -> Batch:
        for layer in self.layers:
            batch = layer(batch)
        return batch

    def backward(self, grad_out: Batch, need_input_grad: bool = False) -> Batch | None:
        for k in range(len(self.layers) - 1, -1, -1):
            grad_out = self.layers[k].backward(grad_out, need_input_grad=need_input_grad or k > 0)
        return grad_out


class CrossEntropyLoss:
    """Softmax + negative log-likelihood on raw logits, averaged over the batch (like ``nn.CrossEntropyLoss``).

    ``loss_fn(logits, targets)`` returns the loss as a float; ``loss_fn.backward()`` then returns
    d(loss)/d(logits), which is (softmax - one_hot) / B.
    """

    def __call__(self, logits: Batch, targets: Sequence[int]) -> float:
        n = len(logits)
        total, grads = 0.0, []
        for z, t in zip(logits, targets):          # z: (C,) one sample's logits, t: its class
            top = max(z)
            exps = [math.exp(v - top) for v in z]  # shifted by the max: no overflow
            s = sum(exps)
            total += top + math.log(s) - z[t]      # log-sum-exp minus the true logit
            g = [e / s / n for e in exps]
            g[t] -= 1.0 / n
            grads.append(g)
        self._grad = grads
        return total / n

    def backward(self) -> Batch:
        return self._grad


class Adam:
    """``torch.optim.Adam`` (without amsgrad), step for step: same moments, bias corrections and epsilon."""

    def __init__(self, params: Sequence[Parameter], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0):
        self.params = list(params)
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.m = [[0.0] * len(p.data) for p in self.params]
        self.v = [[0.0] * len(p.data) for p in self.params]
        self.t = 0

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = [0.0] * len(p.data)

    def step(self) -> None:
        self.t += 1
        b1, b2 = self.betas
        step_size = self.lr / (1.0 - b1 ** self.t)
        root_c2 = math.sqrt(1.0 - b2 ** self.t)
        eps, wd = self.eps, self.weight_decay
        for k, p in enumerate(self.params):
            grad = p.grad if wd == 0.0 else [g + wd * w for g, w in zip(p.grad, p.data)]
            m = [b1 * mi + (1.0 - b1) * g for mi, g in zip(self.m[k], grad)]
            v = [b2 * vi + (1.0 - b2) * g * g for vi, g in zip(self.v[k], grad)]
            self.m[k], self.v[k] = m, v
            p.data = [w - step_size * mi / (math.sqrt(vi) / root_c2 + eps) for w, mi, vi in zip(p.data, m, v)]


class DataLoader:
    """Mini-batches of (samples, labels) lists; with ``shuffle`` a new seeded order every epoch."""

    def __init__(self, xs: Sequence[Sequence[float]], ys: Sequence[int], batch_size: int = 32,
                 shuffle: bool = False, seed: int | None = None):
        if len(xs) != len(ys):
            raise ValueError(f"{len(xs)} samples but {len(ys)} labels: they must match")
        self.xs, self.ys = [list(x) for x in xs], list(ys)
        self.batch_size, self.shuffle = batch_size, shuffle
        self.rng = random.Random(seed)

    def __len__(self) -> int:
        return -(-len(self.xs) // self.batch_size)

    def __iter__(self) -> Iterator[tuple[Batch, list[int]]]:
        order = list(range(len(self.xs)))
        if self.shuffle:
            self.rng.shuffle(order)  # the generator moves on: the next epoch gets another order
        for start in range(0, len(order), self.batch_size):
            chunk = order[start:start + self.batch_size]
            yield [self.xs[i] for i in chunk], [self.ys[i] for i in chunk]


def mlp(sizes: Sequence[int], dropout: float = 0.0, seed: int = 0) -> Sequential:
    """Linear layers of the given sizes with ReLU between them (and dropout after it, when asked)."""
    rng = random.Random(seed)
    layers: list[Module] = []
    for k, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(Linear(a, b, rng))
        if k < len(sizes) - 2:
            layers.append(ReLU())
            if dropout:
                layers.append(Dropout(dropout, rng))
    return Sequential(*layers)


def train_epoch(model: Module, loader: DataLoader, optimizer: Adam, loss_fn: CrossEntropyLoss) -> float:
    """One pass of the five steps over ``loader``; returns the mean loss per sample."""
    model.train()
    total, seen = 0.0, 0
    for xb, yb in loader:
        optimizer.zero_grad()                     # 1. clear old gradients
        logits = model(xb)                        # 2. forward: (B, C)
        loss = loss_fn(logits, yb)                # 3. loss
        model.backward(loss_fn.backward())        # 4. backward: fills every Parameter.grad
        optimizer.step()                          # 5. update
        total += loss * len(yb)
        seen += len(yb)
    return total / seen


def accuracy(model: Module, xs: Batch, ys: Sequence[int]) -> float:
    """Fraction of samples whose largest logit is the true class, in evaluation mode."""
    model.eval()
    logits = model([list(x) for x in xs])
    correct = sum(1 for z, t in zip(logits, ys) if max(range(len(z)), key=z.__getitem__) == t)
    return correct / len(ys)
