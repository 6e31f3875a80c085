"""The rules that judge a hidden test's records, outside the sandbox, and the words the feedback uses.

A record (coursekit/hidden.py) carries a value as data. A rule gets the student's value and the
reference run's (the course's solution on the same inputs) and returns ``None`` when the check passes,
or what went wrong in the grader's own words. Rules, tolerances and hints always come from the
reference record; the student's record contributes its value only.

The words never quote text the student's kernel made (strings, error messages, class names of the
notebook's own classes): a feedback page must not carry anything the kernel could have encoded in it.
Numbers, shapes, dtypes and devices are shown; strings and messages are read here and never shown.

Rules of the library: ``same``, ``like``, ``accuracy``, ``raises``, ``at_least``, ``at_most``,
``between``, ``finite``, ``logits``, ``reproducible``, ``generated``. A test cell can add its own in a ``### BEGIN GRADER`` block (core/regions.py): a function
``rule(got, reference, **params)`` of decoded values (``decode``) that returns ``None`` or a message.
"""

from __future__ import annotations

import base64
import builtins
import math
from dataclasses import dataclass
from typing import Any, Callable

import torch

from ..core.editions import i18n

# The grader's words are Words: English everywhere (CSV, logs, tests), and said again in the student's language by
# the feedback page (feedback.py), from the autograder catalog (translations/<code>/autograder.po).
Words = i18n().Words

Rule = Callable[..., "str | None"]
SHOWN_VALUES = 3          # numbers of a tensor shown in a message


# --- decoding, for rules that compute ------------------------------------------------------------------

@dataclass(frozen=True)
class Raised:
    """An error the code raised: its class and base classes' names, and its message (never shown)."""
    classes: tuple[str, ...]
    message: str

    def is_a(self, name: str) -> bool:
        return name in self.classes


@dataclass(frozen=True)
class Opaque:
    """A value of a type the kernel does not send (a class of the notebook's, a tensor subclass, ...)."""
    kind: str


def tensor_of(enc: dict) -> torch.Tensor:
    """The tensor a record holds, on the CPU (or the ``meta`` device when no values were sent)."""
    dtype = getattr(torch, enc["dtype"], None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"unknown dtype {enc['dtype']!r}")
    if "data" not in enc:
        return torch.empty(enc["shape"], dtype=dtype, device="meta")
    wire = getattr(torch, enc["wire"])
    raw = base64.b64decode(enc["data"])
    flat = torch.frombuffer(bytearray(raw), dtype=wire) if raw else torch.empty(0, dtype=wire)
    values = flat.reshape(enc["shape"] + ([2] if dtype.is_complex else []))
    if dtype.is_complex:
        values = torch.view_as_complex(values.contiguous())
    return values.to(dtype)


def decode(enc: dict) -> Any:
    """A record's value as Python and torch objects (tensors on the CPU, or ``meta`` without values)."""
    t = enc.get("t")
    if t == "none":
        return None
    if t in ("bool", "str"):
        return enc["v"]
    if t == "int":
        return int(enc["v"])
    if t in ("float", "numpy_scalar"):
        return float(enc["v"])  # a number, or 'nan', 'inf' and '-inf' as strings: float() reads both
    if t == "tensor":
        return tensor_of(enc)
    if t == "ndarray":
        return tensor_of(enc["of"]).numpy()
    if t == "dtype":
        return getattr(torch, enc["v"])
    if t == "device":
        return torch.device(enc["v"], enc.get("index"))
    if t == "size":
        return torch.Size(enc["v"])
    if t in ("list", "tuple"):
        items = [decode(v) for v in enc["items"]]
        return items if t == "list" else tuple(items)
    if t == "dict":
        return {_key(decode(k)): decode(v) for k, v in enc["items"]}
    if t == "raised":
        return Raised(tuple(enc.get("mro", ())), enc.get("message", ""))
    if t == "module":
        return decode(enc["state"])
    return Opaque(t or "unknown")


def _key(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, tuple, type(None))) else repr(value)


# --- the grader's words ----------------------------------------------------------------------------------

def error_name(mro: tuple[str, ...] | list[str]) -> str:
    """A safe name for an error: the first class in its hierarchy that Python or PyTorch defines."""
    for name in mro:
        if isinstance(getattr(builtins, name, None), type) or name in ("CheckFailed", "OutOfMemoryError"):
            return name
    return Words("an error")


def expected_error(ref: dict) -> str:
    """The name of the error the reference run raised: its own class name (the course's solution raised it, so the
    name is the course's, safe to show: pickle's UnpicklingError, not just "Exception"), else ``error_name``."""
    mro = ref.get("mro") or ()
    first = mro[0] if mro and isinstance(mro[0], str) else ""
    return first if first.isidentifier() and len(first) <= 60 else error_name(mro)


def _shape(shape: list[int]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _float_text(v: Any) -> str:
    return str(v) if isinstance(v, str) else f"{v:.6g}"   # a value: never translated


def describe(enc: dict, *, show: bool) -> str:
    """What a value is, in words; its content only when ``show`` (the reference's values) or for numbers."""
    t = enc.get("t")
    if t == "none":
        return "None"
    if t == "bool":
        return str(enc["v"])
    if t == "int":
        return Words("the int {value}", value=str(enc["v"]))
    if t in ("float", "numpy_scalar"):
        if t == "float":
            return Words("the float {value}", value=_float_text(enc["v"]))
        return Words("the NumPy {dtype} {value}", dtype=str(enc.get("dtype", "number")), value=_float_text(enc["v"]))
    if t == "str":
        return Words("the string {text}", text=repr(enc["v"][:80])) if show else \
            Words("a string ({length} characters)", length=enc.get("length", 0))
    if t == "tensor":
        return Words("a {dtype} tensor of shape {shape} on {device}", dtype=str(enc["dtype"]), shape=_shape(enc["shape"]),
                     device=str(enc["device"]))
    if t == "ndarray":
        return Words("a NumPy array of shape {shape}", shape=_shape(enc["of"]["shape"]))
    if t == "tensor_subclass":
        return Words("a tensor subclass (return a plain torch.Tensor)")
    if t == "dtype":
        return f"torch.{enc['v']}"
    if t == "device":
        return Words("the device {device}", device=repr(enc["v"]))
    if t == "size":
        return f"torch.Size({enc['v']})"
    if t in ("list", "tuple"):
        return Words("a list of {n} items" if t == "list" else "a tuple of {n} items",
                     n=enc.get("length", len(enc["items"])))
    if t == "dict":
        if show:
            keys = [describe(k, show=True) for k, _ in enc["items"]][:6]
            return Words("a dict with keys {keys}", keys=", ".join(keys))
        return Words("a dict of {n} items", n=enc.get("length", len(enc["items"])))
    if t == "raised":
        return Words("an error ({name})", name=error_name(enc.get("mro", ())))
    if t == "module":
        return Words("a {name} module", name=str(enc["class"])) if enc.get("class") else Words("an nn.Module")
    if t == "other":
        return Words("a {name}", name=str(enc["class"])) if enc.get("class") and show else Words("an object of another type")
    return Words("a value the grader cannot read")


# --- the library -----------------------------------------------------------------------------------------

def _where(path: str) -> str:
    return Words(" (at {path})", path=path) if path else ""


def _compare_tensors(got: dict, ref: dict, path: str, rtol: float, atol: float, dtype: bool, grad: bool,
                     values: bool) -> str | None:
    if got["shape"] != ref["shape"]:
        return Words("expected shape {expected}, got {got}{where}", expected=_shape(ref["shape"]), got=_shape(got["shape"]),
                     where=_where(path))
    if dtype and got["dtype"] != ref["dtype"]:
        return Words("expected dtype {expected}, got {got}{where}", expected=str(ref["dtype"]), got=str(got["dtype"]),
                     where=_where(path))
    if got["device"] != ref["device"]:
        return Words("expected a tensor on {expected}, got one on {got}{where}", expected=str(ref["device"]),
                     got=str(got["device"]), where=_where(path))
    if grad and (got["requires_grad"] or got["graph"]) != (ref["requires_grad"] or ref["graph"]):
        if ref["requires_grad"] or ref["graph"]:
            return Words("expected the tensor to carry its autograd graph{where}", where=_where(path))
        return Words("expected the tensor to carry no autograd graph (detached){where}", where=_where(path))
    if not values or "data" not in ref:
        return None
    if got.get("too_large") or "data" not in got:
        return Words("the tensor's values could not be read{where}", where=_where(path))
    a, e = tensor_of(got), tensor_of(ref)
    if a.numel() == 0:
        return None
    exact = not (e.dtype.is_floating_point or e.dtype.is_complex)
    a64, e64 = a.to(torch.complex128 if e.dtype.is_complex else torch.float64), e.to(
        torch.complex128 if e.dtype.is_complex else torch.float64)
    if exact:
        ok = torch.equal(a64, e64)
    else:
        ok = torch.allclose(a64, e64, rtol=rtol, atol=atol, equal_nan=True)
    if ok:
        return None
    diff = (a64 - e64).abs()
    both_nan = torch.isnan(a64) & torch.isnan(e64)
    diff = torch.where(both_nan, torch.zeros_like(diff), torch.where(torch.isnan(diff), torch.full_like(diff, float("inf")), diff))
    worst = int(diff.flatten().argmax())
    wrong = int((~torch.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=True)).sum()) if not exact else int((a64 != e64).sum())
    shown = ", ".join(_float_text(float(x)) for x in e.flatten()[:SHOWN_VALUES].double().real)
    got_shown = ", ".join(_float_text(float(x)) for x in a.flatten()[:SHOWN_VALUES].double().real)
    tolerance = Words("exactly") if exact else Words("within rtol={rtol}, atol={atol}", rtol=f"{rtol:g}", atol=f"{atol:g}")
    return Words("{wrong} of {n} values differ{where} (compared {tolerance}); the largest difference is at flat index "
                 "{worst}: got {got}, expected {expected}. First values expected: {shown}; got: {got_shown}",
                 wrong=wrong, n=a.numel(), where=_where(path), tolerance=tolerance, worst=worst,
                 got=_float_text(float(a64.flatten()[worst].real)), expected=_float_text(float(e64.flatten()[worst].real)),
                 shown=shown, got_shown=got_shown)


def _expected(ref: dict, got: dict, path: str) -> str:
    return Words("expected {expected}, got {got}{where}", expected=describe(ref, show=True), got=describe(got, show=False),
                 where=_where(path))


def _compare(got: dict, ref: dict, path: str, **how) -> str | None:
    gt, rt = got.get("t"), ref.get("t")
    if gt != rt:
        return _expected(ref, got, path)
    values = how["values"]
    if rt == "tensor":
        return _compare_tensors(got, ref, path, **how)
    if rt == "ndarray":
        return _compare_tensors(got["of"], ref["of"], path, **how)
    if rt in ("list", "tuple"):
        if got.get("length") != ref.get("length"):
            return _expected(ref, got, path)
        for k, (g, r) in enumerate(zip(got["items"], ref["items"])):
            found = _compare(g, r, f"{path}[{k}]", **how)
            if found:
                return found
        return None
    if rt == "dict":
        ref_keys = [json_key(k) for k, _ in ref["items"]]
        got_items = {json_key(k): v for k, v in got["items"]}
        if sorted(ref_keys) != sorted(got_items) or got.get("length") != ref.get("length"):
            return _expected(ref, got, path)
        for (k, r), key in zip(ref["items"], ref_keys):
            found = _compare(got_items[key], r, f"{path}[{describe(k, show=True)}]", **how)
            if found:
                return found
        return None
    if rt == "module":
        if got.get("class") != ref.get("class"):
            return _expected(ref, got, path)
        return _compare(got["state"], ref["state"], f"{path}.state_dict()", **how)
    if rt == "raised":
        name = expected_error(ref)
        if ref["mro"][0] not in got.get("mro", ()):
            return Words("expected an error ({name}), got {got}{where}", name=name, got=describe(got, show=False),
                         where=_where(path))
        return None
    if rt == "other":
        return None if got.get("class") == ref.get("class") else \
            _expected(ref, got, path)
    if not values and rt in ("float", "int", "bool", "str", "numpy_scalar"):
        return None
    if rt in ("float", "numpy_scalar"):
        g, r = float(got["v"]), float(ref["v"])
        if (math.isnan(g) and math.isnan(r)) or g == r or math.isclose(g, r, rel_tol=how["rtol"], abs_tol=how["atol"]):
            return None
        return _expected(ref, got, path)
    if got.get("v") != ref.get("v") or got.get("index") != ref.get("index"):
        return _expected(ref, got, path)
    return None


def json_key(enc: dict) -> str:
    return f"{enc.get('t')}:{enc.get('v', '')}"


def same(got: dict, ref: dict, rtol: float = 1e-5, atol: float = 1e-8, dtype: bool = True, grad: bool = False) -> str | None:
    """The student's value equals the reference's (see coursekit.hidden.same)."""
    return _compare(got, ref, "", rtol=rtol, atol=atol, dtype=dtype, grad=grad, values=True)


def like(got: dict, ref: dict) -> str | None:
    """The same structure, types, shapes, dtypes and devices; values not compared (errors must match too)."""
    return _compare(got, ref, "", rtol=0.0, atol=0.0, dtype=True, grad=False, values=False)


def accuracy(got: dict, ref: dict, at_least: float) -> str | None:
    """The student's predictions (``got``'s first item) against the reference's labels (``ref``'s second)."""
    if got.get("t") != "list" or len(got.get("items", ())) != 2:
        return Words("the predictions could not be read")
    predictions, labels = got["items"][0], ref["items"][1]
    if predictions.get("t") != "tensor" or "data" not in predictions:
        return Words("expected a tensor of predicted classes, got {got}", got=describe(predictions, show=False))
    if predictions["shape"] != labels["shape"]:
        return Words("expected {n} predictions (shape {shape}), got shape {got}", n=labels["shape"][0] if labels["shape"] else 1,
                     shape=_shape(labels["shape"]), got=_shape(predictions["shape"]))
    right = (tensor_of(predictions).long() == tensor_of(labels).long()).double()
    share = float(right.mean()) if right.numel() else 0.0
    if share >= at_least:
        return None
    return Words("{share:.1%} of {n} predictions are right; at least {needed:.0%} are needed", share=share, n=right.numel(),
                 needed=at_least)


def raises(got: dict, ref: dict, words: list[str] = ()) -> str | None:
    """The student's code raised the reference's error (or a subclass), with one of ``words`` in its message."""
    if ref.get("t") != "raised":
        return Words("the reference run raised no error here: the test is wrong (tell your instructor)")
    name = expected_error(ref)
    if got.get("t") != "raised":
        return Words("expected an error ({name}), but the code returned {got}", name=name, got=describe(got, show=False))
    if ref["mro"][0] not in got.get("mro", ()):
        return Words("expected an error of type {name}, got {got}", name=name, got=describe(got, show=False))
    if words and not any(w in got.get("message", "").lower() for w in words):
        return Words("the {name} should say what is wrong, mentioning {word}", name=name, word=repr(words[0]))
    return None


def _numbers(enc: dict) -> torch.Tensor | None:
    """A number, or every value of a tensor (or of a list of numbers and tensors), as float64; None otherwise."""
    t = enc.get("t")
    if t in ("float", "int", "numpy_scalar", "bool"):
        return torch.tensor([float(enc["v"])], dtype=torch.float64)
    if t == "tensor" and "data" in enc:
        return tensor_of(enc).detach().double().reshape(-1).real
    if t in ("list", "tuple"):
        parts = [_numbers(item) for item in enc["items"]]
        return None if any(p is None for p in parts) else torch.cat(parts) if parts else torch.zeros(0, dtype=torch.float64)
    return None


def _bounded(got: dict, low: float | None, high: float | None) -> str | None:
    values = _numbers(got)
    if values is None:
        return Words("expected numbers, got {got}", got=describe(got, show=False))
    bounds = Words("at least {low}", low=f"{low:g}") if high is None else Words("at most {high}", high=f"{high:g}") \
        if low is None else Words("between {low} and {high}", low=f"{low:g}", high=f"{high:g}")
    bad = torch.isnan(values) | (values < low if low is not None else False) | (values > high if high is not None else False)
    if not bool(bad.any()):
        return None
    worst = values[bad][0].item()
    if values.numel() == 1:
        return Words("expected a number {bounds}, got {got}", bounds=bounds, got=_float_text(worst))
    return Words("expected every value {bounds} ({bad} of {n} values are not; one is {worst})", bounds=bounds,
                 bad=int(bad.sum()), n=values.numel(), worst=_float_text(worst))


def at_least(got: dict, ref: dict, low: float) -> str | None:
    return _bounded(got, low, None)


def at_most(got: dict, ref: dict, high: float) -> str | None:
    return _bounded(got, None, high)


def between(got: dict, ref: dict, low: float, high: float) -> str | None:
    return _bounded(got, low, high)


def finite(got: dict, ref: dict) -> str | None:
    """Every value is a finite number (no inf or NaN)."""
    values = _numbers(got)
    if values is None:
        return Words("expected numbers, got {got}", got=describe(got, show=False))
    bad = int((~torch.isfinite(values)).sum())
    return None if not bad else Words("{bad} of {n} values are inf or NaN", bad=bad, n=values.numel())


def logits(got: dict, ref: dict) -> str | None:
    """Each tensor (a list of them: every one) holds raw scores: not rows of probabilities (in [0, 1], summing to 1)
    and not rows of log-probabilities (logsumexp 0)."""
    items = got["items"] if got.get("t") in ("list", "tuple") else [got]
    if not items:
        return Words("nothing was recorded (the code never called what the test watches)")
    for item in items:
        if item.get("t") != "tensor" or "data" not in item:
            return Words("expected a tensor of scores, got {got}", got=describe(item, show=False))
        out = tensor_of(item).detach().double()
        rows = out.reshape(-1, out.shape[-1]) if out.dim() > 1 else out.reshape(1, -1)
        if rows.numel() == 0:
            continue
        if bool(((rows >= 0) & (rows <= 1)).all()) and torch.allclose(rows.sum(-1), torch.ones(rows.shape[0], dtype=rows.dtype), atol=1e-3):
            return Words("the scores look like probabilities: every row is in [0, 1] and sums to 1 (a softmax too many)")
        if bool((rows <= 0).all()) and torch.allclose(rows.logsumexp(-1), torch.zeros(rows.shape[0], dtype=rows.dtype), atol=1e-3):
            return Words("the scores look like log-probabilities: every row's logsumexp is 0 (a log_softmax too many)")
    return None


def reproducible(got: dict, ref: dict) -> str | None:
    """``testing.reproducibility``: the same seed twice gives the same result, another seed another one."""
    if got.get("t") != "dict":
        return Words("expected the three runs, got {got}", got=describe(got, show=False))
    runs = {json_key(k)[4:]: v for k, v in got["items"]}
    if set(runs) != {"first", "again", "other_seed"}:
        return Words("the three runs could not be read")
    if same(runs["again"], runs["first"], rtol=0.0, atol=0.0):
        return Words("the same seed gave different results once the global random state changed: draw every random "
                     "number from the generator (or seed) you were given")
    if same(runs["other_seed"], runs["first"], rtol=0.0, atol=0.0) is None:
        return Words("another seed gave the same result: the seed is not used")
    return None


GENERATED_COMPARISONS = ("same", "like", "raises")


def generated(got: dict, ref: dict, compare: str = "same", state: bool = False, **params) -> str | None:
    """``hidden.generated``: each drawn input's result (and, with ``state``, the arguments as the call left them)
    compared with the reference's by ``compare``; the failure reported is the one on the smallest input, described
    in the reference run's words (the student's run sends its own descriptions, which are never read)."""
    if compare not in GENERATED_COMPARISONS:
        return Words("the test names a comparison the grader does not know ({compare}): tell your instructor",
                     compare=repr(compare))
    expected = ref.get("draws") or []
    draws = got.get("draws") if got.get("t") == "generated" else None
    if not isinstance(draws, list) or len(draws) != len(expected):
        return Words("the results of the {count} generated inputs could not be read (the code under test stopped early?)",
                     count=len(expected))
    rule, failures = LIBRARY[compare], []
    for k, (mine, theirs) in enumerate(zip(draws, expected)):
        message = rule(mine.get("result") or {}, theirs["result"], **params)
        if message is None and state and theirs.get("state") is not None:
            changed = same(mine.get("state") or {}, theirs["state"], rtol=params.get("rtol", 1e-5),
                           atol=params.get("atol", 1e-8))
            if changed:
                message = Words("the arguments are not left as the solution leaves them: {difference}", difference=changed)
        if message:
            failures.append((float(theirs.get("size", 0.0)), k, message))
    if not failures:
        return None
    _, k, message = min(failures)
    return Words("{failing} of {count} generated inputs give another result than the solution's. The smallest of them: "
                 "{input}. There, {difference}", failing=len(failures), count=len(expected),
                 input=_described(expected[k]), difference=message)


def _words_from(data: Any, depth: int = 0) -> Any:
    """A description's Words rebuilt from the reference run's data (coursekit.strategies.words_data)."""
    if isinstance(data, dict) and isinstance(data.get("template"), str) and isinstance(data.get("fields"), dict) \
            and depth < 40:
        try:
            return Words(data["template"], **{str(k): _words_from(v, depth + 1) for k, v in data["fields"].items()})
        except (KeyError, IndexError, ValueError):
            return None
    return data if isinstance(data, str) else None


def _described(draw: dict) -> Any:
    """How the reference run described a drawn input: as Words where it sent them (so a page can translate it), else
    its English text."""
    rebuilt = _words_from(draw.get("words"))
    return rebuilt if isinstance(rebuilt, Words) and str(rebuilt) == draw.get("input") else draw.get("input", "")


LIBRARY: dict[str, Rule] = {"same": same, "like": like, "accuracy": accuracy, "raises": raises, "at_least": at_least,
                            "at_most": at_most, "between": between, "finite": finite, "logits": logits,
                            "reproducible": reproducible, "generated": generated}


def _decoded(fn: Callable) -> Rule:
    def rule(got: dict, ref: dict, **params):
        return fn(decode(got), decode(ref), **params)
    return rule


def notebook_rules(blocks: list[tuple[str, str]], where: str) -> dict[str, dict[str, Rule]]:
    """Each test cell's rules, from the GRADER blocks of a notebook's test cells in order (``(grade_id, code)``; the
    course's own code, run here, never in the box). A block's functions serve its own cell and every test cell after
    it, so a rule two cells share is written once; a later block may call an earlier block's functions. Rule functions
    get decoded values; the library rules get the records' data."""
    namespace: dict[str, Any] = {"torch": torch, "math": math, "decode": decode, "Raised": Raised, "Opaque": Opaque,
                                 "__name__": f"grader_blocks_{where}"}
    found: dict[str, dict[str, Rule]] = {}
    for cell, code in blocks:
        if code.strip():
            exec(compile(code, f"<GRADER block of {where}/{cell}>", "exec"), namespace)  # noqa: S102 - the course's code
        found[cell] = {name: _decoded(fn) for name, fn in namespace.items()
                       if callable(fn) and getattr(fn, "__module__", None) == namespace["__name__"]}
    return found


def cell_rules(grader_code: str, where: str) -> dict[str, Rule]:
    """The rules of one GRADER block alone (see ``notebook_rules``)."""
    return notebook_rules([("cell", grader_code)], where)["cell"]
