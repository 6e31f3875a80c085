"""Tests for ``coursekit.checks``: each check passes on good input and fails with an actionable hint."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from coursekit import checks
from coursekit.checks import (
    CheckFailed,
    check,
    check_close,
    check_device,
    check_dtype,
    check_equal,
    check_shape,
    check_tensor,
    rel_error,
    shape_hint,
)

# --- CheckFailed and check -------------------------------------------------------------------------


def test_check_failed_is_an_assertion_error_with_hint():
    exc = CheckFailed("x is wrong", "do y")
    assert isinstance(exc, AssertionError)
    assert exc.what == "x is wrong" and exc.hint == "do y"
    assert str(exc) == "x is wrong\nHint: do y"
    assert str(CheckFailed("only what")) == "only what"


def test_check():
    check(True, "never shown")
    check(1, "never shown")
    with pytest.raises(CheckFailed, match="must be positive") as info:
        check(0, "x must be positive", "use relu")
    assert info.value.hint == "use relu"
    with pytest.raises(AssertionError):  # nbgrader sees a plain failed assertion
        check(False, "failed")


def test_passed_prints_a_tick(capsys):
    checks.passed("all good")
    assert capsys.readouterr().out == "\u2713 all good\n"


# --- check_tensor ----------------------------------------------------------------------------------


def test_check_tensor_returns_the_tensor():
    x = torch.zeros(2)
    assert check_tensor(x) is x


def test_check_tensor_none_mentions_return():
    with pytest.raises(CheckFailed) as info:
        check_tensor(None, name="output")
    assert "output should be a torch.Tensor, got None" in str(info.value)
    assert "return" in info.value.hint


@pytest.mark.parametrize("value", [[1.0, 2.0], (1, 2)])
def test_check_tensor_list_suggests_torch_tensor(value):
    with pytest.raises(CheckFailed) as info:
        check_tensor(value)
    assert "torch.tensor" in info.value.hint or "torch.stack" in info.value.hint


def test_check_tensor_number_mentions_item():
    with pytest.raises(CheckFailed) as info:
        check_tensor(3.0)
    assert "got a float" in str(info.value)
    assert ".item()" in info.value.hint


# --- check_shape -----------------------------------------------------------------------------------


def test_check_shape_passes():
    check_shape(torch.zeros(3, 4), (3, 4))
    check_shape(torch.zeros(3, 4), torch.Size([3, 4]))
    check_shape(torch.tensor(1.0), ())


def test_check_shape_swapped_dims_mentions_view():
    with pytest.raises(CheckFailed) as info:
        check_shape(torch.zeros(4, 3), (3, 4), name="logits")
    assert "logits should have shape (3, 4), got (4, 3)" in str(info.value)
    assert "view" in info.value.hint


def test_check_shape_custom_hint_wins():
    with pytest.raises(CheckFailed) as info:
        check_shape(torch.zeros(4, 3), (3, 4), hint="read the docstring")
    assert info.value.hint == "read the docstring"


def test_check_shape_on_non_tensor():
    with pytest.raises(CheckFailed, match="return"):
        check_shape(None, (3,))


@pytest.mark.parametrize(
    "actual, expected, needle",
    [
        ((3, 4, 5), (3, 5, 4), "permute"),  # same sizes, another order (not reversed)
        ((3, 1, 4), (3, 4), "unsqueeze"),  # a size-1 dimension differs
        ((12,), (3, 4), "view"),  # same number of elements
        ((3,), (3, 4), "keepdim"),  # a reduction dropped a dimension
        ((3, 4, 2), (3, 4), "one dimension too many"),
        ((3, 3), (3,), "one dimension too many"),
        ((8, 8), (2, 3), "broadcasting"),
    ],
)
def test_shape_hint_cases(actual, expected, needle):
    assert needle in shape_hint(actual, expected)


def test_shape_hint_none_when_no_guess():
    assert shape_hint((2, 2), (3, 5)) is None


# --- check_dtype -----------------------------------------------------------------------------------


def test_check_dtype_passes():
    check_dtype(torch.zeros(2), torch.float32)
    check_dtype(torch.zeros(2, dtype=torch.int64), torch.int64)


def test_check_dtype_float64_mentions_numpy():
    with pytest.raises(CheckFailed) as info:
        check_dtype(torch.zeros(2, dtype=torch.float64), torch.float32, name="x")
    assert "x should have dtype torch.float32, got torch.float64" in str(info.value)
    assert "NumPy" in info.value.hint
    assert ".float()" in info.value.hint


@pytest.mark.parametrize(
    "actual, expected, needle",
    [
        (torch.int64, torch.float32, "dtype=torch.float32"),  # integer where floats were expected
        (torch.float32, torch.int64, ".long()"),  # float labels
        (torch.int32, torch.int64, ".to(torch.int64)"),  # anything else
    ],
)
def test_check_dtype_other_hints(actual, expected, needle):
    with pytest.raises(CheckFailed) as info:
        check_dtype(torch.zeros(2, dtype=actual), expected)
    assert needle in info.value.hint


# --- check_device ----------------------------------------------------------------------------------


def test_check_device_passes():
    check_device(torch.zeros(2), "cpu")
    check_device(torch.zeros(2), torch.device("cpu"))


def test_check_device_fails_with_hint():
    # A "meta" tensor stands in for a tensor on another device; no GPU needed.
    with pytest.raises(CheckFailed) as info:
        check_device(torch.zeros(2, device="meta"), "cpu", name="h")
    assert "h should be on device cpu, got meta" in str(info.value)
    assert "x.device" in info.value.hint and "device=" in info.value.hint
    with pytest.raises(CheckFailed, match="should be on device cuda"):
        check_device(torch.zeros(2), "cuda")


# --- check_close and rel_error ---------------------------------------------------------------------


def test_check_close_prints_the_error_on_success(capsys):
    x = torch.tensor([1.0, 2.0, 3.0])
    assert check_close(x * (1 + 1e-6), x, name="y") is None  # a number would be read as a partial score
    out = capsys.readouterr().out
    assert out.startswith("\u2713 y matches")
    assert "max abs error" in out and "max relative error" in out
    assert 0 < rel_error(x * (1 + 1e-6), x) < 1e-5


def test_check_close_quiet(capsys):
    check_close(torch.ones(3), torch.ones(3), quiet=True)
    assert capsys.readouterr().out == ""


def test_check_close_accepts_lists_and_empty_tensors(capsys):
    check_close(torch.tensor([1.0, 2.0]), [1.0, 2.0])
    check_close(torch.zeros(0, 3), torch.zeros(0, 3))


def test_check_close_reports_errors_on_failure():
    expected = torch.tensor([1.0, 2.0, 3.0, 4.0])
    actual = expected.clone()
    actual[2] = 3.5
    with pytest.raises(CheckFailed) as info:
        check_close(actual, expected, name="out", hint="check the bias")
    message = str(info.value)
    assert "max abs error 0.5" in message
    assert "max relative error 0.0769" in message  # 0.5 / (3.5 + 3)
    assert "flat index 2" in message and "got 3.5" in message and "expected 3" in message
    assert info.value.hint == "check the bias"


def test_check_close_checks_shape_and_kind_of_dtype():
    with pytest.raises(CheckFailed, match="shape"):
        check_close(torch.zeros(3, 2), torch.zeros(2, 3))
    with pytest.raises(CheckFailed, match="dtype"):
        check_close(torch.zeros(3, dtype=torch.int64), torch.zeros(3))
    with pytest.raises(CheckFailed, match="return"):
        check_close(None, torch.zeros(3))


def test_check_close_nan_fails():
    with pytest.raises(CheckFailed):
        check_close(torch.tensor([float("nan")]), torch.tensor([1.0]), quiet=True)


def test_check_close_respects_tolerances():
    check_close(torch.tensor([1.01]), torch.tensor([1.0]), rtol=0.02, quiet=True)
    with pytest.raises(CheckFailed, match="rtol=0.001"):
        check_close(torch.tensor([1.01]), torch.tensor([1.0]), rtol=1e-3, quiet=True)


def test_rel_error_values():
    assert rel_error(torch.tensor([1.0]), torch.tensor([3.0])) == pytest.approx(0.5)
    assert rel_error(torch.zeros(3), torch.zeros(3)) == 0.0


# --- check_equal -----------------------------------------------------------------------------------


def test_check_equal():
    check_equal(3, 3)
    check_equal((1, 2), (1, 2))
    check_equal(torch.tensor([1, 2]), torch.tensor([1, 2]))
    with pytest.raises(CheckFailed, match="should be 4, got 3"):
        check_equal(3, 4, name="n")
    with pytest.raises(CheckFailed, match="dtype"):
        check_equal(torch.tensor([1.0, 2.0]), torch.tensor([1, 2]))
    with pytest.raises(CheckFailed):
        check_equal(torch.tensor([1, 3]), torch.tensor([1, 2]))


# --- properties ------------------------------------------------------------------------------------

_finite = st.floats(min_value=-(2.0**100), max_value=2.0**100, allow_nan=False, allow_infinity=False, width=32)
_dtypes = st.sampled_from([torch.float32, torch.float64])


@st.composite
def tensor_pairs(draw):
    n = draw(st.integers(1, 20))
    dtype = draw(_dtypes)
    a = draw(st.lists(_finite, min_size=n, max_size=n))
    b = draw(st.lists(_finite, min_size=n, max_size=n))
    return torch.tensor(a, dtype=dtype), torch.tensor(b, dtype=dtype)


@settings(deadline=None, max_examples=100)
@given(st.lists(_finite, min_size=1, max_size=50), _dtypes)
def test_rel_error_of_a_tensor_with_itself_is_zero(values, dtype):
    x = torch.tensor(values, dtype=dtype)
    assert rel_error(x, x) == 0.0
    assert rel_error(x, x.clone()) == 0.0


@settings(deadline=None, max_examples=100)
@given(tensor_pairs())
def test_rel_error_is_symmetric(pair):
    a, b = pair
    r = rel_error(a, b)
    assert r == rel_error(b, a)
    assert 0.0 <= r <= 1.0  # |a - e| <= |a| + |e|


@settings(deadline=None, max_examples=100)
@given(st.lists(st.integers(1, 64), min_size=2, max_size=5, unique=True))
def test_shape_hint_reversed_mentions_swapping(shape):
    shape = tuple(shape)
    hint = shape_hint(shape[::-1], shape)
    assert hint is not None and "swap" in hint
    with pytest.raises(CheckFailed, match="swap"):
        check_shape(torch.empty(shape[::-1], device="meta"), shape)


@settings(deadline=None, max_examples=100)
@given(st.lists(_finite, min_size=1, max_size=50), _dtypes)
def test_check_close_accepts_tiny_relative_change(values, dtype):
    x = torch.tensor(values, dtype=dtype)
    check_close(x * (1 + 1e-7), x, quiet=True)


def test_checks_refuse_a_tensor_subclass_that_answers_torch_functions_itself():
    """A subclass whose __torch_function__ says True to every allclose/equal would pass any comparison."""

    class Agreeable(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func in (torch.allclose, torch.equal):
                return True
            return super().__torch_function__(func, types, args, kwargs or {})

    liar = torch.zeros(2, 2).as_subclass(Agreeable)
    for call in (lambda: check_close(liar, torch.ones(2, 2)), lambda: check_equal(liar, torch.ones(2, 2)),
                 lambda: check_shape(liar, (2, 2))):
        with pytest.raises(CheckFailed, match="__torch_function__"):
            call()
    check_shape(torch.nn.Parameter(torch.zeros(2, 2)), (2, 2))  # parameters are tensors like any other

    class Plain(torch.Tensor):  # a subclass that leaves torch functions alone is fine
        pass

    check_shape(torch.zeros(3).as_subclass(Plain), (3,))
