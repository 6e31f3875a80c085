"""The mutation operators: small changes to a solution that a hidden test should notice.

Generic operators come from mutmut (https://github.com/boxed/mutmut, ``mutmut.mutation.mutators``, over libcst
nodes): comparison and arithmetic operators swapped (``<`` for ``<=``, ``+`` for ``-``), numbers plus one, ``True``
for ``False``, ``is`` for ``is not``, an augmented assignment made plain, an argument dropped or made ``None``, a
conditional expression forced down one branch, an assignment of ``None``. Its string and ``dict(...)`` keyword
operators are left out: the course's strings are messages and labels, and a changed message is a change no test of
values should notice.

The course adds the mistakes PyTorch code makes, in mutmut's shape (a node type and a function that yields the
changed nodes):

=================  ==============================================================================
operator           the change
=================  ==============================================================================
minus_one          a number minus one (mutmut only adds one)
dim                ``dim=k`` (or ``axis=``) set to another dimension, ``keepdim`` flipped
in_place           ``x.add_(y)`` for ``x.add(y)`` and back; ``a += b`` made ``a = a + b``
drop_call          a statement that is only a call dropped (``model.eval()``, ``optimizer.zero_grad()``)
mode               ``.eval()`` for ``.train()`` and back
no_grad            ``with torch.no_grad():`` (or ``inference_mode``, ``enable_grad``) unwrapped
detach             ``.detach()`` (or ``.item()``, ``.clone()``) removed; ``.detach()`` added to a returned value
rounding           ``/`` for ``//``; ``floor`` for ``ceil`` and ``round``; ``int(x)`` and ``round(x)`` made ``x``
swap_args          the first two positional arguments of a call swapped
=================  ==============================================================================

Each operator is ``(node type, function(node) -> changed nodes)``; ``OPERATORS`` names them all.
"""

from __future__ import annotations

from typing import Callable, Iterable

import libcst as cst
from mutmut.mutation import mutators as mutmut

Operator = tuple[type, Callable[[cst.CSTNode], Iterable[cst.CSTNode]]]

# mutmut's operators that the course uses (see the module's docstring for the ones left out).
_FROM_MUTMUT = ("operator_number", "operator_name", "operator_assignment", "operator_augmented_assignment",
                "operator_remove_unary_ops", "operator_arg_removal", "operator_keywords", "operator_swap_op",
                "operator_if_exp", "operator_lambda")

# Tensor methods that exist both in place (with a trailing underscore) and out of place.
_IN_PLACE = {"add", "sub", "mul", "div", "clamp", "clamp_min", "clamp_max", "zero", "fill", "copy", "relu", "sigmoid",
             "tanh", "exp", "log", "abs", "neg", "pow", "sqrt", "addcmul", "addcdiv", "lerp", "mul", "masked_fill",
             "scatter", "index_add", "unsqueeze", "squeeze", "t", "transpose", "normal", "uniform", "floor", "round"}
_GRAD_CONTEXTS = {"no_grad", "inference_mode", "enable_grad", "autocast", "set_grad_enabled"}
_TAKEN_OFF = {"detach", "item", "clone", "cpu", "float", "contiguous"}


def _method(node: cst.Call) -> str | None:
    return node.func.attr.value if isinstance(node.func, cst.Attribute) else None


def minus_one(node: cst.BaseNumber) -> Iterable[cst.BaseExpression]:
    if isinstance(node, (cst.Integer, cst.Float)):
        value = node.evaluated_value - 1
        number = node.with_changes(value=repr(abs(value)))
        yield number if value >= 0 else cst.UnaryOperation(cst.Minus(), number)


def dim(node: cst.Call) -> Iterable[cst.Call]:
    for i, arg in enumerate(node.args):
        name = arg.keyword.value if arg.keyword else None
        if name in ("dim", "axis") and isinstance(arg.value, (cst.Integer, cst.UnaryOperation)):
            value = _int(arg.value)
            if value is None:
                continue
            for other in ([0, 1] if value == -1 else [value - 1 if value > 0 else value + 1, -1]):
                if other != value:
                    yield node.with_changes(args=[*node.args[:i], arg.with_changes(value=_literal(other)), *node.args[i + 1:]])
        elif name == "keepdim" and isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False"):
            flipped = cst.Name("False" if arg.value.value == "True" else "True")
            yield node.with_changes(args=[*node.args[:i], arg.with_changes(value=flipped), *node.args[i + 1:]])


def _int(value: cst.BaseExpression) -> int | None:
    if isinstance(value, cst.Integer):
        return int(value.evaluated_value)
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus) and isinstance(value.expression, cst.Integer):
        return -int(value.expression.evaluated_value)
    return None


def _literal(value: int) -> cst.BaseExpression:
    return cst.Integer(str(value)) if value >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-value)))


def in_place(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        name = node.func.attr.value
        if name.endswith("_") and not name.startswith("_") and name[:-1] in _IN_PLACE:
            yield node.with_changes(func=node.func.with_changes(attr=cst.Name(name[:-1])))
        elif name in _IN_PLACE:
            yield node.with_changes(func=node.func.with_changes(attr=cst.Name(name + "_")))
    elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
        plain = {cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
                 cst.DivideAssign: cst.Divide}.get(type(node.operator))
        if plain:
            yield cst.Assign([cst.AssignTarget(node.target)], cst.BinaryOperation(node.target, plain(), node.value))


def drop_call(node: cst.SimpleStatementLine) -> Iterable[cst.SimpleStatementLine]:
    if len(node.body) == 1 and isinstance(node.body[0], cst.Expr) and isinstance(node.body[0].value, cst.Call):
        yield node.with_changes(body=[cst.Pass()])


def mode(node: cst.Call) -> Iterable[cst.Call]:
    name = _method(node)
    if name == "eval" and not node.args:
        yield node.with_changes(func=node.func.with_changes(attr=cst.Name("train")))
    elif name == "train" and not node.args:
        yield node.with_changes(func=node.func.with_changes(attr=cst.Name("eval")))


def no_grad(node: cst.With) -> Iterable[cst.CSTNode]:
    def context(item: cst.WithItem) -> str | None:
        call = item.item
        if isinstance(call, cst.Call):
            func = call.func
            return func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        return None

    kept = [item for item in node.items if context(item) not in _GRAD_CONTEXTS]
    if len(kept) == len(node.items):
        return
    if kept:
        yield node.with_changes(items=[*kept[:-1], kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
    else:   # the block runs as it is, without the context: `if True:` keeps the indentation of its body
        yield cst.If(test=cst.Name("True"), body=node.body, leading_lines=node.leading_lines)


def detach(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    if isinstance(node, cst.Call) and _method(node) in _TAKEN_OFF and not node.args:
        yield node.func.value
    elif isinstance(node, cst.Return) and isinstance(node.value, (cst.Name, cst.Call, cst.BinaryOperation, cst.Attribute)):
        inner = node.value if not isinstance(node.value, cst.BinaryOperation) else node.value.with_changes(
            lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        yield node.with_changes(value=cst.Call(cst.Attribute(inner, cst.Name("detach"))))


def rounding(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide):
        yield node.with_changes(operator=cst.FloorDivide())
    elif isinstance(node, cst.Call):
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
        swaps = {"floor": ("ceil", "round"), "ceil": ("floor", "round"), "round": ("floor", "ceil")}
        if name in swaps and isinstance(func, cst.Attribute):
            for other in swaps[name]:
                yield node.with_changes(func=func.with_changes(attr=cst.Name(other)))
        if isinstance(func, cst.Name) and func.value in ("int", "round") and len(node.args) == 1 and not node.args[0].keyword:
            yield node.args[0].value


def swap_args(node: cst.Call) -> Iterable[cst.Call]:
    positional = [i for i, a in enumerate(node.args) if not a.keyword and not a.star]
    if len(positional) >= 2:
        i, j = positional[0], positional[1]
        args = list(node.args)
        args[i], args[j] = args[i].with_changes(value=node.args[j].value), args[j].with_changes(value=node.args[i].value)
        yield node.with_changes(args=args)


def _mutmut(name: str) -> Operator:
    node_type = next(t for t, fn in mutmut.mutation_operators if fn.__name__ == name)
    return node_type, getattr(mutmut, name)


OPERATORS: dict[str, Operator] = {
    **{name.removeprefix("operator_"): _mutmut(name) for name in _FROM_MUTMUT},
    "minus_one": (cst.BaseNumber, minus_one),
    "dim": (cst.Call, dim),
    "in_place": (cst.CSTNode, in_place),
    "drop_call": (cst.SimpleStatementLine, drop_call),
    "mode": (cst.Call, mode),
    "no_grad": (cst.With, no_grad),
    "detach": (cst.CSTNode, detach),
    "rounding": (cst.CSTNode, rounding),
    "swap_args": (cst.Call, swap_args),
}
