"""Elementwise functions: one registry row per function of the standard.

Each ``Elementwise`` row declares the standard's name, the number of array
inputs, the dtype category, the result-dtype rule, the backend kernel and
its special-case corrections. ``build`` turns a row into the namespace
function (with ``out=``); the loop at the end gives the operators, reflected
operators and in-place operators. Extensions attach derivatives and name
rules to the same rows (keyed by ``row.name``).

Kernels and corrections may differ by the dtype the kernel computes in,
named by kind ("b", "i", "u", "f", "c") or as one dtype: ``kernel={"c": fn}``,
``fix={"f": fn}``, ``fix={float16: fn}``. Which kernel a dtype (pair) uses is
decided once, when the dtype tables are built, so a correction costs nothing
for the dtypes that do not need it.
"""

from __future__ import annotations

import builtins
import contextvars
import functools
import inspect
import math
import struct
import sys
import warnings
import weakref
from dataclasses import dataclass, field

import numpy as np

from .._core import _npcompat, dispatch as _dispatch, dtypes as _dtypes, layout as _layout
from .._core import backends as _backends, threads as _threads
from .._core.device import DeviceMismatchError
from .._core.call import bind as _bind
from .._core.array import _INT_RANGE, _LATE, HOOK, Array, _native
from .._core.dispatch import api, check_out, out_native
from .._core.dtypes import CATEGORIES, PROMOTION
from .._core.pool import MIN_BYTES as _BIG, _Block as _PoolBlock
from .._core.pool import empty as _pool_empty
from .._core.threads import large_c_order as _large_c_order, large_ufunc as _large_any, ufunc_into

# NumPy reports floating-point exceptions (overflow, invalid, divide by zero)
# as RuntimeWarnings attributed to the calling frame, which is ours. The
# standard specifies IEEE results, not warnings; PyTorch does not warn either.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"strided\.")

_ND = np.ndarray  # a CPU native: large results of these come from the buffer pool
_new_array = Array._new

# Without the compiled path (STRIDED_NO_CEXT=1) the functions that call the kernels
# -- each row's impl and into, and the elision's ufunc_into -- run under NumPy's
# "ignore" error state themselves (see _dispatch.quiet); the operators and functions
# around them are left bare, as their temporary elision counts references and frames.
# Compiled, every Fast sets that state around its Python definition instead.
_quiet_leaf = _dispatch.quiet if _dispatch.CHOT is None or _dispatch.ERRSTATE is None else (lambda fn: fn)
ufunc_into = _quiet_leaf(ufunc_into)
_unary_into = _quiet_leaf(_threads.unary_into)
# From how many result bytes exp(x, out=y) and its kin take the loop exp(x) takes (the checks
# cost ~1 us: below this NumPy's own call is as fast)
_INTO_LOOP_FROM = 16384
_PYSCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


_ORDERS: dict = {}  # the operands' (shape, strides, itemsize)s -> backends._order_of's answer


def large_ufunc(k, args: tuple, np_dtype):
    """``k(*args)`` for a large result: a pooled buffer and threads (strided._core.threads),
    laid out as NumPy's own call lays it out (``layout.elementwise_order``), as a smaller
    result is: the layout never depends on the size.

    Operands that are all C-contiguous give a row-major result on the pool's threads
    (``threads.large_c_order``). Otherwise the operands are transposed so that NumPy's
    order for them is row-major, the kernel writes a row-major pooled buffer (on the
    threads when the moved operands are C-contiguous: ``a - m`` of a transposed ``a``),
    and the result is transposed back.

    Without this, a permuted operand (``moveaxis``, ``.T``: SciPy's ``stats`` move
    the reduced axis last) left the result to NumPy's own allocator, whose fresh
    multi-MB buffers are faulted in again on every call.
    """
    # Note: this path once laid the result out in the axis order of the first largest
    # operand, so ``a.T + b`` (400x400 float64) was column-major where NumPy's, and
    # strided's own below 256 KiB, is row-major (operands that disagree: row-major wins).
    r = _large_c_order(k, args, np_dtype)
    if r is not None:
        return r
    key = tuple([(x.shape, x.strides, x.itemsize) for x in args if type(x) is _ND])
    o = _ORDERS.get(key, False)
    if o is False:  # (the rule costs ~5 us in Python, 5% of a 400x400 a.T + b.T)
        o = _backends._order_of(args, _ND)
        if len(_ORDERS) >= 1024:
            _ORDERS.clear()
        _ORDERS[key] = o
    if o is None:  # NumPy's order is row-major (or the shapes don't broadcast)
        r = _row_major_into(k, args, np_dtype)
        return k(*args) if r is None else r
    nd, perm = o
    moved = tuple(x.reshape((1,) * (nd - x.ndim) + x.shape).transpose(perm)
                  if type(x) is _ND and x.ndim else x for x in args)
    r = _large_c_order(k, moved, np_dtype)
    if r is None:
        r = _row_major_into(k, moved, np_dtype)
        if r is None:
            return k(*args)  # (NumPy's own call: NumPy's layout, by construction)
    return r.transpose(_layout.inverse_order(perm))


def _row_major_into(k, args: tuple, np_dtype):
    """``k(*args)`` into a row-major pooled buffer of ``np_dtype`` (operands that are not
    all C-contiguous: one call of NumPy's loop, no threads); None where the shapes don't
    broadcast or the kernel's dtype does not cast to ``np_dtype`` (the caller then makes
    NumPy's own call, which reports the first and handles the second)."""
    try:
        shape = np.broadcast_shapes(*[x.shape for x in args if type(x) is _ND])
    except ValueError:
        return None
    buf = _pool_empty(shape, np_dtype, _layout.prod(shape) * np_dtype.itemsize)
    try:
        k(*args, out=buf)
    except TypeError:
        return None
    return buf


def _numpy_scalar(v):
    """The Python scalar held by a NumPy scalar (``np.float64(2.0)`` -> 2.0) or by a
    subclass of a Python scalar type, else None."""
    # Note: as in PyTorch, a NumPy scalar operand acts as the Python scalar it holds
    # (a "weak" scalar: float32 array * np.float64 stays float32; NumPy 2 would upcast).
    # Library code hands them over often (SciPy's scipy.integrate.tanhsinh does).
    if isinstance(v, np.generic) and v.dtype.kind in "biufc":
        return v.item()
    for t in (builtins.int, builtins.float, builtins.complex):
        if isinstance(v, t):  # a subclass: ``x.size`` (an int), an IntEnum, ...
            return t(v)
    return None


class _Kernels(dict):
    """Device -> kernel for one (row, compute dtype); resolved on first use.

    ``direct``: the kernel is a plain backend ufunc, so ``out=`` can be passed
    straight through to it. ``out_form``: for a kernel written in Python, its
    ``out_form(xp, a, b)`` (or None): the plain ufunc and operands that compute the
    same bits for these operands, written into ``out=`` (``x **= 2``: ``square(x,
    out=x)``), or None where it has none.
    """

    __slots__ = ("row", "dtype", "direct", "out_form")

    def __init__(self, row, dtype):
        super().__init__()
        self.row = row
        self.dtype = dtype
        kern = _for_dtype(row.kernel, dtype)
        self.direct = isinstance(kern or row.name, str) and _for_dtype(row.fix, dtype) is None
        self.out_form = None if self.direct or _for_dtype(row.fix, dtype) is not None \
            else getattr(kern, "out_form", None)

    def __missing__(self, device):
        k = self[device] = self.row.resolve(device, self.dtype)
        return k


def _for_dtype(table, dtype):
    """The entry of a ``{kinds or DType: value}`` table that covers ``dtype`` (or a plain value).

    A DType key names that dtype alone; a string key lists dtype kinds ("iu", "f", "c").
    """
    if not isinstance(table, dict):
        return table
    for key, v in table.items():
        if key is dtype or (type(key) is str and dtype.kind in key):
            return v
    return None


@dataclass(eq=False)
class Elementwise:
    """One elementwise function of the standard."""

    name: str
    nargs: int
    category: str  # the standard's words, e.g. "real floating-point"
    result: str = "promote"  # promote | bool | real | float
    # backend function name, fn(xp, *natives) -> native, or {kinds or DType: either}
    # (dtypes not covered use the backend function named like the row)
    kernel: object = None
    # {kinds or DType: fn(xp, result, *natives) -> native}: special-case corrections
    fix: dict | None = None
    dunder: str | None = None  # "add" gives __add__, __radd__ and __iadd__
    method_float: bool = False  # methods promote integer inputs to the default float (PyTorch)
    aliases: tuple = ()  # PyTorch names for methods (and in-place methods)
    doc: str = ""
    # PyTorch's keywords beyond the standard's (declared to the binding stage,
    # _core/call/bind.py): ("alpha",) for add/subtract; methods take them too
    torch: tuple = ()
    # NumPy's name of the ufunc, where it differs from the standard's (np.arccos is acos):
    # the backends' kernel name (backends.RENAMES) and the NumPy protocol's ufunc table
    # (_numpy/protocols.py) are built from it
    numpy: str | None = None
    # NumPy's inner loop runs per chunk on the C thread pool for large float inputs
    # (_core/threads.py's loop ufuncs are built from this; the C side's op table is
    # _ckernels.c's, kept apart)
    threaded: bool = False
    # PyTorch's keyword parameters of a parametric activation, ((name, default), ...) in
    # PyTorch's order (``leaky_relu``: (("negative_slope", 0.01),)), and ``check(*values)
    # -> values`` (their types and ranges). Bound by the binding stage (_core/call/bind.py,
    # ``Params``); the kernel, the handlers and the derivative rule get them positionally
    # between the array and ``out``: ``(x, *params, out)``.
    params: tuple = ()
    check: object = None
    # A binary row that refuses a bool operand even beside a numeric one (elsewhere a bool
    # mixes in, as in PyTorch: bool * int8 -> int8): the hint its error gives. PyTorch's
    # subtract refuses bool tensors and scalars ("use ~ or logical_not() ...").
    no_bool: str | None = None
    # filled by _build_tables: dtype (pair) -> (result dtype, cast-to numpy dtype, _Kernels)
    # Keyed by the dtypes' ``_index`` (ints hash in C; a DType's hash is NumPy's, in Python).
    types: dict = field(default_factory=dict, repr=False)
    stypes: dict = field(default_factory=dict, repr=False)
    # ``types`` of a binary row as a list of lists, ``pairs[i][j]``: the hot path's lookup
    # (two list indexings, no key tuple to build and hash). Refilled in place.
    pairs: list = field(default_factory=list, repr=False)
    # The same for the compiled hot path (strided/_csrc/_chot.c): ``upairs[i]`` is ``types[i]``
    # of a unary row; ``spairs[i][c]`` the entry for a dtype and a Python scalar of
    # ``_PYSCALARS[c]``. Refilled in place, as ``pairs``.
    upairs: list = field(default_factory=list, repr=False)
    spairs: list = field(default_factory=list, repr=False)
    kcache: dict = field(default_factory=dict, repr=False)  # compute dtype -> _Kernels
    func: object = None
    direct: bool = False  # plain backend ufuncs for every dtype: out= passes straight through

    def kernels(self, dtype) -> _Kernels:
        k = self.kcache.get(dtype)
        if k is None:
            k = self.kcache[dtype] = _Kernels(self, dtype)
        return k

    def resolve(self, device, dtype):
        """The kernel for ``device`` computing in ``dtype``, with its corrections."""
        backend = device.backend
        xp = backend.xp
        kern = _for_dtype(self.kernel, dtype) or self.name
        base = backend.kernel(kern, dtype.kind) if isinstance(kern, str) else functools.partial(kern, xp)
        fix = _for_dtype(self.fix, dtype)
        if fix is None:
            # (a device whose kernels give row-major results gets NumPy's layout through
            # keep_order; the host's backend returns the kernel itself)
            return backend.keep_order(base)
        res_np = _result_dtype(self, dtype)._np
        pooled = isinstance(kern, str) and backend.ndarray is _ND

        def fixed(*args):
            if pooled and any(type(a) is _ND and a.nbytes >= _BIG[0] for a in args):
                return fix(xp, large_ufunc(base, args, res_np), *args)  # pooled buffer, threads
            return fix(xp, xp.asarray(base(*args)), *args)
        guard = getattr(fix, "_loop_guard", None)
        if pooled and guard is not None and type(base) is np.ufunc:
            # The compiled path runs NumPy's loop itself on the operands the fix's guard
            # proves it leaves alone, and calls this function on any other (_chot/loops.c,
            # guard_ok).
            fixed._loop_ufunc = base
            fixed._loop_guard = guard
        return backend.keep_order(fixed)


def _result_dtype(row: Elementwise, cd):
    rule = row.result
    if rule == "bool":
        return _dtypes.bool
    if rule == "real":
        return _dtypes.real_of(cd)
    return cd


def _compute_dtype(row: Elementwise, d):
    if row.result == "float" and d.kind in "biu":
        return _dtypes.get_default_dtype()
    return d


def _entry(row, cd, cast):
    return (_result_dtype(row, cd), cast, row.kernels(cd))


def _bool_loop(row: Elementwise, nargs: int) -> bool:
    """Whether the row's NumPy ufunc has a loop of bool operands to a bool result."""
    u = getattr(np, row.numpy or row.name, None)
    return type(u) is np.ufunc and "?" * nargs + "->?" in u.types


def _build_tables(row: Elementwise) -> None:
    allowed = CATEGORIES[row.category]
    row.types.clear()
    row.stypes.clear()
    n = 1 + max(d._index for d in _dtypes.ALL_DTYPES)
    if row.nargs == 1:
        for d in allowed:
            cd = _compute_dtype(row, d)
            row.types[d._index] = _entry(row, cd, None if cd is d else cd._np)
        b = _dtypes.bool
        if row.result == "bool" and b not in allowed:
            # A float property of a bool array (isnan, isinf, isfinite, signbit): PyTorch's
            # answer, by NumPy's bool loop where it has one, else of the default float dtype.
            cd = b if _bool_loop(row, 1) else _dtypes.get_default_dtype()
            row.types[b._index] = _entry(row, cd, None if cd is b else cd._np)
        row.upairs[:] = [row.types.get(i) for i in range(n)]
        return
    for da in allowed:
        for db in allowed:
            cd = _compute_dtype(row, PROMOTION[da, db])
            if cd not in allowed and row.result != "float":
                continue  # e.g. uint64 with int64 has no common integer dtype
            nd = np.result_type(da._np, db._np)
            row.types[da._index, db._index] = _entry(row, cd, None if nd == cd._np else cd._np)
        for t in _PYSCALARS:
            sd = _dtypes.scalar_result(da, t(0))
            if sd not in allowed and t is not builtins.bool:
                continue
            if t is builtins.bool and row.no_bool is not None:
                continue
            cd = _compute_dtype(row, sd)
            row.stypes[da._index, t] = _entry(row, cd, None if cd is da else cd._np)
    if _dtypes.bool not in allowed and row.no_bool is None:
        # Note: like PyTorch, a bool array mixes with a numeric one (bool * int8 -> int8).
        b = _dtypes.bool
        for d in allowed:
            cd = _compute_dtype(row, d)
            row.types[b._index, d._index] = row.types[d._index, b._index] = _entry(
                row, cd, None if cd is d else cd._np)
        # Two bool operands compute in bool where NumPy's ufunc has a bool loop (add: or,
        # multiply: and, maximum, minimum, the comparisons), which are the ops PyTorch's
        # kernels take two bool tensors in; the others refuse them, as PyTorch's do.
        pair = _bool_loop(row, 2)
        if pair:
            row.types[b._index, b._index] = _entry(row, b, None)
        elif row.result == "float":  # (divide: in the default float dtype, as an int pair)
            cd = _compute_dtype(row, b)
            row.types[b._index, b._index] = _entry(row, cd, cd._np)
        # A bool array with a Python scalar: PyTorch's dtype (``mask * 1.5`` float32, ``mask + 2``
        # int64, ``mask < 2`` bool), the array cast to it before NumPy's loop.
        for t in _PYSCALARS:
            sd = _dtypes.scalar_result(b, t(0))
            if (sd is b and not pair and row.result != "float") or (sd is not b and sd not in allowed):
                continue
            cd = _compute_dtype(row, sd)
            row.stypes[b._index, t] = _entry(row, cd, None if cd is b else cd._np)
    row.pairs[:] = [[row.types.get((i, j)) for j in range(n)] for i in range(n)]
    row.spairs[:] = [[row.stypes.get((i, t)) for t in _PYSCALARS] for i in range(n)]


def _type_error(row, *dts):
    allowed = CATEGORIES[row.category]
    if len(dts) == 2 and all(d in allowed for d in dts):
        return _dtypes.DTypeError(f"{row.name}(): {dts[0].name} and {dts[1].name} have no common "
                         f"{row.category} data type; cast one of them with astype()")
    names = ", ".join(d.name if isinstance(d, _dtypes.DType) else type(d).__name__ for d in dts)
    hint = ""
    if row.no_bool is not None and any(d is _dtypes.bool or d is True or d is False for d in dts):
        hint = f" ({row.no_bool})"
    return _dtypes.DTypeError(f"{row.name}() accepts only {row.category} data types; got {names}{hint}")


def _broadcast_error(name, s1, s2, exc):
    """Our ValueError naming both shapes, or ``exc`` when they do broadcast."""
    try:
        _layout.broadcast_shapes(tuple(s1), tuple(s2))
    except ValueError:
        return _layout.ShapeError(f"{name}(): operands of shapes {tuple(s1)} and {tuple(s2)} "
                          f"cannot be broadcast together")
    return exc


def _wrap_result(r, res, dev):
    if not r.shape and type(r) is not dev.backend.ndarray:
        r = dev.backend.xp.asarray(r)
    if r.dtype is not res._np:
        r = r.astype(res._np)
    return Array._new(r, None, 0, r.shape, None, res, dev)


_getrefcount = sys.getrefcount


def _nat(x: Array):
    r = x._np
    if r is None:
        r = x._get_native()  # (cached unless the view overlaps itself: _layout.OVERLAP_SEEN)
    return r


def _finish(name, r, res, dev, out):
    if out is None:
        return _wrap_result(r, res, dev)
    if not r.shape and type(r) is not dev.backend.ndarray:
        r = dev.backend.xp.asarray(r)
    check_out(name, out, r.shape, res, dev)
    out_native(out, f"{name}()")[...] = r
    return out


def _shape_of(v):
    return v.shape if hasattr(v, "shape") else ()


def _broadcasts_to(s: tuple, shape: tuple) -> bool:
    """Whether an operand of shape ``s`` broadcasts to ``shape`` leaving it as it is
    (every axis of ``s``, aligned from the right, is 1 or ``shape``'s)."""
    k = len(shape) - len(s)
    if k < 0:
        return False
    for i, n in enumerate(s):
        if n != 1 and n != shape[k + i]:
            return False
    return True


_CALL_NAMES: dict = {}  # name -> "name()" for error messages, built once


def _write_direct(name, k, args, res, dev, out):
    """``out=`` for a plain ufunc kernel: the kernel writes straight into ``out``'s
    memory (no temporary); NumPy handles overlap between ``out`` and the inputs."""
    shape = out._shape if type(out) is Array else None
    for a in args:  # operands of out's shape (in place: x.add_(y)) need no broadcast
        if type(a) not in _PYSCALARS and a.shape != shape:
            shape = _layout.broadcast_shapes(*(_shape_of(a) for a in args))
            break
    if type(out) is not Array or shape is not out._shape or res is not out._dtype \
            or out._device is not dev or out._ext is not None:
        check_out(name, out, shape, res, dev)  # (else: out's own shape, dtype and device)
    call = _CALL_NAMES.get(name)
    if call is None:
        call = _CALL_NAMES[name] = f"{name}()"
    if res is not out._dtype:
        # PyTorch's rule, checked above (same_kind_castable: ``uint8 += int32`` computes in
        # int32 and wraps into uint8); NumPy's ufunc would refuse a cast across signedness.
        k(*args, out=out_native(out, call), casting="unsafe")
    else:
        k(*args, out=out_native(out, call))
    return out


def _make_binary(row: Elementwise):
    pairs, stypes, name = row.pairs, row.stypes, row.name
    SCALARS = _PYSCALARS

    def impl(x1, x2, out):
        t1, t2 = type(x1), type(x2)
        if t1 is Array:
            if t2 is Array:
                dev = x1._device
                if dev is not x2._device:
                    raise DeviceMismatchError(f"{name}(): arrays are on different devices, {dev} and {x2._device}")
                ent = pairs[x1._dtype._index][x2._dtype._index]
                if ent is None:
                    raise _type_error(row, x1._dtype, x2._dtype)
                res, cast, kc = ent
                a = x1._np
                if a is None:
                    a = _nat(x1)
                b = x2._np
                if b is None:
                    b = _nat(x2)
                if cast is not None:
                    if a.dtype is not cast:
                        a = a.astype(cast)
                    if b.dtype is not cast:
                        b = b.astype(cast)
            elif t2 in SCALARS:
                dev = x1._device
                ent = stypes.get((x1._dtype._index, t2))
                if ent is None:
                    raise _type_error(row, x1._dtype, x2)
                res, cast, kc = ent
                a = x1._np
                if a is None:
                    a = _nat(x1)
                if cast is not None:
                    a = a.astype(cast)
                b = x2
            else:
                s2 = _numpy_scalar(x2)
                if s2 is not None:
                    return impl(x1, s2, out)
                raise TypeError(f"{name}(): unsupported operand type {t2.__name__}; "
                                f"expected an array or a Python scalar")
        elif t2 is Array and t1 in SCALARS:
            dev = x2._device
            ent = stypes.get((x2._dtype._index, t1))
            if ent is None:
                raise _type_error(row, x1, x2._dtype)
            res, cast, kc = ent
            b = x2._np
            if b is None:
                b = _nat(x2)
            if cast is not None:
                b = b.astype(cast)
            a = x1
        elif t1 in SCALARS and t2 in SCALARS:
            raise TypeError(f"{name}(): at least one argument must be an array; got two Python scalars")
        elif t2 is Array and _numpy_scalar(x1) is not None:
            return impl(_numpy_scalar(x1), x2, out)
        else:
            bad = t1 if t1 is not Array and t1 not in SCALARS else t2
            raise TypeError(f"{name}(): unsupported operand type {bad.__name__}; "
                            f"expected an array or a Python scalar")
        try:
            if out is not None:
                if kc.direct:
                    return _write_direct(name, kc[dev], (a, b), res, dev, out)
                if kc.out_form is not None and cast is None:
                    form = kc.out_form(dev.backend.xp, a, b)
                    if form is not None:  # (see into)
                        return _write_direct(name, form[0], form[1], res, dev, out)
            if kc.direct and ((type(a) is _ND and a.nbytes >= _BIG[0])
                              or (type(b) is _ND and b.nbytes >= _BIG[0])):
                r = large_ufunc(kc[dev], (a, b), res._np)  # pooled buffer, threads
            else:
                r = kc[dev](a, b)
        except ValueError as e:
            raise _broadcast_error(name, np.shape(a), np.shape(b), e) from None
        if out is None:
            if r.dtype is res._np and r.shape:
                # (the one wrapper per call: Array._new is C when compiled, no frame)
                return Array._new(r, None, 0, r.shape, None, res, dev)
            return _wrap_result(r, res, dev)
        return _finish(name, r, res, dev, out)

    # Note: every binary row's function has ``alpha`` (default 1: an identity test per
    # call, no extra frame); only the rows that declare it (``torch=("alpha",)``) show and
    # accept it, the others refuse it as an unexpected keyword.
    def func(x1, x2, /, *, alpha=1, out=None):
        if alpha is not _ONE:
            x2 = _alpha_operand(row, entry, x1, x2, alpha)
        if (type(x1) is Array and x1._ext is not None) or (type(x2) is Array and x2._ext is not None) \
                or (out is not None and type(out) is Array and out._ext is not None):
            hook = HOOK[0]
            if hook is not None:
                return hook(name, kimpl, (x1, x2, out), {})
        elif out is None:
            # A temporary argument (``add(multiply(a, b), c)``) that this frame's parameter
            # alone holds (_TEMP_REFS_FUNC: the interpreter moved its stack's reference in).
            if type(x1) is Array and x1._st is None and _getrefcount(x1) == _TEMP_REFS_FUNC:
                r = _elide(impl, entry, x1, x2, x1)
                if r is not None:
                    return r
            elif type(x2) is Array and x2._st is None and _getrefcount(x2) == _TEMP_REFS_FUNC:
                r = _elide(impl, entry, x1, x2, x2)
                if r is not None:
                    return r
        elif type(out) is Array and type(x1) is Array:  # add(a, b, out=c), a += b
            return into(x1, x2, out)
        return impl(x1, x2, out)

    def entry(x1, x2):
        """The (result dtype, cast, kernels) row entry for arrays/scalars x1, x2, or None."""
        if type(x1) is Array:
            if type(x2) is Array:
                return pairs[x1._dtype._index][x2._dtype._index]
            return stypes.get((x1._dtype._index, type(x2)))
        return stypes.get((x2._dtype._index, type(x1)))

    call_name = f"{name}()"

    def into(x1, x2, out):
        """``x1`` (an array) op ``x2`` written into ``out``, none with an extension: when the
        result has ``out``'s dtype and both operands ``out``'s shape and device (or ``x2``
        is a Python scalar), one kernel call writes into ``out``'s memory; anything else
        takes ``impl``'s general out= path (checks, broadcasting, casts)."""
        t2 = type(x2)
        if t2 is Array:
            ent = pairs[x1._dtype._index][x2._dtype._index]
            s2 = x2._shape
            # (``X *= row``, ``X -= mean``: an operand that broadcasts to out's shape
            # without changing it; NumPy's ufunc broadcasts it into ``out=`` itself)
            ok = x2._device is out._device and (s2 == out._shape or _broadcasts_to(s2, out._shape))
        else:
            ent = stypes.get((x1._dtype._index, t2))
            ok = True
        if ok and ent is not None and x1._device is out._device and x1._shape == out._shape:
            res, cast, kc = ent
            if res is out._dtype and cast is None and kc.direct:
                r = out_native(out, call_name)  # refuses self-overlap, bumps the version
                a = x1._np
                if a is None:
                    a = _nat(x1)
                if t2 is Array:
                    b = x2._np
                    if b is None:
                        b = _nat(x2)
                else:
                    b = x2
                kc[out._device](a, b, out=r)  # NumPy and CuPy resolve operand/out overlap
                return out
            if res is out._dtype and cast is None and kc.out_form is not None:
                # A kernel written in Python whose result for these operands is one plain
                # ufunc's (``X **= 2``: square): written into out's memory as above, not
                # computed apart and copied in (5000x200 float64: one pass instead of two).
                dev = out._device
                a = x1._np
                if a is None:
                    a = _nat(x1)
                b = x2 if t2 is not Array else (x2._np if x2._np is not None else _nat(x2))
                form = kc.out_form(dev.backend.xp, a, b)
                if form is not None:
                    form[0](*form[1], out=out_native(out, call_name))
                    return out
        impl(x1, x2, out)
        return out

    impl = _quiet_leaf(impl)
    into = _quiet_leaf(into)
    kimpl = _kernel_path(impl, row)
    func._impl = impl
    func._kimpl = kimpl
    func._entry = entry
    func._into = into
    return func


def _kernel_path(impl, row: Elementwise):
    """``impl`` as the handlers call it (``hook(name, impl, args, {})``: the autograd recorder
    and the names handler run ``impl(x, None)`` / ``impl(x1, x2, None)``) behind the compiled
    small-array case (_csrc/_chot/fast.c, ``Fast(..., kernel=True)``: the row's kernel path,
    which reads no operand's extension); ``impl`` itself without the extension."""
    chot = _dispatch.CHOT
    if chot is None or _dispatch.ERRSTATE is None:
        return impl
    if row.nargs == 1:
        return chot.Fast(impl, 1, row.upairs, name=row.name, kernel=True)
    return chot.Fast(impl, 2, row.pairs, row.spairs, name=row.name, kernel=True)


_ONE = 1  # (the int 1 is one object in CPython: ``alpha is not _ONE`` is the default's test)


def _alpha_operand(row: Elementwise, entry, x1, x2, alpha):
    """``x2 * alpha`` in the compute dtype of ``row(x1, x2)`` (PyTorch's ``add(input, other,
    alpha=)``: torch/_refs ``add`` scales ``other`` after type promotion), or ``x2`` when
    the operands have no common dtype (the operation reports that). ``alpha`` is checked
    against the result's dtype as PyTorch's ``alpha_check`` does (aten/src/ATen/native/
    BinaryOps.h): a bool only for a bool result, a float not for an integral one, a complex
    only for a complex one."""
    name = row.name
    if "alpha" not in row.torch:
        raise TypeError(f"{name}() got an unexpected keyword argument 'alpha'")
    ta = type(alpha)
    if type(x1) is not Array and type(x2) is not Array:
        return x2  # (the operation reports the operands)
    ent = entry(x1, x2) if (type(x1) is Array or type(x1) in _PYSCALARS) and (
        type(x2) is Array or type(x2) in _PYSCALARS) else None
    if ent is None:
        return x2
    res = ent[0]
    if isinstance(alpha, Array) or not isinstance(alpha, _PYSCALARS + (np.number, np.bool_)):
        raise TypeError(f"{name}(): alpha must be a Python number; got {ta.__name__}")
    if isinstance(alpha, (builtins.bool, np.bool_)):
        if res.kind != "b":
            raise TypeError(f"{name}(): boolean alpha only supported for boolean results "
                            f"(the result is {res.name}); got {alpha!r}")
    elif isinstance(alpha, (builtins.complex, np.complexfloating)):
        if res.kind != "c":
            raise _dtypes.CastError(f"{name}(): for non-complex input tensors, argument alpha must not be "
                            f"a complex number (the result is {res.name}); got {alpha!r}")
    elif isinstance(alpha, (builtins.float, np.floating)) and res.kind in "biu":
        raise _dtypes.CastError(f"{name}(): for integral input tensors, argument alpha must not be a "
                        f"floating point number: alpha must be an integer for integer arrays "
                        f"(the result is {res.name}); got {alpha!r}")
    if res.kind == "b":
        alpha = builtins.bool(alpha)  # (an int alpha of a bool result: PyTorch casts it)
    if type(x2) is Array:
        if x2._dtype is not res:
            x2 = _LATE["astype"](x2, res)
        return FUNCTIONS["multiply"](x2, alpha)
    return x2 * alpha  # a Python scalar: weak, as the result (and PyTorch's) is


def _onto_itself(x: Array, out: Array) -> bool:
    """``out`` is ``x``'s own memory, element for element (the same Storage, offset, shape
    and strides, or the same array)."""
    if out is x:
        return True
    st = x._st
    return st is not None and st is out._st and x._off == out._off and x._shape == out._shape \
        and x._str == out._str


def _make_unary(row: Elementwise):
    types, name = row.types, row.name

    def impl(x, out):
        if type(x) is not Array:
            raise TypeError(f"{name}(): expected an array; got {type(x).__name__}")
        ent = types.get(x._dtype._index)
        if ent is None:
            raise _type_error(row, x._dtype)
        res, cast, kc = ent
        dev = x._device
        a = x._np
        if a is None:
            a = _nat(x)
        if cast is not None:
            a = a.astype(cast)
        if out is not None and kc.direct:
            return _write_direct(name, kc[dev], (a,), res, dev, out)
        if out is not None and cast is None and res is out._dtype and _onto_itself(x, out) \
                and getattr(kc[dev], "func", None) is _copy:
            # round(x, out=x) of integers, x.floor_(), x.positive(out=x): the value is out's own
            # (NumPy's copy of an array onto itself is nothing, too); the writer's checks and
            # version bump, nothing written
            check_out(name, out, x._shape, res, dev)
            out_native(out, call_name)
            return out
        if kc.direct and type(a) is _ND and a.nbytes >= _BIG[0]:
            r = large_ufunc(kc[dev], (a,), res._np)  # pooled buffer, threads
        else:
            r = kc[dev](a)
        if out is None:
            if r.dtype is res._np and r.shape:
                return Array._new(r, None, 0, r.shape, None, res, dev)
            return _wrap_result(r, res, dev)
        return _finish(name, r, res, dev, out)

    call_name = f"{name}()"

    def func(x, /, *, out=None):
        if (type(x) is Array and x._ext is not None) or (
                out is not None and type(out) is Array and out._ext is not None):
            hook = HOOK[0]
            if hook is not None:
                return hook(name, kimpl, (x, out), {})
        elif type(out) is Array and type(x) is Array and x._shape == out._shape \
                and x._device is out._device:
            # exp(x, out=y) with no extension: one kernel call into y's memory when the
            # result has y's dtype (else the general out= path: checks and casts)
            ent = types.get(x._dtype._index)
            if ent is not None:
                res, cast, kc = ent
                if res is out._dtype and cast is None and kc.direct:
                    r = out_native(out, call_name)
                    a = x._np
                    if a is None:
                        a = _nat(x)
                    k = kc[out._device]
                    if r.nbytes >= _INTO_LOOP_FROM:
                        _unary_into(k, a, r)  # (the loop exp(x) runs: strided's own, threads)
                    else:
                        k(a, out=r)
                    return out
        return impl(x, out)

    kimpl = _kernel_path(impl, row)
    func._impl = impl
    func._kimpl = kimpl
    return _quiet_leaf(func)  # (no elision to count references for: the whole function)


def _make_unary_params(row: Elementwise):
    """A unary row with keyword parameters (``row.params``): ``impl(x, *params, out)``,
    also called ``impl(x, out)`` (the defaults: the methods' straight path)."""
    types, name = row.types, row.name
    P = _bind.Params(name, row.params, row.check)
    bind = P.bind
    defaults = bind((), {})

    def impl(x, *rest):
        out = rest[-1] if rest else None
        params = rest[:-1] if len(rest) > 1 else defaults
        if type(x) is not Array:
            raise TypeError(f"{name}(): expected an array; got {type(x).__name__}")
        ent = types.get(x._dtype._index)
        if ent is None:
            raise _type_error(row, x._dtype)
        res, cast, kc = ent
        dev = x._device
        a = _nat(x)
        if cast is not None:
            a = a.astype(cast)
        r = kc[dev](a, *params)
        if out is None:
            return _wrap_result(r, res, dev)
        return _finish(name, r, res, dev, out)

    def func(x, /, *args, out=None, **kwargs):
        params = bind(args, kwargs) if args or kwargs else defaults
        if (type(x) is Array and x._ext is not None) or (
                out is not None and type(out) is Array and out._ext is not None):
            hook = HOOK[0]
            if hook is not None:
                return hook(name, impl, (x,) + params + (out,), {})
        return impl(x, *params, out)

    func._impl = impl
    func._params = P
    func.__signature__ = inspect.Signature(
        [inspect.Parameter("x", inspect.Parameter.POSITIONAL_ONLY)] + P.parameters()
        + [inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)])
    return _quiet_leaf(func)


_DOC = """{summary}

Elementwise ``{name}`` of the Array API standard
(https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.{name}.html).
Inputs: {category} data types. ``out=`` (keyword-only) writes the result into
an existing array of the result's shape and a dtype it can be cast to.
"""


def build(row: Elementwise):
    _build_tables(row)
    row.direct = all(kc.direct for kc in row.kcache.values())
    f = (_make_binary(row) if row.nargs == 2 else _make_unary_params(row) if row.params
         else _make_unary(row))
    f.__name__ = f.__qualname__ = row.name
    f.__doc__ = _DOC.format(summary=row.doc or f"Elementwise {row.name}.", name=row.name,
                            category=row.category)
    f._row = row
    if row.nargs == 2:
        sig = inspect.signature(f)
        f.__signature__ = sig.replace(parameters=[p for p in sig.parameters.values() if p.name != "alpha"])
    _bind.declare(row.name, row.torch)
    if row.torch:
        sig = _bind.Binder(row.name, f, row.torch).signature(f)
        f.__signature__ = sig
        f.__doc__ = _bind._spelled_doc(f.__doc__, row.torch)
        f._torch_keywords = row.torch
    row.func = f
    return f


# --- kernels and special-case corrections --------------------------------------
# Kernels take native arrays or Python scalars (the other operand of a binary
# function may be a Python scalar) and return a fresh native result; a 0-d
# input may give a NumPy scalar. Corrections get ``xp.asarray(result)`` and
# the kernel's inputs, and return the corrected result.

def _copy(xp, a):
    return xp.array(a, copy=True)


# (compiled: np.positive's loop, a copy of each integer, float or complex element bit for bit:
# _chot/loops.c's guard "copy"; floor(x, out=y) of 100 int32 2.4 -> 0.x us, NumPy's 0.40;
# positive(x) of 1 float32 1.39 -> ~0.4 us)
_copy._loop_ufunc = np.positive
_copy._loop_guard = "copy"


def _real_part(xp, a):
    return xp.array(a.real, copy=True)


def _imag_part(xp, a):
    return xp.array(a.imag, copy=True)


def _may_hold(xp, mask) -> builtins.bool:
    """Whether ``mask`` may hold a True. Exact on the host; on a device always True,
    so a correction runs there rather than copying the answer back to the host."""
    return xp is not np or builtins.bool(mask.any())


def _finite_scalar(v) -> builtins.bool:
    """Whether ``v`` is a Python float or int whose ``isinf`` is False (an int within int64:
    np.isinf of a larger one converts it otherwise)."""
    t = type(v)
    return (t is builtins.float and math.isfinite(v)) or (t is builtins.int and -_I64 <= v < _I64)


_I64 = 1 << 63


def _fix_floor_divide(xp, r, a, b):
    # Note: NumPy's floor_divide follows Python's divmod: inf // 2.0 is nan and
    # -1.0 // inf is -1.0. The standard says +-inf and -0: the quotient a / b,
    # which is exactly what it specifies whenever an operand is infinite.
    # (a finite Python scalar operand has no element to fix: the other's mask alone)
    if _finite_scalar(b):
        m = xp.isinf(a)
    elif _finite_scalar(a):
        m = xp.isinf(b)
    else:
        m = xp.logical_or(xp.isinf(a), xp.isinf(b))
    if not _may_hold(xp, m):
        return r
    return xp.where(m, xp.true_divide(a, b), r).astype(r.dtype, copy=False)


# (no infinite operand: nothing to fix, NumPy's loop alone is the value; _chot/loops.c's
# guard_ok reads the operands for it before the loop runs: floor_divide(x, 2.0) of 100
# float32 4.9 -> 0.x us, NumPy's call 0.76)
_fix_floor_divide._loop_guard = "noinf"


def _fix_pow(xp, r, a, b):
    # Note: NumPy computes x ** 0.5 as sqrt(x) when the exponent is a scalar
    # (or a stride-0 array), giving nan for -inf and -0 for -0; the standard
    # says +inf and +0 (|x|).
    if type(b) is builtins.float:
        if b != 0.5:
            return r
    elif type(b) in (builtins.int, builtins.bool) or not _may_hold(xp, b == 0.5):
        return r
    m = xp.logical_and(b == 0.5, xp.logical_or(a == -math.inf,
                                                xp.logical_and(a == 0, xp.signbit(a))))
    return xp.where(m, xp.abs(a), r).astype(r.dtype, copy=False)


def _fix_nextafter_float16(xp, r, a, b):
    # Note: NumPy's float16 nextafter returns x1 when x1 == x2 (so -0 for
    # nextafter(-0, +0)); the standard, like C, returns x2.
    return xp.where(a == b, b, r).astype(r.dtype, copy=False)


# NumPy's maximum/minimum loop for an array and a scalar is ~3x slower than its
# array-array loop (32768 float32: 12.7 vs 3.9 us; PyTorch's relu: 3.5 us), so a
# large C-contiguous float array meets its scalar as a cached constant block.
_CONST_BLOCK = 1 << 16  # elements of a constant block (at most 16 kept: 8 MiB of float64)
_CONSTS: dict = {}  # (dtype, the value's float64 bits) -> read-only block
_F64_BITS = struct.Struct("<d").pack


def _const_block(dt, s):
    # keyed by the value's bits: every NaN payload and both zeros have a block of their own
    key = (dt, _F64_BITS(float(s)))
    block = _CONSTS.get(key)
    if block is None:
        if len(_CONSTS) >= 16:
            _CONSTS.clear()
        block = np.full(_CONST_BLOCK, s, dtype=dt)
        block.flags.writeable = False
        _CONSTS[key] = block
    return block


_CONST_FROM = 4096  # elements: from here a Python scalar operand is a constant block


def _extremum_kernel(name: str):
    def kern(xp, a, b):
        uf = getattr(xp, name)
        if xp is np:
            ta, tb = type(a), type(b)
            if ta is _ND and (tb is float or tb is int):
                arr, s, first = a, b, True
            elif tb is _ND and (ta is float or ta is int):
                arr, s, first = b, a, False
            elif ta is _ND and tb is _ND and a.dtype is b.dtype and a.nbytes >= _BIG[0]:
                return large_ufunc(uf, (a, b), a.dtype)  # pooled buffer, threads
            else:
                return uf(a, b)
            if arr.size >= _CONST_FROM and arr.flags.c_contiguous:
                block = _const_block(arr.dtype, s)
                out = (_pool_empty(arr.shape, arr.dtype, arr.nbytes) if arr.nbytes >= _BIG[0]
                       else np.empty(arr.shape, arr.dtype))
                src, dst, n = arr.reshape(-1), out.reshape(-1), arr.size
                for i in range(0, n, _CONST_BLOCK):
                    j = min(n, i + _CONST_BLOCK)
                    if first:
                        uf(src[i:j], block[:j - i], out=dst[i:j])
                    else:
                        uf(block[:j - i], src[i:j], out=dst[i:j])
                return out
        return uf(a, b)
    kern.__name__ = f"_{name}_kernel"
    # The compiled path runs this ufunc's loop itself, a Python scalar from a constant block
    # as here (_chot/loops.c, loop_for and run_loop): maximum(x, 0.0) of 100 float32 1.46 ->
    # 0.42 us (NumPy's own call: 0.74).
    kern._loop_ufunc = getattr(np, name)
    kern._scalar_block = True
    return kern


_SQRT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_POW_HALF = None  # strided/_csrc/_chot/views.c's pow_half, set with the compiled hot path
_min_reduce = np.minimum.reduce


def _pow_float(xp, a, b):
    """Real floating ``a ** b``: NumPy's ``ndarray.__pow__`` squares for a scalar exponent
    of 2 (numpy/_core/src/multiarray/number.c, fast_scalar_power), 6-7x faster than its
    power loop (5000x200 float64: 0.46 vs 3.1 ms; SciPy's moments square every
    deviation); power(x, 2) and square(x) agree bit for bit (x*x is rounded once; NaN
    payloads pass through both), so strided's pow takes the same short cut for a host
    array and a Python 2 or 2.0. Anything else: NumPy's power, then the standard's
    x ** 0.5 (_fix_pow)."""
    if _POW_HALF is not None and type(b) is builtins.float and b == 0.5 and type(a) is _ND:
        # (a small float32/float64 host array, C-contiguous or 1-D: the 0.5 branch below in
        # one pass in C, the same bits; None: another case, taken below)
        r = _POW_HALF(a)
        if r is not None:
            return r
    if type(a) is _ND and type(b) in (builtins.int, builtins.float) and b == 2:
        if a.nbytes >= _BIG[0]:
            return large_ufunc(np.square, (a,), a.dtype)  # pooled buffer, threads
        return np.square(a)
    if type(b) is builtins.float and b == 0.5 and type(a) is _ND and a.ndim and a.dtype in _SQRT_DTYPES:
        # Note: NumPy's power loop takes the square root for a scalar exponent of 0.5, bit
        # for bit numpy.sqrt (NaN payloads included: 9M random bit patterns per dtype), at
        # twice sqrt's cost (20000 float64: 60 vs 28 us; SciPy's std is var ** 0.5). The
        # standard's two differences from sqrt are then put right in place: +0 for -0
        # (x + 0.0 changes no other value) and +inf for -inf (sqrt gives NaN).
        r = large_ufunc(np.sqrt, (a,), a.dtype) if a.nbytes >= _BIG[0] else np.sqrt(a)
        np.add(r, 0.0, out=r)
        # (an empty a: no -inf, and no minimum to take: the reduction raises)
        lo = _min_reduce(a, None) if a.size else 0.0
        if not lo > -math.inf:  # (a -inf, or a NaN that hides one)
            m = a == -math.inf
            if m.any():
                r[m] = math.inf
        return r
    if xp is np and ((type(a) is _ND and a.nbytes >= _BIG[0]) or (type(b) is _ND and b.nbytes >= _BIG[0])):
        # (both operands are in the compute dtype already, or one is a Python scalar)
        r = large_ufunc(np.power, (a, b), a.dtype if type(a) is _ND else b.dtype)
    else:
        r = xp.asarray(xp.power(a, b))
    return _fix_pow(xp, r, a, b)



def _pow_float_out(xp, a, b):
    """``_pow_float``'s form for ``out=`` (``X **= 2``, ``pow(x, 2, out=y)``): the plain
    ufunc that gives its bits for these operands, or None (compute, then copy)."""
    if type(a) is _ND and type(b) in (builtins.int, builtins.float) and b == 2:
        return np.square, (a,)  # (the host's short cut alone, as _pow_float takes it)
    return None


_pow_float.out_form = _pow_float_out
# The compiled path runs NumPy's power loop itself where this function is np.power alone:
# a Python scalar exponent neither 2 nor 0.5, no exponent element 0.5 (_chot/loops.c,
# guard_ok "pow_float"); here for every other operand.
_pow_float._loop_ufunc = np.power
_pow_float._loop_guard = "pow_float"

_NEGATIVE_POWER = "pow(): integers to negative integer powers are not allowed; use a floating-point base"


class NegativePowerError(ValueError, RuntimeError):
    """An integer base to a negative integer power: NumPy's ValueError, and the RuntimeError
    PyTorch raises ("Integers to negative integer powers are not allowed.")."""


def _pow_int(xp, a, b):
    # (a negative Python int exponent: refused before NumPy's conversion of it to an unsigned
    # base's dtype, which would raise OverflowError instead)
    if (xp is not np or type(b) is builtins.int) and (b < 0 if type(b) is builtins.int else (
            getattr(b, "dtype", None) is not None and b.dtype.kind == "i" and builtins.bool((b < 0).any()))):
        # Note: CuPy's integer power gives 0 for a negative exponent where NumPy (and
        # strided on every device) refuses; an array exponent costs one bool read back
        # from the device.
        raise NegativePowerError(_NEGATIVE_POWER)
    try:
        return xp.power(a, b)
    except ValueError as e:
        if "negative" not in str(e):
            raise
        raise NegativePowerError(_NEGATIVE_POWER) from None


# (compiled: NumPy's power loop where no exponent is negative: _chot/loops.c, "pow_int")
_pow_int._loop_ufunc = np.power
_pow_int._loop_guard = "pow_int"


def _expm1_complex(xp, z):
    if xp is np and z.ndim > 1 and not z.flags.c_contiguous:
        # (the result in z's memory order, as NumPy's ufuncs'; on a device, Elementwise.resolve's
        # keep_order does this)
        return _backends.in_order(lambda m: _expm1_complex_rows(xp, m), z)
    return _expm1_complex_rows(xp, z)


def _expm1_complex_rows(xp, z):
    """``_expm1_complex`` with a row-major result."""
    # Note: NumPy has no complex expm1. exp(z) - 1 loses all precision near 0,
    # so compute expm1(x)cos(y) - 2sin(y/2)^2 + i exp(x)sin(y) and keep
    # exp(z) - 1 for non-finite inputs, where it gives the standard's values.
    x, y = z.real, z.imag
    s = xp.sin(y * 0.5)
    out = xp.empty(z.shape, z.dtype)
    # (+ 0.0 turns the -0 of expm1(-0) into the +0 the standard wants for z = -0 + 0j)
    out.real = xp.expm1(x) * xp.cos(y) - 2 * s * s + 0.0
    out.imag = xp.exp(x) * xp.sin(y)
    bad = ~xp.isfinite(z)
    if _may_hold(xp, bad):
        xp.copyto(out, xp.exp(z) - 1, where=bad)
    return out


def _fix_tanh_complex(xp, r, z):
    # Note: for tanh(+-inf + yj) with finite y NumPy (C99) gives the imaginary
    # part 0 * sin(2y); the standard says +0 for y > 0 (so -0 for y < 0).
    m = xp.isinf(z.real)
    if not _may_hold(xp, m):
        return r
    m &= xp.isfinite(z.imag)
    xp.copyto(r.imag, xp.copysign(0, z.imag), where=m)
    return r


_fix_tanh_complex._loop_guard = "noinf"  # (no infinite part: nothing to fix; _chot/loops.c)


def _shift(npname, name):
    def k(xp, a, b):
        # Note: the standard defines shifts by >= the bit width (0, or -1 for
        # negative x >> n); NumPy's kernels do too. A Python int count is
        # clamped to the bit width so that it fits the array's dtype. A
        # negative count gives NumPy's result (as if shifting by a huge count).
        if type(b) is builtins.int:
            if b < 0:
                raise ValueError(f"{name}(): shift counts must be non-negative; got {b}")
            b = builtins.min(b, a.dtype.itemsize * 8)
        return getattr(xp, npname)(a, b)
    # (compiled: NumPy's loop where a Python scalar count is within [0, the bit width], so
    # nothing is clamped or refused: _chot/loops.c's guard "shift")
    k._loop_ufunc = getattr(np, npname)
    k._loop_guard = "shift"
    return k


from . import activations as _act  # noqa: E402 (the activation rows' kernels)

_MAXIMUM_F = _extremum_kernel("maximum")
_MINIMUM_F = _extremum_kernel("minimum")

R = Elementwise
ROWS: list[Elementwise] = [
    R("abs", 1, "numeric", "real", dunder="abs", aliases=("absolute",), doc="Absolute value.", numpy="absolute", threaded=True),
    R("acos", 1, "floating-point", method_float=True, aliases=("arccos",), numpy="arccos", threaded=True),
    R("acosh", 1, "floating-point", method_float=True, aliases=("arccosh",), numpy="arccosh", threaded=True),
    R("add", 2, "numeric", dunder="add", torch=("alpha",)),
    R("asin", 1, "floating-point", method_float=True, aliases=("arcsin",), numpy="arcsin", threaded=True),
    R("asinh", 1, "floating-point", method_float=True, aliases=("arcsinh",), numpy="arcsinh", threaded=True),
    R("atan", 1, "floating-point", method_float=True, aliases=("arctan",), numpy="arctan", threaded=True),
    R("atan2", 2, "real floating-point", method_float=True, aliases=("arctan2",), numpy="arctan2"),
    R("atanh", 1, "floating-point", method_float=True, aliases=("arctanh",), numpy="arctanh", threaded=True),
    R("bitwise_and", 2, "integer or boolean", dunder="and"),
    R("bitwise_left_shift", 2, "integer", kernel=_shift("left_shift", "bitwise_left_shift"), dunder="lshift", numpy="left_shift"),
    R("bitwise_invert", 1, "integer or boolean", dunder="invert", aliases=("bitwise_not",), numpy="invert"),
    R("bitwise_or", 2, "integer or boolean", dunder="or"),
    R("bitwise_right_shift", 2, "integer", kernel=_shift("right_shift", "bitwise_right_shift"), dunder="rshift", numpy="right_shift"),
    R("bitwise_xor", 2, "integer or boolean", dunder="xor"),
    R("ceil", 1, "real-valued", kernel={"iu": _copy}, threaded=True),
    R("conj", 1, "numeric", aliases=("conj_physical",), numpy="conjugate"),
    R("copysign", 2, "real floating-point", method_float=True),
    R("cos", 1, "floating-point", method_float=True, threaded=True),
    R("cosh", 1, "floating-point", method_float=True, threaded=True),
    R("divide", 2, "numeric", "float", dunder="truediv", aliases=("div", "true_divide")),
    R("equal", 2, "any", "bool", dunder="eq", aliases=("eq",)),
    R("exp", 1, "floating-point", method_float=True, threaded=True),
    R("expm1", 1, "floating-point", kernel={"c": _expm1_complex}, method_float=True, threaded=True),
    R("floor", 1, "real-valued", kernel={"iu": _copy}, threaded=True),
    R("floor_divide", 2, "real-valued", fix={"f": _fix_floor_divide}, dunder="floordiv"),
    R("greater", 2, "real-valued", "bool", dunder="gt", aliases=("gt",)),
    R("greater_equal", 2, "real-valued", "bool", dunder="ge", aliases=("ge",)),
    R("hypot", 2, "real floating-point", method_float=True),
    R("imag", 1, "complex floating-point", "real", kernel=_imag_part),
    R("isfinite", 1, "numeric", "bool"),
    R("isinf", 1, "numeric", "bool"),
    R("isnan", 1, "numeric", "bool"),
    R("less", 2, "real-valued", "bool", dunder="lt", aliases=("lt",)),
    R("less_equal", 2, "real-valued", "bool", dunder="le", aliases=("le",)),
    R("log", 1, "floating-point", method_float=True, threaded=True),
    R("log1p", 1, "floating-point", method_float=True, threaded=True),
    R("log2", 1, "floating-point", method_float=True, threaded=True),
    R("log10", 1, "floating-point", method_float=True, threaded=True),
    R("logaddexp", 2, "real floating-point", method_float=True),
    R("logical_and", 2, "boolean", "bool"),
    R("logical_not", 1, "boolean", "bool"),
    R("logical_or", 2, "boolean", "bool"),
    R("logical_xor", 2, "boolean", "bool"),
    R("maximum", 2, "real-valued", kernel={"f": _MAXIMUM_F}),
    R("minimum", 2, "real-valued", kernel={"f": _MINIMUM_F}),
    R("multiply", 2, "numeric", dunder="mul", aliases=("mul",)),
    R("negative", 1, "numeric", dunder="neg", aliases=("neg",), threaded=True),
    R("nextafter", 2, "real floating-point", fix={_dtypes.float16: _fix_nextafter_float16}),
    R("not_equal", 2, "any", "bool", dunder="ne", aliases=("ne",)),
    R("positive", 1, "numeric", kernel=_copy, dunder="pos"),
    R("pow", 2, "numeric", kernel={"iu": _pow_int, "f": _pow_float}, dunder="pow", numpy="power"),
    R("real", 1, "numeric", "real", kernel={"c": _real_part, "iuf": _copy}),
    R("reciprocal", 1, "floating-point", method_float=True, threaded=True),
    # Note: relu, sigmoid and silu are PyTorch's activations, not the standard's functions.
    R("relu", 1, "real-valued", kernel=_act.relu_kernel(_MAXIMUM_F),
      doc="``max(0, x)`` (PyTorch's relu: NaN stays NaN, relu(-0.0) is -0.0, the gradient at 0 is 0)."),
    # PyTorch's activations with parameters (torch.nn.functional's; rows since their
    # parameters are columns: ``params``, bound by _core/call/bind.py's ``Params``)
    R("leaky_relu", 1, "real floating-point", kernel=_act.leaky_relu,
      params=(("negative_slope", 0.01),), check=_act.check_leaky_relu,
      doc="``x`` where ``x > 0``, else ``negative_slope * x`` (PyTorch's leaky_relu; the gradient at 0 is the slope)."),
    R("elu", 1, "real floating-point", kernel=_act.elu, params=(("alpha", 1.0),), check=_act.check_elu,
      doc="``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)`` (PyTorch's elu)."),
    R("celu", 1, "real floating-point", kernel=_act.celu, params=(("alpha", 1.0),), check=_act.check_celu,
      doc="``x`` where ``x > 0``, else ``alpha * (exp(x / alpha) - 1)`` (PyTorch's celu)."),
    R("selu", 1, "real floating-point", kernel=_act.selu,
      doc="``scale * elu(x, alpha)`` with the self-normalising constants of Klambauer et al. (PyTorch's selu)."),
    R("hardtanh", 1, "real floating-point", kernel=_act.hardtanh,
      params=(("min_val", -1.0), ("max_val", 1.0)), check=_act.check_hardtanh,
      doc="``x`` clamped to ``[min_val, max_val]`` (PyTorch's hardtanh: no gradient at or beyond the bounds)."),
    R("softplus", 1, "real floating-point", kernel=_act.softplus,
      params=(("beta", 1.0), ("threshold", 20.0)), check=_act.check_softplus,
      doc="``log(1 + exp(beta * x)) / beta``, and ``x`` where ``beta * x > threshold`` (PyTorch's softplus)."),
    R("gelu", 1, "real floating-point", kernel=_act.gelu, params=(("approximate", "none"),),
      check=_act.check_gelu,
      doc="``x * Phi(x)`` with erf (``approximate='none'``) or its tanh approximation (PyTorch's gelu)."),
    R("remainder", 2, "real-valued", dunder="mod"),
    R("round", 1, "numeric", kernel={"iu": _copy}),
    R("sigmoid", 1, "numeric", "float", kernel=_act.sigmoid, method_float=True,
      doc="The logistic function ``1 / (1 + exp(-x))`` (PyTorch's sigmoid; integers give the default float, "
          "complex numbers their dtype)."),
    R("sign", 1, "numeric"),
    R("silu", 1, "numeric", "float", kernel=_act.silu, method_float=True,
      doc="``x * sigmoid(x)``, computed as ``x / (1 + exp(-x))`` (PyTorch's silu; complex numbers too)."),
    R("signbit", 1, "real floating-point", "bool"),
    R("sin", 1, "floating-point", method_float=True, threaded=True),
    R("sinh", 1, "floating-point", method_float=True, threaded=True),
    R("square", 1, "numeric", threaded=True),
    R("sqrt", 1, "floating-point", method_float=True, threaded=True),
    R("subtract", 2, "numeric", dunder="sub", aliases=("sub",), torch=("alpha",),
      no_bool="to invert a mask use ~ or logical_not(); for two masks, ^ or logical_xor()"),
    R("tan", 1, "floating-point", method_float=True, threaded=True),
    R("tanh", 1, "floating-point", fix={"c": _fix_tanh_complex}, method_float=True, threaded=True),
    R("trunc", 1, "real-valued", kernel={"iu": _copy}, threaded=True),
]
REGISTRY: dict[str, Elementwise] = {r.name: r for r in ROWS}

# The satellite tables, built from the rows' columns (before any kernel is resolved).
_backends.RENAMES.update({r.name: r.numpy for r in ROWS if r.numpy})
_threads.add_loop_ufuncs(getattr(np, r.numpy or r.name) for r in ROWS if r.threaded)

FUNCTIONS = {r.name: build(r) for r in ROWS}
globals().update(FUNCTIONS)


def _rebuild_all() -> None:
    """Rebuild the dtype tables (after ``set_default_dtype``)."""
    for r in ROWS:
        _build_tables(r)


_dtypes.ON_DEFAULT_CHANGE.append(_rebuild_all)


# --- clip: the one elementwise function with optional operands -------------------

def _clip_bound(x: Array, v, which: str, lower: builtins.bool):
    """``min``/``max`` of clip as something the backend's clip takes (or None)."""
    if v is None:
        return None
    dt = x._dtype
    if type(v) is Array:
        if v._device is not x._device:
            raise ValueError(f"clip(): {which} is on {v._device} but x is on {x._device}")
        if v._dtype.kind not in "biuf":
            raise TypeError(f"clip(): {which} must have a real-valued data type; got {v._dtype.name}")
        return v._get_native()
    t = type(v)
    if t is builtins.complex or t not in _PYSCALARS:
        if isinstance(v, (np.integer, np.floating, np.bool_)):
            return _clip_bound(x, v.item(), which, lower)
        raise TypeError(f"clip(): {which} must be None, a real Python scalar or an array; "
                        f"got {t.__name__}")
    if dt.kind in "iu":
        # Note: an integer array is clipped by the integers inside the bound; a
        # bound beyond the dtype's range is clamped to it (the standard leaves
        # that case unspecified, NumPy raises OverflowError).
        lo, hi = _INT_RANGE[dt]
        if t is builtins.float:
            if math.isnan(v):
                raise ValueError(f"clip(): {which} is NaN, which an {dt.name} array can't hold")
            if math.isinf(v):
                return None if (v < 0) == lower else (hi if v > 0 else lo)
            v = math.ceil(v) if lower else math.floor(v)
        return builtins.min(builtins.max(builtins.int(v), lo), hi)
    return builtins.float(v)


_np_clip, _np_minimum, _np_maximum = _npcompat.umath_clip, np.minimum, np.maximum
# From how many bytes clip takes the compiled pass (measured, interleaved minima, 1 thread,
# against NumPy's ufunc through the same function: float32 4096 elements 1.04x, 1e4 0.98x,
# 1e5 0.71x, 1e6 0.67x; float64 4096 0.89x, 1e4 0.86x, 1e6 0.61x). Since _act passes the
# float32 bounds to C unconverted (two NumPy scalars less, ~1 us): the pass / NumPy's clip
# ufunc, minima of 60 interleaved batches, a Zen 4 EPYC: float32 1024-8192 elements
# 0.92-1.0 (1.3-1.5 before), float64 2048 1.06, 4096 0.93, 8192 0.77.
_CLIP_C_FROM = 16 << 10


@api("clip")
def clip(x, /, min=None, max=None, *, out=None) -> Array:
    """Clamp each element of ``x`` to ``[min, max]``; the result has ``x``'s dtype.

    ``min`` and ``max`` may be None, Python scalars or arrays broadcasting with ``x``.
    NaN in ``x``, ``min`` or ``max`` gives NaN.

    >>> import strided as xp
    >>> xp.clip(xp.asarray([1, 5, 9]), 2, 6).tolist()
    [2, 5, 6]
    """
    if type(min) is builtins.float and type(max) is builtins.float and out is None and type(x) is Array:
        # The common case first (two Python float bounds, neither NaN, a large enough
        # C-contiguous float32/float64 host array): the compiled pass below without the
        # general path's checks, which cost as much as the pass at 1e4 elements (float32:
        # 3.6 -> 2.6 us; PyTorch's clamp 2.7)
        a = x._np
        if a is not None and a.nbytes >= _CLIP_C_FROM and min == min and max == max \
                and (r := _act._act(0, a, min, max)) is not None:
            return _new_array(r, None, 0, r.shape, None, x._dtype, x._device)
    if type(x) is not Array:
        raise TypeError(f"clip(): expected an array; got {type(x).__name__}")
    _dtypes.check_category("clip", x._dtype, "real-valued")
    lo = _clip_bound(x, min, "min", True)
    hi = _clip_bound(x, max, "max", False)
    dev = x._device
    xp = dev.backend.xp
    a = x._get_native()
    if lo is None and hi is None:
        r = xp.array(a, copy=True)
    else:
        try:
            if xp is np and type(a) is _ND and a.dtype.kind in "iuf":
                # NumPy's clip without its Python wrapper (numpy/_core/_methods.py,
                # ``_clip``: the same ufuncs for the same bounds); a large result
                # takes a pooled buffer.
                r = None
                if type(lo) is builtins.float and type(hi) is builtins.float and lo == lo and hi == hi \
                        and a.nbytes >= _CLIP_C_FROM:
                    # float32/float64, C-contiguous, neither bound NaN: NumPy's clip loop
                    # for constant bounds is ``if (x < lo) x = lo; if (x > hi) x = hi;``
                    # (numpy/_core/src/umath/clip.cpp, _npy_clip_const_minmax_), which is
                    # hardtanh's one compiled pass (_ckernels.act, op 0) operation for
                    # operation, bounds converted alike: 3.3x fewer instructions than
                    # NumPy's loop (1e4 float32). Below _CLIP_C_FROM bytes the pass's
                    # checks cost more than they save. (A NaN bound: NumPy fills the
                    # result with it; its ufunc below does that.)
                    r = _act._act(0, a, lo, hi)
                if r is None:
                    if lo is None:
                        k, args = _np_minimum, (a, hi)
                    elif hi is None:
                        k, args = _np_maximum, (a, lo)
                    else:
                        k, args = _np_clip, (a, lo, hi)
                    if a.nbytes >= _BIG[0]:
                        r = large_ufunc(k, args, a.dtype)
                    elif k is not _np_clip and a.dtype.kind == "f" and a.size >= _CONST_FROM:
                        # one bound: NumPy's clip is maximum or minimum, whose SIMD loop
                        # takes no stride-0 operand: the row's kernel reads a Python bound
                        # from a constant block (the same loop, the same bits; float32 1e4
                        # 8.3 -> 7.1 us, 6e4 36 -> 18 us)
                        r = (_MAXIMUM_F if k is _np_maximum else _MINIMUM_F)(np, *args)
                    else:
                        r = k(*args)
            else:
                r = dev.backend.keep_order(dev.backend.kernel("clip", a.dtype.kind))(a, lo, hi)
        except ValueError as e:
            shapes = [tuple(np.shape(v)) for v in (a, lo, hi) if v is not None]
            try:
                _layout.broadcast_shapes(*shapes)
            except ValueError:
                raise _layout.ShapeError(f"clip(): x, min and max of shapes {', '.join(map(str, shapes))} "
                                 f"cannot be broadcast together") from None
            raise e
    return _finish("clip", r, x._dtype, dev, out)


__all__ = list(FUNCTIONS) + ["clip"]


# --- operators on Array, from the same rows ----------------------------------

_OPERAND_TYPES = (Array,) + _PYSCALARS


# Temporary elision (as NumPy does for ``a * b + c``): an operand that is a fresh kernel
# result nothing else refers to is overwritten with the result instead of allocating
# (and page-faulting) a new buffer. Only from this many bytes on: below it a fresh
# buffer costs less than the checks.
#
# The rule (docs/reliability.md): an optimisation may not change any array the user
# holds, so elision needs a proof that nobody else can see the temporary.
# - Operators: the proof needs the C call stack (was ``Array.__add__`` called by the
#   interpreter's BINARY_OP on its own stack's operands, or by C code -- NumPy's object
#   loop -- on a borrowed item?), which Python code cannot see. So the Python operators
#   never elide; the compiled ones (strided/_csrc/_chot.c, "temporary elision") do,
#   with that proof, and call _elide for the buffer's half of it.
# - Namespace functions: the compiled ones as the operators. The Python ones (no C
#   extension) when the argument's count is _TEMP_REFS_FUNC inside ``func``: its
#   parameter and getrefcount's argument, nothing else. Only a Python-to-Python call
#   moves the caller's stack reference into the parameter (CPython 3.11 to 3.13); any
#   other caller -- ``add(*args)``, ``partial(add, t)``, ``starmap``, C code -- keeps
#   its own reference, so the count is higher. Elsewhere (3.10 copies the reference;
#   3.14's stack may borrow one; free-threaded counts are split) it is never elided.
_ELIDE_BYTES = 256 * 1024
_TEMP_REFS_FUNC = 2 if ((3, 11) <= sys.version_info < (3, 14)
                        and getattr(sys, "_is_gil_enabled", lambda: True)()) else -1
_getweakrefcount = weakref.getweakrefcount


def _broadcasts_into(s: tuple, shape: tuple) -> bool:
    """``s`` broadcasts to ``shape`` (no longer than it) without changing it."""
    for n, m in zip(reversed(s), reversed(shape)):
        if n != m and n != 1:
            return False
    return True


def _elide(impl, kc_of, x1, x2, tmp):
    """``impl(x1, x2)`` written into ``tmp``'s buffer (``tmp`` is x1 or x2, a temporary
    nobody else holds: the caller has proved that), or None when that is not safe: the
    buffer must be a fresh, unshared, owned result of the result's dtype and shape, the
    kernel a plain ufunc, and no weak reference may point at ``tmp``."""
    a = tmp._np
    if a is None or a.nbytes < _ELIDE_BYTES or _getrefcount(a) != 3:
        return None  # 3: tmp._np, ``a`` and getrefcount's argument (no numpy() export)
    base = a.base
    if base is not None and (type(base) is not _PoolBlock or _getrefcount(base) != 3):
        return None  # a view of other memory, or a pooled buffer that another view shares
        # (3: a.base, ``base`` and getrefcount's argument)
    if not a.flags.c_contiguous or _getweakrefcount(tmp):
        return None
    ent = kc_of(x1, x2)
    if ent is None:
        return None
    res, cast, kc = ent
    if cast is not None or not kc.direct or res._np is not a.dtype:
        return None
    o = x2 if tmp is x1 else x1
    if type(o) is Array:
        if o._device is not tmp._device or o._ext is not None:
            return None
        b = o._np if o._np is not None else _nat(o)
        if len(b.shape) > len(a.shape) or not _broadcasts_into(b.shape, a.shape):
            return None  # (shapes that don't broadcast: the reference path raises its error)
    else:
        b = o
    dev = tmp._device
    k = kc[dev]
    if tmp is x1:  # large ones on the C thread pool (strided._core.threads)
        ufunc_into(k, a, b, a)
    else:
        ufunc_into(k, b, a, a)
    return Array._new(a, None, 0, a.shape, None, res, dev)


def _operator(f):
    impl = f._impl
    kimpl = f._kimpl  # (the handlers' kernel path: _kernel_path)
    name = f._row.name if hasattr(f, "_row") else f.__name__

    def op(self, other):
        # The operator goes straight to the row's kernel path when no operand
        # carries an extension (names, autograd); else through the hooked function.
        t = type(other)
        if t is Array:
            if self._ext is None and other._ext is None:
                return impl(self, other, None)
            hook = HOOK[0]
            if hook is not None:  # an extension (names, autograd): straight to its handlers
                return hook(name, kimpl, (self, other, None), {})
        elif t not in _PYSCALARS:
            if _numpy_scalar(other) is None:
                if t is not np.ndarray:
                    return NotImplemented
                other = _LATE["ndarray_operand"](other, self._device)  # the mixing rule
        elif self._ext is None:
            return impl(self, other, None)
        return f(self, other)
    return op


def _roperator(f):
    impl = f._impl

    def rop(self, other):
        t = type(other)
        if t in _PYSCALARS:
            if self._ext is None:
                return impl(other, self, None)
        elif t is np.ndarray:
            other = _LATE["ndarray_operand"](other, self._device)  # the mixing rule
        elif t is not Array and _numpy_scalar(other) is None:
            return NotImplemented
        return f(other, self)
    return rop


def _ioperator(f):
    into = f._into

    def iop(self, other):
        t = type(other)
        e = self._ext
        if e is None and ((t is Array and other._ext is None) or t in _PYSCALARS):
            return into(self, other, self)  # no extension: straight to the row's kernel path
        if e is not None and e.names is None and (t in _PYSCALARS or (
                t is Array and (other._ext is None or other._ext.names is None))):
            # An optimizer's ``p -= lr * p.grad`` under no_grad(): with recording off and no
            # names, the handlers would pass the call through to this same path (``into``
            # refuses self-overlap, bumps the version and runs the write stage's autograd
            # check, as ``impl``'s out= does) -- without their frames.
            st = _LATE.get("grad_state")
            if st is not None and not st.enabled:
                return into(self, other, self)
        if t not in _OPERAND_TYPES and _numpy_scalar(other) is None:
            if t is not np.ndarray:
                return NotImplemented
            other = _LATE["ndarray_operand"](other, self._device)  # the mixing rule
        f(self, other, out=self)
        return self
    return iop


def _uoperator(f):
    def uop(self):
        return f(self)
    return uop


_NO_REFLECT = {"eq", "ne", "lt", "le", "gt", "ge"}

for _row in ROWS:
    if _row.dunder is None:
        continue
    _f = _row.func
    _d = _row.dunder
    if _row.nargs == 1:
        setattr(Array, f"__{_d}__", _uoperator(_f))
        continue
    setattr(Array, f"__{_d}__", _operator(_f))
    if _d not in _NO_REFLECT:
        setattr(Array, f"__r{_d}__", _roperator(_f))
        setattr(Array, f"__i{_d}__", _ioperator(_f))


# --- the compiled hot path (strided/_csrc/_chot.c) in front of the functions above ----------
# Each operator gets a ``_chot.Fast`` that answers the plain small-array case itself
# (no extension, no cast, CPU natives under the pool's threshold) and calls the
# Python operator for everything else: the Python code above stays the definition
# and is what runs without the extension (STRIDED_NO_CEXT=1).

def _elide_arg(func, x1, x2, tmp):
    """``func(x1, x2)`` written into the temporary ``tmp``'s buffer, or None (the C
    layer has proved ``tmp`` held by the interpreter's stack alone)."""
    return _elide(func._impl, func._entry, x1, x2, tmp)


_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
            "pow": "**", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>",
            "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _calibration():
    """``(genuine, borrowing)`` for ``_chot.calibrate`` (strided/_csrc/_chot.c, "temporary
    elision"): ``genuine()`` makes every kind of call that comes straight from the
    interpreter on a temporary (each operator, reflected, on arrays and scalars, and a
    namespace function), whose C call chains the check then accepts; ``borrowing()``
    makes calls whose temporary a container holds, which it must refuse. The arrays
    are 2-element int64 kernel results (every operator takes them)."""
    from .._core.device import CPU
    i64 = _dtypes.int64

    def t():  # a fresh temporary: a kernel result nothing else holds
        return Array._new(np.ones(2, np.int64), None, 0, (2,), None, i64, CPU)

    c = t()
    calls = []
    for row in ROWS:
        op = _SYMBOLS.get(row.dunder)
        if op is not None and row.nargs == 2:
            calls += [f"t() {op} c", f"c {op} t()", f"t() {op} 1", f"1 {op} t()", f"t() {op} t()"]
    calls += ["f(t(), c)", "f(c, t())", "f(t(), 1)", "f(1, t())"]
    src = ["def genuine(t, c, f):", "    for _ in range(3):  # the adaptive and the generic instructions"]
    for call in calls:
        src += [f"        try: {call}", "        except Exception: pass"]
    src += ["def borrowing(t, c, f, g, np, functools, itertools, operator):",
            "    o = np.empty(1, object)"]
    for call in ("f(*(t(), c))", "f(*(c, t()))", "functools.partial(f, t())(c)",
                 "list(itertools.starmap(g, [(t(), c)]))", "list(map(f, [t()], [c]))",
                 "np.frompyfunc(f, 2, 1)(np.array([t(), 1], object), 1)",
                 "operator.add(*(t(), c))", "operator.sub(t(), 1)",
                 "o.__setitem__(0, t()); o + 1", "o.__setitem__(0, t()); o - c",
                 "o.__setitem__(0, t()); 1 - o", "o.__setitem__(0, t()); o * 2",
                 "o.__setitem__(0, t()); o == 1"):
        src += [f"    try: {call}", "    except Exception: pass"]
    ns: dict = {}
    exec(compile("\n".join(src) + "\n", "<strided: elision calibration>", "exec"), ns)
    import itertools
    import operator
    add, sub = FUNCTIONS["add"], FUNCTIONS["subtract"]
    return (lambda: ns["genuine"](t, c, add),
            lambda: ns["borrowing"](t, c, add, sub, np, functools, itertools, operator))


def _inplace_fast(chot, row, fallback):
    """``fallback`` (a binary row's in-place operator ``a += b`` or method ``a.add_(b)``) behind
    the compiled in-place case (fast.c, fast_inplace: the loop writes into a's own memory
    where ``into`` would, one positional operand); every other call runs ``fallback``."""
    return chot.Fast(fallback, 2, row.pairs, row.spairs, name=row.name, inplace=True)


def inplace_compiled(row, fallback):
    """``fallback`` behind the compiled in-place case: a binary row with an in-place operator
    behind ``_inplace_fast``; a unary row's method (``x.exp_()``) behind a unary ``Fast`` with
    ``inplace=True`` (fast.c, fast_out: ``exp(x, out=x)``'s door, no arguments after self);
    else ``fallback`` itself (no extension, a comparison)."""
    if not COMPILED:
        return fallback
    if row.nargs == 1:
        # (a method_float row has no integer-to-integer loop: an integer x declines to
        # ``fallback``, which raises as before)
        return _dispatch.CHOT.Fast(fallback, 1, row.upairs, name=row.name + "_", inplace=True)
    d = row.dunder
    if row.nargs != 2 or d is None or d in _NO_REFLECT:
        return fallback
    return _inplace_fast(_dispatch.CHOT, row, fallback)


def _install_compiled() -> bool:
    _chot = _dispatch.CHOT
    if _chot is None:  # not built, or STRIDED_NO_CEXT=1
        return False
    var, ignore = _dispatch.ERRSTATE, _dispatch.QUIET
    if var is None:  # a NumPy without that variable
        return False
    ctx = contextvars.Context()
    ctx.run(var.set, ignore)
    _chot.setup(_ND, _nat, _BIG, _ELIDE_BYTES, var, ignore, ctx)
    global _POW_HALF
    _POW_HALF = _chot.pow_half  # (x ** 0.5 of a small host array, _pow_float)
    # NumPy's inner loops called directly for small operands (_chot.c, "NumPy's inner
    # loops"): on when the C reading of an ndarray agrees with NumPy's on this probe.
    probe = np.empty((3, 4), np.float64)[::2, 1:]
    face = probe.__array_interface__
    _chot.setup_loops(np.ufunc, np.empty, probe, face["data"][0], face["shape"], face["strides"],
                      probe.flags.c_contiguous, probe.flags.aligned)
    Fast = _chot.Fast
    # ``x ** 2``, ``pow(x, 2)``: the square row's fast case on the host (fast.c, pow_square:
    # the bits NumPy's ndarray.__pow__ and strided's pow kernels give, which square too)
    sq_row = next(r for r in ROWS if r.name == "square")
    square = Fast(sq_row.func, 1, sq_row.upairs, name=sq_row.name, hook=HOOK, kimpl=sq_row.func._kimpl)
    for row in ROWS:
        d = row.dunder
        if d is None:
            continue
        if row.nargs == 1:
            setattr(Array, f"__{d}__", Fast(getattr(Array, f"__{d}__"), 1, row.upairs, name=row.name))
            continue
        # (the operators elide as the functions do: the C side proves the temporary's
        # reference is the interpreter stack's own, _elide checks its buffer)
        elide = functools.partial(_elide_arg, row.func)
        # (kimpl: two Arrays, one with an extension, go to the hook from C, as ``op`` sends them)
        setattr(Array, f"__{d}__", Fast(getattr(Array, f"__{d}__"), 2, row.pairs, row.spairs, name=row.name,
                                        elide=elide, square=square if row.name == "pow" else None,
                                        hook=HOOK, kimpl=row.func._kimpl))
        if d not in _NO_REFLECT:
            setattr(Array, f"__r{d}__", Fast(getattr(Array, f"__r{d}__"), 2, row.pairs, row.spairs,
                                             swap=True, name=row.name, elide=elide))
            setattr(Array, f"__i{d}__", _inplace_fast(_chot, row, getattr(Array, f"__i{d}__")))
    # The namespace functions: ``strided.exp`` is a Fast in front of the Python ``exp``
    # (its name, docstring, signature and pickling are the function's).
    for row in ROWS:
        f = row.func
        if row.nargs == 1:
            # (kimpl: an Array with an extension goes to the hook from C, as ``func`` sends it;
            # the rows with keyword parameters bind them in their ``func`` first)
            fast = square if row is sq_row else Fast(f, 1, row.upairs, name=row.name, **(
                {} if row.params else {"hook": HOOK, "kimpl": f._kimpl}))
        else:
            fast = Fast(f, 2, row.pairs, row.spairs, name=row.name, elide=functools.partial(_elide_arg, f),
                        square=square if row.name == "pow" else None)
        FUNCTIONS[row.name] = row.func = fast
        globals()[row.name] = fast
    try:
        _chot.calibrate(*_calibration())  # temporary elision: on where the check is sound
    except Exception:  # pragma: no cover (elision stays off: correct, a little slower)
        pass
    return True


COMPILED = _install_compiled()

if COMPILED:
    # Every Fast runs its Python definition under NumPy's "ignore" error state; the
    # in-place operators stay Python and get it here (without the compiled path the
    # kernel-calling leaves have it: see _quiet_leaf).
    for _row in ROWS:
        if _row.dunder is not None and _row.nargs == 2 and _row.dunder not in _NO_REFLECT:
            _name = f"__i{_row.dunder}__"
            setattr(Array, _name, _dispatch.quiet(getattr(Array, _name)))
