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
    "device": ("DeviceProbe", "run_on_meta", "refuse_cuda"),
    "logits": ("check_logits", "LossSpy"),
    "modes": ("ModeSpy",),
    "grad": ("RecordingSGD", "check_no_graph", "ModeSpy"),
    "randomness": ("check_reproducible", "check_loader_generator"),
    "format": ("dim_images", "write_idx"),
    "amp": ("AutocastSpy", "RecordingSGD", "ScalerSpy", "ClockSpy"),
    "stability": ("check_finite",),
}

__all__ = ["CLASSES", "PROBES", "refuse_cuda", "DeviceProbe", "run_on_meta", "check_logits", "LossSpy", "ModeSpy",
           "RecordingSGD", "check_no_graph", "check_reproducible", "check_loader_generator", "check_batch_sizes",
           "check_range", "check_finite", "dim_images", "write_idx", "AutocastSpy", "ScalerSpy", "ClockSpy",
           "expect_error", "twin"]


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
    """

    def __init__(self) -> None:
        self.device = torch.device("cpu", 0)
        self.asked: list[torch.device] = []

    def _recording(self, original):
        probe = self

        def to(this, *args, **kwargs):
            wanted = _device_of(args, kwargs)
            if wanted is not None:
                probe.asked.append(wanted)
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
        strangers = sorted({str(d) for d in self.asked if d != self.device})
        check(not strangers, f"{what} moved data to {', '.join(strangers)}, a device it was not given "
              f"(it was given {self.device}).",
              "never write 'cpu' or 'cuda' inside a function: use the device argument, or the input's x.device.")


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


def _tensors(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


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


def check_no_graph(tensor: torch.Tensor, name: str = "the result") -> None:
    """Fail if ``tensor`` still carries an autograd graph."""
    check(not tensor.requires_grad and tensor.grad_fn is None, f"{name} still carries its autograd graph.",
          "compute it under torch.no_grad(), or return .detach() of it.")


class RecordingSGD(torch.optim.SGD):
    """SGD that records, at every ``step()``, each parameter's gradient and whether autocast was on.

    With ``lr=0`` the parameters stay put, so stepping twice on the same batch must see the same
    gradient twice: a second, larger one means gradients piled up (no ``zero_grad``).
    """

    def __init__(self, params, lr: float = 0.0, **kwargs):
        super().__init__(params, lr=lr, **kwargs)
        self.grads: list[list[torch.Tensor]] = []
        self.autocast_on: list[bool] = []

    def step(self, closure=None):
        params = [p for group in self.param_groups for p in group["params"]]
        self.grads.append([torch.zeros_like(p) if p.grad is None else p.grad.detach().clone() for p in params])
        self.autocast_on.append(any(torch.is_autocast_enabled(kind) for kind in ("cpu", "cuda")))
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


# --- shapes, dtypes, ranges, stability ----------------------------------------------------------------------

def check_batch_sizes(fn: Callable[[int], torch.Tensor], expected: Callable[[int], tuple], what: str,
                      sizes: Sequence[int] = (1, 7, 129)) -> None:
    """``fn(batch)`` for each batch size must have shape ``expected(batch)``: 1, an odd size and a large one."""
    for size in sizes:
        check_shape(fn(size), expected(size), name=f"{what} for a batch of {size}")


def check_range(tensor: torch.Tensor, low: float, high: float, name: str = "the result", hint: str | None = None) -> None:
    """Every value of ``tensor`` lies in [low, high]."""
    lo, hi = float(tensor.min()), float(tensor.max())
    check(low <= lo and hi <= high, f"{name} should lie in [{low:g}, {high:g}], found values from {lo:g} to {hi:g}.", hint)


def check_finite(tensor, name: str = "the result", hint: str | None = None) -> None:
    """No inf or NaN in ``tensor`` (or a Python number)."""
    value = torch.as_tensor(tensor).detach().float()
    check(bool(torch.isfinite(value).all()), f"{name} contains inf or NaN for large inputs.",
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


def write_idx(path, data: torch.Tensor, *, magic: int | None = None, count: int | None = None, truncate: int = 0):
    """Write ``data`` (uint8) as a gzipped IDX file; ``magic`` and ``count`` override the header (for broken files),
    ``truncate`` drops that many bytes from the end. Returns ``path``."""
    data = data.to(torch.uint8)
    dims = list(data.shape)
    if count is not None:
        dims[0] = count
    magic = magic if magic is not None else 0x800 + len(dims)
    body = bytes(data.flatten().tolist())
    payload = struct.pack(f">I{len(dims)}I", magic, *dims) + (body[:len(body) - truncate] if truncate else body)
    with gzip.open(path, "wb") as f:
        f.write(payload)
    return path


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

def expect_error(fn: Callable[[], Any], error: type[BaseException], words: Sequence[str], what: str) -> None:
    """``fn()`` must raise ``error`` whose message contains one of ``words``."""
    try:
        fn()
    except error as raised:
        check(any(w in str(raised).lower() for w in words),
              f"for {what} the {error.__name__} should mention '{words[0]}'; it says: {raised}")
    else:
        raise CheckFailed(f"{what} was accepted; it should raise {error.__name__}.",
                          "check the input before using it, and raise with a message that says what is wrong.")


def twin(module: nn.Module) -> nn.Module:
    """An independent copy of ``module`` with the same weights, to step by hand beside the student's code."""
    return copy.deepcopy(module)
