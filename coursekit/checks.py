"""Checks that the notebooks' test cells call.

Each check either prints a one-line confirmation or raises :class:`CheckFailed` with what was
expected, what was found, and a hint a beginner can act on. ``CheckFailed`` is an ``AssertionError``,
so nbgrader counts it as a failed test like any other.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import torch

from .i18n import CHECK_CONTEXT, gettext as _, language, notebook_strings

__all__ = [
    "CheckFailed",
    "check",
    "check_tensor",
    "check_shape",
    "check_dtype",
    "check_device",
    "check_close",
    "check_equal",
    "rel_error",
    "shape_hint",
    "passed",
    "NeedsGPU",
    "GPU_SKIPPED",
    "run_gpu_checks",
]

# What a GPU-only check cell prints on a machine without CUDA (the grader looks for it, too).
GPU_SKIPPED = "checked on a GPU runner; skipped here"


class CheckFailed(AssertionError):
    """A check did not pass; the message says what to look at."""

    def __init__(self, what: str, hint: str | None = None):
        self.what = _notebook(what)
        self.hint = _notebook(hint) if hint else hint
        super().__init__(self.what + ("\n" + _("Hint: {hint}").format(hint=self.hint) if self.hint else ""))

    def _render_traceback_(self) -> list[str]:
        """What IPython shows: the message and hint first, then the cell line (coursekit.ipython_errors)."""
        from .ipython_errors import render_check_failure

        return render_check_failure(self)


def _notebook(text: str) -> str:
    """A message, hint or name a notebook's check cell wrote, in the kernel's language where the notebook's catalog
    translates it (translations/<language>/NN.po, context "check"); as written otherwise."""
    lang = language()
    return text if lang == "en" or not isinstance(text, str) else notebook_strings(lang).gettext(text, CHECK_CONTEXT)


class NeedsGPU(RuntimeError):
    """Raised where a GPU check cannot run on the grader's runner; graders report it, never score it."""


def run_gpu_checks() -> bool:
    """``if run_gpu_checks():`` opens a GPU-only check cell.

    With CUDA it returns True and the checks run. Without CUDA it prints one line and returns False,
    so a student's *Run All* and *Validate* go on to the end on a laptop. On the grader's GPU runner
    (``COURSEKIT_GPU_RUNNER`` set) a missing GPU raises :class:`NeedsGPU` instead: a skip there
    must never look like a pass.
    """
    if torch.cuda.is_available():
        return True
    if os.environ.get("COURSEKIT_GPU_RUNNER"):
        raise NeedsGPU("this GPU runner shows no CUDA device to the notebook: check the runner's drivers and "
                       "that the grader gives the sandbox the GPU (grade --runner gpu).")
    print(_("GPU-only check: {skipped} (this machine has no CUDA; it is neither passed nor failed)").format(
        skipped=GPU_SKIPPED))
    return False


def passed(message: str) -> None:
    """Print a confirmation line for a check that passed (a notebook's own words translated where its catalog can)."""
    print(f"\u2713 {_notebook(message)}")


def check(condition: Any, what: str, hint: str | None = None) -> None:
    """Fail with ``what`` (and ``hint``) unless ``condition`` is true."""
    if not condition:
        raise CheckFailed(what, hint)


def _describe(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, torch.Tensor):
        return _("a tensor of shape {shape} and dtype {dtype}").format(shape=tuple(value.shape), dtype=value.dtype)
    return _("a {type}").format(type=type(value).__name__)


def _overrides_torch_function(value: torch.Tensor) -> bool:
    """A tensor subclass that answers torch functions itself (it could answer True to any comparison)."""
    own = getattr(type(value), "__torch_function__", None)
    plain = (torch.Tensor.__torch_function__, torch.nn.Parameter.__torch_function__)
    return type(value) is not torch.Tensor and getattr(own, "__func__", own) not in [getattr(f, "__func__", f) for f in plain]


def _name(name: str) -> str:
    """The name a check reports: the kernel's word for "result", or the notebook's own name, translated where its
    catalog says how."""
    return _("result") if name == "result" else _notebook(name)


def check_tensor(value: Any, name: str = "result") -> torch.Tensor:
    """Fail unless ``value`` is a tensor; returns it, so checks can chain."""
    name = _name(name)
    if isinstance(value, torch.Tensor):
        if _overrides_torch_function(value):
            raise CheckFailed(_("{name} is a {type}, a tensor subclass with its own __torch_function__.").format(
                                  name=name, type=type(value).__name__),
                              _("return a plain torch.Tensor: the checks compare values, and a subclass could change "
                                "what a comparison answers."))
        return value
    if value is None:
        hint = _("a function without a `return` statement gives back None: did you forget to return the result?")
    elif isinstance(value, (list, tuple)):
        hint = _("wrap it with torch.tensor(...) or torch.stack(...), or use tensor operations from the start.")
    else:
        hint = _("use torch operations so the result stays a tensor (no .item(), .tolist() or .numpy()).")
    raise CheckFailed(_("{name} should be a torch.Tensor, got {got}.").format(name=name, got=_describe(value)), hint)


def shape_hint(actual: Sequence[int], expected: Sequence[int]) -> str | None:
    """A guess at the mistake that turns ``expected`` into ``actual``, or None."""
    actual, expected = tuple(actual), tuple(expected)
    if len(actual) == len(expected) and sorted(actual) == sorted(expected):
        if actual == expected[::-1]:
            return _("the sizes are reversed: did you swap the arguments of `view`/`reshape`, "
                     "or transpose when you did not need to?")
        return _("the same sizes in another order: check the order of the dimensions you passed to `permute`/`view`.")
    squeezed_a = tuple(s for s in actual if s != 1)
    squeezed_e = tuple(s for s in expected if s != 1)
    if squeezed_a == squeezed_e:
        return _("only a dimension of size 1 differs: look at `unsqueeze`/`squeeze` or `keepdim=`.")
    prod_a = 1
    for s in actual:
        prod_a *= s
    prod_e = 1
    for s in expected:
        prod_e *= s
    if prod_a == prod_e:
        return _("the same number of elements arranged differently: check the sizes you gave `view`/`reshape`.")
    if len(actual) == len(expected) - 1:
        return _("one dimension is missing: did a reduction (sum, mean, max) drop it? Try `keepdim=True`.")
    if len(actual) == len(expected) + 1:
        return _("there is one dimension too many: was a size-1 dimension added, or a reduction forgotten?")
    if prod_a > prod_e:
        return _("the result is larger than expected: broadcasting may have combined two tensors you meant to match "
                 "element by element.")
    return None


def check_shape(value: Any, expected: Sequence[int], name: str = "result", hint: str | None = None) -> None:
    tensor = check_tensor(value, name)
    actual, expected = tuple(tensor.shape), tuple(expected)
    if actual != expected:
        raise CheckFailed(_("{name} should have shape {expected}, got {actual}.").format(
            name=_name(name), expected=expected, actual=actual), hint or shape_hint(actual, expected))


def _dtype_hint(actual: torch.dtype, expected: torch.dtype) -> str:
    if actual == torch.float64 and expected == torch.float32:
        return _("float64 usually comes from NumPy (torch.from_numpy keeps it): add `.float()` or pass "
                 "dtype=torch.float32.")
    if expected.is_floating_point and not actual.is_floating_point:
        return _("integer inputs give integer tensors (torch.arange(5), torch.tensor([1, 2])): pass dtype=torch.float32 "
                 "or call `.float()`.")
    if actual.is_floating_point and not expected.is_floating_point:
        return _("class labels and indices must be integers: use `.long()` (int64).")
    return _("convert with `.to({dtype})`.").format(dtype=expected)


def check_dtype(value: Any, expected: torch.dtype, name: str = "result") -> None:
    tensor = check_tensor(value, name)
    if tensor.dtype != expected:
        raise CheckFailed(_("{name} should have dtype {expected}, got {actual}.").format(
            name=_name(name), expected=expected, actual=tensor.dtype), _dtype_hint(tensor.dtype, expected))


def check_device(value: Any, expected: torch.device | str, name: str = "result") -> None:
    tensor = check_tensor(value, name)
    expected = torch.device(expected)
    if tensor.device.type != expected.type or (expected.index is not None and (tensor.device.index or 0) != expected.index):
        raise CheckFailed(
            _("{name} should be on device {expected}, got {actual}.").format(name=_name(name), expected=expected,
                                                                              actual=tensor.device),
            _("never write 'cpu' or 'cuda' inside a function: take the device from an input "
              "(`x.device`) or from a `device` argument, and create new tensors with `device=`."),
        )


def rel_error(actual: torch.Tensor, expected: torch.Tensor) -> float:
    """Largest elementwise relative error, |a - e| / max(|a| + |e|, 1e-12)."""
    a = actual.detach().double().cpu()
    e = expected.detach().double().cpu()
    return ((a - e).abs() / (a.abs() + e.abs()).clamp_min(1e-12)).max().item()


def check_close(
    actual: Any,
    expected: Any,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-8,
    name: str = "result",
    hint: str | None = None,
    quiet: bool = False,
) -> None:
    """Compare like ``torch.allclose`` after shape and dtype checks; print the error measured.

    It returns nothing on purpose: nbgrader reads a number left as a test cell's last value as
    that cell's partial score, so a returned error of 0.0 would cost the student every point.
    Use :func:`rel_error` to get the number itself.
    """
    actual = check_tensor(actual, name)
    expected = torch.as_tensor(expected)
    check_shape(actual, expected.shape, name)
    if actual.dtype.is_floating_point != expected.dtype.is_floating_point:
        check_dtype(actual, expected.dtype, name)
    a = actual.detach().cpu().to(torch.float64)
    e = expected.detach().cpu().to(torch.float64)
    abs_err = (a - e).abs().max().item() if a.numel() else 0.0
    rel = rel_error(a, e) if a.numel() else 0.0
    if not torch.allclose(a, e, rtol=rtol, atol=atol, equal_nan=False):
        worst = int((a - e).abs().flatten().argmax()) if a.numel() else 0
        raise CheckFailed(
            _("{name} differs from the expected values: max abs error {abs_err:.3g}, max relative error {rel:.3g} "
              "(allowed: rtol={rtol:g}, atol={atol:g}); the largest difference is at flat index {worst}: "
              "got {got:.6g}, expected {expected:.6g}.").format(
                name=_name(name), abs_err=abs_err, rel=rel, rtol=rtol, atol=atol, worst=worst,
                got=a.flatten()[worst].item(), expected=e.flatten()[worst].item()),
            hint,
        )
    if not quiet:
        passed(_("{name} matches (max abs error {abs_err:.2e}, max relative error {rel:.2e})").format(
            name=_name(name), abs_err=abs_err, rel=rel))


def check_equal(actual: Any, expected: Any, name: str = "result", hint: str | None = None) -> None:
    """Exact equality for plain values (numbers, strings, tuples) and for tensors."""
    if isinstance(expected, torch.Tensor):
        actual = check_tensor(actual, name)
        check_shape(actual, expected.shape, name)
        check_dtype(actual, expected.dtype, name)
        ok = torch.equal(actual.cpu(), expected.cpu())
    else:
        ok = actual == expected
    if not ok:
        raise CheckFailed(_("{name} should be {expected!r}, got {actual!r}.").format(
            name=_name(name), expected=expected, actual=actual), hint)
