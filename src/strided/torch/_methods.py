"""Array methods beyond the core.

- the standard's remaining array-object API (``__array_namespace__``, ``to_device``);
- method spellings of namespace functions, in PyTorch's style (``x.sum(dim=0)``,
  ``x.reshape(2, 3)``), resolved by name from the namespace;
- from the elementwise registry: a method and an in-place method (``add_``)
  per row, and PyTorch's aliases (``sub``, ``div_``, ``neg_``, ...);
- ``zero_``, ``fill_``, ``copy_``, ``clamp_``, conversions (``float()``, ``to()``, ...)
  and the ``new_*`` factories.
"""

from __future__ import annotations

import builtins
import inspect
import sys
import warnings
from collections import namedtuple

from .._core import dtypes as _dtypes, layout as _layout
from .._api import elementwise as _elementwise, views as _views
from .._api.elementwise import _PYSCALARS
from .._core.array import _CVIEWS, _LATE, Array
from .._core.call.bind import torch_axis, torch_keepdim
from .._core.call.write import leaf_first
from .._core.caller import stacklevel
from .._core.device import as_device
from .._core.dispatch import method_signature, out_native
from . import _memory_format
from .._api.views import (assign as _assign, astype as _astype, permute_dims as _permute_dims,
                          reshape as _reshape, to_device as _to_device)



def _name_to_axis(x, name):
    names = x._ext.names if x._ext is not None else None
    if names is None or name not in names:
        raise ValueError(f"dimension name {name!r} not found: the array's names are "
                         f"{tuple(names) if names else (None,) * x.ndim}")
    return names.index(name)


_LATE.setdefault("name_to_axis", _name_to_axis)


def _ns():
    return sys.modules["strided"]


# --- the standard's array-object API ----------------------------------------------

def __array_namespace__(self, /, *, api_version=None):
    """The namespace of this array's functions: the ``strided`` module (the standard's method)."""
    if api_version is not None and api_version not in (
            "2021.12", "2022.12", "2023.12", "2024.12", "2025.12"):
        raise ValueError(f"strided does not support Array API version {api_version!r}")
    return sys.modules["strided"]  # (_ns() inlined: array-api-compat asks on every call)


def to_device(self, device, /, *, stream=None):
    """A copy on ``device`` (self when already there); the standard's method."""
    return _to_device(self, device, stream=stream)


def to_arguments(args, kwargs) -> tuple:
    """``(device, dtype, copy)`` from PyTorch's ``to(...)`` arguments: ``to(dtype)``,
    ``to(device)``, ``to(device, dtype)``, ``to(other)``, then positional bools
    ``non_blocking`` (ignored: copies here are synchronous) and ``copy``; shared by ``Array.to`` and
    ``nn.Module.to``."""
    kwargs = dict(kwargs)
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to(): unexpected keyword arguments {sorted(kwargs)}")
    flags = 0
    for a in args:
        if isinstance(a, _dtypes.DType):
            dtype = a
        elif type(a) is Array:
            dtype, device = a._dtype, a._device
        elif isinstance(a, bool):
            flags += 1  # PyTorch's positional (non_blocking, copy)
            if flags == 2:
                copy = a
            elif flags > 2:
                raise TypeError("to(): at most two positional bools (non_blocking, copy)")
        else:
            device = a
    return device, dtype, copy


def to(self, *args, **kwargs):
    """``to(dtype)``, ``to(device)``, ``to(device, dtype)`` or ``to(other)``; ``memory_format``
    (PyTorch's: ``preserve_format`` by default) is the layout of a copy."""
    fmt = kwargs.pop("memory_format", None) if "memory_format" in kwargs else None
    device, dtype, copy = to_arguments(args, kwargs)
    out = self
    if device is not None and as_device(device) is not out._device:
        out = _to_device(out, device)
        copy = False
    if dtype is not None and dtype is not out._dtype:
        out = _astype(out, dtype)
        copy = False
    if copy:
        out = out.clone()
    if fmt is not None or (out is not self and not _memory_format.plain(self) and out.stride() != self.stride()):
        # (a copy whose strides are not the source's: in PyTorch's layout, preserve_format by
        # default, which keeps a dense source's strides, a size-1 axis's too)
        out = _memory_format.to_format(out, self, fmt)
    return out


def _cuda(self, device=None):
    """A copy on ``cuda`` (or ``cuda:device`` for an int), PyTorch's ``cuda()``."""
    if device is None:
        device = "cuda"
    elif isinstance(device, builtins.int):
        device = f"cuda:{device}"
    return _to_device(self, device)


def type_(self, dtype=None, non_blocking=False):
    """PyTorch's ``x.type()``: the type's name (``'torch.FloatTensor'``,
    ``'torch.cuda.LongTensor'``, as ``torch.typename``); ``x.type(dtype)`` casts, to a dtype
    or to such a name (``x.type('torch.DoubleTensor')``)."""
    from ._shape_functions import TENSOR_TYPE_DTYPES as names, typename
    if dtype is None:
        return typename(self)
    if isinstance(dtype, str):
        where, _, rest = dtype.partition(".cuda.") if ".cuda." in dtype else ("", "", dtype)
        key = f"torch.{rest}" if where else rest
        if key not in names:
            raise ValueError(f"type(): invalid type {dtype!r}; expected a dtype or a name such as "
                             f"'torch.FloatTensor' or 'torch.cuda.FloatTensor'")
        return self.to(getattr(_dtypes, names[key]), device="cuda" if where else "cpu")
    return self.to(dtype)


_Param = inspect.Parameter
to.__signature__ = inspect.Signature([
    _Param("self", _Param.POSITIONAL_ONLY), _Param("args", _Param.VAR_POSITIONAL),
    *(_Param(k, _Param.KEYWORD_ONLY, default=d) for k, d in (
        ("dtype", None), ("device", None), ("copy", False), ("non_blocking", False)))])

Array.__array_namespace__ = __array_namespace__
if _CVIEWS is not None:
    # (its plain case, no version asked, answered in C: views.c, V_NAMESPACE)
    Array.__array_namespace__ = _CVIEWS.View(__array_namespace__, _CVIEWS.NAMESPACE)
Array.to_device = to_device
Array.to = to
Array.cpu = lambda self: _to_device(self, "cpu")
Array.cpu.__doc__ = "A copy on the CPU (self when already there), PyTorch's ``cpu()``."
Array.cuda = _cuda
Array.type = type_
Array.astype = lambda self, dtype, copy=True: _astype(self, dtype, copy=copy)
Array.astype.__doc__ = "Method form of ``strided.astype``: a copy cast to ``dtype`` (self when ``copy=False`` and no cast is needed)."

_CONVERSIONS = {
    "float": _dtypes.float32, "double": _dtypes.float64, "half": _dtypes.float16,
    "short": _dtypes.int16, "int": _dtypes.int32, "long": _dtypes.int64, "bool": _dtypes.bool,
    "byte": _dtypes.uint8, "char": _dtypes.int8, "cfloat": _dtypes.complex64,
    "cdouble": _dtypes.complex128,
}


def _conversion(name, dtype):
    def conv(self, *, memory_format=None):
        if memory_format is not None and _memory_format._check_format(memory_format, "to") \
                is not _memory_format.preserve_format:
            # (x.float(memory_format=channels_last): PyTorch's x.to(float32, memory_format=...))
            return self.to(dtype, memory_format=memory_format)
        if self._dtype is dtype:
            return self
        out = _astype(self, dtype)
        # (to()'s layout: the source's strides where it is dense, else PyTorch's preserve_format,
        # where the standard's astype keeps NumPy's order K: a broadcast axis innermost)
        if _memory_format.plain(self) or out.stride() == self.stride():
            return out  # (a row-major source's cast is row-major)
        return _memory_format.to_format(out, self, None)
    conv.__doc__ = (f"Cast to {dtype.name} (returns self when already {dtype.name}); ``memory_format``: "
                    f"as ``x.to(..., memory_format=)``.")
    conv.__name__ = conv.__qualname__ = name  # (in Python's own errors: "float() takes ...")
    return conv


for _name, _dt in _CONVERSIONS.items():
    setattr(Array, _name, _conversion(_name, _dt))


def is_floating_point(self) -> builtins.bool:
    """Whether the dtype is a real floating-point type."""
    return self._dtype.kind == "f"


def is_complex(self) -> builtins.bool:
    """Whether the dtype is a complex floating-point type."""
    return self._dtype.kind == "c"


Array.is_floating_point = is_floating_point
Array.is_complex = is_complex


# --- torch-style keyword spellings -----------------------------------------------

def _torch_kwargs(kwargs: dict, name: str) -> dict:
    if "dim" in kwargs:
        kwargs["axis"] = kwargs.pop("dim")
    if "keepdim" in kwargs:
        kwargs["keepdims"] = torch_keepdim(name, kwargs.pop("keepdim"))
    return kwargs


def _axis_method(fname: str):
    """Methods whose first argument is ``axis`` (PyTorch's ``dim`` or ``dims``)."""
    def method(self, *args, **kwargs):
        kwargs = _torch_kwargs(kwargs, fname)
        if "dims" in kwargs:
            kwargs["axis"] = kwargs.pop("dims")
        if args:
            if "axis" in kwargs:
                raise TypeError(f"{fname}() got axis both positionally and by keyword")
            kwargs["axis"] = args[0] if len(args) == 1 else tuple(args)
        if isinstance(kwargs.get("axis"), list):
            kwargs["axis"] = tuple(kwargs["axis"])
        return getattr(_ns(), fname)(self, **kwargs)
    method.__name__ = fname
    method.__doc__ = f"Method form of ``strided.{fname}`` (``dim``/``keepdim`` accepted)."
    method.__signature__ = inspect.Signature([_Param("self", _Param.POSITIONAL_ONLY),
                                              _Param("dims", _Param.VAR_POSITIONAL)])
    return method


def _plain_method(fname: str):
    f = getattr(_ns(), fname)
    try:
        takes_dim = "dim" in inspect.signature(f).parameters
    except (TypeError, ValueError):
        takes_dim = False

    def method(self, *args, **kwargs):
        if "other" in kwargs:  # PyTorch's name for the second operand
            args = (kwargs.pop("other"),) + args
        return f(self, *args, **(kwargs if takes_dim else _torch_kwargs(kwargs, fname)))
    method.__name__ = fname
    method.__doc__ = f"Method form of ``strided.{fname}``."
    method.__signature__ = method_signature(f)
    return method


def _flip(self, *dims, **kwargs):
    """PyTorch's ``x.flip(*dims)`` / ``x.flip(dims)``: a copy with ``dims`` reversed
    (``strided.flip`` is the standard's view)."""
    if kwargs:
        if dims or set(kwargs) != {"dims"}:
            raise TypeError(f"flip() got unexpected arguments {sorted(kwargs)} beside dims {dims}")
        dims = (kwargs["dims"],)
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')  # (PyTorch's words)
    return _memory_format.flipped(self, dims[0] if len(dims) == 1 else dims)


_flip.__signature__ = inspect.Signature([inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY),
                                         inspect.Parameter("dims", inspect.Parameter.VAR_POSITIONAL)])
Array.flip = _flip


def squeeze_(self, *dims, dim=None):
    """PyTorch's ``x.squeeze(dim=None)``: drop size-1 dimensions (all, or those of ``dim``).

    A dimension in ``dim`` whose size isn't 1 is left as it is, as in PyTorch
    (``strided.squeeze``, the standard's, raises).
    """
    if dims:
        dim = dims[0] if len(dims) == 1 else dims
    if dim is None:
        return _ns().squeeze(self)
    axes = dim if isinstance(dim, (tuple, list)) else (dim,)
    axes = tuple(_layout.normalize_axis(self._axis(a), len(self._shape), "squeeze") for a in axes)
    axes = tuple(a for a in axes if self._shape and self._shape[a] == 1)  # (0-d: nothing to drop)
    if not axes:
        return self.view(self._shape)
    # (one dim as an int: PyTorch's squeeze.dim overload, its node SqueezeBackward1)
    return _ns().squeeze(self, axis=axes[0] if not isinstance(dim, (tuple, list)) else axes)


Array.squeeze = squeeze_


# --- reductions with PyTorch's signatures -----------------------------------------
# Each method takes PyTorch's positional order and defaults (TORCH_SIGNATURES), its
# keyword names (dim, keepdim, dtype, unbiased, correction) and the standard's
# (axis, keepdims). Note: where PyTorch's default differs from the standard's, the
# method follows PyTorch (x.std() is unbiased) and the namespace function the
# standard (strided.std(x) has correction=0); docs/torch-differences.md lists them.

TORCH_SIGNATURES = {
    # method: (namespace function, PyTorch's positional parameters)
    "sum": ("sum", ("dim", "keepdim", "dtype")),
    "prod": ("prod", ("dim", "keepdim", "dtype")),
    "mean": ("mean", ("dim", "keepdim", "dtype")),
    "std": ("std", ("dim", "unbiased", "keepdim")),
    "var": ("var", ("dim", "unbiased", "keepdim")),
    "amax": ("max", ("dim", "keepdim")),
    "amin": ("min", ("dim", "keepdim")),
    "all": ("all", ("dim", "keepdim")),
    "any": ("any", ("dim", "keepdim")),
    "argmax": ("argmax", ("dim", "keepdim")),
    "argmin": ("argmin", ("dim", "keepdim")),
    "count_nonzero": ("count_nonzero", ("dim",)),
    "cumsum": ("cumulative_sum", ("dim", "dtype")),
    "cumprod": ("cumulative_prod", ("dim", "dtype")),
    "cumulative_sum": ("cumulative_sum", ("dim", "dtype")),
    "cumulative_prod": ("cumulative_prod", ("dim", "dtype")),
    "argsort": ("argsort", ("dim", "descending")),
}
_KEYWORDS = {"axis": "dim", "keepdims": "keepdim"}
_TORCH_DEFAULTS = {"keepdim": False, "unbiased": True, "descending": False}


# PyTorch's dtype rules of its reductions where the standard's differ (an integer or bool input):
# sums and products of every integer or bool dtype are int64 (the standard: uint8 -> uint64);
# mean, nanmean, std and var refuse them; all and any of uint8 are uint8.
_INT64_RESULT = frozenset({"sum", "prod", "nansum", "cumsum", "cumprod"})
_FLOAT_ONLY = frozenset({"mean", "nanmean", "std", "var", "std_mean", "var_mean"})
_UINT8_KEPT = frozenset({"all", "any"})


class DtypeRefused(TypeError, RuntimeError):
    """PyTorch's RuntimeError for a dtype its word refuses; also a TypeError, strided's error
    for a refused dtype, so either ``except`` catches it."""


def torch_scalar_type(d) -> str:
    """PyTorch's ScalarType name of the dtype ``d`` ('Long', 'Byte', 'Float', ...)."""
    from ._shape_functions import _TENSOR_TYPE
    return _TENSOR_TYPE.get(d.name, d.name)


def torch_reduction_dtype(mname: str, x, dtype):
    """The ``dtype`` PyTorch's reduction ``mname`` computes ``x`` (of an integer or bool dtype)
    in, or PyTorch's RuntimeError where it refuses the input."""
    if mname in _INT64_RESULT:
        return _dtypes.int64 if dtype is None else dtype
    if mname == "mean":
        if dtype is None and x.dtype.kind not in "fc":
            raise DtypeRefused(f"mean(): could not infer output dtype. Input dtype must be either a "
                               f"floating point or complex dtype. Got: {torch_scalar_type(x.dtype)}")
        if _dtypes.canon(dtype).kind not in "fc":
            raise DtypeRefused(f"mean(): could not infer output dtype. Optional dtype must be either a "
                               f"floating point or complex dtype. Got: {torch_scalar_type(_dtypes.canon(dtype))}")
        return dtype
    if mname == "nanmean":
        raise DtypeRefused(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{torch_scalar_type(x.dtype)}")
    if mname in ("std", "var"):
        raise DtypeRefused("std and var only support floating point and complex dtypes")
    if mname in ("std_mean", "var_mean"):
        raise DtypeRefused(f"{mname} only support floating point and complex dtypes")
    return dtype


def _dof(mname: str, f, x, r, correction, call):
    """PyTorch's std/var where the degrees of freedom (elements reduced less ``correction``) are
    0 or fewer: the sum of squares divided by 0 (inf, or NaN where it is 0; the standard's gives
    NaN), with PyTorch's UserWarning."""
    n_in, n_out = x.numel(), r.numel()
    if not n_in or not n_out or n_in // n_out - correction > 0:
        return r
    warnings.warn(f"{mname}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                  f"reduction factor (input numel divided by output numel).", UserWarning, stacklevel=stacklevel())
    ns = _ns()
    plain = dict(call, correction=0)
    # (std from the biased variance, not the square of the biased std: std's derivative is
    # masked to 0 where the std is 0, which turned PyTorch's NaN gradient of one element into 0)
    v0 = ns.var(x, **plain)
    n = n_in // n_out
    v = ns.divide(v0 * n, 0.0)
    if n - correction < 0:
        # (a correction beyond the count: PyTorch's forward divides by 0, its var_backward by
        # the negative n - correction -- a finite gradient under an infinite value)
        u = v0 * (n / (n - correction))
        v = v.detach() + (u - u.detach())
    return v if mname == "var" else ns.sqrt(v)


def _torch_reduction(mname: str, fname: str, params: tuple, function: builtins.bool = False):
    """The method ``mname`` (``x.std(0)``), or with ``function`` PyTorch's function of the
    same meaning (``strided.torch.std(x, 0)``: the method's body, its array checked first,
    one frame in front of the namespace function's definition)."""
    correction_default = 1 if fname in ("std", "var") else None
    # (PyTorch's dtype rules: an input of these dtype kinds takes the general path below)
    ruled = "biu" if mname in _INT64_RESULT or mname in _FLOAT_ONLY else "u" if mname in _UINT8_KEPT else ""

    f = getattr(_ns(), fname)
    fbody = getattr(f, "_impl", f)
    plain = {"correction": correction_default} if correction_default is not None else {}

    # (the first parameter is PyTorch's ``input``: the method's self, the function's input)
    def method(input, *args, **kwargs):
        self = input
        if function and type(self) is not Array:
            raise TypeError(f"{mname}(): input must be a strided array; got {type(self).__name__}")
        if ruled and self._dtype.kind in ruled:
            pass  # (PyTorch's dtype rule: the general path)
        elif not kwargs:  # x.sum(), x.sum(0), x.std(): the common cases, no parsing
            g = f if self._ext is not None else fbody  # no extension: the function's body
            if not args:
                r = g(self, **plain)
                if correction_default is None or (self._shape and max(self._shape) > 1):
                    return r
                return _dof(mname, g, self, r, 1, {})  # (one element or none: PyTorch's 0 dof)
            if len(args) == 1 and (type(args[0]) is builtins.int or type(args[0]) is str):
                r = g(self, axis=args[0], **plain)  # x.sum(1), x.sum("C")
                if correction_default is None or type(args[0]) is str or (
                        self._shape and self._shape[args[0]] > 1):
                    return r
                return _dof(mname, g, self, r, 1, {"axis": args[0]})
        elif not args and len(kwargs) == 1 and (dim := kwargs.get("dim")) is not None:
            # x.std(dim=0), torch.std(x, dim=(0, 1)): the general path's call below, at once
            g = f if self._ext is not None else fbody
            if type(dim) is list or type(dim) is tuple:  # (torch_axis's rule, inlined)
                dim = tuple(dim) if dim else torch_axis(mname, ())
            r = g(self, axis=dim, **plain)
            if correction_default is None:
                return r
            n = 1
            for a in (range(len(self._shape)) if dim is None else (dim,) if type(dim) is builtins.int
                      else dim if type(dim) is tuple else ()):
                n *= self._shape[a] if type(a) is builtins.int else 2
            return r if n > 1 else _dof(mname, g, self, r, 1, {"axis": dim})
        if args and fname in ("std", "var") and type(args[0]) is builtins.bool:
            args = (None,) + args  # PyTorch's x.std(unbiased)
        if len(args) > len(params):
            raise TypeError(f"{mname}() takes at most {len(params)} positional arguments "
                            f"({', '.join(params)}); got {len(args)}")
        kw = dict(zip(params, args))
        for k, v in kwargs.items():
            k = _KEYWORDS.get(k, k)
            if k in kw:
                raise TypeError(f"{mname}() got multiple values for argument {k!r}")
            kw[k] = v
        call = {}
        dim = kw.pop("dim", None)
        if isinstance(dim, (list, tuple)):
            dim = torch_axis(mname, dim)
        if dim is not None or fname in ("cumulative_sum", "cumulative_prod"):
            call["axis"] = dim
        if "keepdim" in kw:
            call["keepdims"] = torch_keepdim(mname, kw.pop("keepdim"))
        dtype = kw.pop("dtype", None)
        if ruled and (self._dtype.kind in "biu" or (dtype is not None and mname == "mean")):
            dtype = torch_reduction_dtype(mname, self, dtype)
        if dtype is not None:
            if fname in ("sum", "prod", "mean", "nansum", "nanmean", "cumulative_sum", "cumulative_prod"):
                call["dtype"] = dtype
            else:
                self = _astype(self, dtype)  # PyTorch casts the input first
        if correction_default is not None:
            unbiased = kw.pop("unbiased", None)
            correction = kw.pop("correction", None)
            ddof = kw.pop("ddof", None)  # NumPy's name for correction
            if (unbiased is not None) + (correction is not None) + (ddof is not None) > 1:
                raise TypeError(f"{mname}(): give one of unbiased, correction and ddof, not both")
            correction = correction if ddof is None else ddof
            call["correction"] = (correction if correction is not None
                                  else correction_default if unbiased is None else builtins.int(unbiased))
        call.update(kw)
        if mname in _UINT8_KEPT and self._dtype is _dtypes.uint8:
            return _astype(f(self, **call), _dtypes.uint8)  # (PyTorch's all/any of uint8: uint8)
        if correction_default is not None:
            r = f(self, **call)
            ax = call.get("axis")
            n = 1
            for a in (range(len(self._shape)) if ax is None else (ax,) if type(ax) is builtins.int
                      else ax if type(ax) is tuple else ()):
                # (a 0-d array's axis 0 or -1 is its one element, as PyTorch counts it)
                n *= (self._shape[a] if self._shape else 1) if type(a) is builtins.int else call["correction"] + 1
            return r if n - call["correction"] > 0 else _dof(mname, f, self, r, call["correction"], call)
        return f(self, **call)
    method.__name__ = mname
    names = ", ".join(f"{p}=None" if p in ("dim", "dtype") else
                      f"{p}=True" if p == "unbiased" else f"{p}=False" for p in params)
    extra = ", *, correction=None" if correction_default is not None else ""
    also = "``axis``/``keepdims``" + (", and NumPy's ``ddof`` for ``correction``," if extra else "")
    method.__doc__ = (f"PyTorch's ``{mname}({names}{extra})``: ``strided.{fname}`` with PyTorch's "
                      f"argument names and defaults ({also} are accepted too).")
    method.__signature__ = inspect.Signature(
        [_Param("self", _Param.POSITIONAL_ONLY)]
        + [_Param(p, _Param.POSITIONAL_OR_KEYWORD, default=_TORCH_DEFAULTS.get(p, None)) for p in params]
        + ([_Param("correction", _Param.KEYWORD_ONLY, default=None)] if extra else []))
    return method


for _m, (_f, _params) in TORCH_SIGNATURES.items():
    setattr(Array, _m, _torch_reduction(_m, _f, _params))


def _argsort_method(core):
    """``x.argsort(...)``: the indices laid out as PyTorch's, ``empty_like(x)`` (a transposed
    ``x`` gives transposed indices)."""
    def argsort(self, *args, **kwargs):
        return _memory_format.like_input(core(self, *args, **kwargs), self)
    argsort.__name__ = argsort.__qualname__ = "argsort"
    argsort.__doc__ = core.__doc__
    argsort.__signature__ = getattr(core, "__signature__", None)
    return argsort


Array.argsort = _argsort_method(Array.argsort)

# Methods over functions the namespace defines after this module (strided/_numpy/
# nanfunctions.py): attached by ``attach_late()`` once strided has them.
LATE_SIGNATURES = {
    "nansum": ("nansum", ("dim", "keepdim", "dtype")),
    "nanmean": ("nanmean", ("dim", "keepdim", "dtype")),
}


def attach_late() -> None:
    for m, (f, params) in LATE_SIGNATURES.items():
        setattr(Array, m, _torch_reduction(m, f, params))

_PLAIN_METHODS = (
    "matmul", "tensordot", "vecdot", "moveaxis", "movedim", "tile",
    "take_along_axis", "broadcast_to", "flatten", "unflatten",
    "narrow", "unfold", "split", "chunk", "clip", "outer", "dot", "mm", "bmm", "trace",
    "searchsorted", "isin", "swapdims",
)
for _m in _PLAIN_METHODS:
    setattr(Array, _m, _plain_method(_m))
# ``strided.unsqueeze(x, dim)`` is already a method's signature: used as is, its inlined
# hot path is the method's (no forwarding call).
Array.unsqueeze = _ns().unsqueeze

# --- PyTorch's type promotion, and clamp by it ----------------------------------------------

def _combine_categories(higher, lower):
    """PyTorch's ``combine_categories`` (c10/core/ScalarType.h): the dtype of a higher
    category (dimensioned arrays over 0-d arrays over Python scalars) wins unless the lower
    one's kind is higher (bool < integer < floating < complex)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.kind == "c":
        return higher
    if lower.kind == "c":
        return _dtypes.complex_of(higher) if higher.kind == "f" else lower
    if higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return _dtypes.result_type_pair(higher, lower)
    return higher


def torch_result_type(*operands):
    """PyTorch's ``torch.result_type`` of arrays and Python scalars (None skipped): dimensioned
    arrays first, then 0-d arrays, then Python scalars (int64, the default float and complex
    dtypes, bool), each only where its kind is higher (``float32 array`` with a ``float64``
    0-d array is float32, as PyTorch's)."""
    cats = [None, None, None]
    for o in operands:
        if o is None:
            continue
        if type(o) is Array:
            i, d = (0 if o._shape else 1), o._dtype
        elif type(o) is builtins.bool:
            i, d = 2, _dtypes.bool
        elif isinstance(o, builtins.int):
            i, d = 2, _dtypes.int64
        elif isinstance(o, builtins.float):
            i, d = 2, _dtypes.get_default_dtype()
        elif isinstance(o, builtins.complex):
            i, d = 2, _dtypes.default_complex()
        else:
            raise TypeError(f"result_type(): expected arrays or Python numbers; got {type(o).__name__}")
        cats[i] = d if cats[i] is None else _dtypes.result_type_pair(cats[i], d)
    return _combine_categories(cats[0], _combine_categories(cats[1], cats[2]))


def torch_can_cast(frm, to) -> builtins.bool:
    """PyTorch's ``torch.can_cast``: no complex to real, no floating to integer, nothing but
    bool to bool."""
    if frm.kind == "c" and to.kind != "c":
        return False
    if frm.kind == "f" and to.kind in "biu":
        return False
    if frm.kind != "b" and to.kind == "b":
        return False
    return True


def _cast_refused(res, target) -> RuntimeError:
    return RuntimeError(f"result type {torch_scalar_type(res)} can't be cast to the desired output type "
                        f"{torch_scalar_type(target)}")


_C_INT = {"int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t", "uint8": "uint8_t",
          "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t"}


def _int_bound(v, d):
    """A Python int bound converted to the integer dtype ``d`` as PyTorch converts a scalar
    (c10's ``checked_convert``): out of range raises, except that an unsigned dtype takes a
    negative value down to ``-max`` and wraps it (``clamp(uint8_array, -1)`` clamps to 255)."""
    if type(v) is not builtins.int:
        return v
    info = _np_iinfo(d)
    if d.kind == "u" and -info.max <= v < 0:
        return v % (info.max + 1)
    if not info.min <= v <= info.max:
        raise RuntimeError(f"value cannot be converted to type {_C_INT.get(d.name, d.name)} without overflow")
    return v


def _np_iinfo(d):
    import numpy
    return numpy.iinfo(d.name)


def torch_clamp(name: str, x, min=None, max=None, out=None, inplace: builtins.bool = False):  # noqa: A002
    """PyTorch's ``clamp`` family: the result in PyTorch's promoted dtype of ``x``, ``min`` and
    ``max`` (an integer array clamped to 0.5 is float32), computed by ``strided.clip``;
    ``inplace`` writes into ``x`` and refuses a promoted dtype that can't be cast back (as
    ``out=`` does)."""
    if type(x) is not Array:
        raise TypeError(f"{name}(): input must be a strided array; got {type(x).__name__}")
    if name in ("clamp_min", "clamp_max", "clamp_min_", "clamp_max_") and (min is None and max is None):
        bound = "min" if "min" in name else "max"
        raise TypeError(f"{name}(): {bound} must be a number or an array, not None")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    ns = _ns()
    rt = x._dtype
    if x._dtype.kind in "biu" or type(min) is Array or type(max) is Array or isinstance(min, builtins.complex) \
            or isinstance(max, builtins.complex):
        rt = torch_result_type(x, min, max)
    target = x if inplace else out
    if target is not None and not torch_can_cast(rt, target._dtype):
        raise _cast_refused(rt, target._dtype)
    if rt.kind in "iu":
        min, max = _int_bound(min, rt), _int_bound(max, rt)
    xx = x if rt is x._dtype else _astype(x, rt)
    lo = _astype(min, rt) if type(min) is Array and min._dtype is not rt else min
    hi = _astype(max, rt) if type(max) is Array and max._dtype is not rt else max
    if rt is _dtypes.bool:
        # (PyTorch's bool clamp: one array bound is maximum/minimum, which have a bool loop;
        # scalar bounds or two bounds reach its clamp kernels, which have none)
        if (lo is None) == (hi is None) or type(lo if hi is None else hi) is not Array:
            kernel = "clamp" if hi is not None and lo is not None else "clamp_min" if hi is None else "clamp_max"
            scalar = "" if type(lo) is Array or type(hi) is Array else "_scalar"
            raise _dtypes.DTypeError(f'"{kernel}{scalar}_cpu" not implemented for \'Bool\'')
        r = ns.maximum(xx, lo) if hi is None else ns.minimum(xx, hi)
        if inplace:
            return x.copy_(r)
        return r if target is None else target.copy_(r)
    if inplace and rt is x._dtype:
        ns.clip(x, lo, hi, out=x)
        return x
    r = ns.clip(xx, lo, hi)
    if target is not None:
        return target.copy_(r)
    return r


def clamp(self, min=None, max=None):  # noqa: A002 - PyTorch's parameter names
    """PyTorch's ``x.clamp(min=None, max=None)``: in PyTorch's promoted dtype of ``x`` and the
    bounds (an integer array clamped to a float bound is float)."""
    return torch_clamp("clamp", self, min, max)


Array.clamp = Array.clip = clamp


def clamp_min(self, min):  # noqa: A002 - PyTorch's parameter name
    """PyTorch's ``x.clamp_min(min)``: ``x.clamp(min=min)``."""
    return torch_clamp("clamp_min", self, min, None)


def clamp_max(self, max):  # noqa: A002 - PyTorch's parameter name
    """PyTorch's ``x.clamp_max(max)``: ``x.clamp(max=max)``."""
    return torch_clamp("clamp_max", self, None, max)


Array.clamp_min = clamp_min
Array.clamp_max = clamp_max


# --- methods whose PyTorch signature differs from the namespace function's ----------

def tril_(self, diagonal=0):
    """PyTorch's ``x.tril(diagonal=0)`` (``strided.tril(x, k=)``)."""
    return _ns().tril(self, k=diagonal)


def triu_(self, diagonal=0):
    """PyTorch's ``x.triu(diagonal=0)`` (``strided.triu(x, k=)``)."""
    return _ns().triu(self, k=diagonal)


def diagonal_(self, offset=0, dim1=0, dim2=1):
    """PyTorch's ``x.diagonal(offset=0, dim1=0, dim2=1)``, a view.

    The namespace's ``strided.diagonal(x, offset=, axis1=-2, axis2=-1)`` takes
    the last two dimensions by default, as the standard says.
    """
    return _ns().diagonal(self, offset=offset, axis1=self._axis(dim1), axis2=self._axis(dim2))


def roll_(self, shifts, dims=None):
    """PyTorch's ``x.roll(shifts, dims=None)`` (``strided.roll(x, shift, axis=)``)."""
    if isinstance(shifts, list):
        shifts = tuple(shifts)
    if isinstance(dims, list):
        dims = tuple(dims)
    return _ns().roll(self, shifts, axis=dims)


def take_(self, index):
    """PyTorch's ``x.take(index)``: elements of the flattened array at ``index``, in its shape."""
    ns = _ns()
    flat = ns.take(ns.reshape(self, (-1,)), ns.reshape(index, (-1,)), axis=0)
    return ns.reshape(flat, tuple(index.shape))


def nonzero_(self, *, as_tuple=False):
    """PyTorch's ``x.nonzero()``: a (count, ndim) array of the indices of the nonzero
    elements; ``as_tuple=True`` gives the standard's tuple of 1-d arrays (``strided.nonzero``)."""
    if self.ndim == 0:  # (PyTorch's: a 0-d array as one element of a 1-d one)
        ns = _ns()
        n = builtins.int(ns.count_nonzero(self))
        if as_tuple:
            return (ns.arange(n, dtype=_dtypes.int64, device=self._device),)
        return ns.zeros((n, 0), dtype=_dtypes.int64, device=self._device)
    idx = _ns().nonzero(self)
    if as_tuple:
        return idx
    # (PyTorch's layout: the (ndim, count) rows transposed, so that a column is contiguous)
    return _ns().stack(idx, axis=0).T if idx else _ns().zeros((0, 0), dtype=_dtypes.int64, device=self._device)


def diff_(self, n=1, dim=-1, prepend=None, append=None):
    """PyTorch's ``x.diff(n=1, dim=-1, prepend=None, append=None)``."""
    return _ns().diff(self, axis=dim, n=n, prepend=prepend, append=append)


class _DefaultZero(builtins.int):
    """``decimals``' default, 0, told apart from a 0 given: PyTorch's ``round(decimals=...)``
    (any value) refuses an integer input, its plain ``round()`` returns it."""

    def __repr__(self):
        return "0"


NO_DECIMALS = _DefaultZero(0)


class DTypeNotImplementedError(_dtypes.DTypeError, NotImplementedError):
    """PyTorch's NotImplementedError for a dtype its kernel lacks (``"round_cpu" not
    implemented for 'Bool'``), and the standard's TypeError."""


def check_round_decimals(x, decimals) -> None:
    """PyTorch's refusals of ``round``: ``decimals`` not an int (TypeError); a complex input, a
    bool one, or an integer one with ``decimals`` given (NotImplementedError)."""
    if decimals is not NO_DECIMALS and type(decimals) is not builtins.int:
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    if type(x) is Array and (x._dtype.kind in "bc" or (decimals is not NO_DECIMALS and x._dtype.kind in "iu")):
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise DTypeNotImplementedError(f'"{kernel}" not implemented for \'{torch_scalar_type(x._dtype)}\'')


def round_method(self, *, decimals=NO_DECIMALS):
    """PyTorch's ``x.round(decimals=0)``: halves to even, at ``decimals`` decimal places (an
    integer array with ``decimals`` given raises, as PyTorch's)."""
    check_round_decimals(self, decimals)
    ns = _ns()
    if decimals == 0:
        return ns.round(self)
    # Note: PyTorch's round_decimals_kernel: x * 10**d / 10**d, or for d < 0 x / 10**-d * 10**-d
    # (not exact in binary either way), in float32 for a float16 input
    x = self.to(_dtypes.float32) if self._dtype is _dtypes.float16 else self
    if decimals > 0:
        scale = float(10.0 ** decimals)
        r = ns.round(x * scale) / scale
    else:
        scale = float(10.0 ** -decimals)
        r = ns.round(x / scale) * scale
    return r.to(self._dtype) if r._dtype is not self._dtype else r


def round_inplace(self, *, decimals=NO_DECIMALS):
    """PyTorch's ``x.round_(decimals=0)``: ``x.round(decimals=...)`` written into ``x``."""
    leaf_first(self, "round_")
    check_round_decimals(self, decimals)
    if decimals == 0:
        return _round_inplace_row(self)
    return self.copy_(round_method(self.detach(), decimals=decimals))  # (round's gradient is 0)


def permute_(self, *dims, **kwargs):
    """Reorder the dimensions, as a view: ``x.permute(2, 0, 1)``, ``x.permute((2, 0, 1))``
    or ``x.permute(dims=(2, 0, 1))``."""
    if not kwargs and self._ext is None:
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = dims[0] if type(dims[0]) is tuple else tuple(dims[0])
        # strided.permute_dims is the definition (its hot path caches the layout; the
        # compiled View in front of this method answers the plain case before it)
        return _permute_dims(self, dims)
    if "dims" in kwargs:
        dims = (kwargs.pop("dims"),)
    if kwargs:
        raise TypeError(f"permute() got an unexpected keyword argument {next(iter(kwargs))!r}")
    return _array_permute(self, *dims)


_array_permute = Array.permute
Array.tril = tril_
Array.triu = triu_
Array.diagonal = diagonal_
Array.roll = roll_
Array.take = take_
Array.nonzero = nonzero_
Array.diff = diff_
Array.permute = permute_
Array.unbind = lambda self, dim=0: _ns().unstack(self, axis=dim)
Array.unbind.__doc__ = "Views of the slices along ``dim``, as a tuple (``strided.unstack``)."
def repeat_interleave(self, repeats, dim=None, *, output_size=None):
    """Repeat each element ``repeats`` times along ``dim`` (``strided.repeat``);
    ``output_size``, where given, must be the result's length along ``dim`` (PyTorch's)."""
    return _ns().torch.repeat_interleave(self, repeats, dim, output_size=output_size)


Array.repeat_interleave = repeat_interleave


def max_(self, *args, **kwargs):
    """``x.max()``: the maximum; ``x.max(dim)`` returns (values, indices) like PyTorch."""
    kwargs = _torch_kwargs(kwargs, "max")
    if args and type(args[0]) is Array:
        return _ns().maximum(self, args[0])
    if len(args) > 2:
        raise TypeError(f"max() takes at most 2 positional arguments (dim, keepdim); got {len(args)}")
    if args:
        kwargs["axis"] = args[0]
    if len(args) == 2:
        kwargs["keepdims"] = torch_keepdim("max", args[1])
    if type(kwargs.get("axis")) is list or type(kwargs.get("axis")) is tuple:
        kwargs["axis"] = torch_axis("max", kwargs["axis"])  # (an empty dim: PyTorch's refusal)
    if "axis" in kwargs and kwargs["axis"] is not None and not isinstance(kwargs["axis"], tuple):
        return _values_indices(self, "max", "argmax", kwargs)
    return _all_extremum(self, "max", kwargs)


def min_(self, *args, **kwargs):
    """``x.min()``: the minimum; ``x.min(dim)`` returns (values, indices) like PyTorch."""
    kwargs = _torch_kwargs(kwargs, "min")
    if args and type(args[0]) is Array:
        return _ns().minimum(self, args[0])
    if len(args) > 2:
        raise TypeError(f"min() takes at most 2 positional arguments (dim, keepdim); got {len(args)}")
    if args:
        kwargs["axis"] = args[0]
    if len(args) == 2:
        kwargs["keepdims"] = torch_keepdim("min", args[1])
    if type(kwargs.get("axis")) is list or type(kwargs.get("axis")) is tuple:
        kwargs["axis"] = torch_axis("min", kwargs["axis"])  # (an empty dim: PyTorch's refusal)
    if "axis" in kwargs and kwargs["axis"] is not None and not isinstance(kwargs["axis"], tuple):
        return _values_indices(self, "min", "argmin", kwargs)
    return _all_extremum(self, "min", kwargs)


def _all_extremum(x, name, kwargs):
    """``x.max()`` of all elements: PyTorch's gradient is shared evenly by the elements equal
    to it, and of a NaN maximum by the NaNs (evenly_distribute_backward); the reduction's
    own rule (amax's) gives a NaN maximum's slice NaN."""
    r = getattr(_ns(), name)(x, **kwargs)
    e = x._ext
    if kwargs.get("axis") is None and e is not None and e.requires_grad and x._dtype.kind in "fc":
        from ._tensor_methods import EVENLY
        return EVENLY[name].apply(x, r.detach())
    return r


def _values_indices(x, vname, iname, kwargs):
    """``x.max(dim)``: the values gathered at the indices, so that the gradient flows to the
    element each index names, as PyTorch's (value_selecting_reduction_backward): of tied
    elements only the one returned, of a slice with NaN its first NaN. (The reduction's
    own rule, amax's, shares it among ties.)"""
    ns = _ns()
    keep = kwargs.get("keepdims", False)
    # (a bool x: PyTorch's max/min along a dim take it, True above False; the standard's
    # argmax/argmin refuse bool, so the indices are of its 0/1 bytes, the values of x)
    xi = ns.astype(x, _dtypes.uint8) if x._dtype is _dtypes.bool else x
    idx = getattr(ns, iname)(xi, **dict(kwargs, keepdims=True))
    if not x.ndim:
        return _ValuesIndices(getattr(ns, vname)(x, **kwargs), getattr(ns, iname)(xi, **kwargs))
    vals = ns.take_along_axis(x, idx, axis=kwargs["axis"])
    if not keep:
        vals, idx = ns.squeeze(vals, axis=kwargs["axis"]), ns.squeeze(idx, axis=kwargs["axis"])
    return _ValuesIndices(vals, idx)


_ValuesIndices = namedtuple("values_indices", ["values", "indices"])
max_.__signature__ = min_.__signature__ = inspect.Signature([
    _Param("self", _Param.POSITIONAL_ONLY), _Param("dim", _Param.POSITIONAL_OR_KEYWORD, default=None),
    _Param("keepdim", _Param.POSITIONAL_OR_KEYWORD, default=False)])
Array.max = max_
Array.min = min_


def sort_(self, dim=-1, descending=False, stable=True):
    """``x.sort(dim, descending)`` returns (values, indices) like PyTorch: a stable sort (among
    equal elements PyTorch's order is unspecified unless ``stable=True``), both laid out as
    PyTorch's, ``empty_like(x)`` (a transposed ``x`` gives transposed results)."""
    ns = _ns()
    like = _memory_format.like_input
    idx = like(ns.argsort(self, axis=dim, descending=descending, stable=True), self)
    return _ValuesIndices(like(ns.take_along_axis(self, idx, axis=dim), self), idx)


Array.sort = sort_


def reshape_(self, *shape, **kwargs):
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``: a view when possible."""
    if not kwargs:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            # (a tuple as given: the layout caches' identity test passes)
            shape = shape[0] if type(shape[0]) is tuple else tuple(shape[0])
        return _reshape(self, shape)  # strided.reshape is the definition (see permute_)
    if "shape" in kwargs:
        shape = (kwargs.pop("shape"),)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _ns().reshape(self, shape, **kwargs)


def repeat_(self, *sizes):
    """PyTorch's ``repeat``: tile the array (``strided.repeat`` is the standard's)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    return _ns().tile(self, sizes)


def _other_array(fname, other):
    if not isinstance(other, Array):  # (PyTorch: TypeError)
        raise TypeError(f"{fname}(): argument 'other' must be an array, not {type(other).__name__}")


def expand_as(self, other):
    """``expand`` to ``other``'s shape."""
    _other_array('expand_as', other)
    return self.expand(other._shape)


def view_as(self, other):
    """``view`` with ``other``'s shape."""
    _other_array('view_as', other)
    return self.view(other._shape)


def reshape_as(self, other):
    """``reshape`` to ``other``'s shape."""
    _other_array('reshape_as', other)
    return reshape_(self, other._shape)


def where_(self, condition, other):
    """``x.where(condition, y)`` is ``where(condition, x, y)`` (PyTorch)."""
    return _ns().where(condition, self, other)


reshape_.__signature__ = inspect.Signature([
    _Param("self", _Param.POSITIONAL_ONLY), _Param("shape", _Param.VAR_POSITIONAL),
    _Param("copy", _Param.KEYWORD_ONLY, default=None)])
permute_.__signature__ = inspect.Signature([_Param("self", _Param.POSITIONAL_ONLY),
                                            _Param("dims", _Param.VAR_POSITIONAL)])
Array.reshape = reshape_
if _CVIEWS is not None:  # the compiled view paths (strided/_csrc/_chot.c, "views"; end of _array.py)
    Array.reshape = _CVIEWS.View(reshape_, _CVIEWS.RESHAPE_METHOD)
    Array.permute = _CVIEWS.View(permute_, _CVIEWS.PERMUTE_METHOD)
Array.repeat = repeat_
Array.expand_as = expand_as
Array.view_as = view_as
Array.reshape_as = reshape_as
Array.where = where_
Array.permute_dims = lambda self, axes: _ns().permute_dims(self, axes)
Array.permute_dims.__doc__ = "Method form of ``strided.permute_dims``."
Array.unique = lambda self: _ns().unique_values(self)
Array.unique.__doc__ = "The sorted unique elements (``strided.unique_values``)."


def torch_norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """PyTorch's ``torch.norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None)``,
    as PyTorch 2.13 computes it for strided CPU tensors (``torch/functional.py``): a number
    ``p`` (None is 2) is ``linalg.vector_norm`` over ``dim`` (all dimensions where None);
    ``'fro'`` over None, one or two dims is the vector 2-norm over them; any other string,
    and ``'fro'`` over three or more dims, is ``linalg.matrix_norm`` over ``dim`` (all
    dimensions where None), which raises unless there are exactly two (and ``p`` is 'fro'
    or 'nuc').
    """
    from . import linalg as _tla  # (strided.torch.linalg: PyTorch's checks and messages)

    if type(keepdim) is not bool:
        torch_keepdim("norm", keepdim)
    if isinstance(dim, str) or (isinstance(dim, (list, tuple)) and any(isinstance(d, str) for d in dim)):
        names = [dim] if isinstance(dim, str) else list(dim)
        dim = [_name_to_axis(input, d) if isinstance(d, str) else d for d in names]
    _dim = None if dim is None else [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return _tla.vector_norm(input, 2, _dim, keepdim, dtype=dtype, out=out)
        if _dim is None:
            _dim = list(range(input.ndim))
        return _tla.matrix_norm(input, p, _dim, keepdim, dtype=dtype, out=out)
    return _tla.vector_norm(input, 2.0 if p is None else p, _dim, keepdim, dtype=dtype, out=out)


def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    """PyTorch's ``x.norm(p='fro', dim=None, keepdim=False, dtype=None)``: ``torch.norm(x, p,
    dim, keepdim, dtype=dtype)``.

    ``p`` is a number (the vector ``p``-norm over ``dim``, or over all elements),
    ``'fro'`` (the 2-norm over all elements or over one or two dims; three or more
    raise) or ``'nuc'`` (the nuclear norm over exactly two dims).
    """
    return torch_norm(self, p, dim, keepdim, dtype=dtype)


Array.norm = norm


# --- elementwise: methods and in-place methods from the registry -----------------

def _cast_error(res, target):
    return _dtypes.CastError(f"result type {res.name} can't be cast to the desired output type {target.name}")


def _unexpected(name, kwargs):
    return TypeError(f"{name}() got an unexpected keyword argument {next(iter(kwargs))!r}")


def check_integer_divisor(input, other) -> None:
    """PyTorch's integer division by zero: RuntimeError("ZeroDivisionError") when both
    operands are integers (arrays of a signed or unsigned integer dtype, or Python ints)
    and a divisor that reaches the result is zero. Called before the computation by
    PyTorch's words for integer division (``torch.floor_divide``, ``remainder``, ``fmod``,
    ``div`` with a ``rounding_mode``), where NumPy's kernels would give 0. The standard's
    functions and the operators ``//`` and ``%`` keep NumPy's 0 (torch-differences)."""
    def integer(v):  # (a bool array divides as an integer one: PyTorch promotes it so)
        return v._dtype.kind in "biu" if type(v) is Array else isinstance(v, builtins.int)
    if not (integer(input) and integer(other)) or (
            type(input) is Array and input._dtype.kind == "b" and type(other) is Array and other._dtype.kind == "b"):
        return  # (two bool arrays: refused for their dtype first, as PyTorch's)
    if type(other) is not Array:
        zero = other == 0
    else:
        shapes = [v.shape for v in (input, other) if type(v) is Array]
        # an empty result divides nothing (a shape that doesn't broadcast: the operation's own error)
        try:
            empty = 0 in _layout.broadcast_shapes(*shapes)
        except ValueError:
            return
        zero = not empty and builtins.bool(_ns().any(_ns().equal(other, 0)))
    if zero:
        raise RuntimeError("ZeroDivisionError")


class RoundingModeError(ValueError, RuntimeError):
    """``div``'s ``rounding_mode`` not None, 'trunc' or 'floor': a ValueError, and PyTorch's
    RuntimeError."""


def _div_bools(self, other, mode, name):
    """PyTorch's promotion of bool operands of ``div``: a bool array divides as the other
    operand's dtype (as the default float in true division of two bools, as int64 beside a
    Python int); two bool arrays with a rounding mode have no kernel (NotImplementedError)."""
    ob = type(other) is Array and other._dtype is _dtypes.bool
    if self._dtype is not _dtypes.bool and not ob:
        return self, other
    dflt = _dtypes.get_default_dtype()
    if self._dtype is _dtypes.bool and ob:
        if mode is not None:
            raise DTypeNotImplementedError(f'"div_{mode}_cpu" not implemented for \'Bool\'')
        return (self if name == "divide_" else _astype(self, dflt)), _astype(other, dflt)
    if ob:  # (an array divided by a bool array: the bools in its dtype, or the default float)
        to = self._dtype if mode is not None or self._dtype.kind in "fc" else dflt
        return self, _astype(other, to)
    if name == "divide_":
        return self, other  # (a bool target: the cast check refuses as PyTorch's)
    if type(other) is Array:
        to = other._dtype if mode is not None or other._dtype.kind in "fc" else dflt
    elif isinstance(other, builtins.bool):
        to = dflt if mode is None else _dtypes.int64
    elif isinstance(other, builtins.int):
        to = dflt if mode is None else _dtypes.int64
    elif isinstance(other, builtins.complex):
        to = _dtypes.complex128 if dflt is _dtypes.float64 else _dtypes.complex64
    else:
        to = dflt
    return _astype(self, to), other


def _div_call(f, name):
    """``div`` with PyTorch's ``rounding_mode``: None, ``'trunc'`` or ``'floor'``."""
    def call(self, other, *, rounding_mode=None, out=None, **unexpected):
        if unexpected:
            raise _unexpected(name, unexpected)
        if rounding_mode in (None, "floor", "trunc"):
            self, other = _div_bools(self, other, rounding_mode, name)
        if rounding_mode is None:
            return f(self, other, out=out)
        if rounding_mode in ("floor", "trunc"):
            check_integer_divisor(self, other)
        if rounding_mode == "floor":
            return _ns().floor_divide(self, other, out=out)
        if rounding_mode == "trunc":
            ns = _ns()
            if self._dtype.kind in "iu" and (type(other) is Array and other._dtype.kind in "iu"
                                             or isinstance(other, builtins.int)):
                # Integers: the floor quotient, plus one where the remainder is not zero and
                # the operands' signs differ (exact; through a float quotient 2**24 + 1 came
                # out 2**24: the true quotient is float32 in PyTorch's promotion)
                q = ns.floor_divide(self, other)
                neg = other < 0 if type(other) is not Array else ns.less(other, 0)
                up = ns.logical_and(ns.not_equal(ns.remainder(self, other), 0),
                                    ns.not_equal(ns.less(self, 0), neg))
                return ns.add(q, ns.astype(up, q.dtype), out=out)
            return ns.trunc(ns.divide(self, other), out=out)
        raise RoundingModeError(f"{name}(): rounding_mode must be None, 'trunc' or 'floor'; got {rounding_mode!r}")
    return call


# Rows whose methods take PyTorch's extra keyword arguments beyond the row's own (``alpha``
# is the row's: ``row.torch``, applied once in the compute dtype by the row's function).
_TORCH_EXTRAS = {"divide": _div_call}


# PyTorch's keyword names for the second operand of a two-input method.
_OPERAND_KEYWORDS = ("other", "exponent")


def _operand_keyword(kwargs: dict) -> tuple:
    """``x.mul(other=y)``, ``x.pow(exponent=2)``: PyTorch's keyword for the operand,
    taken out of ``kwargs`` as the positional arguments (only called with kwargs)."""
    for k in _OPERAND_KEYWORDS:
        if k in kwargs:
            return (kwargs.pop(k),)
    return ()


def _keywords_call(row, name):
    """The call taken when a method gets keyword arguments: PyTorch's operand keywords
    (``other=``, ``exponent=``) and extras (``alpha=``, ``rounding_mode=``)."""
    f = row.func
    if row.name in _TORCH_EXTRAS:
        f = _TORCH_EXTRAS[row.name](f, name)
    accepted = frozenset(("out",) + row.torch + tuple(_EXTRA_PARAMS.get(row.name, ())[:1])
                         + tuple(k for k, _ in row.params))

    def call(self, *args, **kwargs):
        if not args:
            args = _operand_keyword(kwargs)
        for k in kwargs:
            if k not in accepted:
                raise _unexpected(name, {k: None})
        return f(self, *args, **kwargs)
    return call


# Rows whose PyTorch kernel has no integer loop (``hypot_cpu not implemented for 'Long'``):
# computed in the operands' promoted dtype, refused where it is not floating (promoted_float).
_NO_INTEGER_PAIR = frozenset({"hypot", "logaddexp", "nextafter"})


def torch_function(call, name: str, doc: str, like):
    """``call`` dressed as PyTorch's ``torch.<name>``: its name, module, ``doc`` and the
    signature of ``like`` (the strided function it wraps), where that has one."""
    call.__name__ = call.__qualname__ = name
    call.__module__ = "strided.torch"
    call.__doc__ = doc
    try:
        call.__signature__ = inspect.signature(like)
    except (TypeError, ValueError):
        pass
    return call


def _pair_dtype(input, other):
    """The promoted dtype of a binary call's array operands (a Python scalar does not vote)."""
    arrays = [a._dtype for a in (input, other) if type(a) is Array]
    return _dtypes.result_type_pair(*arrays) if len(arrays) == 2 else arrays[0]


def _logaddexp_complex(input, other, out):
    """PyTorch's complex ``logaddexp`` (its ``_log_add_exp_helper``): with ``mn``, ``mx`` the
    operands ordered by real part (``mn`` the second on a tie), ``log1p(exp(mn - mx)) + mx``;
    NaN (both parts) where an operand has a NaN part; ``mn`` where both real parts are -inf,
    ``log(exp(mn) + exp(mx))`` where both are +inf."""
    import strided as ns
    dev = next(a.device for a in (input, other) if type(a) is Array)
    dt = _pair_dtype(input, other)
    if dt.kind != "c":  # a complex Python scalar beside a real array: PyTorch's complex dtype
        dt = _dtypes.complex128 if dt.name == "float64" else _dtypes.complex64
    a, b = (_astype(x, dt) if type(x) is Array else ns.asarray(x, dtype=dt, device=dev)
            for x in (input, other))
    a, b = ns.broadcast_arrays(a, b)
    a_first = ns.real(a) < ns.real(b)
    mn, mx = ns.where(a_first, a, b), ns.where(a_first, b, a)
    mnr, mxr = ns.real(mn), ns.real(mx)
    general = ns.add(ns.log1p(ns.exp(ns.subtract(mn, mx))), mx)
    both_inf = ns.isinf(mnr) & (mnr == mxr)
    r = ns.where(both_inf, ns.where(mnr < 0, mn, ns.log(ns.add(ns.exp(mn), ns.exp(mx)))), general)
    nan = ns.asarray(complex(float("nan"), float("nan")), dtype=dt, device=dev)
    return ns.where(ns.isnan(a) | ns.isnan(b), nan, r, out=out)


def promoted_float(name: str, f):
    """PyTorch's ``torch.hypot``/``logaddexp``/``nextafter`` (and the methods): computed in the
    operands' promoted dtype (an integer or bool array beside a float one in the float's),
    refused where that dtype is not floating (``"hypot_cpu" not implemented for 'Char'``), as
    PyTorch's kernels have no integer loop. ``f(input, other, out=)``: the standard's function."""
    complex_rule = name == "logaddexp"  # (PyTorch's own complex formula: _logaddexp_complex)

    def call(input, other, /, *, out=None):
        if complex_rule and (type(input) is complex or type(other) is complex
                             or (type(input) is Array and input._dtype.kind == "c")
                             or (type(other) is Array and other._dtype.kind == "c")):
            return _logaddexp_complex(input, other, out)
        if (type(input) is Array and input._dtype.kind in "biu") or (
                type(other) is Array and other._dtype.kind in "biu"):
            dt = _pair_dtype(input, other)
            if dt.kind not in "fc":
                from ._dtype_guards import _not_implemented
                raise _not_implemented(f"{name}_cpu")(dt)
            input, other = (_astype(a, dt) if type(a) is Array and a._dtype is not dt else a
                            for a in (input, other))
        return f(input, other) if out is None else f(input, other, out=out)
    return torch_function(call, name, f"PyTorch's ``torch.{name}``: " + promoted_float.__doc__.split(": ", 1)[1], f)


# Unary rows PyTorch computes for dtypes the standard's refuse, by casting the input first:
# ``square`` of a bool array is int64 (PyTorch's pow(mask, 2)), ``signbit`` of an integer array
# is its sign (float64 keeps every integer's sign).
_TORCH_INPUT_CASTS = {"square": {"b": _dtypes.int64}, "signbit": {"i": _dtypes.float64, "u": _dtypes.float64}}


def cast_first(name: str, f):
    """PyTorch's ``torch.<name>(input, *, out=None)`` for a row of ``_TORCH_INPUT_CASTS``: the
    standard's ``f`` of the input cast as the table says, of any other input as it is."""
    casts = _TORCH_INPUT_CASTS[name]

    def call(input, /, *, out=None):
        if type(input) is Array:
            to = casts.get(input._dtype.kind)
            if to is not None:
                input = _astype(input, to)
        return f(input) if out is None else f(input, out=out)
    return torch_function(call, name, f"PyTorch's ``torch.{name}``: ``strided.{name}``, with an input of kind(s) "
                          f"{', '.join(sorted(casts))} cast to {', '.join(sorted({d.name for d in casts.values()}))} "
                          f"first, as PyTorch computes it.", f)


def _method_for(row):
    f = row.func
    slow = _keywords_call(row, row.name)  # Note: keywords leave the hot path
    if row.name in _NO_INTEGER_PAIR:
        fn = promoted_float(row.name, f)

        def method(self, other):
            return fn(self, other)
    elif row.name in _TORCH_INPUT_CASTS:
        fn = cast_first(row.name, f)

        def method(self, *, out=None):
            return fn(self, out=out)
    elif row.method_float:
        def method(self, *args, **kwargs):
            if row.nargs == 2 and args and type(args[0]) is Array and args[0]._dtype.kind in "biu":
                # (PyTorch's integer-to-float rows: an integer operand computes in the other's
                # floating dtype, two integer operands in the default one: x.atan2(int))
                o = args[0]
                to = self._dtype if self._dtype.kind in "fc" else _dtypes.get_default_dtype()
                args = (_astype(o, to),) + args[1:]
            if self._dtype.kind in "biu":
                to = args[0]._dtype if row.nargs == 2 and args and type(args[0]) is Array \
                    and args[0]._dtype.kind in "fc" else _dtypes.get_default_dtype()
                self = _astype(self, to)
            return slow(self, *args, **kwargs) if kwargs else f(self, *args)
    elif row.nargs == 2:
        def method(self, *args, **kwargs):
            if not kwargs and len(args) == 1:
                # x.add(y): the function's own door (compiled: ~0.15 us against the Python
                # kernel path's ~1 us), with one positional operand
                return f(self, args[0])
            return slow(self, *args, **kwargs) if kwargs else f(self, *args)
    else:
        def method(self, *args, **kwargs):
            if not args and not kwargs:
                return f(self)  # x.abs(): the function's own door
            return slow(self, *args, **kwargs) if kwargs else f(self, *args)
    method.__name__ = row.name
    method.__doc__ = f"Method form of ``strided.{row.name}``."
    method.__signature__ = _row_signature(row, out=True)
    return method


_EXTRA_PARAMS = {"divide": ("rounding_mode", None)}
_TORCH_DEFAULTS_OF_ROWS = {"alpha": 1}


def _row_signature(row, out: bool) -> inspect.Signature:
    """``(self, other, /, *, alpha=1, out=None)``: a registry row's method, as it is called."""
    ps = [_Param("self", _Param.POSITIONAL_ONLY)]
    if row.nargs == 2:
        ps.append(_Param("other", _Param.POSITIONAL_OR_KEYWORD))
    for k, d in row.params:  # a parametric activation's (x.leaky_relu(0.2))
        ps.append(_Param(k, _Param.POSITIONAL_OR_KEYWORD, default=d))
    extra = _EXTRA_PARAMS.get(row.name)
    if extra is not None:
        ps.append(_Param(extra[0], _Param.KEYWORD_ONLY, default=extra[1]))
    for k in row.torch:
        ps.append(_Param(k, _Param.KEYWORD_ONLY, default=_TORCH_DEFAULTS_OF_ROWS.get(k)))
    if out:
        ps.append(_Param("out", _Param.KEYWORD_ONLY, default=None))
    return inspect.Signature(ps)


def _inplace_for(row):
    f = row.func
    name = row.name + "_"
    slow = _keywords_call(row, name)

    impl = f._impl
    binary = row.nargs == 2
    into = f._into if binary else None
    noperands = row.nargs - 1  # arguments after self

    method_float = row.method_float
    # (a row whose result of a complex input is real -- abs -- has no in-place form for a
    # complex array in PyTorch: "In-place abs is not supported for complex tensors")
    real_of_complex = row.result == "real"

    def inplace(self, *args, **kwargs):
        if method_float and self._dtype.kind in "biu":
            raise _cast_error(_dtypes.get_default_dtype(), self._dtype)
        if real_of_complex and self._dtype.kind == "c":
            leaf_first(self, name)
            raise _dtypes.DTypeError(f"{name}(): in-place {row.name} is not supported for complex arrays "
                                     f"(got {self._dtype.name}); use {row.name}() out of place")
        if kwargs:
            slow(self, *args, out=self, **kwargs)
        elif self._ext is None and len(args) == noperands:
            # no extension on the target (nor the operand): straight to the row's kernel path
            if not binary:
                impl(self, self)
                return self
            o = args[0]
            t = type(o)
            if (t is Array and o._ext is None) or t in _PYSCALARS:
                return into(self, o, self)
            else:
                f(self, *args, out=self)
        else:
            f(self, *args, out=self)
        return self
    inplace.__name__ = name
    inplace.__doc__ = (f"In-place ``{row.name}``: writes into this array's storage and returns it. "
                       f"Raises TypeError when the result can't be cast to this array's dtype.")
    inplace.__signature__ = _row_signature(row, out=False)
    if real_of_complex:
        inplace.torch_meaning = True  # (refuses complex, as PyTorch's: the contract tests' reference)
    return inplace


for _row in _elementwise.ROWS:
    _meth = _method_for(_row)
    _inpl = _inplace_for(_row)
    for _n in (_row.name,) + _row.aliases:
        if _n in ("real", "imag") or _n in Array.__dict__:
            continue
        setattr(Array, _n, _meth)
    _inpl = _elementwise.inplace_compiled(_row, _inpl)  # (x.add_(y): a += b's compiled case)
    for _n in (_row.name,) + _row.aliases:
        if _n in ("real", "imag", "conj_physical"):
            continue
        setattr(Array, _n + "_", _inpl)


def _conj_of_real_is_self(method):
    """``x.conj()`` / ``x.conj_physical()`` with PyTorch's meaning for an array that is not
    complex: ``x`` itself (so a write into the result writes ``x``, as PyTorch's)."""
    def conj(self, *args, **kwargs):
        if self._dtype.kind != "c" and not args and not kwargs:
            return self
        return method(self, *args, **kwargs)
    conj.__name__ = conj.__qualname__ = method.__name__
    conj.__doc__ = method.__doc__
    conj.__signature__ = getattr(method, "__signature__", None)
    conj.torch_meaning = True
    return conj


Array.conj = _conj_of_real_is_self(Array.conj)
Array.conj_physical = _conj_of_real_is_self(Array.conj_physical)
Array.round = round_method
_round_inplace_row = Array.round_
Array.round_ = round_inplace
round_inplace.torch_meaning = True  # (refuses complex and bool, as PyTorch's: the contract tests' reference)


def _integer_division_checked(name: str):
    """Array's ``remainder``/``floor_divide`` method (or in-place form) with PyTorch's
    RuntimeError("ZeroDivisionError") for an integer divisor of zero (``check_integer_divisor``);
    the operators ``//`` and ``%`` are the core's and keep NumPy's 0."""
    m = Array.__dict__[name]

    def method(self, other, *args, **kwargs):
        if self._dtype.kind in "biu":  # (a bool array divides as an integer one)
            check_integer_divisor(self, other)
        return m(self, other, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = m.__doc__
    method.__signature__ = getattr(m, "__signature__", None)
    return method


for _n in ("remainder", "floor_divide", "remainder_", "floor_divide_"):
    if _n in Array.__dict__:
        setattr(Array, _n, _integer_division_checked(_n))


def _of_any_dtype(name: str):
    """Array's ``logical_and``/``or``/``xor``/``not`` method and in-place form with PyTorch's
    meaning: of any dtypes, an element true where it is not zero (``x.logical_and(y)`` of
    floats is bool; ``x.logical_not_()`` writes 0/1 into x's own dtype). Bool operands keep
    the row's own method; the others take ``strided.torch``'s function (and its ``out=`` for
    the in-place form: the pipeline's writer, PyTorch's cast of bool into x's dtype)."""
    inplace = name.endswith("_")
    m = Array.__dict__[name]

    def method(self, *args, **kwargs):
        if self._dtype.kind == "b" and all(type(a) is not Array or a._dtype.kind == "b" for a in args):
            return m(self, *args, **kwargs)
        from . import _functions
        f = getattr(_functions, name.rstrip("_"))
        if not inplace:
            return f(self, *args, **kwargs)
        leaf_first(self, name)  # (the leaf's error first, as for every in-place door)
        return f(self, *args, out=self, **kwargs)
    method.__name__ = name
    method.__doc__ = m.__doc__
    method.__signature__ = getattr(m, "__signature__", None)
    return method


for _n in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    for _m in (_n, _n + "_"):
        if _m in Array.__dict__:
            setattr(Array, _m, _of_any_dtype(_m))


def torch_sign(input, *, out=None):
    """PyTorch's ``torch.sign(input)`` and ``x.sign()``: -1, 0 or 1, and 0 for NaN (the
    standard's ``strided.sign`` gives NaN). A complex input gives ``z / |z|``, PyTorch's
    ``sgn`` (PyTorch's ``sign`` refuses complex numbers)."""
    ns = _ns()
    if type(input) is Array and input._dtype.kind == "c":
        raise DTypeNotImplementedError("Unlike NumPy, torch.sign is not intended to support complex "
                                       "numbers. Please use torch.sgn instead.")
    if type(input) is Array and input._dtype.kind == "b":  # (PyTorch's sign of a bool: itself)
        # (x.sign_() of a mask writes, as every in-place method: its version counter moves)
        r = input.clone()  # (in the input's layout, as PyTorch's)
        if out is None:
            return r
        from .._core.dispatch import _write_result
        return _write_result("sign", out, r)
    if type(input) is not Array or input._dtype.kind != "f":
        return ns.sign(input, out=out)
    # (in place: computed from a detached alias, so that nothing saved for backward is the
    # array written; sign's derivative is 0 either way)
    r = ns.sign(input.detach() if out is input else input)
    nan = ns.isnan(r)
    if ns.any(nan):
        r = ns.where(nan, 0.0, r)
    if out is None:
        return r
    # (one write into out, its version counter once: x.sign_() with a NaN wrote twice; an
    # in-place sign_ records as a copy of a constant: the gradient through it is 0, sign's)
    if out is input:
        return out.copy_(r)
    from .._core.dispatch import _write_result
    return _write_result("sign", out, r)


def _sign_method(self, *, out=None):
    return torch_sign(self, out=out)


def _sign_inplace(self):
    leaf_first(self, "sign_")
    torch_sign(self, out=self)
    return self


_sign_method.__name__, _sign_inplace.__name__ = "sign", "sign_"
_sign_method.__doc__ = "PyTorch's ``x.sign()``: -1, 0 or 1, and 0 for NaN (``strided.sign`` gives NaN)."
_sign_inplace.__doc__ = "PyTorch's ``x.sign_()``: ``x.sign()`` written into ``x``."
_sign_method.__signature__ = _row_signature(_elementwise.REGISTRY["sign"], out=True)
_sign_inplace.__signature__ = _row_signature(_elementwise.REGISTRY["sign"], out=False)
_sign_method.torch_meaning = _sign_inplace.torch_meaning = True  # (the contract tests' reference: PyTorch's)
Array.sign, Array.sign_ = _sign_method, _sign_inplace


def equal_(self, other) -> builtins.bool:
    """PyTorch's ``x.equal(y)``: True when ``y`` has this array's shape and every element
    equals it (after promotion; NaN equals nothing), a Python bool. The namespace's
    ``strided.equal`` (the standard's) and ``x.eq(y)`` compare elementwise."""
    if type(other) is not Array:
        raise TypeError(f"equal(): other must be a strided array; got {type(other).__name__}")
    if self._shape != other._shape:
        return False
    if self._ext is not None or other._ext is not None:
        # Note: as PyTorch's at::equal, names first (namedinference::are_names_equal): arrays
        # whose names differ are not equal (an unnamed array's names are all None), whatever
        # their elements; no names are unified, so no DimensionNameError.
        if _full_names(self) != _full_names(other):
            return False
        self, other = self.rename(None), other.rename(None)
    ns = _ns()
    return builtins.bool(ns.all(ns.equal(self, other)))


def _full_names(x) -> tuple:
    e = x._ext
    n = None if e is None else e.names
    return n if n is not None else (None,) * len(x._shape)


Array.equal = equal_


def zero_(self):
    """Fill with zeros in place; returns self."""
    out_native(self, "zero_()", True)[...] = 0
    return self


def fill_(self, value):
    """Fill with ``value`` (a Python scalar or 0-d array) in place; returns self."""
    if type(value) is Array:
        if value._shape:
            raise ValueError(f"fill_(): value must be a scalar or 0-d array; got shape {value._shape}")
        value = value.item()
    _assign(out_native(self, "fill_()", True), value, self._dtype, self._device, "fill_")
    return self


def copy_(self, src, non_blocking=False):
    """Copy ``src`` into this array (broadcasting and casting); returns self."""
    if type(src) is not Array:
        src = _ns().asarray(src, device=self._device)
    if src._device is not self._device:
        src = _to_device(src, self._device)
    if len(src._shape) > len(self._shape):
        # (PyTorch's rule: src broadcasts to self's shape, never beyond it; NumPy's assignment
        # would drop src's extra leading ones, a (1,) source into a 0-d array)
        raise _layout.ShapeError(f"copy_(): source of shape {src._shape} can't be broadcast to "
                         f"shape {self._shape} (it has more dimensions)")
    dst = out_native(self, "copy_()")
    s = src._get_native()
    if src._dtype.kind == "c" and self._dtype.kind != "c":
        s = s.real  # Note: PyTorch discards the imaginary part here too.
    try:
        dst[...] = _views.source_as_it_was(dst, s)
    except ValueError:
        raise _layout.ShapeError(f"copy_(): source of shape {src._shape} can't be broadcast to "
                         f"shape {self._shape}") from None
    return self


def clip_(self, min=None, max=None):
    """Clamp in place to ``[min, max]``; returns self. PyTorch's RuntimeError where the promoted
    dtype of ``self`` and the bounds can't be cast to ``self``'s (an integer array, a float
    bound)."""
    return torch_clamp("clamp_", self, min, max, inplace=True)


Array.zero_ = zero_
Array.fill_ = fill_
Array.copy_ = copy_
Array.clip_ = clip_
Array.clamp_ = clip_


# --- new_* factories ------------------------------------------------------------

def _new_factory(fname):
    def new(self, *shape, dtype=None, device=None, **kwargs):
        return getattr(_ns(), fname)(*shape, dtype=dtype or self._dtype,
                                     device=device or self._device, **kwargs)
    new.__name__ = "new_" + fname
    new.__doc__ = f"``strided.{fname}`` with this array's dtype and device unless overridden."
    new.__signature__ = inspect.Signature(
        [_Param("self", _Param.POSITIONAL_ONLY), _Param("size", _Param.VAR_POSITIONAL)]
        + [_Param(k, _Param.KEYWORD_ONLY, default=d) for k, d in (
            ("dtype", None), ("device", None), ("requires_grad", False))])
    return new


Array.new_empty = _new_factory("empty")
Array.new_zeros = _new_factory("zeros")
Array.new_ones = _new_factory("ones")


def new_full(self, size, fill_value, *, dtype=None, device=None, **kwargs):
    """``strided.full`` with this array's dtype and device unless overridden."""
    return _ns().full(size, fill_value, dtype=dtype or self._dtype,
                      device=device or self._device, **kwargs)


def new_tensor(self, data, *, dtype=None, device=None, **kwargs):
    """``strided.tensor`` with this array's dtype and device unless overridden."""
    return _ns().tensor(data, dtype=dtype or self._dtype, device=device or self._device, **kwargs)


Array.new_full = new_full
Array.new_tensor = new_tensor


# --- the legacy constructor Tensor.new ------------------------------------------------------

def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) or (
        hasattr(v, "dtype") and not isinstance(v, Array) and getattr(v, "ndim", None) == 0
        and getattr(v.dtype, "kind", "") in "iu")


def _new_combination(args, kwargs) -> TypeError:
    got = ", ".join([type(a).__name__ for a in args]
                    + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    return TypeError(f"new() received an invalid combination of arguments - got ({got}), but "
                     "expected one of: (*, device), (Tensor other), (tuple of ints size, *, "
                     "device), (object data, *, device)")


def new(self, *args, **kwargs):
    """PyTorch's legacy constructor ``x.new(...)``, in this array's dtype and on its device.

    ``x.new()``: an empty ``(0,)`` array; ``x.new(2, 3)`` or ``x.new(size=(2, 3))`` or
    ``x.new(torch.Size([2, 3]))``: an uninitialized array of that shape; ``x.new(data)`` (a
    list, a tuple, a range, a NumPy array: a tuple is data, as in PyTorch): the data converted
    to ``x.dtype``; ``x.new(t)`` for an array ``t`` of ``x``'s dtype: a view of all of ``t``
    (sharing its memory and, as PyTorch's alias, its autograd history; another dtype is a
    TypeError). Only ``device=`` (of ``x``'s device type) is accepted as a keyword, as in
    PyTorch; the other forms never require grad.

    >>> import strided.torch as torch
    >>> x = torch.ones(2, dtype=torch.float64)
    >>> x.new(2, 3).shape, x.new([1, 2]).tolist(), x.new().shape, x.new((2, 3)).dtype
    (strided.Size([2, 3]), [1.0, 2.0], strided.Size([0]), strided.float64)
    """
    ns = _ns()
    device = self._device
    extra = {k: v for k, v in kwargs.items() if k not in ("device", "size")}
    if extra:
        raise _new_combination(args, kwargs)
    if kwargs.get("device") is not None:
        want = as_device(kwargs["device"])
        if want.type != self._device.type:
            raise RuntimeError(f"legacy constructor expects device type: {self._device.type} but "
                               f"device type: {want.type} was passed")
        device = want
    if "size" in kwargs:
        if args:
            raise _new_combination(args, kwargs)
        args = (ns.Size(kwargs["size"]),)
    if not args:
        return ns.empty((0,), dtype=self._dtype, device=device)
    if len(args) == 1 and not _is_int(args[0]):
        data = args[0]
        if type(data) is Array:
            if data._dtype is not self._dtype:
                raise TypeError(f"new(): expected an array of dtype {self._dtype.name} (this "
                                f"array's), got {data._dtype.name}")
            if data._device != device:
                raise RuntimeError(f"new(): expected an array on {device}, got one on "
                                   f"{data._device}")
            return data[...]  # (a view: PyTorch's alias, differentiable)
        if isinstance(data, ns.Size):
            shape = tuple(data)
        elif isinstance(data, str):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        elif isinstance(data, (list, tuple, range)) or hasattr(data, "__array__"):
            if isinstance(data, range):
                data = list(data)
            try:
                import numpy as np
                kind = np.asarray(data).dtype.kind
            except Exception:  # noqa: BLE001 - nested arrays: the conversion below decides
                kind = ""
            if kind == "c" and self._dtype.kind != "c":
                raise TypeError("must be real number, not complex")
            return ns.tensor(data, dtype=self._dtype, device=device)
        else:
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    else:
        if not _is_int(args[0]):
            raise _new_combination(args, kwargs)
        if not all(_is_int(a) for a in args):
            bad = next(a for a in args if not _is_int(a))
            raise TypeError(f"new(): argument 'size' must be a tuple of ints, but found element "
                            f"of type {type(bad).__name__} at pos {args.index(bad)}")
        shape = tuple(int(a) for a in args)
    for n in shape:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"{list(shape)}")
    return ns.empty(shape, dtype=self._dtype, device=device)


Array.new = new
