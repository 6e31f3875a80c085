"""coursekit.strategies: what the shared strategies of the generated cases draw (coursekit/strategies.py)."""

from __future__ import annotations

import torch

from coursekit import strategies as cs


def test_predictions_and_labels_draw_class_indices_with_absent_classes_orders_and_views():
    calls = cs.draw(cs.predictions_and_labels(classes=(1, 12), examples=(0, 80)), 60, seed=3)
    assert [c.args[2] for c in calls] == [c.args[2] for c in cs.draw(cs.predictions_and_labels(), 60, seed=3)]
    for call in calls:
        predictions, labels, k = call.args
        assert predictions.dtype == labels.dtype == torch.int64 and predictions.shape == labels.shape
        assert 1 <= k <= 12 and len(labels) <= 80
        assert all(int(t.min()) >= 0 and int(t.max()) < k for t in (predictions, labels) if t.numel())
    drawn = [c.args for c in calls]
    assert any(len(labels) == 0 for _, labels, _ in drawn)                                          # no example at all
    assert any(labels.numel() and int(labels.max()) < k - 1 for _, labels, k in drawn)               # top classes absent
    assert any(labels.numel() > 2 and bool((labels.diff() >= 0).all()) and len(set(labels.tolist())) > 1 for _, labels, _ in drawn)
    assert any(not predictions.is_contiguous() for predictions, _, _ in drawn)                       # a strided view
    assert any(labels.storage_offset() > 0 for _, labels, _ in drawn)                                # offset into a storage
