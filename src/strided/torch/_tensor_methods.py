"""Array's methods for ``strided.torch``'s functions that Array lacked, and their in-place forms.

PyTorch programs call ``x.erf()``, ``x.addcmul(a, b)``, ``x.cummax(0)``, ``x.lgamma_()``: each
method here means what PyTorch 2.13's ``torch.Tensor`` method of that name means (its own
parameters -- ``x.polygamma(n)`` where the function is ``torch.polygamma(n, x)`` --, values,
dtypes, views, gradients). Each is one row of ``METHODS``: PyTorch's schema (the parameter
names its argument parser accepts, as ``torch.ops.aten.<name>`` spells them) and the
``strided.torch`` call it becomes, so the gradients, devices and dimension names are those of
the function's own composition. ``strided``'s standard functions of the same name may follow
NumPy (``strided.nanmedian`` averages, ``strided.bincount`` gives float64); the few rows
whose ``strided.torch`` function does so have their PyTorch meaning here (``_nanmedian``,
``_nanquantile``, ``_bincount``, ``_histogram``).

An in-place form ``x.<name>_(...)`` (rows of ``INPLACE``) computes the out-of-place result
and writes it with ``self.copy_`` (the one writer, _core/call/write.py); it returns ``self``,
keeps ``self``'s dtype and shape and refuses, as PyTorch does, a result dtype that PyTorch's
in-place rule can't cast to ``self``'s (``canCast``: no complex to real, no floating to
integer, nothing but bool to bool), a result shape other than ``self``'s, and a leaf that
requires grad. While autograd records, the result is computed from a clone of ``self``, as
PyTorch's in-place derivatives use the original ``self`` (``x.clone().lgamma_()``'s gradient
is digamma of the value before the write).

The module installs the methods on Array (only names Array lacks); ``strided/__init__`` imports
it before ``_shape_functions``, which makes PyTorch's top-level in-place functions of Array's
in-place methods (``torch.erf_(x)`` is ``x.erf_()``), these included. It reads ``strided``'s
namespaces only when a method runs, because ``strided/__init__`` imports it half-way through
its own initialisation.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math
import sys

from .._core import dtypes as _dtypes
from .._core.array import Array
from .._core.call.write import leaf_first
from .._core.dispatch import method_signature
from ..autograd._function import Function
from ._methods import _cast_error

_P = inspect.Parameter


def _ns():
    return sys.modules["strided"]


def _torch():
    return sys.modules["strided.torch"]


def _signature(spec: str) -> inspect.Signature:
    """``"tensor1, tensor2, *, value=1"`` (a method's parameters after ``self``, as PyTorch's
    schema names them; defaults are Python literals) as an ``inspect.Signature``."""
    fn = ast.parse(f"def f(self, {spec}): pass").body[0].args  # (parsed, never compiled)
    params = [_P("self", _P.POSITIONAL_ONLY)]
    pos = fn.posonlyargs + fn.args
    defaults = [_P.empty] * (len(pos) - len(fn.defaults)) + [ast.literal_eval(d) for d in fn.defaults]
    for i, (a, d) in enumerate(zip(pos, defaults)):
        if i:
            kind = _P.POSITIONAL_ONLY if i < len(fn.posonlyargs) else _P.POSITIONAL_OR_KEYWORD
            params.append(_P(a.arg, kind, default=d))
    for a, d in zip(fn.kwonlyargs, fn.kw_defaults):
        params.append(_P(a.arg, _P.KEYWORD_ONLY, default=_P.empty if d is None else ast.literal_eval(d)))
    return inspect.Signature(params)


def _bind(name: str, sig: inspect.Signature, self, args, kwargs) -> tuple:
    """The call's arguments after ``self``: (positional values, keyword-only values), PyTorch's
    defaults filled; TypeError naming the method for a call that doesn't fit."""
    try:
        b = sig.bind(self, *args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{name}(): {e}") from None
    b.apply_defaults()
    pos, kw = [], {}
    for p in list(sig.parameters.values())[1:]:
        if p.kind is _P.KEYWORD_ONLY:
            kw[p.name] = b.arguments[p.name]
        else:
            pos.append(b.arguments[p.name])
    return pos, kw


# --- the rows whose strided.torch function is not PyTorch's method --------------------------------

def _nan_to_num(self, nan, posinf, neginf):
    # (PyTorch's schema: nan=None means 0.0)
    return _torch().nan_to_num(self, 0.0 if nan is None else nan, posinf, neginf)


def _polygamma(self, n):
    return _torch().polygamma(n, self)


def _bincount(self, weights, minlength):
    """PyTorch's ``x.bincount(weights=None, minlength=0)``: int64 counts, or sums of the weights
    in their float dtype (float32 and float64 kept, any other dtype as float64)."""
    ns = _ns()
    if self.dtype.kind not in "iu":
        raise NotImplementedError(f"bincount(): not implemented for dtype {self.dtype.name}; "
                                  f"the input must hold integers")
    if self.ndim != 1 or (self.shape[0] and builtins.int(ns.min(self)) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError(f"bincount(): minlength should be >= 0; got {minlength}")
    if weights is None:
        return ns.astype(ns.bincount(self, minlength=minlength), _dtypes.int64)
    if type(weights) is not Array or weights.ndim != 1 or weights.shape[0] != self.shape[0]:
        raise RuntimeError("bincount(): weights should be 1-d and have the same length as input")
    dt = weights.dtype if weights.dtype in (_dtypes.float32, _dtypes.float64) else _dtypes.float64
    # (PyTorch's bincount has no derivative: the sums are computed without history)
    return ns.astype(ns.bincount(self, weights.detach(), minlength=minlength), dt)


_HISTOGRAM = []


def _histogram_type():
    if not _HISTOGRAM:
        from ._functions import _return_type, return_types
        return_types.histogram = _return_type("histogram", ("hist", "bin_edges"))
        _HISTOGRAM.append(return_types.histogram)
    return _HISTOGRAM[0]


def _histogram(self, bins, range, weight, density):  # noqa: A002 - PyTorch's name
    """PyTorch's ``x.histogram(bins=100, *, range=None, weight=None, density=False)``:
    ``return_types.histogram(hist, bin_edges)``, both of ``x``'s float dtype; the last bin
    includes its right edge, elements outside the edges (and NaN) are not counted."""
    ns = _ns()
    dt = self.dtype
    if dt.kind != "f":
        raise NotImplementedError(f"histogram(): not implemented for dtype {dt.name}; the input "
                                  f"must be floating point")
    x = ns.reshape(self.detach(), (-1,))
    if type(bins) is Array:
        if range is not None:
            raise TypeError("histogram(): range= is for a number of bins (an int); bins given as an array "
                            "are the edges")
        if bins.dtype != dt:
            raise RuntimeError(f"histogram(): input tensor and bins tensors should have the same dtype, "
                               f"but got input {dt.name} and bins {bins.dtype.name}")
        if bins.ndim != 1 or bins.shape[0] < 1:
            raise RuntimeError("histogram(): bins tensor should have one dimension and at least 1 "
                               "element")
        edges = bins.detach()
    else:
        if type(bins) is not builtins.int or bins <= 0:
            raise RuntimeError(f"histogram(): bins must be > 0, but got {bins}")
        if range is not None:
            lo, hi = (builtins.float(v) for v in range)
        elif x.shape[0]:
            lo, hi = builtins.float(ns.min(x)), builtins.float(ns.max(x))
        else:
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"histogram(): range [{lo}, {hi}] is not finite")
        if lo > hi:
            raise RuntimeError(f"histogram(): min should not exceed max, but got min {lo} max {hi}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = ns.linspace(lo, hi, bins + 1, dtype=dt, device=self.device)
    nb = edges.shape[0] - 1
    if weight is not None:
        if type(weight) is not Array or tuple(weight.shape) != tuple(self.shape):
            raise RuntimeError("histogram(): if weight tensor is provided it should have the same shape "
                               "as the input tensor")
        if weight.dtype != dt:
            raise RuntimeError(f"histogram(): input tensor and weight tensor should have the same dtype, "
                               f"but got input {dt.name} and weight {weight.dtype.name}")
    hist = ns.zeros(builtins.max(nb, 0), dtype=dt, device=self.device)
    if nb > 0 and x.shape[0]:
        inside = ns.logical_and(x >= edges[0], x <= edges[nb])
        # (the bin whose left edge is the last <= x; the last edge itself: the last bin)
        idx = ns.clip(ns.searchsorted(edges, x, side="right") - 1, 0, nb - 1)
        w = ns.ones_like(x) if weight is None else ns.reshape(weight.detach(), (-1,))
        w = ns.where(inside, w, 0)
        hist = ns.astype(ns.bincount(idx, w, minlength=nb), dt)
    if density and nb > 0:
        widths = edges[1:] - edges[:-1]
        hist = hist / (ns.sum(hist) * widths)
    return _histogram_type()(hist, edges)


class _EvenlyDistributed(Function):
    """``value`` (the median of ``x``'s numbers) whose gradient is shared evenly by the
    elements equal to it (NaN: by the NaN elements), PyTorch's ``evenly_distribute_backward``
    of ``median()``/``nanmedian()`` without a dim."""

    @staticmethod
    def forward(ctx, x, value):
        ctx.save_for_backward(x, value)
        return _ns().clone(value)

    @staticmethod
    def backward(ctx, g):
        x, v = ctx.saved_tensors
        ns = _ns()
        mask = ns.isnan(x) if builtins.bool(ns.isnan(v)) else ns.equal(x, v)
        return ns.where(mask, g / ns.sum(mask), 0.0), None


# (one class per operation, for the grad_fn's name: PyTorch's node of each)
EVENLY = {op: type(f"_Evenly{op.title()}", (_EvenlyDistributed,), {"_node_name": node})
          for op, node in (("max", "MaxBackward1"), ("min", "MinBackward1"), ("median", "MedianBackward0"),
                           ("nanmedian", "NanmedianBackward0"))}


def _nanmedian(self, dim, keepdim):
    """PyTorch's ``x.nanmedian(dim=None, keepdim=False)``: the lower median of the numbers (NaN
    ignored; NaN where a slice holds none); with a dim, ``return_types.nanmedian(values,
    indices)``."""
    ns = _ns()
    if type(keepdim) is not bool:
        raise TypeError(f"nanmedian(): keepdim must be a bool; got {type(keepdim).__name__}")
    if dim is not None and type(dim) is not builtins.int:
        raise TypeError(f"nanmedian(): dim must be an int or None; got {type(dim).__name__}")
    if dim is None:
        if keepdim:
            raise TypeError("nanmedian(): keepdim=True needs a dim (PyTorch's nanmedian() of all elements "
                            "takes no keepdim)")
        x = ns.reshape(self, (-1,))
        if not x.shape[0]:
            return ns.full((), math.nan, dtype=self.dtype, device=self.device)
        v, _ = _nanmedian_along(x.detach(), 0, False)
        return EVENLY["nanmedian"].apply(x, v)
    if self.ndim == 0:
        from ._functions import return_types
        if dim not in (0, -1):
            raise IndexError(f"nanmedian(): dim {dim} is out of range for a 0-d array (expected -1 or 0)")
        return return_types.nanmedian(ns.clone(self), ns.zeros((), dtype=_dtypes.int64, device=self.device))
    from ._functions import return_types
    return return_types.nanmedian(*_nanmedian_along(self, dim, keepdim))


def _nanmedian_along(x, dim, keepdim):
    ns = _ns()
    d = dim if dim >= 0 else dim + x.ndim
    if not 0 <= d < x.ndim:
        raise IndexError(f"nanmedian(): dim {dim} is out of range for an array of {x.ndim} dimensions")
    n = x.shape[d]
    if n == 0:
        raise IndexError(f"nanmedian(): Expected reduction dim {dim} to have non-zero size.")
    order = ns.argsort(x, axis=d, stable=True)  # (NaN sorts last)
    count = ns.sum(ns.logical_not(ns.isnan(x)), axis=d, keepdims=True)
    k = ns.where(count > 0, (count - 1) // 2, 0)
    idx = ns.take_along_axis(order, k, axis=d)
    vals = ns.take_along_axis(x, idx, axis=d)
    if not keepdim:
        vals, idx = ns.squeeze(vals, axis=d), ns.squeeze(idx, axis=d)
    return vals, idx


def _nanquantile(self, q, dim, keepdim, interpolation):
    """PyTorch's ``x.nanquantile(q, dim=None, keepdim=False, *, interpolation='linear')``."""
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(f"nanquantile(): interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest. Got {interpolation}")
    if self.dtype.kind != "f":
        raise RuntimeError(f"nanquantile(): input tensor must be either float or double dtype; got "
                           f"{self.dtype.name}")
    if type(q) is Array:
        if q.ndim > 1:
            raise RuntimeError(f"nanquantile(): q must be a scalar or 1D tensor; got {q.ndim} dimensions")
        if q.dtype != self.dtype:
            raise RuntimeError(f"nanquantile(): q tensor must be same dtype as the input tensor; got "
                               f"{q.dtype.name} and {self.dtype.name}")
        ns = _ns()
        if q.numel() and builtins.bool(ns.any(ns.logical_or(q < 0, q > 1))):
            raise RuntimeError("nanquantile(): q values must be in the range [0, 1]")
    elif not 0 <= q <= 1:
        raise RuntimeError(f"nanquantile(): q must be in the range [0, 1] but got {q}")
    if type(keepdim) is not bool:
        raise TypeError(f"nanquantile(): keepdim must be a bool; got {type(keepdim).__name__}")
    r = _ns().nanquantile(self, q, axis=dim, keepdims=keepdim, method=interpolation)
    from ._memory_format import quantile_layout
    return quantile_layout(r, type(q) is Array and q.ndim == 1)


def _split(name: str):
    """dsplit/hsplit/vsplit/tensor_split: PyTorch's overloads take ``sections`` (an int),
    ``indices`` (a sequence) or, for tensor_split, ``tensor_indices_or_sections`` (an
    array), positionally or by those keywords."""
    keys = ("sections", "indices") + (("tensor_indices_or_sections",) if name == "tensor_split" else ())

    def call(self, *args, **kwargs):
        given = [k for k in keys if k in kwargs]
        if len(given) > 1 or (given and args and (name != "tensor_split" or len(args) > 1)):
            raise TypeError(f"{name}(): got more than one of indices_or_sections, {', '.join(keys)}")
        if given:
            args = (kwargs.pop(given[0]),) + args
        if name == "tensor_split":
            if len(args) > 2:
                raise TypeError(f"tensor_split(): takes at most 2 arguments (indices_or_sections, dim); "
                                f"got {len(args)}")
            dim = kwargs.pop("dim", args[1] if len(args) > 1 else 0)
            args = args[:1] + (dim,)
        elif len(args) > 1:
            raise TypeError(f"{name}(): takes 1 argument (indices_or_sections); got {len(args)}")
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument {next(iter(kwargs))!r}")
        if not args:
            raise TypeError(f"{name}() missing required argument 'indices_or_sections'")
        return getattr(_torch(), name)(self, *args)
    return call


# --- the rows ------------------------------------------------------------------------------------

# name -> (PyTorch's schema after ``self``, the call or None). None: ``torch.<name>(self, *pos,
# **keyword_only)``, the function's own positional order being the method's after ``self``.
METHODS = {
    **{n: ("", None) for n in (
        "argwhere", "corrcoef", "deg2rad", "digamma", "erf", "erfc", "erfinv", "exp2", "fix", "fliplr",
        "flipud", "frac", "get_device", "i0", "is_conj", "is_neg", "is_nonzero", "is_signed", "isneginf",
        "isposinf", "isreal", "lgamma", "logdet", "msort", "rad2deg", "resolve_conj", "resolve_neg",
        "rsqrt", "sgn", "sinc", "slogdet")},
    **{n: ("other", None) for n in (
        "fmax", "fmin", "fmod", "gcd", "inner", "is_same_size", "kron", "lcm", "ldexp", "logaddexp2",
        "vdot", "xlogy")},
    "addcdiv": ("tensor1, tensor2, *, value=1", None),
    "addcmul": ("tensor1, tensor2, *, value=1", None),
    "addmv": ("mat, vec, *, beta=1, alpha=1", None),
    "addr": ("vec1, vec2, *, beta=1, alpha=1", None),
    "aminmax": ("*, dim=None, keepdim=False", None),
    "bincount": ("weights=None, minlength=0", _bincount),
    "cov": ("*, correction=1, fweights=None, aweights=None", None),
    "cummax": ("dim", None),
    "cummin": ("dim", None),
    "logcumsumexp": ("dim", None),
    "diag": ("diagonal=0", None),
    "diag_embed": ("offset=0, dim1=-2, dim2=-1", None),
    "diagflat": ("offset=0", None),
    "dist": ("other, p=2", None),
    "float_power": ("exponent", None),
    "heaviside": ("values", None),
    "histc": ("bins=100, min=0, max=0", None),
    "histogram": ("bins=100, *, range=None, weight=None, density=False", _histogram),
    "kthvalue": ("k, dim=-1, keepdim=False", None),
    "logit": ("eps=None", None),
    "matrix_power": ("n", None),
    "multinomial": ("num_samples, replacement=False, *, generator=None", None),
    "mv": ("vec", None),
    "nan_to_num": ("nan=0.0, posinf=None, neginf=None", _nan_to_num),
    "nanmedian": ("dim=None, keepdim=False", _nanmedian),
    "nanquantile": ("q, dim=None, keepdim=False, *, interpolation='linear'", _nanquantile),
    "quantile": ("q, dim=None, keepdim=False, *, interpolation='linear'", None),
    "pinverse": ("rcond=1e-15", None),
    "polygamma": ("n", _polygamma),
    "qr": ("some=True", None),
    "rot90": ("k=1, dims=[0, 1]", None),
    "select": ("dim, index", None),
    "svd": ("some=True, compute_uv=True", None),
    "take_along_dim": ("indices, dim=None", None),
    "unique_consecutive": ("return_inverse=False, return_counts=False, dim=None", None),
}

# The overloaded splits: name -> the signature shown (``_split`` binds PyTorch's overloads itself)
SPLITS = {
    "dsplit": "indices_or_sections, /", "hsplit": "indices_or_sections, /",
    "vsplit": "indices_or_sections, /", "tensor_split": "indices_or_sections, /, dim=0",
}


def _method(name: str, spec: str, call):
    sig = _signature(spec)
    own = call
    if call is None:
        def call(self, *pos, **kw):
            return getattr(_torch(), name)(self, *pos, **kw)

    def method(self, *args, **kwargs):
        pos, kw = _bind(name, sig, self, args, kwargs)
        return call(self, *pos, **kw)
    method.__name__ = method.__qualname__ = name
    doc = f"PyTorch's ``Tensor.{name}({spec})``: ``torch.{name}(self, ...)``."
    method.__doc__ = doc + "\n\n" + inspect.cleandoc(own.__doc__) if own is not None and own.__doc__ else doc
    method.__signature__ = sig
    return method


# --- in-place forms ----------------------------------------------------------------------------------

def _can_cast(src, dst) -> bool:
    """PyTorch's ``canCast`` for an in-place result: no complex to real, no floating to
    integer or bool, no integer to bool."""
    if src.kind == "c" and dst.kind != "c":
        return False
    if src.kind == "f" and dst.kind in "biu":
        return False
    return not (src.kind != "b" and dst.kind == "b")


def _records(self, args) -> bool:
    ns = _ns()
    if not ns.is_grad_enabled():
        return False
    return self.requires_grad or builtins.any(type(a) is Array and a.requires_grad for a in args)


def _float_power_dtype(self, pos, kw):
    e = pos[0]
    cplx = self.dtype.kind == "c" or (type(e) is Array and e.dtype.kind == "c") or isinstance(e, builtins.complex)
    want = _dtypes.complex128 if cplx else _dtypes.float64
    if self.dtype != want:
        raise RuntimeError(f"float_power_(): the base given to float_power_ has dtype {self.dtype.name} but "
                           f"the operation's result requires dtype {want.name}")


# (PyTorch's float_power_ is a composite whose own check runs before the autograd layer's leaf
# check; the other checks here are its kernels', after it)
_float_power_dtype.before_autograd = True


def _cumulative_dtype(name):
    def check(self, pos, kw):
        dt = kw.get("dtype")
        if dt is not None and dt != self.dtype:
            raise RuntimeError(f"{name}(): Bad in-place call: input tensor dtype {self.dtype.name} and output "
                               f"tensor dtype {dt.name} should match")
    return check


# name_ -> (the out-of-place method, PyTorch's schema after ``self``, a check before computing)
INPLACE = {
    **{n + "_": (n, "", None) for n in (
        "deg2rad", "digamma", "erf", "erfc", "erfinv", "exp2", "fix", "frac", "i0", "lgamma", "rad2deg",
        "rsqrt", "sgn", "sinc", "conj_physical")},
    **{n + "_": (n, "other", None) for n in ("fmod", "gcd", "lcm", "ldexp", "xlogy")},
    "heaviside_": ("heaviside", "values", None),
    "float_power_": ("float_power", "exponent", _float_power_dtype),
    "logit_": ("logit", "eps=None", None),
    "nan_to_num_": ("nan_to_num", "nan=0.0, posinf=None, neginf=None", None),
    "polygamma_": ("polygamma", "n", None),
    "cumsum_": ("cumsum", "dim, *, dtype=None", _cumulative_dtype("cumsum_")),
    "cumprod_": ("cumprod", "dim, *, dtype=None", _cumulative_dtype("cumprod_")),
    "tril_": ("tril", "diagonal=0", None),
    "triu_": ("triu", "diagonal=0", None),
    "addmm_": ("addmm", "mat1, mat2, *, beta=1, alpha=1", None),
    "baddbmm_": ("baddbmm", "batch1, batch2, *, beta=1, alpha=1", None),
    "addmv_": ("addmv", "mat, vec, *, beta=1, alpha=1", None),
    "addr_": ("addr", "vec1, vec2, *, beta=1, alpha=1", None),
}


def _inplace(name: str, base: str, spec, check=None):
    """The in-place method ``name`` of the method ``base``: ``spec`` its parameters after
    ``self`` (a string), or its whole ``inspect.Signature``, ``self`` first. The other modules
    that give Array an in-place form (``_more_linalg``, ``_more_special``) make it here."""
    sig = spec if isinstance(spec, inspect.Signature) else _signature(spec)
    spec = spec if isinstance(spec, str) else str(sig)[1:-1].partition(", ")[2]
    first = check if getattr(check, "before_autograd", False) else None

    def inplace(self, *args, **kwargs):
        pos, kw = _bind(name, sig, self, args, kwargs)
        if first is not None:
            first(self, pos, kw)
        leaf_first(self, name)  # (PyTorch's autograd layer, before its kernels' checks)
        if check is not None and first is None:
            check(self, pos, kw)
        # (PyTorch's in-place derivatives use the original self: computed from a clone)
        src = self.clone() if _records(self, pos + list(kw.values())) else self
        r = getattr(src, base)(*pos, **kw)
        if r.dtype != self.dtype and not _can_cast(r.dtype, self.dtype):
            raise _cast_error(r.dtype, self.dtype)
        if tuple(r.shape) != tuple(self.shape):
            raise RuntimeError(f"{name}(): output with shape {list(self.shape)} doesn't match the broadcast "
                               f"shape {list(r.shape)}")
        return self.copy_(r)
    inplace.__name__ = inplace.__qualname__ = name
    inplace.__doc__ = (f"PyTorch's in-place ``Tensor.{name}({spec})``: ``self.{base}(...)`` written into "
                       f"``self``; returns ``self``. Refuses (TypeError) a result dtype that can't be cast to "
                       f"``self``'s, and a result shape other than ``self``'s (RuntimeError).")
    inplace.__signature__ = sig
    return inplace


def _without_out(sig: inspect.Signature) -> inspect.Signature:
    return sig.replace(parameters=[p for p in sig.parameters.values() if p.name != "out"])


def install_function_methods(functions: dict, inplace: dict = None) -> None:
    """Array's method ``name`` for each ``name -> f`` of ``functions`` (a strided.torch
    function; the method calls it with ``self`` first) and the in-place form for each
    ``name_ -> f`` of ``inplace`` (the shared ``_inplace``: from a clone while autograd
    records, PyTorch's refusals), where Array lacks the name. The modules that add
    functions (``_more_linalg``, ``_more_special``) give Array their methods so."""
    for name, f in functions.items():
        if not hasattr(Array, name):
            def m(self, *args, _f=f, **kwargs):
                return _f(self, *args, **kwargs)
            m.__name__ = m.__qualname__ = name
            m.__doc__ = f"Method form of ``torch.{name}``."
            m.__signature__ = _without_out(method_signature(f))
            setattr(Array, name, m)
    for name, f in (inplace or {}).items():
        if not hasattr(Array, name):
            setattr(Array, name, _inplace(name, name[:-1], _without_out(method_signature(f))))


def _install() -> list:
    """Set the methods Array lacks; the names set."""
    made = []
    for name, (spec, call) in METHODS.items():
        if not hasattr(Array, name):
            setattr(Array, name, _method(name, spec, call))
            made.append(name)
    for name, spec in SPLITS.items():
        if not hasattr(Array, name):
            m = _split(name)
            m.__name__ = m.__qualname__ = name
            m.__doc__ = (f"PyTorch's ``Tensor.{name}({spec.replace(', /', '')})``: ``torch.{name}(self, ...)``; "
                         f"views. ``indices_or_sections`` is also taken as ``sections=`` (an int) or "
                         f"``indices=`` (a sequence), PyTorch's overloads.")
            m.__signature__ = _signature(spec)
            setattr(Array, name, m)
            made.append(name)
    for name, (base, spec, check) in INPLACE.items():
        if not hasattr(Array, name):
            setattr(Array, name, _inplace(name, base, spec, check))
            made.append(name)
    return made


INSTALLED = _install()


# --- copy.deepcopy: graph leaves only, as PyTorch's ----------------------------------------------

_DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the "
    "moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")


def _refuse_deepcopy_of_non_leaves() -> None:
    """``copy.deepcopy`` of an array that autograd computed (one with a ``grad_fn``: a result or
    a view of an array requiring grad) raises PyTorch's RuntimeError, as ``Tensor.__deepcopy__``
    does; ``copy.copy`` and pickling still work, as PyTorch's. The arrays' copy hook
    (``io/_pickle.py``'s ``copy_array``, reached from ``Array.__deepcopy__``) is wrapped, once."""
    from .._core.array import _LATE

    copy_array = _LATE.get("copy_array")
    if copy_array is None or getattr(copy_array, "_leaves_only", False):
        return

    def copy_leaves_only(x, memo):
        if memo is not None:
            ext = x._ext
            if ext is not None and ext.grad_fn is not None:
                raise RuntimeError(_DEEPCOPY_NON_LEAF)
        return copy_array(x, memo)

    copy_leaves_only._leaves_only = True
    _LATE["copy_array"] = copy_leaves_only


_refuse_deepcopy_of_non_leaves()


from . import _dtype_guards  # noqa: E402

_dtype_guards.install_methods()  # (PyTorch's refusals by dtype: x.softmax(0) of an integer array)
