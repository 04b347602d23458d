"""NumPy's override protocols on Array: ``__array_ufunc__`` (NEP 13) and
``__array_function__`` (NEP 18), and the rule for mixing with ndarrays.

NumPy ufuncs and functions called on strided arrays run strided's own
implementation and return strided arrays (as CuPy and Dask arrays do). Ufuncs
map by name onto the namespace's elementwise rows; functions through one table
(``_FUNCTIONS``: NumPy function -> handler that translates NumPy's argument
spellings).

What strided does not implement (a function with no handler, or an argument a
handler does not take: ``_NotSupported``) never makes NumPy code fail on the
CPU: the call takes NumPy's own path (``_numpy_fallback``), with every strided
argument read through ``__array__`` (no copy), and the ndarrays NumPy returns
come back as strided arrays over the same memory (NumPy scalars as 0-d arrays).
On another device NumPy can't read the data: a TypeError names the function and the way out (``x.cpu()``),
as CuPy's arrays refuse NumPy's fallback.

The mixing rule (also in docs/guide/interop.md, "Mixing with NumPy arrays"):
an ndarray operand of a strided operation — an operator in either order, a
ufunc, a NumPy function — is converted with ``strided.asarray`` onto the
device of the strided operand (zero-copy on cpu; a host-to-device copy on
cuda) and the result is a strided array. NumPy scalars act as the Python
scalars they hold (weak, as in PyTorch); 0-d ndarrays are arrays.
"""

from __future__ import annotations

import builtins
import inspect

import numpy as np

from .._api import elementwise as _elementwise
from .._core import _npcompat, layout as _layout
from .._core.call import adopt as _adopt, write as _write
from .._core.array import _LATE, Array
from .._api.creation import asarray as _asarray

_NoValue = _npcompat.NoValue
_PYSCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


class _Foreign(Exception):
    """An operand of a type with its own NumPy override: let it (or NumPy) decide."""


class _NotSupported(TypeError):
    """A NumPy function, or an argument of one, that strided does not implement: on the
    CPU the call goes to NumPy (``_numpy_fallback``); elsewhere it is the TypeError."""


def _xp():
    import strided
    return strided


def _ndarray_operand(v: np.ndarray, device):
    """The mixing rule: an ndarray joins a strided operation as ``asarray(v, device=...)``."""
    return _asarray(v, device=device)


def _device_of(args):
    """The device of the first strided array among ``args`` (one level into lists)."""
    for a in args:
        if type(a) is Array:
            return a._device
        if type(a) in (list, tuple):
            for b in a:
                if type(b) is Array:
                    return b._device
    return None


def _convert(v, device, nested=True):
    """One argument of a NumPy call, by the mixing rule."""
    t = type(v)
    if t is Array or t in _PYSCALARS or v is None:
        return v
    if t is np.ndarray:
        return _ndarray_operand(v, device)
    if isinstance(v, np.generic):
        return v.item() if v.dtype.kind in "biufc" else v
    if isinstance(v, _PYSCALARS):  # a subclass (``x.size``, an IntEnum): the plain scalar
        return next(t for t in _PYSCALARS[1:] if isinstance(v, t))(v)
    if nested and t in (list, tuple):
        return t(_convert(b, device, False) for b in v)
    if hasattr(type(v), "__array_ufunc__") or hasattr(type(v), "__array_function__"):
        raise _Foreign
    return v


def _array_operand(v, device):
    """An operand that must become an array (a list, a NumPy-readable object) by NumPy's reading."""
    v = _convert(v, device)
    if type(v) is Array or type(v) in _PYSCALARS:
        return v
    return _ndarray_operand(np.asarray(v), device)


def _write_out(result, out, what: str):
    """NumPy's ``out=``: write ``result`` into a strided array or (cpu) an ndarray."""
    if out is None:
        return result
    if type(out) is tuple:
        if len(out) != 1:
            raise _NotSupported(f"{what}: strided supports one output array; got {len(out)}")
        out = out[0]
        if out is None:
            return result
    if type(out) is Array:
        if tuple(out.shape) != tuple(result.shape):
            raise ValueError(f"{what}: out= has shape {tuple(out.shape)}; the result has shape "
                             f"{tuple(result.shape)}")
        if not np.can_cast(result.dtype._np, out.dtype._np, "same_kind"):  # NumPy's out= rule
            raise TypeError(f"{what}: can't cast the {result.dtype} result to out='s {out.dtype} "
                            f"(casting='same_kind')")
        out[...] = result
        return out
    if type(out) is np.ndarray:
        if result._device.type != "cpu":
            raise TypeError(f"{what}: can't write a {result._device} result into a NumPy out= array "
                            f"(no implicit device-to-host copy); pass a strided array as out=")
        np.copyto(out, result._export(), casting="same_kind")
        return out
    raise TypeError(f"{what}: out= must be a strided array or an ndarray; got {type(out).__name__}")


# --- __array_ufunc__ ---------------------------------------------------------------------

# NumPy ufunc names that differ from the standard's (np.true_divide is np.divide).
# Built from the registry rows' ``numpy`` column (the one place NumPy's names are kept);
# ``rint`` is NumPy's ufunc of the standard's ``round`` (np.round is not a ufunc).
_UFUNC_NAMES = {r.numpy: r.name for r in _elementwise.ROWS if r.numpy} | {"rint": "round"}
# ufunc methods with a namespace equivalent: (ufunc name, method) -> function name.
_UFUNC_METHODS = {
    ("add", "reduce"): "sum", ("multiply", "reduce"): "prod",
    ("maximum", "reduce"): "max", ("minimum", "reduce"): "min",
    ("logical_and", "reduce"): "all", ("logical_or", "reduce"): "any",
    ("add", "accumulate"): "cumulative_sum", ("multiply", "accumulate"): "cumulative_prod",
}
# Keyword arguments of a ufunc call that strided accepts at NumPy's default only.
_UFUNC_DEFAULTS = {"casting": "same_kind", "order": "K", "subok": True, "where": True,
                   "signature": None, "axes": None, "axis": None, "keepdims": False}


def _build_ufunc_table():
    rows = {r.name: r for r in _elementwise.ROWS}
    table = {}
    # (vars, not dir: dir(np) names the submodules NumPy imports on first access -- f2py,
    # testing, ma, polynomial ... -- and getattr imported them all: ~150 ms of every import)
    for uf in list(vars(np).values()):
        if not isinstance(uf, np.ufunc) or uf in table:
            continue
        ours = _UFUNC_NAMES.get(uf.__name__, uf.__name__)
        row = rows.get(ours)
        if row is not None and row.nargs == uf.nin and uf.nout == 1:
            table[uf] = ours
    table[np.matmul] = "matmul"
    table[np.vecdot] = "vecdot"
    return table


_UFUNCS = _build_ufunc_table()


def _ufunc_name(ufunc, method) -> str:
    return f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")


_UFUNC_FUNCS: dict = {}  # ufunc -> strided function, filled on first use


def _ufunc_function(ufunc):
    fn = _UFUNC_FUNCS.get(ufunc)
    if fn is None:
        name = _UFUNCS[ufunc]
        xp = _xp()
        fn = _UFUNC_FUNCS[ufunc] = getattr(xp.linalg if name == "vecdot" else xp, name)
    return fn


def _numpy_loop_operands(ufunc, args):
    """The operands cast to the dtypes NumPy's loop computes in, where NumPy computes
    integer or bool inputs in a floating dtype (``np.sqrt`` of int64 is float64) and
    strided's function takes floating dtypes only (the standard's signature); None
    when no operand needs it (the caller's error stands).

    Only called after strided's function refused the operands, so what strided
    computes today never changes; a NumPy call gets NumPy's answer instead of an error.
    """
    dtypes = []
    for a in args:
        if type(a) is Array:
            dtypes.append(a._dtype._np)
        elif type(a) in _PYSCALARS:
            dtypes.append(type(a))  # NEP 50: a weak Python scalar
        else:
            return None
    try:
        loop = ufunc.resolve_dtypes(tuple(dtypes) + (None,) * ufunc.nout)
    except (TypeError, ValueError, np.exceptions.DTypePromotionError):
        return None
    xp = _xp()
    cast, changed = [], False
    for a, d in zip(args, loop):
        if type(a) is Array and a._dtype.kind in "biu" and d.kind in "fc":
            a = xp.astype(a, d)
            changed = True
        cast.append(a)
    return cast if changed else None


def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
    """NEP 13: a NumPy ufunc on strided arrays runs strided's function of the same meaning
    (NumPy's own loop, through ``__array__``, for what strided lacks, on the CPU)."""
    if method == "__call__" and not kwargs and ufunc in _UFUNCS:
        for v in inputs:
            if type(v) is not Array and type(v) not in _PYSCALARS:
                break
        else:  # the common case, strided arrays and Python scalars only: straight through
            try:
                return _ufunc_function(ufunc)(*inputs)
            except TypeError:
                cast = _numpy_loop_operands(ufunc, inputs)
                if cast is None:
                    raise
            return _ufunc_function(ufunc)(*cast)
    try:
        return _array_ufunc(self, ufunc, method, inputs, dict(kwargs))
    except _NotSupported as e:
        dev = _device_of(inputs) or _device_of(kwargs.get("out") or ()) or self._device
        call = getattr(ufunc, method) if method != "__call__" else ufunc
        return _numpy_fallback(call, _ufunc_name(ufunc, method), inputs, kwargs, dev, e,
                               inplace=inputs[0] if method == "at" else None)


def _array_ufunc(self, ufunc, method, inputs, kwargs):
    what = _ufunc_name(ufunc, method)
    dev = _device_of(inputs) or self._device
    try:
        args = [_array_operand(v, dev) for v in inputs]
        out = kwargs.pop("out", None)
        if out is not None:
            out = tuple(_convert(o, dev, False) if type(o) is not np.ndarray else o for o in out)
    except _Foreign:
        return NotImplemented  # another library's array: its override (or NumPy) decides
    xp = _xp()
    if method == "__call__":
        name = _UFUNCS.get(ufunc)
        if name is None:
            raise _NotSupported(f"{what} is not implemented by strided (it has no equivalent function)")
        dtype = kwargs.pop("dtype", None)
        _check_defaults(what, kwargs, _UFUNC_DEFAULTS)
        if dtype is not None:
            args = [xp.astype(a, dtype) if type(a) is Array else a for a in args]
        try:
            result = _ufunc_function(ufunc)(*args)
        except TypeError:
            cast = _numpy_loop_operands(ufunc, args)
            if cast is None:
                raise
            result = _ufunc_function(ufunc)(*cast)
        return _write_out(result, out, what)
    if method == "outer" and ufunc in _UFUNCS and ufunc.nin == 2 and not kwargs:
        a, b = (a if type(a) is Array else xp.asarray(a, device=dev) for a in args)
        a = xp.reshape(a, tuple(a.shape) + (1,) * b.ndim)
        return _write_out(getattr(xp, _UFUNCS[ufunc])(a, b), out, what)
    name = _UFUNC_METHODS.get((ufunc.__name__, method))
    if name is None or len(args) != 1:
        raise _NotSupported(f"{what} is not implemented by strided")
    x = args[0] if type(args[0]) is Array else xp.asarray(args[0], device=dev)
    axis = kwargs.pop("axis", 0)
    dtype = kwargs.pop("dtype", None)
    keepdims = kwargs.pop("keepdims", False)
    _check_defaults(what, kwargs, {"initial": _NoValue, "where": True})
    if method == "accumulate":
        if keepdims:
            raise TypeError(f"{what}: keepdims is not an argument of accumulate")
        return _write_out(getattr(xp, name)(x, axis=axis, dtype=dtype), out, what)
    if dtype is not None:
        x = xp.astype(x, dtype)
    return _write_out(getattr(xp, name)(x, axis=axis, keepdims=keepdims), out, what)


def _check_defaults(what: str, given: dict, defaults: dict) -> None:
    for k, v in given.items():
        if k not in defaults:
            raise _NotSupported(f"{what}: strided does not support the argument {k}=")
        d = defaults[k]
        if v is not d and not (d is not _NoValue and type(v) is type(d) and v == d):
            raise _NotSupported(f"{what}: strided supports {k}= only at NumPy's default "
                            f"({'no value' if d is _NoValue else repr(d)}); got {v!r}")


# --- __array_function__ ------------------------------------------------------------------

_FUNCTIONS: dict = {}  # NumPy function -> handler (called with NumPy's own arguments)


_CREATION: set = set()  # handlers of NumPy's creation functions (called with like=)


def _implements(*funcs, creation=False):
    def deco(handler):
        for f in funcs:
            _FUNCTIONS[f] = handler
            if creation:
                _CREATION.add(f)
        return handler
    return deco


def _qualname(func) -> str:
    mod = func.__module__ or "numpy"
    if mod.startswith("numpy.") and not mod.startswith(("numpy.linalg", "numpy.fft")):
        mod = "numpy"
    return f"{mod}.{func.__name__}"


def __array_function__(self, func, types, args, kwargs):
    """NEP 18: a NumPy function on strided arrays runs strided's implementation."""
    for t in types:
        if t is not np.ndarray and not issubclass(t, Array):
            return NotImplemented  # another library's array type decides
    handler = _FUNCTIONS.get(func)
    dev = _device_of(args) or _device_of(kwargs.values()) or self._device
    if handler is None:
        return _numpy_fallback(func, f"{_qualname(func)}()", args, kwargs, dev,
                               _NotSupported(f"{_qualname(func)}() is not implemented by strided"))
    try:
        cargs = [_convert(a, dev) for a in args]
        ckwargs = {k: (v if k == "out" else _convert(v, dev)) for k, v in kwargs.items()}
    except _Foreign:
        return NotImplemented
    try:
        if func in _CREATION:  # ``like=`` a strided array: created on its device
            return handler(*cargs, _device=dev, **ckwargs)
        return handler(*cargs, **ckwargs)
    except _NotSupported as e:
        if func in _CREATION:
            raise
        return _numpy_fallback(func, f"{_qualname(func)}()", args, kwargs, dev, e)


# --- NumPy's own path, for what strided does not implement ---------------------------------

def _numpy_fallback(call, what: str, args, kwargs, dev, reason, inplace=None):
    """``call`` (a NumPy function or ufunc method) run by NumPy on the CPU: an op whose
    kernel is "call NumPy", through the stages every strided call goes through.

    - handlers: an argument that requires grad is refused (NumPy's path records no
      gradient, as ``np.asarray(x)`` refuses it); dimension names are kept where the
      rule of ``_FALLBACK_NAMES`` gives them, else refused (DimensionNameError), never
      silently dropped;
    - write: the arrays NumPy writes (``out=``, the first operand of ``ufunc.at``, the
      target of ``np.put``/``copyto``/``place``/``putmask``/``fill_diagonal``/...:
      ``_WRITES``) are handed over by the write stage (``_core/call/write.py``: overlap
      refused, the owning Storage's version counter bumped, so autograd's saved values
      see the write); every other strided argument goes to NumPy read-only, so a write
      NumPy would make into it raises instead of bypassing the counter;
    - adopt: ndarrays in the result come back through ``_core/call/adopt.py``, as views of
      the Storage that owns their bytes when NumPy returned a view of an argument
      (``rot90``, ``fliplr``, ``hsplit``: one version counter), an argument handed back
      as itself (``asarray_chkfinite``) as that strided array; NumPy scalars as 0-d
      arrays (as strided's own ``np.sum(x)`` returns); a Python object, or an ndarray of
      a dtype strided lacks, as NumPy returns it.

    On another device NumPy can't read the data: a TypeError names the function and
    the way out.
    """
    if dev is not None and dev.type != "cpu":
        raise TypeError(
            f"{what} is not implemented for strided arrays on {dev} ({reason}), and NumPy can't "
            f"read device memory: copy the data to the host with x.cpu() (NumPy then computes it "
            f"there), or use strided's functions (docs/guide/interop.md lists the NumPy "
            f"functions strided implements on every device)") from None
    arrays = []  # the strided arguments, one level into lists (the owners of returned views)
    _collect(args, arrays)
    _collect(kwargs.values(), arrays)
    for a in arrays:
        if a._device.type != "cpu":
            raise TypeError(f"{what}: a {a._device} array can't go to NumPy; call .cpu() first")
        e = a._ext
        if e is not None and e.requires_grad:
            raise RuntimeError(f"{what}: NumPy's own path records no gradient, and an argument "
                               f"requires grad (as np.asarray(x)); call it on x.detach(), or use "
                               f"strided's functions")
    names = _fallback_names(call, what, args, kwargs, arrays)
    targets = list(_WRITES[call](args, kwargs)) if call in _WRITES else []
    if inplace is not None:
        targets.append(inplace)
    written = {}  # id(native handed to NumPy) -> the strided array it is
    wnatives = {}  # id(strided target) -> its writable native (each target checked once)
    for t in targets:
        if type(t) is Array and id(t) not in wnatives:
            check = _write.check_names
            for v in args[1:2] if call is np.copyto else ():
                check(t, v, what)
            wnatives[id(t)] = _write.target(t, what)

    def host(v, depth=0):
        t = type(v)
        if t is Array:
            r = wnatives.get(id(v))
            if r is None:
                r = v._export().view()
                r.flags.writeable = False  # (only a declared target is written)
            written[id(r)] = v
            return r
        if (t is list or t is tuple) and depth < 3:
            return t(host(b, depth + 1) for b in v)
        return v

    def out_target(v):
        if type(v) is Array:
            if id(v) not in wnatives:
                wnatives[id(v)] = _write.target(v, what)
            return host(v)
        written[id(v)] = v  # an ndarray out= comes back as itself
        return v

    nargs = [host(a) for a in args]
    nkwargs = {}
    for k, v in kwargs.items():
        if k == "out":
            nkwargs[k] = tuple(out_target(o) for o in v) if type(v) is tuple else out_target(v)
        else:
            nkwargs[k] = host(v)
    r = _from_numpy(call(*nargs, **nkwargs), written, arrays)
    return r if names is None else _name_results(r, names, arrays, what)


def _collect(values, into, depth=0):
    for v in values:
        t = type(v)
        if t is Array:
            into.append(v)
        elif (t is list or t is tuple) and depth < 2:
            _collect(v, into, depth + 1)


def _from_numpy(r, written, owners=(), depth=0):
    w = written.get(id(r))
    if w is not None:
        return w
    t = type(r)
    if t is np.ndarray:
        if r.dtype.isnative and r.dtype in _SUPPORTED:
            return _adopt.adopt(r, owners)
        return r
    if isinstance(r, np.generic) and r.dtype in _SUPPORTED:
        return _asarray(np.asarray(r))  # a 0-d array, as strided's own np.sum(x) returns
    if isinstance(r, tuple) and depth < 3:
        items = [_from_numpy(v, written, owners, depth + 1) for v in r]
        return t(items) if t is tuple else (t._make(items) if hasattr(t, "_make") else tuple(items))
    if t is list and depth < 3:
        return [_from_numpy(v, written, owners, depth + 1) for v in r]
    return r


def _arg(args, kwargs, i, name):
    return args[i] if len(args) > i else kwargs.get(name)


# NumPy functions that write into an argument (the write stage hands it over; every
# other strided argument is read-only to NumPy): function -> (args, kwargs) -> targets.
_WRITES = {
    np.put: lambda a, k: (_arg(a, k, 0, "a"),),
    np.copyto: lambda a, k: (_arg(a, k, 0, "dst"),),
    np.place: lambda a, k: (_arg(a, k, 0, "arr"),),
    np.putmask: lambda a, k: (_arg(a, k, 0, "a"),),
    np.fill_diagonal: lambda a, k: (_arg(a, k, 0, "a"),),
    np.put_along_axis: lambda a, k: (_arg(a, k, 0, "arr"),),
    # copy=False: NumPy replaces the values in place
    np.nan_to_num: lambda a, k: (_arg(a, k, 0, "x"),) if _arg(a, k, 1, "copy") is False else (),
}


def _names_of(a):
    e = a._ext
    return None if e is None or e.names is None else e.names


def _same_dims(call, args, kwargs, named):
    """The result has the dimensions of the (first) array argument: its names."""
    return named[0]


def _rot90_names(call, args, kwargs, named):
    """``rot90`` by an odd ``k`` swaps its two ``axes`` (and their names)."""
    m = _arg(args, kwargs, 0, "m")
    k = _arg(args, kwargs, 1, "k")
    axes = _arg(args, kwargs, 2, "axes")
    k = 1 if k is None else k
    axes = (0, 1) if axes is None else axes
    n = list(_names_of(m) or (None,) * m.ndim)
    if k % 2:
        a, b = (_layout.normalize_axis(ax, len(n), "numpy.rot90") for ax in axes)
        n[a], n[b] = n[b], n[a]
    return tuple(n)


def _broadcast_names(call, args, kwargs, named, what=""):
    """A ufunc: the inputs' names unified from the right (None matches any name)."""
    nd = max(a.ndim for a in args if type(a) is Array)
    out = [None] * nd
    for a in args:
        if type(a) is not Array:
            continue
        n = _names_of(a) or (None,) * a.ndim
        for i, name in enumerate(n, nd - len(n)):
            if name is None:
                continue
            if out[i] is not None and out[i] != name:
                from ..named._core import DimensionNameError
                raise DimensionNameError(f"{what}: dimension names {list(n)} don't match "
                                         f"{out} (from the right)")
            out[i] = name
    return tuple(out)


# How the names of a function's result follow from its arguments on NumPy's own path
# (a function not here refuses named arguments: DimensionNameError).
_FALLBACK_NAMES = {
    **dict.fromkeys(_WRITES, None),  # the target keeps its names (the result is None)
    **dict.fromkeys((np.nan_to_num, np.sinc, np.fliplr, np.flipud, np.asarray_chkfinite,
                     np.real_if_close, np.fix, np.i0, np.angle), _same_dims),
    np.rot90: _rot90_names,
}


def _fallback_names(call, what, args, kwargs, arrays):
    """The result's names (None: no names to give), or DimensionNameError."""
    named = [n for n in map(_names_of, arrays) if n is not None]
    if not named:
        return None
    if type(call) is np.ufunc:  # ufunc(...): elementwise, broadcasting
        return _broadcast_names(call, args, kwargs, named, what)
    if call in _FALLBACK_NAMES:
        rule = _FALLBACK_NAMES[call]
        return None if rule is None else rule(call, args, kwargs, named)
    from ..named._core import DimensionNameError
    raise DimensionNameError(
        f"{what} takes NumPy's own path (strided does not implement it), and strided has no "
        f"dimension-name rule for it, so it can't tell the names of its result; drop the names "
        f"first with x.rename(None)")


def _name_results(r, names, arrays, what):
    """Name the fresh strided arrays in the result (a strided argument handed back keeps
    its own names)."""
    from ..named._core import tag
    items = r if isinstance(r, (tuple, list)) else (r,)
    for v in items:
        if type(v) is Array and not any(v is a for a in arrays):
            if len(names) != v.ndim:
                from ..named._core import DimensionNameError
                raise DimensionNameError(f"{what}: the result has {v.ndim} dimensions, the names "
                                         f"rule gave {list(names)}; drop the names first with "
                                         f"x.rename(None)")
            tag(v, names)
    return r


_SUPPORTED = frozenset(np.dtype(n) for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128"))


def _arr(v, like=None):
    """``v`` as a strided array (a list or scalar by NumPy's reading)."""
    if type(v) is Array:
        return v
    dev = like._device if type(like) is Array else None
    return _asarray(np.asarray(v), device=dev)


def _flat_axis(x, axis):
    """NumPy's ``axis=None`` of cumsum, sort, take: the flattened array along axis 0."""
    if axis is None:
        return _xp().reshape(x, (-1,)), 0
    return x, axis


def _refuse(what: str, **unsupported) -> None:
    """TypeError for arguments strided does not implement (given with a non-default value)."""
    for k, v in unsupported.items():
        if v is not _NoValue and v is not None and v is not False:
            raise _NotSupported(f"{what}: strided does not support {k}= (got {_brief(v)})")


def _brief(v) -> str:
    """``v`` for an error message: an array by its kind and shape, not its values."""
    if type(v) is Array or isinstance(v, np.ndarray):
        return f"a {v.dtype} array of shape {tuple(v.shape)}"
    return repr(v)


def _keep(v) -> bool:
    return builtins.bool(v) if v is not _NoValue else False


# Reductions: NumPy's (a, axis, dtype, out, keepdims, initial, where) -> the namespace's.
def _reduction(np_funcs, name, has_dtype=True):
    what = f"numpy.{np_funcs[0].__name__}"

    if has_dtype:
        def handler(a, axis=None, dtype=None, out=None, keepdims=_NoValue, initial=_NoValue,
                    where=_NoValue):
            _refuse(what, initial=initial, where=None if where is True else where)
            x = _arr(a)
            fn = _lookup(name, what)
            kw = {"axis": axis, "keepdims": _keep(keepdims)}
            if dtype is not None:
                if "dtype" in _params(fn):
                    kw["dtype"] = dtype
                else:
                    x = _xp().astype(x, dtype)
            return _write_out(fn(x, **kw), out, what)
    else:
        def handler(a, axis=None, out=None, keepdims=_NoValue, initial=_NoValue, where=_NoValue):
            _refuse(what, initial=initial, where=None if where is True else where)
            return _write_out(_lookup(name, what)(_arr(a), axis=axis, keepdims=_keep(keepdims)),
                              out, what)
    _implements(*np_funcs)(handler)


def _lookup(name: str, what: str):
    """A strided function by name (``linalg.x``/``fft.x`` for the extensions), looked up
    at call time so functions added later are found; _NotSupported when strided has none."""
    obj = _xp()
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise _NotSupported(f"{what}() is not implemented by strided (it has no {name})")
    return obj


_PARAMS: dict = {}


def _params(fn):
    p = _PARAMS.get(fn)
    if p is None:
        p = _PARAMS[fn] = frozenset(inspect.signature(fn).parameters)
    return p


for _np_funcs, _name, _dt in [
        ((np.sum,), "sum", True), ((np.prod,), "prod", True),
        ((np.nansum,), "nansum", True), ((np.nanprod,), "nanprod", True),
        ((np.max, np.amax), "max", False), ((np.min, np.amin), "min", False),
        ((np.nanmax,), "nanmax", False), ((np.nanmin,), "nanmin", False)]:
    _reduction(_np_funcs, _name, _dt)


def _mean_like(np_func, name):
    what = f"numpy.{np_func.__name__}"

    def handler(a, axis=None, dtype=None, out=None, keepdims=_NoValue, *, where=_NoValue):
        _refuse(what, where=None if where is True else where)
        x = _arr(a)
        fn = _lookup(name, what)
        kw = {"axis": _ax(axis), "keepdims": _keep(keepdims)}
        if dtype is not None:
            if "dtype" in _params(fn):
                kw["dtype"] = dtype  # accumulated in dtype, as NumPy
            else:
                x = _xp().astype(x, dtype)
        return _write_out(fn(x, **kw), out, what)
    _FUNCTIONS[np_func] = handler


_mean_like(np.mean, "mean")
_mean_like(np.nanmean, "nanmean")


def _var_like(np_func, name):
    what = f"numpy.{np_func.__name__}"

    def handler(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NoValue, *, where=_NoValue,
                mean=_NoValue, correction=_NoValue):
        _refuse(what, where=None if where is True else where, mean=mean)
        if correction is not _NoValue:
            if ddof != 0:
                raise ValueError(f"{what}: ddof and correction can't both be given")
            ddof = correction
        x = _arr(a)
        if dtype is not None:
            x = _xp().astype(x, dtype)
        return _write_out(_lookup(name, what)(x, axis=axis, correction=ddof, keepdims=_keep(keepdims)),
                          out, what)
    _FUNCTIONS[np_func] = handler


for _f, _n in [(np.std, "std"), (np.var, "var"), (np.nanstd, "nanstd"), (np.nanvar, "nanvar")]:
    _var_like(_f, _n)


def _bool_reduction(np_func, name):
    what = f"numpy.{np_func.__name__}"

    def handler(a, axis=None, out=None, keepdims=_NoValue, *, where=_NoValue):
        _refuse(what, where=None if where is True else where)
        return _write_out(_lookup(name, what)(_arr(a), axis=axis, keepdims=_keep(keepdims)), out, what)
    _FUNCTIONS[np_func] = handler


_bool_reduction(np.any, "any")
_bool_reduction(np.all, "all")


def _arg_reduction(np_func, name):
    what = f"numpy.{np_func.__name__}"

    def handler(a, axis=None, out=None, *, keepdims=_NoValue):
        return _write_out(_lookup(name, what)(_arr(a), axis=axis, keepdims=_keep(keepdims)), out, what)
    _FUNCTIONS[np_func] = handler


for _f, _n in [(np.argmax, "argmax"), (np.argmin, "argmin"),
               (np.nanargmax, "nanargmax"), (np.nanargmin, "nanargmin")]:
    _arg_reduction(_f, _n)


def _median_like(np_func, name):
    what = f"numpy.{np_func.__name__}"

    def handler(a, axis=None, out=None, overwrite_input=False, keepdims=False):
        return _write_out(_lookup(name, what)(_arr(a), axis=_ax(axis), keepdims=keepdims), out, what)
    _FUNCTIONS[np_func] = handler


def _quantile_like(np_func, name, scale):
    what = f"numpy.{np_func.__name__}"

    def handler(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None, interpolation=None):
        _refuse(what, weights=weights, interpolation=interpolation)
        x = _arr(a)
        q = q / scale if type(q) in _PYSCALARS else _arr(q, x) / scale
        kw = {"axis": _ax(axis), "keepdims": keepdims}
        if method != "linear":
            kw["method"] = method
        return _write_out(_lookup(name, what)(x, q, **kw), out, what)
    _FUNCTIONS[np_func] = handler


for _f, _n in [(np.median, "median"), (np.nanmedian, "nanmedian")]:
    _median_like(_f, _n)
for _f, _n, _scale in [(np.quantile, "quantile", 1), (np.percentile, "quantile", 100),
                       (np.nanquantile, "nanquantile", 1), (np.nanpercentile, "nanquantile", 100)]:
    _quantile_like(_f, _n, _scale)


def _nan_cumulative(np_func, name):
    what = f"numpy.{np_func.__name__}"

    def handler(a, axis=None, dtype=None, out=None):
        return _write_out(_lookup(name, what)(_arr(a), axis=axis, dtype=dtype), out, what)
    _FUNCTIONS[np_func] = handler


_nan_cumulative(np.nancumsum, "nancumsum")
_nan_cumulative(np.nancumprod, "nancumprod")


@_implements(np.count_nonzero)
def _count_nonzero(a, axis=None, *, keepdims=False):
    return _xp().count_nonzero(_arr(a), axis=axis, keepdims=keepdims)


def _cumulative(np_func, name):
    what = f"numpy.{np_func.__name__}"

    def handler(a, axis=None, dtype=None, out=None):
        x, axis = _flat_axis(_arr(a), axis)
        return _write_out(getattr(_xp(), name)(x, axis=axis, dtype=dtype), out, what)
    _FUNCTIONS[np_func] = handler


_cumulative(np.cumsum, "cumulative_sum")
_cumulative(np.cumprod, "cumulative_prod")


def _cumulative_std_like(np_func, name):
    def handler(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        fn = getattr(_xp(), name)
        return _write_out(fn(_arr(x), axis=axis, dtype=dtype, include_initial=include_initial),
                          out, f"numpy.{np_func.__name__}")
    _FUNCTIONS[np_func] = handler


for _n in ("cumulative_sum", "cumulative_prod"):
    if hasattr(np, _n):  # (NumPy >= 2.1; on 2.0 there is no NumPy function to dispatch)
        _cumulative_std_like(getattr(np, _n), _n)


def _same_args(np_func, name):
    """A NumPy function whose parameters are the strided function's (the array API
    names NumPy 2 adopted): each is passed by keyword where strided's takes one."""
    what = _qualname(np_func)
    sig = inspect.signature(np_func)

    def handler(*args, **kwargs):
        fn = _lookup(name, what)
        ours = inspect.signature(fn).parameters
        pos, kw, out = [], {}, None
        for k, v in sig.bind(*args, **kwargs).arguments.items():
            if k == "out":
                out = v
            elif k in ours and ours[k].kind is not inspect.Parameter.POSITIONAL_ONLY:
                kw[k] = v
            else:
                pos.append(v)
        return _write_out(fn(*pos, **kw), out, what)
    _FUNCTIONS[np_func] = handler


def _ax(axis):
    return tuple(axis) if type(axis) in (list, tuple) else axis


@_implements(np.transpose, np.permute_dims)
def _transpose(a, axes=None):
    x = _arr(a)
    return _xp().permute_dims(x, tuple(range(x.ndim))[::-1] if axes is None else tuple(axes))


@_implements(np.matrix_transpose)
def _matrix_transpose(x, /):
    return _xp().matrix_transpose(_arr(x))


@_implements(np.swapaxes)
def _swapaxes(a, axis1, axis2):
    x = _arr(a)
    perm = list(range(x.ndim))
    i, j = (_layout.normalize_axis(d, x.ndim, "numpy.swapaxes") for d in (axis1, axis2))
    perm[i], perm[j] = perm[j], perm[i]
    return _xp().permute_dims(x, tuple(perm))


@_implements(np.reshape)
def _reshape(a, /, shape=None, order="C", *, newshape=_NoValue, copy=None):
    if order != "C":
        raise _NotSupported(f"numpy.reshape: strided reshapes in C order only; got order={order!r}")
    if shape is None:
        shape = newshape
    shape = (shape,) if type(shape) is builtins.int else tuple(shape)
    return _xp().reshape(_arr(a), shape, copy=copy)


@_implements(np.ravel)
def _ravel(a, order="C"):
    if order not in ("C", "K", "A"):
        raise _NotSupported(f"numpy.ravel: strided flattens in C order only; got order={order!r}")
    return _xp().reshape(_arr(a), (-1,))


@_implements(np.squeeze)
def _squeeze(a, axis=None):
    x = _arr(a)
    if axis is None:
        axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
    return _xp().squeeze(x, axis=_ax(axis))


@_implements(np.expand_dims)
def _expand_dims(a, axis):
    x = _arr(a)
    axes = axis if type(axis) in (list, tuple) else (axis,)
    nd = x.ndim + len(axes)
    for ax in sorted(_layout.normalize_axis(d, nd, "numpy.expand_dims") for d in axes):
        x = _xp().expand_dims(x, axis=ax)
    return x


def _joined(what, arrays, dtype, casting):
    if casting not in ("same_kind", None):
        raise _NotSupported(f"{what}: strided supports casting='same_kind' only; got {casting!r}")
    xs = [_arr(v) for v in arrays]
    if dtype is not None:
        xs = [_xp().astype(v, dtype) for v in xs]
    return xs


@_implements(np.concatenate)
def _concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    xs = _joined("numpy.concatenate", arrays, dtype, casting)
    return _write_out(_xp().concat(xs, axis=axis), out, "numpy.concatenate")


@_implements(np.stack)
def _stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    xs = _joined("numpy.stack", arrays, dtype, casting)
    return _write_out(_xp().stack(xs, axis=axis), out, "numpy.stack")


@_implements(np.broadcast_to)
def _broadcast_to(array, shape, subok=False):
    shape = (shape,) if type(shape) is builtins.int else tuple(shape)
    return _xp().broadcast_to(_arr(array), shape)


@_implements(np.broadcast_arrays)
def _broadcast_arrays(*args, subok=False):
    return tuple(_xp().broadcast_arrays(*(_arr(a) for a in args)))


@_implements(np.where)
def _where(condition, x=None, y=None, /):
    if x is None and y is None:
        return _xp().nonzero(_arr(condition))
    if x is None or y is None:
        raise ValueError("numpy.where: either both or neither of x and y should be given")
    c = _arr(condition)
    if type(x) is not Array and type(y) is not Array:
        x = _arr(x, c)  # two scalars: NumPy's reading of them gives the dtype
    return _xp().where(c, x, y)


def _atleast(np_func, nd):
    def one(v):
        x = _arr(v)
        shape = tuple(x.shape)
        if len(shape) >= nd:
            return x
        if nd == 3:  # NumPy's: (N,) -> (1, N, 1), (M, N) -> (M, N, 1)
            shape = {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)]
        else:
            shape = (1,) * (nd - len(shape)) + shape
        return _xp().reshape(x, shape)

    def handler(*arys):
        r = tuple(one(v) for v in arys)
        return r[0] if len(r) == 1 else r
    _FUNCTIONS[np_func] = handler


_atleast(np.atleast_1d, 1)
_atleast(np.atleast_2d, 2)
_atleast(np.atleast_3d, 3)


@_implements(np.nonzero)
def _nonzero(a):
    return _xp().nonzero(_arr(a))


@_implements(np.argwhere)
def _argwhere(a):
    x = _arr(a)
    if x.ndim == 0:
        x = _xp().reshape(x, (1,))[:, None][:1]
    return _xp().stack(_xp().nonzero(x), axis=-1)


@_implements(np.clip)
def _clip(a, a_min=_NoValue, a_max=_NoValue, out=None, *, min=_NoValue, max=_NoValue, **kwargs):
    _refuse("numpy.clip", **kwargs)
    lo = min if min is not _NoValue else a_min
    hi = max if max is not _NoValue else a_max
    lo = None if lo is _NoValue else lo
    hi = None if hi is _NoValue else hi
    return _write_out(_xp().clip(_arr(a), lo, hi), out, "numpy.clip")


@_implements(np.round, np.around)
def _round(a, decimals=0, out=None):
    xp = _xp()
    x = _arr(a)
    if decimals == 0:
        r = xp.round(x)
    elif x.dtype.kind in "fc":
        # Note: as NumPy does (scale, round half to even, unscale).
        s = 10.0 ** decimals
        r = xp.round(x * s) / s
    else:
        raise _NotSupported(f"numpy.round: strided rounds {x.dtype} arrays with decimals=0 only; got {decimals}")
    return _write_out(r, out, "numpy.round")


@_implements(np.real)
def _real(val):
    return _xp().real(_arr(val))


@_implements(np.imag)
def _imag(val):
    return _xp().imag(_arr(val))


@_implements(np.isclose)
def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _xp().isclose(_arr(a), _arr(b, a), rtol=rtol, atol=atol, equal_nan=equal_nan)


@_implements(np.allclose)
def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return builtins.bool(_xp().all(_isclose(a, b, rtol, atol, equal_nan)))


@_implements(np.array_equal)
def _array_equal(a1, a2, equal_nan=False):
    x, y = _arr(a1), _arr(a2, a1)
    if tuple(x.shape) != tuple(y.shape):
        return False
    eq = x == y
    if equal_nan:
        eq = eq | (_xp().isnan(x) & _xp().isnan(y)) if x.dtype.kind in "fc" else eq
    return builtins.bool(_xp().all(eq))


def _sorting(np_func, name):
    what = f"numpy.{np_func.__name__}"

    def handler(a, axis=-1, kind=None, order=None, *, stable=None):
        _refuse(what, order=order)
        x, axis = _flat_axis(_arr(a), axis)
        return getattr(_xp(), name)(x, axis=axis, stable=True)  # NumPy's sorts agree with a stable one
    _FUNCTIONS[np_func] = handler


_sorting(np.sort, "sort")
_sorting(np.argsort, "argsort")


@_implements(np.unique)
def _unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
            equal_nan=True, sorted=True):
    _refuse("numpy.unique", axis=axis)
    x = _arr(ar)
    if not (return_index or return_inverse or return_counts):
        return _xp().unique_values(x)
    r = _xp().unique_all(x)
    out = [r.values]
    if return_index:
        out.append(r.indices)
    if return_inverse:
        out.append(r.inverse_indices)
    if return_counts:
        out.append(r.counts)
    return tuple(out)


for _f, _n in [(np.unique_values, "unique_values"), (np.unique_counts, "unique_counts"),
               (np.unique_inverse, "unique_inverse"), (np.unique_all, "unique_all")]:
    _same_args(_f, _n)


@_implements(np.take)
def _take(a, indices, axis=None, out=None, mode="raise"):
    if mode != "raise":
        raise _NotSupported(f"numpy.take: strided supports mode='raise' only; got {mode!r}")
    x = _arr(a)
    idx = _arr(indices, x)
    x, axis = _flat_axis(x, axis)
    if idx.ndim != 1:
        shape = tuple(idx.shape)
        r = _xp().take(x, _xp().reshape(idx, (-1,)), axis=axis)
        ax = _layout.normalize_axis(axis, x.ndim, "numpy.take")
        r = _xp().reshape(r, tuple(x.shape[:ax]) + shape + tuple(x.shape[ax + 1:]))
    else:
        r = _xp().take(x, idx, axis=axis)
    return _write_out(r, out, "numpy.take")


@_implements(np.compress)
def _compress(condition, a, axis=None, out=None):
    x, axis = _flat_axis(_arr(a), axis)
    c = _arr(condition, x)
    if c.ndim != 1:
        raise ValueError(f"numpy.compress: condition must be 1-D; got shape {tuple(c.shape)}")
    (idx,) = _xp().nonzero(c)  # extra False entries select nothing; an extra True is out of bounds
    return _write_out(_xp().take(x, idx, axis=axis), out, "numpy.compress")


@_implements(np.take_along_axis)
def _take_along_axis(arr, indices, axis=-1):
    x, axis = _flat_axis(_arr(arr), axis)
    return _xp().take_along_axis(x, _arr(indices, x), axis=axis)


@_implements(np.diagonal)
def _diagonal(a, offset=0, axis1=0, axis2=1):
    x = _arr(a)
    return _xp().diagonal(x, offset=offset, axis1=axis1, axis2=axis2)


@_implements(np.trace)
def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d = _diagonal(a, offset, axis1, axis2)
    return _write_out(_xp().sum(d, axis=-1, dtype=dtype), out, "numpy.trace")


_FUNCTIONS[np.tril] = lambda m, k=0: _xp().tril(_arr(m), k=k)
_FUNCTIONS[np.triu] = lambda m, k=0: _xp().triu(_arr(m), k=k)


@_implements(np.dot)
def _dot(a, b, out=None):
    xp = _xp()
    x, y = _arr(a, b), _arr(b, a)
    if x.ndim == 0 or y.ndim == 0:
        r = x * y
    elif y.ndim == 1:
        r = xp.tensordot(x, y, axes=([x.ndim - 1], [0]))
    else:
        r = xp.tensordot(x, y, axes=([x.ndim - 1], [y.ndim - 2]))
    return _write_out(r, out, "numpy.dot")


@_implements(np.vdot)
def _vdot(a, b, /):
    x, y = _arr(a, b), _arr(b, a)
    return _xp().sum(_xp().conj(_xp().reshape(x, (-1,))) * _xp().reshape(y, (-1,)))


@_implements(np.inner)
def _inner(a, b, /):
    x, y = _arr(a, b), _arr(b, a)
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    return _xp().tensordot(x, y, axes=([x.ndim - 1], [y.ndim - 1]))


@_implements(np.outer)
def _outer(a, b, out=None):
    x, y = _arr(a, b), _arr(b, a)
    r = _xp().reshape(x, (-1, 1)) * _xp().reshape(y, (1, -1))
    return _write_out(r, out, "numpy.outer")


@_implements(np.tensordot)
def _tensordot(a, b, axes=2):
    x, y = _arr(a, b), _arr(b, a)
    if type(axes) in (list, tuple):
        axes = tuple(tuple(v) if type(v) in (list, tuple) else (v,) for v in axes)
    return _xp().tensordot(x, y, axes=axes)


@_implements(np.einsum)
def _einsum(*operands, out=None, optimize=False, **kwargs):
    _refuse("numpy.einsum", **kwargs)
    if not operands or type(operands[0]) is not str:
        raise _NotSupported("numpy.einsum: strided supports the subscripts-string form only")
    xs = [_arr(v) for v in operands[1:]]
    return _write_out(_xp().einsum(operands[0], *xs), out, "numpy.einsum")


@_implements(np.cross)
def _cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    x, y = _arr(a, b), _arr(b, a)
    if axis is None:
        if (axisa, axisb, axisc) != (-1, -1, -1):
            raise _NotSupported("numpy.cross: strided supports axis= (not axisa/axisb/axisc)")
        axis = -1
    return _xp().linalg.cross(x, y, axis=axis)


@_implements(np.kron)
def _kron(a, b):
    return _xp().kron(_arr(a, b), _arr(b, a))


@_implements(np.flip)
def _flip(m, axis=None):
    return _xp().flip(_arr(m), axis=_ax(axis))


@_implements(np.roll)
def _roll(a, shift, axis=None):
    return _xp().roll(_arr(a), _ax(shift), axis=_ax(axis))


@_implements(np.tile)
def _tile(A, reps):
    return _xp().tile(_arr(A), (reps,) if type(reps) is builtins.int else tuple(reps))


@_implements(np.repeat)
def _repeat(a, repeats, axis=None):
    x = _arr(a)
    r = repeats if type(repeats) is builtins.int else _arr(repeats, x)
    return _xp().repeat(x, r, axis=axis)


@_implements(np.moveaxis)
def _moveaxis(a, source, destination):
    return _xp().moveaxis(_arr(a), _ax(source), _ax(destination))


@_implements(np.diff)
def _diff(a, n=1, axis=-1, prepend=_NoValue, append=_NoValue):
    x = _arr(a)
    kw = {}
    if prepend is not _NoValue:
        kw["prepend"] = _arr(prepend, x)
    if append is not _NoValue:
        kw["append"] = _arr(append, x)
    return _xp().diff(x, axis=axis, n=n, **kw)


@_implements(np.convolve)
def _convolve(a, v, mode="full"):
    xp = _xp()
    x, y = _arr(a, v), _arr(v, a)
    if x.ndim != 1 or y.ndim != 1 or not x.shape[0] or not y.shape[0]:
        raise ValueError(f"numpy.convolve: needs two non-empty 1-D arrays; got shapes "
                         f"{tuple(x.shape)} and {tuple(y.shape)}")
    if y.shape[0] > x.shape[0]:
        x, y = y, x
    n, m = x.shape[0], y.shape[0]
    # Note: direct summation over the shorter input (as NumPy's own convolve does):
    # O(n*m) work in m vector steps, O(n) memory.
    dt = xp.result_type(x, y)
    pad = xp.zeros(m - 1, dtype=dt, device=x.device)
    xpad = xp.concat([pad, xp.astype(x, dt), pad])
    full = xp.zeros(n + m - 1, dtype=dt, device=x.device)
    for j in range(m):
        full = full + y[j] * xpad[m - 1 - j:m - 1 - j + n + m - 1]
    if mode == "full":
        return full
    if mode == "same":
        start = (m - 1) // 2
        return full[start:start + n]
    if mode == "valid":
        return full[m - 1:n]
    raise ValueError(f"numpy.convolve: mode must be 'full', 'same' or 'valid'; got {mode!r}")


@_implements(np.polyval)
def _polyval(p, x):
    # Note: NumPy's Horner loop (numpy/lib/_polynomial_impl.py), in strided's operators.
    c, v = _arr(p, x), _arr(x, p)
    y = _xp().zeros_like(v, dtype=_xp().result_type(c, v))
    for i in range(c.shape[0]):
        y = y * v + c[i]
    return y


@_implements(np.unwrap)
def _unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    # Note: NumPy's algorithm (numpy/lib/_function_base_impl.py), in strided's functions.
    xp = _xp()
    x = _arr(p)
    if x.dtype.kind not in "f":
        x = xp.astype(x, xp.float64)
    ax = _layout.normalize_axis(axis, x.ndim, "numpy.unwrap")
    dd = xp.diff(x, axis=ax)
    if discont is None:
        discont = period / 2
    high = period / 2
    ddmod = xp.remainder(dd + high, period) - high
    ddmod = xp.where((ddmod == -high) & (dd > 0), xp.full_like(ddmod, high), ddmod)
    correct = xp.where(xp.abs(dd) < discont, xp.zeros_like(dd), ddmod - dd)
    first = tuple(slice(None) if i != ax else slice(0, 1) for i in range(x.ndim))
    zero = xp.zeros_like(x[first])
    return x + xp.concat([zero, xp.cumulative_sum(correct, axis=ax)], axis=ax)


@_implements(np.pad)
def _pad(array, pad_width, mode="constant", **kwargs):
    cv = kwargs.pop("constant_values", 0)
    if kwargs.get("reflect_type", "even") == "even":
        kwargs.pop("reflect_type", None)
    if kwargs:
        raise _NotSupported(f"numpy.pad: strided does not support the arguments "
                        f"{', '.join(f'{k}={v!r}' for k, v in kwargs.items())}")
    return _xp().pad(_arr(array), pad_width, mode, constant_values=cv)


@_implements(np.gradient)
def _gradient(f, *varargs, axis=None, edge_order=1):
    return _xp().gradient(_arr(f), *varargs, axis=_ax(axis), edge_order=edge_order)


@_implements(np.lib.stride_tricks.sliding_window_view)
def _sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    return _xp().lib.stride_tricks.sliding_window_view(_arr(x), window_shape, axis=_ax(axis),
                                                       subok=subok, writeable=writeable)


@_implements(np.searchsorted)
def _searchsorted(a, v, side="left", sorter=None):
    x = _arr(a)
    return _xp().searchsorted(x, _arr(v, x), side=side,
                              sorter=None if sorter is None else _arr(sorter, x))


# NumPy functions that array-API code often calls on the arrays it is given (scikit-learn's
# metrics: average; preprocessing: bincount, interp; SciPy's stats: histogram): strided's
# own, on every device (src/strided/_numpy/histograms.py).

@_implements(np.average)
def _average(a, axis=None, weights=None, returned=False, *, keepdims=_NoValue):
    x = _arr(a)
    w = None if weights is None else _arr(weights, x)
    return _xp().average(x, axis=_ax(axis), weights=w, returned=returned, keepdims=keepdims)


@_implements(np.bincount)
def _bincount(x, /, weights=None, minlength=0):
    a = _arr(x)
    return _xp().bincount(a, weights=None if weights is None else _arr(weights, a), minlength=minlength)


@_implements(np.digitize)
def _digitize(x, bins, right=False):
    a = _arr(x)
    return _xp().digitize(a, _arr(bins, a), right=right)


def _bins(bins, a):
    return bins if isinstance(bins, (str, builtins.int)) or type(bins) is Array else _arr(bins, a)


@_implements(np.histogram)
def _histogram(a, bins=10, range=None, density=None, weights=None):
    x = _arr(a)
    return _xp().histogram(x, _bins(bins, x), range=range, density=density,
                           weights=None if weights is None else _arr(weights, x))


@_implements(np.histogram_bin_edges)
def _histogram_bin_edges(a, bins=10, range=None, weights=None):
    x = _arr(a)
    return _xp().histogram_bin_edges(x, _bins(bins, x), range=range,
                                     weights=None if weights is None else _arr(weights, x))


@_implements(np.interp)
def _interp(x, xp, fp, left=None, right=None, period=None):
    v = _arr(x, xp)
    return _xp().interp(v, _arr(xp, v), _arr(fp, v), left=left, right=right, period=period)


def _stacked(np_func, nd, axis_of):
    what = f"numpy.{np_func.__name__}"

    def handler(tup, *, dtype=None, casting="same_kind"):
        xs = _joined(what, tup, dtype, casting)
        if not xs:
            raise ValueError(f"{what}: need at least one array to concatenate")
        xs = [_atleast_nd(v, nd) for v in xs]
        return _xp().concat(xs, axis=axis_of(xs))
    _FUNCTIONS[np_func] = handler


def _atleast_nd(x, nd):
    shape = tuple(x.shape)
    if len(shape) >= nd:
        return x
    if nd == 3:
        shape = {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)]
    else:
        shape = (1,) * (nd - len(shape)) + shape
    return _xp().reshape(x, shape)


_stacked(np.vstack, 2, lambda xs: 0)
_stacked(np.hstack, 1, lambda xs: 0 if xs[0].ndim == 1 else 1)
_stacked(np.dstack, 3, lambda xs: 2)


@_implements(np.column_stack)
def _column_stack(tup):
    xs = [_arr(v) for v in tup]
    xs = [_xp().reshape(v, (-1, 1)) if v.ndim < 2 else v for v in xs]
    return _xp().concat(xs, axis=1)


@_implements(np.isin)
def _isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    x = _arr(element)
    return _xp().isin(x, _arr(test_elements, x), assume_unique=assume_unique, invert=invert)


@_implements(np.meshgrid)
def _meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    _refuse("numpy.meshgrid", sparse=sparse)
    return tuple(_xp().meshgrid(*(_arr(v) for v in xi), indexing=indexing))


def _like_shape(what, x, dtype, order, shape, device):
    if order not in ("K", "C", "A"):
        raise _NotSupported(f"{what}: strided arrays are C-ordered; got order={order!r}")
    if device not in (None, "cpu"):
        raise _NotSupported(f"{what}: device={device!r} is NumPy's; strided keeps the prototype's device")
    shape = tuple(x.shape) if shape is None else shape
    return ((shape,) if type(shape) is builtins.int else tuple(shape)), (x.dtype if dtype is None else dtype)


def _like(np_func, name):
    what = f"numpy.{np_func.__name__}"

    def handler(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
        x = _arr(prototype)
        shape, dt = _like_shape(what, x, dtype, order, shape, device)
        return getattr(_xp(), name)(x, dtype=dt, shape=shape)
    _FUNCTIONS[np_func] = handler


for _f, _n in [(np.zeros_like, "zeros_like"), (np.ones_like, "ones_like"), (np.empty_like, "empty_like")]:
    _like(_f, _n)


@_implements(np.full_like)
def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    x = _arr(a)
    shape, dt = _like_shape("numpy.full_like", x, dtype, order, shape, device)
    return _xp().full_like(x, fill_value, dtype=dt, shape=shape)


# NumPy's creation functions called with ``like=`` a strided array (NEP 35): strided
# arrays on its device, with NumPy's default dtypes (float64, int64).
def _np_dtype(dtype, *values):
    return dtype if dtype is not None else np.result_type(*values)


@_implements(np.asarray, np.asanyarray, creation=True)
def _like_asarray(a, dtype=None, order=None, *, device=None, copy=None, _device):
    return _array_like(a, dtype, copy, _device)


@_implements(np.array, creation=True)
def _like_array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, _device):
    x = _array_like(object, dtype, copy, _device)
    if ndmin > x.ndim:
        x = _xp().reshape(x, (1,) * (ndmin - x.ndim) + tuple(x.shape))
    return x


@_implements(np.ascontiguousarray, creation=True)
def _like_ascontiguousarray(a, dtype=None, *, _device):
    return _array_like(a, dtype, None, _device).contiguous()


def _array_like(a, dtype, copy, device):
    if type(a) is Array:
        return _xp().asarray(a, dtype=dtype, copy=copy)
    return _asarray(np.asarray(a, dtype=None if dtype is None else np.dtype(dtype)),
                    device=device, copy=copy)


def _shape_arg(shape):
    return (shape,) if type(shape) is builtins.int else tuple(shape)


def _filled(name):
    def handler(shape, dtype=None, order="C", *, device=None, _device):
        return getattr(_xp(), name)(_shape_arg(shape), dtype=np.float64 if dtype is None else dtype,
                                    device=_device)
    _implements(getattr(np, name), creation=True)(handler)


for _n in ("empty", "zeros", "ones"):
    _filled(_n)


@_implements(np.full, creation=True)
def _like_full(shape, fill_value, dtype=None, order="C", *, device=None, _device):
    fill = fill_value.item() if type(fill_value) is Array and fill_value.ndim == 0 else fill_value
    dt = dtype if dtype is not None else (fill.dtype if type(fill) is Array else np.asarray(fill).dtype)
    return _xp().full(_shape_arg(shape), fill, dtype=dt, device=_device)


@_implements(np.arange, creation=True)
def _like_arange(start_or_stop, /, *args, step=1, dtype=None, device=None, _device):
    bounds = (start_or_stop,) + args
    if len(args) == 2:
        step = args[1]
        bounds = bounds[:2]
    dt = _np_dtype(dtype, *bounds, step)
    if len(bounds) == 1:
        return _xp().arange(0, bounds[0], step, dtype=dt, device=_device)
    return _xp().arange(bounds[0], bounds[1], step, dtype=dt, device=_device)


@_implements(np.eye, creation=True)
def _like_eye(N, M=None, k=0, dtype=float, order="C", *, device=None, _device):
    return _xp().eye(N, M, k=k, dtype=np.float64 if dtype is float else dtype, device=_device)


@_implements(np.identity, creation=True)
def _like_identity(n, dtype=None, *, _device):
    return _xp().eye(n, dtype=np.float64 if dtype is None else dtype, device=_device)


@_implements(np.copy)
def _copy(a, order="K", subok=False):
    return _arr(a).clone()


@_implements(np.shape)
def _shape(a):
    return tuple(_arr(a).shape)


@_implements(np.ndim)
def _ndim(a):
    return _arr(a).ndim


@_implements(np.size)
def _size(a, axis=None):
    x = _arr(a)
    return builtins.int(x.size) if axis is None else x.shape[axis]


def _meta(v):
    return v.dtype._np if type(v) is Array else v


@_implements(np.result_type)
def _result_type(*arrays_and_dtypes):
    return np.result_type(*(_meta(v) for v in arrays_and_dtypes))


@_implements(np.can_cast)
def _can_cast(from_, to, casting="safe"):
    return np.can_cast(_meta(from_), _meta(to), casting)


@_implements(np.iscomplexobj)
def _iscomplexobj(x):
    return _arr(x).dtype.kind == "c"


@_implements(np.isrealobj)
def _isrealobj(x):
    return _arr(x).dtype.kind != "c"


def _natives(a, b):
    xa, xb = (v._get_native() if type(v) is Array else v for v in (a, b))
    if type(a) is Array and type(b) is Array and a._device is not b._device:
        return None
    return xa, xb


def _memory_query(np_func, default_work):
    name = np_func.__name__

    def handler(a, b, /, max_work=default_work):
        n = _natives(a, b)
        if n is None or type(n[0]) is not type(n[1]):
            return False  # different devices (or host and device) share no memory
        dev = a._device if type(a) is Array else b._device
        bxp = dev.backend.xp
        if bxp is np:
            return builtins.bool(getattr(np, name)(*n, max_work=max_work))
        # Note: CuPy takes no max_work (NotImplementedError): its may_share_memory compares
        # bounds (NumPy's max_work=0), its shares_memory answers exactly.
        f = bxp.may_share_memory if max_work == 0 else bxp.shares_memory
        return builtins.bool(f(*n))
    _FUNCTIONS[np_func] = handler


_memory_query(np.shares_memory, None)
_memory_query(np.may_share_memory, 0)


@_implements(np.copyto)
def _copyto(dst, src, casting="same_kind", where=True):
    _refuse("numpy.copyto", where=None if where is True else where)
    if type(dst) is Array:
        dst[...] = src
        return None
    if type(dst) is np.ndarray and type(src) is Array:
        if src._device.type != "cpu":
            raise TypeError(f"numpy.copyto: can't copy a {src._device} array into an ndarray "
                            f"(no implicit device-to-host copy); call .cpu() first")
        np.copyto(dst, src._export(), casting=casting)
        return None
    raise TypeError(f"numpy.copyto: dst must be a strided array or an ndarray; got {type(dst).__name__}")


# --- numpy.linalg ---------------------------------------------------------------------------

for _n in ["inv", "det", "solve", "slogdet", "eig", "eigvals", "matrix_power", "svdvals",
           "matrix_norm", "vector_norm", "vecdot", "outer", "matmul", "matrix_transpose",
           "diagonal", "trace", "cholesky", "qr", "tensordot"]:
    if hasattr(np.linalg, _n):
        _same_args(getattr(np.linalg, _n), f"linalg.{_n}")


@_implements(np.linalg.cross)
def _linalg_cross(x1, x2, /, *, axis=-1):
    return _xp().linalg.cross(_arr(x1, x2), _arr(x2, x1), axis=axis)


def _hermitian(what, a, UPLO):
    x = _arr(a)
    if UPLO == "U":  # the Hermitian matrix that the upper triangle describes
        x = _xp().conj(_xp().matrix_transpose(x))
    elif UPLO != "L":
        raise ValueError(f"{what}: UPLO must be 'L' or 'U'; got {UPLO!r}")
    return x


@_implements(np.linalg.eigh)
def _eigh(a, UPLO="L"):
    return _xp().linalg.eigh(_hermitian("numpy.linalg.eigh", a, UPLO))


@_implements(np.linalg.eigvalsh)
def _eigvalsh(a, UPLO="L"):
    return _xp().linalg.eigvalsh(_hermitian("numpy.linalg.eigvalsh", a, UPLO))


@_implements(np.linalg.svd)
def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    x = _arr(a)
    if not compute_uv:
        return _xp().linalg.svdvals(x)
    return _xp().linalg.svd(x, full_matrices=full_matrices)


@_implements(np.linalg.pinv)
def _pinv(a, rcond=None, hermitian=False, *, rtol=_NoValue):
    tol = rtol if rtol is not _NoValue else rcond
    return _xp().linalg.pinv(_arr(a), rtol=tol)


@_implements(np.linalg.matrix_rank)
def _matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    _refuse("numpy.linalg.matrix_rank", tol=tol)
    return _xp().linalg.matrix_rank(_arr(A), rtol=rtol)


@_implements(np.linalg.norm)
def _norm(x, ord=None, axis=None, keepdims=False):
    la = _xp().linalg
    a = _arr(x)
    if axis is None and (ord is None or a.ndim == 1):
        return la.vector_norm(a, ord=2 if ord is None else ord, keepdims=keepdims) if ord is not None \
            else la.vector_norm(a, keepdims=keepdims)
    if axis is None:
        if a.ndim != 2:
            raise ValueError(f"numpy.linalg.norm: ord={ord!r} needs a 1-D or 2-D array (or axis=); "
                             f"got {a.ndim} dimensions")
        axis = (0, 1)
    if type(axis) is builtins.int or len(axis) == 1:
        return la.vector_norm(a, axis=_ax(axis), ord=2 if ord is None else ord, keepdims=keepdims)
    i, j = (_layout.normalize_axis(d, a.ndim, "numpy.linalg.norm") for d in axis)
    moved = _xp().moveaxis(a, (i, j), (-2, -1))
    r = la.matrix_norm(moved, ord="fro" if ord is None else ord, keepdims=keepdims)
    if keepdims:
        r = _xp().moveaxis(r, (-2, -1), (i, j))
    return r


@_implements(np.linalg.multi_dot)
def _multi_dot(arrays, *, out=None):
    xs = [_arr(v) for v in arrays]
    r = xs[0]
    for v in xs[1:]:
        r = _xp().matmul(r, v)
    return _write_out(r, out, "numpy.linalg.multi_dot")


# --- numpy.fft ------------------------------------------------------------------------------

def _fft1(np_func, name):
    def handler(a, n=None, axis=-1, norm=None, out=None):
        r = getattr(_xp().fft, name)(_arr(a), n=n, axis=axis, norm=norm or "backward")
        return _write_out(r, out, f"numpy.fft.{np_func.__name__}")
    _FUNCTIONS[np_func] = handler


def _fftn(np_func, name, default_axes):
    def handler(a, s=None, axes=default_axes, norm=None, out=None):
        r = getattr(_xp().fft, name)(_arr(a), s=None if s is None else tuple(s),
                                     axes=None if axes is None else tuple(axes), norm=norm or "backward")
        return _write_out(r, out, f"numpy.fft.{np_func.__name__}")
    _FUNCTIONS[np_func] = handler


for _n in ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]:
    _fft1(getattr(np.fft, _n), _n)
for _n in ["fftn", "ifftn", "rfftn", "irfftn"]:
    _fftn(getattr(np.fft, _n), _n, None)
    _fftn(getattr(np.fft, _n[:-1] + "2"), _n, (-2, -1))


_FUNCTIONS[np.fft.fftshift] = lambda x, axes=None: _xp().fft.fftshift(_arr(x), axes=_ax(axes))
_FUNCTIONS[np.fft.ifftshift] = lambda x, axes=None: _xp().fft.ifftshift(_arr(x), axes=_ax(axes))


Array.__array_ufunc__ = __array_ufunc__
Array.__array_function__ = __array_function__
_LATE["ndarray_operand"] = _ndarray_operand
