"""Probes for the notebooks' hidden tests: each one catches a class of mistake the course teaches about.

Hidden tests decide nothing in the kernel: they call the student's code and send what it returned, or
what an instrument of this module saw, with ``coursekit.hidden``; the grader judges it outside. The
instruments here (spies, made-up data, inputs on another device) make a mistake change what comes back.

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
evaluation a function evaluated away from where it was asked (a perturbed element not put back)
aggregation a sum, a mean over the wrong count, or a dropped last batch where a (weighted) mean belongs
boundaries a check off at its limit: < for <=, one item, zero rows
provenance a figure from the wrong data (training data where test or validation data belong)
scaler     a GradScaler missing where float16 needs it, or changing what a bfloat16/CPU/disabled step does
autocast-device autocast's device_type written in ('cpu', 'cuda') instead of taken from the input
nesting    one level of a structure handled, not a structure inside a structure (a dict inside a list)
result-device a result left on the wrong device where the words say where it lives ('on the CPU')
leakage    held-out data learned from or chosen on (train + test, an epoch or a rate picked by test accuracy)
========== ===============================================================================

Nothing here judges an answer: the old ``check_*`` helpers that decided in the kernel are gone, and each
instrument only records (docs/hidden-tests.md says what to send with which call). What still raises
:class:`coursekit.checks.CheckFailed` is a refusal, such as :func:`refuse_cuda`'s: coursekit.hidden records that
error as the result of the call it interrupted. Public PyTorch only.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import struct
from typing import Any, Callable, Iterator, Sequence
from unittest import mock

import torch
from torch import __future__ as torch_future   # documented: https://pytorch.org/docs/stable/future_mod.html
from torch import nn

from .checks import CheckFailed, check

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
    "evaluation": "a function evaluated away from where it was asked (a perturbed element not put back)",
    "aggregation": "a sum, a mean over the wrong count, or a dropped last batch where a (weighted) mean belongs",
    "boundaries": "a check off at its limit (< for <=, one item, zero rows)",
    "provenance": "a figure from the wrong data (training data where test or validation data belong)",
    "scaler": "a GradScaler missing where float16 needs it, or changing a bfloat16, CPU or disabled step",
    "autocast-device": "autocast's device_type written in instead of taken from the input",
    "nesting": "one level of a structure handled, not a structure inside a structure (a dict inside a list)",
    "result-device": "a result left on the wrong device where the words say where it lives ('on the CPU')",
    "leakage": "held-out data learned from or chosen on (train + test, an epoch or a rate picked by test accuracy)",
}
# What a hidden test of each class calls (tests/test_promises.py checks that the test cells of a row that names a
# class call one of them). ``hidden.*`` are coursekit.hidden's functions; the others are instruments of this module.
PROBES = {
    "shapes": ("hidden.shapes",),
    "dtype": ("hidden.same", "hidden.like"),
    "device": ("DeviceProbe", "MetaModel", "hidden.on_meta", "refuse_cuda", "pretend_cuda", "notebook_device_elsewhere",
               "devices_given"),
    "logits": ("LossSpy", "confident_logits"),
    "modes": ("ModeSpy", "eval_outputs"),
    "grad": ("RecordingSGD", "ModeSpy", "grad=True", "NoGradOnly"),
    "randomness": ("reproducibility", "loader_generator"),
    "format": ("dim_images", "serve_dataset", "write_idx", "idx_bytes"),
    "amp": ("AutocastSpy", "RecordingSGD", "ScalerSpy", "ClockSpy", "PretendClock", "precision_probe", "MatmulSGD"),
    "stability": ("hidden.same", "hidden.check"),
    "evaluation": ("EvaluationSpy", "cross_terms"),
    "aggregation": ("ScriptedLoss", "batches_of"),
    "boundaries": ("hidden.same", "hidden.raises"),
    "provenance": ("batches_of", "ScriptedLoss", "serve_dataset", "hidden.same"),
    "scaler": ("ScalerSpy", "RecordingSGD", "MatmulSGD"),
    "autocast-device": ("hidden.on_meta", "AutocastSpy"),
    "nesting": ("nested", "state_dict"),
    "result-device": ("FarDevice", "hidden.on_meta"),
    "leakage": ("held_out_use", "held_out_logits", "hidden.same", "hidden.check"),
}

__all__ = ["CLASSES", "PROBES", "MetaModel", "serve_dataset", "refuse_cuda", "DeviceProbe", "LossSpy", "ModeSpy",
           "RecordingSGD", "dim_images", "write_idx", "AutocastSpy", "ScalerSpy", "ClockSpy", "PretendClock", "NanLossFrom", "twin",
           "pretend_cuda", "notebook_device_elsewhere", "idx_bytes", "labelled_points", "EvaluationSpy", "cross_terms",
           "ScriptedLoss", "batches_of", "confident_logits", "eval_outputs", "reproducibility", "loader_generator",
           "NoGradOnly", "MatmulSGD", "precision_probe", "FarDevice", "nested", "held_out_use", "held_out_logits"]


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
    """Run code with a device that is not the default one, and record which devices it asks for.

    ``probe.device`` is ``torch.device("cpu", 0)``: the same hardware as ``"cpu"``, but a different
    object, so ``x.to(device)`` and ``x.to("cpu")`` can be told apart by what they ask for. Inside the
    ``with`` block the device of every ``.to(...)`` of a tensor or a module is recorded in ``asked``, and
    ``.cuda()`` is refused (see :func:`refuse_cuda`). Moves made by coursekit's own helpers (``InMemoryBatches``
    keeps its shuffled order on the data's device, say) are in ``asked`` only; ``asked_outside_coursekit``
    holds those of the code under test. A hidden test sends them with ``hidden.observed``::

        with DeviceProbe() as probe:
            train_step(model, batch, optimizer, loss_fn, probe.device)
        hidden.observed("the devices train_step moved data to", sorted({str(d) for d in probe.asked_outside_coursekit}))
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


class MetaModel(nn.Module):
    """A stand-in model whose parameters live on another device (``meta``: shapes without data), for code that must
    move its data to the *model's* device. It records in ``seen`` the device of every input, and answers zeros of
    shape (B, classes) on the CPU, so code that brings its results back with ``.cpu()`` runs on. A hidden test sends
    the devices with ``hidden.same`` (the solution gives its model every input on ``meta``)::

        far = MetaModel(784, 10)
        predict(far, x)        # x on the CPU
        hidden.same("the devices predict gave a model on another device", [d.type for d in far.seen])
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


# --- where a result lives ----------------------------------------------------------------------------------------

class _FarTensor(torch.Tensor):
    """A tensor on FarDevice's second device: a CPU tensor underneath (the same values and autograd history), whose
    type says where it lives. Operations on it give tensors of this type (torch.Tensor's own subclass rule)."""


def _tensors_in(value: Any, found: list) -> list:
    if isinstance(value, torch.Tensor):
        found.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _tensors_in(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _tensors_in(item, found)
    return found


def _far(value: Any, inputs: Sequence[Any] = ()) -> Any:
    """``value`` with every tensor in it on the second device (an input returned as it is, by an in-place operation,
    keeps its place)."""
    if any(value is given for given in inputs):
        return value
    if isinstance(value, torch.Tensor):
        return value if isinstance(value, _FarTensor) else value.as_subclass(_FarTensor)
    if type(value) in (list, tuple):
        return type(value)(_far(item, inputs) for item in value)
    return value


_COPIED_OUT = {torch.Tensor.item, torch.Tensor.tolist, torch.Tensor.__float__, torch.Tensor.__int__,
               torch.Tensor.__index__, torch.Tensor.__bool__}
_MAY_MIX = {torch.Tensor.copy_, torch.Tensor.__getitem__, torch.Tensor.__setitem__,   # as CUDA allows it
            torch.Tensor.fill_}   # fill_ reads its 0-d value with .item(), wherever it lives


def _written(func: Any, args: Sequence[Any], kwargs: dict) -> list:
    """The tensors a call writes into: ``out=``, and the tensor an in-place operation changes (``add_``, and ``+=``,
    which reaches here as ``add_``)."""
    written = _tensors_in(kwargs.get("out"), [])
    if args and getattr(func, "__name__", "").endswith("_") and not getattr(func, "__name__", "").endswith("__"):
        written += _tensors_in(args[0], [])
    return written


def _mixed(here: torch.Tensor) -> None:
    raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                       f"{FarDevice.device.type} and {here.device}!")


class _FarMode(torch.overrides.TorchFunctionMode):
    """FarDevice's rules, applied to every PyTorch call inside its block (see FarDevice)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if getattr(func, "__self__", None) is torch.Tensor.device and isinstance(args[0], _FarTensor):
            return FarDevice.device
        if func in (torch.Tensor.to, torch.Tensor.cpu, torch.Tensor.cuda):
            return self._move(func, args, kwargs)
        if func is torch.Tensor.__deepcopy__ and isinstance(args[0], _FarTensor):   # copy.deepcopy(model.state_dict())
            plain = args[0].as_subclass(torch.Tensor)
            return plain.detach().clone().requires_grad_(plain.requires_grad).as_subclass(_FarTensor)
        tensors = _tensors_in([args, kwargs], [])
        far = any(isinstance(t, _FarTensor) for t in tensors)
        if far and func is torch.Tensor.numpy:
            raise TypeError("can't convert a tensor on another device to numpy: use Tensor.cpu() to copy it to the "
                            "CPU first.")
        if far and func in _COPIED_OUT:
            return func(args[0].as_subclass(torch.Tensor), *args[1:], **kwargs)
        # A factory (torch.zeros(..., device=...)) asked for the second device; not Module.to's parsing of its own
        # arguments (model.to(device=...), torch's `_parse_to`: known here by its name, as the course's code calls no
        # private PyTorch API), which must keep the device it was given.
        made_there = getattr(func, "__name__", "") != "_parse_to" and \
            _device_of((), {"device": kwargs.get("device")}) == FarDevice.device
        if made_there:
            kwargs = {**kwargs, "device": "cpu"}
        # A 0-d CPU tensor may be read beside CUDA tensors, but never written: ``cpu_total += loss`` (loss on the GPU)
        # raises there before it changes anything, so here too.
        written = [t for t in _written(func, args, kwargs) if not isinstance(t, _FarTensor)]
        if far and written and func not in _MAY_MIX:
            _mixed(written[0])
        result = func(*args, **kwargs)
        here = [t for t in tensors if not isinstance(t, _FarTensor) and t.dim() > 0]
        if far and here and func not in _MAY_MIX and _tensors_in(result, []):   # a computation, not a question
            _mixed(here[0])
        return _far(result, args) if far or made_there else result

    @staticmethod
    def _move(func, args, kwargs):
        tensor, rest = args[0], list(args[1:])
        kwargs = dict(kwargs)
        if func is torch.Tensor.cuda:
            _refuse()
        if func is torch.Tensor.cpu:
            target = torch.device("cpu")
        elif rest and isinstance(rest[0], torch.Tensor):   # x.to(other): other's device and dtype
            other = rest.pop(0)
            target = FarDevice.device if isinstance(other, _FarTensor) else other.device
            rest.insert(0, other.dtype)
        else:
            target = _device_of((), {"device": kwargs.pop("device", None)})
            if target is None and rest and _device_of((rest[0],), {}) is not None:
                target = _device_of((rest.pop(0),), {})
        if target is None:
            return func(*args, **kwargs)   # a dtype only: it stays where it is
        if target.type == "cuda":
            _refuse()
        plain = tensor.as_subclass(torch.Tensor) if isinstance(tensor, _FarTensor) else tensor
        if target == FarDevice.device:
            moved = plain.to(None, *rest, **kwargs)   # its dtype (and copy) asked for, on the same memory
            if moved is plain:   # already there, or a copy to be made
                return tensor if isinstance(tensor, _FarTensor) else plain.clone().as_subclass(_FarTensor)
            return moved.as_subclass(_FarTensor)
        if not isinstance(tensor, _FarTensor):
            return func(*args, **kwargs)
        moved = plain.to(target, *rest, **kwargs)
        return plain.clone() if moved is plain else moved   # a copy, as from a GPU


class FarDevice:
    """A second device with real numbers, for a CPU runner: inside ``with FarDevice() as far:`` the ``meta`` device
    stands for an accelerator. A tensor or a module moved there (``far.move(model)``, or code that calls
    ``x.to(torch.device("meta"))``, ``model.to(...)``, ``torch.zeros(..., device=...)``) keeps its values and its
    gradients; its ``.device`` says ``meta``; ``.cpu()``, ``.to("cpu")``, ``.item()`` and ``.tolist()`` copy it back;
    ``copy.deepcopy`` copies it there; ``.numpy()`` refuses it, as it refuses a CUDA tensor; an operation that mixes it
    with a CPU tensor (other than a 0-d one it only reads: writing into a 0-d CPU tensor, ``cpu_total += loss``, is
    refused as on a GPU) raises the same-device error; ``.cuda()`` is refused. So code that forgets to bring a result back to the
    CPU, or to move its data to the model's device, behaves as it would on a GPU machine, where ``hidden.on_meta``
    (shapes without numbers) cannot follow the code that far.

    Send what came back with ``far.located(value)`` after the block: tensors still on the second device become
    ``meta`` tensors (shape, dtype and device, no values), CPU tensors keep their values::

        with testing.FarDevice() as far:
            model = far.move(fresh_model)            # the model on the second device, x on the CPU
            predictions = predict(model, x)
        hidden.same("predict with the model on another device: the predictions, on the CPU", far.located(predictions))
    """

    device = torch.device("meta")

    def __init__(self) -> None:
        self.active = False

    def move(self, value: Any) -> Any:
        """A tensor (a copy), a module (its parameters and buffers, in place: the same Parameter objects) or a
        tuple, list or dict of them, on the second device."""
        if isinstance(value, nn.Module):
            for module in value.modules():
                for name, param in module._parameters.items():
                    if param is not None and not isinstance(param, _FarTensor):
                        there = nn.Parameter(param.detach().clone().as_subclass(_FarTensor), param.requires_grad)
                        torch.utils.swap_tensors(param, there)
                for name, buffer in module._buffers.items():
                    if buffer is not None and not isinstance(buffer, _FarTensor):
                        module._buffers[name] = buffer.clone().as_subclass(_FarTensor)
            return value
        if isinstance(value, torch.Tensor):
            return value if isinstance(value, _FarTensor) else value.detach().clone().as_subclass(_FarTensor)
        if type(value) in (list, tuple):
            return type(value)(self.move(item) for item in value)
        if type(value) is dict:
            return {key: self.move(item) for key, item in value.items()}
        return value

    def located(self, value: Any) -> Any:
        """``value`` as the grader should see it: each tensor on the second device a ``meta`` tensor of its shape and
        dtype, every other value as it is (tuples, lists and dicts looked into)."""
        check(not self.active, "FarDevice.located(...) reads results after the `with` block, not inside it.")
        if isinstance(value, _FarTensor):
            return torch.empty(value.shape, dtype=value.dtype, device="meta")
        if type(value) in (list, tuple):
            return type(value)(self.located(item) for item in value)
        if type(value) is dict:
            return {key: self.located(item) for key, item in value.items()}
        return value

    def __enter__(self) -> "FarDevice":
        self._swap = torch_future.get_swap_module_params_on_conversion()
        torch_future.set_swap_module_params_on_conversion(True)   # model.to(...) keeps its Parameter objects
        self._mode = _FarMode()
        self._mode.__enter__()
        self.active = True
        return self

    def __exit__(self, *exc) -> None:
        self.active = False
        self._mode.__exit__(*exc)
        torch_future.set_swap_module_params_on_conversion(self._swap)


# --- structures inside structures -----------------------------------------------------------------------------

def nested(first: Any, second: Any, third: Any, fourth: Any, fifth: Any) -> list:
    """Five values arranged as a batch of several kinds of data can come, one structure inside another::

        [{"input": first, "extra": (second, {"mask": third})}, ([fourth], fifth)]

    a dict inside a list, a tuple and a dict inside that dict, a list inside a tuple. Code that handles one level
    only (a tuple of tensors, a dict of tensors) meets a container where it expects a tensor; send what it makes of
    them with ``hidden.same``."""
    return [{"input": first, "extra": (second, {"mask": third})}, ([fourth], fifth)]


# --- what a model learned from, and what it was chosen on -------------------------------------------------------

def _parts(data, splits: dict) -> frozenset | None:
    """The names of the splits whose rows, together, are exactly the rows ``data`` (a Fingerprint) describes: the
    same tensor, or equal fingerprints of the splits added up; None for rows that are no such combination."""
    if data is None:
        return None
    for name, print_ in splits.items():
        if data.identity is not None and data.identity == print_.identity:
            return frozenset([name])
    names = list(splits)
    for mask in range(1, 2 ** len(names)):
        chosen = [names[k] for k in range(len(names)) if mask >> k & 1]
        total = splits[chosen[0]]
        for name in chosen[1:]:
            total = total + splits[name]
        if data.same_rows(total):
            return frozenset(chosen)
    return None


def held_out_use(run: Any, *, training: tuple, test: tuple, validation: tuple | None = None) -> dict[str, bool]:
    """What the course's training helpers noted of ``run`` (a model, or a history ``coursekit.mnist.fit`` returned) in
    their ledger, as facts in plain words, for a hidden test to send with ``hidden.observed``: whether it was trained by
    them at all, whether test (or validation) rows were among its training data, whether test rows were behind a choice
    (fit's measurement after every epoch, or an evaluation while training went on), and whether every epoch trained on
    the training split and nothing else. Each split is ``(x, y)``; rows are recognised by their fingerprints
    (:class:`coursekit.mnist.Fingerprint`: any order, any copy, ``torch.cat`` of several splits) or by the tensor
    itself. The ledger lives in the student's process: an observation, best effort::

        hidden.observed("what the model was trained and chosen on", testing.held_out_use(
            model, training=(x_tr, y_tr), validation=(x_val, y_val), test=(x_test, y_test)))
    """
    from . import mnist

    events = mnist.ledger(run) or []
    named = {"training": training, "validation": validation, "test": test}
    splits = {name: mnist.fingerprint(*data) for name, data in named.items() if data is not None}
    trained = [_parts(data, splits) for what, data in events if what == "trained"]
    last_training = max((k for k, (what, _) in enumerate(events) if what == "trained"), default=-1)
    chosen = [_parts(data, splits) for k, (what, data) in enumerate(events)
              if what == "chosen" or (what == "measured" and k < last_training)]
    among = {name: any(p is not None and name in p for p in trained) for name in ("test", "validation")}
    facts = {"trained by the course's fit or train_one_epoch": bool(trained),
             "test rows among its training data": among["test"]}
    if validation is not None:
        facts["validation rows among its training data"] = among["validation"]
    facts["test rows behind a choice (measured after each epoch, or while training went on)"] = \
        any(p is not None and "test" in p for p in chosen)
    facts["every epoch trained on the training split alone"] = bool(trained) and all(p == {"training"} for p in trained)
    return facts


def held_out_logits(model: nn.Module, splits: dict[str, tuple], batch_size: int = 2000) -> dict[str, torch.Tensor]:
    """``model``'s logits (N, classes) for the images of each split (``{name: (x, y)}``), in eval mode without a graph,
    on the CPU; the model's mode is put back. A model scores about the same on two held-out sets it never saw, and
    far better on one it trained on: a GRADER rule compares the accuracies (with the reference run's labels)."""
    was_training = model.training
    device = next(iter(model.parameters())).device
    model.eval()
    try:
        with torch.no_grad():
            return {name: torch.cat([model(xb.to(device)).float().cpu() for xb in x.split(batch_size)])
                    for name, (x, _) in splits.items()}
    finally:
        model.train(was_training)


# --- logits -----------------------------------------------------------------------------------------

class LossSpy(nn.Module):
    """A loss function (``nn.CrossEntropyLoss()`` unless given another) that records in ``inputs`` a detached copy of
    every output it was given. A hidden test sends them with ``hidden.check(..., rule="logits")`` (raw scores, not
    probabilities), or with ``hidden.observed``."""

    def __init__(self, loss_fn: Callable | None = None):
        super().__init__()
        self.loss_fn = loss_fn if loss_fn is not None else nn.CrossEntropyLoss()
        self.inputs: list[torch.Tensor] = []

    def forward(self, output, target):
        self.inputs.append(output.detach())
        return self.loss_fn(output, target)


# --- modes and gradients ------------------------------------------------------------------------------

class ModeSpy:
    """Records, at every forward call of ``model``, whether it was in training mode (``training``) and whether
    autograd was recording (``grad_enabled``): ``with ModeSpy(model) as spy: ...``, then a hidden test sends
    ``spy.training`` and ``spy.grad_enabled`` with ``hidden.observed``. Where a value can show the mode, prefer it
    (:func:`eval_outputs`, :class:`NoGradOnly`)."""

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


class RecordingSGD(torch.optim.SGD):
    """SGD that records, at every ``step()``, each parameter's gradient (``grads``), the learning rate (``lrs``, of
    the first parameter group) and whether autocast was on (``autocast_on``). A hidden test sends these with
    ``hidden.observed``; with ``lr > 0`` the parameters afterwards are a value for ``hidden.same``, which piled-up
    gradients (no ``zero_grad``) or a step too many change.
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
    """Wraps a module and records in ``seen``, at every forward, whether autocast was on for the input's device and its
    dtype, as ``(enabled, dtype)``; a hidden test sends ``seen`` with ``hidden.observed``. Where a value can show the
    precision, prefer it (:func:`precision_probe`)."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner
        self.seen: list[tuple[bool, torch.dtype]] = []

    def forward(self, x):
        kind = x.device.type
        self.seen.append((torch.is_autocast_enabled(kind), torch.get_autocast_dtype(kind)))
        return self.inner(x)


class ScalerSpy:
    """Stands in for a GradScaler and records in ``calls`` the order of its calls: ``scale``, ``step``, ``update`` (and
    ``unscale_``); a hidden test sends ``calls`` with ``hidden.observed``."""

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


class ClockSpy:
    """Pretends CUDA is there and records in ``events``, in order, each synchronize (``"sync"``) and each call of the
    timed function (``"call"``): ``with ClockSpy() as clock: samples_per_second(clock.tick, ...)``, then a hidden test
    sends ``clock.events`` with ``hidden.observed``, or with ``hidden.check(..., rule=..., observation=True)``."""

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


class PretendClock:
    """A clock the test sets, for timing code: ``with PretendClock(durations, device) as clock:
    samples_per_second(clock.tick, 8, device)``, then send what the code returned with ``hidden.same``.

    The ``k``-th call of ``clock.tick`` is work of ``durations[k]`` seconds (a call past the list is work of
    ``extra`` seconds), and every clock of the ``time`` module (``perf_counter``, ``monotonic``, ``time`` and their
    ``_ns`` forms, ``timeit.default_timer``, and any of them imported by name into ``namespace``) reads a pretend time
    that only that work moves. So a rate comes out exact (``batch_size / duration``), and which calls were timed shows
    in its value. On a ``cuda`` device (CUDA pretended, as ``ClockSpy`` does) the work runs as a GPU runs it, after the
    call returns: the clock reaches the end of the queued work only when the device is synchronized. Code that reads
    the clock without synchronizing first times work queued earlier (the warm-up calls), or none at all: its rate
    differs, a value, where ``ClockSpy`` can only observe."""

    START = 1000.0          # seconds on the pretend clock when the block starts

    def __init__(self, durations: Sequence[float], device: torch.device | str = "cpu", *, extra: float = 1.0,
                 namespace: dict | None = None):
        self.durations, self.extra, self.namespace = [float(d) for d in durations], float(extra), namespace
        self.queued = torch.device(device).type == "cuda"
        self.calls, self.now, self.busy_until = 0, self.START, self.START

    def tick(self, *args, **kwargs) -> None:
        work = self.durations[self.calls] if self.calls < len(self.durations) else self.extra
        self.calls += 1
        if self.queued:   # the device runs it after the work queued before it; the host goes on at once
            self.busy_until = max(self.now, self.busy_until) + work
        else:
            self.now += work

    def _synchronize(self, *args, **kwargs) -> None:
        self.now = max(self.now, self.busy_until)

    def _seconds(self) -> float:
        return self.now

    def _nanoseconds(self) -> int:
        return round(self.now * 1e9)

    def __enter__(self) -> "PretendClock":
        import sys
        import time

        clocks = {"perf_counter": self._seconds, "monotonic": self._seconds, "time": self._seconds,
                  "perf_counter_ns": self._nanoseconds, "monotonic_ns": self._nanoseconds, "time_ns": self._nanoseconds}
        originals = {getattr(time, name): pretend for name, pretend in clocks.items()}
        self._stack = contextlib.ExitStack()
        for name, pretend in clocks.items():
            self._stack.enter_context(mock.patch.object(time, name, pretend))
        if "timeit" in sys.modules:
            self._stack.enter_context(mock.patch.object(sys.modules["timeit"], "default_timer", self._seconds))
        if self.namespace is not None:   # `from time import perf_counter` in the notebook binds the real clock
            for name, value in list(self.namespace.items()):
                if callable(value) and any(value is original for original in originals):
                    self._stack.callback(self.namespace.__setitem__, name, value)   # only these names put back
                    self.namespace[name] = originals[value]
        if self.queued:
            self._stack.enter_context(mock.patch.object(torch.cuda, "is_available", return_value=True))
            self._stack.enter_context(mock.patch.object(torch.cuda, "synchronize", self._synchronize))
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()


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


# --- instruments for values the grader judges outside (coursekit.hidden) -----------------------------------------

class EvaluationSpy:
    """A function that records every point it is called at (a copy of its input), for code that evaluates it at
    perturbed points (a numerical gradient): ``spy.points`` is the list, in order. Send them with
    ``hidden.same`` (they are the points the student's code chose) to tell an element that was not put back."""

    def __init__(self, fn: Callable[[torch.Tensor], torch.Tensor]):
        self.fn, self.points = fn, []

    def __call__(self, x: torch.Tensor, *args, **kwargs):
        self.points.append(x.detach().clone())
        return self.fn(x, *args, **kwargs)


def cross_terms(x: torch.Tensor) -> torch.Tensor:
    """A smooth function whose every output depends on products of different elements (sum_i x_i * x_(i+1) plus
    exp of the mean): an evaluation at a point where another element is still shifted by eps changes its value by
    about eps, not eps squared, so a finite difference taken there is visibly wrong."""
    flat = x.reshape(-1)
    return (flat * flat.roll(1)).sum() * 3.0 + flat.mean().exp() + (flat ** 3).sum() / 7.0


class ScriptedLoss(nn.Module):
    """A loss whose k-th call returns ``values[k]`` (cycling), with a gradient that still flows to the model (it adds
    0 times the model's output): per-batch losses the test knows, so that a sum, a mean over the wrong count or a
    dropped last batch each give another per-epoch figure. ``calls`` counts the calls and ``sizes`` the batch size
    of each."""

    def __init__(self, values: Sequence[float]):
        super().__init__()
        self.values, self.calls, self.sizes = list(values), 0, []

    def forward(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        value = self.values[self.calls % len(self.values)]
        self.calls += 1
        self.sizes.append(int(output.shape[0]) if output.dim() else 1)
        return output.sum() * 0.0 + value


def batches_of(x: torch.Tensor, y: torch.Tensor, batch_size: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(x, y) cut into batches in order, the last one smaller when ``batch_size`` does not divide N: a loader whose
    every batch the test knows (a list works wherever code only iterates over a loader and takes ``len``)."""
    return [(x[i:i + batch_size], y[i:i + batch_size]) for i in range(0, len(x), batch_size)]


def confident_logits(targets: torch.Tensor, classes: int, margin: float = 20.0) -> torch.Tensor:
    """(N, classes) logits that are right for ``targets`` by ``margin``: a loss computed from logits gives about 0 on
    them and about ``margin`` on their negation; one that squashes them into probabilities first can do neither."""
    logits = torch.zeros(len(targets), classes)
    logits[torch.arange(len(targets)), targets] = margin
    return logits


def eval_outputs(model: nn.Module, x: torch.Tensor) -> dict[str, torch.Tensor]:
    """What a model gives in eval() mode for ``x`` (three rows or more), twice and for its first two rows alone, and
    its buffers afterwards, with no gradient; its mode is put back. Send it with ``hidden.same``: dropout left on, or
    BatchNorm that uses the batch's statistics in eval mode, change these values."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            whole, again, part = model(x), model(x), model(x[:2])
    finally:
        model.train(was_training)
    return {"whole": whole, "again": again, "first_two": part, "buffers": [b.detach().clone() for b in model.buffers()]}


class NoGradOnly(nn.Module):
    """``inner`` that refuses to run while autograd records: each forward pass counts its samples in a parameter of its
    own, updated in place, which autograd forbids on a leaf that requires grad unless nothing is being recorded. So code
    that evaluates without ``torch.no_grad()`` (or ``inference_mode``), or builds a graph and detaches it afterwards,
    gets an error instead of figures, and the figures the grader compares differ: a missing ``no_grad`` becomes a value.
    ``seen`` holds the number of samples it ran on."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner
        self.seen = nn.Parameter(torch.zeros(()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.seen.add_(x.shape[0])
        return self.inner(x)


def reproducibility(run: Callable[[int], Any], seeds: Sequence[int] = (0, 1)) -> dict[str, Any]:
    """``run(seed)`` for the first seed twice, with the global random state disturbed in between, and for the second
    seed: send it with ``hidden.same``. Code that draws from the global generator instead of the one it is given
    repeats neither."""
    torch.manual_seed(1234)
    first = run(seeds[0])
    torch.manual_seed(98765)
    torch.rand(17)
    return {"first": first, "again": run(seeds[0]), "other_seed": run(seeds[1])}


def loader_generator(loader) -> dict[str, bool]:
    """Whether a DataLoader shuffles, and whether it draws its order from a generator of its own (send it with
    ``hidden.observed``)."""
    sampler = getattr(loader, "sampler", None)
    generator = getattr(loader, "generator", None) or getattr(sampler, "generator", None)
    return {"shuffles": isinstance(sampler, torch.utils.data.RandomSampler), "own_generator": generator is not None}


# --- instruments for 07_devices_amp (and ex3_amp) -----------------------------------------------------------------

class MatmulSGD(torch.optim.Optimizer):
    """Plain SGD whose step passes each gradient through a matrix product, as Shampoo or Muon do: each parameter moves
    by ``lr * (g @ [[513]] - 512 * g)``, which is ``lr * g`` in float32. Under autocast that product runs in 16 bits
    (513 is not a bfloat16, and the gradient loses its low bits), so a step taken inside an autocast block leaves
    visibly different parameters: send them with ``hidden.same`` to tell an optimizer step run under autocast."""

    def __init__(self, params, lr: float):
        super().__init__(params, {"lr": lr})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    grad = p.grad.reshape(-1, 1)
                    near_grad = torch.mm(grad, torch.full((1, 1), 513.0, device=grad.device)) - 512.0 * grad
                    p.sub_(group["lr"] * near_grad.reshape(p.shape))


def precision_probe(device: torch.device | str | None = None) -> tuple[nn.Linear, torch.Tensor]:
    """A ``Linear(2, 1)`` layer without bias that subtracts its second input from its first, and three rows (3, 2) whose
    first input needs 12 significant bits (float32 keeps them all, float16 11, bfloat16 8) and whose second is 1 or 2:
    the layer's output, and any loss of it, shows in which precision its product ran (float32 ``2**-5 + 2**-9 +
    2**-12``, float16 ``2**-5 + 2**-9``, bfloat16 ``2**-5`` for the first row). Casting a float32 output afterwards
    cannot imitate a 16-bit product, and a product left in float32 (autocast off, or on for another device type)
    cannot imitate it either. Returns (layer, rows) on ``device``."""
    layer = nn.Linear(2, 1, bias=False, device=device)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([[1.0, -1.0]]))
    rows = torch.tensor([[1 + 2**-5 + 2**-9 + 2**-12, 1.0], [1 + 2**-3 + 2**-10 + 2**-11, 1.0],
                         [2 + 2**-6 + 2**-8 + 2**-13, 2.0]], device=device)
    return layer, rows
