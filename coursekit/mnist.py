"""The Build's reference pieces (lesson 08), for the exercises and the benchmark to reuse.

Students write their own versions of these in lesson 08; the exercises then import these so that
each exercise is about its own question, not about retyping the loop.
"""

from __future__ import annotations

from typing import Iterator

import torch
from torch import nn

__all__ = ["MNISTModel", "InMemoryBatches", "train_one_epoch", "evaluate", "fit"]


class MNISTModel(nn.Module):
    """784 -> 256 -> ReLU -> Dropout -> 128 -> ReLU -> Dropout -> 10 raw logits (235,146 parameters)."""

    def __init__(self, hidden: tuple[int, int] = (256, 128), dropout: float = 0.2, batchnorm: bool = False):
        super().__init__()
        layers: list[nn.Module] = []
        width = 784
        for size in hidden:
            layers.append(nn.Linear(width, size))
            if batchnorm:  # normalise the pre-activations, then the non-linearity
                layers.append(nn.BatchNorm1d(size))
            layers += [nn.ReLU(), nn.Dropout(dropout)]
            width = size
        layers.append(nn.Linear(width, 10))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x.flatten(1))  # (B, 784) -> (B, 10)


class InMemoryBatches:
    """Shuffled mini-batches taken from tensors already in memory.

    It yields the same batches as ``DataLoader(TensorDataset(x, y), batch_size, shuffle=True,
    generator=...)`` would in distribution, without the per-sample indexing and collating: each
    epoch draws one permutation, and each batch is one ``index_select`` of its 64 rows. Gathering the
    whole shuffled copy at once costs more: it writes 188 MB that no cache holds, while one batch's
    rows (200 KB) are still in cache when the model reads them.
    """

    def __init__(self, x: torch.Tensor, y: torch.Tensor, batch_size: int, shuffle: bool = True,
                 generator: torch.Generator | None = None, drop_last: bool = False):
        if x.shape[0] != y.shape[0]:
            raise ValueError(f"x has {x.shape[0]} rows but y has {y.shape[0]}: they must match")
        self.x, self.y = x, y
        self.batch_size, self.shuffle, self.drop_last = batch_size, shuffle, drop_last
        self.generator = generator

    def __len__(self) -> int:
        n = self.x.shape[0]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        size = self.batch_size
        if not self.shuffle:  # slices of the tensors themselves: free views
            for k in range(len(self)):
                yield self.x[k * size:(k + 1) * size], self.y[k * size:(k + 1) * size]
            return
        order = torch.randperm(self.x.shape[0], generator=self.generator).to(self.x.device)  # (N,)
        for k in range(len(self)):
            rows = order[k * size:(k + 1) * size]                    # (B,)
            yield self.x.index_select(0, rows), self.y.index_select(0, rows)


def train_one_epoch(model: nn.Module, batches, optimizer: torch.optim.Optimizer, loss_fn: nn.Module,
                    device: torch.device, scheduler=None) -> tuple[float, float]:
    """One pass over ``batches``; returns (mean loss, accuracy) over the samples seen."""
    model.train()
    total_loss = torch.zeros((), device=device)  # summed on the device: no sync per step
    correct = torch.zeros((), dtype=torch.long, device=device)
    seen = 0
    for x, y in batches:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        logits = model(x)  # (B, 10)
        loss = loss_fn(logits, y)
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        total_loss += loss.detach() * y.shape[0]
        correct += (logits.argmax(dim=1) == y).sum()
        seen += y.shape[0]
    return total_loss.item() / seen, correct.item() / seen


@torch.no_grad()
def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor, loss_fn: nn.Module, device: torch.device,
             batch_size: int = 10_000) -> tuple[float, float]:
    """(mean loss, accuracy) of ``model`` on (x, y), in eval mode and without building a graph."""
    model.eval()
    total_loss, correct = 0.0, 0
    for start in range(0, x.shape[0], batch_size):
        xb = x[start:start + batch_size].to(device)
        yb = y[start:start + batch_size].to(device)
        logits = model(xb)  # (B, 10)
        total_loss += loss_fn(logits, yb).item() * yb.shape[0]
        correct += (logits.argmax(dim=1) == yb).sum().item()
    return total_loss / x.shape[0], correct / x.shape[0]


def fit(model: nn.Module, train: tuple[torch.Tensor, torch.Tensor], test: tuple[torch.Tensor, torch.Tensor], *,
        epochs: int, optimizer: torch.optim.Optimizer, device: torch.device, batch_size: int = 64,
        seed: int = 0, scheduler=None, scheduler_per: str = "epoch", progress: bool = True) -> dict[str, list[float]]:
    """Train with :class:`InMemoryBatches` and evaluate after every epoch; returns the history.

    ``scheduler_per`` is "epoch" (step after each epoch) or "batch" (step after each optimizer step).
    """
    from tqdm.auto import tqdm

    loss_fn = nn.CrossEntropyLoss()
    batches = InMemoryBatches(*train, batch_size=batch_size, generator=torch.Generator().manual_seed(seed))
    history: dict[str, list[float]] = {"train_loss": [], "train_acc": [], "test_loss": [], "test_acc": []}
    for _ in tqdm(range(epochs), desc="epochs", disable=not progress):
        tr_loss, tr_acc = train_one_epoch(model, batches, optimizer, loss_fn, device,
                                          scheduler if scheduler_per == "batch" else None)
        if scheduler is not None and scheduler_per == "epoch":
            scheduler.step()
        te_loss, te_acc = evaluate(model, *test, loss_fn, device)
        for key, value in zip(history, (tr_loss, tr_acc, te_loss, te_acc)):
            history[key].append(value)
    return history
