"""``strided.torch.testing``: PyTorch's ``assert_close`` and ``make_tensor`` over strided's arrays.

``assert_close`` follows ``torch.testing._comparison`` pair by pair: ``None``, booleans,
Python (and NumPy) numbers, and tensor-likes (strided arrays; NumPy arrays, read as strided
arrays), with sequences and mappings compared item by item. The default tolerances per
dtype are PyTorch's (float16 ``rtol=1e-3, atol=1e-5``; float32 ``1.3e-6, 1e-5``; float64
``1e-7, 1e-7``; the complex types their real type's; every other dtype 0, i.e. equality),
closeness is PyTorch's ``isclose`` (``|a - e| <= atol + rtol * |e|`` in the compared dtype),
and the error names the mismatched elements and the greatest absolute and relative
differences in PyTorch's words. Shapes print as ``strided.Size`` and dtypes as ``strided``'s.

>>> import strided.torch as torch
>>> torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-6]))
>>> torch.testing.make_tensor(2, 3, dtype=torch.float32, device="cpu").shape
strided.Size([2, 3])
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
import math
import sys

import numpy as np

from .._core import dtypes as _dtypes
from .._core.array import Array
from .._core.caller import stacklevel

__all__ = ["assert_allclose", "assert_close", "make_tensor"]

# PyTorch's _DTYPE_PRECISIONS (rtol, atol); any other dtype compares exactly.
_DTYPE_PRECISIONS = {
    _dtypes.float16: (0.001, 1e-5),
    _dtypes.float32: (1.3e-6, 1e-5),
    _dtypes.float64: (1e-7, 1e-7),
    _dtypes.complex64: (1.3e-6, 1e-5),
    _dtypes.complex128: (1e-7, 1e-7),
}
# NumberPair's dtypes of Python numbers
_TYPE_TO_DTYPE = {int: _dtypes.int64, float: _dtypes.float64, complex: _dtypes.complex128}


def _st():
    return sys.modules["strided"]


class _Unsupported(Exception):
    """A pair type cannot handle these inputs (the next one is tried)."""


class _ErrorMeta(Exception):
    """An error to raise for the user: its type, message and the item it occurred at."""

    def __init__(self, type_, msg, *, id=()):
        super().__init__(msg)
        self.type, self.msg, self.id = type_, msg, id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([i]) for i in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


def _tolerances(dtypes, rtol, atol, id):
    if (rtol is None) ^ (atol is None):
        raise _ErrorMeta(ValueError, f"Both 'rtol' and 'atol' must be either specified or omitted, "
                                     f"but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*[_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _mismatch_msg(*, default_identifier, identifier=None, extra=None, abs_diff, abs_diff_idx=None,
                  atol, rel_diff, rel_diff_idx=None, rtol):
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, idx, tol):
        msg = f"{kind.title()} difference: {diff}" if idx is None else \
            f"Greatest {kind} difference: {diff} at index {idx}"
        if not equality:
            msg += f" (up to {tol} allowed)"
        return msg + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_diff_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_diff_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, *, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(default_identifier="Scalars", extra=f"Expected {expected} but got {actual}.",
                         abs_diff=abs_diff, atol=atol, rel_diff=rel_diff, rtol=rtol)


def _none_pair(actual, expected, id, **_):
    if not (actual is None or expected is None):
        raise _Unsupported

    def compare():
        if not (actual is None and expected is None):
            raise _ErrorMeta(AssertionError, f"None mismatch: {actual} is not {expected}", id=id)
    return compare


def _bool_pair(actual, expected, id, **_):
    if not all(isinstance(v, (bool, np.bool_)) for v in (actual, expected)):
        raise _Unsupported
    actual, expected = bool(actual), bool(expected)

    def compare():
        if actual is not expected:
            raise _ErrorMeta(AssertionError, f"Booleans mismatch: {actual} is not {expected}", id=id)
    return compare


def _number_pair(actual, expected, id, rtol, atol, equal_nan, **_):
    if not all(isinstance(v, (int, float, complex, np.number)) for v in (actual, expected)):
        raise _Unsupported
    actual, expected = (v.item() if isinstance(v, np.number) else v for v in (actual, expected))
    dts = []
    for v in (actual, expected):
        if type(v) not in _TYPE_TO_DTYPE:  # (a bool with a number, or a subclass: PyTorch's KeyError)
            raise RuntimeError(f"assert_close(): cannot compare {type(actual).__name__} {actual!r} with "
                               f"{type(expected).__name__} {expected!r} (a bool or a subclass of a "
                               f"Python number paired with a number)")
        dts.append(_TYPE_TO_DTYPE[type(v)])
    rtol, atol = _tolerances(dts, rtol, atol, id)

    def compare():
        # Note: PyTorch's NumberPair ignores check_dtype in assert_close (it goes to tensors only).
        if actual == expected:
            return
        if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        abs_diff = abs(actual - expected)
        if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
            return
        raise _ErrorMeta(AssertionError, _scalar_mismatch_msg(actual, expected, rtol=rtol, atol=atol), id=id)
    return compare


def _host(x: Array):
    return np.asarray(x.detach().to_device("cpu"))


def _isclose(a, e, rtol, atol, equal_nan):
    """PyTorch's ``torch.isclose`` on host arrays of one dtype, computed in that dtype."""
    with np.errstate(all="ignore"):
        close = a == e
        if equal_nan and a.dtype.kind in "fc":
            close = close | (np.isnan(a) & np.isnan(e))
        if rtol == 0 and atol == 0:
            return close
        if a.dtype.kind in "fc":
            allowed = atol + np.abs(rtol * e)
            err = np.abs(a - e)
        else:
            # PyTorch: bool is cast to the default float dtype; an integer error |a - e| stays in
            # the integer dtype, and the tolerance (a Python float times an integer array) is in
            # the default float dtype, as is the comparison.
            fdt = _dtypes.get_default_dtype()._np
            if a.dtype.kind == "b":
                a, e = a.astype(fdt), e.astype(fdt)
            allowed = fdt.type(atol) + np.abs(fdt.type(rtol) * e.astype(fdt))
            err = np.abs(a - e).astype(fdt)
        return close | (np.isfinite(err) & (err <= allowed))


def _tensor_pair(actual, expected, id, rtol, atol, equal_nan, allow_subclasses, check_device,
                 check_dtype, check_layout, check_stride, **_):
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not allow_subclasses and type(actual) is not type(expected):
        raise _Unsupported
    st = _st()

    def to_array(v):
        if isinstance(v, Array):
            return v
        if isinstance(v, np.ndarray):
            try:
                return st.asarray(v)
            except Exception:
                raise _Unsupported from None
        raise _Unsupported

    actual, expected = to_array(actual), to_array(expected)
    rtol, atol = _tolerances([actual.dtype, expected.dtype], rtol, atol, id)

    def compare():
        def fail(name, a, b):
            raise _ErrorMeta(AssertionError, f"The values for attribute '{name}' do not match: {a} != {b}.", id=id)

        if actual.shape != expected.shape:
            fail("shape", actual.shape, expected.shape)
        if check_stride and actual.stride() != expected.stride():
            fail("stride()", actual.stride(), expected.stride())
        if check_device and actual.device != expected.device:
            fail("device", actual.device, expected.device)
        if check_dtype and actual.dtype != expected.dtype:
            fail("dtype", repr(actual.dtype), repr(expected.dtype))
        a, e = _host(actual), _host(expected)
        dt = actual.dtype
        if actual.dtype != expected.dtype:
            def widen(d):
                return _dtypes.int64 if d in (_dtypes.uint16, _dtypes.uint32, _dtypes.uint64) else d
            dt = st.result_type(widen(actual.dtype), widen(expected.dtype))
            a, e = a.astype(dt._np), e.astype(dt._np)
        matches = _isclose(a, e, rtol, atol, equal_nan)
        if matches.all():
            return
        if a.shape == ():
            msg = _scalar_mismatch_msg(a.item(), e.item(), rtol=rtol, atol=atol)
        else:
            n = matches.size
            bad = n - int(matches.sum())
            extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
            af, ef, mf = a.reshape(-1), e.reshape(-1), matches.reshape(-1)
            if dt.kind not in "fc":
                af, ef = af.astype(np.int64), ef.astype(np.int64)
            with np.errstate(all="ignore"):
                abs_diff = np.abs(af - ef)
                abs_diff[mf] = 0
                # (an integer quotient is float32, PyTorch's true division of integers)
                rel_diff = abs_diff / np.abs(ef) if dt.kind in "fc" else \
                    abs_diff.astype(np.float32) / np.abs(ef).astype(np.float32)
                rel_diff[mf] = 0
            # torch.max(·, 0): NaN wins (its first position), else the first greatest
            def argmax(v):
                nan = np.flatnonzero(np.isnan(v)) if v.dtype.kind == "f" else ()
                return int(nan[0]) if len(nan) else int(np.argmax(v))

            ia, ir = argmax(abs_diff), argmax(rel_diff)
            msg = _mismatch_msg(default_identifier="Tensor-likes", extra=extra,
                                abs_diff=abs_diff[ia].item(), abs_diff_idx=_index(ia, a.shape),
                                atol=atol, rel_diff=rel_diff[ir].item(),
                                rel_diff_idx=_index(ir, a.shape), rtol=rtol)
        raise _ErrorMeta(AssertionError, msg, id=id)
    return compare


def _index(flat: int, shape) -> tuple:
    """The multi-index of a flat position, as Python ints (PyTorch prints ``(1, 0)``)."""
    return tuple(int(i) for i in np.unravel_index(flat, shape))


def _pairs(actual, expected, id, options):
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and not isinstance(actual, str) and isinstance(expected, seq) \
            and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _ErrorMeta(AssertionError, f"The length of the sequences mismatch: "
                                             f"{len(actual)} != {len(expected)}", id=id)
        out = []
        for i in range(len(actual)):
            out.extend(_pairs(actual[i], expected[i], (*id, i), options))
        return out
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        ak, ek = set(actual.keys()), set(expected.keys())
        if ak != ek:
            raise _ErrorMeta(AssertionError, (
                f"The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(ek - ak)}\n"
                f"Additional keys in the actual mapping: {sorted(ak - ek)}"), id=id)
        keys = ak
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        out = []
        for k in keys:
            out.extend(_pairs(actual[k], expected[k], (*id, k), options))
        return out
    for pair in (_none_pair, _bool_pair, _number_pair, _tensor_pair):
        try:
            return [pair(actual, expected, id, **options)]
        except _Unsupported:
            continue
    raise _ErrorMeta(TypeError, f"No comparison pair was able to handle inputs of type "
                                f"{type(actual)} and {type(expected)}.", id=id)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """PyTorch's ``torch.testing.assert_close``: raise unless ``actual`` and ``expected`` are close.

    Tensor-likes (strided arrays, NumPy arrays) must agree in shape, and unless switched off
    in device (``check_device``) and dtype (``check_dtype``; else both are promoted); then
    every element must satisfy ``|actual - expected| <= atol + rtol * |expected|`` (NaNs equal
    only with ``equal_nan``). ``rtol`` and ``atol`` are given together or not at all (then
    PyTorch's defaults per dtype: float32 ``1.3e-6, 1e-5``, float64 ``1e-7, 1e-7``, integers
    and bool 0). Python numbers, booleans and ``None`` compare as in PyTorch; sequences and
    mappings item by item. ``msg`` (a string, or a callable on the generated message)
    replaces the message. ``check_layout`` has nothing to check (strided arrays are all strided).

    >>> import strided.torch as torch
    >>> torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.1]))
    Traceback (most recent call last):
    ...
    AssertionError: Tensor-likes are not close!
    <BLANKLINE>
    Mismatched elements: 1 / 1 (100.0%)
    Greatest absolute difference: 0.10000002384185791 at index (0,) (up to 1e-05 allowed)
    Greatest relative difference: 0.09090910851955414 at index (0,) (up to 1.3e-06 allowed)
    """
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        pairs = _pairs(actual, expected, (), options)
    except _ErrorMeta as e:
        raise e.to_error() from None
    for compare in pairs:
        try:
            compare()
        except _ErrorMeta as err:
            raise err.to_error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """PyTorch's deprecated ``torch.testing.assert_allclose`` (a FutureWarning, then ``assert_close``).

    Non-arrays become arrays (``expected`` in ``actual``'s dtype); dtypes are not checked; NaNs
    compare equal by default; the default tolerances are its own (float16 ``1e-3, 1e-3``,
    float32 ``1e-4, 1e-5``, float64 ``1e-5, 1e-8``; other dtypes 0).

    >>> import warnings
    >>> import strided.torch as torch
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.testing.assert_allclose(torch.tensor([1.0, float("nan")]), [1.00001, float("nan")])
    """
    import warnings
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=stacklevel())
    torch = sys.modules["strided.torch"]
    if not isinstance(actual, Array):
        actual = torch.tensor(actual)
    if not isinstance(expected, Array):
        expected = torch.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        table = {_dtypes.float16: (1e-3, 1e-3), _dtypes.float32: (1e-4, 1e-5), _dtypes.float64: (1e-5, 1e-8)}
        rtols, atols = zip(*[table.get(d, (0.0, 0.0)) for d in (actual.dtype, expected.dtype)])
        rtol, atol = max(rtols), max(atols)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """PyTorch's ``torch.testing.make_tensor``: an array of ``shape`` with values uniform in ``[low, high)``.

    Defaults per dtype: bool ``[0, 2)``, unsigned ``[0, 10)``, signed integers ``[-9, 10)``,
    floating and complex ``[-9, 9)``; bounds are clamped to the dtype's finite range (integer
    bounds rounded up). ``noncontiguous`` gives a view with a stride of 2 in the last
    dimension (where there are two elements or more); ``exclude_zero`` replaces zeros by 1
    (bool, integers) or the dtype's ``finfo.tiny``; ``requires_grad`` needs a floating or
    complex dtype. ``memory_format`` is not supported by strided (it raises).

    >>> import strided.torch as torch
    >>> x = torch.testing.make_tensor(3, 4, dtype=torch.int64, device="cpu", low=0, high=5)
    >>> bool(((x >= 0) & (x < 5)).all()), x.dtype
    (True, strided.int64)
    """
    st = _st()
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if memory_format is not None:
        if noncontiguous:
            raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                             f"but got noncontiguous={noncontiguous} and memory_format={memory_format}")
        raise NotImplementedError("make_tensor(): memory_format is not supported by strided "
                                  "(its arrays have no memory formats)")
    if not isinstance(dtype, _dtypes.DType):
        raise TypeError(f"The requested dtype '{dtype}' is not supported by make_tensor() "
                        f"(expected a strided dtype)")
    integral = dtype.kind in "biu"
    if requires_grad and integral:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])

    def bounds(low, high, lowest, highest, dlow, dhigh):
        low = dlow if low is None else low
        high = dhigh if high is None else high
        if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
        if low == high and not integral:
            import warnings
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex "
                          "types is deprecated since 2.1 and will be removed in 2.3. Use "
                          "`torch.full(...)` instead.", FutureWarning, stacklevel=stacklevel())
        elif low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        elif high < lowest or low >= highest:
            raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                             f"but {dtype} only supports [{lowest}, {highest})")
        low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
        return (math.ceil(low), math.ceil(high)) if integral else (low, high)

    if dtype.kind == "b":
        low, high = bounds(low, high, 0, 2, 0, 2)
        result = st.randint(low, high, shape, dtype=_dtypes.int64, device=device).to(dtype)
    elif integral:
        info = np.iinfo(dtype._np)
        low, high = bounds(low, high, int(info.min), int(info.max) + (dtype is not _dtypes.int64), -9, 10)
        if dtype.kind == "u" and high - 1 > np.iinfo(np.int64).max:
            raise NotImplementedError(f"make_tensor(): {dtype} values above 2**63 - 1 are not supported "
                                      f"by strided")
        result = st.randint(low, high, shape, dtype=_dtypes.int64 if dtype.kind == "u" else dtype,
                            device=device).to(dtype)
    else:
        fmax = float(np.finfo(_dtypes.real_of(dtype)._np).max)
        low, high = bounds(low, high, -fmax, fmax, -9, 9)
        real = _dtypes.real_of(dtype)
        rshape = shape + (2,) if dtype.kind == "c" else shape
        result = st.empty(rshape, dtype=real, device=device)
        if high - low >= fmax:
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
        if dtype.kind == "c":
            result = sys.modules["strided.torch"].complex(result[..., 0], result[..., 1])
    if noncontiguous:
        result = result[..., 1::2]
    if exclude_zero:
        tiny = 1 if integral else float(np.finfo(_dtypes.real_of(dtype)._np).tiny)
        result = _replace_zeros(result, tiny, dtype)
    if dtype.kind in "fc" and requires_grad:
        result.requires_grad_(True)
    return result


def _replace_zeros(result, tiny, dtype):
    """``result[result == 0] = tiny`` keeping ``result`` a noncontiguous view."""
    st = _st()
    result.copy_(st.where(result == 0, st.asarray(tiny, dtype=dtype, device=result.device), result))
    return result
