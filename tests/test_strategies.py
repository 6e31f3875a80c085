"""The strategies of coursekit.strategies that hidden tests of several cells share: what they draw is what their
docstrings promise, since a generated case that draws otherwise fails right answers or lets wrong ones through."""

from __future__ import annotations

import statistics

import torch

from coursekit import strategies as cs


def test_clock_calls_draw_timed_calls_whose_mean_median_and_median_rate_agree():
    calls = cs.draw(cs.clock_calls(), 40, seed=5)
    assert {call.args[3] % 2 for call in calls} == {0, 1}                  # odd and even numbers of timed calls
    for call in calls:
        batch_size, device, warmup, repeats, durations = call.args
        assert len(durations) == warmup + repeats and 0 <= warmup <= 4 and 1 <= repeats <= 7
        assert all((d / cs.TIME_UNIT).is_integer() and d > 0 for d in durations)
        timed = durations[warmup:]
        middle = statistics.median(timed)
        assert statistics.mean(timed) == middle
        assert statistics.median([batch_size / d for d in timed]) == batch_size / middle


def test_described_bytes_are_bytes_that_the_feedback_names_in_words():
    raw = cs.DescribedBytes(b"\x00\x00\x08\x01\x00\x00\x00\x02", "00 00 08 01 + 4 bytes, for (2,)")
    assert raw == b"\x00\x00\x08\x01\x00\x00\x00\x02" and raw[3] == 1 and isinstance(raw[:4], bytes)
    assert cs.describe(cs.Call((raw,))) == "(00 00 08 01 + 4 bytes, for (2,))"
    assert cs.size(raw) < cs.size(cs.DescribedBytes(bytes(40), "longer"))     # the smallest failing input: fewest bytes


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
