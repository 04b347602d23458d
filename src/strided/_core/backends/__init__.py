"""Backends: the only code that calls NumPy's or CuPy's kernels.

A backend is an object with the methods used by the core (see ``_numpy.py``):
allocation, building a native strided view from our metadata, turning a
fresh kernel result into a flat storage buffer, and host transfers. Kernels
are looked up by the standard's name through one rename table.
"""

from .. import layout as _layout

# The standard's name -> the NumPy/CuPy name, where they differ. The elementwise rows
# add theirs from their ``numpy`` column (_api/elementwise.py) when the registry is built.
RENAMES = {
    "concat": "concatenate", "permute_dims": "transpose", "cumulative_sum": "cumsum",
    "cumulative_prod": "cumprod",
}


def _order_of(arrays, nd_t):
    """(result shape, NumPy's axis order of an elementwise result) for the operands of type
    ``nd_t`` among ``arrays``, or None where the result is row-major (or the shapes don't
    broadcast: the kernel reports them)."""
    ops = [a for a in arrays if type(a) is nd_t and a.ndim]
    for a in ops:
        if not a.flags.c_contiguous:
            break
    else:
        return None  # (row-major operands: a row-major result)
    try:
        shape = _layout.broadcast_shapes(*[tuple(a.shape) for a in ops])
    except ValueError:
        return None
    perm = _layout.elementwise_order(shape, [
        (tuple(a.shape), tuple([s // a.itemsize for s in a.strides])) for a in ops])
    return None if perm is None else (len(shape), perm)


def _call_in_order(f, nd_t, nd, perm, args, kw):
    """``f(*args, **kw)`` on the operands transposed by ``perm`` (the wanted order made
    row-major), its results transposed back: an elementwise result in that order, no copy."""
    moved = [a.reshape((1,) * (nd - a.ndim) + tuple(a.shape)).transpose(perm)
             if type(a) is nd_t and a.ndim else a for a in args]
    r = f(*moved, **kw)
    inv = [0] * nd
    for i, p in enumerate(perm):
        inv[p] = i
    if type(r) is tuple:  # (frexp, modf, divmod)
        return tuple(x.transpose(inv) if type(x) is nd_t and x.ndim == nd else x for x in r)
    if r is None:
        return None
    return r.transpose(inv) if type(r) is nd_t and r.ndim == nd else r


def in_order(f, a):
    """``f(a)`` for a kernel ``f`` that writes a row-major result of a native array ``a``,
    in the layout NumPy's elementwise result of ``a`` has (``layout.elementwise_order``):
    ``f`` runs on ``a`` transposed so that this layout is row-major. (None stays None.)"""
    o = _order_of((a,), type(a))
    return f(a) if o is None else _call_in_order(f, type(a), o[0], o[1], (a,), {})


class KeepOrder:
    """An elementwise kernel (a CuPy ufunc, ``where``, a kernel written in Python over CuPy's)
    whose results have the layout NumPy's have for the same operands, and so strided's on
    the CPU (``layout.elementwise_order``): ``exp(x.T)`` is transposed too, as PyTorch's is
    on every device (TensorIterator keeps the inputs' memory order).

    # Note: CuPy's elementwise results are always C-contiguous (cupy/_core/_kernel.pyx,
    # ``ufunc.__call__`` -> ``_get_out_args_from_optionals`` -> ``_ndarray_init``: a new array
    # of the broadcast shape in C order; ``cupy.where`` is ``_where_ufunc``). Without a copy,
    # the operands are transposed so that the wanted order is row-major, the kernel writes its
    # row-major result there, and the result is transposed back. A call with ``out=`` writes
    # into ``out``'s layout and passes straight through, as does one on row-major operands.
    """

    __slots__ = ("_f", "_nd")

    def __init__(self, f, ndarray):
        self._f = f
        self._nd = ndarray

    def __getattr__(self, name):  # (``func``, ``__name__``, ``types``...: the kernel's own)
        return getattr(self._f, name)

    def __call__(self, *args, **kw):
        if kw.get("out") is not None:
            return self._f(*args, **kw)
        o = _order_of(args, self._nd)
        if o is None:
            return self._f(*args, **kw)
        return _call_in_order(self._f, self._nd, o[0], o[1], args, kw)
