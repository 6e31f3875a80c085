"""What hidden tests call: run the student's code on fresh inputs and send what comes back to the grader.

A hidden test decides nothing in the student's kernel. It calls the student's code and hands each
result to one of the functions below, which sends it, as data, on the grader's channel (a pipe whose
other end is outside the sandbox). The grader runs the same hidden test on the course's own solution,
in a box of its own, and compares the two records outside both kernels, with the rule and the
tolerances the test names. So patching a check, swapping code, rewriting a cell or writing to the
channel can only send wrong values: what a test cell earns is decided where the student's code
cannot reach (docs/grading-security.md).

- ``same(name, value)``: a value of the student's code, compared with the solution's (tensors: shape,
  dtype, device and values within ``rtol``/``atol``; numbers, strings, containers likewise);
- ``like(name, value)``: the same structure, types, shapes, dtypes and devices, any values (a freshly
  initialised model's output, say);
- ``accuracy(name, predictions, labels, at_least=...)``: predictions scored outside against the labels
  of the reference run;
- ``shapes(name, fn)``, ``on_meta(name, fn, *args)``, ``raises(name, fn)``, ``attempt(name)``: the
  student's code called with batch sizes 1, 7 and 129, on another device, with bad input, or in a block
  whose error is recorded before it stops the cell; ``outcome(fn, *args)`` gives a result or the error
  raised, to send with ``same`` while later checks still run;
- ``observed(name, value)``: what an instrument of ``coursekit.testing`` saw while the code ran (the
  mode at every forward pass, the scaler's calls): compared the same way, but it rests on an
  instrument inside the student's process, so it is *best effort* and worth only part of a cell;
- ``check(name, value, rule=...)``: a rule of the grader's (autograder/grading/rules.py) or one of
  the cell's own, written in its ``### BEGIN GRADER`` block;
- ``own_work(*answers)``: the course package's own answers to this exercise (``coursekit.answers``) may not do
  the work while the rest of this cell's hidden tests run: a call to one is recorded, and the grader takes the
  cell's points, saying why;
- ``generated(name, fn, strategy)``: the student's code called on many inputs drawn around what the words
  allow (``coursekit.strategies``), every result sent; the grader compares each with the solution's on the
  same input and names the smallest input on which they differ.

Each name must be unique within its cell (a repeated name is numbered in order). The ``hint`` of a
record is what the feedback page says when it fails; the grader takes rules, tolerances and hints
from the reference run only.

Outside grading (a solution run in JupyterLab, nbval, the test suite) there is no channel: the
records are kept in ``local_records()`` and nothing is compared.
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import os
import random
import zlib
from typing import Any, Callable, Iterator, Sequence

import torch
from torch import nn

__all__ = ["begin", "same", "like", "observed", "accuracy", "check", "shapes", "on_meta", "raises", "attempt",
           "outcome", "generated", "own_work", "answer_called", "encode", "local_records", "CHANNEL_VARIABLE"]

CHANNEL_VARIABLE = "AUTOGRADER_CHANNEL_FD"   # the grader's channel: a file descriptor open for writing
MAX_ELEMENTS = 4_000_000                     # a tensor larger than this is sent without its values
MAX_TEXT = 2_000                             # characters of a string or an error message that are sent
MAX_ITEMS = 10_000                           # items of a list, tuple or dict
MAX_DEPTH = 12
DEFAULT_SIZES = (1, 7, 129)                  # batch sizes: one, an odd one, a large one
DEFAULT_EXAMPLES = 30                        # inputs per generated case

_state: dict[str, Any] = {"cell": None, "own_work": set(), "reported": set()}
OWN_WORK = "own-work"                        # the kind of the record a course answer sends when it does the work
_local: list[dict] = []


# --- the channel ---------------------------------------------------------------------------------------

def _channel() -> int | None:
    value = os.environ.get(CHANNEL_VARIABLE, "")
    return int(value) if value.isdigit() else None


def _send(record: dict) -> None:
    fd = _channel()
    if fd is None:
        _local.append(record)
        return
    data = (json.dumps(record, allow_nan=False, separators=(",", ":")) + "\n").encode("utf-8")
    view = memoryview(data)
    try:
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except OSError:
        pass   # a closed channel is noticed outside: the records the grader expects never arrive


def local_records() -> list[dict]:
    """The records of this process when there is no grader's channel (newest last)."""
    return list(_local)


def begin(cell: str, seed: int | None = None) -> None:
    """Start the hidden tests of test cell ``cell`` (the grader puts this call where they begin).

    The random generators are seeded from the cell's name, so the hidden tests see the same random
    state in the student's run and in the reference run, whatever the cells above drew."""
    _state["cell"] = cell
    _disarm()
    seed = zlib.crc32(cell.encode("utf-8")) if seed is None else seed
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy as np

        np.random.seed(seed % 2**32)
    except ImportError:
        pass


def _record(name: str, value: Any, *, rule: str, kind: str = "value", hint: str | None = None, **params) -> None:
    _send({"record": 1, "cell": _state["cell"], "name": str(name)[:300], "kind": kind, "rule": rule,
           "params": params, "hint": hint, "value": encode(value)})


# --- values as data ------------------------------------------------------------------------------------

def _float(value: float) -> Any:
    return value if math.isfinite(value) else repr(value)   # 'nan', 'inf', '-inf': JSON has no such numbers


def _tensor(value: torch.Tensor) -> dict:
    out = {"t": "tensor", "dtype": str(value.dtype).replace("torch.", ""), "shape": list(value.shape),
           "device": value.device.type, "requires_grad": bool(value.requires_grad), "graph": value.grad_fn is not None}
    if value.device.type == "meta" or value.is_sparse or value.is_quantized:
        return out
    if value.numel() > MAX_ELEMENTS:
        out["too_large"] = True
        return out
    data = value.detach().to("cpu")
    if data.is_complex():
        data = torch.view_as_real(data)
    if data.dtype in (torch.float16, torch.bfloat16):
        data = data.float()               # every value of both is exactly a float32
    elif data.dtype == torch.bool:
        data = data.to(torch.uint8)
    elif not (data.dtype.is_floating_point or data.dtype in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64)):
        data = data.to(torch.float64)
    data = data.contiguous()
    out["wire"] = str(data.dtype).replace("torch.", "")
    out["data"] = base64.b64encode(data.numpy().tobytes()).decode("ascii")
    return out


def _exception(error: BaseException) -> dict:
    return {"t": "raised", "mro": [cls.__name__ for cls in type(error).__mro__][:12], "message": str(error)[:MAX_TEXT]}


def encode(value: Any, depth: int = 0) -> dict:
    """``value`` as JSON-ready data. Only exact built-in, torch and NumPy types are looked into; anything
    else (a subclass included) is sent as 'another type', so nothing of the student's own classes runs here."""
    kind = type(value)
    if depth > MAX_DEPTH:
        return {"t": "too_deep"}
    if value is None:
        return {"t": "none"}
    if kind is bool:
        return {"t": "bool", "v": value}
    if kind is int:
        return {"t": "int", "v": value if abs(value) < 2**63 else repr(value)}
    if kind is float:
        return {"t": "float", "v": _float(value)}
    if kind is str:
        return {"t": "str", "v": value[:MAX_TEXT], "length": len(value)}
    if kind in (torch.Tensor, nn.Parameter):
        return _tensor(value)
    if kind is torch.dtype:
        return {"t": "dtype", "v": str(value).replace("torch.", "")}
    if kind is torch.device:
        return {"t": "device", "v": value.type, "index": value.index}
    if kind is torch.Size:
        return {"t": "size", "v": list(value)}
    if kind in (list, tuple):
        return {"t": kind.__name__, "items": [encode(v, depth + 1) for v in value[:MAX_ITEMS]], "length": len(value)}
    if kind is dict or (isinstance(value, dict) and type(value).__module__ == "collections"):
        items = list(value.items())[:MAX_ITEMS]
        return {"t": "dict", "items": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in items], "length": len(value)}
    if isinstance(value, torch.Tensor):
        return {"t": "tensor_subclass"}
    if isinstance(value, BaseException):
        return _exception(value)
    module = type(value).__module__
    if module == "numpy":
        import numpy as np

        if isinstance(value, np.ndarray):
            return {"t": "ndarray", "of": _tensor(torch.from_numpy(value.copy()))} if value.dtype.kind in "biuf" \
                else {"t": "other", "class": "numpy.ndarray"}
        if isinstance(value, np.generic) and value.dtype.kind in "biuf":
            return {"t": "numpy_scalar", "dtype": str(value.dtype), "v": _float(float(value))}
    if isinstance(value, nn.Module) and type(value).__module__.startswith("torch."):
        return {"t": "module", "class": type(value).__name__, "training": bool(value.training),
                "state": encode(dict(value.state_dict()), depth + 1)}
    if isinstance(value, nn.Module):
        return {"t": "module", "class": None, "training": bool(value.training),
                "state": encode(dict(value.state_dict()), depth + 1)}
    return {"t": "other", "class": f"{module}.{type(value).__qualname__}" if module.startswith(("builtins", "torch")) else None}


# --- what hidden tests call ------------------------------------------------------------------------------

def same(name: str, value: Any, *, rtol: float = 1e-5, atol: float = 1e-8, dtype: bool = True, grad: bool = False,
         hint: str | None = None) -> None:
    """``value`` must equal the solution's: tensors in shape, dtype (unless ``dtype=False``), device and values
    (``torch.allclose(rtol, atol)``; integers and booleans exactly); with ``grad=True`` also in whether they
    carry an autograd graph. Numbers, strings and containers are compared item by item."""
    _record(name, value, rule="same", hint=hint, rtol=rtol, atol=atol, dtype=dtype, grad=grad)


def like(name: str, value: Any, *, hint: str | None = None) -> None:
    """``value`` must have the solution's structure, types, shapes, dtypes and devices; its values may differ."""
    _record(name, value, rule="like", hint=hint)


def observed(name: str, value: Any, *, hint: str | None = None) -> None:
    """What an instrument saw while the student's code ran, compared with what it saw of the solution's.
    Best effort: the instrument lives in the student's process (docs/grading-security.md)."""
    _record(name, value, rule="same", kind="observation", hint=hint, rtol=0.0, atol=0.0, dtype=True, grad=False)


def accuracy(name: str, predictions: Any, labels: torch.Tensor, *, at_least: float, hint: str | None = None) -> None:
    """``predictions`` (N,) class indices must match at least ``at_least`` of ``labels`` (N,). The grader uses
    the labels of the reference run, never the student's copy."""
    _record(name, [predictions, labels], rule="accuracy", hint=hint, at_least=at_least)


def check(name: str, value: Any, *, rule: str, hint: str | None = None, observation: bool = False, **params) -> None:
    """``value`` judged by ``rule``: a rule of autograder/grading/rules.py or a function of this cell's GRADER
    block, called outside as ``rule(got, reference, **params)``."""
    _record(name, value, rule=rule, kind="observation" if observation else "value", hint=hint, **params)


def outcome(fn: Callable, *args, **kwargs) -> Any:
    """``fn(*args, **kwargs)``, or the error it raised: send either with ``same`` (an error is sent as its class, and
    compared with what the solution did), and the checks after it still run."""
    try:
        return fn(*args, **kwargs)
    except Exception as error:   # noqa: BLE001 - every error of the student's code is a value here
        return error




def shapes(name: str, fn: Callable[[int], Any], sizes: Sequence[int] = DEFAULT_SIZES, *, hint: str | None = None) -> None:
    """``fn(size)`` for each batch size (1, an odd size, a large one): the shapes, dtypes and devices of what
    it returns (or the error it raised) must be the solution's."""
    results = [outcome(fn, size) for size in sizes]
    _record(name, {"sizes": list(sizes), "results": results}, rule="like", hint=hint)


def _to_meta(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to("meta")
    if type(value) in (list, tuple):
        return type(value)(_to_meta(v) for v in value)
    return value


def on_meta(name: str, fn: Callable, *args, hint: str | None = None, **kwargs) -> Any:
    """Call ``fn`` with its tensor arguments (and the tensors of tuple and list arguments) moved to the ``meta`` device, shapes without data, with
    ``.cuda()`` refused; what it returns (its devices, shapes, dtypes) or raises must be the solution's. Code
    that writes a device into itself ('cpu', 'cuda') is caught on any machine. Returns the result."""
    from .testing import refuse_cuda

    with refuse_cuda():
        result = outcome(fn, *[_to_meta(a) for a in args], **{k: _to_meta(v) for k, v in kwargs.items()})
    _record(name, result, rule="like", hint=hint)
    return None if isinstance(result, BaseException) else result


def raises(name: str, fn: Callable[[], Any], *, words: Sequence[str] = (), hint: str | None = None) -> None:
    """``fn()`` must raise the error the solution raises (its type, or a subclass), and its message must contain
    one of ``words`` (in any case). The message is read outside and never shown."""
    _record(name, outcome(fn), rule="raises", hint=hint, words=[w.lower() for w in words])


@contextlib.contextmanager
def attempt(name: str, *, hint: str | None = None) -> Iterator[None]:
    """A block of the student's code: whether it raised is recorded (the solution's does not), then the error
    goes on and stops the cell, as it would have without the block::

        with hidden.attempt("fit with the data on the CPU and the notebook's device elsewhere", hint=...):
            history = fit(model, x, y, ...)
    """
    try:
        yield
    except Exception as error:
        _record(name, error, rule="same", hint=hint, rtol=0.0, atol=0.0, dtype=True, grad=False)
        raise
    _record(name, None, rule="same", hint=hint, rtol=0.0, atol=0.0, dtype=True, grad=False)


# --- generated cases ---------------------------------------------------------------------------------------

def _cases_seed(name: str) -> int:
    """The seed of a generated case: its cell and its name, so the reference run draws the same inputs, and a
    submission graded again gets the same verdict."""
    return zlib.crc32(f"{_state['cell']}|{name}".encode("utf-8"))


def _state_of(call: Any) -> Any:
    """The arguments of a call after it ran, as the grader compares them (what the call left behind)."""
    return {"args": list(call.args), "kwargs": dict(call.kwargs)}


def _invoke(fn: Callable, call: Any, derive: Callable | None) -> Any:
    """``fn`` on one drawn call (on FarDevice's second device when the draw says so); what to send."""
    from .testing import FarDevice

    def run(args, kwargs):
        result = outcome(fn, *args, **kwargs)
        if derive is not None and not isinstance(result, BaseException):
            result = outcome(derive, result, *args, **kwargs)
        return result

    if call.place != "far":
        return run(call.args, call.kwargs)
    with FarDevice() as far:
        result = run(far.move(call.args), {k: far.move(v) for k, v in call.kwargs.items()})
    return far.located(result)


def generated(name: str, fn: Callable, strategy: Any, *, examples: int = DEFAULT_EXAMPLES, rule: str = "same",
              derive: Callable | None = None, state: bool = False, hint: str | None = None, **params) -> None:
    """``fn`` called on ``examples`` inputs drawn from ``strategy`` (a strategy of ``strategies.Call``), each result
    (or the error it raised) sent; the grader compares each with the solution's by ``rule`` (``same``, ``like`` or
    ``raises``, with ``params``) and names the smallest input where they differ.

    ``derive(result, *args, **kwargs)`` turns a result into what to compare (a loss and its gradient, say);
    ``state=True`` also compares the arguments as the call left them (an input changed in place where the words
    do not allow it). The inputs are the same in the student's run and the reference run (a fixed seed per cell,
    and name), and the description of each is taken from the reference run only."""
    from . import strategies

    draws = []
    for call in strategies.draw(strategy, examples, _cases_seed(name)):
        described, size = strategies.describe(call), strategies.size(call)
        value = _invoke(fn, call, derive)
        draws.append({"input": str(described)[:MAX_TEXT], "words": strategies.words_data(described), "size": size,
                      "result": encode(value),
                      "state": encode(_state_of(call)) if state else None})
    _send({"record": 1, "cell": _state["cell"], "name": str(name)[:300], "kind": "value", "rule": "generated",
           "params": {"compare": rule, "state": state, **params}, "hint": hint,
           "value": {"t": "generated", "draws": draws}})


# --- the course's own answers may not do the work ---------------------------------------------------------

def _disarm(*_: Any) -> None:
    _state["own_work"], _state["reported"] = set(), set()


def own_work(*answers: Any) -> None:
    """From here until this cell ends, the course's own answers named here (functions or classes of ``coursekit``
    marked by ``coursekit.answers.course_answer``) may not do the work: each call to one sends a record, and the grader
    takes the cell's points, naming the answer. Name only what does this exercise's job, and that the hidden tests
    themselves never call (the reference run fails if they do)::

        hidden.own_work(coursekit.mnist.train_one_epoch, coursekit.mnist.fit)
    """
    from .answers import name_of

    names = set()
    for answer in answers:
        name = name_of(answer)
        if name is None:
            raise ValueError(f"{answer!r} is not one of the course's own answers (coursekit.answers.course_answer)")
        names.add(name)
    _state["own_work"] = names
    _state["reported"] = set()
    try:   # in IPython (a kernel, the cell harness) the watch ends with the cell, whatever happens in it
        shell = get_ipython()  # noqa: F821 (defined by IPython)
    except NameError:
        return
    if _disarm not in shell.events.callbacks["post_run_cell"]:
        shell.events.register("post_run_cell", _disarm)


def answer_called(name: str) -> None:
    """Called by a course answer as it starts: recorded once per cell if this cell's hidden tests named it."""
    if name in _state["own_work"] and name not in _state["reported"]:
        _state["reported"].add(name)
        _send({"record": 1, "cell": _state["cell"], "name": "own work", "kind": OWN_WORK, "rule": OWN_WORK,
               "params": {}, "hint": None, "value": encode(name)})
