"""Convolution, pooling and resampling for ``strided.torch.nn.functional``.

Every function is a composite of strided's differentiable operations, so values and
gradients follow from strided's autograd:

* convolution: the (padded) input's sliding windows are a view (``Array.unfold`` once per
  spatial dimension, a step slice for ``dilation``), copied once into columns (im2col) and
  multiplied by the weight in one batched ``matmul`` (groups are a batch dimension); a
  transposed convolution is the
  convolution of the stride-dilated input (zeros between the elements) with the flipped,
  transposed weight, as its definition;
* max pooling: the windows of the input padded with -inf, their ``argmax`` (the first
  maximum, as PyTorch's kernels) picked with ``gather`` so that the gradient goes to that
  one element, as PyTorch's; indices are PyTorch's: the flat index into each input plane;
* average pooling: the windows' sum divided by PyTorch's divisor (``count_include_pad``,
  ``divisor_override``, windows that ``ceil_mode`` lets run past the padding);
* adaptive average pooling and the ``linear``/``bilinear``/``bicubic``/``trilinear`` modes
  of ``interpolate``: separable, one matrix product per spatial dimension with a constant
  matrix of PyTorch's weights (its source-index formulas, computed in the input's
  float type as PyTorch's CPU kernels); adaptive max pooling and ``nearest`` gather;
* ``fold``: each kernel offset's values spread by the stride and added in place, in
  PyTorch's order; ``max_unpool``: ``scatter`` into zeros.

Errors are PyTorch's types with messages that name the function and the argument.
"""

from __future__ import annotations

import builtins
import math
import numbers
import warnings

import numpy as np

import strided as _st
from strided import Array
from ..._core.caller import stacklevel
from .._checks import tensor as _tensor
from ..._core.layout import ArgumentError as _ArgumentError

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
    "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d",
    "max_unpool1d", "max_unpool2d", "max_unpool3d", "unfold", "fold", "pixel_shuffle",
    "pixel_unshuffle", "channel_shuffle", "interpolate", "upsample", "upsample_nearest",
    "upsample_bilinear", "affine_grid", "grid_sample",
]


# --- argument helpers ----------------------------------------------------------------------

def _check(x, func: str, name: str = "input") -> Array:
    return _tensor(func, x, name)  # (the shared check: torch/_checks.py)


def _ntuple(v, n: int, func: str, name: str) -> tuple:
    """``v`` (an int or a sequence of ``n`` ints, or of one) as a tuple of ``n`` ints."""
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return (int(v),) * n
    try:
        t = tuple(v)
    except TypeError:
        raise TypeError(f"{func}(): {name} must be an int or a tuple of {n} ints; got "
                        f"{type(v).__name__}") from None
    if len(t) == 1 and n > 1:
        t = t * n
    if len(t) != n or not all(isinstance(e, numbers.Integral) and not isinstance(e, bool)
                              for e in t):
        raise RuntimeError(f"{func}(): expected {name} to be a single integer value or a list of "
                           f"{n} values, but got "
                           f"{name}={list(t)}")
    return tuple(int(e) for e in t)


def _spatial_input(input, n: int, func: str, what: str = "") -> tuple:
    """``(x, batched)``: ``input`` with a batch dimension (unbatched inputs get one)."""
    _check(input, func)
    if input.ndim == n + 2:
        return input, True
    if input.ndim == n + 1:
        return input[None], False
    raise RuntimeError(f"{func}(): Expected {n + 1}D (unbatched) or {n + 2}D (batched) input "
                       f"to {func}{what}, but got input of size: {list(input.shape)}")


def _float(x: Array, func: str, name: str = "input") -> None:
    if x.dtype.kind != "f":
        raise NotImplementedError(f"{func}(): {name} must be a floating-point array (strided's "
                                  f"{func} does not support {x.dtype.name}); got dtype "
                                  f"{x.dtype.name}")


def _real_or_int(x: Array, func: str) -> None:
    """Max pooling takes what PyTorch's CPU kernels take: floating-point and integer arrays
    (not bool, not complex)."""
    if x.dtype.kind not in "fiu":
        raise NotImplementedError(f"{func}(): input must be a floating-point or integer array "
                                  f"(strided's {func} does not support {x.dtype.name}); got "
                                  f"dtype {x.dtype.name}")


def _lowest(x: Array):
    """The padding value that never wins a max: -inf, or the integer dtype's minimum."""
    return -math.inf if x.dtype.kind == "f" else int(np.iinfo(x.dtype.name).min)


def _conv_dtype(x: Array, func: str, transposed: bool) -> None:
    """The dtypes PyTorch's CPU convolutions take: floating point and complex, every integer
    dtype (int64 only when transposed: ``slow_conv_transpose2d_out_cpu`` has no other)."""
    k = x.dtype.kind
    if k in "fc" or (k in "iu" and (not transposed or x.dtype.name == "int64")):
        return
    what = "int64" if transposed else "integer"
    raise NotImplementedError(f"{func}(): input must be a floating-point, complex or {what} array "
                              f"(strided's {func} does not support {x.dtype.name}); got dtype "
                              f"{x.dtype.name}")


def _pick_max(win: Array, valid: np.ndarray | None) -> Array:
    """The index (keepdim) along the last dimension of ``win`` that PyTorch's max-pooling
    kernels pick: the first maximum among the window's real elements (``valid``: which
    are not padding; None when all are), and, in a window that holds a NaN, its last NaN
    (PyTorch's loop takes ``val > maxval || isnan(val)``)."""
    arg = _st.argmax(win, dim=-1, keepdim=True)
    if valid is not None:
        # a window whose real elements are all -inf: argmax found a padding -inf first;
        # PyTorch keeps its first real element
        first = np.argmax(valid, axis=-1)[..., None]
        ok = _st.asarray(valid, device=win.device)
        ok = _st.gather(ok.expand(tuple(win.shape)), -1, arg)
        arg = _st.where(ok, arg, _st.asarray(first, device=win.device))
    nan = _st.isnan(win)
    # (on the host, the NaN pass runs only where there is a NaN; on a GPU it always runs,
    # so that pooling never waits for a device-to-host copy)
    if str(win.device) != "cpu" or bool(_st.any(nan)):
        K = win.shape[-1]
        last = (K - 1) - _st.argmax(_st.flip(nan, axis=(-1,)).to(_st.int8), dim=-1,
                                    keepdim=True)
        arg = _st.where(_st.any(nan, dim=-1, keepdim=True), last, arg)
    return arg


def _windows(x: Array, k: tuple, s: tuple, d: tuple) -> Array:
    """The sliding windows of the last ``len(k)`` dimensions of ``x`` as a view:
    shape ``(..., *out, *k)`` (``unfold`` per dimension; dilation is a step slice)."""
    n = len(k)
    lead = x.ndim - n
    for i in range(n):
        x = x.unfold(lead + i, d[i] * (k[i] - 1) + 1, s[i])
        if d[i] > 1:
            x = x[(Ellipsis, slice(None, None, d[i]))]
    return x


def _pad_spatial(x: Array, pads: list, value=0.0, mode: str = "constant") -> Array:
    """``F.pad`` over the last ``len(pads)`` dims; ``pads`` is ``[(left, right), ...]`` from the
    first spatial dimension on (negative amounts crop)."""
    if all(a == 0 and b == 0 for a, b in pads):
        return x
    flat = []
    for a, b in reversed(pads):
        flat += [a, b]
    from .functional import pad as _pad
    if mode == "constant":
        return _pad(x, flat, mode="constant", value=value)
    return _pad(x, flat, mode=mode)


# --- convolution ---------------------------------------------------------------------------

def _conv_padding(padding, n, k, s, d, func):
    """``[(left, right), ...]`` for ``padding`` (ints or 'valid'/'same')."""
    if isinstance(padding, str):
        if padding == "valid":
            return [(0, 0)] * n
        if padding == "same":
            if any(e != 1 for e in s):
                raise RuntimeError(f"{func}(): padding='same' is not supported for strided "
                                   f"convolutions")
            out = []
            for i in range(n):
                total = d[i] * (k[i] - 1)
                out.append((total // 2, total - total // 2))
            return out
        raise RuntimeError(f"{func}(): Invalid padding string: {padding!r} (should be one "
                           f"of 'valid', 'same')")
    p = _ntuple(padding, n, func, "padding")
    if any(e < 0 for e in p):
        raise RuntimeError(f"{func}(): negative padding is not supported; got padding={list(p)}")
    return [(e, e) for e in p]


def _conv(input, weight, bias, stride, padding, dilation, groups, n, func, pads=None):
    """The n-d convolution (cross-correlation) of PyTorch's ``conv{n}d``."""
    x, batched = _spatial_input(input, n, func)
    _check(weight, func, "weight")
    _conv_dtype(x, func, transposed=False)
    if weight.ndim != n + 2:
        raise RuntimeError(f"{func}(): weight must be {n + 2}-D (out_channels, in_channels / "
                           f"groups, *kernel_size); got weight of size {list(weight.shape)}")
    if weight.dtype != x.dtype:
        raise RuntimeError(f"{func}(): Input type ({x.dtype.name}) and weight type "
                           f"({weight.dtype.name}) should be the same")
    if not isinstance(groups, numbers.Integral) or groups <= 0:
        raise RuntimeError(f"{func}(): non-positive groups is not supported; got groups={groups}")
    s = _ntuple(stride, n, func, "stride")
    d = _ntuple(dilation, n, func, "dilation")
    if any(e <= 0 for e in s):
        raise RuntimeError(f"{func}(): non-positive stride is not supported; got {list(s)}")
    if any(e <= 0 for e in d):
        raise RuntimeError(f"{func}(): dilation should be greater than zero; got {list(d)}")
    k = tuple(weight.shape[2:])
    if pads is None:
        pads = _conv_padding(padding, n, k, s, d, func)
    c_out, cg = weight.shape[0], weight.shape[1]
    c_in = x.shape[1]
    if c_in != cg * groups:
        raise RuntimeError(f"{func}(): Given groups={groups}, weight of size {list(weight.shape)}, "
                           f"expected input{list(x.shape)} to have {cg * groups} channels, but "
                           f"got {c_in} channels instead")
    if c_out % groups:
        raise RuntimeError(f"{func}(): Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"{list(weight.shape)} instead")
    if bias is not None:
        _check(bias, func, "bias")
        if bias.dtype != x.dtype:
            raise RuntimeError(f"{func}(): Input type ({x.dtype.name}) and bias type "
                               f"({bias.dtype.name}) should be the same")
        if tuple(bias.shape) != (c_out,):
            raise RuntimeError(f"{func}(): Given weight of size {list(weight.shape)}, expected "
                               f"bias to be 1-dimensional with {c_out} elements, but got bias "
                               f"of size {list(bias.shape)} instead")
    padded = [x.shape[2 + i] + pads[i][0] + pads[i][1] for i in range(n)]
    eff = [d[i] * (k[i] - 1) + 1 for i in range(n)]
    if any(padded[i] < eff[i] for i in range(n)):
        raise RuntimeError(f"{func}(): Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, eff))}). Kernel size can't be greater than "
                           f"actual input size")
    x = _pad_spatial(x, pads, value=0.0 if x.dtype.kind in "fc" else 0)
    nb = x.shape[0]
    x = x.reshape((nb, groups, c_in // groups) + tuple(x.shape[2:]))
    win = _windows(x, k, s, d)  # (N, G, Cg, *out, *k)
    outs = tuple(win.shape[3:3 + n])
    K, L = int(np.prod(k)), int(np.prod(outs))
    # im2col: the windows as columns (N, G, Cg * K, L) (one copy), then one batched matmul
    # with the weight (G, C_out / G, Cg * K): (N, G, C_out / G, L), already in output order
    cols = _st.permute(win, (0, 1, 2) + tuple(range(3 + n, 3 + 2 * n)) + tuple(range(3, 3 + n)))
    cols = cols.reshape((nb, groups, cg * K, L))
    w = weight.reshape((groups, c_out // groups, cg * K))
    y = _st.matmul(w, cols).reshape((nb, c_out) + outs)
    if bias is not None:
        y = y + bias.reshape((c_out,) + (1,) * n)
    return y if batched else y[0]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Array:
    """PyTorch's ``conv1d``: 1-D cross-correlation of ``(N, C_in, L)`` (or ``(C_in, L)``) with
    ``weight`` ``(C_out, C_in / groups, k)``; ``padding`` an int, a tuple, 'valid' or 'same'.

    >>> import strided.torch as torch
    >>> torch.nn.functional.conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 2))
    tensor([[[2., 2., 2.]]])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Array:
    """PyTorch's ``conv2d``: 2-D cross-correlation of ``(N, C_in, H, W)`` (or unbatched) with
    ``weight`` ``(C_out, C_in / groups, kH, kW)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2)).shape
    strided.Size([1, 1, 2, 2])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Array:
    """PyTorch's ``conv3d``: 3-D cross-correlation of ``(N, C_in, D, H, W)`` (or unbatched).

    >>> import strided.torch as torch
    >>> torch.nn.functional.conv3d(torch.ones(1, 1, 2, 2, 2), torch.ones(1, 1, 2, 2, 2))
    tensor([[[[[8.]]]]])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _dilate_zeros(x: Array, dim: int, s: int) -> Array:
    """``x`` with ``s - 1`` zeros between consecutive elements along ``dim``."""
    if s == 1 or x.shape[dim] == 0:
        return x
    n = x.shape[dim]
    zshape = list(x.shape)
    zshape.insert(dim + 1, s - 1)
    z = _st.zeros(tuple(zshape), dtype=x.dtype, device=x.device)
    y = _st.concat([_st.unsqueeze(x, dim + 1), z], axis=dim + 1)
    shape = list(x.shape)
    shape[dim] = n * s
    return _st.narrow(y.reshape(tuple(shape)), dim, 0, (n - 1) * s + 1)


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, n,
                    func, check_output_padding=True):
    x, batched = _spatial_input(input, n, func)
    _check(weight, func, "weight")
    _conv_dtype(x, func, transposed=True)
    if weight.ndim != n + 2:
        raise RuntimeError(f"{func}(): weight must be {n + 2}-D (in_channels, out_channels / "
                           f"groups, *kernel_size); got weight of size {list(weight.shape)}")
    if weight.dtype != x.dtype:
        raise RuntimeError(f"{func}(): Input type ({x.dtype.name}) and weight type "
                           f"({weight.dtype.name}) should be the same")
    if isinstance(padding, str):
        raise TypeError(f"{func}(): padding must be an int or a tuple of ints (PyTorch's "
                        f"{func} takes no padding string); got {padding!r}")
    if not isinstance(groups, numbers.Integral) or groups <= 0:
        raise RuntimeError(f"{func}(): non-positive groups is not supported; got groups={groups}")
    s = _ntuple(stride, n, func, "stride")
    p = _ntuple(padding, n, func, "padding")
    op = _ntuple(output_padding, n, func, "output_padding")
    d = _ntuple(dilation, n, func, "dilation")
    if any(e <= 0 for e in s):
        raise RuntimeError(f"{func}(): non-positive stride is not supported; got {list(s)}")
    if any(e <= 0 for e in d):
        raise RuntimeError(f"{func}(): dilation should be greater than zero; got {list(d)}")
    if any(e < 0 for e in p):
        raise RuntimeError(f"{func}(): negative padding is not supported; got {list(p)}")
    if check_output_padding and any(op[i] >= builtins.max(s[i], d[i]) or op[i] < 0
                                    for i in range(n)):
        raise RuntimeError(f"{func}(): output padding must be smaller than either stride or "
                           f"dilation, but got output_padding={list(op)}, stride={list(s)}, "
                           f"dilation={list(d)}")
    c_in = x.shape[1]
    if weight.shape[0] != c_in:
        raise RuntimeError(f"{func}(): Given transposed=1, weight of size {list(weight.shape)}, "
                           f"expected input{list(x.shape)} to have {weight.shape[0]} channels, "
                           f"but got {c_in} channels instead")
    if c_in % groups:
        raise RuntimeError(f"{func}(): Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"{list(weight.shape)} instead")
    k = tuple(weight.shape[2:])
    og = weight.shape[1]
    c_out = og * groups
    if bias is not None:
        _check(bias, func, "bias")
        if tuple(bias.shape) != (c_out,):
            raise RuntimeError(f"{func}(): Given transposed=1, weight of size "
                               f"{list(weight.shape)}, expected bias to be 1-dimensional with "
                               f"{c_out} elements, but got bias of size {list(bias.shape)} "
                               f"instead")
    sizes = [(x.shape[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1
             for i in range(n)]
    if any(e <= 0 for e in sizes):
        raise RuntimeError(f"{func}(): Given input size per channel: {list(x.shape[2:])}, the "
                           f"calculated output size per channel {sizes} is too small")
    for i in range(n):
        x = _dilate_zeros(x, 2 + i, s[i])
    pads = [(d[i] * (k[i] - 1) - p[i], d[i] * (k[i] - 1) - p[i] + op[i]) for i in range(n)]
    x = _pad_spatial(x, pads, value=0.0 if x.dtype.kind in "fc" else 0)
    # weight (C_in, C_out/G, *k) -> (C_out, C_in/G, *k), flipped in space
    w = weight.reshape((groups, c_in // groups, og) + k)
    w = _st.swapdims(w, 1, 2).reshape((c_out, c_in // groups) + k)
    w = _st.flip(w, axis=tuple(range(2, 2 + n)))
    y = _conv(x, w, bias, 1, 0, d, groups, n, func)
    return y if batched else y[0]


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Array:
    """PyTorch's ``conv_transpose1d`` (the gradient of ``conv1d`` with respect to its input):
    ``weight`` is ``(C_in, C_out / groups, k)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.conv_transpose1d(torch.ones(1, 1, 2), torch.ones(1, 1, 2))
    tensor([[[1., 2., 1.]]])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1, "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Array:
    """PyTorch's ``conv_transpose2d``: ``weight`` is ``(C_in, C_out / groups, kH, kW)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.conv_transpose2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2),
    ...                                      stride=2).shape
    strided.Size([1, 1, 4, 4])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2, "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1) -> Array:
    """PyTorch's ``conv_transpose3d``: ``weight`` is ``(C_in, C_out / groups, kD, kH, kW)``.

    >>> import strided.torch as torch
    >>> x, w = torch.ones(1, 1, 1, 1, 1), torch.ones(1, 2, 2, 2, 2)
    >>> torch.nn.functional.conv_transpose3d(x, w).shape
    strided.Size([1, 2, 2, 2, 2])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 3, "conv_transpose3d")


# --- max and average pooling ---------------------------------------------------------------

def _pool_geometry(shape, k, s, p, d, ceil_mode, func):
    """PyTorch's pooling output sizes and the (left, right) padding that gives exactly those
    windows (a window that ``ceil_mode`` lets start inside the input runs past the padding)."""
    n = len(k)
    if any(e <= 0 for e in k):
        raise RuntimeError(f"{func}(): kernel_size must be greater than zero, but got "
                           f"{list(k)}")
    if any(e <= 0 for e in s):
        raise RuntimeError(f"{func}(): stride must be greater than zero, but got {list(s)}")
    if any(e <= 0 for e in d):
        raise RuntimeError(f"{func}(): dilation must be greater than zero, but got {list(d)}")
    if any(e < 0 for e in p):
        raise RuntimeError(f"{func}(): pad must be non-negative, but got pad: {list(p)}")
    for i in range(n):
        if p[i] > k[i] // 2:
            raise RuntimeError(f"{func}(): pad should be at most half of effective kernel size, "
                               f"but got pad={p[i]}, kernel_size={k[i]} and dilation={d[i]}")
    outs, pads = [], []
    for i in range(n):
        L = shape[i]
        eff = d[i] * (k[i] - 1) + 1
        num = L + 2 * p[i] - eff + ((s[i] - 1) if ceil_mode else 0)
        o = (num // s[i] if num >= 0 else -((-num + s[i] - 1) // s[i])) + 1
        if ceil_mode and (o - 1) * s[i] >= L + p[i]:
            o -= 1
        outs.append(o)
        pads.append((p[i], (o - 1) * s[i] + eff - L - p[i]))
    if any(o <= 0 for o in outs):
        raise RuntimeError(f"{func}(): Given input size: ({'x'.join(map(str, shape))}). "
                           f"Calculated output size: ({'x'.join(map(str, outs))}). Output size is "
                           f"too small")
    return outs, pads


def _pool_args(input, kernel_size, stride, padding, dilation, n, func):
    x, batched = _spatial_input(input, n, func)
    if 0 in x.shape[1:]:  # (PyTorch's pool shape checks: only the batch may be empty)
        raise RuntimeError(f"{func}(): Expected {n + 1}D or {n + 2}D (batch mode) input with optional 0 "
                           f"dim batch size, every other dimension of positive length, but got "
                           f"input of size: {list(input.shape)}")
    k = _ntuple(kernel_size, n, func, "kernel_size")
    s = k if stride is None or (not isinstance(stride, numbers.Integral)
                                and len(tuple(stride)) == 0) \
        else _ntuple(stride, n, func, "stride")
    p = _ntuple(padding, n, func, "padding")
    d = _ntuple(dilation, n, func, "dilation")
    return x, batched, k, s, p, d


def _plane_index(outs, k, s, p, d, sizes) -> np.ndarray:
    """``(*outs, prod(k))``: the flat index in the input plane of each window element."""
    n = len(k)
    flat = np.zeros(tuple(outs) + tuple(k), dtype=np.int64)
    mult = 1
    for i in reversed(range(n)):
        c = (np.arange(outs[i])[:, None] * s[i] - p[i] + np.arange(k[i])[None, :] * d[i])
        shape = [1] * (2 * n)
        shape[i], shape[n + i] = outs[i], k[i]
        flat = flat + c.reshape(shape) * mult
        mult *= sizes[i]
    return flat.reshape(tuple(outs) + (-1,))


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, n, func):
    x, batched, k, s, p, d = _pool_args(input, kernel_size, stride, padding, dilation, n, func)
    _real_or_int(x, func)
    if n == 1 and not return_indices:
        _float(x, func)  # (PyTorch's max_pool1d_impl: floats only; with indices it takes ints)
    sizes = tuple(x.shape[2:])
    outs, pads = _pool_geometry(sizes, k, s, p, d, ceil_mode, func)
    xp = _pad_spatial(x, pads, value=_lowest(x))
    win = _windows(xp, k, s, d)
    K = 1
    for e in k:
        K *= e
    win = win.reshape(tuple(win.shape[:2 + n]) + (K,))
    plane = _plane_index(outs, k, s, p, d, sizes)
    valid = None
    if any(a or b > 0 for a, b in pads):
        valid = np.ones(plane.shape, dtype=bool)
        coords = np.unravel_index(np.arange(int(np.prod(k))), k)
        for i in range(n):
            c = (np.arange(outs[i])[:, None] * s[i] - p[i] + coords[i][None, :] * d[i])
            inside = (c >= 0) & (c < sizes[i])  # (out_i, K)
            shape = [1] * n + [K]
            shape[i] = outs[i]
            valid = valid & inside.reshape(shape)
        if valid.all():
            valid = None
    arg = _pick_max(win, valid)
    val = _st.gather(win, -1, arg)[..., 0]
    if not batched:
        val = val[0]
    if not return_indices:
        return val
    table = _st.asarray(plane, device=x.device)
    idx = _st.gather(table.expand(tuple(arg.shape[:-1]) + (K,)), -1, arg)[..., 0]
    return val, (idx if batched else idx[0])


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """PyTorch's ``max_pool1d_with_indices``: ``(values, indices)`` of ``max_pool1d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.max_pool1d_with_indices(torch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)[1]
    tensor([[1, 2]])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 1,
                     "max_pool1d")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """PyTorch's ``max_pool2d_with_indices``: ``(values, indices)`` of ``max_pool2d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.max_pool2d_with_indices(torch.ones(1, 2, 2), 2)[1]
    tensor([[[0]]])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 2,
                     "max_pool2d")


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """PyTorch's ``max_pool3d_with_indices``: ``(values, indices)`` of ``max_pool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.max_pool3d_with_indices(torch.ones(1, 2, 2, 2), 2)[0].shape
    strided.Size([1, 1, 1, 1])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 3,
                     "max_pool3d")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """PyTorch's ``max_pool1d``: the maximum of each window of the last dimension
    (``stride`` defaults to ``kernel_size``; ``return_indices``: also each maximum's flat index
    in its input plane, for ``max_unpool1d``; the gradient goes to that element).

    >>> import strided.torch as torch
    >>> torch.nn.functional.max_pool1d(torch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[3., 2.]])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     1, "max_pool1d")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """PyTorch's ``max_pool2d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.max_pool2d(torch.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     2, "max_pool2d")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """PyTorch's ``max_pool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.max_pool3d(torch.arange(8.0).reshape(1, 2, 2, 2), 2)
    tensor([[[[7.]]]])
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     3, "max_pool3d")


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override, n, func):
    x, batched, k, s, p, d = _pool_args(input, kernel_size, stride, padding, 1, n, func)
    integer = x.dtype.name == "int64"  # (PyTorch's CPU kernels: int64 is the one integer dtype)
    if not integer:
        _float(x, func)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{func}(): divisor must be not zero")
    sizes = tuple(x.shape[2:])
    outs, pads = _pool_geometry(sizes, k, s, p, d, ceil_mode, func)
    xp = _pad_spatial(x, pads, value=0 if integer else 0.0)
    win = _windows(xp, k, s, d)
    total = _st.sum(win, axis=tuple(range(2 + n, 2 + 2 * n)))
    if integer:
        # the window's sum (wrapping as int64 does) divided toward zero (PyTorch's C division)
        if divisor_override is not None:
            y = total.div(int(divisor_override), rounding_mode="trunc")
        else:
            y = total.div(_st.asarray(_avg_divisors(sizes, outs, k, s, p, count_include_pad)
                                      .astype(np.int64), device=x.device), rounding_mode="trunc")
        return y if batched else y[0]
    if divisor_override is not None:
        y = total / float(divisor_override)
    else:
        div = _avg_divisors(sizes, outs, k, s, p, count_include_pad)
        y = total / _st.asarray(div.astype(x.dtype.name), device=x.device)
    return y if batched else y[0]


def _avg_divisors(sizes, outs, k, s, p, count_include_pad) -> np.ndarray:
    """Each output's divisor: its window's size within the padded input (``count_include_pad``)
    or within the input."""
    n = len(k)
    div = np.ones(tuple(outs), dtype=np.float64)
    for i in range(n):
        start = np.arange(outs[i]) * s[i] - p[i]
        end = np.minimum(start + k[i], sizes[i] + p[i])
        size_pad = end - start
        real = np.minimum(end, sizes[i]) - np.maximum(start, 0)
        c = size_pad if count_include_pad else real
        shape = [1] * n
        shape[i] = outs[i]
        div = div * c.reshape(shape)
    return div


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True) -> Array:
    """PyTorch's ``avg_pool1d``: the mean of each window (``count_include_pad``: padding zeros
    count in the divisor).

    >>> import strided.torch as torch
    >>> torch.nn.functional.avg_pool1d(torch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[2., 1.]])
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1,
                     "avg_pool1d")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None) -> Array:
    """PyTorch's ``avg_pool2d`` (``divisor_override`` replaces the window size as divisor).

    >>> import strided.torch as torch
    >>> torch.nn.functional.avg_pool2d(torch.ones(1, 2, 2), 2)
    tensor([[[1.]]])
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2, "avg_pool2d")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None) -> Array:
    """PyTorch's ``avg_pool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.avg_pool3d(torch.ones(1, 2, 2, 2), 2)
    tensor([[[[1.]]]])
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 3, "avg_pool3d")


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n, func):
    k = _ntuple(kernel_size, n, func, "kernel_size")
    # (PyTorch takes int64 and bool here through its int64 average pooling and pow's
    # promotion, which depends on whether norm_type is an int or a float: not followed)
    _float(_check(input, func), func)
    if norm_type == math.inf:
        return _max_pool(_st.abs(input), kernel_size, stride, 0, 1, ceil_mode, False, n, func)
    if norm_type == -math.inf:
        return -_max_pool(-_st.abs(input), kernel_size, stride, 0, 1, ceil_mode, False, n, func)
    out = _avg_pool(_st.pow(input, norm_type), kernel_size, stride, 0, ceil_mode, True, None, n,
                    func)
    K = 1
    for e in k:
        K *= e
    return _st.pow((_st.sign(out) * _st.relu(_st.abs(out))) * K, 1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Array:
    """PyTorch's ``lp_pool1d``: ``(sum of x ** p over each window) ** (1 / p)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.lp_pool1d(torch.tensor([[3.0, 4.0]]), 2, 2)
    tensor([[5.]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, "lp_pool1d")


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Array:
    """PyTorch's ``lp_pool2d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.lp_pool2d(torch.ones(1, 2, 2), 1, 2)
    tensor([[[4.]]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, "lp_pool2d")


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Array:
    """PyTorch's ``lp_pool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.lp_pool3d(torch.ones(1, 2, 2, 2), 1, 2)
    tensor([[[[8.]]]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, "lp_pool3d")


# --- adaptive pooling ----------------------------------------------------------------------

def _adaptive_sizes(x: Array, output_size, n: int, func: str) -> tuple:
    if isinstance(output_size, numbers.Integral) and not isinstance(output_size, bool):
        out = (int(output_size),) * n
    else:
        out = tuple(output_size)
        if len(out) == 1 and n > 1:
            out = out * n
        if len(out) != n:
            raise _ArgumentError(f"{func}(): output_size must be an int or a tuple of {n} values; "
                             f"got {output_size!r}")
    out = tuple(x.shape[x.ndim - n + i] if out[i] is None else int(out[i]) for i in range(n))
    if any(o < 0 for o in out):
        raise RuntimeError(f"{func}(): output_size must be non-negative; got {list(out)}")
    for i in range(n):
        if x.shape[x.ndim - n + i] == 0:
            raise RuntimeError(f"{func}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(x.shape)} with dimension "
                               f"{x.ndim - n + i} being empty")
    return out


def _starts_ends(L: int, o: int):
    i = np.arange(o)
    return (i * L) // o, -((-(i + 1) * L) // o)


def _along(x: Array, dim: int, m: np.ndarray) -> Array:
    """``x`` with dimension ``dim`` (size ``m.shape[1]``) mapped by the matrix ``m``."""
    mat = _st.asarray(np.ascontiguousarray(m.T).astype(x.dtype.name), device=x.device)
    y = _st.matmul(_st.movedim(x, dim, -1), mat)
    return _st.movedim(y, -1, dim)


def _adaptive_avg(input, output_size, n, func):
    x, batched = _spatial_input(input, n, func)
    _float(x, func)
    out = _adaptive_sizes(x, output_size, n, func)
    for i in range(n):
        L = x.shape[2 + i]
        st_, en = _starts_ends(L, out[i])
        m = np.zeros((out[i], L))
        for r in range(out[i]):
            m[r, st_[r]:en[r]] = 1.0 / (en[r] - st_[r])
        x = _along(x, 2 + i, m)
    return x if batched else x[0]


def adaptive_avg_pool1d(input, output_size) -> Array:
    """PyTorch's ``adaptive_avg_pool1d``: the mean of ``output_size`` windows
    ``[floor(i L / o), ceil((i + 1) L / o))``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.adaptive_avg_pool1d(torch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[2., 1.]])
    """
    return _adaptive_avg(input, output_size, 1, "adaptive_avg_pool1d")


def adaptive_avg_pool2d(input, output_size) -> Array:
    """PyTorch's ``adaptive_avg_pool2d`` (``None`` in ``output_size`` keeps that size).

    >>> import strided.torch as torch
    >>> torch.nn.functional.adaptive_avg_pool2d(torch.ones(1, 3, 3), 1)
    tensor([[[1.]]])
    """
    return _adaptive_avg(input, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool3d(input, output_size) -> Array:
    """PyTorch's ``adaptive_avg_pool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.adaptive_avg_pool3d(torch.ones(1, 2, 2, 2), 1)
    tensor([[[[1.]]]])
    """
    return _adaptive_avg(input, output_size, 3, "adaptive_avg_pool3d")


def _adaptive_max(input, output_size, return_indices, n, func):
    x, batched = _spatial_input(input, n, func)
    _float(x, func)
    out = _adaptive_sizes(x, output_size, n, func)
    sizes = tuple(x.shape[2:])
    cols = []  # per dimension: (out_i, width_i) input coordinates, the last one repeated
    for i in reversed(range(n)):
        st_, en = _starts_ends(sizes[i], out[i])
        width = int((en - st_).max()) if out[i] else 1
        c = np.minimum(st_[:, None] + np.arange(width)[None, :], en[:, None] - 1)
        cols.insert(0, (c, width))
    kshape = tuple(w for _, w in cols)
    flat = np.zeros(tuple(out) + kshape, dtype=np.int64)
    mult = 1
    for i in reversed(range(n)):
        c, w = cols[i]
        shape = [1] * (2 * n)
        shape[i], shape[n + i] = out[i], w
        flat = flat + c.reshape(shape) * mult
        mult *= sizes[i]
    K = 1
    for w in kshape:
        K *= w
    table = flat.reshape(-1)
    nb, c = x.shape[0], x.shape[1]
    plane = x.reshape((nb, c, int(np.prod(sizes))))
    idx_arr = _st.asarray(table, device=x.device)
    gathered = _st.index_select(plane, 2, idx_arr).reshape((nb, c) + tuple(out) + (K,))
    arg = _pick_max(gathered, None)
    val = _st.gather(gathered, -1, arg)[..., 0]
    if not batched:
        val = val[0]
    if not return_indices:
        return val
    tab = idx_arr.reshape(tuple(out) + (K,)).expand((nb, c) + tuple(out) + (K,))
    idx = _st.gather(tab, -1, arg)[..., 0]
    return val, (idx if batched else idx[0])


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """PyTorch's ``adaptive_max_pool1d_with_indices``: ``(values, indices)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.adaptive_max_pool1d_with_indices(torch.tensor([[1.0, 3.0, 2.0]]), 1)[1]
    tensor([[1]])
    """
    return _adaptive_max(input, output_size, True, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """PyTorch's ``adaptive_max_pool2d_with_indices``: ``(values, indices)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.adaptive_max_pool2d_with_indices(torch.ones(1, 2, 2), 1)[1]
    tensor([[[0]]])
    """
    return _adaptive_max(input, output_size, True, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """PyTorch's ``adaptive_max_pool3d_with_indices``: ``(values, indices)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.adaptive_max_pool3d_with_indices(torch.ones(1, 2, 2, 2), 1)[0]
    tensor([[[[1.]]]])
    """
    return _adaptive_max(input, output_size, True, 3, "adaptive_max_pool3d")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """PyTorch's ``adaptive_max_pool1d``: the maximum of ``output_size`` windows
    ``[floor(i L / o), ceil((i + 1) L / o))``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.adaptive_max_pool1d(torch.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    tensor([[3., 2.]])
    """
    return _adaptive_max(input, output_size, return_indices, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """PyTorch's ``adaptive_max_pool2d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.adaptive_max_pool2d(torch.arange(4.0).reshape(1, 2, 2), 1)
    tensor([[[3.]]])
    """
    return _adaptive_max(input, output_size, return_indices, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """PyTorch's ``adaptive_max_pool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.adaptive_max_pool3d(torch.arange(8.0).reshape(1, 2, 2, 2), 1)
    tensor([[[[7.]]]])
    """
    return _adaptive_max(input, output_size, return_indices, 3, "adaptive_max_pool3d")


# --- max_unpool ----------------------------------------------------------------------------

def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n, func):
    x, batched = _spatial_input(input, n, func)
    _check(indices, func, "indices")
    if indices.dtype.name != "int64":
        raise RuntimeError(f"{func}(): elements in indices should be type int64 but got: "
                           f"{indices.dtype.name}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"{func}(): Expected shape of indices to be same as that of the "
                           f"input tensor ({list(input.shape)}) but got indices tensor with "
                           f"shape: {list(indices.shape)}")
    k = _ntuple(kernel_size, n, func, "kernel_size")
    s = k if stride is None else _ntuple(stride, n, func, "stride")
    p = _ntuple(padding, n, func, "padding")
    default = [(x.shape[2 + i] - 1) * s[i] - 2 * p[i] + k[i] for i in range(n)]
    if output_size is None:
        out = default
    else:
        out = list(output_size)
        if len(out) == n + 2 or (len(out) == n + 1 and not batched):
            out = out[-n:]
        if len(out) != n:
            raise ValueError(f"{func}(): output_size should be a sequence containing {n} or "
                             f"{n + 2} elements, but it has a length of '{len(output_size)}'")
        for i in range(n):
            lo, hi = default[i] - s[i], default[i] + s[i]
            if not lo < out[i] < hi:
                raise ValueError(f"{func}(): invalid output_size \"{output_size}\" (dim {i} "
                                 f"must be between {lo} and {hi})")
    idx = indices if batched else indices[None]
    nb, c = x.shape[0], x.shape[1]
    P = 1
    for e in out:
        P *= e
    m = int(np.prod(x.shape[2:]))
    flat_idx = idx.reshape((nb, c, m))
    if flat_idx.numel() and (int(_st.max(flat_idx)) >= P or int(_st.min(flat_idx)) < 0):
        raise RuntimeError(f"{func}(): Found an invalid max index: {int(_st.max(flat_idx))} "
                           f"(output volumes are of size {'x'.join(map(str, out))})")
    z = _st.zeros((nb, c, P), dtype=x.dtype, device=x.device)
    y = z.scatter(2, flat_idx, x.reshape((nb, c, m))).reshape((nb, c) + tuple(out))
    return y if batched else y[0]


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Array:
    """PyTorch's ``max_unpool1d``: zeros with ``input``'s values put at ``indices`` (the
    indices ``max_pool1d(..., return_indices=True)`` gives).

    >>> import strided.torch as torch
    >>> torch.nn.functional.max_unpool1d(torch.tensor([[3.0]]), torch.tensor([[1]]), 2)
    tensor([[0., 3.]])
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1,
                       "max_unpool1d")


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Array:
    """PyTorch's ``max_unpool2d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.max_unpool2d(torch.tensor([[[3.0]]]), torch.tensor([[[3]]]), 2)
    tensor([[[0., 0.],
             [0., 3.]]])
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2,
                       "max_unpool2d")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Array:
    """PyTorch's ``max_unpool3d``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.max_unpool3d(torch.ones(1, 1, 1, 1), torch.tensor([[[[7]]]]), 2).shape
    strided.Size([1, 2, 2, 2])
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3,
                       "max_unpool3d")


# --- fold / unfold, pixel and channel shuffles -----------------------------------------------

def unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Array:
    """PyTorch's ``unfold`` (im2col): ``(N, C, H, W)`` to ``(N, C * kH * kW, L)``, each column
    one sliding block.

    >>> import strided.torch as torch
    >>> torch.nn.functional.unfold(torch.ones(1, 1, 3, 3), 2).shape
    strided.Size([1, 4, 4])
    """
    _check(input, "unfold")
    if input.ndim not in (3, 4):
        raise NotImplementedError(f"unfold(): Input Error: Only 3D or 4D input Tensors are "
                                  f"supported (got {input.ndim}D)")
    x = input if input.ndim == 4 else input[None]
    k = _ntuple(kernel_size, 2, "unfold", "kernel_size")
    d = _ntuple(dilation, 2, "unfold", "dilation")
    p = _ntuple(padding, 2, "unfold", "padding")
    s = _ntuple(stride, 2, "unfold", "stride")
    for name, v in (("kernel_size", k), ("dilation", d), ("stride", s)):
        if any(e <= 0 for e in v):
            raise RuntimeError(f"unfold(): {name} should be greater than zero, but got "
                               f"{name}: {list(v)}")
    if any(e < 0 for e in p):
        raise RuntimeError(f"unfold(): padding should be non-negative, but got padding: {list(p)}")
    padded = [x.shape[2 + i] + 2 * p[i] for i in range(2)]
    eff = [d[i] * (k[i] - 1) + 1 for i in range(2)]
    if any(padded[i] < eff[i] for i in range(2)):
        raise RuntimeError(f"unfold(): Given input with spatial size ({x.shape[2]}, {x.shape[3]}), "
                           f"kernel_size={list(k)}, dilation={list(d)}, padding={list(p)}, "
                           f"calculated shape of the array of sliding blocks as "
                           f"({(padded[0] - eff[0]) // s[0] + 1}, "
                           f"{(padded[1] - eff[1]) // s[1] + 1}), but its components must be at "
                           f"least one.")
    xp = _pad_spatial(x, [(p[0], p[0]), (p[1], p[1])])
    win = _windows(xp, k, s, d)  # (N, C, oh, ow, kh, kw)
    nb, c, oh, ow = win.shape[:4]
    y = _st.permute(win, (0, 1, 4, 5, 2, 3)).reshape((nb, c * k[0] * k[1], oh * ow))
    return y if input.ndim == 4 else y[0]


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Array:
    """PyTorch's ``fold`` (col2im): sums the columns ``(N, C * kH * kW, L)`` of sliding blocks
    back into ``(N, C, *output_size)`` (overlapping values add).

    >>> import strided.torch as torch
    >>> torch.nn.functional.fold(torch.ones(1, 4, 4), (3, 3), 2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    _check(input, "fold")
    if input.ndim not in (2, 3):
        raise NotImplementedError(f"fold(): Input Error: Only unbatched (2D) or batched (3D) "
                                  f"input Tensors are supported (got {input.ndim}D)")
    x = input if input.ndim == 3 else input[None]
    size = _ntuple(output_size, 2, "fold", "output_size")
    k = _ntuple(kernel_size, 2, "fold", "kernel_size")
    d = _ntuple(dilation, 2, "fold", "dilation")
    p = _ntuple(padding, 2, "fold", "padding")
    s = _ntuple(stride, 2, "fold", "stride")
    for name, v in (("kernel_size", k), ("dilation", d), ("stride", s)):
        if any(e <= 0 for e in v):
            raise RuntimeError(f"fold(): {name} should be greater than zero, but got "
                               f"{name}: {list(v)}")
    K = k[0] * k[1]
    if x.shape[1] % K:
        raise RuntimeError(f"fold(): Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={x.shape[1]} and "
                           f"kernel_size={k}")
    blocks = [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
    if blocks[0] < 1 or blocks[1] < 1 or x.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(f"fold(): Given output_size={size}, kernel_size={k}, dilation={d}, "
                           f"padding={p}, stride={s}, expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {blocks[0]} * "
                           f"{blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={x.shape[2]}.")
    hp, wp = size[0] + 2 * p[0], size[1] + 2 * p[1]
    nb, c = x.shape[0], x.shape[1] // K
    cols = x.reshape((nb, c, K, blocks[0], blocks[1]))
    # col2im as PyTorch's loop: each kernel offset's block values, spread by the stride
    # (zeros between them) and placed at the offset, added in kernel order; no scatter, so
    # no index checks on the host and exact sums (adding zeros)
    y = None
    for j in range(K):
        a, b = divmod(j, k[1])
        piece = _dilate_zeros(_dilate_zeros(cols[:, :, j], 2, s[0]), 3, s[1])
        top, left = a * d[0], b * d[1]
        piece = _pad_spatial(piece, [(top, hp - top - piece.shape[2]),
                                     (left, wp - left - piece.shape[3])])
        y = piece if y is None else y + piece
    y = _pad_spatial(y, [(-p[0], -p[0]), (-p[1], -p[1])])
    return y if input.ndim == 3 else y[0]


def pixel_shuffle(input, upscale_factor) -> Array:
    """PyTorch's ``pixel_shuffle``: ``(*, C r^2, H, W)`` to ``(*, C, H r, W r)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.pixel_shuffle(torch.arange(4.0).reshape(4, 1, 1), 2)
    tensor([[[0., 1.],
             [2., 3.]]])
    """
    _check(input, "pixel_shuffle")
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle(): pixel_shuffle expects input to have at least 3 "
                           f"dimensions, but got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle(): pixel_shuffle expects a positive upscale_factor, "
                           f"but got {r}")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle(): pixel_shuffle expects its input's 'channel' "
                           f"dimension to be divisible by the square of upscale_factor, but "
                           f"input.size(-3)={c} is not divisible by {r * r}")
    lead = tuple(lead)
    nl = len(lead)
    y = input.reshape(lead + (c // (r * r), r, r, h, w))
    perm = tuple(range(nl)) + tuple(nl + i for i in (0, 3, 1, 4, 2))
    return _st.permute(y, perm).reshape(lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor) -> Array:
    """PyTorch's ``pixel_unshuffle``: ``(*, C, H r, W r)`` to ``(*, C r^2, H, W)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.pixel_unshuffle(torch.arange(4.0).reshape(1, 2, 2), 2).shape
    strided.Size([4, 1, 1])
    """
    _check(input, "pixel_unshuffle")
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle(): pixel_unshuffle expects input to have at least 3 "
                           f"dimensions, but got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle(): pixel_unshuffle expects a positive "
                           f"downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle(): pixel_unshuffle expects height and width to be "
                           f"divisible by downscale_factor, but input.size(-2)={h} and "
                           f"input.size(-1)={w} are not divisible by {r}")
    lead = tuple(lead)
    nl = len(lead)
    y = input.reshape(lead + (c, h // r, r, w // r, r))
    perm = tuple(range(nl)) + tuple(nl + i for i in (0, 2, 4, 1, 3))
    return _st.permute(y, perm).reshape(lead + (c * r * r, h // r, w // r))


def channel_shuffle(input, groups) -> Array:
    """PyTorch's ``channel_shuffle``: the channels ``(g, C / g)`` read as ``(C / g, g)``.

    >>> import strided.torch as torch
    >>> torch.nn.functional.channel_shuffle(torch.arange(4.0).reshape(1, 4, 1), 2)[0, :, 0]
    tensor([0., 2., 1., 3.])
    """
    _check(input, "channel_shuffle")
    g = int(groups)
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle(): channel_shuffle expects input to have at least "
                           f"3 dimensions, but got input with {input.ndim} dimension(s)")
    if g <= 0:
        raise RuntimeError(f"channel_shuffle(): Number of groups to divide channels in must be "
                           f"positive. Value of groups:{g}")
    c = input.shape[1]
    if c % g:
        raise RuntimeError(f"channel_shuffle(): Number of channels must be divisible by groups. "
                           f"Got {c} channels and {g} groups.")
    n = input.shape[0]
    rest = tuple(input.shape[2:])
    y = input.reshape((n, g, c // g) + rest)
    return _st.swapdims(y, 1, 2).reshape(tuple(input.shape))


# --- interpolate ---------------------------------------------------------------------------

_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "lanczos", "area",
          "nearest-exact")
_MODE_DIMS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5, "lanczos": 4}


def _scale_value(ftype, scale, L, o):
    """PyTorch's ``compute_scales_value``: ``1 / scale`` where a scale was given, else
    ``in / out``, in the kernel's float type."""
    if scale is not None and scale > 0:
        return ftype(1.0 / scale)
    return ftype(ftype(L) / ftype(o)) if o else ftype(0)


def _area_scale(ftype, L, o, align_corners, scale):
    if align_corners:
        return ftype(ftype(L - 1) / ftype(o - 1)) if o > 1 else ftype(0)
    return _scale_value(ftype, scale, L, o)


def _nearest_matrix(L, o, scale, exact) -> np.ndarray:
    f = np.float32
    sc = _scale_value(f, scale, L, o)
    dst = np.arange(o, dtype=np.float32)
    if exact:
        src = np.floor((dst + f(0.5)) * sc).astype(np.int64)
    elif o == L:
        src = np.arange(o)
    elif o == 2 * L:
        src = np.arange(o) >> 1
    else:
        src = np.floor(dst * sc).astype(np.int64)
    return np.minimum(src, L - 1)


def _linear_matrix(L, o, scale, align_corners, ftype) -> np.ndarray:
    sc = _area_scale(ftype, L, o, align_corners, scale)
    dst = np.arange(o).astype(ftype)
    src = sc * dst if align_corners else sc * (dst + ftype(0.5)) - ftype(0.5)
    src = np.maximum(src, ftype(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), L - 1)
    lam = np.clip(src - i0.astype(ftype), ftype(0), ftype(1)).astype(ftype)
    i1 = i0 + (i0 < L - 1)
    m = np.zeros((o, L), dtype=ftype)
    r = np.arange(o)
    np.add.at(m, (r, i0), ftype(1) - lam)
    np.add.at(m, (r, i1), lam)
    return m


def _cubic_matrix(L, o, scale, align_corners, ftype) -> np.ndarray:
    A = ftype(-0.75)
    sc = _area_scale(ftype, L, o, align_corners, scale)
    dst = np.arange(o).astype(ftype)
    src = sc * dst if align_corners else sc * (dst + ftype(0.5)) - ftype(0.5)
    fl = np.floor(src)
    t = (src - fl).astype(ftype)
    base = fl.astype(np.int64)

    def c1(x):
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def c2(x):
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A

    coeffs = [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]
    m = np.zeros((o, L), dtype=ftype)
    r = np.arange(o)
    for j in range(4):
        np.add.at(m, (r, np.clip(base - 1 + j, 0, L - 1)), coeffs[j].astype(ftype))
    return m


def _aa_filter(kind, x, ftype):
    """PyTorch's antialiasing filters (``HelperInterpLinear/Cubic::aa_filter``) in the kernel's
    float type: the triangle, Keys' cubic with ``a = -0.5`` (not the -0.75 of the plain
    bicubic mode), and Lanczos-3 (``sinc(x) sinc(x / 3)`` on ``[-3, 3)``, Pillow's)."""
    if kind == "lanczos":
        x = x.astype(ftype)
        with np.errstate(invalid="ignore", divide="ignore"):
            px = ftype(np.pi) * x
            sinc = np.where(x == 0, ftype(1), np.sin(px) / px)
            px3 = px / ftype(3)
            sinc3 = np.where(x == 0, ftype(1), np.sin(px3) / px3)
        return np.where((x >= -3) & (x < 3), sinc * sinc3, ftype(0)).astype(ftype)
    x = np.abs(x).astype(ftype)
    if kind == "bilinear":
        return np.where(x < 1, ftype(1) - x, ftype(0)).astype(ftype)
    A = ftype(-0.5)
    c1 = ((A + 2) * x - (A + 3)) * x * x + 1
    c2 = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    return np.where(x < 1, c1, np.where(x < 2, c2, ftype(0))).astype(ftype)


def _aa_matrix(L, o, scale, align_corners, ftype, kind) -> np.ndarray:
    """The ``(o, L)`` weights of PyTorch's antialiased resampling along one dimension
    (``_compute_index_ranges_weights`` with ``_compute_indices_min_size_weights_aa``): output
    ``i`` averages the inputs within ``support`` of ``center = scale (i + 0.5)`` with the filter
    stretched by ``scale`` when downsampling, the weights normalised to sum 1; each step in the
    float type and with the promotions of PyTorch's C++ (``scale``, ``center``, ``support`` in
    the kernel's type, the filter's argument through double)."""
    interp = {"bilinear": 2, "bicubic": 4, "lanczos": 6}[kind]
    sc = _area_scale(ftype, L, o, align_corners, scale)
    support = ftype(interp * 0.5 * float(sc)) if sc >= 1.0 else ftype(interp * 0.5)
    max_interp = int(math.ceil(support)) * 2 + 1
    invscale = ftype(1.0 / float(sc)) if sc >= 1.0 else ftype(1.0)
    m = np.zeros((o, L), dtype=ftype)
    for i in range(o):
        center = ftype(float(sc) * (i + 0.5))
        xmin = max(int(float(ftype(center - support)) + 0.5), 0)
        xsize = min(int(float(ftype(center + support)) + 0.5), L) - xmin
        xsize = min(max(xsize, 0), max_interp)
        j = np.arange(xmin, xmin + xsize)
        arg = ((j.astype(ftype) - center).astype(np.float64) + 0.5) * float(invscale)
        w = _aa_filter(kind, arg.astype(ftype), ftype)
        total = ftype(0)
        for v in w:  # (the C++ loop's sequential sum, in the kernel's type)
            total = ftype(total + v)
        if total != 0:
            w = (w / total).astype(ftype)
        m[i, xmin:xmin + xsize] = w
    return m


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False) -> Array:
    """PyTorch's ``interpolate``: resample the spatial dimensions of ``(N, C, *spatial)``.

    ``mode``: ``nearest``, ``nearest-exact``, ``linear`` (3-D input), ``bilinear``,
    ``bicubic``, ``lanczos`` (4-D), ``trilinear`` (5-D) or ``area`` (adaptive average pooling); give
    ``size`` or ``scale_factor``; ``align_corners`` for the interpolating modes.
    The nearest modes take uint8 inputs too (images), as PyTorch's; the others take
    floating-point inputs (PyTorch's uint8 bilinear and bicubic round in fixed
    point, not followed: they raise).
    ``antialias=True`` (``bilinear``, ``bicubic``, and ``lanczos``, which requires it) filters
    as PyTorch's antialiased kernels (Pillow's, for downsampling with ``align_corners=False``).

    >>> import strided.torch as torch
    >>> torch.nn.functional.interpolate(torch.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    """
    func = "interpolate"
    _check(input, func)
    if mode not in _MODES:
        raise NotImplementedError(f"interpolate(): Input Error: mode {mode!r} is not one of "
                                  f"{', '.join(_MODES)}")
    if input.ndim not in (3, 4, 5):
        raise NotImplementedError(f"interpolate(): Input Error: Only 3D, 4D and 5D input "
                                  f"Tensors supported (got {input.ndim}D) for the modes: "
                                  f"nearest | linear | bilinear | bicubic | trilinear | lanczos | "
                                  f"area | nearest-exact (got {mode})")
    n = input.ndim - 2
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("interpolate(): align_corners option can only be set with the "
                             "interpolating modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    # (with antialias=True, PyTorch's ValueError below comes first)
    if mode in _MODE_DIMS and input.ndim != _MODE_DIMS[mode] and not antialias:
        raise NotImplementedError(f"interpolate(): Got {input.ndim}D input, but {mode} mode "
                                  f"needs {_MODE_DIMS[mode]}D input")
    sizes = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("interpolate(): only one of size or scale_factor should be defined")
    scales = [None] * n
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != n:
                raise ValueError(f"interpolate(): Input and output must have the same number of "
                                 f"spatial dimensions, but got input with spatial dimensions of "
                                 f"{sizes} and output size of {list(size)}. Please provide input "
                                 f"tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 f"(o1, o2, ...,oK) format.")
            out = [int(e) for e in size]
        else:
            out = [int(size)] * n
        if recompute_scale_factor:
            raise ValueError("interpolate(): recompute_scale_factor is not meaningful with an "
                             "explicit size.")
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != n:
                raise ValueError(f"interpolate(): Input and scale_factor must have the same "
                                 f"number of spatial dimensions, but got input with spatial "
                                 f"dimensions of {sizes} and scale_factor of shape "
                                 f"{list(scale_factor)}. Please provide input tensor in (N, C, "
                                 f"d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
                                 f"format.")
            sf = [float(e) for e in scale_factor]
        else:
            sf = [float(scale_factor)] * n
        out = [int(math.floor(float(sizes[i]) * sf[i])) for i in range(n)]
        if mode == "area" or recompute_scale_factor:
            scales = [None] * n
        else:
            scales = sf
    else:
        raise ValueError("interpolate(): either size or scale_factor should be defined")
    if any(o <= 0 for o in out):
        raise RuntimeError(f"interpolate(): Input and output sizes should be greater than 0, but "
                           f"got input ({', '.join(map(str, sizes))}) and output "
                           f"({', '.join(map(str, out))})")
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("interpolate(): Anti-alias option is restricted to bilinear, bicubic, "
                         "and lanczos modes and requires a 4-D tensor as input")
    if mode == "lanczos":
        if align_corners:
            raise ValueError("interpolate(): Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("interpolate(): Lanczos mode requires antialias=True")
    if mode == "area":
        return _adaptive_avg(input, tuple(out), n, "interpolate")
    if mode in ("nearest", "nearest-exact"):
        # a selection: floats and uint8 (the images torchvision resizes), as PyTorch's CPU
        # kernels take
        if input.dtype.name != "uint8":
            _float(input, func)
        x = input
        for i in range(n):
            src = _nearest_matrix(sizes[i], out[i], scales[i], mode == "nearest-exact")
            x = _st.index_select(x, 2 + i, _st.asarray(src, device=input.device))
        return x
    _float(input, func)
    ftype = np.float64 if input.dtype.name == "float64" else np.float32
    x = input
    for i in range(n):
        if antialias:
            m = _aa_matrix(sizes[i], out[i], scales[i], align_corners, ftype, mode)
        elif mode == "bicubic":
            m = _cubic_matrix(sizes[i], out[i], scales[i], align_corners, ftype)
        else:
            m = _linear_matrix(sizes[i], out[i], scales[i], align_corners, ftype)
        x = _along(x, 2 + i, m)
    return x


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None) -> Array:
    """PyTorch's deprecated ``upsample``: ``interpolate`` (with PyTorch's deprecation warning).

    >>> import strided.torch as torch
    >>> import warnings; warnings.simplefilter("ignore")
    >>> torch.nn.functional.upsample(torch.tensor([[[1.0, 2.0]]]), size=3).shape
    strided.Size([1, 1, 3])
    """
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=stacklevel())
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None) -> Array:
    """PyTorch's deprecated ``upsample_nearest``: ``interpolate(..., mode='nearest')``.

    >>> import strided.torch as torch
    >>> import warnings; warnings.simplefilter("ignore")
    >>> torch.nn.functional.upsample_nearest(torch.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    """
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=stacklevel())
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None) -> Array:
    """PyTorch's deprecated ``upsample_bilinear``: ``interpolate(..., mode='bilinear',
    align_corners=True)``.

    >>> import strided.torch as torch
    >>> import warnings; warnings.simplefilter("ignore")
    >>> torch.nn.functional.upsample_bilinear(torch.ones(1, 1, 2, 2), scale_factor=2).shape
    strided.Size([1, 1, 4, 4])
    """
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=stacklevel())
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# --- affine_grid / grid_sample ---------------------------------------------------------------

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


def _linspace_from_neg_one(num_steps: int, align_corners: bool) -> np.ndarray:
    if num_steps <= 1:
        return np.zeros(1)
    r = np.linspace(-1.0, 1.0, num_steps)
    return r if align_corners else r * (num_steps - 1) / num_steps


def affine_grid(theta, size, align_corners=None) -> Array:
    """PyTorch's ``affine_grid``: the sampling grid ``(N, H, W, 2)`` (or ``(N, D, H, W, 3)``)
    of the affine maps ``theta`` ``(N, 2, 3)`` (``(N, 3, 4)``), for ``grid_sample``.

    >>> import strided.torch as torch
    >>> theta = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> torch.nn.functional.affine_grid(theta, (1, 1, 2, 2), align_corners=True)[0, :, :, 0]
    tensor([[-1.,  1.],
            [-1.,  1.]])
    """
    _check(theta, "affine_grid", "theta")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=stacklevel())
        align_corners = False
    if theta.dtype.kind != "f":
        raise ValueError(f"affine_grid(): Expected theta to have floating point type, but got "
                         f"{theta.dtype.name}")
    size = [int(e) for e in size]
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"affine_grid(): Expected a batch of 2D affine matrices of shape "
                             f"Nx2x3 for size {size}. Got {list(theta.shape)}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"affine_grid(): Expected a batch of 3D affine matrices of shape "
                             f"Nx3x4 for size {size}. Got {list(theta.shape)}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid(): affine_grid only supports 4D and 5D sizes, "
                                  f"for 2D and 3D affine transforms, respectively. Got size "
                                  f"{size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=stacklevel())
    elif min(size) <= 0:
        raise ValueError(f"affine_grid(): Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"affine_grid(): Expected theta's batch size {theta.shape[0]} to match "
                           f"size[0]={size[0]}")
    n = len(spatial)
    axes = [_linspace_from_neg_one(e, align_corners) for e in spatial]  # (D,) H, W
    mesh = np.meshgrid(*axes, indexing="ij")
    # the last component first: x runs along W, y along H, z along D; then the constant 1
    base = np.stack([mesh[n - 1 - j] for j in range(n)] + [np.ones_like(mesh[0])], axis=-1)
    m = int(np.prod(spatial))
    base = _st.asarray(base.reshape(m, n + 1).astype(theta.dtype.name), device=theta.device)
    grid = _st.matmul(base, _st.swapdims(theta, 1, 2))  # (N, m, n)
    return grid.reshape((size[0],) + tuple(spatial) + (n,))


def _reflect(c: Array, twice_low: int, twice_high: int) -> Array:
    """PyTorch's ``reflect_coordinates``: ``c`` reflected into ``[low, high]`` by the bounds."""
    if twice_low == twice_high:
        return c * 0
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = _st.abs(c - lo)
    flips = _st.floor(c / span)
    extra = c - flips * span  # (fmod for c >= 0; flips has no gradient)
    even = (flips - 2 * _st.floor(flips / 2)) == 0
    return _st.where(even, extra + lo, span - extra + lo)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None) -> Array:
    """PyTorch's ``grid_sample``: ``input`` ``(N, C, H, W)`` (or ``(N, C, D, H, W)``) sampled at
    the normalised coordinates ``grid`` ``(N, H_out, W_out, 2)`` (x, y in [-1, 1]);
    ``mode`` ``bilinear``, ``nearest`` or ``bicubic`` (4-D input), ``padding_mode``
    ``zeros``, ``border`` or ``reflection``.

    >>> import strided.torch as torch
    >>> img = torch.arange(4.0).reshape(1, 1, 2, 2)
    >>> torch.nn.functional.grid_sample(img, torch.zeros(1, 1, 1, 2), align_corners=True)
    tensor([[[[1.5000]]]])
    """
    func = "grid_sample"
    _check(input, func)
    _check(grid, func, "grid")
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=stacklevel())
        align_corners = False
    if input.ndim not in (4, 5):
        raise RuntimeError(f"grid_sample(): grid_sampler(): expected 4D or 5D input and grid "
                           f"with same number of dimensions, but got input with sizes "
                           f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    n = input.ndim - 2
    if grid.ndim != input.ndim or grid.shape[-1] != n:
        raise RuntimeError(f"grid_sample(): grid_sampler(): expected grid to have size {n} in "
                           f"last dimension and the same number of dimensions as input, but got "
                           f"grid with sizes {list(grid.shape)}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sample(): grid_sampler(): expected grid and input to have same "
                           f"batch size, but got input with sizes {list(input.shape)} and grid "
                           f"with sizes {list(grid.shape)}")
    _float(input, func)
    if grid.dtype != input.dtype:
        raise RuntimeError(f"grid_sample(): grid_sampler(): expected input and grid to have the "
                           f"same dtype, but input has {input.dtype.name} and grid has "
                           f"{grid.dtype.name}")
    if mode == "bicubic" and n != 2:
        raise RuntimeError("grid_sample(): grid_sampler(): bicubic interpolation only supports "
                           "4D input")
    nb, c = input.shape[0], input.shape[1]
    sizes = tuple(input.shape[2:])
    outs = tuple(grid.shape[1:1 + n])
    m = int(np.prod(outs))
    P = int(np.prod(sizes))
    g = grid.reshape((nb, m, n))
    src = []
    for i in range(n):  # spatial dim i (D, H, W order) reads grid component n - 1 - i
        size = sizes[i]
        co = g[:, :, n - 1 - i]
        if align_corners:
            co = (co + 1) / 2 * (size - 1)
        else:
            co = ((co + 1) * size - 1) / 2
        # (bicubic pads each of its 16 taps, not the sampling point: _bounded below)
        if padding_mode == "border" and mode != "bicubic":
            co = _st.clip(co, 0, size - 1)
        elif padding_mode == "reflection" and mode != "bicubic":
            co = _reflect(co, 0, 2 * (size - 1)) if align_corners else \
                _reflect(co, -1, 2 * size - 1)
            co = _st.clip(co, 0, size - 1)
        src.append(co)
    plane = input.reshape((nb, c, P))
    strides = [int(np.prod(sizes[i + 1:])) for i in range(n)]

    def corner(idx, weight):
        inside = None
        flat = None
        for i in range(n):
            ok = (idx[i] >= 0) & (idx[i] <= sizes[i] - 1)
            inside = ok if inside is None else inside & ok
            term = _st.clip(idx[i], 0, sizes[i] - 1).to(_st.int64) * strides[i]
            flat = term if flat is None else flat + term
        vals = _st.gather(plane, 2, flat[:, None, :].expand((nb, c, m)))
        w = _st.where(inside, weight, _st.zeros_like(weight.detach())) \
            if weight is not None else inside.to(input.dtype)
        return vals * w[:, None, :]

    def _bounded(idx, size):
        """PyTorch's ``compute_coordinates`` of an integer tap (bicubic's ``get_value_bounded``):
        clipped (border), reflected then clipped (reflection), as is (zeros: ``corner`` reads
        0 outside)."""
        if padding_mode == "border":
            return _st.clip(idx, 0, size - 1)
        if padding_mode == "reflection":
            idx = _reflect(idx, 0, 2 * (size - 1)) if align_corners else \
                _reflect(idx, -1, 2 * size - 1)
            return _st.trunc(_st.clip(idx, 0, size - 1))
        return idx

    if mode == "bicubic":
        # PyTorch's bicubic (A = -0.75): rows of 4 taps around floor(y) - 1 ..., each weighted
        # by get_cubic_upsample_coefficients of the fractions; the taps are detached, so the
        # grid's gradient flows through the fractions only, as PyTorch's backward
        A = -0.75

        def coeffs(t):
            def c1(x):
                return ((A + 2) * x - (A + 3)) * x * x + 1

            def c2(x):
                return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A

            return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]

        lo = [_st.floor(co.detach()) for co in src]
        cy, cx = (coeffs(src[i] - lo[i]) for i in range(2))
        out = None
        for i in range(4):
            row = None
            for j in range(4):
                idx = [_bounded(lo[0] + (i - 1), sizes[0]), _bounded(lo[1] + (j - 1), sizes[1])]
                term = corner(idx, cx[j])
                row = term if row is None else row + term
            term = row * cy[i][:, None, :]
            out = term if out is None else out + term
    elif mode == "nearest":
        out = corner([_st.round(co.detach()) for co in src], None)
        if g.requires_grad:
            # PyTorch's grid gets a zero gradient (not None) in nearest mode: a term that is
            # exactly 0 and depends on the grid with derivative 0
            finite = _st.where(_st.isfinite(g), g, _st.zeros_like(g.detach()))
            zero = _st.sum(finite * 0, dim=-1)
            out = out + zero[:, None, :]
    else:
        lo = [_st.floor(co.detach()) for co in src]
        out = None
        for bits in range(2 ** n):
            idx, weight = [], None
            for i in range(n):
                up = (bits >> (n - 1 - i)) & 1
                idx.append(lo[i] + up)
                w = (src[i] - lo[i]) if up else (lo[i] + 1 - src[i])
                weight = w if weight is None else weight * w
            term = corner(idx, weight)
            out = term if out is None else out + term
    return out.reshape((nb, c) + outs)
