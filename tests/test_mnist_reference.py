"""coursekit.mnist: the in-memory batches every fast loop of the course uses, the validation split, and the ledger of
what each model was trained and chosen on (read by coursekit.testing.held_out_use)."""

from __future__ import annotations

import inspect

import pytest
import torch
from torch import nn

from coursekit import testing
from coursekit.mnist import (InMemoryBatches, MNISTModel, devices_given, evaluate, fingerprint, fit, ledger, noting_devices,
                             train_one_epoch, validation_split)


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


# --- the validation split ----------------------------------------------------------------------------------------

def test_validation_split_carves_disjoint_seeded_parts_in_file_order():
    x, y = _data(500)
    (x_tr, y_tr), (x_val, y_val) = validation_split(x, y, size=100, seed=3)
    assert x_tr.shape == (400, 3) and x_val.shape == (100, 3)
    assert torch.equal(torch.cat([y_tr, y_val]).sort().values, y)           # every row once
    assert torch.equal(y_tr, y_tr.sort().values) and torch.equal(y_val, y_val.sort().values)   # the file's order
    assert all(torch.equal(xs[:, 0].long(), ys) for xs, ys in ((x_tr, y_tr), (x_val, y_val)))   # rows keep their labels
    again = validation_split(x, y, size=100, seed=3)[1][1]
    other = validation_split(x, y, size=100, seed=4)[1][1]
    assert torch.equal(again, y_val) and not torch.equal(other, y_val)
    assert not torch.equal(y_val, torch.arange(400, 500))                   # drawn at random, not the last rows


@pytest.mark.parametrize("size", [0, 500, -1])
def test_validation_split_refuses_sizes_that_leave_no_rows(size):
    x, y = _data(500)
    with pytest.raises(ValueError, match="cannot be carved"):
        validation_split(x, y, size=size)
    with pytest.raises(ValueError, match="must match"):
        validation_split(x, y[:-1], size=10)


# --- the ledger: what a model was trained and chosen on ----------------------------------------------------------

def _splits(n=300):
    g = torch.Generator().manual_seed(5)
    x, y = torch.rand(n, 784, generator=g), torch.randint(0, 10, (n,), generator=g)
    (x_tr, y_tr), (x_val, y_val) = validation_split(x, y, size=n // 3)
    x_te, y_te = torch.rand(n // 3, 784, generator=g), torch.randint(0, 10, (n // 3,), generator=g)
    return (x_tr, y_tr), (x_val, y_val), (x_te, y_te)


def _use(run, training, validation, test):
    return testing.held_out_use(run, training=training, validation=validation, test=test)


CLEAN = {"trained by the course's fit or train_one_epoch": True, "test rows among its training data": False,
         "validation rows among its training data": False,
         "test rows behind a choice (measured after each epoch, or while training went on)": False,
         "every epoch trained on the training split alone": True}


def _fit(train, val, epochs=2):
    torch.manual_seed(0)
    model = MNISTModel(hidden=(16, 8))
    history = fit(model, train, val, epochs=epochs, optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
                  device=torch.device("cpu"), batch_size=64, progress=False)
    return model, history


def test_fit_measures_the_validation_data_and_its_ledger_says_so():
    train, val, test = _splits()
    model, history = _fit(train, val)
    assert set(history) == {"train_loss", "train_acc", "val_loss", "val_acc"}
    assert history["val_acc"][-1] == evaluate(model, *val, nn.CrossEntropyLoss(), torch.device("cpu"))[1]
    assert _use(history, train, val, test) == CLEAN
    assert _use(dict(history), train, val, test) == CLEAN                  # a copy of the history: the same figures
    assert _use(model, train, val, test) == CLEAN                          # the model itself, fit and evaluate noted


def test_the_ledger_sees_test_rows_trained_on_in_any_order_and_test_data_chosen_on():
    train, val, test = _splits()
    mixed = torch.cat([train[0], test[0]]), torch.cat([train[1], test[1]])
    order = torch.randperm(len(mixed[1]), generator=torch.Generator().manual_seed(1))
    _, history = _fit((mixed[0][order], mixed[1][order]), val)
    assert _use(history, train, val, test) == {**CLEAN, "test rows among its training data": True,
                                               "every epoch trained on the training split alone": False}
    full = torch.cat([train[0], val[0]]), torch.cat([train[1], val[1]])
    _, history = _fit(full, val)
    assert _use(history, train, val, test)["validation rows among its training data"]
    _, history = _fit(train, test)
    assert _use(history, train, val, test) == {
        **CLEAN, "test rows behind a choice (measured after each epoch, or while training went on)": True}


def test_train_one_epoch_and_evaluate_note_what_they_did_in_order():
    train, val, test = _splits()
    torch.manual_seed(0)
    model = MNISTModel(hidden=(16, 8))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn, cpu = nn.CrossEntropyLoss(), torch.device("cpu")
    train_one_epoch(model, InMemoryBatches(*train, 50, generator=torch.Generator().manual_seed(0)), opt, loss_fn, cpu)
    evaluate(model, *test, loss_fn, cpu)                                       # the test data, then more training
    train_one_epoch(model, [(train[0][:120], train[1][:120]), (train[0][120:], train[1][120:])], opt, loss_fn, cpu)
    assert [what for what, _ in ledger(model)] == ["trained", "measured", "trained"]
    assert _use(model, train, val, test) == {
        **CLEAN, "test rows behind a choice (measured after each epoch, or while training went on)": True}
    untouched = MNISTModel(hidden=(16, 8))
    assert ledger(untouched) is None
    assert _use(untouched, train, val, test)["trained by the course's fit or train_one_epoch"] is False


def test_fingerprints_add_up_and_tell_other_rows_apart():
    train, val, test = _splits()
    whole = fingerprint(torch.cat([val[0], train[0]]), torch.cat([val[1], train[1]]))
    assert whole.same_rows(fingerprint(*train) + fingerprint(*val))
    assert not whole.same_rows(fingerprint(*train))
    assert not fingerprint(train[0][1:], train[1][1:]).same_rows(fingerprint(*train))   # one row fewer
    changed = train[0].clone()
    changed[7, 100] += 0.5
    assert not fingerprint(changed, train[1]).same_rows(fingerprint(*train))           # one pixel changed
    assert fingerprint(torch.empty(3, 784, device="meta"), torch.empty(3, device="meta")) is None


def test_held_out_logits_are_the_models_eval_outputs_and_keep_its_mode():
    train, val, _ = _splits()
    torch.manual_seed(0)
    model = MNISTModel(hidden=(16, 8)).train()
    got = testing.held_out_logits(model, {"training": train, "validation": val}, batch_size=64)
    assert model.training
    with torch.no_grad():
        assert torch.equal(got["validation"], model.eval()(val[0]))
    assert got["training"].shape == (len(train[1]), 10)


def test_the_devices_a_model_and_a_history_were_given_are_noted_as_written():
    """On a CPU runner device=None trains and measures the same numbers as the notebook's device; only the note tells
    them apart (a GPU runner would have stopped)."""
    train, val, _ = _splits()
    model, history = _fit(train, val)
    assert devices_given(model) == ["cpu"] and devices_given(history) == ["cpu"]
    assert devices_given(dict(history)) == ["cpu"]                       # a copy of the history: the same figures
    evaluate(model, *val, nn.CrossEntropyLoss(), None)
    assert devices_given(model) == ["None", "cpu"]
    assert devices_given(MNISTModel()) is None


def test_a_notebooks_own_functions_note_the_device_each_call_was_given():
    """noting_devices: by position or by name, None as written, the answer and the function's signature unchanged,
    never wrapped twice; a call it cannot bind still fails as the function itself fails."""
    def train_one_epoch(model, loader, optimizer, loss_fn, device):      # a notebook's own, its parameters as it names them
        return 0.5, float(len(loader))

    noted = noting_devices(train_one_epoch, device_at=4)
    assert noting_devices(noted, device_at=4) is noted
    assert inspect.signature(noted) == inspect.signature(train_one_epoch) and noted.__name__ == "train_one_epoch"
    model, other = nn.Linear(2, 2), nn.Linear(2, 2)
    assert noted(model, [1, 2], None, None, torch.device("cpu")) == (0.5, 2.0)
    assert devices_given(model) == ["cpu"]
    noted(model, [], None, loss_fn=None, device=None)
    assert devices_given(model) == ["None", "cpu"] and devices_given(other) is None
    with pytest.raises(TypeError):
        noted(other, [])                                                   # too few arguments: the function's own error
    assert devices_given(other) is None
    assert noting_devices(lambda model: None, device_at=4)(other) is None  # too short to have a device: left as it is
