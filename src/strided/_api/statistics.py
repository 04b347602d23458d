"""Statistical functions: sums, products, extrema, moments and running totals.

Every reduction takes the standard's ``axis`` (None, an int or a tuple of
ints; a dimension name where names are in use) and ``keepdims``, plus the
keyword-only ``out=``. Kernels are the backend's own reductions (NumPy's
``add.reduce`` is already pairwise for floating sums).

Invariant of the short path (``short_native``): a reduction of at most ``_SMALL``
elements of a CPU array, over None, an int or a tuple of distinct ints, calls NumPy's
ufunc reduction itself and gives what the general path gives (values bit for bit,
dtype, shape); anything else (``out=``, names, lists, bad axes, empty arrays, other
devices) takes the general path, which raises the errors.
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from .._core import cfast as _cfast, dtypes as _dtypes, layout as _layout
from .._core.array import _LATE, Array
from .._core.device import CPU as _CPU
from .creation import _as_dtype, _finish, wrap_new
from .._core.call import bind as _bind
from .._core.dispatch import api
from .._core.threads import large_reduce, large_ufunc, one_thread_reduce, reduce1, sq_dev_reduce, sum_sq_dev

_ND = np.ndarray

__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var"]


# --- helpers shared with the other reduction modules ------------------------------

def check_array(x, func: str) -> None:
    """TypeError naming ``func`` unless ``x`` is a strided array."""
    if type(x) is not Array:
        raise TypeError(f"{func}(): expected a strided array; got {type(x).__name__}")


def _name(x, a):
    """A dimension name as its position; PyTorch's axis -1 of a 0-d array as 0."""
    if type(a) is str:
        return _LATE["name_to_axis"](x, a)
    return 0 if type(a) is int and a == -1 and not x._shape else a


def reduction_axes(x: Array, axis, func: str) -> tuple:
    """Normalise ``axis`` (None, int, name or tuple of them) into a tuple of axes."""
    nd = len(x._shape)
    if axis is None:
        return tuple(range(nd))
    if type(axis) is int and -nd <= axis < nd:
        # (one int axis in range, SciPy's stats: normalize_axes' answer without its frames)
        return (axis + nd if axis < 0 else axis,)
    if isinstance(axis, (tuple, list)):
        axis = tuple(_name(x, a) for a in axis)
    else:
        axis = _name(x, axis)
    axes = _layout.normalize_axes(axis, nd, func)
    # Note: like PyTorch, a 0-d array accepts axis 0 or -1 (and reduces nothing).
    return axes if nd else ()


def single_axis(x: Array, axis, func: str) -> int:
    """Normalise one axis (an int or a dimension name)."""
    if isinstance(axis, (tuple, list)):
        raise TypeError(f"{func}(): axis must be an int; got {type(axis).__name__}")
    return _layout.normalize_axis(_name(x, axis), x.ndim, func)


def c_order(r):
    """``r`` (a native reduction or scan result) itself when C-contiguous, else its C-ordered
    copy: the layout PyTorch allocates a reduction's result in."""
    # Note: NumPy (and CuPy) keep the input's axis order in a reduction's result, so a
    # permuted input gave a permuted result whose view(-1) raised where PyTorch's works.
    # Reducing into a C-ordered out= instead changes NumPy's iteration order, and with it
    # a float sum's bits (111 of 556 random permuted float32 sums), so the result is
    # copied (its size, not the input's); a scan's result passes out= (see _cumulative).
    return r if r.flags.c_contiguous else r.copy(order="C")


def wrap_result(r, dtype, device) -> Array:
    """Wrap a fresh reduction result (C-ordered, as PyTorch's); NumPy returns scalars for
    full reductions."""
    b = device.backend
    if type(r) is not b.ndarray:
        r = b.asarray(r, device=device)  # (the backend's: CuPy's asarray drops -0.0's sign)
    elif not r.flags.c_contiguous:
        r = c_order(r)
    if r.dtype != dtype._np:  # accumulated in a wider dtype (_accumulator)
        r = r.astype(dtype._np)
    return wrap_new(r, dtype, device)


_KERNELS: dict = {}


def _kernel(xp, name: str):
    """The backend's ``name``: a function (``max``) or a ufunc method (``add.reduce``),
    looked up once per backend module (the CuPy stand-in's attribute lookups allocate)."""
    k = _KERNELS.get((xp, name))
    if k is None:
        obj, _, method = name.partition(".")
        f = getattr(xp, obj)
        k = _KERNELS[(xp, name)] = getattr(f, method) if method else f
    return k


# Note: the C reductions and the thread split (large_reduce, strided._core.cfast) take
# C-contiguous arrays only; a transposed or sliced host array (SciPy's moved axis) goes to
# NumPy's own reduction straight away, the call large_reduce ends in after declining
# (20x1000 float64 transposed, max over the last axis: ~15 us of declining, NumPy's is 40).
_NP_REDUCE = {"add.reduce": np.add.reduce, "multiply.reduce": np.multiply.reduce,
              "max": np.maximum.reduce, "min": np.minimum.reduce}


# A transposed matrix (F-contiguous) reduced over one axis is its C-contiguous transpose
# reduced over the other: the C kernels then take it. NumPy's iterator walks both in
# memory order, rows of the C-contiguous one accumulated in turn, so the two give the
# same bits (tests/_api/test_realwork3_ops.py). SciPy's stats move the reduced axis last:
# skew, zscore and moment reduce such transposes (5000x200 float64 sum: ~1.0 vs NumPy's
# ~1.4 ms, max ~1.1 vs ~2.3; interleaved minima).
_C_REDUCE = {"add.reduce": "sum", "max": "max", "min": "min"}


def _backend_reduce(kernel: str, xp, a, axes, keepdims, **kw):
    if type(a) is _ND and not a.flags.c_contiguous:
        if a.ndim == 2 and axes is not None and len(axes) == 1 and a.flags.f_contiguous \
                and a.size > _SMALL and (kw.get("dtype") is None or kw["dtype"] == a.dtype):
            op = _C_REDUCE.get(kernel)
            if op is not None:
                r = reduce1(op, a.T, 1 - axes[0] % 2, keepdims is True)
                if r is not None:
                    return r.T if keepdims else r
        # (any other kernel, all/any: the backend's function, NumPy's here)
        f = _NP_REDUCE.get(kernel)
        return (f if f is not None else _kernel(xp, kernel))(a, axis=axes, keepdims=keepdims, **kw)
    return large_reduce(_kernel(xp, kernel), a, axes, keepdims, **kw)


def reduce_with(kernel: str, x: Array, axes, keepdims, res, **kw) -> Array:
    """Run the backend reduction ``kernel`` over ``axes`` (None: all); the result has dtype ``res``."""
    dev = x._device
    r = _backend_reduce(kernel, dev.backend.xp, x._get_native(), axes, keepdims, **kw)
    return wrap_result(r, res, dev)


def _reduced_size(x: Array, axes) -> int:
    shape = x._shape
    if axes is None:
        return _layout.prod(shape)
    n = 1
    for a in axes:  # (a loop, not a generator: one frame, not two per call)
        n *= shape[a]
    return n


def accumulation_dtype(func: str, x_dtype, dtype):
    """The standard's result dtype of sum/prod/cumulative_*: small integers widen."""
    if dtype is not None:
        dtype = _as_dtype(dtype, func)
        if x_dtype.kind == "c" and dtype.kind != "c":
            raise TypeError(f"{func}(): can't accumulate complex {x_dtype.name} values in {dtype.name}")
        return dtype
    k = x_dtype.kind
    if k in "bi":
        # Note: like PyTorch, bool sums count the True values as int64.
        return _dtypes.int64
    if k == "u":
        return _dtypes.uint64
    return x_dtype


# Sums and products call the ufunc methods (``add.reduce``, ``add.accumulate``)
# rather than ``sum``/``cumsum``: the same kernels, less wrapper overhead, and
# NumPy's floating-point warnings are then attributed to (and silenced in) our
# module like the elementwise ones; the standard asks for IEEE results only.

# --- sum and prod -------------------------------------------------------------------

# Whole-array sums and means of at most this many elements take the inlined hot path
# (per-call cost); larger ones go through reduce_with and the backend's kernels.
_SMALL = 4096
_add_reduce = np.add.reduce
# Full var/std of at least this many elements take the fused deviations kernel.
_FUSED_VAR_MIN = 1 << 15
_empty = np.empty
# The C kernel's sum_into (strided._core.cfast), or None: the small sums' hot path asks it first.
_sum_into = _cfast._ckernels.sum_into if _cfast.AVAILABLE else None
# sum(x)'s plain case in C (_chot's K_SUM: a whole float32/float64 CPU array one thread
# sums, the hot path below without its Python frame and error state)
_SUM_C = None if _sum_into is None else (9, [_sum_into, _dtypes.float32, _dtypes.float64, _CPU])


def _npred_c(reduce, res, darg, taken, fewest, most, large=None):
    """A short path's compiled twin (_chot's K_NPRED: ``reduce(native, None, darg, out)`` into a
    fresh 0-d ``res`` (None: x's dtype) for x of a DType in ``taken`` with ``fewest`` to
    ``most`` elements (-1: fewer bytes than the thread split)), or None without the compiled
    module (``api`` then makes the plain wrapper). ``large``: the name of a C kernel of
    ``_ckernels`` (``large(native, out, count) -> bool``, one thread) that reduces float32 and
    float64 arrays of more elements, as the definition's general path does (``reduce1``)."""
    if not _cfast.AVAILABLE:
        return None
    table = [reduce, res, darg, tuple(taken), _CPU, fewest, most]
    if large is not None:
        table += [getattr(_cfast._ckernels, large), (_dtypes.float32, _dtypes.float64)]
    return (10, table)
_multiply_reduce = np.multiply.reduce
_true_divide = np.true_divide
_asarray = np.asarray
_NAN = float("nan")


# --- the short path of small reductions ---------------------------------------------------
# Issue 38: a reduction of a few elements cost 2-5x NumPy's own call, all of it in the
# general path's Python layers (reduction_axes, reduce_with, large_reduce, wrap_result:
# ~15 frames). Below ``_SMALL`` elements on the CPU no thread splits and the general path
# ends in NumPy's reduction anyway (or a C kernel that gives NumPy's bits); the short path
# calls NumPy's ufunc reduction itself, with the axis NumPy is given, and wraps its result.
# Anything it does not take (an out=, a name, a list, a bad or repeated axis, an empty
# array, a device) goes on to the general path, which raises the errors.

def plain_axis(axis, nd: int) -> builtins.bool:
    """Whether ``axis`` is None, an int in ``[-nd, nd)`` or a tuple of such ints naming
    distinct axes: what ``reduction_axes`` accepts unchanged, and NumPy's reductions too."""
    if axis is None:
        return True
    if type(axis) is int:
        return -nd <= axis < nd
    if type(axis) is not tuple:
        return False
    seen = 0
    for i in axis:
        if type(i) is not int or not -nd <= i < nd:
            return False
        b = 1 << (i % nd)
        if seen & b:
            return False
        seen |= b
    return True


def short_native(x, axis):
    """The ndarray of ``x`` where the short path takes a reduction over ``axis``: ``x`` a
    strided array on the CPU of 1 to ``_SMALL`` elements, ``plain_axis(axis)``; else None."""
    if type(x) is not Array or x._device is not _CPU:
        return None
    a = x._np
    if a is None:
        a = x._get_native()
    if 0 < a.size <= _SMALL and (axis is None or (type(axis) is int and -a.ndim <= axis < a.ndim)
                                 or (type(axis) is tuple and plain_axis(axis, a.ndim))):
        return a
    return None


def _short_wrap(r, dtype) -> Array:
    """A short path's result as an Array."""
    if type(r) is not _ND:
        r = _asarray(r)  # a reduction over every axis: NumPy's scalar
    elif not r.flags.c_contiguous:
        r = c_order(r)
    return Array._new(r, None, 0, r.shape, None, dtype, _CPU)


def _accumulate(func: str, kernel: str, x, axis, dtype, keepdims, out):
    check_array(x, func)
    axes = None if axis is None else reduction_axes(x, axis, func)
    res = accumulation_dtype(func, x._dtype, dtype)
    acc = res
    if dtype is None and kernel == "add.reduce" and x._device.type != "cpu":
        # Note: on a GPU float16/float32 sums accumulate in float64 and round once (CuPy
        # adds float32 in float32, float16 in float16: 2 ulps off on 12 float16 terms,
        # 5x NumPy's error on a float32 sum with one large value, on an H100).
        acc = _accumulator(res, x._device)
    return _finish(reduce_with(kernel, x, axes, keepdims, res, dtype=acc._np), func, out)


@api("sum", c_case=_SUM_C)
def sum(x, /, *dims, axis=..., dtype=None, keepdims=..., out=None, dim=..., keepdim=...) -> Array:
    """Sum of the elements over ``axis``; small integers accumulate in int64/uint64.

    >>> import strided as xp
    >>> xp.sum(xp.asarray([[1, 2], [3, 4]], dtype=xp.int32), axis=0).tolist()
    [4, 6]
    """
    if dims or dim is not ... or keepdim is not ...:
        axis, keepdims = _bind.axis_keywords("sum", dims, axis, keepdims, dim, keepdim)
    else:
        if axis is ...:
            axis = None
        if keepdims is ...:
            keepdims = False
    if dtype is None and out is None and type(x) is Array and x._dtype.kind in "fc" \
            and (axis is None or (type(axis) is int and -len(x._shape) <= axis < len(x._shape))) \
            and (keepdims is False or keepdims is True):
        a = x._np if x._np is not None else x._get_native()
        nd = len(x._shape)
        if x._device.type == "cpu" and (a.size <= _SMALL or (
                _sum_into is not None and nd and (axis is None or axis == nd - 1 or axis == -1)
                and one_thread_reduce(a.nbytes))):
            # Hot path: a small floating array on the CPU, summed whole or over one axis;
            # or a larger one the C kernel sums on this thread alone (from 4097 elements
            # the path below cost ~7,700 instructions more per call, ~1.5 us).
            r = None
            if _sum_into is not None and nd and (axis is None or axis == nd - 1 or axis == -1):
                # The C kernel (NumPy's own pairwise leaf, without the ufunc machinery)
                # when the layout suits it: whole, or over the last axis.
                shape = () if axis is None else x._shape[:-1]
                r = _empty(shape, x._dtype._np)
                if not _sum_into(a, r, a.size if axis is None else x._shape[-1]):
                    r = None
                elif keepdims:
                    r = r.reshape((1,) * nd if axis is None else shape + (1,))
            if r is None:
                if (keepdims and a.ndim) or (axis is not None and len(x._shape) > 1):
                    r = _add_reduce(a, axis, None, None, keepdims)
                else:
                    # A 0-d result: reduced into a fresh 0-d array (NumPy would return a
                    # scalar, and making that an array costs more than the sum of 10 elements).
                    r = _add_reduce(a, axis, None, _empty((), x._dtype._np))
                if not r.flags.c_contiguous:
                    r = c_order(r)
            return Array._new(r, None, 0, r.shape, None, x._dtype, x._device)
        if x._device.type == "cpu":
            # A large one: the C kernels straight away where they take it (else below).
            r = reduce1("sum", a, axis, keepdims)
            if r is not None:
                return Array._new(r, None, 0, r.shape, None, x._dtype, x._device)
    if out is None and (keepdims is False or keepdims is True) and (a := short_native(x, axis)) is not None:
        # The short path: dtype=, a tuple of axes, integers, keepdims (NumPy's add.reduce).
        res = x._dtype if dtype is None and x._dtype.kind in "fc" else \
            accumulation_dtype("sum", x._dtype, dtype)
        dt = res._np
        r = _add_reduce(a, axis, dt, None if axis is not None or keepdims else _empty((), dt), keepdims)
        return _short_wrap(r, res)
    return _accumulate("sum", "add.reduce", x, axis, dtype, keepdims, out)


@api("prod", c_case=_npred_c(np.multiply.reduce, None, True,
                              [d for d in _dtypes.ALL_DTYPES if d.kind in "fc"], 1, _SMALL))
def prod(x, /, *dims, axis=..., dtype=None, keepdims=..., out=None, dim=..., keepdim=...) -> Array:
    """Product of the elements over ``axis``; small integers accumulate in int64/uint64.

    >>> import strided as xp
    >>> xp.prod(xp.asarray([1.5, 2.0, 4.0])).item()
    12.0
    """
    if dims or dim is not ... or keepdim is not ...:
        axis, keepdims = _bind.axis_keywords("prod", dims, axis, keepdims, dim, keepdim)
    else:
        if axis is ...:
            axis = None
        if keepdims is ...:
            keepdims = False
    if out is None and (keepdims is False or keepdims is True) and (a := short_native(x, axis)) is not None:
        # (the short path, as sum's)
        res = x._dtype if dtype is None and x._dtype.kind in "fc" else \
            accumulation_dtype("prod", x._dtype, dtype)
        dt = res._np
        r = _multiply_reduce(a, axis, dt, None if axis is not None or keepdims else _empty((), dt), keepdims)
        return _short_wrap(r, res)
    return _accumulate("prod", "multiply.reduce", x, axis, dtype, keepdims, out)


# Note: sum, prod, mean, max and min (and var and std, below) are the hot reductions: their definitions declare
# PyTorch's dim/keepdim (and a positional dim, to refuse it with a hint) themselves, so
# the compiled hot path calls them directly (no binding frame); ``...`` (bind.UNSET, a
# constant: cheaper to test than a global) marks "not given" so that both spellings of one argument are told apart from a default
# (_core/call/bind.py, ``axis_keywords``). Their signature shows the standard's defaults.

# --- extrema --------------------------------------------------------------------------

def _extremum(func: str, kernel: str, x, axis, keepdims, out):
    a = x._np if type(x) is Array else None
    if a is not None and a.size > _SMALL and out is None and x._dtype.kind == "f" \
            and (keepdims is False or keepdims is True) and a.flags.c_contiguous \
            and (axis is None or (type(axis) is int and -len(x._shape) <= axis < len(x._shape))):
        # A large array (not a view): the C kernels straight away where they take it
        # (C-contiguous float32/float64, not empty; else below).
        r = reduce1(kernel, a, axis, keepdims is True)
        if r is not None:
            return Array._new(r, None, 0, r.shape, None, x._dtype, x._device)
    check_array(x, func)
    if x._dtype.kind == "c":
        raise _dtypes.DTypeError(f"{func}() accepts only real-valued data types; got {x._dtype.name} "
                        f"(complex numbers have no order)")
    axes = None if axis is None else reduction_axes(x, axis, func)
    if _reduced_size(x, axes) == 0:
        where = "all axes" if axes is None else f"axes {axes}"
        raise _layout.ShapeError(f"{func}(): the reduction over {where} of an array of shape "
                         f"{x._shape} has no elements, so it has no {func}imum")
    nd = len(x._shape)
    if axes is not None and len(axes) == 1 and axes[0] == nd - 1 and nd >= 2:
        a = x._get_native()
        if type(a) is _ND and 1 < a.shape[-1] <= 32 and 512 <= a.size <= 65536 \
                and not (_cfast.AVAILABLE and a.dtype in _C_FLOATS and a.flags.c_contiguous):
            # Note: NumPy reduces a short last axis row by row (~7 us for 128 x 10); the
            # same maximum taken across the rows of its transposed copy is one vectorized
            # pass per column (~1.5 us). Exact either way (a max has no rounding), but a
            # zero's sign or a NaN's payload is the one NumPy's own order picks: where the
            # result holds one, NumPy's reduction is asked. (The C kernels serve
            # C-contiguous float32/float64 arrays row by row instead.)
            t = np.ascontiguousarray(a.T if nd == 2 else a.transpose((nd - 1,) + tuple(range(nd - 1))))
            r = _PAIRWISE[kernel].reduce(t, axis=0)
            if r.dtype.kind == "f" and not np.all(np.abs(r) > 0):
                r = _kernel(np, kernel)(a, axis=-1)
            if keepdims:
                r = r[..., None]
            return _finish(wrap_result(r, x._dtype, x._device), func, out)
    return _finish(reduce_with(kernel, x, axes, keepdims, x._dtype), func, out)


_PAIRWISE = {"max": np.maximum, "min": np.minimum}
_MAX_REDUCE = np.maximum.reduce
_MIN_REDUCE = np.minimum.reduce
_C_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _extreme(func: str, reduce):
    """The definition of ``max`` (``reduce`` NumPy's ``maximum.reduce``) or ``min``: one body,
    made twice, so that each is one frame per call (as ``sum``'s, and ``var``/``std``'s
    ``_moment``). It declares PyTorch's ``dim``/``keepdim`` (and a positional dim, refused with
    a hint) itself."""

    def definition(x, /, *dims, axis=..., keepdims=..., out=None, dim=..., keepdim=...) -> Array:
        if dims or dim is not ... or keepdim is not ...:
            axis, keepdims = _bind.axis_keywords(func, dims, axis, keepdims, dim, keepdim)
        else:
            if axis is ...:
                axis = None
            if keepdims is ...:
                keepdims = False
        if out is None and (keepdims is False or keepdims is True) and type(x) is Array and x._device is _CPU \
                and x._dtype.kind != "c":
            # The short path (short_native and _short_wrap inlined: one frame per call, as
            # sum's; not empty): NumPy's maximum/minimum.reduce, NumPy's zero and NaN.
            a = x._np if x._np is not None else x._get_native()
            nd = len(x._shape)
            if 0 < a.size <= _SMALL and (axis is None or (type(axis) is int and -nd <= axis < nd)
                                         or (type(axis) is tuple and plain_axis(axis, nd))):
                r = reduce(a, axis, None, None if axis is not None or keepdims else _empty((), a.dtype), keepdims)
                if type(r) is not _ND:
                    r = _asarray(r)
                elif not r.flags.c_contiguous:
                    r = c_order(r)
                return Array._new(r, None, 0, r.shape, None, x._dtype, _CPU)
        return _extremum(func, func, x, axis, keepdims, out)

    # (named ``max``/``min`` in tracebacks and profiles too)
    definition.__code__ = definition.__code__.replace(co_name=func, co_qualname=func)
    definition.__name__ = definition.__qualname__ = func
    return definition


max = _extreme("max", _MAX_REDUCE)
max.__doc__ = """Largest element over ``axis`` (NaN propagates); ValueError when there are none.

    >>> import strided as xp
    >>> xp.max(xp.asarray([[1, 5], [3, 2]]), axis=1).tolist()
    [5, 3]
    """
max = api("max", c_case=_npred_c(_MAX_REDUCE, None, None, [d for d in _dtypes.ALL_DTYPES if d.kind != "c"], 1,
                                 _SMALL, large="max_into"))(max)

min = _extreme("min", _MIN_REDUCE)
min.__doc__ = """Smallest element over ``axis`` (NaN propagates); ValueError when there are none.

    >>> import strided as xp
    >>> xp.min(xp.asarray([[1, 5], [3, 2]]), axis=1).tolist()
    [1, 2]
    """
min = api("min", c_case=_npred_c(_MIN_REDUCE, None, None, [d for d in _dtypes.ALL_DTYPES if d.kind != "c"], 1,
                                 _SMALL, large="min_into"))(min)


# --- moments ----------------------------------------------------------------------------

def _float_dtypes(func: str, x: Array, allow_complex: builtins.bool):
    """(result dtype, accumulation dtype) of mean/var/std."""
    check_array(x, func)
    k = x._dtype.kind
    if k == "b" or (k == "c" and not allow_complex):
        allowed = "numeric" if allow_complex else "real-valued"
        raise _dtypes.DTypeError(f"{func}() accepts only {allowed} data types; got {x._dtype.name}")
    # Note: integer inputs give the default floating dtype, as the standard says.
    res = _dtypes.get_default_dtype() if k in "iu" else x._dtype
    return res, _accumulator(res, x._device)


def _accumulator(res, device):
    """The dtype mean/var/std accumulate ``res`` values in."""
    if device.type != "cpu" and res.kind in "fc" and res.itemsize < 16 and res is not _dtypes.float64:
        # Note: CuPy's reductions of float32 accumulate in float32, element after element
        # in each GPU thread (cupy/_core/_routines_statistics.pyx, _var_core_float32):
        # var of 1e6 float32 values came out with 15x NumPy's error on an H100. Float64
        # accumulators read the same float32 memory; the result rounds once at the end.
        return _dtypes.complex128 if res.kind == "c" else _dtypes.float64
    # Note: float16 accumulates in float32 (as NumPy does) and rounds once at the end.
    return _dtypes.float32 if res is _dtypes.float16 else res


def _mean_native(xp, a, axes, acc, n, keepdims):
    s = xp.asarray(_backend_reduce("add.reduce", xp, a, axes, keepdims, dtype=acc._np))
    # Note: an empty reduction is 0 / 0 = NaN, as the standard says.
    return xp.true_divide(s, n) if n else s * float("nan")


def _mean_dtypes(x: Array, dtype):
    """(result dtype, accumulation dtype) of ``mean(x, dtype=dtype)``."""
    if dtype is None:
        return _float_dtypes("mean", x, True)
    check_array(x, "mean")
    res = _as_dtype(dtype, "mean")
    # Note: PyTorch's rule, stricter than NumPy's: the dtype of a mean is floating or
    # complex (NumPy's mean in an integer dtype truncates, and a real dtype for complex
    # input drops the imaginary part with a warning; both raise here).
    if res.kind not in "fc":
        raise TypeError(f"mean(): dtype must be a floating-point or complex data type; got {res.name}")
    if x._dtype.kind == "c" and res.kind != "c":
        raise TypeError(f"mean(): can't take the mean of complex {x._dtype.name} values in {res.name}")
    return res, (_dtypes.float32 if res is _dtypes.float16 else res)


@api("mean")
def mean(x, /, *dims, axis=..., keepdims=..., dtype=None, out=None, dim=..., keepdim=...) -> Array:
    """Arithmetic mean over ``axis``; NaN for an empty reduction.

    ``dtype=`` (an extension beyond the standard, as in NumPy and PyTorch) is the
    dtype the values are accumulated and returned in; it must be floating or
    complex, as in PyTorch (NumPy also takes integer dtypes and truncates), and it
    lets integer and boolean inputs be averaged in any floating dtype.

    >>> import strided as xp
    >>> xp.mean(xp.asarray([1.0, 2.0, 6.0])).item()
    3.0
    >>> r = xp.mean(xp.asarray([1, 2, 4]), dtype=xp.float64)
    >>> r.dtype, round(r.item(), 4)
    (strided.float64, 2.3333)
    """
    if dims or dim is not ... or keepdim is not ...:
        axis, keepdims = _bind.axis_keywords("mean", dims, axis, keepdims, dim, keepdim)
    else:
        if axis is ...:
            axis = None
        if keepdims is ...:
            keepdims = False
    if axis is None and out is None and dtype is None and not keepdims and type(x) is Array \
            and x._dtype.kind in "fc" and x._dtype is not _dtypes.float16:
        a = x._np if x._np is not None else x._get_native()
        if x._device.type == "cpu" and 0 < a.size and (a.size <= _SMALL or (
                _sum_into is not None and one_thread_reduce(a.nbytes))):
            # Hot path: a small floating array on the CPU (the general path below, inlined),
            # or a larger one summed on this thread alone.
            if _sum_into is not None:
                r = _empty((), x._dtype._np)
                if _sum_into(a, r, a.size, a.size):  # sum / size, in the array's dtype
                    return Array._new(r, None, 0, (), None, x._dtype, x._device)
            return Array._new(np.asarray(_add_reduce(a, None) / a.size), None, 0, (), None,
                              x._dtype, x._device)
    if out is None and dtype is None and type(x) is Array and x._dtype.kind == "f" \
            and x._device.type == "cpu" and x._dtype is not _dtypes.float16 \
            and (keepdims is False or keepdims is True) \
            and (axis is None or (type(axis) is int and -len(x._shape) <= axis < len(x._shape))):
        # A large one: the C sum straight away where it takes it, divided as NumPy's mean
        # divides (in the array's dtype); else below.
        a = x._np if x._np is not None else x._get_native()
        r = reduce1("sum", a, axis, keepdims is True) if a.size > _SMALL and a.flags.c_contiguous else None
        if r is not None:
            n = a.size // r.size
            r = np.true_divide(r, n, out=r) if r.ndim else np.asarray(np.true_divide(r, n))
            return Array._new(r, None, 0, r.shape, None, x._dtype, x._device)
    if out is None and (keepdims is False or keepdims is True) and type(x) is Array and x._device is _CPU:
        # The short path (short_native and _short_wrap inlined: one frame per call, as sum's):
        # sum in the accumulation dtype, divided there as below (not empty).
        a = x._np if x._np is not None else x._get_native()
        nd = len(x._shape)
        if 0 < a.size <= _SMALL and (axis is None or (type(axis) is int and -nd <= axis < nd)
                                     or (type(axis) is tuple and plain_axis(axis, nd))):
            if dtype is None and x._dtype.kind in "fc" and x._dtype is not _dtypes.float16:
                res = acc = x._dtype
            else:
                res, acc = _mean_dtypes(x, dtype)
            dt = acc._np
            r = _add_reduce(a, axis, dt, None if axis is not None or keepdims else _empty((), dt), keepdims)
            if type(r) is not _ND:
                r = _asarray(r)
            elif not r.flags.c_contiguous:
                r = c_order(r)
            r = _true_divide(r, a.size // r.size, out=r)
            if acc is not res:
                r = r.astype(res._np)
            return Array._new(r, None, 0, r.shape, None, res, _CPU)
    res, acc = _mean_dtypes(x, dtype)
    axes = reduction_axes(x, axis, "mean")
    xp = x._device.backend.xp
    r = _mean_native(xp, x._get_native(), axes, acc, _reduced_size(x, axes), builtins.bool(keepdims))
    return _finish(wrap_result(r, res, x._device), "mean", out)


def _var_native(func, x, axis, correction, keepdims):
    if not isinstance(correction, numbers.Real) or isinstance(correction, builtins.bool):
        raise TypeError(f"{func}(): correction must be a real number; got {type(correction).__name__}")
    res, acc = _float_dtypes(func, x, True)
    axes = reduction_axes(x, axis, func)
    xp = x._device.backend.xp
    a = x._get_native()
    n = _reduced_size(x, axes)
    m = _mean_native(xp, a, axes, acc, n, True)
    fused = type(a) is _ND and acc.kind == "f" and a.dtype == acc._np
    if fused and len(axes) == a.ndim and a.size >= _FUSED_VAR_MIN and a.flags.c_contiguous:
        # A large full reduction: one fused pass over the input, no full-size temporary
        # (its steps' sums added exactly: not NumPy's one sum, so not the C kernel's).
        s = np.asarray(sum_sq_dev(a, m.reshape(())), dtype=acc._np)
        if keepdims:
            s = s.reshape((1,) * a.ndim)
    elif fused and (s := sq_dev_reduce(a, axes, m)) is not None:
        # The C kernel: the squared deviations summed in one pass over the input, as
        # NumPy sums the squares below.
        if keepdims:
            s = s.reshape(m.shape)
    elif type(a) is _ND and acc.kind != "c":
        # The deviations go to a pooled buffer and are squared in place (no fresh pages).
        fused = False
        d = large_ufunc(xp.subtract, (a, m), acc._np)
        sq = xp.multiply(d, d, out=d) if d.flags.writeable else d * d
    else:
        fused = False
        d = xp.asarray(a, dtype=acc._np) - m
        if acc.kind == "c":
            # Note: like NumPy and PyTorch, the variance of complex values is real.
            res, acc = _dtypes.real_of(res), _dtypes.real_of(acc)
            sq = d.real * d.real + d.imag * d.imag
        else:
            sq = d * d
    if not fused:
        s = xp.asarray(large_reduce(xp.add.reduce, sq, axes, builtins.bool(keepdims)))
    dof = n - correction
    # Note: the standard says NaN when M - correction <= 0 (NumPy gives inf there).
    v = xp.true_divide(s, dof) if dof > 0 else s * float("nan")
    return v, res


class _Zero(float):
    """The default ``correction`` (0.0), told apart from an explicit ``correction=0``."""

    __slots__ = ()


_NO_CORRECTION = _Zero(0.0)


_CK = _cfast._ckernels if _cfast.AVAILABLE else None
_RED_SUM = _CK.REDUCE_OPS["sum"] if _CK is not None else None
_RED_SQ = _CK.REDUCE_OPS["sq_dev"] if _CK is not None else None
_subtract = np.subtract
_multiply = np.multiply
_sqrt = np.sqrt


def _moment(func: str, root: builtins.bool):
    """The definition of ``var`` (``root`` False) or ``std`` (True): one body, made twice, so
    that each is one frame per call (as ``sum``'s; issue 38, round 8).

    Like the hot reductions it declares PyTorch's ``dim``/``keepdim`` (and a positional dim,
    to refuse it with a hint) itself, and NumPy's ``ddof``; ``unbiased`` only to refuse it
    (``_core/call/bind.py``'s ``REFUSED``: the standard's var divides by n where torch's
    divides by n - 1, so a ``dim`` without ``correction``/``ddof`` is refused too). The
    handlers (autograd, names) see the standard's call: the binding stage folds ``ddof``
    into ``correction`` and renames ``dim`` before them.
    """

    def definition(x, /, *dims, axis=..., correction=_NO_CORRECTION, keepdims=..., ddof=None, out=None,
                   dim=..., keepdim=..., unbiased=...) -> Array:
        if dims or dim is not ... or keepdim is not ... or unbiased is not ...:
            axis, keepdims = _bind.axis_keywords(
                func, dims, axis, keepdims, dim, keepdim,
                (() if correction is _NO_CORRECTION else ("correction",)) + (() if ddof is None else ("ddof",))
                + (() if unbiased is ... else ("unbiased",)))
        else:
            if axis is ...:
                axis = None
            if keepdims is ...:
                keepdims = False
        if ddof is not None:
            if correction is not _NO_CORRECTION:  # (NumPy's name for correction: not both)
                raise TypeError(f"{func}(): give correction or ddof (NumPy's name for it), not both")
            correction = ddof
        t = type(correction)
        if out is None and (t is float or t is int or t is _Zero) and (keepdims is False or keepdims is True) \
                and type(x) is Array and x._device is _CPU and x._dtype.kind == "f" \
                and x._dtype is not _dtypes.float16:
            # The short path (short_native, cfast.layout and _short_wrap inlined): the steps
            # of _var_native's NumPy path on a real floating array of at least one dimension
            # and 1 to _SMALL elements, NumPy's ufuncs (or the C kernels) called directly.
            a = x._np if x._np is not None else x._get_native()
            nd = len(x._shape)
            if nd and 0 < a.size <= _SMALL and (axis is None or (type(axis) is int and -nd <= axis < nd)
                                                or (type(axis) is tuple and plain_axis(axis, nd))):
                s = None
                if _CK is not None and a.flags.c_contiguous and a.dtype.isnative:
                    # The C kernels where they take it (C-contiguous, adjacent axes): the
                    # general path's own two passes, the sum and the squared deviations from
                    # the mean (NumPy's bits, tests/_csrc/test_sum_leaves.py), without its layers.
                    if axis is None:
                        p, q = 0, nd
                    elif type(axis) is int:
                        p = axis % nd
                        q = p + 1
                    elif axis:
                        p = nd
                        q = 0
                        for i in axis:
                            i %= nd
                            if i < p:
                                p = i
                            if i >= q:
                                q = i + 1
                        if q - p != len(axis):
                            p = q  # (not adjacent: NumPy's ufuncs below)
                    else:
                        p = q = 0  # (no axis: NumPy's ufuncs below)
                    if p != q:
                        shape = a.shape
                        outer = nred = inner = 1
                        for n in shape[:p]:
                            outer *= n
                        for n in shape[p:q]:
                            nred *= n
                        for n in shape[q:]:
                            inner *= n
                        rshape = shape[:p] + shape[q:]
                        m = _empty(rshape, a.dtype)
                        s = _empty(rshape, a.dtype)
                        if _CK.reduce(_RED_SUM, a, m, outer, nred, inner, 1) \
                                and _CK.reduce(_RED_SQ, a, s, outer, nred, inner, 1, _true_divide(m, nred, out=m)):
                            dof = nred - correction
                            s = _true_divide(s, dof, out=s) if dof > 0 else _multiply(s, _NAN, out=s)
                            if keepdims:
                                s = s.reshape(shape[:p] + (1,) * (q - p) + shape[q:])
                        else:
                            s = None
                if s is None:
                    m = _add_reduce(a, axis, None, None, True)
                    n = a.size // m.size
                    _true_divide(m, n, out=m)
                    d = _subtract(a, m)
                    _multiply(d, d, out=d)
                    s = _add_reduce(d, axis, None, None if axis is not None or keepdims else _empty((), a.dtype),
                                    keepdims)
                    if type(s) is not _ND:
                        s = _asarray(s)
                    elif not s.flags.c_contiguous:
                        s = c_order(s)
                    dof = n - correction
                    # Note: the standard says NaN when M - correction <= 0 (NumPy gives inf there).
                    s = _true_divide(s, dof, out=s) if dof > 0 else _multiply(s, _NAN, out=s)
                if root:
                    s = _sqrt(s, out=s)
                return Array._new(s, None, 0, s.shape, None, x._dtype, _CPU)
        v, res = _var_native(func, x, axis, correction, keepdims)
        if root:
            v = x._device.backend.xp.sqrt(v)
        return _finish(wrap_result(v, res, x._device), func, out)

    # (named ``var``/``std`` in tracebacks and profiles too)
    definition.__code__ = definition.__code__.replace(co_name=func, co_qualname=func)
    definition.__name__ = definition.__qualname__ = func
    return definition


_var = _moment("var", False)
_var.__doc__ = """Variance over ``axis`` with divisor ``M - correction`` (NaN when that is <= 0).

    ``ddof=`` is NumPy's name for ``correction`` (an extension beyond the standard;
    TypeError if both are given).

    >>> import strided as xp
    >>> xp.var(xp.asarray([1.0, 2.0, 3.0, 4.0]), correction=1).item()
    1.6666666269302368
    >>> xp.var(xp.asarray([1.0, 2.0, 3.0, 4.0]), ddof=1).item()
    1.6666666269302368
    """
var = api("var")(_var)

_std = _moment("std", True)
_std.__doc__ = """Standard deviation over ``axis`` with divisor ``M - correction``.

    ``ddof=`` is NumPy's name for ``correction`` (an extension beyond the standard;
    TypeError if both are given).

    >>> import strided as xp
    >>> xp.std(xp.asarray([1.0, 3.0])).item()
    1.0
    >>> round(xp.std(xp.asarray([1.0, 3.0]), ddof=1).item(), 4)
    1.4142
    """
std = api("std")(_std)
del _var, _std


# --- running totals ------------------------------------------------------------------------

def _cumulative(func: str, kernel: str, identity, x, axis, dtype, include_initial, out):
    if out is None and not include_initial and type(x) is Array and x._device is _CPU \
            and (type(axis) is int or (axis is None and len(x._shape) == 1)):
        # The short path: NumPy's accumulate at once (at any size: it has no thread split).
        nd = len(x._shape)
        if axis is None:
            axis = 0
        if nd and -nd <= axis < nd:
            res = x._dtype if dtype is None and x._dtype.kind in "fc" else \
                accumulation_dtype(func, x._dtype, dtype)
            a = x._np if x._np is not None else x._get_native()
            if a.flags.c_contiguous:
                return _short_wrap(_ACCUMULATE[kernel](a, axis, res._np), res)
            # Note: a scan's result is C-ordered, as PyTorch's: written straight into a C
            # buffer (each lane is added in its own order, so the bits are NumPy's own).
            return _short_wrap(_ACCUMULATE[kernel](a, axis, res._np, _empty(a.shape, res._np)), res)
    check_array(x, func)
    res = accumulation_dtype(func, x._dtype, dtype)
    nd = x.ndim
    if axis is None:
        if nd > 1:
            raise ValueError(f"{func}(): axis is required for an array with {nd} dimensions")
        axis = 0
    ax = single_axis(x, axis, func)
    xp = x._device.backend.xp
    a = x._get_native()
    if nd == 0:
        # Note: like PyTorch, a 0-d array is its own running total.
        if include_initial:
            raise ValueError(f"{func}(): include_initial needs an array with at least one dimension")
        return _finish(wrap_new(xp.array(a, dtype=res._np, copy=True), res, x._device), func, out)
    kern = _kernel(xp, kernel)
    if not include_initial:
        if nd > 1 and not (type(a) is _ND and a.flags.c_contiguous):
            # (C-ordered, as PyTorch's: NumPy keeps a permuted input's axis order, CuPy rolls
            # the batch axes (the stand-in's scan_results_are_rolled_batches); out= avoids a copy)
            r = kern(a, axis=ax, dtype=res._np, out=xp.empty(a.shape, dtype=res._np))
        else:
            r = kern(a, axis=ax, dtype=res._np)
    else:
        shape = list(x._shape)
        shape[ax] += 1
        r = xp.empty(shape, dtype=res._np)
        head = (builtins.slice(None),) * ax
        r[head + (builtins.slice(0, 1),)] = identity
        kern(a, axis=ax, dtype=res._np, out=r[head + (builtins.slice(1, None),)])
    return _finish(wrap_new(r, res, x._device), func, out)


_ACCUMULATE = {"add.accumulate": np.add.accumulate, "multiply.accumulate": np.multiply.accumulate}


@api("cumulative_sum")
def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False, out=None) -> Array:
    """Running sum along ``axis`` (optional for 1-D input), starting with 0 if ``include_initial``.

    >>> import strided as xp
    >>> xp.cumulative_sum(xp.asarray([1, 2, 3]), include_initial=True).tolist()
    [0, 1, 3, 6]
    """
    return _cumulative("cumulative_sum", "add.accumulate", 0, x, axis, dtype, include_initial, out)


@api("cumulative_prod")
def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False, out=None) -> Array:
    """Running product along ``axis`` (optional for 1-D input), starting with 1 if ``include_initial``.

    >>> import strided as xp
    >>> xp.cumulative_prod(xp.asarray([1, 2, 3, 4])).tolist()
    [1, 2, 6, 24]
    """
    return _cumulative("cumulative_prod", "multiply.accumulate", 1, x, axis, dtype, include_initial, out)
