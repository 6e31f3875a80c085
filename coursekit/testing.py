"""Probes for the notebooks' hidden tests: each one catches a class of mistake the course teaches about.

The classes (the rows of docs/promises.md, checked by tests/test_promises.py):

========== ===============================================================================
class      the mistake it catches
========== ===============================================================================
values     the answer computes something else (the baseline of every exercise)
shapes     a shape that only fits the visible example: batch sizes 1, odd and large
dtype      a wrong dtype or value range (int64 where float32 belongs, pixels in [0, 255])
device     a device written into the code ('cpu', 'cuda', .cuda()) instead of the input's or argument's
logits     probabilities where logits belong (a softmax before CrossEntropyLoss)
modes      train()/eval() not set, or not restored
grad       gradients not zeroed, or a graph built where none may be
randomness randomness not from the given generator or seed (a DataLoader on the global generator)
format     constants of the visible data instead of the format's (the data's own max instead of 255)
amp        autocast scope, the scaler's order, the optimizer under autocast, a clock read unsynchronised
stability  overflow or NaN for large inputs
========== ===============================================================================

Every probe either passes silently or raises :class:`coursekit.checks.CheckFailed` saying what it
saw and what to do, like the visible checks. They use public PyTorch only.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import struct
from typing import Any, Callable, Iterator, Sequence
from unittest import mock

import torch
from torch import nn

from .checks import CheckFailed, check, check_device, check_shape

CLASSES = {
    "values": "the answer computes something else",
    "shapes": "a shape that only fits the visible example (batch sizes 1, odd and large)",
    "dtype": "a wrong dtype or value range",
    "device": "a device written into the code instead of the input's or the argument's",
    "logits": "probabilities where logits belong",
    "modes": "train()/eval() not set, or not restored",
    "grad": "gradients not zeroed, or a graph built where none may be",
    "randomness": "randomness not from the given generator or seed",
    "format": "constants of the visible data instead of the format's",
    "amp": "autocast scope, scaler order, optimizer under autocast, clock read unsynchronised",
    "stability": "overflow or NaN for large inputs",
}
# Which probes of this module test which class (tests/test_promises.py checks that a test cell whose
# row names a class calls one of them).
PROBES = {
    "shapes": ("check_batch_sizes",),
    "dtype": ("check_dtype", "check_range"),
    "device": ("DeviceProbe", "MetaModel", "run_on_meta", "refuse_cuda", "pretend_cuda", "notebook_device_elsewhere"),
    "logits": ("check_logits", "LossSpy", "check_loss_on_logits"),
    "modes": ("ModeSpy", "check_eval_mode"),
    "grad": ("RecordingSGD", "check_no_graph", "ModeSpy", "Untouched"),
    "randomness": ("check_reproducible", "check_same_history", "check_loader_generator"),
    "format": ("dim_images", "serve_dataset", "write_idx", "idx_bytes"),
    "amp": ("AutocastSpy", "RecordingSGD", "ScalerSpy", "ClockSpy"),
    "stability": ("check_finite",),
}

__all__ = ["CLASSES", "PROBES", "MetaModel", "check_eval_mode", "check_same_history", "serve_dataset",
           "refuse_cuda", "DeviceProbe", "run_on_meta", "check_logits", "LossSpy", "ModeSpy",
           "RecordingSGD", "check_no_graph", "check_reproducible", "check_loader_generator", "check_batch_sizes",
           "check_range", "check_finite", "dim_images", "write_idx", "AutocastSpy", "ScalerSpy", "ClockSpy",
           "expect_error", "runs", "snapshot", "check_restored", "NanLossFrom", "twin", "pretend_cuda", "check_loss_on_logits", "Untouched", "notebook_device_elsewhere", "idx_bytes", "labelled_points"]


# --- device -----------------------------------------------------------------------------------------

def _refuse(*args, **kwargs):
    raise CheckFailed("your code called .cuda(), which hard-codes the GPU.",
                      "use .to(device) with the device you were given (or the input's x.device), never .cuda().")


@contextlib.contextmanager
def refuse_cuda() -> Iterator[None]:
    """Inside the block, ``.cuda()`` on a tensor or a module fails with a hint."""
    with mock.patch.object(torch.Tensor, "cuda", _refuse), mock.patch.object(nn.Module, "cuda", _refuse):
        yield


def _device_of(args: tuple, kwargs: dict) -> torch.device | None:
    """The device a ``.to(...)`` call asks for, if any."""
    candidates = [kwargs.get("device"), *args]
    for value in candidates:
        if isinstance(value, torch.device):
            return value
        if isinstance(value, str):
            try:
                return torch.device(value)
            except RuntimeError:
                continue
        if isinstance(value, int) and not isinstance(value, bool):
            return torch.device("cuda", value)
    return None


class DeviceProbe:
    """Run code with a device that is not the default one, and see which devices it asks for.

    ``probe.device`` is ``torch.device("cpu", 0)``: the same hardware as ``"cpu"``, but a different
    object, so ``x.to(device)`` and ``x.to("cpu")`` can be told apart by what they do. Inside the
    ``with`` block every ``.to(...)`` of a tensor or a module is recorded and ``.cuda()`` fails::

        with DeviceProbe() as probe:
            train_step(model, batch, optimizer, loss_fn, probe.device)
        probe.check("train_step")   # fails if the code moved anything to a device it was not given

    Moves made by coursekit's own helpers (``InMemoryBatches`` keeps its shuffled order on the data's device, say)
    are recorded in ``asked`` but never held against the code under test.
    """

    def __init__(self) -> None:
        self.device = torch.device("cpu", 0)
        self.asked: list[torch.device] = []
        self.asked_outside_coursekit: list[torch.device] = []

    def _recording(self, original):
        probe = self

        def to(this, *args, **kwargs):
            wanted = _device_of(args, kwargs)
            if wanted is not None:
                probe.asked.append(wanted)
                import sys

                if not sys._getframe(1).f_globals.get("__name__", "").startswith("coursekit."):
                    probe.asked_outside_coursekit.append(wanted)
            return original(this, *args, **kwargs)

        return to

    def __enter__(self) -> "DeviceProbe":
        self._stack = contextlib.ExitStack()
        self._stack.enter_context(refuse_cuda())
        self._stack.enter_context(mock.patch.object(torch.Tensor, "to", self._recording(torch.Tensor.to)))
        self._stack.enter_context(mock.patch.object(nn.Module, "to", self._recording(nn.Module.to)))
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def check(self, what: str) -> None:
        strangers = sorted({str(d) for d in self.asked_outside_coursekit if d != self.device})
        check(not strangers, f"{what} moved data to {', '.join(strangers)}, a device it was not given "
              f"(it was given {self.device}).",
              "never write 'cpu' or 'cuda' inside a function: use the device argument, or the input's x.device.")

    def check_moved(self, what: str) -> None:
        """The code moved something to the device it was given (a batch that arrives elsewhere must be moved)."""
        check(self.device in self.asked_outside_coursekit, f"{what} never moved anything to the device it was given ({self.device}); "
              "on a GPU the batches would stay in the CPU's memory while the model waits on the GPU.",
              "move each batch with x.to(device) and y.to(device) before the forward pass.")


def run_on_meta(fn: Callable, *args, name: str = "the result", **kwargs):
    """Call ``fn`` with every tensor argument moved to the ``meta`` device (shapes without data) and check that
    every tensor it returns is on ``meta`` too: the function follows its input's device. Returns the result."""
    def to_meta(value):
        return value.to("meta") if isinstance(value, torch.Tensor) else value

    with refuse_cuda():
        try:
            out = fn(*[to_meta(a) for a in args], **{k: to_meta(v) for k, v in kwargs.items()})
        except CheckFailed:
            raise
        except Exception as error:
            raise CheckFailed(f"with its inputs on another device ('meta'), the function raised {type(error).__name__}: "
                              f"{str(error)[:160]}",
                              "create new tensors on the input's device (device=x.device, or torch.zeros_like(x)), "
                              "never on a device written in the code.") from None
    for k, tensor in enumerate(_tensors(out)):
        check_device(tensor, "meta", name=name if k == 0 else f"{name} (part {k + 1})")
    return out


class MetaModel(nn.Module):
    """A stand-in model whose parameters live on another device (``meta``: shapes without data), for code that must
    move its data to the *model's* device. It records the device of every input and answers zeros of shape
    (B, classes) on the CPU, so code that brings its results back with ``.cpu()`` runs on::

        far = MetaModel(784, 10)
        predict(far, x)        # x on the CPU
        far.check("predict")   # fails if predict gave the model its input anywhere but on the model's device
    """

    def __init__(self, features: int, classes: int):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(classes, features, device="meta"))
        self.register_buffer("scale", torch.empty(classes, device="meta"))
        self.classes = classes
        self.seen: list[torch.device] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.seen.append(x.device)
        return torch.zeros(x.shape[0], self.classes)

    def check(self, what: str) -> None:
        check(self.seen, f"{what} never called the model.")
        strangers = sorted({str(d) for d in self.seen if d.type != "meta"})
        check(not strangers, f"{what} gave the model its input on {', '.join(strangers)}, but the model's parameters "
              "are on another device (meta).",
              "move each batch to the model's device, x.to(next(model.parameters()).device), never to a device "
              "written in the code or to the notebook's `device`.")


@contextlib.contextmanager
def pretend_cuda(available: bool = True, namespace: dict | None = None) -> Iterator[None]:
    """Inside the block ``torch.cuda.is_available()`` answers ``available`` (and ``torch.cuda.device_count()`` 1 or 0),
    to try code that picks a device as if it ran on a machine with (or without) a GPU. Nothing runs on a GPU:
    creating a CUDA tensor still fails where there is none. Pass the notebook's ``globals()`` as ``namespace`` so
    that an answer that bound the functions themselves (``from torch.cuda import is_available``) is answered too."""
    fakes = {"is_available": lambda: available, "device_count": lambda: int(available)}
    bound = {key: fakes[name] for name in fakes for key, value in (namespace or {}).items()
             if value is getattr(torch.cuda, name)}
    saved = {key: namespace[key] for key in bound}
    with mock.patch.object(torch.cuda, "is_available", fakes["is_available"]), \
            mock.patch.object(torch.cuda, "device_count", fakes["device_count"]):
        namespace and namespace.update(bound)
        try:
            yield
        finally:
            if namespace is not None:
                namespace.update(saved)


def _tensors(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


@contextlib.contextmanager
def notebook_device_elsewhere(namespace: dict, name: str = "device", what: str = "the function") -> Iterator[None]:
    """Inside the block the notebook's global ``device`` (``namespace[name]``) is ``meta``, as on a machine whose
    accelerator is not where the data is, while the test's data and model stay on the CPU. A function that follows
    its inputs' device (or its ``device`` argument) does not notice; one that reaches for the notebook's global
    ``device`` fails with a hint, where on a CPU-only runner it would be right by accident. ``.cuda()`` is refused
    too. The global is put back afterwards::

        with notebook_device_elsewhere(globals(), what="fit"):
            fit(model, x, y, ...)
    """
    missing = object()
    saved = namespace.get(name, missing)
    namespace[name] = torch.device("meta")
    try:
        with refuse_cuda():
            yield
    except CheckFailed:
        raise
    except Exception as error:
        raise CheckFailed(f"with the data on the CPU and the notebook's `{name}` pointing at another device, {what} "
                          f"raised {type(error).__name__}: {str(error)[:160]}",
                          f"inside a function, take the device from its inputs (x.device) or from its device argument, "
                          f"never from the notebook's global `{name}`.") from None
    finally:
        if saved is missing:
            namespace.pop(name, None)
        else:
            namespace[name] = saved


# --- logits -----------------------------------------------------------------------------------------

def check_logits(out: torch.Tensor, name: str = "the output") -> None:
    """Fail if ``out`` (B, C) looks like probabilities or log-probabilities rather than raw scores."""
    out = out.detach().float()
    rows = out.reshape(-1, out.shape[-1]) if out.dim() > 1 else out.reshape(1, -1)
    if bool(((rows >= 0) & (rows <= 1)).all()) and torch.allclose(rows.sum(-1), torch.ones(rows.shape[0]), atol=1e-3):
        raise CheckFailed(f"{name} looks like probabilities: every row is in [0, 1] and sums to 1.",
                          "return raw scores (logits): CrossEntropyLoss applies the softmax itself. Remove the Softmax.")
    if bool((rows <= 0).all()) and torch.allclose(rows.logsumexp(-1), torch.zeros(rows.shape[0]), atol=1e-3):
        raise CheckFailed(f"{name} looks like log-probabilities: every row's logsumexp is 0.",
                          "return raw scores (logits): CrossEntropyLoss applies log_softmax itself.")


def check_loss_on_logits(loss_fn: Callable, logits: torch.Tensor, targets: torch.Tensor, name: str = "the loss") -> None:
    """``logits`` must be confident and right for ``targets`` (scores some 20 or more apart). A loss computed from
    logits gives about 0 for them, and about their size for ``-logits`` (confident and wrong); a loss that squashes
    its input into probabilities first (a softmax or a sigmoid before the cross-entropy) can do neither."""
    margin = float(logits.detach().abs().max())
    squashed = ("a softmax (or a sigmoid) before the cross-entropy squashes the scores into [0, 1], so the loss can "
                "neither reach 0 nor grow: give the raw logits to the loss, which applies log-softmax (log-sigmoid) itself.")
    for sign, wanted in ((1, "about 0"), (-1, f"at least {margin / 2:g}")):
        value = torch.as_tensor(loss_fn(sign * logits, targets)).detach()
        check(value.numel() == 1, f"{name} should be one number, got a tensor of shape {tuple(value.shape)}.",
              "average the per-example losses into a 0-dim tensor.")
        value = float(value)
        good = value < 1e-3 if sign > 0 else value > margin / 2
        check(good, f"{name} of confident, {'correct' if sign > 0 else 'wrong'} logits (scores {margin:g} apart) should be "
              f"{wanted}, got {value:.4g}.", squashed)


class LossSpy(nn.Module):
    """A loss function that records what it was given, to check that a training loop feeds it logits."""

    def __init__(self, loss_fn: Callable | None = None):
        super().__init__()
        self.loss_fn = loss_fn if loss_fn is not None else nn.CrossEntropyLoss()
        self.inputs: list[torch.Tensor] = []

    def forward(self, output, target):
        self.inputs.append(output.detach())
        return self.loss_fn(output, target)

    def check_logits(self, what: str) -> None:
        check(self.inputs, f"{what} never called the loss function it was given.", "compute loss_fn(logits, y).")
        for output in self.inputs:
            check_logits(output, name=f"what {what} passed to the loss function")


# --- modes and gradients ------------------------------------------------------------------------------

class ModeSpy:
    """Records, at every forward call of ``model``, whether it was in training mode and whether autograd was
    recording. ``with ModeSpy(model) as spy: ...`` then ``spy.training`` and ``spy.grad_enabled``."""

    def __init__(self, model: nn.Module):
        self.model = model
        self.training: list[bool] = []
        self.grad_enabled: list[bool] = []

    def __enter__(self) -> "ModeSpy":
        def hook(module, args):
            self.training.append(module.training)
            self.grad_enabled.append(torch.is_grad_enabled())

        self._handle = self.model.register_forward_pre_hook(hook)
        return self

    def __exit__(self, *exc) -> None:
        self._handle.remove()

    def check_training(self, wanted: bool, what: str) -> None:
        mode = "train()" if wanted else "eval()"
        check(self.training, f"{what} never called the model.")
        check(all(t == wanted for t in self.training), f"{what} ran the model in the wrong mode: it should be in {mode} "
              f"mode at every call, it was {'training' if not wanted else 'eval'} at some.",
              f"call model.{mode} at the start of {what}" + ("; dropout and BatchNorm behave differently in each mode."
                                                             if wanted else " (dropout off, BatchNorm's running statistics)."))

    def check_no_grad(self, what: str) -> None:
        check(self.grad_enabled and not any(self.grad_enabled),
              f"{what} ran the model with autograd recording: it builds a graph nobody will use.",
              f"wrap the forward passes of {what} in `with torch.no_grad():` (or torch.inference_mode()).")


def check_eval_mode(model: nn.Module, x: torch.Tensor, what: str = "the model") -> None:
    """In ``eval()`` mode ``model`` must give the same output twice for ``x`` (dropout off), the same output for its
    first two rows alone as within the whole batch (BatchNorm's running statistics, not the batch's), and leave its
    buffers as they were. ``x`` needs three rows or more; the model's mode is put back afterwards."""
    was_training = model.training
    before = [b.detach().clone() for b in model.buffers()]
    model.eval()
    try:
        with torch.no_grad():
            whole, again, part = model(x), model(x), model(x[:2])
    except CheckFailed:
        raise
    except Exception as error:
        raise CheckFailed(f"in eval() mode {what} raised {type(error).__name__}: {str(error)[:160]}",
                          "in eval() mode nothing may depend on the batch: BatchNorm uses its running statistics.") from None
    finally:
        model.train(was_training)
    check(torch.equal(whole, again), f"in eval() mode {what} gives another output each time for the same input.",
          "dropout must be off in eval() mode: use nn.Dropout, or F.dropout(x, p, training=self.training).")
    check(torch.allclose(part, whole[:2], rtol=1e-4, atol=1e-5),
          f"in eval() mode the output of {what} for a row changes with the other rows of its batch.",
          "in eval() mode BatchNorm must normalise with its running statistics: keep nn.BatchNorm1d's defaults "
          "(track_running_stats=True), and never force training=True.")
    after = [b.detach() for b in model.buffers()]
    check(len(after) == len(before) and all(torch.equal(a, b) for a, b in zip(after, before)),
          f"a forward pass of {what} in eval() mode changed its buffers (BatchNorm's running statistics).",
          "update the running statistics in training mode only (nn.BatchNorm1d does; so does "
          "F.batch_norm(..., training=self.training)).")


class Untouched:
    """Checks that code leaves a tensor it was given as it found it: the same values, ``requires_grad`` and ``.grad``::

        with Untouched(x, "x", what="grad_at"):
            grad_at(f, x)

    (When the block raises, that error is reported instead.)"""

    def __init__(self, tensor: torch.Tensor, name: str = "the input", what: str = "the function"):
        self.tensor, self.name, self.what = tensor, name, what

    def __enter__(self) -> "Untouched":
        self.values = self.tensor.detach().clone()
        self.requires_grad = self.tensor.requires_grad
        self.grad = None if self.tensor.grad is None else self.tensor.grad.detach().clone()
        return self

    def __exit__(self, kind, *exc) -> bool:
        if kind is None:
            self.check()
        return False

    def check(self) -> None:
        tensor, grad = self.tensor, self.tensor.grad
        check(tensor.requires_grad == self.requires_grad,
              f"{self.what} switched requires_grad of {self.name} from {self.requires_grad} to {tensor.requires_grad}.",
              "leave the caller's tensor alone: work on a fresh leaf, x.detach().requires_grad_(), or a copy.")
        same_grad = grad is None if self.grad is None else (grad is not None and torch.equal(grad, self.grad))
        check(same_grad, f"{self.what} changed {self.name}.grad (it was {'empty' if self.grad is None else 'set'}, now it "
              f"is {'empty' if grad is None else 'set' if self.grad is None else 'different'}).",
              "never call backward() through the caller's tensor: compute on a fresh leaf, x.detach().requires_grad_(), "
              "or with torch.autograd.grad.")
        check(torch.equal(tensor.detach(), self.values), f"{self.what} changed the values of {self.name}.",
              "work on a copy (x.detach().clone()), or put back every element you change before returning.")


def check_no_graph(tensor: torch.Tensor, name: str = "the result") -> None:
    """Fail if ``tensor`` still carries an autograd graph."""
    check(not tensor.requires_grad and tensor.grad_fn is None, f"{name} still carries its autograd graph.",
          "compute it under torch.no_grad(), or return .detach() of it.")


class RecordingSGD(torch.optim.SGD):
    """SGD that records, at every ``step()``, each parameter's gradient, the learning rate (``lrs``, of the first
    parameter group) and whether autocast was on.

    With ``lr=0`` the parameters stay put, so stepping twice on the same batch must see the same
    gradient twice: a second, larger one means gradients piled up (no ``zero_grad``).
    """

    def __init__(self, params, lr: float = 0.0, **kwargs):
        super().__init__(params, lr=lr, **kwargs)
        self.grads: list[list[torch.Tensor]] = []
        self.autocast_on: list[bool] = []
        self.lrs: list[float] = []

    def __getstate__(self):
        """A copy (``copy.deepcopy(optimizer)``, as code that works on a copy makes) keeps recording, in its own lists:
        the optimizer's own state holds the parameter groups only."""
        state = super().__getstate__()
        state.update({name: getattr(self, name) for name in ("grads", "autocast_on", "lrs") if hasattr(self, name)})
        return state

    def step(self, closure=None):
        params = [p for group in self.param_groups for p in group["params"]]
        self.grads.append([torch.zeros_like(p) if p.grad is None else p.grad.detach().clone() for p in params])
        self.autocast_on.append(any(torch.is_autocast_enabled(kind) for kind in ("cpu", "cuda")))
        self.lrs.append(float(self.param_groups[0]["lr"]))
        return super().step(closure)

    def check_steps(self, count: int, what: str) -> None:
        check(len(self.grads) == count, f"{what} called optimizer.step() {len(self.grads)} times; {count} expected.",
              "one optimizer.step() per batch, after loss.backward().")

    def check_not_accumulated(self, what: str) -> None:
        """After stepping on the same batch (with lr=0) at least twice: every step saw the same gradient."""
        check(len(self.grads) >= 2, f"{what} should step at least twice for this check.")
        first = self.grads[0]
        check(any(g.abs().sum() > 0 for g in first), f"optimizer.step() saw zero gradients in {what}.",
              "call loss.backward() before optimizer.step().")
        for k, grads in enumerate(self.grads[1:], start=2):
            check(all(torch.allclose(a, b, atol=1e-6, rtol=1e-5) for a, b in zip(first, grads)),
                  f"at step {k} of {what} the gradient includes the earlier steps': gradients are piling up.",
                  "call optimizer.zero_grad() in every step, before loss.backward().")

    def check_no_autocast(self, what: str) -> None:
        check(not any(self.autocast_on), f"in {what}, autocast was still on while the optimizer stepped.",
              "close the autocast block after computing the loss: backward and the optimizer step go outside it.")


# --- randomness ------------------------------------------------------------------------------------------

def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and bool(torch.equal(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def check_reproducible(run: Callable[[int], Any], what: str, seeds: Sequence[int] = (0, 1)) -> None:
    """``run(seed)`` must depend on its seed (or generator) only: the same seed gives the same result even
    when the global random state is disturbed in between, and another seed gives another result."""
    torch.manual_seed(1234)
    first = run(seeds[0])
    torch.manual_seed(98765)
    torch.rand(17)
    again = run(seeds[0])
    check(_same(first, again), f"{what} gave different results for the same seed once the global random state changed.",
          "draw every random number from the generator you were given (generator=...), including a DataLoader's "
          "shuffling: DataLoader(..., generator=torch.Generator().manual_seed(seed)).")
    if len(seeds) > 1:
        check(not _same(first, run(seeds[1])), f"{what} gave the same result for seeds {seeds[0]} and {seeds[1]}.",
              "use the seed: seed the generator with it rather than a fixed number.")


def check_loader_generator(loader, what: str = "the DataLoader") -> None:
    """A shuffling DataLoader must draw its order from its own generator, not the global one."""
    sampler = getattr(loader, "sampler", None)
    generator = getattr(loader, "generator", None) or getattr(sampler, "generator", None)
    shuffles = isinstance(sampler, torch.utils.data.RandomSampler)
    check(not shuffles or generator is not None, f"{what} shuffles with the global random generator.",
          "pass generator=torch.Generator().manual_seed(seed) to the DataLoader, so its order depends on the seed only.")


def check_same_history(got: Any, expected: dict, what: str, hint: str | None = None, tol: float = 1e-4) -> None:
    """``got`` must be a history (a dict of lists of numbers, as coursekit.mnist.fit returns) with the keys and lengths
    of ``expected`` and every value within ``tol`` of it: a run repeated from the same seed gives the same numbers."""
    check(isinstance(got, dict), f"{what} should give a history dict (what fit returns), got {type(got).__name__}.",
          "return the dict that coursekit.mnist.fit returns.")
    for key, values in expected.items():
        mine = got.get(key)
        check(isinstance(mine, (list, tuple)) and len(mine) == len(values),
              f"{what}: history[{key!r}] should hold {len(values)} values, got {mine!r}.")
        worst = max((abs(float(a) - float(b)) for a, b in zip(mine, values)), default=0.0)
        check(worst <= tol, f"{what} differs from a reference run with the same seed: history[{key!r}] is "
              f"{[round(float(v), 5) for v in mine]}, the reference gives {[round(float(v), 5) for v in values]}.",
              hint or "seed before building the model (set_seed(seed)), and give fit seed=seed: it shuffles the "
                      "batches with a generator seeded with it.")


# --- shapes, dtypes, ranges, stability ----------------------------------------------------------------------

def check_batch_sizes(fn: Callable[[int], torch.Tensor], expected: Callable[[int], tuple], what: str,
                      sizes: Sequence[int] = (1, 7, 129)) -> None:
    """``fn(batch)`` for each batch size must have shape ``expected(batch)``: 1, an odd size and a large one."""
    for size in sizes:
        try:
            out = fn(size)
        except CheckFailed:
            raise
        except Exception as error:
            raise CheckFailed(f"{what} for a batch of {size} raised {type(error).__name__}: {str(error)[:160]}",
                              "make it work for any batch size: no size written into the code, and no squeeze() that "
                              "also drops a batch dimension of 1.") from None
        check_shape(out, expected(size), name=f"{what} for a batch of {size}")


def check_range(tensor: torch.Tensor, low: float, high: float, name: str = "the result", hint: str | None = None) -> None:
    """Every value of ``tensor`` lies in [low, high]."""
    lo, hi = float(tensor.min()), float(tensor.max())
    check(low <= lo and hi <= high, f"{name} should lie in [{low:g}, {high:g}], found values from {lo:g} to {hi:g}.", hint)


def check_finite(tensor, name: str = "the result", hint: str | None = None, when: str = "for large inputs") -> None:
    """No inf or NaN in ``tensor`` (or a Python number); ``when`` says on what inputs, for the message."""
    value = torch.as_tensor(tensor).detach().float()
    check(bool(torch.isfinite(value).all()), f"{name} contains inf or NaN {when}.",
          hint or "rewrite the formula so that no intermediate overflows: subtract the maximum before exp, or use "
                  "torch.logsumexp / F.softplus / F.binary_cross_entropy_with_logits.")


# --- the format's constants --------------------------------------------------------------------------------

def dim_images(count: int, size: int = 28, brightest: int = 200, generator: torch.Generator | None = None) -> torch.Tensor:
    """uint8 images (count, size, size) whose brightest pixel is ``brightest`` (< 255): code that divides by the
    data's own maximum instead of the format's 255 gives other values on them."""
    generator = generator or torch.Generator().manual_seed(0)
    images = torch.randint(0, brightest, (count, size, size), dtype=torch.uint8, generator=generator)
    images.view(-1)[0] = brightest
    return images


def idx_bytes(data: torch.Tensor, *, magic: int | None = None, count: int | None = None, truncate: int = 0,
              extra: bytes = b"") -> bytes:
    """``data`` (uint8) as the bytes of an IDX file (not compressed): ``magic`` and ``count`` override the header
    (for broken files), ``truncate`` drops that many bytes from the end, ``extra`` is appended after the body."""
    data = data.to(torch.uint8)
    dims = list(data.shape)
    if count is not None:
        dims[0] = count
    magic = magic if magic is not None else 0x800 + len(dims)
    body = bytes(data.flatten().tolist())
    return struct.pack(f">I{len(dims)}I", magic, *dims) + (body[:len(body) - truncate] if truncate else body) + extra


def write_idx(path, data: torch.Tensor, *, magic: int | None = None, count: int | None = None, truncate: int = 0):
    """Write ``data`` (uint8) as a gzipped IDX file; ``magic`` and ``count`` override the header (for broken files),
    ``truncate`` drops that many bytes from the end. Returns ``path``."""
    with gzip.open(path, "wb") as f:
        f.write(idx_bytes(data, magic=magic, count=count, truncate=truncate))
    return path


@contextlib.contextmanager
def serve_dataset(dataset: str, splits: dict) -> Iterator[Any]:
    """Inside the block coursekit.data serves made-up files for ``dataset`` ("mnist" or "fashion-mnist"): ``splits``
    maps "train" and "test" to (images (N, rows, cols) uint8, labels (N,)), written as gzipped IDX files into a
    temporary folder that ``fetch_file`` (and so ``load_split``) reads as if it held the originals. With
    :func:`dim_images` this tells code that uses the format's constants (255, the sizes in the header) from code that
    only fits the original files (their brightest pixel, their 60,000 images). Yields the folder::

        with serve_dataset("fashion-mnist", {"train": (dim_images(30), labels_30), "test": (dim_images(20), labels_20)}):
            dataset = MyDataset("test")
    """
    import os
    import tempfile
    from pathlib import Path

    from . import data

    info = data.DATASETS[dataset]
    check(set(splits) == {"train", "test"}, f"serve_dataset needs both splits, 'train' and 'test'; got {sorted(splits)}.")
    real_md5sum = data.md5sum
    with tempfile.TemporaryDirectory(prefix="coursekit-served-") as folder:
        root = Path(folder)
        for split, (images, labels) in splits.items():
            write_idx(root / info.filename(split, "images"), images)
            write_idx(root / info.filename(split, "labels"), labels)

        def md5sum(path) -> str:   # the made-up files pass as the originals; every other file is checked as usual
            path = Path(path)
            return info.md5s[path.name] if path.parent == root and path.name in info.md5s else real_md5sum(path)

        with mock.patch.dict(os.environ, {info.env_var: str(root)}), mock.patch.object(data, "md5sum", md5sum):
            yield root


# --- mixed precision and clocks -------------------------------------------------------------------------------

class AutocastSpy(nn.Module):
    """Wraps a module and records, at every forward, whether autocast was on for the input's device and its dtype."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner
        self.seen: list[tuple[bool, torch.dtype]] = []

    def forward(self, x):
        kind = x.device.type
        self.seen.append((torch.is_autocast_enabled(kind), torch.get_autocast_dtype(kind)))
        return self.inner(x)

    def check_autocast(self, enabled: bool, dtype: torch.dtype, what: str) -> None:
        check(self.seen, f"{what} never called the model.")
        wanted = [(True, dtype)] * len(self.seen) if enabled else None
        if enabled:
            check(self.seen == wanted, f"{what}: the forward pass should run under {dtype} autocast; the model saw "
                  f"(enabled, dtype) = {self.seen}.", "use torch.autocast(device_type=x.device.type, dtype=dtype).")
        else:
            check(not any(on for on, _ in self.seen), f"{what}: autocast should be off here, the model saw it on.",
                  "pass enabled=enabled to torch.autocast.")


class ScalerSpy:
    """Records the order of a GradScaler's calls: ``scale``, ``step``, ``update`` (and ``unscale_``)."""

    def __init__(self, scaler):
        self.scaler, self.calls = scaler, []
        for name in ("scale", "step", "update", "unscale_"):
            setattr(self, name, self._recorded(name))

    def _recorded(self, name):
        def call(*args, **kwargs):
            self.calls.append(name)
            return getattr(self.scaler, name)(*args, **kwargs)
        return call

    def __getattr__(self, name):
        return getattr(self.scaler, name)

    def check_order(self, steps: int, what: str) -> None:
        kept = [c for c in self.calls if c != "unscale_"]
        check(kept == ["scale", "step", "update"] * steps,
              f"{what} called the scaler as {kept}; each step should be scale, step, update.",
              "scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update(), in that order, once per step.")


class ClockSpy:
    """Pretends CUDA is there and records, in order, each synchronize and each call of the timed function:
    ``with ClockSpy() as clock: samples_per_second(clock.tick, ...)`` then ``clock.check_synchronized(...)``."""

    def __init__(self):
        self.events: list[str] = []

    def tick(self, *args, **kwargs):
        self.events.append("call")

    def __enter__(self) -> "ClockSpy":
        self._stack = contextlib.ExitStack()
        self._stack.enter_context(mock.patch.object(torch.cuda, "is_available", return_value=True))
        self._stack.enter_context(mock.patch.object(torch.cuda, "synchronize",
                                                    lambda *args, **kwargs: self.events.append("sync")))
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def check_synchronized(self, warmup: int, what: str) -> None:
        calls = [k for k, e in enumerate(self.events) if e == "call"]
        check(len(calls) > warmup, f"{what} called the function {len(calls)} times.")
        check("sync" in self.events[calls[warmup - 1] + 1:calls[warmup]] if warmup else "sync" in self.events[:calls[0]],
              f"{what} did not synchronize the device before starting the clock, so queued warm-up work was timed.",
              "synchronize(device) (or use Timer/measure, which do) before reading the clock the first time.")
        check("sync" in self.events[calls[-1] + 1:],
              f"{what} read the clock without synchronizing after the last timed call, so it stopped too early.",
              "synchronize(device) before reading the clock; Timer(device) and measure(...) do this for you.")


# --- small things tests need -----------------------------------------------------------------------------

def _name_of(error: BaseException) -> str:
    module = type(error).__module__
    return type(error).__name__ if module == "builtins" else f"{module}.{type(error).__name__}"


def expect_error(fn: Callable[[], Any], error: type[BaseException] | tuple[type[BaseException], ...],
                 words: Sequence[str], what: str, hint: str | None = None) -> BaseException:
    """``fn()`` must raise ``error`` (a type or a tuple of types) whose message contains one of ``words``,
    in any case (any message when ``words`` is empty); returns it, for checks of its own. Another
    exception, or none, fails with ``hint``."""
    expected = " or ".join(e.__name__ for e in (error if isinstance(error, tuple) else (error,)))
    hint = hint or "check the input before using it, and raise with a message that says what is wrong."
    try:
        fn()
    except error as raised:
        check(not words or any(w in str(raised).lower() for w in words),
              f"for {what} the {type(raised).__name__} should mention '{words[0] if words else ''}'; it says: {raised}", hint)
        return raised
    except Exception as other:
        raise CheckFailed(f"{what} should raise {expected}, but it raised {_name_of(other)}: {other}", hint) from None
    else:
        raise CheckFailed(f"{what} was accepted; it should raise {expected}.", hint)


def runs(fn: Callable[[], Any], what: str, hint: str) -> Any:
    """``fn()``'s result; an exception fails the check with what was tried, what it raised, and ``hint``."""
    try:
        return fn()
    except CheckFailed:
        raise
    except Exception as error:
        raise CheckFailed(f"{what} failed: {_name_of(error)}: {error}", hint) from None


def snapshot(model: nn.Module, optimizer: torch.optim.Optimizer | None = None) -> dict:
    """Deep copies of the model's (and optimizer's) state, for :func:`check_restored`."""
    return {"model": copy.deepcopy(model.state_dict()),
            "optimizer": copy.deepcopy(optimizer.state_dict()) if optimizer is not None else None}


def check_restored(model: nn.Module, optimizer: torch.optim.Optimizer | None, before: dict, what: str) -> None:
    """The model's weights and buffers, and the optimizer's learning rates and state, equal the
    :func:`snapshot` ``before``: ``what`` (a sweep, a probe) left no trace."""
    for name, value in model.state_dict().items():
        check(torch.equal(value, before["model"][name]), f"{what}: afterwards the weight {name} has changed.",
              "model.state_dict() returns the live tensors: save copy.deepcopy(model.state_dict()) and load it back, "
              "also when you stop early.")
    if optimizer is None:
        return
    now, old = optimizer.state_dict(), before["optimizer"]
    rates = lambda state: [group["lr"] for group in state["param_groups"]]  # noqa: E731
    check(rates(now) == rates(old), f"{what}: the optimizer's learning rate is {rates(now)} afterwards, it was {rates(old)}.",
          "restore the optimizer's state_dict as well.")
    check(sorted(now["state"]) == sorted(old["state"]),
          f"{what}: the optimizer holds state for {len(now['state'])} parameters afterwards, {len(old['state'])} before.",
          "a step fills the optimizer's state (Adam: step count, exp_avg, exp_avg_sq): save "
          "copy.deepcopy(optimizer.state_dict()) and load it back.")
    for key, entries in old["state"].items():
        for field, value in entries.items():
            check(torch.equal(torch.as_tensor(now["state"][key][field]), torch.as_tensor(value)),
                  f"{what}: the optimizer's {field} for parameter {key} changed.",
                  "optimizer.state_dict() holds references to tensors the optimizer updates in place: save a deep copy.")


class NanLossFrom:
    """Cross-entropy that turns NaN from its ``k``-th call on, as a loss does once the weights overflow."""

    def __init__(self, k: int):
        self.k, self.calls = k, 0

    def __call__(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        loss = nn.functional.cross_entropy(logits, target)
        return loss * float("nan") if self.calls >= self.k else loss


def labelled_points(count: int, rule: Callable[[torch.Tensor], torch.Tensor], generator: torch.Generator | None = None,
                    low: float = -3.0, high: float = 3.0, dims: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    """``count`` float32 points drawn uniformly from the box [low, high]^dims, and their int64 labels ``rule(points)``:
    data whose class boundary the test chooses, independent of any exercise's own data generator."""
    generator = generator or torch.Generator().manual_seed(0)
    points = low + (high - low) * torch.rand(count, dims, generator=generator)
    return points, rule(points).long()


def twin(module: nn.Module) -> nn.Module:
    """An independent copy of ``module`` with the same weights, to step by hand beside the student's code."""
    return copy.deepcopy(module)
