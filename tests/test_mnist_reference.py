"""coursekit.mnist: the in-memory batches every fast loop of the course uses."""

from __future__ import annotations

import pytest
import torch

from coursekit.mnist import InMemoryBatches


def _data(n=1000):
    x = torch.arange(n, dtype=torch.float32).unsqueeze(1).repeat(1, 3)   # (n, 3): row i holds i
    y = torch.arange(n)                                                   # (n,)
    return x, y


def test_each_epoch_visits_every_row_once_in_a_new_order():
    x, y = _data()
    batches = InMemoryBatches(x, y, batch_size=64, generator=torch.Generator().manual_seed(0))
    epochs = []
    for _ in range(2):
        seen = [(xb, yb) for xb, yb in batches]
        assert len(seen) == len(batches) == 16
        assert [len(yb) for _, yb in seen] == [64] * 15 + [40]
        labels = torch.cat([yb for _, yb in seen])
        assert torch.equal(labels.sort().values, y)
        assert all(torch.equal(xb[:, 0].long(), yb) for xb, yb in seen)   # rows stay paired with labels
        epochs.append(labels)
    assert not torch.equal(epochs[0], epochs[1])


def test_same_seed_same_batches_and_no_shuffle_keeps_order():
    x, y = _data()
    first = [yb for _, yb in InMemoryBatches(x, y, 100, generator=torch.Generator().manual_seed(3))]
    again = [yb for _, yb in InMemoryBatches(x, y, 100, generator=torch.Generator().manual_seed(3))]
    assert all(torch.equal(a, b) for a, b in zip(first, again))
    ordered = torch.cat([yb for _, yb in InMemoryBatches(x, y, 300, shuffle=False)])
    assert torch.equal(ordered, y)


def test_drop_last_and_mismatched_lengths():
    x, y = _data(130)
    assert [len(yb) for _, yb in InMemoryBatches(x, y, 64, drop_last=True)] == [64, 64]
    with pytest.raises(ValueError, match="must match"):
        InMemoryBatches(x, y[:-1], 64)
