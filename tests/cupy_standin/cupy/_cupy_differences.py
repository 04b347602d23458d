"""Where real CuPy's answers differ from NumPy's: the stand-in's list of them.

The stand-in computes with NumPy's kernels. Each entry below makes one of its
entry points give CuPy's answer where CuPy's kernel (or API) differs from
NumPy's, so that the suite run on ``cuda`` over the stand-in fails where it
would fail on a GPU. One entry = one difference, registered with its source:
the CuPy file (and function) read, or the line of a real-GPU log under
``shared/gpu-runs/`` (``probe2.txt``, ``cuda-tests-failures.log``, ...).
CuPy's files are cited at cupy/cupy main of 2026-08 (CuPy 14); the entries marked
(v14.2.0) were read at the v14.2.0 tag (unchanged at main of 2026-08-20, 15.0.0a1).

Kinds of entries, by the decorator that registers them:

- ``@ufunc_rule(name)``: ``rule(call, *args)`` for the ufunc ``name`` (NumPy's
  name, also what the ndarray operators use). ``args`` are NumPy arrays or
  Python scalars; ``call(*args)`` computes the rest of the chain (in the end
  NumPy's ufunc, C-ordered, no ``out``); the rule returns CuPy's answer.
- ``@every_ufunc_rule()``: the same, for every ufunc: ``rule(name, call, *args)``.
- ``@function_rule("linalg.solve")``: ``rule(numpy_func, *args, **kw)`` replaces
  the stand-in's ``cupy.linalg.solve`` (``"asarray"``: ``cupy.asarray``, ...).
- ``@method_rule("fill")``: ``rule(memory, value)`` for ``ndarray.fill`` (``memory``:
  the array's NumPy memory); ``"__setitem__"``: ``rule(memory, key, value, assign,
  value_on_device)`` and ``"__setitem__:duplicates"``: ``rule(memory, key, value, assign)``,
  ``assign()`` doing NumPy's assignment. ``ndarray.clip`` is the ``"clip"`` function rule.
- hooks the stand-in calls by key: ``"ufunc:keywords"`` (the keywords a ufunc takes),
  ``"ufunc:layout"`` (a ufunc result's layout), ``"sort:kind"`` (a sort's kind), and the
  method rules ``"astype:layout"`` / ``"copy:layout"`` (a copy's strides for ``order``);
  ``ndarray.__getitem__`` makes an advanced-indexing result C-contiguous (``c_layout``).
  Layouts: strided adopts a result's strides, so where CuPy lays a result out unlike
  NumPy's order 'K' the stand-in re-lays it out as CuPy does (``c_layout``, ``k_layout``,
  ``with_strides``).
- the fork rule: ``device_used()``, which the stand-in calls where it touches device
  memory; ``cupyx.errstate(linalg=...)`` sets ``linalg_errors()`` for the linalg rules.

After the next GPU run, add a function with one of these decorators next to
its kind; ``DIFFERENCES`` lists them all (name, where, source), and
``selftest/test_cupy_differences.py`` checks the measured answers (against the real
CuPy too, where it is installed). The rules apply to tests/conftest.py's ``sim``
device as well (it loads a private copy of this package).

Not emulated (no faithful way to compute it with NumPy): ulp-level results of
CUDA's libdevice (exp, sin, cos, tan, log10, cosh, acosh, asinh ... in float32;
atan2 in float64), the summation order of CuPy's and CUB's reductions (sum,
mean, var, trace), cuFFT's rounding and its inf/NaN arithmetic, the -ftz flush
in reductions (same-dtype copies move bits: no flush), ``nextafter`` near 0 under
-ftz (CuPy's docstring: "may be different"), complex ``power`` and ``exp``'s special
values (thrust's pow = exp(y log x)), the loop of ``solve`` for n > 256 (each matrix's
transpose factorised), timings (the first call of each kernel compiles it: seconds
on a GPU). ``../gpu_probe.py`` asks a GPU what the source leaves open (README.md).
"""

from __future__ import annotations

import math
import os
import threading
from typing import Callable, NamedTuple

import numpy as np


class Difference(NamedTuple):
    name: str      # the rule's function name
    where: str     # what it changes: "ufunc:remainder", "linalg.inv", "asarray", ...
    source: str    # the CuPy file read, or the log line


DIFFERENCES: list[Difference] = []
UFUNCS: dict[str, list[Callable]] = {}     # ufunc name -> rules, outermost first
EVERY_UFUNC: list[Callable] = []           # rules for every ufunc, outermost first
FUNCTIONS: dict[str, Callable] = {}        # "asarray" / "linalg.solve" -> rule
METHODS: dict[str, Callable] = {}          # ndarray method -> rule


def _register(where, source, table, key):
    def deco(fn):
        DIFFERENCES.append(Difference(fn.__name__, where, source))
        if table is UFUNCS:
            table.setdefault(key, []).append(fn)
        elif table is EVERY_UFUNC:
            table.append(fn)
        else:
            table[key] = fn
        return fn
    return deco


def ufunc_rule(*names, source):
    def deco(fn):
        for n in names:
            _register(f"ufunc:{n}", source, UFUNCS, n)(fn)
        return fn
    return deco


def every_ufunc_rule(source):
    return _register("ufunc:*", source, EVERY_UFUNC, None)


def function_rule(*names, source):
    def deco(fn):
        for n in names:
            _register(n, source, FUNCTIONS, n)(fn)
        return fn
    return deco


def method_rule(name, source):
    return _register(f"ndarray.{name}", source, METHODS, name)


def call_ufunc(uf, args, kw):
    """``uf(*args, **kw)`` as CuPy computes it: NumPy's ufunc under the rules for it.

    ``args`` are NumPy arrays / Python scalars. With ``out=``, a ufunc with rules
    of its own computes its answer fresh and then writes it to ``out`` (which
    may be an input); others write straight into ``out``.
    """
    kw = FUNCTIONS["ufunc:keywords"](kw)
    if "where" in kw:  # (strided passes no _where=; the rules assume none)
        return uf(*args, **kw)
    name = uf.__name__
    rules = UFUNCS.get(name, ())
    out = kw.get("out")
    if out is not None and rules:
        del kw["out"]
        if isinstance(out, tuple) and len(out) == 1:
            out = out[0]

    def numpy_call(*a):
        return uf(*a, **kw)

    call = numpy_call
    for rule in reversed(rules):
        call = (lambda r, nxt: lambda *a: r(nxt, *a))(rule, call)
    for rule in reversed(EVERY_UFUNC):
        call = (lambda r, nxt: lambda *a: r(name, nxt, *a))(rule, call)
    r = call(*args)
    if out is None:
        return FUNCTIONS["ufunc:layout"](r)
    if not rules:
        return r
    casting = kw.get("casting", "same_kind")
    if isinstance(out, tuple):
        for o, v in zip(out, r):
            np.copyto(o, v, casting=casting)
    else:
        np.copyto(out, r, casting=casting)
    return out


@function_rule("ufunc:keywords", source=(
    "cupy/_core/_kernel.pyx (v14.2.0) ufunc.__call__: pops 'out', '_where', 'dtype' and "
    "'casting', then 'if kwargs: raise TypeError('Wrong arguments %s' % kwargs)': NumPy's "
    "where=, order=, subok=, signature= ... are refused (the mask is the private _where=)"))
def ufunc_keywords_are_out_where_dtype_casting(kw):
    bad = {k: v for k, v in kw.items() if k not in ("out", "_where", "dtype", "casting")}
    if bad:
        raise TypeError("Wrong arguments %s" % bad)
    if "_where" in kw:
        kw = dict(kw)
        kw["where"] = kw.pop("_where")
    return kw


# --- helpers -----------------------------------------------------------------

def _as(v, dt):
    """``v`` (an array or a Python scalar) as an array of dtype ``dt``."""
    return v.astype(dt, copy=False) if isinstance(v, np.ndarray) else np.asarray(v, dtype=dt)


def _fresh(r):
    """``r`` as a writable NumPy array (a ufunc on 0-d inputs gives a NumPy scalar)."""
    return np.array(r) if not isinstance(r, np.ndarray) else r


def _nan_of(dt):
    """CuPy's ``out0_type(NAN)``, NAN being ``__int_as_float(0x7fffffff)``
    (cupy/_math/misc.py ``_float_preamble``)."""
    f = np.array(0x7FFFFFFF, np.uint32).view(np.float32)
    if dt.kind == "c":
        return np.array(complex(float(f), 0.0), dt)
    return f.astype(dt)


def _two_prod(a, b):
    """``p + e == a * b`` exactly (float64, Dekker/Veltkamp; finite, no overflow)."""
    p = a * b
    s = 134217729.0  # 2**27 + 1
    ta = a * s
    ah = ta - (ta - a)
    al = a - ah
    tb = b * s
    bh = tb - (tb - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _fms(x, q, y):
    """``x - q * y`` rounded once, as CUDA's contracted ``fma(-q, y, x)``
    (NVRTC's default --fmad=true contracts ``in0 - q * in1``)."""
    dt = np.result_type(x, q, y)
    if dt == np.float32:  # the product of two float32 is exact in float64
        return (x.astype(np.float64) - q.astype(np.float64) * y.astype(np.float64)).astype(np.float32)
    p, e = _two_prod(q, y)
    r = (x - p) - e
    bad = ~(np.isfinite(p) & np.isfinite(e))
    if bad.any():
        r = np.where(bad, x - p, r)
    return r


def _fma(a, b, c):
    """``a * b + c`` rounded once (float64, finite: Dekker's product, Knuth's two-sum;
    correctly rounded but for ties of the last step)."""
    p, e = _two_prod(a, b)
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)  # (s + t == p + c exactly)
    return s + (t + e)


# --- creation: 0-d arrays from host scalars -----------------------------------

@function_rule("asarray", "array", "asanyarray", source=(
    "cupy/_core/core.pyx _array_default: a 0-d host input is written with "
    "a.fill(a_cpu), and ndarray.fill memsets when value == 0 (all bits 0); "
    "probe2.txt: asarray(-0.0, float32) signbit False, asarray(np.float32(-0.0)) "
    "signbit False, asarray(complex(-0.0, -0.0)) signbit False; full((), -0.0) keeps it"))
def scalar_to_0d_drops_the_sign_of_zero(func, obj, *args, **kw):
    r = func(obj, *args, **kw)
    if isinstance(r, np.ndarray) and r.ndim == 0 and r.dtype.kind in "fc" and r == 0:
        r = np.array(r, copy=True)
        r[...] = 0
    return r


@method_rule("fill", source=(
    "cupy/_core/core.pyx ndarray.fill: 'if value == 0 and self._c_contiguous: "
    "self.data.memset_async(0, self.nbytes)' (all bits 0: +0, +0+0j)"))
def fill_with_zero_is_a_memset(mem, value):
    mem.fill(value)
    if mem.dtype.kind in "fc" and mem.flags.c_contiguous and mem.size and mem.flat[0] == 0:
        mem[...] = 0


@method_rule("__setitem__", source=(
    "cupy/_core/_routines_indexing.pyx _scatter_op 'update': a non-CuPy value with basic "
    "indexing is y.fill(value) (a memset for 0 on a C-contiguous view; a kernel argument, "
    "sign kept, on another view); with an advanced or mask key, _scatter_op_single / "
    "_scatter_op_mask_single make 'core.array(value, dtype=a.dtype)', and core.pyx "
    "_array_default writes a 0-d host value with a.fill(a_cpu): a memset for any zero, so "
    "a[[0]] = -0.0 and a[mask] = -0.0 write +0 whatever the view"))
def setitem_of_a_host_zero_is_a_memset(mem, key, value, assign, value_on_device):
    if mem.dtype.kind not in "fc" or value_on_device or np.ndim(value) != 0:
        return assign(value)
    if is_advanced(key):
        v = np.asarray(value, dtype=mem.dtype)
        return assign(np.zeros((), mem.dtype) if v == 0 else v)
    assign(value)
    view = mem[key]
    if isinstance(view, np.ndarray) and view.flags.c_contiguous and view.size and view.flat[0] == 0:
        view[...] = 0


def is_advanced(key):
    """Whether ``key`` (host form: NumPy arrays, lists, ints, slices...) has an index array."""
    keys = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (np.ndarray, list)) for k in keys)


def _index_dims(k):
    """How many axes the index entry ``k`` consumes (None for Ellipsis)."""
    if k is Ellipsis:
        return None
    if k is None or isinstance(k, (bool, np.bool_)):
        return 0
    if isinstance(k, np.ndarray) and k.dtype == bool:
        return k.ndim
    return 1


@method_rule("__getitem__:indices", source=(
    "cupy/_core/core.pyx ndarray.__setitem__ docstring: 'CuPy handles out-of-bounds "
    "indices differently from NumPy when using integer array indexing. NumPy handles "
    "them by raising an error, but CuPy wraps around them'; _routines_indexing.pyx "
    "_take_kernel_core 'out_i = indices % index_range; if (out_i < 0) out_i += "
    "index_range', _create_scatter_kernel 'wrap_indices = indices % adim', "
    "_prepare_array_indexing (several index arrays) 'in0 - _floor_divide(in0, in1) * in1'"))
def index_arrays_wrap_around(shape, key):
    """``key`` with its integer index arrays (lists included) taken modulo their axis's
    length (an empty axis is left to NumPy: CuPy raises IndexError there too)."""
    keys = key if type(key) is tuple else (key,)
    if not any(type(k) is list or type(k) is np.ndarray for k in keys):
        return key  # (basic indexing: NumPy's checks are CuPy's)
    keys = [np.asarray(k) if type(k) is list else k for k in keys]
    used = sum(n for n in map(_index_dims, keys) if n)
    out, d, changed = [], 0, False
    for k in keys:
        n = _index_dims(k)
        if n is None:
            d += len(shape) - used
        elif isinstance(k, np.ndarray) and k.dtype.kind in "iu" and k.size and d < len(shape) \
                and shape[d] > 0 and (k.min() < -shape[d] or k.max() >= shape[d]):
            k, changed = np.mod(k, shape[d]), True
        out.append(k)
        d += n or 0
    if not changed:
        return key
    return tuple(out) if type(key) is tuple else out[0]


METHODS["__setitem__:indices"] = index_arrays_wrap_around  # (the same kernels' rule)

@function_rule("take", source=(
    "cupy/_indexing/indexing.py take -> ndarray.take -> _routines_indexing.pyx _ndarray_take "
    "-> _take_kernel: no mode argument, indices wrap ('indices % index_range')"))
def take_wraps_indices(func, a, indices, axis=None, out=None):
    return func(a, indices, axis=axis, out=out, mode="wrap")


@function_rule("take_along_axis", source=(
    "cupy/_indexing/indexing.py take_along_axis: 'return a[tuple(fancy_index)]' (advanced "
    "indexing: indices wrap)"))
def take_along_axis_wraps_indices(func, a, indices, axis):
    if axis is None:
        a, axis = a.reshape(-1), 0
    n = a.shape[axis]
    # (advanced_indexing_results_are_c_contiguous: a[tuple(fancy_index)] is C-ordered)
    return c_layout(func(a, np.mod(indices, n) if n else indices, axis))


_SCATTER_SEED = int(os.environ.get("STANDIN_SCATTER_SEED", "20261128"))
_scatters = [0]


@method_rule("__setitem__:duplicates", source=(
    "cupy/_core/core.pyx ndarray.__setitem__ docstring: 'when integer arrays in slices "
    "reference the same location multiple times ... the value that is actually stored is "
    "undefined' (its example: a[i] = v with i = arange(10000) % 2 gives [9150., 9151.]); "
    "_routines_indexing.pyx _scatter_update_kernel: one thread per value, 'out0 = in1', no "
    "order. cuda-tests-failures.log test_indexing_functions saw the first value win once. "
    "The stand-in picks the winner at random (seeded: STANDIN_SCATTER_SEED, one draw per "
    "scatter with duplicates), so that nothing can rely on first or last"))
def setitem_duplicate_indices_store_any_of_them(mem, key, value, assign):
    if not is_advanced(key) or mem.size == 0:
        return assign(value)
    pos = np.arange(mem.size).reshape(mem.shape)[key]
    if np.unique(pos).size == pos.size:
        return assign(value)
    _scatters[0] += 1
    rng = np.random.default_rng([_SCATTER_SEED, _scatters[0]])
    vals = np.broadcast_to(np.asarray(value, dtype=mem.dtype), pos.shape).reshape(-1)
    order = rng.permutation(pos.size)
    # NumPy's assignment keeps the last of each duplicate: the last in a random order
    mem[np.unravel_index(pos.reshape(-1)[order], mem.shape)] = vals[order]


# --- every ufunc: -ftz and C order -------------------------------------------

_FTZ = (np.dtype(np.float32), np.dtype(np.complex64))
_F32_TINY = np.finfo(np.float32).tiny
# ufuncs whose CUDA code moves bits without float32 arithmetic (no flush), and
# cuBLAS's matmul (not compiled by CuPy)
_NO_FTZ = {"copysign", "signbit", "isnan", "isinf", "isfinite", "nextafter",
           "matmul", "vecdot", "matvec", "vecmat"}


_CHUNK = 1 << 14  # (the scan's temporaries: 7 bytes an element of one block)


def _has_subnormals(a):
    """Whether the float32 array ``a`` holds a subnormal (scanned in blocks, so
    that the scan's temporaries stay small beside the arrays)."""
    if a.ndim == 0:
        v = abs(float(a))
        return 0 < v < _F32_TINY
    flat = a.reshape(-1)
    n = flat.size
    if n <= 32:  # (Python is quicker than five NumPy calls here)
        tiny = _F32_TINY
        return any(0 < abs(v) < tiny for v in flat.tolist())
    if n <= _CHUNK:
        c = np.abs(flat)
        return bool(((c < _F32_TINY) & (c > 0)).any())
    buf = np.empty(_CHUNK, np.float32)
    small = np.empty(_CHUNK, bool)
    nonzero = np.empty(_CHUNK, bool)
    for i in range(0, n, _CHUNK):
        j = min(n, i + _CHUNK) - i
        c = np.abs(flat[i:i + j], out=buf[:j])
        np.less(c, _F32_TINY, out=small[:j])
        if small[:j].any():
            np.greater(c, 0, out=nonzero[:j])
            if (small[:j] & nonzero[:j]).any():
                return True
    return False


def _flush(a, in_place=False):
    """``a`` with its float32 / complex64 subnormals replaced by signed zeros."""
    if not isinstance(a, (np.ndarray, np.generic)) or a.dtype not in _FTZ:
        return a
    parts = (a.real, a.imag) if a.dtype.kind == "c" else (a,)
    if not any(_has_subnormals(p) for p in parts):
        return a
    scalar = isinstance(a, np.generic)
    if not (in_place and isinstance(a, np.ndarray) and a.flags.writeable):
        a = np.array(a)
    parts = (a.real, a.imag) if a.dtype.kind == "c" else (a,)
    for p in parts:
        m = (np.abs(p) < _F32_TINY) & (p != 0)
        np.copyto(p, np.copysign(np.float32(0), p), where=m)
    return a[()] if scalar else a


@every_ufunc_rule(source=(
    "cupy/cuda/compiler.py _compile_with_cache_cuda: options += ('-ftz=true',): "
    "float32 subnormal inputs and results flush to signed 0; cuda-tests-failures.log "
    "test_no_runtime_warnings.py reciprocal: 1/1e38 (float32) gave 0.0, NumPy 1e-38"))
def float32_subnormals_flush_to_zero(name, call, *args):
    if name in _NO_FTZ or not any(getattr(a, "dtype", None) in _FTZ for a in args):
        return call(*args)
    r = call(*(_flush(a) for a in args))
    if name not in _UNDERFLOWS:
        return r
    if isinstance(r, tuple):
        return tuple(_flush(v, in_place=True) for v in r)
    return _flush(r, in_place=True)


# The ufuncs whose result can be subnormal when no input is (the others' results
# need no scan once their inputs are flushed).
_UNDERFLOWS = {"add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
               "remainder", "fmod", "divmod", "reciprocal", "square", "power", "float_power",
               "exp", "exp2", "expm1", "ldexp", "arctan2", "hypot", "logaddexp", "logaddexp2",
               "spacing", "matmul", "vecdot", "frexp", "modf", "sinc", "heaviside"}


@function_rule("ufunc:layout", source=(
    "cupy/_core/_kernel.pyx (v14.2.0) ufunc.__call__: no order= keyword ('Wrong arguments' "
    "TypeError), outputs made by _get_out_args_from_optionals -> _ndarray_init(subtype, shape, "
    "dtype, obj) -> _init_fast(shape, dtype, True): C order whatever the inputs' layout "
    "(x.T + 1, abs(x.T), F-order operands, mixed layouts), strides all 0 for a zero-size shape "
    "(internal.pyx get_contiguous_strides_inplace, as NumPy 2); NumPy's order 'K' follows the "
    "inputs; cuda-tests-failures.log test_hot_path.py::test_unsqueeze_and_mT_views: x.mT + 0 "
    "strides (12, 3, 1), NumPy (12, 1, 4)"))
def ufunc_results_are_c_contiguous(r):
    # (call_ufunc applies it to every ufunc's result made without out=)
    return tuple(map(c_layout, r)) if isinstance(r, tuple) else c_layout(r)


# --- layouts: the strides of the results of CuPy's other routines ---------------
# strided adopts a kernel's result with its strides (an F or K-ordered result stays
# so), so a layout CuPy gives unlike NumPy's is a difference the suite can see.

def c_layout(r):
    """``r`` C-contiguous (CuPy's ``_ndarray_init``): a copy when it is not."""
    if isinstance(r, np.ndarray) and not r.flags.c_contiguous:
        return np.array(r, order="C", copy=True)
    return r


def with_strides(r, strides):
    """A fresh copy of ``r`` with the byte ``strides`` (non-negative, dense)."""
    if not isinstance(r, np.ndarray) or tuple(r.strides) == tuple(strides) or r.size == 0:
        return r
    buf = np.empty(r.size * r.itemsize, np.uint8)
    out = np.ndarray(r.shape, r.dtype, buf, 0, tuple(strides))
    np.copyto(out, r, casting="unsafe")
    return out


def _contiguous_strides(shape, itemsize, c_order=True):
    """internal.pyx get_contiguous_strides_inplace (zeros for a zero-size shape)."""
    if 0 in shape:
        return (0,) * len(shape)
    st, out = itemsize, [0] * len(shape)
    for i in (reversed(range(len(shape))) if c_order else range(len(shape))):
        out[i] = st
        st *= shape[i] if shape[i] > 1 else 1
    return tuple(out)


def k_strides(src, itemsize, shape=None):
    """The strides CuPy gives a new array of order 'K' laid out like ``src``:
    internal.pyx _update_order_char (a C-contiguous source -> C, F-contiguous -> F),
    else _get_strides_for_order_K: axes sorted by (abs(stride), -axis), the smallest
    the fastest (a stride-0 axis is the fastest; of equal strides, the last axis)."""
    shape = tuple(src.shape if shape is None else shape)
    if src.flags.c_contiguous:
        return _contiguous_strides(shape, itemsize, True)
    if src.flags.f_contiguous:
        return _contiguous_strides(shape, itemsize, False)
    order = sorted((abs(s), -i) for i, s in enumerate(src.strides))
    out, st = [0] * len(shape), itemsize
    for _, i in order:
        out[-i] = st
        st *= shape[-i]
    return tuple(out)


def k_layout(r, src, shape=None):
    """``r`` with CuPy's order-'K' strides for a result laid out like ``src``."""
    if not isinstance(r, np.ndarray) or r.ndim < 2:
        return r
    return with_strides(r, k_strides(src, r.itemsize, shape))


@method_rule("astype:layout", source=(
    "cupy/_core/core.pyx (v14.2.0) ndarray._astype (astype's order='K' default, copy(order=...)): "
    "_update_order_char (C-contiguous -> C, F-contiguous -> F), else "
    "internal.pyx _get_strides_for_order_K: axes sorted by (abs(stride), -axis), the smallest "
    "the fastest; NumPy's order 'K' breaks ties otherwise (a stride-0 or length-1 axis: "
    "broadcast_to(x, (3, 4)).astype(float32) is F-ordered in both, but expand_dims(x.T, 1) "
    "is not); cupy/_creation/basic.py _new_like_order_and_strides for empty_like, zeros_like, "
    "ones_like, full_like (order 'K'; a new shape of another ndim -> C); "
    "cupy/_creation/from_data.py copy(a, order='K') -> a.copy(order)"))
def order_k_is_cupys_stride_sort(mem, r, order="K"):
    order = (order or "K").upper()
    if not isinstance(r, np.ndarray):
        return r
    if order == "K":
        return k_layout(r, mem)
    if order == "A":
        return with_strides(r, _contiguous_strides(
            r.shape, r.itemsize, not (mem.flags.f_contiguous and not mem.flags.c_contiguous)))
    return with_strides(r, _contiguous_strides(r.shape, r.itemsize, order != "F"))


def _like(name):
    def rule(func, prototype, *args, **kw):
        r = func(prototype, *args, **kw)
        order = kw.get("order", "K")
        shape = kw.get("shape")
        if not isinstance(prototype, np.ndarray) or not isinstance(r, np.ndarray):
            return r
        if (order or "K").upper() == "K" and shape is not None and np.ndim(shape) and \
                len(tuple(np.atleast_1d(shape))) != prototype.ndim:
            return c_layout(r)
        return METHODS["astype:layout"](prototype, r, order)
    rule.__name__ = name
    return rule


for _n in ("empty_like", "zeros_like", "ones_like", "full_like"):
    FUNCTIONS[_n] = _like("order_k_is_cupys_stride_sort")


def _copy_function(func, a, order="K", *args, **kw):
    # cupy/_creation/from_data.py copy: a.copy(order=order)
    return METHODS["astype:layout"](a, func(a, order, *args, **kw), order)


FUNCTIONS["copy"] = _copy_function
METHODS["copy:layout"] = lambda mem, r, order="C": METHODS["astype:layout"](mem, r, order)


@function_rule(
    "sum", "prod", "max", "min", "amax", "amin", "mean", "var", "std", "any", "all", "argmax",
    "argmin", "count_nonzero", "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar",
    "nanstd", "nanargmax", "nanargmin", "ptp", "trace", source=(
        "cupy/_core/_reduction.pyx (v14.2.0) _AbstractReductionKernel._call: 'out_args = "
        "self._get_out_args(out_args, out_types, out_shape)', _ReductionKernel._get_out_args / "
        "_SimpleReductionKernel: _get_out_args_from_optionals -> _ndarray_init: C order, "
        "keepdims or not (CUB's cub.device_reduce allocates ndarray(out_shape) too); NumPy's "
        "reductions keep the input's axis order (x.transpose(1, 0, 2).sum(axis=2): (8, 24))"))
def reduction_results_are_c_contiguous(func, *args, **kw):
    return c_layout(func(*args, **kw))


def _normal_axis(axis, ndim):
    return axis + ndim if axis < 0 else axis


def _scan_strides(shape, itemsize, axis):
    """_routines_math.pyx scan_core with an axis: result = a.astype(dtype, order='C'),
    then _proc_as_batch: t = rollaxis(result, axis, ndim); r = t.reshape(-1, n) (a view
    when the axes merge, else a C copy, which is scanned and returned); the result is
    rollaxis(r.reshape(t.shape), ndim - 1, axis)."""
    probe = np.empty(shape, np.dtype(f"V{itemsize}"))  # (only its strides are read)
    t = np.moveaxis(probe, axis, -1)
    r = t.reshape(-1, shape[axis])  # (NumPy's no-copy reshape: CuPy's _reshape rule)
    return np.moveaxis(r.reshape(t.shape), -1, axis).strides


@function_rule("cumsum", "cumprod", "nancumsum", "nancumprod", source=(
    "cupy/_core/_routines_math.pyx (v14.2.0) scan_core: 'result = a.astype(dtype, order="
    "'C')' and _proc_as_batch: 't = cupy.rollaxis(x, axis, x.ndim); r = t.reshape(-1, "
    "x.shape[axis]); _batch_scan_op(r, op, r); return cupy.rollaxis(r.reshape(s), x.ndim-1, "
    "axis)': along the last axis (or axis=None) the result is C-contiguous; along another "
    "one whose rolled view does not merge it is a rolled view of a C copy (a (2, 3, 4) "
    "cumsum(axis=1): strides (96, 8, 24)), NumPy's follows the input (C for a C input); "
    "cupy/_math/sumprod.py nancumsum: _replace_nan (empty_like) then cumsum"))
def scan_results_are_rolled_batches(func, a, axis=None, *args, **kw):
    r = func(a, axis, *args, **kw)
    if not isinstance(r, np.ndarray) or axis is None or r.ndim < 2 or r.size == 0 \
            or kw.get("out") is not None:
        return c_layout(r) if kw.get("out") is None else r
    return with_strides(r, _scan_strides(r.shape, r.itemsize, _normal_axis(axis, r.ndim)))


@function_rule("argsort", source=(
    "cupy/_core/_routines_sorting.pyx (v14.2.0) _ndarray_argsort: 'data = "
    "_manipulation.rollaxis(data, _axis, ndim).copy(); idx_array = core.ndarray(shape, ...); "
    "... return _manipulation.rollaxis(idx_array, -1, _axis)': along an axis other than the "
    "last the indices are a rolled view of a C array (argsort(x (2, 3, 4), axis=0): strides "
    "(8, 64, 16)); NumPy's are C-contiguous"))
def argsort_of_an_inner_axis_is_a_rolled_view(func, a, axis=-1, kind=None, **kw):
    r = func(a, axis, kind=FUNCTIONS["sort:kind"](kind), **kw)
    if not isinstance(r, np.ndarray) or axis is None or r.ndim < 2:
        return c_layout(r)
    ax = _normal_axis(axis, r.ndim)
    rolled = np.moveaxis(np.empty(r.shape, np.uint8), ax, -1).shape
    return with_strides(r, np.moveaxis(np.empty(rolled, r.dtype), -1, ax).strides)


@function_rule("sort", source=(
    "cupy/_sorting/sort.py (v14.2.0) sort: 'ret = a.copy()' (order 'C') then 'ret.sort("
    "axis=axis)' in place: C-contiguous; NumPy's np.sort copies with order 'K'"))
def sort_results_are_c_contiguous(func, a, axis=-1, kind=None, **kw):
    return c_layout(func(a, axis, kind=FUNCTIONS["sort:kind"](kind), **kw))


@function_rule("sort:kind", source=(
    "cupy/_core/core.pyx (v14.2.0) ndarray._check_kind_sort: 'if kind is not None and kind != "
    "\"stable\": raise ValueError(\"kind can only be None or 'stable'\")'; ndarray.sort/argsort "
    "docstrings: 'kind: Default is None, which is equivalent to 'stable''; "
    "_routines_sorting.pyx: thrust's stable sort (cuda/cupy_thrust.cu stable_sort, "
    "stable_sort_by_key); NumPy's kind=None is an unstable quicksort (equal keys in any "
    "order); the ndarray methods sort/argsort and cupy.sort/argsort share it"))
def sorts_are_always_stable(kind):
    if kind is not None and kind != "stable":
        raise ValueError("kind can only be None or 'stable'")
    return "stable"


@function_rule("where", "round", "around", "diff", "tril", "triu", source=(
    "ufuncs and ElementwiseKernels, so C order (_kernel.pyx _get_out_args_from_optionals): "
    "cupy/_sorting/search.py where -> _where_ufunc; cupy/_core/core.pyx ndarray.round -> "
    "_round_ufunc (cupy/_math/rounding.py around -> a.round); cupy/_math/sumprod.py diff -> "
    "op(a[slice1], a[slice2]); cupy/_creation/matrix.py tril/triu -> _tri_kernel; NumPy's "
    "where/round/diff keep the inputs' order 'K'"))
def elementwise_routine_results_are_c_contiguous(func, *args, **kw):
    if func.__name__ == "where" and len(args) + len(kw) == 1:
        return func(*args, **kw)  # (nonzero)
    return c_layout(func(*args, **kw))


@function_rule("concatenate", "concat", "stack", "hstack", "vstack", "column_stack", source=(
    "cupy/_core/_routines_manipulation.pyx (v14.2.0) concatenate_method: 'out = "
    "core.ndarray(shape_t, dtype=dtype)' (C order; dtype = numpy.promote_types of the "
    "arrays'), cupy/_manipulation/join.py stack -> concatenate of expand_dims; NumPy's "
    "concatenate picks the inputs' common axis order (two F arrays -> F)"))
def concatenate_results_are_c_contiguous(func, *args, **kw):
    return c_layout(func(*args, **kw))


DIFFERENCES.append(Difference(
    "advanced_indexing_results_are_c_contiguous", "ndarray.__getitem__, take_along_axis", (
        "cupy/_core/_routines_indexing.pyx (v14.2.0) _ndarray_getitem: one index array -> "
        "a.take(s, axis), several -> _getitem_multiple -> _take: 'out = core.ndarray(out_shape, "
        "dtype=a.dtype)' (C order); a mask -> _getitem_mask_single (C); "
        "cupy/_indexing/indexing.py take_along_axis -> a[tuple(fancy_index)]; NumPy's "
        "x[:, [0, 1]] of a (2, 3, 4) array has strides (32, 64, 8)")))


# --- casts: float -> int saturates; float32 -> float64 flushes subnormals ----------

def cuda_cast(a, dt):
    """``a`` (a NumPy array) cast to ``dt`` as CuPy's copy kernel casts it on a GPU."""
    dt = np.dtype(dt)
    if not isinstance(a, np.ndarray):
        return a
    if a.dtype.kind == "f" and dt.kind in "iu":
        info = np.iinfo(dt)
        with np.errstate(invalid="ignore"):
            t = np.trunc(a.astype(np.float64))  # (float16/32/64 values are float64 values)
            nan = np.isnan(t)
            hi = t >= 2.0 ** (info.bits - (dt.kind == "i"))
            lo = t < (-(2.0 ** (info.bits - 1)) if dt.kind == "i" else 0.0)
            safe = np.where(nan | hi | lo, 0.0, t).astype(dt)
        return np.where(hi, dt.type(info.max), np.where(lo, dt.type(info.min), safe)).astype(dt)
    if a.dtype in _FTZ and dt.kind in "fc" and dt.itemsize > a.dtype.itemsize:
        return _flush(a).astype(dt)
    return a.astype(dt)


@method_rule("astype", source=(
    "cupy/_core/core.pyx ndarray._astype -> elementwise_copy (cupy/_core/_ufuncs.py "
    "'cupy_copy', 'out0 = in0', casting 'unsafe'): a C++ conversion, which NVVM compiles to "
    "PTX 'cvt.rzi.<int>.<float>' (PTX ISA, cvt: float-to-integer conversions are clamped to "
    "the destination range, NaN converts to 0): inf -> INT_MAX, -inf -> INT_MIN, NaN -> 0, "
    "-1.0 -> 0 for unsigned (NumPy: INT_MIN, INT_MIN, INT_MIN, 255 on x86); float32 -> "
    "float64 is 'cvt.f64.f32', with .ftz under CuPy's -ftz=true (cupy/cuda/compiler.py "
    "_compile_with_cache_cuda): a float32 subnormal becomes a signed 0"))
def casts_saturate_and_flush(mem, dtype, *args, **kw):
    dt = np.dtype(dtype)
    if (mem.dtype.kind == "f" and dt.kind in "iu") or (mem.dtype in _FTZ and dt.kind in "fc"
                                                         and dt.itemsize > mem.dtype.itemsize):
        r = cuda_cast(mem, dt)
        order = kw.get("order", args[0] if args else "K")
        return np.asarray(r, order="F" if order == "F" or (order in "KA" and mem.flags.fnc) else "C")
    return mem.astype(dtype, *args, **kw)


@function_rule("copyto", source=(
    "cupy/_manipulation/basic.py copyto: elementwise_copy(src, dst) (the cast of "
    "ndarray.astype: float -> int saturates, float32 -> float64 flushes)"))
def copyto_casts_as_astype(func, dst, src, casting="same_kind", where=None):
    if isinstance(src, np.ndarray) and where is None and (
            (src.dtype.kind == "f" and dst.dtype.kind in "iu")
            or (src.dtype in _FTZ and dst.dtype.kind in "fc" and dst.dtype.itemsize > src.dtype.itemsize)):
        if not np.can_cast(src.dtype, dst.dtype, casting):
            return func(dst, src, casting=casting)  # NumPy's TypeError
        return func(dst, cuda_cast(src, dst.dtype), casting="unsafe")
    return func(dst, src, casting=casting, where=True if where is None else where)


# --- DLPack ----------------------------------------------------------------------

DIFFERENCES.append(Difference("dlpack_copy_true_on_the_device_raises", "ndarray.__dlpack__", (
    "cupy/_core/core.pyx ndarray.__dlpack__: 'if dl_device is None or dl_device == "
    "self.__dlpack_device__(): if copy is True: raise BufferError(\"copy=True only "
    "supported for copy to CPU.\")' (NumPy's __dlpack__ copies)")))
DLPACK_COPY_MESSAGE = "copy=True only supported for copy to CPU."


# --- arithmetic ----------------------------------------------------------------

@ufunc_rule("floor_divide", source=(
    "cupy/_core/include/cupy/carray.cuh _floor_divide(float/double): floor(x / y) "
    "(NumPy: Python's divmod, e.g. -1. // inf = -1., 1. // 0.1 = 9.; CuPy -0. and 10.)"))
def floor_divide_is_floor_of_the_quotient(call, x, y):
    r = call(x, y)
    dt = r.dtype
    if dt.kind != "f":
        return r
    if dt == np.float16:
        return _half_floor_divide(x, y)
    return np.floor(np.true_divide(_as(x, dt), _as(y, dt)))


def _half_floor_divide(x, y):
    """floor(float(x) / float(y)) in float32, rounded to half once (float32's quotient)."""
    return np.floor(np.true_divide(_as(x, np.float32), _as(y, np.float32))).astype(np.float16)


DIFFERENCES.append(Difference(
    "float16_floor_divide_and_remainder_run_in_float32", "ufunc:floor_divide, ufunc:remainder", (
    "cupy/_core/include/cupy/float16.cuh class float16: no arithmetic operators of its own "
    "on CUDA, only 'operator float()' and float16(float): carray.cuh _floor_divide has float "
    "and double overloads, so float16 operands run 'floor(x / y)' and _routines_math.pyx "
    "_remainder 'in0 - _floor_divide(in0, in1) * in1' in float32 (an fma), and the result "
    "rounds to half once, on the store (NumPy: npy_divmod in float32 of the halves, then "
    "rounds the quotient; the stand-in used to floor a quotient already rounded to half): "
    "the float16 branches of floor_divide_is_floor_of_the_quotient and "
    "remainder_is_x_minus_floor_quotient_times_y")))


@ufunc_rule("remainder", source=(
    "cupy/_core/_routines_math.pyx _remainder: 'out0 = in0 - _floor_divide(in0, in1) "
    "* in1' (contracted to an fma); probe2.txt: remainder(1., -inf) [nan] (NumPy -inf), "
    "remainder(-0., -1.) [0.] (NumPy -0.); REPORT-cuda.md remainder(x1_i is +0 and "
    "x2_i < 0) -> -0: out=0.0"))
def remainder_is_x_minus_floor_quotient_times_y(call, x, y):
    r = call(x, y)
    dt = r.dtype
    if dt.kind != "f":
        return r
    if dt == np.float16:
        a, b = _as(x, np.float32), _as(y, np.float32)
        q = np.floor(np.true_divide(a, b))
        a, q, b = np.broadcast_arrays(a, q, b)
        return _fms(a, q, b).astype(np.float16)
    a, b = _as(x, dt), _as(y, dt)
    q = np.floor(np.true_divide(a, b))
    a, q, b = np.broadcast_arrays(a, q, b)
    return _fms(a, q, b)


@ufunc_rule("power", source=(
    "cupy/_core/_routines_math.pyx _power_preamble integral_power: 'if (in1 < 0) "
    "{ if (in0 == -1) return (in1 & 1) ? -1 : 1; else return (in0 == 1) ? 1 : 0; }' "
    "(NumPy raises ValueError); probe.txt: cupy int pow neg [0]"))
def integer_power_with_negative_exponent_is_0(call, x, y):
    try:
        return call(x, y)
    except ValueError as e:
        if "negative" not in str(e):
            raise
    r = _fresh(call(x, np.maximum(y, 0)))
    dt = r.dtype
    a, b = _as(x, dt), _as(y, dt)
    neg = b < 0
    odd = (b & 1) == 1
    special = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(dt)
    return np.where(neg, special, r).astype(dt)


def _extremum(call, x, y, keep_neg_zero_if):
    r = call(x, y)
    dt = r.dtype
    if dt.kind == "f":
        r = _fresh(r)
        a, b = np.broadcast_arrays(_as(x, dt), _as(y, dt))
        zz = (a == 0) & (b == 0)
        if zz.any():
            neg = keep_neg_zero_if(np.signbit(a), np.signbit(b))
            r = np.where(zz, np.where(neg, dt.type(-0.0), dt.type(0.0)), r).astype(dt)
        nan = np.isnan(a) | np.isnan(b)
        if nan.any():
            r = np.where(nan, _nan_of(dt), r).astype(dt)
    elif dt.kind == "c":
        a, b = np.broadcast_arrays(_as(x, dt), _as(y, dt))
        nan = np.isnan(a) | np.isnan(b)
        if nan.any():
            r = np.where(nan, _nan_of(dt), r).astype(dt)
    return r


@ufunc_rule("maximum", source=(
    "cupy/_math/misc.py _float_maximum: '(isnan(in0) | isnan(in1)) ? out0_type(NAN) : "
    "max(in0, in1)': CUDA's max gives +0 for (-0, +0) in either order, NumPy the first; "
    "NaN is the canonical NaN, not the input's; cuda-tests-failures.log "
    "test_extremum_with_a_scalar_matches_numpy[*-maximum]: maximum(-0., 0.) signbit False"))
def maximum_of_signed_zeros_is_plus_zero(call, x, y):
    return _extremum(call, x, y, lambda sa, sb: sa & sb)


@ufunc_rule("minimum", source=(
    "cupy/_math/misc.py _float_minimum (as maximum): CUDA's min gives -0 for (+0, -0) "
    "in either order; cuda-tests-failures.log test_extremum_with_a_scalar_matches_numpy"
    "[*-minimum]: minimum(0., -0.) signbit True"))
def minimum_of_signed_zeros_is_minus_zero(call, x, y):
    return _extremum(call, x, y, lambda sa, sb: sa | sb)


@ufunc_rule("fmax", source="cupy/_math/misc.py fmax: 'out0 = fmax(in0, in1)' (CUDA fmax: +0 over -0)")
def fmax_of_signed_zeros_is_plus_zero(call, x, y):
    r = call(x, y)
    if r.dtype.kind != "f":
        return r
    a, b = np.broadcast_arrays(_as(x, r.dtype), _as(y, r.dtype))
    zz = (a == 0) & (b == 0)
    return np.where(zz, np.where(np.signbit(a) & np.signbit(b), r.dtype.type(-0.0),
                                 r.dtype.type(0.0)), r).astype(r.dtype) if zz.any() else r


@ufunc_rule("fmin", source="cupy/_math/misc.py fmin: 'out0 = fmin(in0, in1)' (CUDA fmin: -0 over +0)")
def fmin_of_signed_zeros_is_minus_zero(call, x, y):
    r = call(x, y)
    if r.dtype.kind != "f":
        return r
    a, b = np.broadcast_arrays(_as(x, r.dtype), _as(y, r.dtype))
    zz = (a == 0) & (b == 0)
    return np.where(zz, np.where(np.signbit(a) | np.signbit(b), r.dtype.type(-0.0),
                                 r.dtype.type(0.0)), r).astype(r.dtype) if zz.any() else r


@function_rule("clip", source=(
    "cupy/_core/_routines_math.pyx _clip: 'out0 = in1 > in2 ? in2 : (in0 < in1 ? in1 : "
    "(in0 > in2 ? in2 : in0))' and _ndarray_clip (None -> -inf/inf or the integer "
    "range): a NaN bound is ignored (NumPy: NaN); cuda-tests-failures.log "
    "test_clip_nan_and_broadcast_and_out: clip([1.], nan) gave 1.0; probe.txt clip nan [nan]"))
def clip_ignores_a_nan_bound(func, a, a_min=None, a_max=None, out=None, **kw):
    if kw or not isinstance(a, np.ndarray) or a.dtype.kind not in "iuf":
        return func(a, a_min, a_max, out=out, **kw)
    ref = func(a, a_min, a_max)  # NumPy's dtype, shape and errors
    dt = ref.dtype
    if a.dtype.kind == "f":
        lo = -np.inf if a_min is None else a_min
        hi = np.inf if a_max is None else a_max
    else:
        info = np.iinfo(a.dtype)
        lo = info.min if a_min is None else a_min
        hi = info.max if a_max is None else a_max
    x, lo, hi = _as(a, dt), _as(lo, dt), _as(hi, dt)
    r = np.where(lo > hi, hi, np.where(x < lo, lo, np.where(x > hi, hi, x))).astype(dt)
    r = np.array(np.broadcast_to(r, np.shape(ref)), order="C")  # (a copy: 0-d stays 0-d)
    if out is not None:
        np.copyto(out, r, casting="same_kind")
        return out
    return r


@ufunc_rule("sign", source=(
    "cupy/_math/misc.py (v14.2.0) _complex_sign: 'real_t abs_val = abs(in0); if (abs_val == 0) "
    "out0 = 0; else out0 = in0 / abs_val;' (thrust's complex / real: each part divided): an "
    "infinite part gives inf / inf = NaN (sign(inf+0j) = nan+0j, sign(-inf+1j) = nan+0j), "
    "where NumPy 2's npy_csign gives 1+0j and -1+0j"))
def complex_sign_is_z_over_abs_z(call, z):
    r = call(z)
    dt = np.result_type(r)
    if dt.kind != "c":
        return r
    zz = np.broadcast_to(_as(z, dt), np.shape(r))
    bad = np.isinf(zz.real) | np.isinf(zz.imag)
    if not np.any(bad):
        return r
    with np.errstate(all="ignore"):
        a = np.abs(zz)
        q = np.empty(np.shape(r), dt)
        q.real, q.imag = zz.real / a, zz.imag / a
    return np.where(bad, q, r).astype(dt)


@function_rule("fft.irfft", "fft.irfft2", "fft.irfftn", "fft.hfft", source=(
    "cupy/fft/_fft.py (v14.2.0) _output_dtype: for 'C2R' (irfft, irfftn, hfft) a float16 input "
    "is converted to complex64 (the 'value_type != R2C' branch: 'if dtype in [np.float16, "
    "np.float32]: return np.complex64'), so the real output is float32; NumPy 2 returns "
    "float16 for float16 input"))
def fft_of_float16_to_real_is_float32(func, a, *args, **kw):
    r = func(a, *args, **kw)
    if isinstance(a, np.ndarray) and a.dtype == np.float16 and isinstance(r, np.ndarray):
        return func(a.astype(np.complex64), *args, **kw).astype(np.float32, copy=False)
    return r


@function_rule("linspace", source=(
    "cupy/_creation/ranges.py (v14.2.0) _linspace_scalar (scalar start and stop): 'step = "
    "float(stop - start) / div' (a complex start or stop raises TypeError there) and "
    "_linspace_ufunc 'dd->d': 'out0 = in0 + i * in1', which NVRTC contracts to fma(i, step, "
    "start) (one rounding; NumPy's linspace rounds i * step, then + start); 'ret[-1] = stop' "
    "when endpoint; step == 0 (underflow): 'in0 + i * in1 / in2'; an integer dtype: "
    "floor, then astype"))
def linspace_of_scalars_is_an_fma(func, start, stop, num=50, endpoint=True, retstep=False,
                                  dtype=None, axis=0, **kw):
    if kw or axis != 0 or not (np.isscalar(start) and np.isscalar(stop)):
        return func(start, stop, num, endpoint, retstep, dtype, axis, **kw)
    num = int(num)
    if num < 0:
        raise ValueError("linspace with num<0 is not supported")
    dt = np.result_type(start, stop, float(num))
    div = (num - 1) if endpoint else num
    step = math.nan
    if div <= 0:
        ret = np.full((num,), start, dt)
    else:
        step = float(stop - start) / div  # (TypeError for a complex start or stop)
        i = np.arange(num, dtype=np.float64)
        with np.errstate(all="ignore"):
            if step == 0.0:
                ret = (float(start) + i * float(stop - start) / div).astype(dt)
            else:
                ret = _fma(i, step, float(start)).astype(dt)
        if endpoint:
            ret[-1] = float(stop)
    want = np.dtype(dt if dtype is None else dtype)
    if want.kind in "iu":
        ret = np.floor(ret)
    ret = ret.astype(want, copy=False)
    return (ret, step) if retstep else ret


# --- complex functions: thrust's (FreeBSD msun) special values ------------------
# cupy/_core/include/cupy/complex/*.h. For inputs with a NaN (and, for tanh/tan,
# an infinity) part the branches below are ported; elsewhere NumPy's value stands
# (the same up to ulps, except log1p).

def _cfix(r, z, pick, port):
    """Replace ``r`` where ``pick(z)`` by ``port(x, y)`` (Python floats)."""
    r = _fresh(r)
    if r.dtype.kind != "c":
        return r
    z = np.broadcast_to(_as(z, r.dtype), r.shape)
    if r.ndim == 0:
        if pick(z):
            r[()] = complex(*port(float(z.real), float(z.imag)))
        return r
    idx = np.nonzero(pick(z))
    for i in zip(*idx):
        v = z[i]
        r[i] = complex(*port(float(v.real), float(v.imag)))
    return r


def _has_nan(z):
    return np.isnan(z.real) | np.isnan(z.imag)


def _not_finite(z):
    return ~(np.isfinite(z.real) & np.isfinite(z.imag))


def _log(v):
    with np.errstate(all="ignore"):
        return float(np.log(np.float64(v)))


def _clog_nan(x, y):
    # clog.h clog(): 'if (x != x || y != y) return complex(log(norm(z)), atan2(y, x))'
    return _log(x * x + y * y), math.atan2(y, x)


@ufunc_rule("log", source=(
    "cupy/_core/include/cupy/complex/clog.h clog/clogf: NaN parts give "
    "(log(norm(z)), atan2(y, x)) = NaN + NaN j; C99/NumPy: log(+-inf + NaN j) = "
    "log(NaN + inf j) = +inf + NaN j; REPORT-cuda.md log((real(x_i) is +infinity ...) "
    "and imag(x_i) is NaN) -> +infinity + NaN j: out=(nan+nanj)"))
def complex_log_of_nan_parts_is_nan(call, z):
    return _cfix(call(z), z, _has_nan, _clog_nan)


def _clog_all(z, r_dtype):
    """thrust log of a complex array: NumPy's log with clog's NaN branch."""
    with np.errstate(all="ignore"):
        r = np.log(z).astype(r_dtype)
    return _cfix(r, z, _has_nan, _clog_nan)


@ufunc_rule("log1p", source=(
    "cupy/_core/include/cupy/complex.cuh log1p(complex): 'x += 1; return log(x);' "
    "(no log1p accuracy near 0, and clog's NaN branch); REPORT-cuda.md log1p((real(x_i) "
    "is +infinity ...) and imag(x_i) is NaN) -> +infinity + NaN j: out=(nan+nanj)"))
def complex_log1p_is_log_of_z_plus_1(call, z):
    r = call(z)
    if np.result_type(r).kind != "c":
        return r
    dt = np.result_type(r)
    zz = _as(z, dt)
    w = np.empty(zz.shape, dt)
    w.real = zz.real + dt.type(1).real
    w.imag = zz.imag
    return _clog_all(w, dt)


@ufunc_rule("expm1", source=(
    "cupy/_core/include/cupy/complex.cuh expm1(complex<T>): 'complex<T> y = exp(x); y -= 1; "
    "return y;' (no expm1 accuracy near 0: expm1(1e-20+0j) is 0j, NumPy's 1e-20+0j)"))
def complex_expm1_is_exp_minus_1(call, z):
    r = call(z)
    dt = np.result_type(r)
    if dt.kind != "c":
        return r
    with np.errstate(all="ignore"):
        e = _fresh(np.exp(_as(z, dt)))
        e.real -= dt.type(1).real
    return e


def _log_over(const, name):
    def rule(call, z):
        r = call(z)
        dt = np.result_type(r)
        if dt.kind != "c":
            return r
        zz = _as(z, dt)
        bad = _has_nan(zz)
        if not np.any(bad):
            return r
        w = _clog_all(zz, dt)
        fixed = np.empty(w.shape, dt)
        fixed.real, fixed.imag = w.real / const, w.imag / const
        return np.where(bad, fixed, r).astype(dt)
    rule.__name__ = name
    return rule


complex_log2_is_log_over_ln2 = ufunc_rule("log2", source=(
    "cupy/_core/include/cupy/complex.cuh log2(complex): log(x) / log(T(2)): "
    "clog's NaN branch"))(_log_over(math.log(2.0), "complex_log2_is_log_over_ln2"))
complex_log10_is_log_over_ln10 = ufunc_rule("log10", source=(
    "cupy/_core/include/cupy/complex/clog.h log10: log(z) / 2.30258509299404568402: "
    "clog's NaN branch"))(_log_over(2.30258509299404568402, "complex_log10_is_log_over_ln10"))


def _ctanh(x, y):
    # ctanh.h ctanh()/ctanhf(): the special-value branches
    if math.isnan(x):
        return x, (y if y == 0 else x * y)
    if math.isinf(x):
        s = y if math.isinf(y) else math.sin(y) * math.cos(y)
        return math.copysign(1.0, x), math.copysign(0.0, s)
    # x finite, y inf or NaN: 'if (!isfinite(y)) return complex(y - y, y - y)'
    return y - y, y - y


@ufunc_rule("tanh", source=(
    "cupy/_core/include/cupy/complex/ctanh.h ctanh: 'if (!isfinite(y)) return "
    "complex(y - y, y - y)' for finite x, +0 included (C99: +0 + NaN j); probe2.txt: "
    "tanh(0+infj) [nan+nanj]; REPORT-cuda.md tanh(real(x_i) is +0 and imag(x_i) is "
    "+infinity) -> +0 + NaN j: out=(nan+nanj)"))
def complex_tanh_of_finite_plus_inf_or_nan_j_is_nan(call, z):
    return _cfix(call(z), z, _not_finite, _ctanh)


def _ctan(x, y):
    # ctanh.h ctan(): z = ctanh(-y + x i); return (z.imag, -z.real)
    re, im = _ctanh(-y, x)
    return im, -re


@ufunc_rule("tan", source="cupy/_core/include/cupy/complex/ctanh.h ctan: -i ctanh(i z)")
def complex_tan_is_minus_i_ctanh_of_i_z(call, z):
    return _cfix(call(z), z, _not_finite, _ctan)


_PIO2 = 1.5707963267948966


def _cacos_nan(x, y):
    # catrig.h cacos(): the 'isnan(x) || isnan(y)' branch
    if math.isinf(x):
        return y + y, -math.inf
    if math.isinf(y):
        return x + x, -y
    if x == 0:
        return _PIO2, y + y
    return math.nan, math.nan


def _cacosh_nan(x, y):
    # catrig.h cacosh(): from cacos
    rx, ry = _cacos_nan(x, y)
    if math.isnan(rx) and math.isnan(ry):
        return ry, rx
    if math.isnan(rx):
        return abs(ry), rx
    if math.isnan(ry):
        return ry, ry  # 'cacosh(0 + I*NaN) = NaN + I*NaN'
    return abs(ry), math.copysign(rx, y)


def _casinh_nan(x, y):
    # catrig.h casinh(): the NaN branch
    if math.isinf(x):
        return x, y + y
    if math.isinf(y):
        return y, x + x
    if y == 0:
        return x + x, y
    return math.nan, math.nan


def _catanh_nan(x, y):
    # catrig.h catanh(): the branches before and in the NaN one
    if y == 0 and abs(x) <= 1:
        return math.atanh(x), y
    if x == 0:
        return x, math.atan(y)
    if math.isinf(x):
        return math.copysign(0.0, x), y + y
    if math.isinf(y):
        return math.copysign(0.0, x), math.copysign(_PIO2, y)
    return math.nan, math.nan


def _swap(f):
    def g(x, y):
        re, im = f(y, x)
        return im, re
    return g


@ufunc_rule("arccosh", source=(
    "cupy/_core/include/cupy/complex/catrig.h cacosh/catrigf.h cacoshf: "
    "'cacosh(0 + I*NaN) = NaN + I*NaN' (C99: NaN + pi/2 j); REPORT-cuda.md "
    "acosh(real(x_i) is +0 and imag(x_i) is NaN) -> NaN \u00b1 \u03c0j/2: out=(nan+nanj)"))
def complex_acosh_nan_branches(call, z):
    return _cfix(call(z), z, _has_nan, _cacosh_nan)


@ufunc_rule("arccos", source="cupy/_core/include/cupy/complex/catrig.h cacos: the NaN branch")
def complex_acos_nan_branches(call, z):
    return _cfix(call(z), z, _has_nan, _cacos_nan)


@ufunc_rule("arcsinh", source="cupy/_core/include/cupy/complex/catrig.h casinh: the NaN branch")
def complex_asinh_nan_branches(call, z):
    return _cfix(call(z), z, _has_nan, _casinh_nan)


@ufunc_rule("arcsin", source="cupy/_core/include/cupy/complex/catrig.h casin = reverse(casinh(reverse(z)))")
def complex_asin_nan_branches(call, z):
    return _cfix(call(z), z, _has_nan, _swap(_casinh_nan))


@ufunc_rule("arctanh", source="cupy/_core/include/cupy/complex/catrig.h catanh: the NaN branch")
def complex_atanh_nan_branches(call, z):
    return _cfix(call(z), z, _has_nan, _catanh_nan)


@ufunc_rule("arctan", source="cupy/_core/include/cupy/complex/catrig.h catan = reverse(catanh(reverse(z)))")
def complex_atan_nan_branches(call, z):
    return _cfix(call(z), z, _has_nan, _swap(_catanh_nan))


# --- linalg: no LinAlgError, the factorisation's NaN/inf instead ----------------

# cupyx.errstate(linalg='raise') / cupyx.seterr: CuPy then checks cuSOLVER's devInfo
# and raises LinAlgError (cupy/linalg/_util.py _check_cusolver_dev_info_if_synchronization_allowed,
# cupyx/_ufunc_config.py: the default, 'ignore', is per thread).
_linalg_config = threading.local()


def linalg_errors() -> str:
    return getattr(_linalg_config, "linalg", "ignore")


def set_linalg_errors(mode: str) -> None:
    _linalg_config.linalg = mode


_LAPACK_T = {"f": "s", "d": "d", "F": "c", "D": "z"}


def _routine(a, name):
    """CuPy's name of the routine for ``a``'s dtype: 'dgetrf', 'sgetrfBatched', ..."""
    char = np.result_type(a.dtype, np.float32 if a.dtype.kind not in "fc" else a.dtype).char
    return _LAPACK_T.get(char, "d") + name


def _linalg_error(a, name):
    """CuPy's LinAlgError under cupyx.errstate(linalg='raise'): cupy/linalg/_util.py
    _check_cusolver_dev_info_if_synchronization_allowed (one matrix, cuSOLVER) and
    _check_cublas_info_array_if_synchronization_allowed (a batch, cuBLAS)."""
    if name.endswith("Batched") and not name.startswith("potrf"):
        return np.linalg.LinAlgError(
            f"Error reported by {_routine(a, name)} in cuBLAS. infoArray/devInfoArray = [1]. "
            f"Please refer to the cuBLAS documentation.")
    return np.linalg.LinAlgError(
        f"Error reported by {_routine(a, name)} in cuSOLVER. devInfo = [1]. Please refer to "
        f"the cuSOLVER documentation.")


def _per_matrix(numpy_func, emulate, a, *rest, routine="getrf"):
    """``numpy_func`` on each matrix of the batch; ``emulate`` where NumPy raises
    (or CuPy's LinAlgError under cupyx.errstate(linalg='raise'))."""
    try:
        return numpy_func(a, *rest)
    except np.linalg.LinAlgError:
        if linalg_errors() == "raise":
            raise _linalg_error(a, routine) from None
    if a.ndim == 2:
        return emulate(a, *rest)
    batch = a.shape[:-2]
    outs = [None] * int(np.prod(batch))
    for k, i in enumerate(np.ndindex(*batch)):
        args = [a[i]] + [v[i] for v in rest]
        try:
            outs[k] = numpy_func(*args)
        except np.linalg.LinAlgError:
            outs[k] = emulate(*args)
    return np.stack(outs).reshape(batch + outs[0].shape)


def _getrf_getrs(a, b):
    """LAPACK getrf (partial pivoting; a zero pivot is not divided by, no error)
    then getrs (unit-lower, then upper substitution without zero checks):
    cuSOLVER's answer for a singular matrix (probe.txt: solve(zeros, ones) [nan inf];
    probe2.txt: inv(zeros) [[nan nan] [nan inf]])."""
    dt = np.result_type(a.dtype, b.dtype, np.float64 if a.dtype.kind not in "fc" else a.dtype)
    lu = np.array(a, dtype=dt)
    x = np.array(b, dtype=dt)
    n = lu.shape[0]
    with np.errstate(all="ignore"):
        for j in range(n):
            p = j + int(np.argmax(np.abs(lu[j:, j])))
            if p != j:
                lu[[j, p]] = lu[[p, j]]
                x[[j, p]] = x[[p, j]]
            if lu[j, j] != 0:
                lu[j + 1:, j] /= lu[j, j]
            lu[j + 1:, j + 1:] -= np.outer(lu[j + 1:, j], lu[j, j + 1:])
        for j in range(n):
            x[j + 1:] -= np.outer(lu[j + 1:, j], x[j])
        for j in range(n - 1, -1, -1):
            x[j] /= lu[j, j]
            x[:j] -= np.outer(lu[:j, j], x[j])
    return x


@function_rule("linalg.solve", source=(
    "cupy/linalg/_solve.py solve: getrf + getrs, dev_info checked only under "
    "cupyx.errstate(linalg='raise'); probe.txt: cupy solve singular [nan inf]; "
    "cuda-tests-failures.log test_singular_matrices: DID NOT RAISE LinAlgError"))
def solve_of_a_singular_matrix_is_nan_inf(func, a, b):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        return func(a, b)  # NumPy's LinAlgError, as CuPy's _assert_stacked_2d/_square
    FUNCTIONS["linalg.solve:shapes"](a, b)
    if b.ndim == 1:  # NumPy 2 (and CuPy 14): a 1-d b is one vector
        def emulate(m, v):
            return _getrf_getrs(m, v[:, None])[:, 0]
        # (the vectors as (..., M, 1) matrices: NumPy 2 reads a 2-d b as a matrix)
        return _per_matrix(lambda m, v: func(m, v[..., None])[..., 0], emulate, a,
                           np.broadcast_to(b, a.shape[:-1]), routine=_solve_routine(a))
    return _per_matrix(func, _getrf_getrs, a, b, routine=_solve_routine(a))


def _solve_routine(a):
    # cupy/linalg/_solve.py solve: 'if a.ndim > 2 and a.shape[-1] <= get_batched_gesv_limit()'
    # (256, cupy/cublas.py): cupy.cublas.batched_gesv, cuBLAS getrfBatched/getrsBatched
    return "getrfBatched" if a.ndim > 2 and a.shape[-1] <= 256 else "getrf"


@function_rule("linalg.solve:shapes", source=(
    "cupy/linalg/_solve.py solve: 'b must have at least one dimension'; a b of 2 or more "
    "dimensions needs a.shape[:-1] == b.shape[:-1] ('a must have (..., M, M) shape and b "
    "must have (..., M, K) for multidimensional b'): no broadcasting of the batch axes"))
def solve_broadcasts_no_batch_axes(a, b):
    if b.ndim == 0:
        raise ValueError("b must have at least one dimension")
    if b.ndim == 1:
        if a.shape[-1] != b.size:
            raise ValueError("a must have (..., M, M) shape and b must have (M,) "
                             "for one-dimensional b")
    elif a.shape[:-1] != b.shape[:-1]:
        raise ValueError("a must have (..., M, M) shape and b must have (..., M, K) "
                         "for multidimensional b")


@function_rule("linalg.inv", source=(
    "cupy/linalg/_solve.py inv: no error by default; 'order = 'F' if a._f_contiguous else "
    "'C'' and for C order 'lapack.gesv(a.T, b.T)' (cupyx/lapack.py gesv: getrf + getrs of "
    "the column-major buffer): a C-ordered matrix's transpose is factorised, so a singular "
    "non-symmetric one gives the nan/inf of LU(a.T) (inv([[0, 1], [0, 1]]): [[-inf, inf], "
    "[nan, nan]], not LU(a)'s [[inf, -inf], [0, 1]]); a stack (_batched_inv): a C-order copy "
    "through cuBLAS getrfBatched/getriBatched, also the transpose; probe2.txt: inv(zeros) "
    "[[nan nan] [nan inf]]"))
def inv_of_a_singular_matrix_is_nan_inf(func, a):
    def emulate(m):
        eye = np.eye(m.shape[0], dtype=m.dtype)
        if m.flags.f_contiguous and a.ndim == 2:
            return _getrf_getrs(m, eye)
        return _getrf_getrs(m.T, eye).T
    return _per_matrix(func, emulate, a, routine="getrf" if a.ndim == 2 else "getrfBatched")


def _potrf(a):
    """Cholesky (lower) that goes on past a non-positive pivot: sqrt of a negative
    number is NaN, which spreads to the rest (probe.txt: cholesky [[1,2],[2,1]] ->
    [[1, 0], [2, nan]])."""
    dt = a.dtype if a.dtype.kind in "fc" else np.dtype(np.float64)
    a = np.array(a, dtype=dt)
    n = a.shape[0]
    L = np.zeros_like(a)
    with np.errstate(all="ignore"):
        for j in range(n):
            d = a[j, j] - np.sum(L[j, :j] * np.conj(L[j, :j]))
            L[j, j] = np.sqrt(d.real if dt.kind == "c" else d)
            L[j + 1:, j] = (a[j + 1:, j] - L[j + 1:, :j] @ np.conj(L[j, :j])) / L[j, j]
    return L


@function_rule("linalg.cholesky", source=(
    "cupy/linalg/_decomposition.py cholesky: potrf, dev_info checked only under "
    "cupyx.errstate(linalg='raise'); probe.txt: cupy cholesky non-PD [[1. 0.] [2. nan]]; "
    "cuda-tests-failures.log test_cholesky_not_positive_definite_raises: DID NOT RAISE"))
def cholesky_of_a_non_positive_definite_matrix_has_nan(func, a, *args, **kw):
    if args or kw:
        return func(a, *args, **kw)
    return _per_matrix(func, _potrf, a, routine="potrf" if a.ndim == 2 else "potrfBatched")


def _matrix_f_strides(shape, itemsize):
    """Each (m, k) matrix column-major, the batch axes C-ordered over whole matrices."""
    if 0 in shape:
        return (0,) * len(shape)
    m, k = shape[-2], shape[-1]
    batch = _contiguous_strides(shape[:-2], m * k * itemsize) if len(shape) > 2 else ()
    return batch + (itemsize, m * itemsize)


def _after(key, layout):
    """Apply ``layout(result, *args)`` after the rule (or NumPy's function) of ``key``."""
    inner = FUNCTIONS.get(key)

    def rule(func, *args, **kw):
        r = func(*args, **kw) if inner is None else inner(func, *args, **kw)
        return layout(r, *args, **kw)
    FUNCTIONS[key] = rule


def _solve_layout(r, a, b, *args, **kw):
    if not isinstance(r, np.ndarray) or r.ndim < 2 or b.ndim == 1:
        return c_layout(r)
    if a.ndim == 2 or a.shape[-1] <= 256:
        return with_strides(r, _matrix_f_strides(r.shape, r.itemsize))
    return k_layout(r, b)


DIFFERENCES.append(Difference("linalg_solve_results_are_column_major", "linalg.solve", (
    "cupy/linalg/_solve.py (v14.2.0) solve: one matrix: 'b = b.astype(dtype, copy=True, "
    "order='F'); lapack.gesv(a, b); return b.astype(out_dtype, copy=False)' (an (M, K) b "
    "gives an F-ordered x); a stack with M <= 256: cupy/cublas.py batched_gesv 'return "
    "b.transpose(0, 2, 1).reshape(b_shape)' (each matrix F-ordered); M > 256: "
    "cupy.empty_like(b) (order 'K' of b); NumPy's x is C-ordered")))
_after("linalg.solve", _solve_layout)


def _inv_layout(r, a, *args, **kw):
    if isinstance(r, np.ndarray) and r.ndim == 2 and a.flags.f_contiguous:
        return with_strides(r, _contiguous_strides(r.shape, r.itemsize, False))
    return c_layout(r)


DIFFERENCES.append(Difference("linalg_inv_of_an_f_ordered_matrix_is_f_ordered", "linalg.inv", (
    "cupy/linalg/_solve.py (v14.2.0) inv: 'order = 'F' if a._f_contiguous else 'C''; 'b = "
    "cupy.eye(a.shape[0], dtype=dtype, order=order)'; 'return b.astype(out_dtype, "
    "copy=False)' (a stack: _batched_inv, 'c = cupy.empty_like(a)' of a C copy: C); "
    "NumPy's inverse is C-ordered")))
_after("linalg.inv", _inv_layout)


@function_rule("linalg.eigh", source=(
    "cupy/linalg/_eigenvalue.py (v14.2.0) _syevd: 'v = a.astype(dtype, order='F', copy=...)' "
    "(the eigenvectors overwrite a column-major copy); a stack: cupyx/_cusolver.pyx "
    "_syevj_batched 'v = _cupy.array(a.swapaxes(-2, -1), order='C', ...)' ... 'v = "
    "v.swapaxes(-2, -1).reshape(*batch_shape, m, m)': every matrix of v is column-major; "
    "NumPy's v is C-ordered; 'return w, v': a plain tuple (NumPy: EighResult)"))
def linalg_eigh_eigenvectors_are_column_major(func, a, *args, **kw):
    res = func(a, *args, **kw)
    w, v = res
    if isinstance(v, np.ndarray) and v.ndim >= 2:
        v = with_strides(v, _matrix_f_strides(v.shape, v.itemsize))
    return c_layout(w), v  # (CuPy's eigh returns a plain tuple, not NumPy's EighResult)


@function_rule("linalg.eig", "linalg.eigvals", source=(
    "cupy/linalg/_eigenvalue.py (v14.2.0) _geev: 'complex_dtype = numpy.dtype("
    "input_dtype.char.upper())'; 'w = cupy.empty(a.shape[:-1], dtype=complex_dtype)', 'v = "
    "cupy.empty_like(a, dtype=complex_dtype)' (a real input's eigenvectors assembled as "
    "complex): always complex, a plain tuple; NumPy's eig/eigvals return real arrays when "
    "every eigenvalue is real"))
def linalg_eig_is_always_complex(func, a, *args, **kw):
    r = func(a, *args, **kw)
    cdt = np.result_type(a.dtype if a.dtype.kind in "fc" else np.float64, np.complex64)
    if isinstance(r, np.ndarray):
        return c_layout(r.astype(cdt, copy=False))
    w, v = r
    return c_layout(w.astype(cdt, copy=False)), c_layout(v.astype(cdt, copy=False))


def _placed(r, buf_shape, view):
    """``r``'s values in ``view(buf)``, ``buf`` a fresh C array of ``buf_shape``: the
    strides (and the memory beyond the view) of a factor CuPy returns as a view."""
    buf = np.zeros(buf_shape, r.dtype)
    v = view(buf)
    assert v.shape == r.shape, (v.shape, r.shape)
    v[...] = r
    return v


@function_rule("linalg.qr", source=(
    "cupy/linalg/_decomposition.py (v14.2.0) qr, one matrix (m, n), k = min(m, n): 'x = "
    "a.transpose().astype(dtype, order='C', copy=True)' (n, m); mode 'r': 'x[:, :k]"
    ".transpose()'; otherwise q = cupy.empty((m, m)) ('complete', m > n) or ((n, m)), "
    "'q[:n] = x', orgqr, 'q = q[:mc].transpose(); r = x[:, :mc].transpose()': Q is "
    "F-contiguous, R a transposed slice of x (a tall matrix's R has strides (1, m) items: "
    "neither C nor F); NumPy's are C-contiguous"))
def linalg_qr_factors_are_transposed_views(func, a, mode="reduced", *args, **kw):
    res = func(a, mode, *args, **kw)
    if a.ndim != 2 or 0 in a.shape or mode not in ("reduced", "complete", "r"):
        return res
    m, n = a.shape
    k = min(m, n)
    if mode == "r":
        return _placed(res, (n, m), lambda b: b[:, :k].T)
    q, r = res
    mc = m if mode == "complete" and m > n else k
    q = _placed(q, (m, m) if mc == m and m > n else (n, m), lambda b: b[:mc].T)
    r = _placed(r, (n, m), lambda b: b[:, :mc].T)
    return q, r  # (a plain tuple: 'return (q..., r...)')


@function_rule("linalg.svd", source=(
    "cupy/linalg/_decomposition.py (v14.2.0) svd, one matrix (rows, cols): gesvd of the "
    "C copy x of a (cols >= rows) or of a.T (rows > cols, trans_flag); full_matrices: "
    "'u = cupy.empty((m, m))', 'vt = x[:, :n]'; else 'u = x', 'vt = cupy.empty((k, n))'; "
    "'return u.transpose(), s, vt.transpose()' (trans_flag) or 'return vt, s, u': a tall "
    "matrix's U and Vh are F-ordered (Vh of full_matrices a transposed slice), a wide "
    "matrix's U of full_matrices a slice of x (strides (cols, 1) items); NumPy's are C"))
def linalg_svd_factors_are_views_of_gesvd_buffers(func, a, full_matrices=True, compute_uv=True,
                                                  *args, **kw):
    res = func(a, full_matrices, compute_uv, *args, **kw)
    if a.ndim != 2 or 0 in a.shape or not compute_uv:
        return res
    u, sv, vh = res
    rows, cols = a.shape
    if cols >= rows:  # x = a (rows, cols); U = vt, Vh = u of gesvd
        if full_matrices:
            u = _placed(u, (rows, cols), lambda b: b[:, :rows])
        return u, c_layout(sv), vh
    # trans_flag: x = a.T (cols, rows); U = u.T, Vh = vt.T
    if full_matrices:
        vh = _placed(vh, (cols, rows), lambda b: b[:, :cols].T)
    else:
        vh = with_strides(vh, _contiguous_strides(vh.shape, vh.itemsize, False))
    u = with_strides(u, _contiguous_strides(u.shape, u.itemsize, False))
    return u, c_layout(sv), vh


# --- API: signatures CuPy has differently ------------------------------------

@function_rule("may_share_memory", source=(
    "cupy/_misc/memory_ranges.py may_share_memory: 'raise NotImplementedError("
    "'Only supported for `max_work` is `None`')'; cuda-tests-failures.log "
    "test_numpy_protocols.py::test_metadata_functions"))
def may_share_memory_takes_no_max_work(func, a, b, max_work=None):
    if max_work is not None:
        raise NotImplementedError("Only supported for `max_work` is `None`")
    return func(a, b)


@function_rule("shares_memory", source=(
    "cupy/_misc/memory_ranges.py shares_memory: an integer max_work raises "
    "NotImplementedError('Not supported for integer `max_work`.')"))
def shares_memory_takes_no_integer_max_work(func, a, b, max_work=None):
    if max_work not in (None, "MAY_SHARE_BOUNDS", "MAY_SHARE_EXACT"):
        raise NotImplementedError("Not supported for integer `max_work`.")
    if max_work == "MAY_SHARE_BOUNDS":
        return bool(np.may_share_memory(a, b))
    return func(a, b)


# --- CUDA after fork -------------------------------------------------------------
# A process that has used CUDA (here: made a device array or counted devices)
# and forks gives a child in which every CUDA call fails.

class CUDARuntimeError(RuntimeError):
    """``cupy_backends.cuda.api.runtime.CUDARuntimeError``."""


DIFFERENCES.append(Difference("cuda_fails_in_a_forked_child", "runtime", (
    "cuda-tests-failures.log test_save_faults.py (4 tests): the forked child exits 1 "
    "(cudaErrorInitializationError: CUDA can't be used in a child forked after the "
    "parent initialised it; CUDA Programming Guide, 'fork()')")))
_state = {"used": False, "forked": False}


def _after_fork_in_child():
    if _state["used"]:
        _state["forked"] = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def device_used():
    """Mark CUDA initialised in this process; fail in a child forked after that."""
    if _state["forked"]:
        raise CUDARuntimeError("cudaErrorInitializationError: initialization error")
    _state["used"] = True

