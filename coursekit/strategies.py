"""Inputs drawn around what an exercise's words allow, for the hidden tests' generated cases (``hidden.generated``).

A hidden test that picks a few inputs by hand catches the mistakes its author foresaw. A generated case draws many
inputs from a *strategy* (hypothesis's, https://hypothesis.readthedocs.io), calls the student's code on each, and
sends every result; the grader compares each with what the course's solution returned on the same input, outside
the student's process, and names the smallest input on which they differ.

The strategies here build what the course's exercises take:

- ``tensors``: any shape, dtype and scale, with chosen values (a threshold, exactly 0, the next float up) mixed in,
  as a contiguous tensor or as a view (transposed, strided, offset into a larger storage);
- ``shapes``, ``batch_sizes``: sizes from 1 up, odd ones included;
- ``around``: values at a boundary the words name and the nearest floats on each side;
- ``models``: small MLPs with dropout (or batch norm), in ``train()`` or ``eval()`` mode;
- ``predictions_and_labels``: class indices of a classifier's predictions and the true labels, some classes absent;
- ``calls``: the arguments of one call, and where it runs (here, or with its tensors and modules on a second
  device: ``coursekit.testing.FarDevice``).

Every tensor is made from a seed the strategy draws, with a ``torch.Generator`` of its own, so a draw is the same in
the student's run and in the reference run whatever the student's code did to PyTorch's global random state, and
hypothesis can shrink it (a smaller shape, a smaller scale, seed 0). ``draw`` takes a fixed number of examples with a
fixed seed: the same inputs in both runs, and the same verdict when a submission is graded again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import torch
from hypothesis import strategies as st
from torch import nn

from .i18n import Words

__all__ = ["Call", "calls", "shapes", "batch_sizes", "tensors", "around", "models", "predictions_and_labels", "gradient",
           "clock_calls", "DescribedBytes", "draw", "describe", "words_data", "size", "LAYOUTS", "TIME_UNIT", "st"]

SearchStrategy = st.SearchStrategy
LAYOUTS = ("contiguous", "transposed", "strided", "offset")


@dataclass
class Call:
    """The arguments of one call, and where it runs: ``"here"``, or ``"far"`` (its tensors and modules on
    FarDevice's second device, the result brought back as the grader sees it)."""
    args: tuple
    kwargs: dict = field(default_factory=dict)
    place: str = "here"


def calls(*args: SearchStrategy, places: Sequence[str] = ("here",), **kwargs: SearchStrategy) -> SearchStrategy[Call]:
    """One call's arguments, each drawn from its own strategy (a plain value stands for itself)."""
    positional = st.tuples(*(a if isinstance(a, SearchStrategy) else st.just(a) for a in args))
    named = st.fixed_dictionaries({k: v if isinstance(v, SearchStrategy) else st.just(v) for k, v in kwargs.items()})
    return st.builds(Call, positional, named, st.sampled_from(tuple(places)))


def shapes(dims: tuple[int, int] = (1, 3), side: tuple[int, int] = (1, 9)) -> SearchStrategy[tuple[int, ...]]:
    """Shapes of ``dims[0]`` to ``dims[1]`` dimensions, each from ``side[0]`` to ``side[1]``."""
    return st.integers(*dims).flatmap(lambda n: st.tuples(*[st.integers(*side)] * n))


def batch_sizes(low: int = 1, high: int = 70) -> SearchStrategy[int]:
    """Batch sizes from ``low`` to ``high``, 1 and odd sizes included (hypothesis starts from ``low``)."""
    return st.integers(low, high)


def around(*values: float, dtype: torch.dtype = torch.float32) -> list[float]:
    """Each value and the nearest representable numbers of ``dtype`` below and above it: where a check at a
    boundary (``<`` for ``<=``) shows."""
    found = []
    for value in values:
        v = torch.tensor(float(value), dtype=dtype)
        for neighbour in (torch.nextafter(v, torch.tensor(-math.inf, dtype=dtype)), v,
                          torch.nextafter(v, torch.tensor(math.inf, dtype=dtype))):
            if float(neighbour) not in found:
                found.append(float(neighbour))
    return found


def _layout(values: torch.Tensor, layout: str) -> torch.Tensor:
    """``values`` (contiguous) as a view of the same shape with another layout."""
    if layout == "transposed" and values.dim() >= 2:
        return values.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout == "strided" and values.dim() >= 1:
        wide = torch.zeros(*values.shape[:-1], 2 * values.shape[-1], dtype=values.dtype)
        wide[..., ::2] = values
        return wide[..., ::2]
    if layout == "offset" and values.numel() > 0:
        flat = torch.cat([torch.zeros(3, dtype=values.dtype), values.reshape(-1)])
        return flat[3:].view(values.shape)
    return values


def tensors(shape: Any = shapes(), *, dtype: torch.dtype = torch.float32, scale: Sequence[float] = (1.0,),
            low: float | None = None, high: float | None = None, special: Sequence[float] = (),
            layouts: Sequence[str] = ("contiguous",), requires_grad: bool = False) -> SearchStrategy[torch.Tensor]:
    """Tensors of ``shape`` (a tuple or a strategy of tuples) and ``dtype``.

    Floats are normal values times a ``scale`` (one drawn from the list); with ``low``/``high`` they are uniform in
    that range instead (integers: ``low`` to ``high`` inclusive, default 0 to 9). ``special`` values are mixed in at
    random places (none, some, or every element), so boundaries and exact zeros turn up. ``layouts``: contiguous
    and the views ``transposed``, ``strided`` and ``offset``."""
    shape = shape if isinstance(shape, SearchStrategy) else st.just(tuple(shape))
    return st.builds(_tensor, shape, st.integers(0, 2**31 - 1), st.sampled_from(tuple(scale)),
                     st.sampled_from((0.0, 0.25, 1.0) if special else (0.0,)), st.sampled_from(tuple(layouts)),
                     st.just(dtype), st.just(low), st.just(high), st.just(tuple(special)), st.just(requires_grad))


def _tensor(shape, seed, scale, density, layout, dtype, low, high, special, requires_grad) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        if low is not None and high is not None:
            values = low + (high - low) * torch.rand(shape, generator=g, dtype=torch.float64)
        else:
            values = scale * torch.randn(shape, generator=g, dtype=torch.float64)
    elif dtype == torch.bool:
        values = torch.rand(shape, generator=g) < 0.5
    else:
        values = torch.randint(int(0 if low is None else low), int(9 if high is None else high) + 1, shape, generator=g)
    if special and density > 0:
        mask = torch.rand(shape, generator=g) < density
        picks = torch.tensor(special, dtype=torch.float64)[torch.randint(len(special), shape, generator=g)]
        values = torch.where(mask, picks.to(values.dtype), values)
    values = _layout(values.to(dtype), layout)
    if requires_grad and dtype.is_floating_point:
        values = values.detach().requires_grad_()
    return values


def predictions_and_labels(classes: tuple[int, int] = (1, 12), examples: tuple[int, int] = (0, 80)) -> SearchStrategy[Call]:
    """Calls ``(predictions, labels, num_classes)``: int64 class indices of ``examples[0]`` to ``examples[1]`` examples
    of ``classes[0]`` to ``classes[1]`` classes, about half of them predicted right, in any order or sorted by label;
    the top classes may never occur among the labels and class 0 may never be predicted; as contiguous tensors or as
    views (every other element of a larger tensor, an offset into one)."""
    return st.builds(_predictions_and_labels, st.integers(*classes), st.integers(*examples), st.integers(0, 2**31 - 1),
                     st.integers(0, 3), st.booleans(), st.sampled_from(("contiguous", "views")))


def _predictions_and_labels(k, n, seed, missing, by_label, layout) -> Call:
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, max(1, k - missing), (n,), generator=g)        # the top `missing` classes never occur
    predictions = torch.where(torch.rand(n, generator=g) < 0.5, labels, torch.randint(0, k, (n,), generator=g))
    if missing % 2 and k > 1:
        predictions[predictions == 0] = k - 1                                  # class 0 is never predicted
    if by_label:
        labels, order = labels.sort(stable=True)
        predictions = predictions[order]
    if layout == "views":
        predictions, labels = _layout(predictions, "strided"), _layout(labels, "offset")
    return Call((predictions, labels, k))


def models(inputs: int, outputs: int, *, hidden: Sequence[int] = (4, 16), dropout: Sequence[float] = (0.0, 0.5),
           batchnorm: bool = False, modes: Sequence[str] = ("train", "eval")) -> SearchStrategy[nn.Module]:
    """Small MLPs ``inputs -> hidden -> outputs`` (seeded), with dropout or batch norm, left in a drawn mode."""
    return st.builds(_model, st.just(inputs), st.just(outputs), st.sampled_from(tuple(hidden)),
                     st.sampled_from(tuple(dropout)), st.just(batchnorm), st.sampled_from(tuple(modes)),
                     st.integers(0, 2**31 - 1))


def _model(inputs, outputs, width, dropout, batchnorm, mode, seed) -> nn.Module:
    state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        layers = [nn.Linear(inputs, width)] + ([nn.BatchNorm1d(width)] if batchnorm else []) + [nn.ReLU()]
        layers += ([nn.Dropout(dropout)] if dropout else []) + [nn.Linear(width, outputs)]
        model = nn.Sequential(*layers)
    finally:
        torch.random.set_rng_state(state)   # the caller's global random state is untouched
    return model.train(mode == "train")


TIME_UNIT = 1 / 1024   # seconds: the durations of clock_calls are whole multiples of it, exact in binary


def _clock_call(batch_size, device, warm, repeats, middle, spreads, order) -> Call:
    timed = [middle] * (2 - repeats % 2) + [middle + sign * (middle * k // 8) for k in spreads for sign in (-1, 1)]
    return Call((batch_size, device, len(warm), repeats, [TIME_UNIT * w for w in warm] + [TIME_UNIT * timed[k] for k in order]))


def _clock_calls_of(repeats: int, devices: tuple, batch_sizes: tuple[int, int], warmups: int) -> SearchStrategy[Call]:
    pairs = (repeats - 1) // 2 if repeats % 2 else (repeats - 2) // 2
    return st.builds(_clock_call, st.integers(*batch_sizes), st.sampled_from(devices),
                     st.lists(st.integers(1, 1024), max_size=warmups), st.just(repeats), st.integers(8, 256),
                     st.lists(st.integers(1, 7), min_size=pairs, max_size=pairs, unique=True), st.permutations(range(repeats)))


def clock_calls(devices: Sequence[Any] = ("cpu", torch.device("cpu"), "cuda", torch.device("cuda")),
                batch_sizes: tuple[int, int] = (1, 512), warmups: int = 4, repeats: tuple[int, int] = (1, 7)
                ) -> SearchStrategy[Call]:
    """Calls ``(batch_size, device, warmup, repeats, durations)`` for code that times a function: ``durations`` lists how
    long each call of it takes (``testing.PretendClock``), the ``warmup`` untimed ones of any length first, then the
    ``repeats`` timed ones, all whole multiples of ``TIME_UNIT``. The timed ones are a middle duration (twice when their
    number is even) and pairs ``middle - s`` and ``middle + s``, in a drawn order: their mean, their median and the
    median of their rates all come from the middle one, so every reading of "the seconds per call" or "the median rate"
    gives the same number, and a call timed twice, or not at all, shows."""
    return st.integers(*repeats).flatmap(lambda count: _clock_calls_of(count, tuple(devices), batch_sizes, warmups))


class DescribedBytes(bytes):
    """Bytes that say in words, on the feedback page, what they hold (an IDX header and how it was cut, say): a drawn
    input's description shows ``words`` instead of the raw bytes."""

    def __new__(cls, data: bytes, words: str) -> "DescribedBytes":
        made = super().__new__(cls, data)
        made.words = words
        return made

    def __repr__(self) -> str:
        return self.words


def gradient(*positions: int):
    """A ``derive`` for ``hidden.generated``: the result, and its gradient with respect to the arguments at
    ``positions`` (or the error autograd raised, for a result cut off from them)."""
    def derive(result: Any, *args: Any, **kwargs: Any) -> tuple:
        try:
            return result, list(torch.autograd.grad(result, [args[i] for i in positions]))
        except Exception as error:   # an error is a result like any other: it is sent, and judged outside
            return result, error
    return derive


def _course_provider():
    """Hypothesis's own way of making choices, less the constants it collects from the source of every local module
    that happens to be loaded: those differ between the student's run and the reference run (and a student's imports
    could change them), and the same seed must give the same inputs in both."""
    from hypothesis.internal.conjecture.providers import HypothesisProvider

    class CourseProvider(HypothesisProvider):
        def _maybe_draw_constant(self, *args: Any, **kwargs: Any) -> None:
            return None

    return CourseProvider


def draw(strategy: SearchStrategy, examples: int, seed: int) -> list[Any]:
    """``examples`` values of ``strategy``: the simplest one hypothesis can make, then draws from a random generator
    seeded with ``seed``, so the same seed always gives the same values, in any process. (Hypothesis's test engine
    adapts what it generates to what it generated before and to the modules loaded, so it is not used here; the values
    come from hypothesis's own choices, through its ``ConjectureData``, an internal interface: requirements.txt pins
    hypothesis to the version this was written for, and the reference run's key includes it.)"""
    from random import Random

    from hypothesis.control import BuildContext
    from hypothesis.errors import HypothesisException
    from hypothesis.internal.conjecture.choice import ChoiceTemplate
    from hypothesis.internal.conjecture.data import ConjectureData, StopTest

    provider, rng, found = _course_provider(), Random(seed), []
    tries = [ConjectureData.for_choices([ChoiceTemplate("simplest", count=None)], provider=provider)]
    while len(found) < examples and len(tries) <= 20 * examples:
        data = tries.pop() if tries else ConjectureData(random=Random(rng.getrandbits(64)), provider=provider)
        try:
            with BuildContext(data, wrapped_test=draw):
                found.append(data.draw(strategy))
        except (StopTest, HypothesisException):   # a draw the strategy rejects (a filter, too large): the next one
            continue
    return found


# --- what an input is, in words (the feedback names the smallest input on which a result differs) -----------------
# Each description is a ``Words`` (coursekit/i18n.py): English here, said again in the student's language on the
# feedback page (``words_data`` carries its template and fields to the grader, ``words_from`` rebuilds it there).

def _joined(parts: list[Any]) -> Any:
    if not parts:
        return ""
    return parts[0] if len(parts) == 1 else Words("{first}, {rest}", first=parts[0], rest=_joined(parts[1:]))


def _numbers(values: torch.Tensor) -> Any:
    flat = values.detach().reshape(-1)
    if flat.numel() <= 8:
        return "[" + ", ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in flat.tolist()) + "]"
    if not flat.dtype.is_floating_point:
        return Words("values from {low} to {high}", low=str(flat.min().item()), high=str(flat.max().item()))
    finite = flat[torch.isfinite(flat)]
    if not finite.numel():
        return Words("no finite values")
    zeros = int((flat == 0).sum())
    return Words("values from {low} to {high}{zeros}", low=f"{finite.min().item():.4g}", high=f"{finite.max().item():.4g}",
                 zeros=Words(", {count} of them exactly 0", count=zeros) if zeros else "")


def describe(value: Any, depth: int = 0) -> Any:
    """A short description of an input for the feedback page (shapes, dtypes, layouts, modes, a few values), as Words."""
    if depth > 3:
        return "..."
    if isinstance(value, DescribedBytes):
        return value.words
    if isinstance(value, Call):
        parts = [describe(a, depth + 1) for a in value.args]
        parts += [Words("{name}={value}", name=k, value=describe(v, depth + 1)) for k, v in value.kwargs.items()]
        return Words("({arguments}){place}", arguments=_joined(parts),
                     place=Words(" (tensors and model on another device)") if value.place == "far" else "")
    if isinstance(value, torch.Tensor):
        shape = "(" + ", ".join(map(str, value.shape)) + ("," if value.dim() == 1 else "") + ")"
        dtype = str(value.dtype).replace("torch.", "")
        if not value.numel():
            return Words("an empty {shape} {dtype} tensor", shape=shape, dtype=dtype)
        view = "" if value.is_contiguous() and value.storage_offset() == 0 else Words(", a non-contiguous view")
        grad = Words(", requires_grad") if value.requires_grad else ""
        return Words("a {shape} {dtype} tensor{view}{grad}, {values}", shape=shape, dtype=dtype, view=view, grad=grad,
                     values=_numbers(value))
    if isinstance(value, nn.Module):
        kinds = " -> ".join(type(m).__name__ for m in value.modules() if not list(m.children()))
        return Words("a model ({layers}) in {mode}() mode", layers=kinds, mode="train" if value.training else "eval")
    if isinstance(value, torch.optim.Optimizer):
        rates = ", ".join(f"{group['lr']:g}" for group in value.param_groups)
        if len(value.param_groups) == 1:
            return Words("a {kind} optimizer (lr {rates})", kind=type(value).__name__, rates=rates)
        return Words("a {kind} optimizer with {groups} parameter groups (lr {rates})", kind=type(value).__name__,
                     groups=len(value.param_groups), rates=rates)
    if isinstance(value, torch.optim.lr_scheduler.LRScheduler):
        return Words("a {kind} schedule", kind=type(value).__name__)
    if isinstance(value, (list, tuple)):
        items = _joined([describe(v, depth + 1) for v in list(value)[:6]] + (["..."] if len(value) > 6 else []))
        if isinstance(value, list):
            return Words("[{items}]", items=items)
        return Words("({items},)", items=items) if len(value) == 1 else Words("({items})", items=items)
    if isinstance(value, dict):
        return Words("{{{items}}}", items=_joined([Words("{key}: {value}", key=repr(k), value=describe(v, depth + 1))
                                                 for k, v in list(value.items())[:6]]))
    if isinstance(value, float):
        return f"{value:.9g}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def words_data(message: Any) -> Any:
    """A description as JSON-ready data: a Words as its template and fields, anything else as text."""
    if isinstance(message, Words):
        return {"template": message.template, "fields": {k: words_data(v) for k, v in message.fields.items()}}
    return str(message)


def size(value: Any) -> float:
    """How big an input is, to pick the smallest failing one: elements first, then how large the numbers are."""
    if isinstance(value, Call):
        return sum(size(v) for v in (*value.args, *value.kwargs.values())) + (0.5 if value.place != "here" else 0)
    if isinstance(value, torch.Tensor):
        if not value.numel():
            return 0.0
        magnitude = value.detach().double().abs().nan_to_num(1e6, 1e6, 1e6).max().item()
        return value.numel() + min(magnitude, 1e6) / 1e6
    if isinstance(value, nn.Module):
        return float(sum(p.numel() for p in value.parameters()))
    if isinstance(value, (list, tuple)):
        return len(value) + sum(size(v) for v in value)
    if isinstance(value, dict):
        return len(value) + sum(size(v) for v in value.values())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return min(abs(float(value)), 1e6) / 1e6 if math.isfinite(value) else 1.0
    if isinstance(value, (str, bytes)):
        return len(value) / 100
    return 0.0
