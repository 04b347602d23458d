"""``strided.torch.nn.functional``: PyTorch's ``torch.nn.functional`` over strided's ops.

The activations ``relu``, ``leaky_relu``, ``elu``, ``celu``, ``selu``, ``hardtanh``
(``relu6``), ``softplus``, ``gelu``, ``sigmoid`` and ``silu`` are registry rows of
strided's elementwise table (their parameters are the rows' declared ``params``, their
kernels in ``strided/_api/activations.py``, their derivatives PyTorch's formulas in
``strided/autograd/_rules.py``); ``inplace=True`` is the row's ``out=`` on the input,
the same pipeline as ``x.relu_()``. Every other function is a composite of strided
operations that have derivative rules, so values and gradients follow from strided's
autograd and match PyTorch's up to rounding. The formulas follow PyTorch's kernels
(``aten/src/ATen/native/Activation.cpp``, ``Loss.cpp``, ``LossNLL.cpp``),
including their choices at the edges: gradients at a kink are PyTorch's
(``leaky_relu`` takes the negative slope at 0, ``hardtanh`` passes no gradient
at its bounds), ``binary_cross_entropy`` clamps its logs at -100, ``softplus``
is linear above ``threshold``, and a branch that ``where`` does not select is
computed on a clamped input so that it cannot turn a gradient into NaN.

Invariants: no function changes its inputs unless asked (``inplace=True``,
which writes through strided's in-place methods and bumps the version
counter); a Python scalar never promotes an array's dtype (float32 stays
float32); errors name the function, the argument and what was given.
"""

from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

import strided as _st
from strided import Array
from strided.autograd import Function
from strided.torch._checks import one_element_1d
from strided.autograd import _fused
from strided.autograd._fused import linear_host as _linear_host
from strided._core.caller import stacklevel
from strided._core.dispatch import quiet_functions as _quiet_functions
from strided._api.activations import _act as _act_kernel
from strided._api.creation import wrap_new as _wrap_new
from strided._core.layout import ArgumentError as _ArgumentError, ShapeError as _ShapeError
# (PyTorch's names of the dtypes in its messages: the C type, the scalar type)
from strided.torch._dtype_guards import _C_NAME as _C_TYPE, _scalar_type
from strided.torch._memory_format import row_major as _row_major

__all__ = [
    "relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "celu", "gelu",
    "silu", "mish", "sigmoid", "tanh", "softplus", "softsign", "hardtanh", "hardtanh_",
    "hardsigmoid", "hardswish", "logsigmoid", "tanhshrink", "softmax", "softmin", "log_softmax",
    "linear", "bilinear", "dropout", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "one_hot", "pad", "normalize", "embedding",
]


def _check(x, func: str, name: str = "input") -> Array:
    if type(x) is not Array:
        raise TypeError(f"{func}(): {name} must be a strided array; got {type(x).__name__}")
    return x


def _check_float(x, func: str, name: str = "input") -> Array:
    _check(x, func, name)
    if x.dtype.kind != "f":
        raise TypeError(f"{func}(): {name} must be a real floating-point array; got {x.dtype.name}")
    return x


def _float_of_ints(x, func: str) -> Array:
    """A composite activation's input: a float or complex array as it is, an integer one in
    the default float dtype (PyTorch's composites compute ``softsign``/``tanhshrink`` of
    integers in float32); bools refused."""
    _check(x, func)
    if x.dtype.kind in "iu":
        return x.to(_st.get_default_dtype())
    if x.dtype.kind != "c":
        _check_float(x, func)
    return x


def _source(x: Array, inplace: bool) -> Array:
    """The array an in-place composite computes from: a copy when ``x`` has history, so
    that the values saved for backward are not the ones ``copy_`` then overwrites."""
    return x.clone() if inplace and type(x) is Array and x.requires_grad else x


def _composite(input: Array, inplace: bool, compute) -> Array:
    """``compute(input)`` (a composite activation), written back into ``input`` when
    ``inplace`` (``copy_``: the version counter and the history of ``input`` follow)."""
    out = compute(_source(input, inplace))
    return input.copy_(out) if inplace else out


def _plain_act(x: Array, op: int):
    """A composite activation's value in one compiled pass (``_ckernels.act``'s op: its
    where's, operation for operation), for an array with nothing for autograd or names to
    follow (no extension) on the host; else None (the composite runs)."""
    if x._ext is not None:
        return None
    r = _act_kernel(op, x._get_native(), 0.0)
    return None if r is None else _wrap_new(r, x.dtype, x.device)


def _row(row, func: str, input, params: tuple, inplace: bool, defaults: tuple = ()) -> Array:
    """An activation that is a registry row (``strided.leaky_relu``, ...): one call of the
    row, in place through its ``out=`` (the one writer: version counter, in-place
    autograd) -- the same pipeline as ``x.leaky_relu_()``. Parameters equal to the row's
    defaults are left out, so that the call takes the row's short path (the compiled hot
    path calls a kernel with its defaults; with parameters the binding stage runs, ~8 us)."""
    _check(input, func)
    if params == defaults:
        params = ()
    return row(input, *params, out=input) if inplace else row(input, *params)


# --- activations -------------------------------------------------------------------------

def relu(input, inplace: bool = False) -> Array:
    """``max(x, 0)`` element-wise (gradient 0 at 0, as PyTorch).

    >>> import strided.torch as torch
    >>> torch.nn.functional.relu(torch.tensor([-1.0, 0.0, 2.0]))
    tensor([0., 0., 2.])
    """
    return _row(_st.relu, "relu", input, (), inplace)


def relu_(input) -> Array:
    """In-place ``relu``."""
    return relu(input, inplace=True)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Array:
    """``x`` clamped to ``[min_val, max_val]``; no gradient at or beyond the bounds (PyTorch).

    >>> import strided.torch as torch
    >>> torch.nn.functional.hardtanh(torch.tensor([-3.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """
    if type(input) is Array and input.dtype.kind in "iu":
        # (PyTorch's hardtanh of integers: a clamp to the bounds truncated to integers, in the
        # input's dtype: relu6 of uint8 keeps uint8)
        if min_val > max_val:
            raise ValueError(f"hardtanh(): min_val ({min_val}) cannot be greater than max_val ({max_val})")
        if input.dtype.kind == "u" and int(min_val) < 0:
            raise RuntimeError(f"cannot do hardtanh on an unsigned type with negative limits "
                               f"({input.dtype.name}, min_val={min_val})")
        return _st.clip(input, int(min_val), int(max_val), out=input if inplace else None)
    return _row(_st.hardtanh, "hardtanh", input, (min_val, max_val), inplace, (-1.0, 1.0))


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0) -> Array:
    """In-place ``hardtanh``."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace: bool = False) -> Array:
    """``min(max(x, 0), 6)`` (``hardtanh(x, 0, 6)``, as PyTorch).

    >>> import strided.torch as torch
    >>> torch.nn.functional.relu6(torch.tensor([-1.0, 3.0, 9.0]))
    tensor([0., 3., 6.])
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False) -> Array:
    """``x`` where ``x > 0``, else ``negative_slope * x`` (the slope's gradient at 0).

    >>> import strided.torch as torch
    >>> torch.nn.functional.leaky_relu(torch.tensor([-2.0, 3.0]), 0.5)
    tensor([-1.,  3.])
    """
    return _row(_st.leaky_relu, "leaky_relu", input, (negative_slope,), inplace, (0.01,))


def leaky_relu_(input, negative_slope: float = 0.01) -> Array:
    """In-place ``leaky_relu``."""
    return leaky_relu(input, negative_slope, inplace=True)


def _nonpositive(x: Array) -> Array:
    # min(x, 0) keeping NaN: the x <= 0 branch's input of a composite.
    return _st.where(x > 0, 0.0, x)


def elu(input, alpha: float = 1.0, inplace: bool = False) -> Array:
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.elu(torch.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.0000])
    """
    return _row(_st.elu, "elu", input, (alpha,), inplace, (1.0,))


def elu_(input, alpha: float = 1.0) -> Array:
    """In-place ``elu``."""
    return elu(input, alpha, inplace=True)


def selu(input, inplace: bool = False) -> Array:
    """``scale * elu(x, alpha)`` with the self-normalising constants of Klambauer et al.

    >>> import strided.torch as torch
    >>> torch.nn.functional.selu(torch.tensor([1.0]))
    tensor([1.0507])
    """
    return _row(_st.selu, "selu", input, (), inplace)


def celu(input, alpha: float = 1.0, inplace: bool = False) -> Array:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.celu(torch.tensor([-1.0, 2.0]), alpha=2.0)
    tensor([-0.7869,  2.0000])
    """
    return _row(_st.celu, "celu", input, (alpha,), inplace, (1.0,))


def gelu(input, approximate: str = "none") -> Array:
    """``x * Phi(x)`` (``approximate="none"``, with erf) or its tanh approximation.

    >>> import strided.torch as torch
    >>> F = torch.nn.functional
    >>> F.gelu(torch.tensor([1.0])), F.gelu(torch.tensor([1.0]), approximate="tanh")
    (tensor([0.8413]), tensor([0.8412]))
    """
    return _row(_st.gelu, "gelu", input, (approximate,), False, ("none",))


def sigmoid(input) -> Array:
    """The logistic function ``1 / (1 + exp(-x))``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.sigmoid(torch.tensor([0.0]))
    tensor([0.5000])
    """
    _check(input, "sigmoid")
    if input.dtype.kind == "b":  # (PyTorch's: a mask's sigmoid in the default float dtype)
        input = input.to(_st.get_default_dtype())
    return _st.sigmoid(input)


def tanh(input) -> Array:
    """The hyperbolic tangent.

    >>> import strided.torch as torch
    >>> torch.nn.functional.tanh(torch.tensor([0.0]))
    tensor([0.])
    """
    return _st.tanh(_check(input, "tanh"))


def silu(input, inplace: bool = False) -> Array:
    """``x * sigmoid(x)`` (the swish).

    >>> import strided.torch as torch
    >>> torch.nn.functional.silu(torch.tensor([1.0]))
    tensor([0.7311])
    """
    _check(input, "silu")
    if input.dtype.kind not in "fc":
        raise NotImplementedError(f'"silu_cpu" not implemented for \'{_scalar_type(input.dtype)}\' '
                                  f"(silu() needs a floating-point or complex input)")
    return _row(_st.silu, "silu", input, (), inplace)  # the registry row: its own kernel and SiluBackward0


def softplus(input, beta: float = 1.0, threshold: float = 20.0) -> Array:
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.softplus(torch.tensor([0.0, 30.0]))
    tensor([ 0.6931, 30.0000])
    """
    return _row(_st.softplus, "softplus", input, (beta, threshold), False, (1.0, 20.0))


def mish(input, inplace: bool = False) -> Array:
    """``x * tanh(softplus(x))``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.mish(torch.tensor([1.0]))
    tensor([0.8651])
    """
    return _composite(input, inplace, lambda x: x * _st.tanh(softplus(x)))


def softsign(input) -> Array:
    """``x / (1 + |x|)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.softsign(torch.tensor([1.0]))
    tensor([0.5000])
    """
    x = _float_of_ints(input, "softsign")
    if x is not input:  # (PyTorch's integers: 1 + |x| in their dtype, as it wraps, then divided)
        return x / (_st.abs(input) + 1).to(x.dtype)
    return x / (_st.abs(x) + 1.0)


def logsigmoid(input) -> Array:
    """``log(sigmoid(x))``, computed without overflow: ``min(x, 0) - log1p(exp(-|x|))``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.logsigmoid(torch.tensor([0.0]))
    tensor([-0.6931])
    """
    _check_float(input, "logsigmoid")
    # (row-major whatever the input's layout, as PyTorch's log_sigmoid_forward writes it)
    if input.requires_grad:
        return _row_major(_LogSigmoid.apply(input))
    return _row_major(_logsigmoid_values(input))


def _logsigmoid_values(x: Array) -> Array:
    return _nonpositive(x) - _st.log1p(_st.exp(-_st.abs(x)))


class _LogSigmoid(Function):
    """logsigmoid's stable values with its derivative, ``sigmoid(-x)`` (PyTorch's
    LogSigmoidBackward0): the composition's is 1 at 0 (min(x, 0)'s and |x|'s kinks), not 1/2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _logsigmoid_values(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * _st.sigmoid(-x)


def hardsigmoid(input, inplace: bool = False) -> Array:
    """``relu6(x + 3) / 6`` (no gradient at or beyond -3 and 3, as PyTorch).

    >>> import strided.torch as torch
    >>> torch.nn.functional.hardsigmoid(torch.tensor([-4.0, 0.0, 4.0]))
    tensor([0.0000, 0.5000, 1.0000])
    """
    _check_float(input, "hardsigmoid")
    r = None if inplace else _plain_act(input, 5)
    if r is not None:
        return r
    return _composite(input, inplace, lambda x: _st.where(x <= -3.0, 0.0, _st.where(x >= 3.0, 1.0, x / 6.0 + 0.5)))


def hardswish(input, inplace: bool = False) -> Array:
    """``x * relu6(x + 3) / 6``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.hardswish(torch.tensor([-4.0, 1.0, 4.0]))
    tensor([-0.0000,  0.6667,  4.0000])
    """
    _check_float(input, "hardswish")
    r = None if inplace else _plain_act(input, 6)
    if r is not None:
        return r
    # PyTorch's gradient is 0 at -3 and 1 at 3 (hardswish_backward's branches).
    # x * 0 below -3 keeps PyTorch's sign of zero (-0. for negative x).
    return _composite(input, inplace, lambda x: _st.where(
        x <= -3.0, x * 0.0, _st.where(x >= 3.0, x, x * (x + 3.0) / 6.0)))


def tanhshrink(input) -> Array:
    """``x - tanh(x)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.tanhshrink(torch.tensor([1.0]))
    tensor([0.2384])
    """
    x = _float_of_ints(input, "tanhshrink")
    return x - _st.tanh(x)


def _softmax_dim(name: str, ndim: int, dim):
    if dim is not None:
        return dim
    # Note: PyTorch's legacy implicit dimension (torch/nn/functional.py _get_softmax_dim).
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                  "Change the call to include dim=X as an argument.", UserWarning, stacklevel=stacklevel())
    return 0 if ndim in (0, 1, 3) else 1


def _integer_softmax(name: str, input, dtype) -> None:
    """PyTorch's refusal of an integer or bool input without ``dtype=`` (its kernels have none)."""
    if dtype is None and input.dtype.kind in "biu":
        from strided.torch._dtype_guards import GUARDS
        raise GUARDS[name][1](input.dtype)


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None) -> Array:
    """``exp(x) / sum(exp(x), dim)``, shifted so that it does not overflow.

    >>> import strided.torch as torch
    >>> torch.nn.functional.softmax(torch.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    _check(input, "softmax")
    _integer_softmax("softmax", input, dtype)
    return _st.softmax(input, _softmax_dim("softmax", input.ndim, dim), dtype=dtype)


def softmin(input, dim=None, _stacklevel: int = 3, dtype=None) -> Array:
    """``softmax(-x, dim)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.softmin(torch.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    _check(input, "softmin")
    _integer_softmax("softmax", input, dtype)
    return _st.softmax(-input, _softmax_dim("softmin", input.ndim, dim), dtype=dtype)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None) -> Array:
    """``x - logsumexp(x, dim)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.log_softmax(torch.tensor([0.0, 0.0]), dim=0)
    tensor([-0.6931, -0.6931])
    """
    _check(input, "log_softmax")
    _integer_softmax("log_softmax", input, dtype)
    return _st.log_softmax(input, _softmax_dim("log_softmax", input.ndim, dim), dtype=dtype)


# --- linear layers, dropout, embedding ---------------------------------------------------

def _linear_dtypes(input, weight, bias) -> None:
    """PyTorch's refusal of a ``linear`` whose arrays differ in dtype (its matmul does not
    promote), with its messages: with a bias (addmm) the bias against the weight first, then
    the input; without one (mm), the input against the weight."""
    def name(x):
        return _scalar_type(x.dtype)

    if type(bias) is Array:
        if bias._dtype is not weight._dtype:
            raise RuntimeError(f"linear(): self and mat2 must have the same dtype, but got "
                               f"{name(bias)} and {name(weight)}")
        raise RuntimeError(f"linear(): mat1 and mat2 must have the same dtype, but got "
                           f"{name(input)} and {name(weight)}")
    a, b = (_C_TYPE.get(x.dtype.name, x.dtype.name) for x in (input, weight))
    raise RuntimeError(f"linear(): expected m1 and m2 to have the same dtype, but got: "
                       f"{a} != {b}")


def linear(input, weight, bias=None) -> Array:
    """``input @ weight.T + bias``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.linear(torch.ones(1, 2), torch.ones(3, 2), torch.zeros(3))
    tensor([[2., 2., 2.]])
    """
    # (quiet, as every function here: the end of the module; its recorded branches call NumPy's
    # ``dot`` themselves, and under a user's ``simplefilter("error")`` an ``inf * 0`` there
    # raised where ``matmul`` gave NaN)
    if type(input) is Array and type(weight) is Array and (
            input._dtype is not weight._dtype
            or (type(bias) is Array and bias._dtype is not weight._dtype)):
        _linear_dtypes(input, weight, bias)
    if _linear_host is not None:
        r = _linear_host(input, weight, bias)  # (recorded, on the host, 2-D input: one C call)
        if r is not NotImplemented:
            return r
    if type(input) is Array and type(weight) is Array and len(weight._shape) == 2 \
            and len(input._shape) >= 2 and input._shape[-1] == weight._shape[1] \
            and (bias is None or (type(bias) is Array and bias._shape == weight._shape[:1])) \
            and _fused.fusable(input, weight, bias):
        return _fused.linear(input, weight, bias)  # one graph node (AddmmBackward0), as PyTorch
    _check(input, "linear")
    _check(weight, "linear", "weight")
    if weight.ndim not in (1, 2):
        raise ValueError(f"linear(): weight must be 1-D or 2-D; got shape {tuple(weight.shape)}")
    if input.ndim == 0 or input.shape[-1] != weight.shape[-1]:
        if input.ndim and weight.ndim == 2:  # (PyTorch's words: its addmm's operands)
            raise _ShapeError(f"mat1 and mat2 shapes cannot be multiplied ({math.prod(input.shape[:-1])}x"
                              f"{input.shape[-1]} and {weight.shape[1]}x{weight.shape[0]})")
        raise _ShapeError(f"linear(): input's last dimension {tuple(input.shape)} does not match "
                          f"weight's in_features (shape {tuple(weight.shape)})")
    if bias is not None:
        _check(bias, "linear", "bias")
    out = _st.matmul(input, weight.mT if weight.ndim == 2 else weight)
    if bias is not None:
        out = out + bias
    return out


def bilinear(input1, input2, weight, bias=None) -> Array:
    """``y[..., k] = input1 @ weight[k] @ input2 + bias[k]``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.bilinear(torch.ones(1, 2), torch.ones(1, 3), torch.ones(4, 2, 3)).shape
    strided.Size([1, 4])
    """
    _check(input1, "bilinear", "input1")
    _check(input2, "bilinear", "input2")
    _check(weight, "bilinear", "weight")
    arrays = [("input1", input1), ("input2", input2), ("weight", weight)]
    if bias is not None:
        arrays.append(("bias", bias))
    if any(a.dtype != input1.dtype for _, a in arrays):
        # (PyTorch's: its bilinear does not promote)
        got = ", ".join(f"{n}: {_C_TYPE.get(a.dtype.name, a.dtype.name)}" for n, a in arrays)
        raise RuntimeError(f"bilinear(): All tensors must have the same dtype, got {got}")
    if weight.ndim != 3 or input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise ValueError(f"bilinear(): shapes do not match: input1 {tuple(input1.shape)}, input2 "
                         f"{tuple(input2.shape)}, weight {tuple(weight.shape)} (out, in1, in2)")
    # (..., 1, 1, in1) @ (out, in1, in2) -> (..., out, 1, in2); times input2, summed over in2.
    left = _st.matmul(input1[..., None, None, :], weight)[..., 0, :]
    out = _st.sum(left * input2[..., None, :], axis=-1, dtype=left.dtype)  # (int32 stays int32)
    if bias is not None:
        out = out + bias
    return out


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Array:
    """Zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``.

    Identity when ``training`` is False or ``p`` is 0 (the input itself is returned).

    >>> import strided.torch as torch
    >>> x = torch.ones(4)
    >>> torch.nn.functional.dropout(x, 0.5, training=False) is x
    True
    """
    _check(input, "dropout")
    if isinstance(p, builtins.bool) or not isinstance(p, (builtins.int, builtins.float)) \
            or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout(): probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        mask = _st.zeros_like(input)
    else:
        keep = _st.bernoulli(_st.empty_like(input, dtype=input.dtype), 1.0 - p)
        mask = keep / (1.0 - p)
    return input.mul_(mask) if inplace else input * mask


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Array:
    """Rows of ``weight`` picked by the integer indices ``input``.

    ``padding_idx``'s row gets no gradient, as in PyTorch. With ``max_norm``, the rows that
    ``input`` picks and whose ``norm_type``-norm exceeds ``max_norm`` are first rescaled in
    place in ``weight`` (outside autograd) to norm ``max_norm``, as PyTorch's
    ``embedding_renorm_``. With ``scale_grad_by_freq``, each picked row's gradient is divided
    by the number of times its index occurs in ``input``. ``sparse`` is not supported (it
    raises).

    >>> import strided.torch as torch
    >>> torch.nn.functional.embedding(torch.tensor([1]), torch.eye(3))
    tensor([[0., 1., 0.]])
    """
    _check(input, "embedding")
    if sparse:
        raise NotImplementedError("embedding(): sparse gradients are not supported by strided")
    _check_indices(input, "embedding")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type, "embedding")
    flat = _st.reshape(input, (-1,))
    rows = _st.take(weight, flat, axis=0)
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        keep = (flat != padding_idx)[:, None]
        rows = _st.where(keep, rows, rows.detach())
    if scale_grad_by_freq:
        rows = _scale_grad_by_freq(rows, flat)
    return _st.reshape(rows, tuple(input.shape) + (weight.shape[1],))


class _IndexDtypeError(TypeError, RuntimeError):
    """Indices of a dtype other than int64 or int32: PyTorch raises RuntimeError; the class is
    also a TypeError (strided's earlier error), so either ``except`` catches it."""


def _check_indices(input, name: str) -> None:
    """PyTorch's check of ``embedding``'s and ``embedding_bag``'s indices: int64 or int32 only
    (int16, uint8, bool and floats raise, as PyTorch's)."""
    if input.dtype.name not in ("int64", "int32"):
        raise _IndexDtypeError(f"Expected tensor for argument #1 'indices' to have one of the following "
                              f"scalar types: Long, Int; but got {input.type()} instead (while checking "
                              f"arguments for {name})")


def _check_class_targets(target, name: str) -> None:
    """PyTorch's nll_loss/cross_entropy class-index targets: int64 or uint8 (int32, int16, bool
    raise its RuntimeError; float targets are cross_entropy's probabilities, checked there)."""
    if type(target) is Array and target.dtype.kind in "biu" and target.dtype.name not in ("int64", "uint8"):
        from strided.torch._shape_functions import _TENSOR_TYPE
        raise _IndexDtypeError(f"expected target dtype to be Long or Byte, but got "
                               f"{_TENSOR_TYPE[target.dtype.name]} ({name})")
    if type(target) is Array and target.dtype.name == "uint8" and target.ndim >= 2:
        # (PyTorch's 2-d kernel, for (N, C, d1, ...) inputs, takes int64 targets only)
        raise _IndexDtypeError(f"expected scalar type Long but found Byte ({name}: targets of shape "
                               f"{tuple(target.shape)})")


def _embedding_renorm_(weight, input, max_norm, norm_type, name: str) -> None:
    """PyTorch's ``embedding_renorm_`` under ``no_grad``: each distinct row of ``weight`` that
    ``input`` picks and whose ``norm_type``-norm is above ``max_norm`` is multiplied in place by
    ``max_norm / (norm + 1e-7)``."""
    if weight.ndim != 2:
        raise RuntimeError(f"{name}(): max_norm needs a 2-D weight; got {weight.ndim} dimensions")
    if weight.dtype.kind != "f":
        raise TypeError(f"{name}(): max_norm needs a floating-point weight; got "
                        f"{weight.dtype.name}")
    from strided import torch as _torch

    with _torch.no_grad():
        idx = _torch.unique(_st.reshape(input, (-1,)))
        if idx.shape[0] == 0:
            return
        rows = weight[idx]
        norm = _torch.linalg.vector_norm(rows, ord=norm_type, dim=1)
        # (rows at or under max_norm are multiplied by exactly 1: unchanged)
        scale = _st.where(norm > max_norm, max_norm / (norm + 1e-7), _st.ones_like(norm))
        weight[idx] = rows * scale[:, None]


class _ScaleGrad(Function):
    """The identity whose backward multiplies the gradient by the fixed array ``scale``."""

    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        return x

    @staticmethod
    def backward(ctx, g):
        return g * ctx.scale, None


def _scale_grad_by_freq(rows, flat):
    """``rows`` (one per index in ``flat``) with each row's gradient multiplied by one over the
    number of times its index occurs in ``flat`` (PyTorch's ``scale_grad_by_freq``)."""
    if flat.shape[0] == 0 or not rows.requires_grad:
        return rows
    from strided import torch as _torch

    _, inverse, counts = _torch.unique(flat, return_inverse=True, return_counts=True)
    scale = 1.0 / _st.astype(_st.take(counts, inverse), rows.dtype)
    return _ScaleGrad.apply(rows, scale[:, None])


# --- losses ------------------------------------------------------------------------------

_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce, reduction: str) -> str:
    if size_average is None and reduce is None:
        return reduction
    # Note: PyTorch's deprecated size_average/reduce pair (torch/nn/_reduction.py).
    warnings.warn("size_average and reduce args will be deprecated, please use reduction "
                  "instead.", UserWarning, stacklevel=stacklevel())
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _reduce(loss: Array, reduction: str, func: str) -> Array:
    if reduction == "mean":
        return _st.mean(loss)
    if reduction == "sum":
        return _st.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{func}(): {reduction!r} is not a valid value for reduction "
                     f"(one of {', '.join(_REDUCTIONS)})")


def _pair(input, target, func: str):
    _check(input, func)
    _check(target, func, "target")
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"{func}(): using a target size ({tuple(target.shape)}) that is different to "
                      f"the input size ({tuple(input.shape)}). This will likely lead to incorrect "
                      "results due to broadcasting. Please ensure they have the same size.",
                      UserWarning, stacklevel=stacklevel())
    return input - target


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
             weight=None) -> Array:
    """Mean (or sum, or none) of ``(input - target) ** 2``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.mse_loss(torch.tensor([1.0, 3.0]), torch.tensor([0.0, 0.0]))
    tensor(5.)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    d = _pair(input, target, "mse_loss")
    if d.dtype.kind in "biuc":  # (PyTorch's kernel has no integer or complex form: NotImplementedError)
        from strided.torch._shape_functions import _TENSOR_TYPE
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{_TENSOR_TYPE[d.dtype.name]}'")
    loss = d * d
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "mse_loss")


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
            weight=None) -> Array:
    """Mean (or sum, or none) of ``|input - target|``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.l1_loss(torch.tensor([1.0, -3.0]), torch.tensor([0.0, 0.0]))
    tensor(2.)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = _st.abs(_pair(input, target, "l1_loss"))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "l1_loss")


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Array:
    """``0.5 * d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 * beta`` (``d = input - target``).

    >>> import strided.torch as torch
    >>> torch.nn.functional.smooth_l1_loss(torch.tensor([0.5, 3.0]), torch.zeros(2))
    tensor(1.3125)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise ValueError(f"smooth_l1_loss(): beta must be >= 0; got {beta}")
    d = _pair(input, target, "smooth_l1_loss")
    a = _st.abs(d)
    if beta == 0:
        return _reduce(a, reduction, "smooth_l1_loss")
    loss = _st.where(a < beta, d * d * (0.5 / beta), a - 0.5 * beta)
    return _reduce(loss, reduction, "smooth_l1_loss")


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None) -> Array:
    """``0.5 * d**2`` where ``|d| < delta``, else ``delta * (|d| - 0.5 * delta)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.huber_loss(torch.tensor([0.5, 3.0]), torch.zeros(2), delta=2.0)
    tensor(2.0625)
    """
    if delta <= 0:
        raise _ArgumentError(f"huber_loss(): delta must be > 0; got {delta}")
    d = _pair(input, target, "huber_loss")
    a = _st.abs(d)
    loss = _st.where(a < delta, d * d * 0.5, (a - 0.5 * delta) * delta)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "huber_loss")


def _class_dim(input: Array) -> int:
    return 0 if input.ndim == 1 else 1


def _check_targets(input, target, func):
    if target.dtype.kind not in "iu":
        raise TypeError(f"{func}(): class-index targets must be integers; got {target.dtype.name}")
    cd = _class_dim(input)
    want = tuple(input.shape[:cd]) + tuple(input.shape[cd + 1:])
    if tuple(target.shape) != want:
        raise ValueError(f"{func}(): expected target of shape {want} for input of shape "
                         f"{tuple(input.shape)}; got {tuple(target.shape)}")


def _target_range(target):
    """(min, max) of the integer targets, read on their device (two scalars to the host)."""
    nat = target._get_native()
    if type(nat) is np.ndarray:  # (on the host: the reductions without np.min's Python wrapper)
        return builtins.int(np.minimum.reduce(nat, axis=None)), builtins.int(np.maximum.reduce(nat, axis=None))
    xp = target.device.backend.xp
    return builtins.int(xp.min(nat)), builtins.int(xp.max(nat))


_UNSIGNED = {np.dtype(f"i{k}"): np.dtype(f"u{k}") for k in (1, 2, 4, 8)}


def _targets_in(target, c):
    """Whether every integer target lies in [0, c): one reduction (a negative target is a
    large unsigned one), read on the target's device."""
    nat = target._get_native()
    if type(nat) is np.ndarray:
        u = nat.view(_UNSIGNED.get(nat.dtype, nat.dtype))
        return builtins.int(np.maximum.reduce(u, axis=None)) < c
    lo, hi = _target_range(target)
    return lo >= 0 and hi < c


def _picked(input, target, ignore_index, func):
    """(-input at the target classes, the mask of kept targets or None when every target is
    kept, the safe indices)."""
    cd = _class_dim(input)
    n_classes = input.shape[cd]
    keep, safe = None, target
    if target.size:
        lo, hi = _target_range(target)
        if lo <= ignore_index <= hi:  # some targets may be ignored: mask them
            keep = target != ignore_index
            safe = _st.where(keep, target, 0)
            lo, hi = _target_range(safe)
        if lo < 0 or hi >= n_classes:
            raise IndexError(f"{func}(): target {lo if lo < 0 else hi} is out of bounds for "
                             f"{n_classes} classes")
    picked = _st.take_along_axis(input, _st.expand_dims(safe, axis=cd), axis=cd)
    return -_st.squeeze(picked, axis=cd), keep, safe


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean") -> Array:
    """The negative log likelihood of the target classes, given log-probabilities ``input``.

    ``input`` is ``(C)``, ``(N, C)`` or ``(N, C, d1, ...)``; ``target`` holds
    class indices. ``mean`` divides by the sum of the targets' weights (the
    ignored ones excluded), as PyTorch.

    >>> import strided.torch as torch
    >>> logp = torch.log(torch.tensor([[0.25, 0.75]]))
    >>> torch.nn.functional.nll_loss(logp, torch.tensor([1]))
    tensor(0.2877)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check(input, "nll_loss")
    _check(target, "nll_loss", "target")
    _check_class_targets(target, "nll_loss")
    if input.ndim == 0:
        raise ValueError("nll_loss(): input must have at least 1 dimension (the classes)")
    _check_targets(input, target, "nll_loss")
    if weight is not None and type(weight) is Array and weight.dtype != input.dtype:
        # (PyTorch's nll_loss takes the weight in the input's dtype only)
        raise RuntimeError(f"nll_loss(): expected scalar type "
                           f"{_scalar_type(input.dtype)} but found "
                           f"{_scalar_type(weight.dtype)}")
    loss, keep, safe = _picked(input, target, ignore_index, "nll_loss")
    if weight is None and keep is None:  # every target counts, with weight 1
        if reduction == "mean" and loss.size == 0:
            return _st.sum(loss) / 0.0  # PyTorch: nan
        return _reduce(loss, reduction, "nll_loss")
    if weight is not None:
        w = _st.reshape(_st.take(weight, _st.reshape(safe, (-1,))), safe.shape)
        if keep is not None:
            w = _st.where(keep, w, 0.0)
    else:
        w = keep.astype(input.dtype)
    loss = loss * w
    if keep is not None:
        # Note: PyTorch's nll_loss never touches an ignored target's element: its loss is 0
        # and its gradient 0, also where every target is ignored (the mean 0/0 is NaN; a
        # product with w alone gives inf * 0 = NaN there, and NaN for a -inf log-probability).
        loss = _st.where(keep, loss, 0.0)
    if reduction == "mean":
        return _st.sum(loss) / _st.sum(w)
    return _reduce(loss, reduction, "nll_loss")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0) -> Array:
    """The cross entropy between ``softmax(input)`` and the targets (indices or probabilities).

    Class indices (an integer ``target``): ``nll_loss(log_softmax(input, 1), target)``
    with ``weight``, ``ignore_index`` and ``label_smoothing`` as PyTorch.
    Probabilities (a float ``target`` of ``input``'s shape): ``-sum(target *
    log_softmax(input))`` over the classes; ``mean`` divides by the number of
    samples.

    >>> import strided.torch as torch
    >>> torch.nn.functional.cross_entropy(torch.zeros(1, 4), torch.tensor([2]))
    tensor(1.3863)
    """
    _check_class_targets(target, "cross_entropy")
    if weight is None and size_average is None and reduce is None and label_smoothing == 0.0 \
            and type(input) is Array and type(target) is Array and reduction in _REDUCTIONS:
        # The fused case below, its conditions read once from the slots (a 2-D input with
        # elements, class indices of shape (N,) on the same device, in range, none ignored):
        # the same call; anything else takes the checks below (and their errors).
        s = input._shape
        tx = target._ext
        if len(s) == 2 and s[0] and s[1] and target._shape == s[:1] and target._dtype.kind in "iu" \
                and target._device is input._device and (tx is None or tx.names is None) \
                and _fused.fusable(input):
            if not 0 <= ignore_index < s[1]:  # (no target in range is ignored)
                if _targets_in(target, s[1]):
                    return _fused.log_softmax_nll(input, target, reduction)
            else:
                lo, hi = _target_range(target)
                if not lo <= ignore_index <= hi and lo >= 0 and hi < s[1]:
                    return _fused.log_softmax_nll(input, target, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check(input, "cross_entropy")
    _check(target, "cross_entropy", "target")
    if input.ndim == 0:
        raise ValueError("cross_entropy(): input must have at least 1 dimension (the classes)")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy(): label_smoothing must be between 0.0 and 1.0; "
                         f"got {label_smoothing}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"cross_entropy(): {reduction!r} is not a valid value for reduction")
    if weight is None and label_smoothing == 0 and input.ndim == 2 and input.size \
            and target.dtype.kind in "iu" and target.device == input.device and _fused.fusable(input) \
            and (target._ext is None or target._ext.names is None):
        # Class indices, nothing weighted, ignored or smoothed: log_softmax and nll_loss as
        # one graph node (the errors are nll_loss's, as on the path below).
        _check_targets(input, target, "nll_loss")
        lo, hi = _target_range(target)
        if not lo <= ignore_index <= hi:
            if lo < 0 or hi >= input.shape[1]:
                raise IndexError(f"nll_loss(): target {lo if lo < 0 else hi} is out of bounds for "
                                 f"{input.shape[1]} classes")
            return _fused.log_softmax_nll(input, target, reduction)
    cd = _class_dim(input)
    n_classes = input.shape[cd]
    logp = _st.log_softmax(input, cd)
    wshape = [1] * input.ndim
    wshape[cd] = n_classes
    if target.dtype.kind == "f":  # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise ValueError(f"cross_entropy(): probability targets must have the input's shape "
                             f"{tuple(input.shape)}; got {tuple(target.shape)}")
        if label_smoothing > 0:
            target = target * (1.0 - label_smoothing) + label_smoothing / n_classes
        terms = logp * target
        if weight is not None:
            terms = terms * _st.reshape(weight, tuple(wshape))
        loss = -_st.sum(terms, axis=cd)
        if reduction == "mean":
            return _st.sum(loss) / builtins.max(1, input.size // n_classes) if input.size else \
                _st.sum(loss) * math.nan
        return _reduce(loss, reduction, "cross_entropy")
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0:
        return nll
    # Note: PyTorch's cross_entropy_loss_label_smoothing (aten/src/ATen/native/LossNLL.cpp).
    keep = target != ignore_index
    terms = logp if weight is None else logp * _st.reshape(weight, tuple(wshape))
    smooth = _st.where(keep, -_st.sum(terms, axis=cd), 0.0)
    if reduction == "mean":
        if weight is not None:
            safe = _st.where(keep, target, 0)
            wsum = _st.sum(_st.where(keep, _st.reshape(_st.take(weight, _st.reshape(safe, (-1,))),
                                                       safe.shape), 0.0))
            ret = _st.sum(smooth) / wsum
        else:
            ret = _st.sum(smooth) / _st.sum(keep.astype(input.dtype))
    elif reduction == "sum":
        ret = _st.sum(smooth)
    else:
        ret = smooth
    return nll * (1.0 - label_smoothing) + ret * (label_smoothing / n_classes)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean") -> Array:
    """``-(t * log(x) + (1 - t) * log(1 - x))``, logs clamped at -100 (as PyTorch).

    >>> import strided.torch as torch
    >>> torch.nn.functional.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_float(input, "binary_cross_entropy")
    _check(target, "binary_cross_entropy", "target")
    if target.dtype != input.dtype:  # (PyTorch's: the target in the input's dtype)
        from strided.torch._shape_functions import _TENSOR_TYPE
        raise RuntimeError(f"Found dtype {_TENSOR_TYPE[target.dtype.name]} but expected "
                           f"{_TENSOR_TYPE[input.dtype.name]} (binary_cross_entropy's target)")
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"binary_cross_entropy(): target size ({tuple(target.shape)}) must be "
                         f"the same as input size ({tuple(input.shape)})")
    if input.size and builtins.bool(
            _st.any((input < 0) | (input > 1))):
        raise ValueError("binary_cross_entropy(): all elements of input should be between 0 and 1")
    if input.requires_grad:
        loss = _BCE.apply(input, target)
    else:
        loss = _bce_values(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "binary_cross_entropy")


def _bce_values(x: Array, t) -> Array:
    log_x = _st.clip(_st.log(x), -100.0, None)
    log_1mx = _st.clip(_st.log(1.0 - x), -100.0, None)
    return -(t * log_x + (1.0 - t) * log_1mx)


_BCE_EPSILON = float(np.float32(1e-12))  # (PyTorch's EPSILON, a C float: 9.99999996e-13)


class _BCE(Function):
    """The elementwise binary cross entropy with PyTorch's derivative (BinaryCrossEntropy
    Backward0): ``(x - t) / max((1 - x) * x, 1e-12)`` for the input (1e-12 a C float, as
    PyTorch's), finite at 0 and 1, where the clamped logs' composition gave NaN; ``log(1 - x) - log(x)`` for the target."""

    @staticmethod
    def forward(ctx, x, t):
        ctx.save_for_backward(x, t)
        return _bce_values(x, t)

    @staticmethod
    def backward(ctx, g):
        x, t = ctx.saved_tensors
        gx = g * (x - t) / _st.clip((1.0 - x) * x, _BCE_EPSILON, None)
        gt = None
        if ctx.needs_input_grad[1]:  # (PyTorch's: the logs unclamped)
            gt = g * (_st.log(1.0 - x) - _st.log(x))
        return gx, gt


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None) -> Array:
    """``binary_cross_entropy(sigmoid(input), target)``, computed stably from the logits.

    ``pos_weight`` weighs the positive term: ``-(pos_weight * t * log(sigmoid(x))
    + (1 - t) * log(1 - sigmoid(x)))``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.binary_cross_entropy_with_logits(torch.zeros(1), torch.ones(1))
    tensor(0.6931)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_float(input, "binary_cross_entropy_with_logits")
    _check(target, "binary_cross_entropy_with_logits", "target")
    if target.dtype.kind in "biu":  # (PyTorch's loss is computed into the target's dtype)
        from strided.torch._shape_functions import _TENSOR_TYPE
        raise RuntimeError(f"result type {_TENSOR_TYPE[input.dtype.name]} can't be cast to the desired "
                           f"output type {_TENSOR_TYPE[target.dtype.name]} (binary_cross_entropy_with_logits's "
                           f"target)")
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"binary_cross_entropy_with_logits(): target size ({tuple(target.shape)}) "
                         f"must be the same as input size ({tuple(input.shape)})")
    # Note: PyTorch's formula (aten/src/ATen/native/Loss.cpp):
    # (1 - t) * x - log_weight * log_sigmoid(x), log_weight = (pos_weight - 1) * t + 1.
    log_sig = logsigmoid(input)
    if pos_weight is not None:
        log_weight = (pos_weight - 1.0) * target + 1.0
        loss = (1.0 - target) * input - log_weight * log_sig
    else:
        loss = (1.0 - target) * input - log_sig
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")


# --- utilities ---------------------------------------------------------------------------

def one_hot(tensor, num_classes: int = -1) -> Array:
    """int64 one-hot encoding of the class indices ``tensor``: shape ``(*tensor.shape, C)``.

    ``num_classes=-1`` takes ``max(tensor) + 1``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.one_hot(torch.tensor([0, 2]), 3)
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    _check(tensor, "one_hot", "tensor")
    if tensor.dtype.name != "int64":  # (PyTorch's: int64 only, int32 and uint8 too raise)
        raise _IndexDtypeError(f"one_hot is only applicable to index tensor of type LongTensor. "
                               f"(one_hot(): class values must be int64 integers; got {tensor.dtype.name})")
    if num_classes == -1:
        if tensor.size == 0:
            raise ValueError("one_hot(): can not infer the number of classes from an empty array")
        num_classes = builtins.int(_st.max(tensor)) + 1
    if tensor.size:
        lo, hi = builtins.int(_st.min(tensor)), builtins.int(_st.max(tensor))
        if lo < 0:
            raise ValueError(f"one_hot(): class values must be non-negative; got {lo}")
        if hi >= num_classes:
            raise ValueError(f"one_hot(): class values must be smaller than num_classes "
                             f"({num_classes}); got {hi}")
    classes = _st.arange(num_classes, dtype=tensor.dtype, device=tensor.device)
    return (_st.expand_dims(tensor, axis=-1) == classes).astype(_st.int64)


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(input, pad, mode: str = "constant", value=None) -> Array:
    """Pad (or, with negative amounts, crop) the last dimensions of ``input``.

    ``pad`` lists (left, right) amounts from the last dimension backwards, as
    PyTorch: ``(1, 2)`` pads the last dimension, ``(1, 2, 0, 3)`` also the one
    before. ``mode``: ``constant`` (``value``, default 0), ``reflect`` (the
    edge not repeated), ``replicate`` (the edge repeated) or ``circular``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.pad(torch.tensor([1.0, 2.0]), (1, 2), value=9.0)
    tensor([9., 1., 2., 9., 9.])
    >>> torch.nn.functional.pad(torch.tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect")
    tensor([[3., 2., 1., 2., 3., 2.]])
    """
    _check(input, "pad")
    pad = tuple(pad)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise RuntimeError(f"pad(): padding length must be even and at most twice the number of "
                         f"dimensions ({input.ndim}); got {len(pad)}")
    if mode not in _PAD_MODES:
        raise ValueError(f"pad(): mode must be one of {', '.join(_PAD_MODES)}; got {mode!r}")
    if mode != "constant" and value is not None:
        raise ValueError(f"pad(): padding mode {mode!r} doesn't take in value argument")
    if mode != "constant" and (len(pad) // 2 not in (input.ndim - 1, input.ndim - 2)
                               or not 1 <= len(pad) // 2 <= 3):
        # (PyTorch's rule: the last 1, 2 or 3 dimensions of a batched or unbatched input)
        raise NotImplementedError(
            f"pad(): padding size {len(pad)} is not supported for {input.ndim}D input tensor in "
            f"{mode} mode: pad the last 1 (2D or 3D input), 2 (3D or 4D) or 3 (4D or 5D) dimensions")
    if mode in ("reflect", "replicate") and pad and all(
            input.shape[input.ndim - 1 - k] + pad[2 * k] + pad[2 * k + 1] < 1 for k in range(len(pad) // 2)):
        # (PyTorch's kernels refuse only when every padded dimension comes out empty)
        raise RuntimeError(f"pad(): {mode} padding {pad} of an input of shape {tuple(input.shape)} leaves "
                           f"every padded dimension empty")
    x = input
    for k in range(len(pad) // 2):
        dim = input.ndim - 1 - k
        left, right = pad[2 * k], pad[2 * k + 1]
        n = x.shape[dim]
        if mode == "constant":
            if left < 0 or right < 0:  # crop first
                lo, hi = builtins.max(-left, 0), n - builtins.max(-right, 0)
                if hi < lo:
                    raise ValueError(f"pad(): cropping dimension {dim} of size {n} by "
                                     f"({left}, {right}) leaves a negative size")
                x = _st.narrow(x, dim, lo, hi - lo)
            parts = []
            fill = 0 if value is None else value
            for amount in (left, right):
                shape = list(x.shape)
                shape[dim] = builtins.max(amount, 0)
                parts.append(_st.full(tuple(shape), fill, dtype=x.dtype, device=x.device))
            x = _st.concat([parts[0], x, parts[1]], axis=dim)
            continue
        if mode == "reflect" and (left >= n or right >= n):
            raise RuntimeError(f"pad(): reflect padding ({left}, {right}) must be smaller than the "
                               f"size {n} of dimension {dim}")
        if mode == "circular" and (left > n or right > n):
            raise RuntimeError(f"pad(): circular padding ({left}, {right}) may be at most the "
                               f"size {n} of dimension {dim} (it would wrap around more than once)")
        if n == 0:
            raise RuntimeError(f"pad(): {mode} padding of an empty dimension {dim}")
        if n + left + right < 0:
            raise RuntimeError(f"pad(): padding ({left}, {right}) of dimension {dim} of size {n} "
                               f"leaves a negative size")
        if mode == "circular" and (left < 0 or right < 0):
            # PyTorch's circular padding crops first and wraps around what is left
            lo, hi = builtins.max(-left, 0), n - builtins.max(-right, 0)
            if hi - lo < builtins.max(left, right, 0):
                # (PyTorch 2.13 reads uninitialised or overlapping memory here, or refuses;
                # also where nothing is left: (1, -4) of 3 elements raises there, (2, -5) not)
                raise RuntimeError(f"pad(): circular padding ({left}, {right}) crops dimension {dim} of "
                                   f"size {n} to {builtins.max(hi - lo, 0)} and would wrap around that "
                                   f"more than once")
        if n + left + right == 0:  # (nothing is left)
            x = _st.narrow(x, dim, 0, 0)
            continue
        if mode == "circular" and (left < 0 or right < 0):
            x = _st.narrow(x, dim, lo, hi - lo)
            left, right, n = builtins.max(left, 0), builtins.max(right, 0), hi - lo
        idx = np.arange(-left, n + right)
        if mode == "reflect":
            period = 2 * (n - 1) if n > 1 else 1
            idx = np.abs(idx) % period
            idx = np.where(idx >= n, period - idx, idx)
        elif mode == "replicate":
            idx = np.clip(idx, 0, n - 1)
        else:
            idx = idx % n
        x = _st.index_select(x, dim, _st.asarray(idx.astype(np.int64), device=x.device))
    return x


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Array:
    """``input / max(||input||_p, eps)`` along ``dim``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.normalize(torch.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    _check(input, "normalize")
    if input.dtype.kind not in "fc":
        raise TypeError(f"normalize(): input must be a floating-point or complex array; got {input.dtype.name}")
    # (vector_norm: PyTorch's norm, whose gradient at a zero vector is 0, not 0 / 0)
    # (a 0-d input: its dim 0 or -1 is its one element, as PyTorch reads it)
    norm = _st.linalg.vector_norm(one_element_1d(input), ord=p, axis=dim, keepdims=True)
    if input.ndim == 0:
        norm = _st.reshape(norm, ())
    return _st.divide(input, _st.clip(norm, eps, None), out=out)

from ._norm import *  # noqa: E402,F401,F403
from ._norm import __all__ as _NORM_ALL  # noqa: E402
from ._attention import *  # noqa: E402,F401,F403
from ._attention import __all__ as _ATTENTION_ALL  # noqa: E402
__all__ = __all__ + list(_NORM_ALL) + list(_ATTENTION_ALL)
from ._loss_extra import *  # noqa: E402,F401,F403
from ._loss_extra import __all__ as _LOSS_EXTRA_ALL  # noqa: E402
__all__ += _LOSS_EXTRA_ALL

from ._conv import *  # noqa: E402,F401,F403
from ._conv import __all__ as _CONV_ALL  # noqa: E402

__all__ += _CONV_ALL

# (PyTorch's parameter names, ``F.one_hot(input=...)``: strided/torch/_keyword_names.py)
from .. import _keyword_names  # noqa: E402

_keyword_names.install(globals(), _keyword_names.FUNCTIONAL, __name__)
del _keyword_names

# Every function here runs quiet, as the namespace's do (strided/__init__.py): no
# floating-point RuntimeWarning or FloatingPointError under a user's NumPy error state or
# ``simplefilter("error")``: ``linear`` and ``cross_entropy`` call NumPy themselves (the fused
# product and loss, strided/autograd/_fused.py), PyTorch's functions never warn. (After
# ``install``: the callables with PyTorch's names are the ones users call.)
_quiet_functions(globals(), set(__all__))
del _quiet_functions
