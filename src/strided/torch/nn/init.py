"""``strided.torch.nn.init``: PyTorch's weight initialisations (``torch/nn/init.py``).

Each writes into its array in place, under ``no_grad`` (so a parameter that
requires grad can be initialised), through strided's ``uniform_``/``normal_``/
``fill_``, and returns it. Bounds and gains are PyTorch's formulas; the
random numbers are strided's (seeded by ``manual_seed``), not PyTorch's.
"""

from __future__ import annotations

import math
import sys
import warnings

import strided as _st
from strided import Array
from strided._core.caller import stacklevel

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_", "eye_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "trunc_normal_"]


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table).

    >>> from strided.torch.nn import init
    >>> init.calculate_gain("relu"), init.calculate_gain("tanh")
    (1.4142135623730951, 1.6666666666666667)
    """
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d")
    if nonlinearity in linear or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _check(tensor, func, shape_first=False):
    """``tensor`` is a strided array and not an uninitialized parameter or buffer: PyTorch's
    ValueError, or (``shape_first``: a function that reads the shape first, as PyTorch's
    ``kaiming_normal_``) its RuntimeError for the shape of an uninitialized tensor."""
    if type(tensor) is not Array:
        raise TypeError(f"{func}(): expected a strided array; got {type(tensor).__name__}")
    lazy = sys.modules.get("strided.torch.nn._lazy")  # (loaded with nn; None while nn loads)
    if lazy is not None and lazy.is_lazy(tensor):
        if shape_first:
            raise RuntimeError(lazy.SHAPE_ERROR)
        raise lazy.uninitialized_error(tensor, f"<function {func}>")


def _no_op_warning(tensor) -> bool:
    """PyTorch's kaiming_*: a zero-element tensor is left as it is, with a UserWarning."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=stacklevel())
        return True
    return False


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Array:
    """Fill ``tensor`` with values drawn uniformly from ``[a, b)``.

    >>> import strided.torch as torch
    >>> w = torch.nn.init.uniform_(torch.empty(3), -1, 1)
    >>> bool(((w >= -1) & (w < 1)).all())
    True
    """
    _check(tensor, "uniform_")
    with _st.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Array:
    """Fill ``tensor`` with values drawn from ``N(mean, std**2)``.

    >>> import strided.torch as torch
    >>> torch.nn.init.normal_(torch.empty(2, 3)).shape
    strided.Size([2, 3])
    """
    _check(tensor, "normal_")
    with _st.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Array:
    """Fill ``tensor`` from ``N(mean, std**2)`` truncated to ``[a, b]`` (by redrawing).

    >>> import strided.torch as torch
    >>> w = torch.nn.init.trunc_normal_(torch.empty(100), a=-1.0, b=1.0)
    >>> bool(((w >= -1) & (w <= 1)).all())
    True
    """
    _check(tensor, "trunc_normal_")
    if a >= b:
        raise ValueError(f"trunc_normal_(): a ({a}) must be smaller than b ({b})")
    with _st.no_grad():
        tensor.normal_(mean, std, generator=generator)
        for _ in range(1000):
            bad = (tensor < a) | (tensor > b)
            if not bool(_st.any(bad)):
                return tensor
            fresh = _st.empty_like(tensor).normal_(mean, std, generator=generator)
            tensor.copy_(_st.where(bad, fresh, tensor))
        return tensor.clamp_(a, b)


def constant_(tensor, val) -> Array:
    """Fill ``tensor`` with ``val``.

    >>> import strided.torch as torch
    >>> torch.nn.init.constant_(torch.empty(2), 0.5)
    tensor([0.5000, 0.5000])
    """
    _check(tensor, "constant_")
    with _st.no_grad():
        return tensor.fill_(val)


def ones_(tensor) -> Array:
    """Fill ``tensor`` with ones.

    >>> import strided.torch as torch
    >>> torch.nn.init.ones_(torch.empty(2))
    tensor([1., 1.])
    """
    return constant_(tensor, 1.0)


def zeros_(tensor) -> Array:
    """Fill ``tensor`` with zeros.

    >>> import strided.torch as torch
    >>> torch.nn.init.zeros_(torch.empty(2))
    tensor([0., 0.])
    """
    return constant_(tensor, 0.0)


def eye_(tensor) -> Array:
    """Fill the 2-D ``tensor`` with the identity matrix.

    >>> import strided.torch as torch
    >>> torch.nn.init.eye_(torch.empty(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    _check(tensor, "eye_")
    if tensor.ndim != 2:
        raise ValueError(f"Only tensors with 2 dimensions are supported (eye_() got a "
                         f"{tensor.ndim}-D array)")
    with _st.no_grad():
        return tensor.copy_(_st.eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than "
                         f"2 dimensions (got shape {tuple(tensor.shape)})")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain: float = 1.0, generator=None) -> Array:
    """Glorot uniform: ``U(-a, a)``, ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    >>> import strided.torch as torch
    >>> w = torch.nn.init.xavier_uniform_(torch.empty(3, 5))
    >>> bool((w.abs() <= (6 / 8) ** 0.5).all())
    True
    """
    _check(tensor, "xavier_uniform_")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None) -> Array:
    """Glorot normal: ``N(0, std**2)``, ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    >>> import strided.torch as torch
    >>> torch.nn.init.xavier_normal_(torch.empty(3, 5)).shape
    strided.Size([3, 5])
    """
    _check(tensor, "xavier_normal_")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Array:
    """He uniform: ``U(-bound, bound)``, ``bound = gain * sqrt(3 / fan)``.

    >>> import strided.torch as torch
    >>> w = torch.nn.init.kaiming_uniform_(torch.empty(4, 6), a=5 ** 0.5)
    >>> bool((w.abs() <= 1 / 6 ** 0.5).all())
    True
    """
    _check(tensor, "kaiming_uniform_")
    if _no_op_warning(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    bound = math.sqrt(3.0) * gain / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Array:
    """He normal: ``N(0, std**2)``, ``std = gain / sqrt(fan)``.

    >>> import strided.torch as torch
    >>> torch.nn.init.kaiming_normal_(torch.empty(4, 6)).shape
    strided.Size([4, 6])
    """
    _check(tensor, "kaiming_normal_", shape_first=True)
    if _no_op_warning(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)
