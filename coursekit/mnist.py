"""The Build's reference pieces (lesson 08), for the exercises and the benchmark to reuse.

Students write their own versions of these in lesson 08; the exercises then import these so that
each exercise is about its own question, not about retyping the loop.

The helpers that train and measure a model (``fit``, ``train_one_epoch``, ``evaluate``) also note in a ledger which
data each model was trained on and measured on (a content fingerprint of the rows, and the tensor's identity where
they are given one tensor): hidden tests read it through :func:`coursekit.testing.held_out_use` to tell a model that
learned from test data, or was chosen on it, from one that did not. The ledger holds fingerprints only, never data.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from dataclasses import dataclass
from typing import Any, Iterator


import torch
from torch import nn

from .answers import course_answer, helper_of

__all__ = ["MNISTModel", "InMemoryBatches", "validation_split", "train_one_epoch", "evaluate", "fit", "Fingerprint",
           "fingerprint", "ledger", "devices_given", "noting_devices"]


@course_answer
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


def validation_split(x: torch.Tensor, y: torch.Tensor, size: int = 10_000, seed: int = 0
                     ) -> tuple[tuple[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]:
    """Carve a validation set of ``size`` rows, drawn at random with ``seed``, out of a training set (x (N, ...), y (N,)).

    Returns ``((x_train, y_train), (x_val, y_val))``: every row lands in exactly one part, each part keeps the rows in
    the order of the file, and the same seed always carves the same rows. Train on the first part, choose (epochs,
    learning rates, architectures) on the second, and keep the test set for one measurement at the very end.
    """
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"x has {x.shape[0]} rows but y has {y.shape[0]}: they must match")
    if not 0 < size < x.shape[0]:
        raise ValueError(f"a validation set of {size} rows cannot be carved out of {x.shape[0]}: "
                         f"choose a size between 1 and {x.shape[0] - 1}")
    order = torch.randperm(x.shape[0], generator=torch.Generator().manual_seed(seed)).to(x.device)   # (N,)
    held, kept = order[:size].sort().values, order[size:].sort().values
    return (x[kept], y[kept]), (x[held], y[held])


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


# --- the ledger: which data each model was trained and measured on ----------------------------------------------

@dataclass(frozen=True)
class Fingerprint:
    """What a set of rows (x, y) looks like, without the rows: their number, the sums over the rows of four fixed
    random projections of each x and two of each y, and the sum of those projections' sizes (for the tolerance). Sums
    add up, so the rows of two sets together (``torch.cat``, in any order) have the sum of their fingerprints.
    ``identity`` names the tensor x itself (its memory, offset and shape) where one tensor held all the rows."""

    rows: int
    sums: tuple[float, ...]
    size: float
    identity: tuple | None = None

    def __add__(self, other: "Fingerprint") -> "Fingerprint":
        return Fingerprint(self.rows + other.rows, tuple(a + b for a, b in zip(self.sums, other.sums)),
                           self.size + other.size)

    def same_rows(self, other: "Fingerprint") -> bool:
        """Whether both are the same rows, in any order (the same tensor, or equal fingerprints within rounding)."""
        if self.identity is not None and self.identity == other.identity:
            return True
        tolerance = 1e-5 * (self.size + other.size) + 1e-6
        return self.rows == other.rows and all(abs(a - b) <= tolerance for a, b in zip(self.sums, other.sums))


_PROJECTIONS: dict[tuple[int, int, str], torch.Tensor] = {}


def _projection(width: int, count: int, device: torch.device) -> torch.Tensor:
    """(width, count) float32 numbers fixed by ``width`` alone: every run projects rows of a width the same way."""
    key = (width, count, str(device))
    if key not in _PROJECTIONS:
        numbers = torch.randn(width, count, generator=torch.Generator().manual_seed(7919 * width + count))
        _PROJECTIONS[key] = numbers.to(device)
    return _PROJECTIONS[key]


def _sums(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor | None:
    """(7,) float64 on x's device: the 6 projection sums of a batch and their size; None where x holds no numbers."""
    if x.device.type == "meta" or y.device.type == "meta":
        return None
    flat_x = x.reshape(x.shape[0], -1).to(torch.float32)               # (B, features)
    flat_y = y.reshape(y.shape[0], -1).to(device=x.device, dtype=torch.float32)   # (B, 1) for labels
    projected = torch.cat([flat_x @ _projection(flat_x.shape[1], 4, x.device),
                           flat_y @ _projection(flat_y.shape[1], 2, x.device)], dim=1).double()   # (B, 6)
    return torch.cat([projected.sum(dim=0), projected.abs().sum().reshape(1)])


def _identity(x: torch.Tensor) -> tuple | None:
    if x.device.type == "meta":
        return None
    return (x.device.type, x.untyped_storage().data_ptr(), x.storage_offset(), tuple(x.shape), tuple(x.stride()))


def fingerprint(x: torch.Tensor, y: torch.Tensor) -> Fingerprint | None:
    """The fingerprint of the rows (x (N, ...), y (N, ...)); None for tensors without numbers (the meta device)."""
    total = _sums(x, y)
    if total is None:
        return None
    values = total.tolist()
    return Fingerprint(int(x.shape[0]), tuple(values[:6]), values[6], _identity(x))


class _Rows:
    """The fingerprint of the rows a loop went through, added up batch by batch on the batches' device (no wait for
    the device at each step); read once, at the end."""

    def __init__(self):
        self.rows, self.total, self.blind = 0, None, False

    def add(self, x: torch.Tensor, y: torch.Tensor) -> None:
        sums = _sums(x, y)
        if sums is None:
            self.blind = True
            return
        self.rows += int(x.shape[0])
        self.total = sums if self.total is None else self.total + sums.to(self.total.device)

    def fingerprint(self, identity: tuple | None = None) -> Fingerprint | None:
        if self.blind:
            return None
        values = self.total.tolist() if self.total is not None else [0.0] * 7
        return Fingerprint(self.rows, tuple(values[:6]), values[6], identity)


_BY_MODEL: "weakref.WeakKeyDictionary[nn.Module, list[tuple[str, Fingerprint | None]]]" = weakref.WeakKeyDictionary()
_BY_RUN: dict[int, tuple[dict, list[tuple[str, Fingerprint | None]], str]] = {}   # id(history) -> (history, its events, device)
_RUNS_KEPT = 1000


def _note(model: nn.Module, what: str, data: Fingerprint | None, run: list | None = None) -> None:
    """Note that ``model`` was ``what`` on ``data``: "trained" (one epoch), "chosen" (fit's measurement after an epoch,
    which the history records for choices made later) or "measured" (an evaluation); in fit's ``run`` too, when given."""
    try:
        _BY_MODEL.setdefault(model, []).append((what, data))
    except TypeError:   # an object that cannot be weakly referenced is not followed
        pass
    if run is not None:
        run.append((what, data))


def ledger(of: "nn.Module | dict") -> list[tuple[str, Fingerprint | None]] | None:
    """The events noted for a model, or for the history ``fit`` returned (matched by identity, or by equal figures):
    ``("trained", fingerprint)`` for each epoch of training, ``("chosen", fingerprint)`` for fit's measurement after
    each epoch, ``("measured", fingerprint)`` for each other evaluation, in order. None when the course's helpers never trained or measured it."""
    if isinstance(of, nn.Module):
        events = _BY_MODEL.get(of)
        return list(events) if events is not None else None
    if isinstance(of, dict):
        if id(of) in _BY_RUN and _BY_RUN[id(of)][0] is of:
            return list(_BY_RUN[id(of)][1])
        for history, events, _ in reversed(list(_BY_RUN.values())):   # a copy of a history: the same figures
            if history == of:
                return list(events)
    return None


_DEVICES: "weakref.WeakKeyDictionary[nn.Module, set[str]]" = weakref.WeakKeyDictionary()


def _note_device(model: nn.Module, device: Any) -> None:
    """Note the device a training pass or an evaluation of ``model`` was told to use (as written: None stays None)."""
    try:
        _DEVICES.setdefault(model, set()).add(str(device))
    except TypeError:   # an object that cannot be weakly referenced is not followed
        pass


def devices_given(of: "nn.Module | dict") -> list[str] | None:
    """The devices ``fit``, ``train_one_epoch`` and ``evaluate`` were told to use for a model, as strings, sorted; or,
    for the history ``fit`` returned (matched as ``ledger`` matches it), the device that run was told to use. None when they never ran
    on it. A hidden test compares them with the notebook's ``device``: on a CPU runner a model trained with
    ``device=None`` gives the same numbers, and only this shows what a GPU runner would have refused."""
    if isinstance(of, dict):
        if id(of) in _BY_RUN and _BY_RUN[id(of)][0] is of:
            return [_BY_RUN[id(of)][2]]
        return next(([device] for history, _, device in reversed(list(_BY_RUN.values())) if history == of), None)
    found = _DEVICES.get(of) if isinstance(of, nn.Module) else None
    return sorted(found) if found is not None else None


def noting_devices(fn, device_at: int):
    """``fn`` (a notebook's own ``train_one_epoch`` or ``evaluate``) wrapped so that each call notes, for its model (the
    first argument), the device it was told to use (the argument at position ``device_at``, given by position or by
    name), as the course's helpers note theirs: ``devices_given`` then answers for the notebook's functions too. A hidden
    test installs it over the notebook's function, so that a later graded cell that trains with it (lesson 08's
    ``train-mnist``) can be checked for ``device=None``, which a CPU runner trains the same. ``fn`` is returned as it
    is when its signature cannot be read or is too short (the call then fails or succeeds as it would have), and a
    function wrapped already is not wrapped twice."""
    if getattr(fn, "_notes_devices", False):
        return fn
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn
    names = list(signature.parameters)
    if len(names) <= device_at:
        return fn

    @functools.wraps(fn)
    def noted(*args, **kwargs):
        try:
            given = signature.bind_partial(*args, **kwargs).arguments
        except TypeError:   # a call the function itself will refuse: let it say why
            given = {}
        if isinstance(given.get(names[0]), nn.Module) and names[device_at] in given:
            _note_device(given[names[0]], given[names[device_at]])
        return fn(*args, **kwargs)

    noted._notes_devices = True
    return noted


# --- training and evaluation -------------------------------------------------------------------------------------

@course_answer
def train_one_epoch(model: nn.Module, batches, optimizer: torch.optim.Optimizer, loss_fn: nn.Module,
                    device: torch.device, scheduler=None) -> tuple[float, float]:
    """One pass over ``batches``; returns (mean loss, accuracy) over the samples seen."""
    result, rows = _train_one_epoch(model, batches, optimizer, loss_fn, device, scheduler)
    identity = _identity(batches.x) if isinstance(batches, InMemoryBatches) and not batches.drop_last else None
    _note(model, "trained", rows.fingerprint(identity))
    return result


@helper_of(train_one_epoch)
def _train_one_epoch(model, batches, optimizer, loss_fn, device, scheduler) -> tuple[tuple[float, float], _Rows]:
    _note_device(model, device)
    model.train()
    total_loss = torch.zeros((), device=device)  # summed on the device: no sync per step
    correct = torch.zeros((), dtype=torch.long, device=device)
    seen, rows = 0, _Rows()
    for x, y in batches:
        rows.add(x, y)
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
    return (total_loss.item() / seen, correct.item() / seen), rows


@course_answer
@torch.no_grad()
def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor, loss_fn: nn.Module, device: torch.device,
             batch_size: int = 10_000) -> tuple[float, float]:
    """(mean loss, accuracy) of ``model`` on (x, y), in eval mode and without building a graph."""
    _note(model, "measured", fingerprint(x, y))
    return _evaluate(model, x, y, loss_fn, device, batch_size)


@helper_of(evaluate)
def _evaluate(model, x, y, loss_fn, device, batch_size) -> tuple[float, float]:
    _note_device(model, device)
    model.eval()
    total_loss = torch.zeros((), device=device)  # summed on the device: one transfer at the end, as in training
    correct = torch.zeros((), dtype=torch.long, device=device)
    for start in range(0, x.shape[0], batch_size):
        xb = x[start:start + batch_size].to(device)
        yb = y[start:start + batch_size].to(device)
        logits = model(xb)  # (B, 10)
        total_loss += loss_fn(logits, yb).detach().float() * yb.shape[0]
        correct += (logits.argmax(dim=1) == yb).sum()
    return total_loss.item() / x.shape[0], correct.item() / x.shape[0]


@course_answer
def fit(model: nn.Module, train: tuple[torch.Tensor, torch.Tensor], val: tuple[torch.Tensor, torch.Tensor], *,
        epochs: int, optimizer: torch.optim.Optimizer, device: torch.device, batch_size: int = 64,
        seed: int = 0, scheduler=None, scheduler_per: str = "epoch", progress: bool = True) -> dict[str, list[float]]:
    """Train on ``train`` with :class:`InMemoryBatches` and measure on the validation data ``val`` after every epoch;
    returns the history: ``train_loss`` and ``train_acc`` (means over each epoch's batches, with dropout on, while the
    weights still move), ``val_loss`` and ``val_acc`` (the model at the end of each epoch, in eval mode).

    ``scheduler_per`` is "epoch" (step after each epoch) or "batch" (step after each optimizer step).
    """
    from tqdm.auto import tqdm

    loss_fn = nn.CrossEntropyLoss()
    batches = InMemoryBatches(*train, batch_size=batch_size, generator=torch.Generator().manual_seed(seed))
    history: dict[str, list[float]] = {"train_loss": [], "train_acc": [], "val_loss": [], "val_acc": []}
    run: list[tuple[str, Fingerprint | None]] = []
    measured = fingerprint(*val)
    for _ in tqdm(range(epochs), desc="epochs", disable=not progress):
        (tr_loss, tr_acc), rows = _train_one_epoch(model, batches, optimizer, loss_fn, device,
                                                   scheduler if scheduler_per == "batch" else None)
        _note(model, "trained", rows.fingerprint(_identity(train[0])), run)
        if scheduler is not None and scheduler_per == "epoch":
            scheduler.step()
        _note(model, "chosen", measured, run)
        va_loss, va_acc = _evaluate(model, *val, loss_fn, device, 10_000)
        for key, value in zip(history, (tr_loss, tr_acc, va_loss, va_acc)):
            history[key].append(value)
    _BY_RUN[id(history)] = (history, run, str(device))
    while len(_BY_RUN) > _RUNS_KEPT:
        del _BY_RUN[next(iter(_BY_RUN))]
    return history
