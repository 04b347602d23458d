"""PyTorch's type promotion for strided.torch's functions and Array's PyTorch-style methods
of more than one tensor operand.

The standard promotes a 0-d array as any other array (``float16 (3,)`` with a ``float32``
0-d array is float32); PyTorch ranks operands -- dimensioned tensors over 0-d tensors over
Python numbers -- and a lower rank decides the dtype only where its kind is higher
(``torch.add(float16 (3,), tensor(2.0))`` is float16; ``torch.mul(int32 (3,), tensor(1.5,
dtype=float64))`` is float64: ``_methods.torch_result_type``). Between operands of one rank
the two rules agree, so the functions here change nothing unless a 0-d array meets a
dimensioned one with another dtype: then the operands are cast (``to``: the graph goes
through the cast, so a float64 leaf still gets a float64 gradient) to PyTorch's result
type before the call, in which PyTorch's TensorIterator computes too.

The operators (``a + b``) are Array's, the standard's: ``strided`` programs never see
PyTorch's rule, and a PyTorch program that mixes a 0-d tensor of another dtype into an
operator gets the standard's dtype (DESIGN, "two namespaces, one core").
"""

from __future__ import annotations

import functools

from .._core.array import Array
from ._methods import torch_result_type

# name -> the positions (and keywords) of the tensor operands: the namespace function's,
# then the method's (self is position 0). PyTorch's TensorIterator promotes these
# (native_functions.yaml: structured binary ops and their aliases, where's self/other,
# addcmul/addcdiv's three tensors).
_PAIR = ((0, "input"), (1, "other"))
FUNCTIONS = {name: _PAIR for name in (
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "maximum",
    "minimum", "fmax", "fmin", "pow", "atan2", "arctan2", "remainder", "fmod", "floor_divide",
    "hypot", "copysign", "logaddexp", "logaddexp2", "nextafter", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "xlogy", "ldexp", "igamma",
    "igammac", "dist", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less",
    "greater_equal", "less_equal", "not_equal")}
FUNCTIONS["where"] = ((1, "input"), (2, "other"))
FUNCTIONS["addcmul"] = FUNCTIONS["addcdiv"] = ((0, "input"), (1, "tensor1"), (2, "tensor2"))
_REFUSE_BOOL = frozenset({"sub", "subtract"})  # (PyTorch: "Subtraction ... with a bool tensor is not supported")
METHODS = {name: ((0, "self"), (1, "other")) for name in FUNCTIONS}
METHODS["where"] = ((0, "self"), (2, "other"))
METHODS["addcmul"] = METHODS["addcdiv"] = ((0, "self"), (1, "tensor1"), (2, "tensor2"))


def _operands(args, kwargs, spec):
    """[(where, operand)] of the call's tensor operands present (where: a position, or a
    keyword)."""
    found = []
    for i, kw in spec:
        if i < len(args):
            found.append((i, args[i]))
        elif kw in kwargs:
            found.append((kw, kwargs[kw]))
    return found


def _cast_zero_d(args, kwargs, spec, keep_bool=False):
    """(args, kwargs) with the array operands cast to PyTorch's result type, where a 0-d and
    a dimensioned array operand of other dtypes meet; else None (nothing to do: the
    standard's promotion is PyTorch's). ``keep_bool``: bool operands stay (``sub``, which
    refuses them, as PyTorch's)."""
    # (first, without building anything: is there a 0-d and a dimensioned array operand,
    # and two dtypes among them?)
    zero_d = dimensioned = mixed = False
    first = None
    n = len(args)
    for i, kw in spec:
        o = args[i] if i < n else kwargs.get(kw)
        if type(o) is Array:
            if o._shape:
                dimensioned = True
            else:
                zero_d = True
            if first is None:
                first = o._dtype
            elif o._dtype is not first:
                mixed = True
    if not (zero_d and dimensioned and mixed):
        return None
    found = _operands(args, kwargs, spec)
    arrays = [o for _, o in found if type(o) is Array]
    target = torch_result_type(*(o for _, o in found))
    if target.kind == "c" and any(o._dtype.name == "float16" for o in arrays):
        raise TypeError(f"PyTorch computes this in complex32 (a float16 array with a complex "
                        f"one), a dtype strided does not have; cast the float16 operand to "
                        f"float32 first")
    args, kwargs = list(args), dict(kwargs)
    for where, o in found:
        if type(o) is Array and o._dtype is not target and not (keep_bool and o._dtype.kind == "b"):
            cast = o.to(target)  # (PyTorch's TensorIterator computes in the common dtype)
            if isinstance(where, int):
                args[where] = cast
            else:
                kwargs[where] = cast
    return args, kwargs


_NOTHING = object()


def promoting(fn, spec, keep_bool=False):
    """``fn`` with PyTorch's promotion of its 0-d operands (the module's docstring)."""
    def general(args, kwargs):
        cast = _cast_zero_d(args, kwargs, spec, keep_bool)
        if cast is not None:
            args, kwargs = cast
        return fn(*args, **kwargs) if kwargs else fn(*args)

    if [i for i, _ in spec] == [0, 1]:
        # (the common call, two positional operands, named parameters: settled by four
        # attribute reads and a plain call -- ``fn(*args)`` costs a compiled function ~150 ns)
        @functools.wraps(fn)
        def call(a, b=_NOTHING, /, *rest, **kwargs):
            if b is _NOTHING:
                return general((a,) + rest, kwargs)
            if not rest and not kwargs and (type(a) is not Array or type(b) is not Array
                                            or a._dtype is b._dtype or (not a._shape) is (not b._shape)):
                return fn(a, b)
            return general((a, b) + rest, kwargs)
    elif [i for i, _ in spec] == [1, 2]:
        @functools.wraps(fn)  # (where(condition, input, other): the same, one place on)
        def call(c, a=_NOTHING, b=_NOTHING, /, *rest, **kwargs):
            if b is _NOTHING:
                return general(tuple(v for v in (c, a) if v is not _NOTHING) + rest, kwargs)
            if not rest and not kwargs and (type(a) is not Array or type(b) is not Array
                                            or a._dtype is b._dtype or (not a._shape) is (not b._shape)):
                return fn(c, a, b)
            return general((c, a, b) + rest, kwargs)
    else:
        @functools.wraps(fn)
        def call(*args, **kwargs):
            return general(args, kwargs)
    call.__wrapped_promotion__ = True
    return call


def install_methods() -> None:
    """Wrap Array's PyTorch-style methods listed in METHODS (once; at import)."""
    for name, spec in METHODS.items():
        m = Array.__dict__.get(name)
        if m is not None and callable(m) and not getattr(m, "__wrapped_promotion__", False):
            setattr(Array, name, promoting(m, spec, name in _REFUSE_BOOL))


def install_functions(namespace: dict, resolve) -> None:
    """Wrap strided.torch's functions listed in FUNCTIONS in ``namespace`` (the module's
    globals; ``resolve(name)`` finds a name not defined there yet)."""
    for name, spec in FUNCTIONS.items():
        fn = namespace.get(name)
        if fn is None:
            try:
                fn = resolve(name)
            except AttributeError:
                continue
        if callable(fn) and not getattr(fn, "__wrapped_promotion__", False):
            w = promoting(fn, spec, name in _REFUSE_BOOL)
            # (pickled by reference as strided.torch.<name>, which is this wrapper)
            w.__module__, w.__qualname__ = "strided.torch", name
            namespace[name] = w
