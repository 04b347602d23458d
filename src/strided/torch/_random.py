"""Random sampling in PyTorch's style: seeded generators per device.

``manual_seed(n)`` makes every later draw reproducible; each device has a
default ``Generator`` (NumPy's PCG64 on CPU), and every sampling function
takes ``generator=``, ``dtype=``, ``device=`` and ``out=``. Sampling is
vectorised: one backend call per function.
"""

from __future__ import annotations

import builtins
import math
import operator
import secrets

from .._core import dtypes as _dtypes, layout as _layout
from .._core.layout import ArgumentError as _ArgumentError
from .._core.array import _LATE, Array
from .._api.creation import _as_dtype, _finish, _shape_args, wrap_new
from .._core.device import as_device
from .._core.dispatch import out_native

__all__ = [
    "Generator", "manual_seed", "seed", "initial_seed", "default_generator", "get_rng_state",
    "set_rng_state", "rand", "randn", "randint", "normal", "randperm", "bernoulli",
    "rand_like", "randn_like", "randint_like", "multinomial",
]

_DEFAULT_SEED = 67280421310721


class Generator:
    """A random number generator on one device (``Generator("cpu")``)."""

    def __init__(self, device="cpu"):
        self.device = as_device(device)
        self._seed = _DEFAULT_SEED
        self._rng = self.device.backend.rng(self._seed, self.device)

    def manual_seed(self, seed) -> "Generator":
        seed = operator.index(seed)
        if not -(1 << 63) <= seed < 1 << 64:
            raise ValueError(f"manual_seed(): the seed must fit in 64 bits ([-2**63, 2**64)); got {seed}")
        if seed < 0:
            seed &= (1 << 64) - 1  # Note: PyTorch also wraps negative seeds.
        self._seed = seed
        self._rng = self.device.backend.rng(seed, self.device)
        return self

    def seed(self) -> builtins.int:
        """Reseed from a non-deterministic source; returns the new seed."""
        s = secrets.randbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> builtins.int:
        """The seed this generator was last seeded with."""
        return self._seed

    def get_state(self) -> dict:
        """The generator's full state (pass it to ``set_state``)."""
        import copy
        return {"seed": self._seed, "bit_generator": copy.deepcopy(self._rng.bit_generator.state)}

    def set_state(self, state: dict) -> "Generator":
        """Restore a state returned by ``get_state``; returns self."""
        if not isinstance(state, dict) or "bit_generator" not in state:
            raise TypeError("set_state(): expected a state returned by get_state()")
        self._seed = state["seed"]
        self._rng.bit_generator.state = state["bit_generator"]
        return self

    def __repr__(self) -> str:
        return f"<strided.Generator device={self.device} seed={self._seed}>"


_GENERATORS: dict = {}


def default_generator(device=None) -> Generator:
    """The default random generator of ``device`` (the default device when None)."""
    dev = as_device(device)
    g = _GENERATORS.get(dev)
    if g is None:
        g = _GENERATORS[dev] = Generator(dev)
    return g


def manual_seed(seed) -> Generator:
    """Seed the default generators of every device; returns the CPU one."""
    default_generator("cpu").manual_seed(seed)
    for dev, g in _GENERATORS.items():
        g.manual_seed(seed)
    return default_generator("cpu")


def seed() -> builtins.int:
    """Reseed the default generators from a non-deterministic source; returns the seed."""
    s = default_generator("cpu").seed()
    for g in _GENERATORS.values():
        g.manual_seed(s)
    return s


def initial_seed() -> builtins.int:
    """The seed of the CPU default generator."""
    return default_generator("cpu").initial_seed()


def get_rng_state() -> dict:
    """The state of the CPU default generator (pass it to ``set_rng_state``)."""
    return default_generator("cpu").get_state()


def set_rng_state(state) -> None:
    """Restore the CPU default generator's state from ``get_rng_state``."""
    default_generator("cpu").set_state(state)


def _gen(generator, device):
    if generator is None:
        return default_generator(device)
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a strided.Generator; got {type(generator).__name__}")
    if device is not None and generator.device is not as_device(device):
        raise ValueError(f"generator is on {generator.device} but the array goes to {as_device(device)}")
    return generator


def _float_dtype(dtype, func):
    dtype = _as_dtype(dtype, func) or _dtypes.get_default_dtype()
    if dtype.kind not in "fc":
        raise TypeError(f"{func}(): expected a floating-point dtype; got {dtype.name}")
    return dtype


def _target(func, shape, dtype, device, out):
    """Resolve (shape, dtype, device) from the arguments and ``out``."""
    if out is not None:
        if type(out) is not Array:
            raise TypeError(f"{func}(): out must be a strided array")
        if shape is None:
            shape = out._shape
        if device is None:
            device = out._device
    return shape, as_device(device)


def _real_sample(rng, kind, shape, np_dtype, **kw):
    import numpy as np
    wide = np.float32 if np_dtype == np.float32 else np.float64
    if kind == "uniform":
        return rng.random(shape, dtype=wide)
    return rng.standard_normal(shape, dtype=wide)


def _sample(func, kind, shape, dtype, device, generator, out, requires_grad, names):
    shape, dev = _target(func, shape, dtype, device, out)
    if out is not None and dtype is None:
        dtype = out._dtype
    dtype = _float_dtype(dtype, func)
    g = _gen(generator, dev)
    real = _dtypes.real_of(dtype)
    if dtype.kind == "c":
        # Note: as in PyTorch, a complex normal sample has unit total variance.
        scale = math.sqrt(0.5) if kind == "normal" else 1.0
        re = _real_sample(g._rng, kind, shape, real._np)
        im = _real_sample(g._rng, kind, shape, real._np)
        r = (re * scale + 1j * (im * scale)).astype(dtype._np)
    else:
        r = _real_sample(g._rng, kind, shape, dtype._np)
    return _finish(wrap_new(r, dtype, dev), func, out, requires_grad, names)


class _Unset:
    """The default of a keyword that is not given (PyTorch refuses an explicit ``size=None``),
    shown as such in signatures."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not given>"


_UNSET = _Unset()


def _size_keyword(func: str, args: tuple, size) -> tuple:
    """The positional sizes, or PyTorch's ``size=`` keyword (a tuple, list or Size of ints)
    as the one positional size, with PyTorch's TypeErrors for both or for a bad ``size``."""
    if size is _UNSET:
        return args
    if args:
        got = ", ".join([type(a).__name__ for a in args] + [f"size={type(size).__name__}"])
        raise TypeError(f"{func}() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of: (tuple of ints size, *, ...) or (*size, ...)")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{func}(): argument 'size' must be tuple of ints, not "
                        f"{type(size).__name__}")
    for i, n in enumerate(size):
        if isinstance(n, bool) or not isinstance(n, (builtins.int, _np_integer())):
            raise TypeError(f"{func}(): argument 'size' must be tuple of ints, but found element "
                            f"of type {type(n).__name__} at pos {i}")
    return (tuple(size),)


def _np_integer():
    import numpy as np
    return np.integer


def rand(*args, size=_UNSET, generator=None, dtype=None, device=None, out=None,
         requires_grad=False, names=None):
    """Uniform samples on ``[0, 1)``: ``rand(2, 3)``, ``rand((2, 3))`` or ``rand(size=(2, 3))``."""
    if not args and size is _UNSET:
        # (PyTorch's: the size is required, also with out=; a 0-d sample is rand(()))
        raise TypeError('rand() missing 1 required positional arguments: "size"')
    args = _size_keyword("rand", args, size)
    shape = _shape_args(args, "rand") if args else None
    if shape is None and out is None:
        shape = ()
    return _sample("rand", "uniform", shape, dtype, device, generator, out, requires_grad, names)


def randn(*args, size=_UNSET, generator=None, dtype=None, device=None, out=None,
          requires_grad=False, names=None):
    """Standard normal samples: ``randn(2, 3)``, ``randn((2, 3))`` or ``randn(size=(2, 3))``."""
    if not args and size is _UNSET:
        # (PyTorch's: the size is required, also with out=; a 0-d sample is randn(()))
        raise TypeError('randn() missing 1 required positional arguments: "size"')
    args = _size_keyword("randn", args, size)
    shape = _shape_args(args, "randn") if args else None
    if shape is None and out is None:
        shape = ()
    return _sample("randn", "normal", shape, dtype, device, generator, out, requires_grad, names)


def randint(*args, low=_UNSET, high=_UNSET, size=None, generator=None, dtype=None, device=None,
            out=None, requires_grad=False, names=None):
    """Integers in ``[low, high)``: ``randint(high, size)`` or ``randint(low, high, size)``;
    ``low``, ``high`` and ``size`` may be given as keywords, as in PyTorch."""
    args = list(args)
    if size is not None:
        if args and isinstance(args[-1], (tuple, list)):
            _size_keyword("randint", tuple(args), size)  # (raises: the size given twice)
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"randint(): argument 'size' must be tuple of ints, not "
                            f"{type(size).__name__}")
    elif args and isinstance(args[-1], (tuple, list)):
        size = args.pop()
    if high is not _UNSET:
        if low is not _UNSET and not args:
            args = [low, high]
        elif low is _UNSET and len(args) <= 1:
            args = args + [high]
        else:
            raise TypeError("randint(): expected randint(high, size) or randint(low, high, size)")
    elif low is not _UNSET:
        raise TypeError('randint() missing 2 required positional argument: "high", "size"')
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError("randint(): expected randint(high, size) or randint(low, high, size)")
    low, high = operator.index(low), operator.index(high)
    if high <= low:
        raise ValueError(f"randint(): high ({high}) must be greater than low ({low})")
    shape = _shape_args((size,), "randint") if size is not None else (out._shape if out is not None else None)
    if shape is None:
        raise TypeError("randint(): size is required")
    dtype = _as_dtype(dtype, "randint") or (out._dtype if out is not None else _dtypes.int64)
    if dtype.kind == "b":
        raise TypeError("randint(): bool dtype is not supported")
    if dtype.kind == "c":
        raise TypeError("randint(): complex dtypes are not supported")
    lo_d, hi_d = _int_bounds(dtype)
    if low < lo_d or high - 1 > hi_d:
        raise ValueError(f"randint(): [{low}, {high}) is outside the range of {dtype.name} ([{lo_d}, {hi_d}])")
    dev = as_device(device if device is not None else (out._device if out is not None else None))
    g = _gen(generator, dev)
    import numpy as np
    r = g._rng.integers(low, high, size=shape, dtype=np.int64)
    return _finish(wrap_new(r, dtype, dev), "randint", out, requires_grad, names)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, out=None,
           requires_grad=False, names=None):
    """Normal samples with ``mean`` and ``std`` (scalars or arrays, broadcast)."""
    arrays = [a for a in (mean, std) if type(a) is Array]
    if arrays:
        ns = _LATE["namespace"]()
        shape = ns.broadcast_shapes(*(a._shape for a in arrays))
        if size is not None and tuple(size) != tuple(shape):
            raise ValueError(f"normal(): size {tuple(size)} differs from the broadcast shape {tuple(shape)}")
        dtype = dtype or _dtypes.PROMOTION[arrays[0]._dtype, arrays[-1]._dtype]
        device = device or arrays[0]._device
        if type(std) is Array and std._device.type == "cpu" and std.numel() and not float(
                std._get_native().min()) >= 0:
            raise _ArgumentError("normal(): std must be non-negative; some elements are not")
        if isinstance(std, (builtins.int, builtins.float)) and not std >= 0:
            # (an array mean with a scalar std: PyTorch checks the std as below)
            raise _ArgumentError(f"normal(): std must be non-negative; got {std}")
        z = randn(tuple(shape), generator=generator, dtype=dtype, device=device)
        res = z * std + mean
        return _finish(res, "normal", out, requires_grad, names)
    if isinstance(std, (builtins.int, builtins.float)) and not std >= 0:
        raise _ArgumentError(f"normal(): std must be non-negative; got {std}")
    if size is None and out is None:
        raise TypeError("normal(): size is required when mean and std are scalars")
    shape = _shape_args((size,), "normal") if size is not None else None
    z = _sample("normal", "normal", shape, dtype, device, generator, None, False, None)
    if std != 1:
        z *= std
    if mean != 0:
        z += mean
    return _finish(z, "normal", out, requires_grad, names)


def randperm(n, *, generator=None, dtype=None, device=None, out=None, requires_grad=False, names=None):
    """A random permutation of ``0..n-1``."""
    n = operator.index(n)
    if n < 0:
        raise _ArgumentError(f"randperm(): n must be non-negative; got {n}")
    dtype = _as_dtype(dtype, "randperm") or _dtypes.int64
    dev = as_device(device)
    g = _gen(generator, dev)
    r = g._rng.permutation(n)
    return _finish(wrap_new(r, dtype, dev), "randperm", out, requires_grad, names)


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probability ``input`` (or the scalar ``p``), in ``input``'s dtype."""
    if type(input) is not Array:
        raise TypeError(f"bernoulli(): expected an array; got {type(input).__name__}")
    if input._dtype.kind not in "f":
        raise TypeError(f"bernoulli(): expected a real floating-point array; got {input._dtype.name}")
    g = _gen(generator, input._device)
    probs = input._get_native() if p is None else _check_prob(p, "bernoulli")
    xp = input._device.backend.xp
    # Note: probabilities are validated on the CPU only: on a GPU the check would copy
    # to the host on every call (there, p < 0 acts as 0 and p > 1 as 1).
    if p is None and input._device.type == "cpu" and input.numel() and (
            float(xp.min(probs)) < 0 or float(xp.max(probs)) > 1):
        raise ValueError("bernoulli(): probabilities must lie in [0, 1]")
    u = g._rng.random(input._shape)
    r = xp.asarray(u < probs).astype(input._dtype._np)
    return _finish(wrap_new(r, input._dtype, input._device), "bernoulli", out)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices drawn from the categorical distributions in the rows of ``input``."""
    import numpy as np
    if type(input) is not Array or input.ndim not in (1, 2):
        raise _layout.ShapeError("multinomial(): input must be a 1-D or 2-D array of weights")
    num_samples = operator.index(num_samples)
    # (PyTorch's checks: float weights, a positive count, an int64 out)
    if input._dtype.kind != "f":
        raise RuntimeError(f"multinomial(): only supports floating-point dtypes for input, got: "
                           f"{input._dtype.name}")
    if num_samples <= 0:
        raise RuntimeError(f"multinomial(): cannot sample n_sample <= 0 samples (got {num_samples})")
    if out is not None and type(out) is Array and out._dtype is not _dtypes.int64:
        raise RuntimeError(f"multinomial(): expects an int64 out; got {out._dtype.name}")
    dev = input._device
    g = _gen(generator, dev)
    xp = dev.backend.xp
    n_cat = input._shape[-1]
    if n_cat == 0:
        raise _ArgumentError("multinomial(): weights must be non-negative, finite, with a positive sum")
    if not replacement and num_samples > n_cat:
        raise _ArgumentError("multinomial(): cannot draw more samples than categories without replacement")
    rows = input._get_native().astype(np.float64).reshape(-1, n_cat)
    n = rows.shape[0]
    # Note: weights are validated on the CPU only: on a GPU the check would copy to the host.
    if dev.type == "cpu":
        if (rows < 0).any() or not np.isfinite(rows).all() or (rows.sum(-1) <= 0).any():
            raise _ArgumentError("multinomial(): weights must be non-negative, finite, with a positive sum")
        if not replacement and (np.count_nonzero(rows, axis=-1) < num_samples).any():
            raise _ArgumentError("multinomial(): fewer categories with a nonzero weight than samples "
                             "to draw without replacement")
    if replacement:
        # Inverse CDF, every row in one search: row i's CDF (in [0, 1]) shifted by 2i.
        cdf = xp.cumsum(rows, axis=-1)
        cdf /= cdf[:, -1:]
        shift = xp.arange(n, dtype=np.float64)[:, None] * 2
        u = g._rng.random((n, num_samples)) + shift
        idx = xp.searchsorted((cdf + shift).reshape(-1), u.reshape(-1), side="right").reshape(n, num_samples)
        idx = xp.minimum(idx - xp.arange(n, dtype=np.int64)[:, None] * n_cat, n_cat - 1)
    else:
        # Efraimidis-Spirakis: the num_samples largest log(u) / w (zero weights come last).
        keys = xp.log(g._rng.random((n, n_cat))) / rows
        idx = xp.argsort(-keys, axis=-1)[:, :num_samples]
    res = idx.reshape(input._shape[:-1] + (num_samples,)).astype(np.int64)
    return _finish(wrap_new(res, _dtypes.int64, dev), "multinomial", out)


def _like_args(x, dtype, device):
    if type(x) is not Array:
        raise TypeError(f"expected an array; got {type(x).__name__}")
    return x._shape, dtype or x._dtype, device or x._device


def _like_names(x, names):
    """``names``, else x's dimension names (they carry over, as in PyTorch)."""
    return x._ext.names if names is None and x._ext is not None else names


def _sample_like(func, kind, x, dtype, device, generator, requires_grad, names):
    """A sample of ``x``'s shape in the layout PyTorch's ``empty_like`` gives (its
    ``preserve_format``: a dense ``x``'s strides), filled in memory order, as PyTorch's
    ``rand_like`` (``empty_like(...).uniform_()``)."""
    shape, dtype, device = _like_args(x, dtype, device)
    names = _like_names(x, names)
    if names is None and len(shape) > 1 and not _layout.is_contiguous(tuple(shape), tuple(x.stride())):
        from . import _memory_format
        r = _memory_format.fresh_with_strides(
            lambda v: _sample(func, kind, v._shape, dtype, device, generator, None, False, None), x,
            _memory_format.format_strides(x, None, func))
        return r.requires_grad_(True) if requires_grad else r
    return _sample(func, kind, shape, dtype, device, generator, None, requires_grad, names)


def rand_like(x, *, dtype=None, device=None, generator=None, requires_grad=False, names=None):
    """``rand`` with ``x``'s shape, dtype and device unless overridden (in ``x``'s layout when
    ``x`` is dense, as PyTorch's)."""
    return _sample_like("rand_like", "uniform", x, dtype, device, generator, requires_grad, names)


def randn_like(x, *, dtype=None, device=None, generator=None, requires_grad=False, names=None):
    """``randn`` with ``x``'s shape, dtype and device unless overridden (in ``x``'s layout when
    ``x`` is dense, as PyTorch's)."""
    return _sample_like("randn_like", "normal", x, dtype, device, generator, requires_grad, names)


def randint_like(x, low=0, high=None, *, dtype=None, device=None, generator=None):
    """``randint`` with ``x``'s shape, dtype and device unless overridden."""
    if high is None:
        low, high = 0, low
    shape, dtype, device = _like_args(x, dtype, device)
    return randint(low, high, shape, generator=generator, dtype=dtype, device=device)


# --- in-place sampling methods ---------------------------------------------------------

def _real_arg(v, what, func) -> float:
    """A finite real scalar argument of an in-place fill (0-d arrays allowed)."""
    if type(v) is Array:
        v = v.item()
    if isinstance(v, (builtins.bool, complex)) or not isinstance(v, (builtins.int, builtins.float)) \
            and not hasattr(v, "__float__"):
        raise TypeError(f"{func}(): {what} must be a real number; got {type(v).__name__}")
    f = builtins.float(v)
    if not math.isfinite(f):
        raise ValueError(f"{func}(): {what} must be finite; got {v}")
    return f


def _fill(self, func, sample) -> Array:
    """Write ``sample`` (a native array) into ``self`` in place.

    An array with autograd metadata goes through ``copy_`` (recorded: the old
    value gets a zero gradient, and a leaf that requires grad is refused as
    for every in-place op); any other through ``out_native``, which refuses
    targets whose elements share memory.
    """
    e = self._ext
    if e is not None:
        if e.requires_grad and e.grad_fn is None and _LATE.get("grad_enabled", lambda: False)():
            raise RuntimeError(f"{func}(): a leaf Variable that requires grad is being used in an "
                               f"in-place operation (fill it under strided.autograd.no_grad())")
        self.copy_(wrap_new(sample, _dtypes.from_numpy_dtype(sample.dtype), self._device))
        return self
    out_native(self, f"{func}()")[...] = sample
    return self


def _check_float_target(self, func):
    if type(self) is not Array:
        raise TypeError(f"{func}(): expected a strided array; got {type(self).__name__}")
    if self._dtype.kind not in "fc":
        raise TypeError(f"{func}(): expected a floating-point array; got {self._dtype.name}")


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    """Fill with uniform samples on ``[a, b)`` in place; returns self."""
    _check_float_target(self, "uniform_")
    a, b = _real_arg(a, "a (from)", "uniform_"), _real_arg(b, "b (to)", "uniform_")
    if a > b:
        raise ValueError(f"uniform_(): expects a [from, to) range, but found from={a} > to={b}")
    if b - a > _float_max(self._dtype):
        raise ValueError(f"uniform_(): the range to - from = {b - a} overflows {self._dtype.name}")
    z = _sample("uniform_", "uniform", self._shape, self._dtype, self._device, generator, None, False, None)
    return _fill(self, "uniform_", z._get_native() * (b - a) + a)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal samples in place; returns self."""
    _check_float_target(self, "normal_")
    mean, std = _real_arg(mean, "mean", "normal_"), _real_arg(std, "std", "normal_")
    if std < 0:
        raise _ArgumentError(f"normal_(): expects std >= 0.0, but found std {std}")
    z = _sample("normal_", "normal", self._shape, self._dtype, self._device, generator, None, False, None)
    return _fill(self, "normal_", z._get_native() * std + mean)


def _float_max(dtype) -> float:
    import numpy as np
    return float(np.finfo(_dtypes.real_of(dtype)._np).max)


def _int_bounds(dtype):
    """The integers a dtype holds exactly: its range, or +-2**digits for a float."""
    import numpy as np
    if dtype.kind in "iu":
        info = np.iinfo(dtype._np)
        return int(info.min), int(info.max)
    if dtype.kind == "b":
        return 0, 1
    digits = np.finfo(dtype._np).nmant + 1
    return -(1 << digits), 1 << digits


def random_(self, low=0, high=None, *, generator=None):
    """Fill with integers in ``[low, high)`` in place (default: the dtype's range); returns self."""
    if type(self) is not Array:
        raise TypeError(f"random_(): expected a strided array; got {type(self).__name__}")
    if self._dtype.kind == "c":
        raise TypeError("random_(): complex arrays are not supported")
    lo_d, hi_d = _int_bounds(self._dtype)
    if high is None and low == 0:
        high = hi_d + 1
    elif high is None:
        low, high = 0, low
    low, high = operator.index(low), operator.index(high)
    if low >= high:
        raise ValueError(f"random_(): expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if low < lo_d or high - 1 > hi_d:
        raise ValueError(f"random_(): [{low}, {high}) is outside the range of {self._dtype.name} "
                         f"([{lo_d}, {hi_d}])")
    g = _gen(generator, self._device)
    import numpy as np
    r = g._rng.integers(low, high, size=self._shape, dtype=np.int64 if high <= (1 << 63) else np.uint64)
    return _fill(self, "random_", self._device.backend.xp.asarray(r).astype(self._dtype._np))


def _check_prob(p, func):
    """``p`` as a float in [0, 1] (a scalar, a 0-d array) or a probability array."""
    if type(p) is Array and p._shape:
        if p._dtype.kind not in "fiu":
            raise TypeError(f"{func}(): p must hold real probabilities; got {p._dtype.name}")
        if p._device.type == "cpu" and p.numel():
            n = p._get_native()
            if not (float(n.min()) >= 0 and float(n.max()) <= 1):  # NaN fails too
                raise ValueError(f"{func}(): expects p to be in [0, 1]; some elements are not")
        return p._get_native()
    f = _real_arg(p, "p", func)
    if not 0 <= f <= 1:
        raise ValueError(f"{func}(): expects p to be in [0, 1], but got p={f}")
    return f


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples with probability ``p`` in place; returns self."""
    if type(self) is not Array:
        raise TypeError(f"bernoulli_(): expected a strided array; got {type(self).__name__}")
    probs = _check_prob(p, "bernoulli_")
    g = _gen(generator, self._device)
    xp = self._device.backend.xp
    return _fill(self, "bernoulli_", xp.asarray(g._rng.random(self._shape) < probs).astype(self._dtype._np))


Array.uniform_ = uniform_
Array.normal_ = normal_
Array.random_ = random_
Array.bernoulli_ = bernoulli_
Array.bernoulli = lambda self, p=None, *, generator=None: bernoulli(self, p, generator=generator)
Array.bernoulli.__doc__ = "Method form of ``strided.bernoulli``: 0/1 draws with this array's probabilities (or ``p``)."
_LATE.setdefault("namespace", lambda: __import__("strided"))
