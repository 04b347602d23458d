"""The Array object: (storage, offset, shape, strides, dtype) and its views.

An Array is a view of a flat ``Storage``. View operations are integer
arithmetic on the metadata (``_layout``); kernels see a native strided array
built by ``_native``, the one function that turns metadata into a NumPy/CuPy
view and checks that the view lies inside its storage.

Kernel results start *lazy*: the Array keeps the fresh native result and
creates its Storage only when asked (``storage()``, a view, a write). That
keeps the per-op cost of arithmetic close to NumPy's own.
"""

from __future__ import annotations

import builtins
import operator
import threading

import numpy as np

from . import _npcompat, cext as _cext, dtypes as _dtypes, layout as _layout
from .device import CPU, Device
from .dtypes import DType
from .storage import Storage

__all__ = ["Array", "Size", "Ext"]

_BY_NP = _dtypes._BY_NP
_SHAPES = _layout._SHAPES  # (shape, size, contiguous strides) per shape
_object_new = object.__new__
# Python types that PyTorch takes as dtypes (``x.view(float)``; SciPy's RBFInterpolator does it).
_PY_DTYPES = {builtins.bool: _dtypes.bool, builtins.int: _dtypes.int64,
              builtins.float: _dtypes.float64, builtins.complex: _dtypes.complex128}


class Size(tuple):
    """The shape of an array: a tuple that prints as ``strided.Size([3, 2])``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"strided.Size({list(self)})"

    def numel(self) -> int:
        return _layout.prod(self)

    def __add__(self, other):
        # (Size + tuple and tuple + Size are Sizes, as PyTorch's torch.Size)
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))


class Ext:
    """Per-array metadata owned by extensions (autograd, names).

    The core only checks ``array._ext is not None`` to decide whether an
    operation needs the extension hook; the fields are the extensions' own.
    """

    __slots__ = ("requires_grad", "grad", "grad_fn", "output_nr", "retains_grad",
                 "hooks", "names", "is_view", "acc", "__weakref__")

    def __init__(self):
        self.requires_grad = False
        self.grad = None
        self.grad_fn = None
        self.output_nr = 0
        self.retains_grad = False
        self.hooks = None
        self.names = None
        self.is_view = False
        self.acc = None  # autograd: a weak reference to a leaf's AccumulateGrad node


# Extension hooks; see strided._core.dispatch. ``HOOK[0]`` is None until an extension
# installs one, so unused extensions cost a single attribute check per op.
HOOK = [None]
# Filled in by higher layers at import time (imports point down only).
_LATE: dict = {}
_PUBLISH = threading.Lock()  # publishes a lazy array's Storage once
_GRAD_TO_NUMPY = "can't call numpy() on an array that requires grad; use detach().numpy()"


def _native(st: Storage, offset: int, shape: tuple, strides: tuple):
    """The one function that builds a native strided view from metadata.

    Raises IndexError if the view would reach outside its storage.
    """
    n = st._data.shape[0]
    lo, hi = _layout.extent(offset, shape, strides)
    if hi >= lo and (lo < 0 or hi >= n):
        raise IndexError(
            f"view (offset={offset}, shape={shape}, strides={strides}) reaches storage "
            f"elements [{lo}, {hi}], outside a storage of size {n}")
    if hi < lo:  # empty view: any in-range offset will do
        offset = 0 if n == 0 else min(max(offset, 0), n - 1)
        strides = (0,) * len(shape)
    elif strides and max(map(abs, strides)) > _BIG_STRIDE // st._data.itemsize:
        # an axis of length 1 may carry any stride (x[::2**62]); a native view's are bytes
        # in an int64: such an axis's is 0 (no element is reached through it)
        strides = tuple(0 if m == 1 else s for m, s in zip(shape, strides))
    return st.device.backend.view(st._data, offset, shape, strides)


_BIG_STRIDE = 2 ** 63 - 1


class Array:
    """An n-dimensional array: a strided view of a ``Storage``.

    Build arrays with ``strided.asarray``, ``strided.tensor`` and the other
    creation functions; views come from indexing, ``t()``, ``permute``, ...

    Mixing with NumPy: an ndarray operand (either order, in operators, ufuncs
    and NumPy functions) is converted with ``strided.asarray`` onto this
    array's device and the result is a strided array; comparisons are
    elementwise (docs/guide/interop.md, "Mixing with NumPy arrays").
    """

    __slots__ = ("_np", "_st", "_off", "_shape", "_str", "_dtype", "_device", "_ext",
                 "__weakref__")
    __array_priority__ = 100  # make NumPy defer to our reflected operators

    # --- the one private constructor -----------------------------------------
    @staticmethod
    def _new(native, storage, offset, shape, strides, dtype, device) -> "Array":
        self = _object_new(Array)
        self._np = native
        self._st = storage
        self._off = offset
        self._shape = shape
        self._str = strides
        self._dtype = dtype
        self._device = device
        self._ext = None
        return self

    @staticmethod
    def _from_storage(storage: Storage, offset: int, shape: tuple, strides: tuple) -> "Array":
        return Array._new(None, storage, offset, shape, strides, storage.dtype, storage.device)

    @staticmethod
    def _wrap(r, dtype: DType, device: Device) -> "Array":
        """Adopt a fresh native kernel result (lazy storage)."""
        return Array._new(r, None, 0, r.shape, None, dtype, device)

    def _materialize(self) -> None:
        if _c_materialize(self):  # (_chot/storage.c: the C-contiguous host case, these steps)
            return
        r = self._np
        if r.flags.c_contiguous:
            flat = r.reshape(-1)
            info = _layout._SHAPES.get(r.shape) or _layout.shape_info(r.shape)  # cached per shape
            strides = info[2]
        else:
            # A dense result in another axis order (F order, or NumPy's K order for
            # permuted inputs) keeps its memory, so earlier numpy() views stay shared.
            dense = r.transpose(sorted(range(r.ndim), key=lambda i: -r.strides[i]))
            if dense.flags.c_contiguous:
                flat = dense.reshape(-1)
                isz = r.itemsize
                strides = tuple(s // isz for s in r.strides)
            else:
                r = self._device.backend.xp.ascontiguousarray(r)
                flat = r.reshape(-1)
                strides = _layout.contiguous_strides(r.shape)
        st = Storage(flat, self._dtype, self._device)
        # Note: two threads may materialize one array at once; the first to publish
        # wins, so both get the same Storage object (the other's is dropped).
        with _PUBLISH:
            if self._st is None:
                self._np = r
                self._off = 0
                self._str = strides
                self._st = st

    def _layout(self):
        if self._st is None:
            self._materialize()
        return self._st, self._off, self._shape, self._str

    def _get_native(self):
        r = self._np
        if r is None and self._st is not None:
            r = _c_native(self)  # (views.c, native_build: built and cached in C, or None)
        if r is None:
            r = _native(self._st, self._off, self._shape, self._str)
            if not (_layout.OVERLAP_SEEN[0] and _layout.has_internal_overlap(self._shape, self._str)):
                self._np = r  # (see _layout.OVERLAP_SEEN: a self-overlapping view caches none)
        return r

    def _view(self, offset: int, shape: tuple, strides: tuple) -> "Array":
        if self._st is None:
            self._materialize()
        out = Array._new(None, self._st, offset, shape, strides, self._dtype, self._device)
        return out

    def _bump(self) -> None:
        """Record an in-place write (version counter for autograd)."""
        if self._st is None:
            self._materialize()
        self._st._version += 1

    def _check_writable(self, func: str) -> None:
        """Refuse a write whose target elements share memory (see ``_dispatch.out_native``)."""
        if self._st is None:
            self._materialize()
        _layout.check_no_internal_overlap(self._shape, self._str, func)

    # --- standard attributes ---------------------------------------------------
    @property
    def dtype(self) -> DType:
        """The data type of the elements (a strided dtype, equal to NumPy's)."""
        return self._dtype

    @property
    def device(self) -> Device:
        """The device whose memory holds the storage (``cpu`` or ``cuda:N``)."""
        return self._device

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self._shape)

    @property
    def shape(self) -> Size:
        """The shape, a ``Size`` (a tuple of ints)."""
        if type(self._shape) is UninitializedShape:
            raise RuntimeError(UninitializedShape.error)
        return Size(self._shape)

    @property
    def size(self):
        """Number of elements (the standard's attribute); callable as ``x.size()``
        or ``x.size(dim)`` for PyTorch users, returning the shape."""
        return _SizeAttr(self)

    @property
    def T(self) -> "Array":
        """Transpose of a 2-D array, as a view (``mT`` for stacks of matrices)."""
        shape = self._shape
        if len(shape) != 2:
            raise ValueError(f"T requires a 2-D array; got {len(shape)} dimensions (use mT or permute_dims)")
        if self._ext is not None:
            return self.t()
        # The hot path of a transpose, inlined. No native view: _get_native builds it
        # when a kernel needs one (most views are indexed again or read for their shape).
        st = self._st
        if st is None:
            self._materialize()
            st = self._st
        s = self._str
        out = _object_new(Array)
        out._np = None
        out._st = st
        out._off = self._off
        out._shape = (shape[1], shape[0])
        out._str = (s[1], s[0])
        out._dtype = self._dtype
        out._device = self._device
        out._ext = None
        return out

    @property
    def mT(self) -> "Array":
        """Transpose of the last two dimensions, as a view."""
        shape = self._shape
        if len(shape) < 2:
            raise ValueError(f"mT requires at least 2 dimensions; got shape {shape}")
        if self._ext is not None:
            return self.transpose(-2, -1)
        st = self._st
        if st is None:
            self._materialize()
            st = self._st
        s = self._str
        out = _object_new(Array)
        out._np = None  # built when a kernel needs it (NumPy's swapaxes costs as much as the view)
        out._st = st
        out._off = self._off
        out._shape = _SWAPPED.get(shape) or _swapped(shape)
        out._str = _SWAPPED.get(s) or _swapped(s)
        out._dtype = self._dtype
        out._device = self._device
        out._ext = None
        return out

    @property
    def real(self) -> "Array":
        """The real part of a complex array, as a view sharing its memory (self if real)."""
        return _LATE["complex_part"](self, 0)

    @property
    def imag(self) -> "Array":
        """The imaginary part of a complex array, as a view sharing its memory; of a real
        array, read-only zeros as NumPy's (PyTorch raises), which xarray and other code
        written for NumPy arrays read."""
        return _LATE["complex_part"](self, 1)

    # --- torch-style metadata ----------------------------------------------------
    def stride(self, dim=None):
        """Strides in elements, for every dimension or for ``dim``.

        >>> import strided as xp
        >>> x = xp.zeros(2, 3)
        >>> x.stride(), x.t().stride(), x.stride(1)
        ((3, 1), (1, 3), 1)
        """
        st = self._layout()[3]
        if dim is None:
            return st
        return st[_layout.normalize_axis(dim, len(self._shape), "stride")]

    def storage_offset(self) -> int:
        """Offset of the first element in the storage, in elements.

        >>> import strided as xp
        >>> x = xp.arange(6).reshape(2, 3)
        >>> x[1].storage_offset(), x[1, 2].storage_offset()
        (3, 5)
        """
        return self._layout()[1]

    def storage(self) -> Storage:
        """The flat storage this array views; the same object for every view of it.

        >>> import strided as xp
        >>> x = xp.arange(6).reshape(2, 3)
        >>> x.t().storage() is x.storage()
        True
        """
        return self._layout()[0]

    untyped_storage = storage

    def is_contiguous(self, memory_format=None) -> bool:
        """Whether the elements lie in row-major order with no gaps (with PyTorch's
        ``memory_format``: in that format's order).

        >>> import strided as xp
        >>> x = xp.zeros(2, 3)
        >>> x.is_contiguous(), x.t().is_contiguous()
        (True, False)
        """
        if memory_format is not None:
            return _LATE["torch_is_contiguous"](self, memory_format)
        if self._st is None:
            return self._np.flags.c_contiguous
        return _layout.is_contiguous(self._shape, self._str)

    def numel(self) -> int:
        """Number of elements (PyTorch's spelling of ``size``)."""
        return _layout.prod(self._shape)

    def dim(self) -> int:
        """Number of dimensions (PyTorch's spelling of ``ndim``)."""
        return len(self._shape)

    ndimension = dim

    def element_size(self) -> int:
        """Size of one element in bytes."""
        return self._dtype.itemsize

    def data_ptr(self) -> int:
        """Address of the first element in memory."""
        st, off, _, _ = self._layout()
        return st.data_ptr() + off * self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Number of bytes the elements occupy (``numel() * itemsize``)."""
        return self.numel() * self._dtype.itemsize

    def __sizeof__(self) -> int:
        """``sys.getsizeof``: the object plus the bytes of the elements it reaches.

        A broadcast (stride 0) axis counts once, as dask counts NumPy arrays;
        views of one storage each count their own elements. Memory-managing
        schedulers size task results this way (dask.distributed's ``sizeof``
        falls back to ``sys.getsizeof`` for types it does not know)."""
        n = self._dtype.itemsize
        for size, stride in zip(self._shape, self._layout()[3]):
            n *= size if stride else min(size, 1)
        return object.__sizeof__(self) + n

    @property
    def itemsize(self) -> int:
        """Size of one element in bytes."""
        return self._dtype.itemsize

    @property
    def is_cuda(self) -> bool:
        """Whether the array lives on a CUDA device."""
        return self._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        """Whether the array lives on the CPU."""
        return self._device.type == "cpu"

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __iter__(self):
        # Note: raised by iter() itself, as NumPy's and PyTorch's (so np.iterable(x) is
        # False for a 0-d array); a generator function would raise only at next().
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        return map(self.__getitem__, range(self._shape[0]))

    # --- copies -----------------------------------------------------------------
    def contiguous(self, memory_format=None) -> "Array":
        """Self when already row-major contiguous, else a contiguous copy (with PyTorch's
        ``memory_format``: contiguous in that format)."""
        if memory_format is not None:
            return _LATE["torch_contiguous"](self, memory_format)
        s = self._str
        if s is not None:
            # Early return: the shape's contiguous strides are cached (size-1 and empty
            # dimensions, which take any stride, go through is_contiguous).
            info = _SHAPES.get(self._shape) or _layout.shape_info(self._shape)  # (our own ints)
            if info[2] == s or _layout.is_contiguous(self._shape, s):
                return self
        elif self._np.flags.c_contiguous:  # a lazy kernel result
            return self
        return _LATE["clone"](self)

    def clone(self, *, memory_format=None) -> "Array":
        """A copy with its own storage, in PyTorch's ``memory_format`` (by default
        ``preserve_format``: the strides of a dense source, as PyTorch's ``clone``).

        >>> import strided as xp
        >>> xp.zeros(3, 4).t().clone().stride()
        (1, 4)
        """
        if memory_format is None:  # (fast path: row-major strides, which every format keeps)
            s = self._str
            if s is None:
                if self._np.flags.c_contiguous and self._np.base is None:  # (a fresh kernel result)
                    return _LATE["clone"](self)
            elif (_SHAPES.get(self._shape) or _layout.shape_info(self._shape))[2] == s:
                return _LATE["clone"](self)
        return _LATE["torch_clone"](self, memory_format=memory_format)

    # --- views -----------------------------------------------------------------
    def t(self) -> "Array":
        """Transpose of an array with at most 2 dimensions, as a view.

        >>> import strided as xp
        >>> x = xp.tensor([[1, 2, 3], [4, 5, 6]])
        >>> x.t().tolist(), x.t().stride()
        ([[1, 4], [2, 5], [3, 6]], (1, 3))
        """
        nd = len(self._shape)
        if nd > 2:
            raise _layout.ShapeError(f"t() expects an array with <= 2 dimensions; got {nd} (use transpose or mT)")
        if nd < 2:
            return self._hooked_view("t", ()) if self._ext is not None else self._view(*self._layout()[1:])
        return self.transpose(0, 1)

    def transpose(self, dim0, dim1) -> "Array":
        """Swap dimensions ``dim0`` and ``dim1``, as a view (also ``swapaxes``).

        >>> import strided as xp
        >>> xp.zeros(2, 3, 4).transpose(0, 2).shape
        strided.Size([4, 3, 2])
        """
        nd = len(self._shape)
        if nd >= 2 and ((dim0 == -2 and dim1 == -1) or (dim0 == nd - 2 and dim1 == nd - 1)) \
                and type(dim0) is int and type(dim1) is int:
            if self._ext is None:
                return _swap_last(self, self._shape)
            # (the namespace function, as below, with the permutation made once per ndim)
            return _LATE["permute_dims"](self, _SWAP_LAST[nd])
        d0 = _layout.normalize_axis(self._axis(dim0), nd, "transpose")
        d1 = _layout.normalize_axis(self._axis(dim1), nd, "transpose")
        if nd == 0:  # (its dims 0 or -1, checked above, as PyTorch's: itself, as a view)
            return _LATE["permute_dims"](self, ()) if self._ext is not None else self._view(*self._layout()[1:])
        perm = list(range(nd))
        perm[d0], perm[d1] = perm[d1], perm[d0]
        if self._ext is not None:
            # the namespace function (its compiled view answers a named array it has seen)
            return _LATE["permute_dims"](self, tuple(perm))
        st, off, shape, strides = self._layout()
        shape = list(shape)
        strides = list(strides)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        strides[d0], strides[d1] = strides[d1], strides[d0]
        return Array._new(None, st, off, tuple(shape), tuple(strides), self._dtype, self._device)

    swapaxes = transpose

    def permute(self, *dims) -> "Array":
        """Reorder the dimensions, as a view (PyTorch's ``permute``).

        >>> import strided as xp
        >>> x = xp.zeros(2, 3, 4)
        >>> x.permute(2, 0, 1).shape, x.permute(2, 0, 1).stride()
        (strided.Size([4, 2, 3]), (1, 12, 4))
        """
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        dims = tuple(self._axis(d) for d in dims)
        if self._ext is not None:
            return _LATE["permute_dims"](self, dims)  # (as transpose)
        st, off, shape, strides = self._layout()
        shape, strides = _layout.permute(shape, strides, dims)
        return self._view(off, shape, strides)

    def _axis(self, a):
        """Turn a dimension name into a position (names are an extension's)."""
        if type(a) is str:
            return _LATE["name_to_axis"](self, a)
        return a

    def _hooked_view(self, name, args):
        return HOOK[0](name, _LATE[name], (self,) + tuple(args), {})

    def view(self, *shape) -> "Array":
        """Same data with a new shape; raises when strides make that impossible."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
            shape = tuple(shape[0])
        if len(shape) == 1 and type(shape[0]) is type and shape[0] in _PY_DTYPES:
            shape = (_PY_DTYPES[shape[0]],)  # PyTorch's x.view(float)
        if len(shape) == 1 and isinstance(shape[0], DType):
            return _LATE["view_dtype"](self, shape[0])
        return _LATE["view"](self, shape)

    def expand(self, *shape) -> "Array":
        """Broadcast to ``shape`` as a view with stride 0 (``-1`` keeps a dimension).

        >>> import strided as xp
        >>> y = xp.tensor([[1], [2]]).expand(2, 3)
        >>> y.tolist(), y.stride()
        ([[1, 1, 1], [2, 2, 2]], (1, 0))
        """
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        nd = len(shape)
        off = nd - len(self._shape)
        shape = tuple(self._shape[i - off] if (n == -1 and i >= off) else n for i, n in enumerate(shape))
        return _LATE["broadcast_to"](self, shape)

    # --- conversion ------------------------------------------------------------
    def item(self):
        """The one element as a Python scalar (copies to the host for a GPU array)."""
        if _layout.prod(self._shape) != 1:
            raise _layout.ShapeError(f"item() needs an array with one element; got shape {self._shape}")
        return self._item()

    def _item(self):
        """The one element as a Python scalar (the caller checked the size)."""
        r = self._np
        if self._device.type == "cpu":
            return self._st._data.item(self._off) if r is None else r.item()
        # Note: another device's value comes through its backend, which counts host copies.
        return self._device.backend.to_host(self._get_native()).item()

    def tolist(self):
        """The elements as nested Python lists (copies to the host).

        >>> import strided as xp
        >>> xp.eye(2).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
        """
        return self._host().tolist()

    def _host(self) -> np.ndarray:
        return self._device.backend.to_host(self._get_native())

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A NumPy array sharing this array's memory (CPU only)."""
        if self._device.type != "cpu":
            if force:
                return self._host()
            raise TypeError(
                f"can't convert a {self._device} array to NumPy: call .cpu() first to copy it to the host")
        if self._ext is not None and self._ext.requires_grad and not force:
            raise RuntimeError(_GRAD_TO_NUMPY)
        return self._export()

    def _export(self):
        """The native view handed to NumPy: read-only where elements share memory
        (as NumPy's own broadcast views are), so writes can't bypass the overlap check."""
        # (a native built from this memory later, np.asarray(x)[::-1] or as_strided,
        # is adopted over this Storage: _core/call/adopt.py)
        if self._st is None:
            self._materialize()
        st = self._st
        _LATE["exported"](st)
        r = self._get_native()
        if _layout.has_internal_overlap(self._shape, self._str):
            r = r.view()
            r.flags.writeable = False
        return r

    def __array__(self, dtype=None, copy=None):
        if self._device.type != "cpu":
            raise TypeError(
                f"refusing to copy a {self._device} array to NumPy implicitly: call .cpu() first")
        if self._ext is not None and self._ext.requires_grad:
            raise RuntimeError(_GRAD_TO_NUMPY)  # as x.numpy() (and PyTorch's np.asarray(t))
        r = self._export()
        if dtype is not None and np.dtype(dtype) != r.dtype:
            if copy is False:
                raise ValueError("__array__(copy=False) cannot change the dtype without a copy")
            return r.astype(dtype)
        if copy:
            return r.copy()
        return r

    def _scalar(self, what: str):
        if self._shape and _layout.prod(self._shape) != 1:
            raise TypeError(f"only arrays with one element can be converted to Python {what}; got shape {self._shape}")
        return self._item()

    def __bool__(self) -> bool:
        # (_scalar and _item inlined for a host array: ``if xp.any(m):``, ``if x == y:`` in
        # SciPy's and scikit-learn's code, several a call)
        if self._shape and _layout.prod(self._shape) != 1:
            raise TypeError(f"only arrays with one element can be converted to Python bool; got shape {self._shape}")
        if self._device.type == "cpu":
            r = self._np
            return builtins.bool(self._st._data.item(self._off) if r is None else r.item())
        return builtins.bool(self._item())

    def __int__(self) -> int:
        v = self._scalar("int")
        if isinstance(v, complex):
            raise TypeError("can't convert a complex array to int")
        if isinstance(v, float):
            if v != v:
                raise ValueError("cannot convert NaN to int")
            if v in (float("inf"), float("-inf")):
                raise OverflowError("cannot convert infinity to int")
        return builtins.int(v)

    def __float__(self) -> float:
        v = self._scalar("float")
        if isinstance(v, complex):
            raise TypeError("can't convert a complex array to float; use real or abs")
        return builtins.float(v)

    def __complex__(self) -> complex:
        return builtins.complex(self._scalar("complex"))

    def __index__(self) -> int:
        if self._dtype.kind not in "iu" or self._shape:
            raise TypeError(
                f"only 0-d integer arrays can be used as an index; got {self._dtype.name} array of shape {self._shape}")
        return builtins.int(self._item())

    def __hash__(self):
        return id(self)

    def __reduce__(self):
        return _LATE["reduce_array"](self)

    def __copy__(self):
        return _LATE["copy_array"](self, None)

    def __deepcopy__(self, memo):
        return _LATE["copy_array"](self, memo)

    # --- indexing --------------------------------------------------------------
    def __getitem__(self, key):
        tk = type(key)
        if self._ext is None and (tk is slice or tk is tuple):
            # Hot path, inlined: a slice, or a tuple of ints and slices (one per leading
            # axis, ints in bounds). Anything else takes the general path, which raises the
            # errors (slice.indices refuses a float bound or a zero step: the general path
            # again). The child has no native view: _get_native builds it from the
            # Storage when a kernel needs one.
            st = self._st
            if st is None:
                self._materialize()
                st = self._st
            shape = self._shape
            if tk is slice:
                if shape:
                    try:
                        start, stop, step = key.indices(shape[0])
                    except (TypeError, ValueError):
                        return _getitem(self, key)
                    if step == 1:
                        length = stop - start if stop > start else 0
                    elif step > 0:
                        length = (stop - start + step - 1) // step if stop > start else 0
                    else:
                        length = (start - stop - step - 1) // -step if start > stop else 0
                    strides = self._str
                    d0 = strides[0]
                    out = _object_new(Array)
                    out._np = None
                    out._st = st
                    out._off = self._off + _layout.slice_start(start, step, length, d0)
                    out._shape = (length,) + shape[1:]
                    out._str = (d0 * step,) + strides[1:]
                    out._dtype = self._dtype
                    out._device = self._device
                    out._ext = None
                    return out
            elif len(key) <= len(shape):
                strides = self._str
                off = self._off
                oshape = []
                ostrides = []
                d = 0
                for k in key:
                    n = shape[d]
                    if type(k) is slice:
                        try:
                            start, stop, step = k.indices(n)
                        except (TypeError, ValueError):
                            break
                        if step == 1:
                            length = stop - start if stop > start else 0
                        elif step > 0:
                            length = (stop - start + step - 1) // step if stop > start else 0
                        else:
                            length = (start - stop - step - 1) // -step if start > stop else 0
                        off += _layout.slice_start(start, step, length, strides[d])
                        oshape.append(length)
                        ostrides.append(strides[d] * step)
                    elif type(k) is int and -n <= k < n:
                        off += (k + n if k < 0 else k) * strides[d]
                    else:
                        break
                    d += 1
                else:
                    out = _object_new(Array)
                    out._np = None
                    out._st = st
                    out._off = off
                    out._shape = tuple(oshape) + shape[d:] if d < len(shape) else tuple(oshape)
                    out._str = tuple(ostrides) + strides[d:] if d < len(shape) else tuple(ostrides)
                    out._dtype = self._dtype
                    out._device = self._device
                    out._ext = None
                    return out
        elif tk is Array and self._ext is None and key._ext is None:
            return _LATE["advanced_getitem"](self, key)  # an index array: no key to normalise
        if self._ext is not None and HOOK[0] is not None:
            return HOOK[0]("getitem", _getitem, (self, key), {})
        return _getitem(self, key)

    def __setitem__(self, key, value):
        if (type(key) is slice or key is Ellipsis) and self._ext is None:
            # Hot path, inlined: a Python real scalar into a slice (or all, ``x[...]``) of
            # a floating array on the CPU, through the cached native view (no stride 0, so
            # no element is written twice; a float array takes any real Python scalar). A
            # bad slice raises before anything is written; the general path then raises
            # our error. An array of ours as the value: _slice_from_array.
            tv = type(value)
            if tv in _REAL_SCALARS:
                p = self._np
                st = self._st
                if p is None and st is not None:
                    p = _c_native(self)  # (a view's, built in C and cached; None without C)
                if p is not None and st is not None and self._dtype.kind == "f" \
                        and self._device.type == "cpu" and 0 not in self._str:
                    try:
                        p[key] = value
                    except (TypeError, ValueError, IndexError):
                        return _setitem(self, key, value)
                    st._version += 1
                    return
            elif tv is Array and value._ext is None and _slice_from_array(self, key, value):
                return
        if (self._ext is not None or (type(value) is Array and value._ext is not None)) \
                and HOOK[0] is not None:
            HOOK[0]("setitem", _setitem, (self, key, value), {})
            return
        _setitem(self, key, value)

    # --- repr ------------------------------------------------------------------
    def __repr__(self) -> str:
        return _LATE["repr"](self)

    __str__ = __repr__

    def __format__(self, spec):
        # A 0-d array formats as its value (f"{loss}" prints the number), as NumPy's 0-d
        # arrays and PyTorch's 0-d tensors do; any other as its repr.
        if not self._shape:
            return format(self.item(), spec)
        return repr(self)


class UninitializedShape(tuple):
    """The shape of PyTorch's uninitialized (lazy) parameter or buffer: a tuple, so strided's
    own code reads it, but not an exact one, so the C paths (``contract.h``: an exact tuple)
    decline such an array and ``x.shape`` (the Python property) raises as PyTorch's."""

    error = ("Can't access the shape of an uninitialized parameter or buffer. This error usually "
             "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
             "initialized one. Call `forward` to initialize the parameters before accessing their "
             "attributes.")


class _SizeAttr(int):
    """``x.size`` is an int (the standard) that can also be called (PyTorch)."""

    def __new__(cls, arr):
        self = int.__new__(cls, _layout.prod(arr._shape))
        self._shape = arr._shape
        return self

    def __call__(self, dim=None):
        if dim is None:
            return Size(self._shape)
        return self._shape[_layout.normalize_axis(dim, len(self._shape), "size")]

    def __repr__(self):
        return int.__repr__(self)


def _is_basic(k) -> bool:
    t = type(k)
    return t is int or t is slice or k is None or k is Ellipsis


def _ranges_as_lists(key):
    """``key`` with each ``range`` in it as the list of its ints (an integer-array index)."""
    if type(key) is range:
        return list(key)
    if type(key) is tuple and any(type(k) is range for k in key):
        return tuple(list(k) if type(k) is range else k for k in key)
    return key


def _normalize_key(key) -> tuple:
    if type(key) is not tuple:
        key = (key,)
    out = None
    for i, k in enumerate(key):
        t = type(k)
        if t is int or k is None or k is Ellipsis:
            continue
        if t is slice:
            for part in (k.start, k.stop, k.step):
                if part is not None and type(part) is not int:
                    if not hasattr(part, "__index__") or (
                            type(part) is Array and part._shape):
                        raise IndexError(f"slice components must be integers or None; got {part!r}")
                    out = out or list(key)
                    k = out[i] = slice(*(None if p is None else operator.index(p)
                                         for p in (k.start, k.stop, k.step)))
            if k.step == 0:
                # Note: a ValueError, as NumPy's and PyTorch's (a bad slice, not a bad index).
                raise ValueError("slice step cannot be zero")
            continue
        if t is builtins.bool or t is Array or t is list or t is np.ndarray or isinstance(k, np.bool_) \
                or t is range:
            return None  # advanced (a range: the list of its ints, as NumPy's and PyTorch's)
        if hasattr(k, "__index__"):
            out = out or list(key)
            out[i] = operator.index(k)
            continue
        raise IndexError(
            f"only integers, slices, ellipsis, None, integer arrays and boolean arrays are valid indices; got {type(k).__name__}")
    return tuple(out) if out is not None else key


_SWAPPED: dict = {}  # tuple of ints -> the same with its last two items swapped
# ndim -> the permutation that swaps the last two axes (transpose(-2, -1) of a named array)
_SWAP_LAST = [None, None] + [tuple(range(n - 2)) + (n - 1, n - 2) for n in range(2, 65)]


def _swapped(t: tuple) -> tuple:
    """``t`` with its last two items swapped (a shape or strides of ``mT``), cached."""
    r = t[:-2] + (t[-1], t[-2])
    if len(_SWAPPED) > 8192:
        _SWAPPED.clear()
    _SWAPPED[t] = r
    return r


def _int_or_none(v) -> bool:
    return v is None or type(v) is int


def _swap_last(self: Array, shape: tuple) -> Array:
    """The view with the last two axes swapped (``T``, ``mT``, ``t()``): the hot path of
    transposes, with the child's native view taken from a cached parent's."""
    st = self._st
    if st is None:
        self._materialize()
        st = self._st
    s = self._str
    p = self._np
    return Array._new(None if p is None else p.swapaxes(-1, -2), st, self._off,
                      shape[:-2] + (shape[-1], shape[-2]), s[:-2] + (s[-1], s[-2]),
                      self._dtype, self._device)


def _getitem(self: Array, key):
    t = type(key)
    if t is int or (t is slice and _int_or_none(key.start) and _int_or_none(key.stop)
                    and _int_or_none(key.step) and key.step != 0):
        # Fast path: one int or slice on the first axis.
        st, off, shape, strides = self._layout()
        if shape:
            n, s0 = shape[0], strides[0]
            if t is int:
                i = key + n if key < 0 else key
                if not 0 <= i < n:
                    raise IndexError(f"index {key} is out of bounds for axis 0 with size {n}")
                # (no native view: _get_native builds it when a kernel needs one)
                return Array._new(None, st, off + i * s0,
                                  shape[1:], strides[1:], self._dtype, self._device)
            start, stop, step = key.indices(n)
            length = len(range(start, stop, step))
            off += _layout.slice_start(start, step, length, s0)
            return Array._new(None, st, off,
                              (length,) + shape[1:], (s0 * step,) + strides[1:], self._dtype, self._device)
    if t is tuple and len(key) <= len(self._shape):
        r = _index_ints_slices(self, key)
        if r is not None:
            return r
    k = _normalize_key(key)
    if k is None:
        return _LATE["advanced_getitem"](self, _ranges_as_lists(key))
    st, off, shape, strides = self._layout()
    off, shape, strides = _layout.basic_index(off, shape, strides, k)
    return Array._new(None, st, off, shape, strides, self._dtype, self._device)


def _index_ints_slices(self: Array, key: tuple):
    """Fast path of basic indexing: a tuple of in-bounds ints and int/None slices,
    one per leading axis. None when the key has anything else (the general path
    handles it and raises the errors)."""
    st, off, shape, strides = self._layout()
    oshape = []
    ostrides = []
    for k, n, s in zip(key, shape, strides):
        tk = type(k)
        if tk is int:
            i = k + n if k < 0 else k
            if not 0 <= i < n:
                return None
            off += i * s
        elif tk is slice and (k.start is None or type(k.start) is int) and (
                k.stop is None or type(k.stop) is int) and (
                k.step is None or (type(k.step) is int and k.step != 0)):
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            off += _layout.slice_start(start, step, length, s)
            oshape.append(length)
            ostrides.append(s * step)
        else:
            return None
    d = len(key)
    # (no native view, as in the one-int fast path)
    return Array._new(None, st, off,
                      tuple(oshape) + shape[d:], tuple(ostrides) + strides[d:],
                      self._dtype, self._device)


def _element_offset(self: Array, key: tuple):
    """Storage offset of the element at ``key`` (one int per axis, in bounds), else None."""
    st, off, shape, strides = self._layout()
    for k, n, s in zip(key, shape, strides):
        if type(k) is not int:
            return None
        i = k + n if k < 0 else k
        if not 0 <= i < n:
            return None  # the general path raises the IndexError
        off += i * s
    return off


# (min, max) of each integer dtype, for the checks of Python ints written into arrays.
_INT_RANGE = {d: (int(np.iinfo(d._np).min), int(np.iinfo(d._np).max))
              for d in _dtypes.ALL_DTYPES if d.kind in "iu"}
_REAL_SCALARS = (builtins.bool, builtins.int, builtins.float)


def _slice_from_array(self: Array, key, value: Array) -> bool:
    """``self[key] = value`` for a slice or ``...`` key and an extension-free array of ours
    on the CPU, as the general path below writes it (the value read as it was where it
    shares memory with the target, cast as NumPy's assignment casts, the version bumped),
    without its key normalisation and layout arithmetic: True when written. False,
    nothing written, for anything the general path must decide (a slice of non-int parts,
    a complex value into a real array, another device, an overlapping target, a shape
    that does not broadcast): it then runs and raises its own error."""
    st = self._st
    p = self._np
    if p is None and st is not None:
        p = _c_native(self)
    if p is None or st is None or 0 in self._str or self._device.type != "cpu" \
            or value._device is not self._device \
            or (value._dtype.kind == "c" and self._dtype.kind != "c"):
        return False
    if key is not Ellipsis:
        b0, e0, s0 = key.start, key.stop, key.step
        if not ((b0 is None or type(b0) is int) and (e0 is None or type(e0) is int)
                and (s0 is None or (type(s0) is int and s0 != 0))):
            return False
    src = value._np
    if src is None:
        src = value._get_native()
    try:
        target = p[key]  # (a 0-d array refuses a slice: IndexError)
        target[...] = _LATE["source_as_it_was"](target, src)
    except (ValueError, TypeError, IndexError):
        return False  # (a shape that does not broadcast: NumPy raises before writing)
    st._version += 1
    return True


def _setitem(self: Array, key, value):
    t = type(key)
    if t is slice and self._np is not None and self._st is not None and self._dtype.kind == "f" \
            and type(value) in _REAL_SCALARS and self._device.type == "cpu" and 0 not in self._str:
        # Fast path: a Python real scalar into a slice of a floating array on the CPU,
        # through the cached native view (no stride 0, so no element is written twice;
        # a float array takes any real Python scalar, so there is nothing to check).
        b0, e0, s0 = key.start, key.stop, key.step
        if (b0 is None or type(b0) is int) and (e0 is None or type(e0) is int) and (
                s0 is None or (type(s0) is int and s0 != 0)):
            self._np[key] = value
            self._st._version += 1
            return
    if type(value) in _REAL_SCALARS and self._device.type == "cpu" and (
            (t is tuple and len(key) == len(self._shape)) or (t is int and len(self._shape) == 1)):
        # Fast path: a Python scalar into one element (hypothesis and loops write this way).
        off = _element_offset(self, key if t is tuple else (key,))
        rng = _INT_RANGE.get(self._dtype)
        if off is not None and (rng is None or type(value) is not builtins.int
                                or rng[0] <= value <= rng[1]):
            st = self._st
            st._data[off] = value
            st._version += 1
            return
    if key is Ellipsis and type(value) is Array and value._dtype is self._dtype \
            and value._device is self._device and value._shape == self._shape:
        # Fast path: ``a[...] = b`` from an array of a's dtype and shape: one copy into the
        # checked target (out_native refuses self-overlap and bumps the version counter;
        # NumPy buffers a source that overlaps the target).
        src = value._np if value._np is not None else value._get_native()
        dst = _LATE["out_native"](self, "__setitem__()")
        dst[...] = _LATE["source_as_it_was"](dst, src)
        return
    k = _normalize_key(key)
    if k is None:
        _LATE["advanced_setitem"](self, _ranges_as_lists(key), value)
        return
    st, off, shape, strides = self._layout()
    off, shape, strides = _layout.basic_index(off, shape, strides, k)
    if _layout.has_internal_overlap(shape, strides):
        _layout.check_no_internal_overlap(shape, strides, "__setitem__()")
    target = _native(st, off, shape, strides)
    _LATE["assign"](target, value, self._dtype, self._device, "__setitem__")
    st._version += 1


# --- the compiled view paths (strided/_csrc/_chot.c, "views") in front of the methods above -------
# ``_chot.View`` / ``_chot.ViewProp`` answer the plain case of each (an extension-free Array,
# keys and arguments of exact int/slice/tuple types) in C with the same result, and call the
# Python definition (``__wrapped__``) for everything else. _views.py and _methods.py put the
# view functions and methods behind them the same way.

def _install_compiled_views():
    """The ``_chot`` module with the view paths set up, or None (not built, or
    STRIDED_NO_CEXT=1: the Python definitions above run as they are)."""
    _chot = _cext.load("_chot")
    if _chot is None:
        return None
    _chot.setup_array(Array, DType, Storage, Device)  # (contract.h: what C reads, and its checks)
    # (Array objects from a free list: ~560 instructions of the generic allocation and
    # subtype_dealloc per array; views.c checks the class's layout first)
    _chot.setup_array_free()
    # (the one private constructor's eight slot stores in C: no Python frame; the
    # definition above stays for STRIDED_NO_CEXT=1, and the tests compare the two)
    Array._new_python = Array.__dict__["_new"]
    Array._new = staticmethod(_chot.new)
    # (NumPy's C API table, for the results of the compiled take: checked there on a probe)
    _chot.setup_take(_npcompat.array_api(), np.ndarray, np.dtype(np.float64))
    d = Array.__dict__
    Array.__getitem__ = _chot.View(d["__getitem__"], _chot.GETITEM)
    Array.contiguous = _chot.View(d["contiguous"], _chot.CONTIGUOUS)
    Array.__iter__ = _chot.View(d["__iter__"], _chot.ITER)  # (iter(x) with axes: in C)
    # (its hot path: a real Python scalar into a slice of a floating array)
    Array.__setitem__ = _chot.View(d["__setitem__"], _chot.SETITEM,
                                   (_dtypes.float16, _dtypes.float32, _dtypes.float64))
    Array.T = _chot.ViewProp(d["T"], _chot.T)  # (a property: its getter is the fallback)
    Array.mT = _chot.ViewProp(d["mT"], _chot.MT)
    # (the standard attributes, read from the slots in C: a property's Python getter is
    # 55-175 ns where NumPy's are 23-60; scikit-learn and SciPy read them tens of times a call)
    Array.dtype = _chot.ViewProp(d["dtype"], _chot.A_DTYPE)
    Array.device = _chot.ViewProp(d["device"], _chot.A_DEVICE)
    Array.ndim = _chot.ViewProp(d["ndim"], _chot.A_NDIM)
    Array.shape = _chot.ViewProp(d["shape"], _chot.A_SHAPE, Size)
    Array.size = _chot.ViewProp(d["size"], _chot.A_SIZE, _SizeAttr)
    for name in ("T", "mT", "dtype", "device", "ndim", "shape", "size"):
        Array.__dict__[name].__set_name__(Array, name)  # (its errors name the attribute, as the property's)
    return _chot


_CVIEWS = _install_compiled_views()
_c_native = _CVIEWS.native if _CVIEWS is not None else (lambda x: None)
if _CVIEWS is not None:
    from . import storage as _storage_module

    _CVIEWS.materialize_setup(_storage_module._ALLOCATED)
    _c_materialize = _CVIEWS.materialize
else:
    def _c_materialize(x):
        return False
# The compiled Ext (strided/_csrc/_chot/names.c): the class above, field for field, allocated
# from a free list (a named result takes one; a Python instance costs ~450 instructions).
_ExtPython = Ext  # (the definition; tests compare the two)
if _CVIEWS is not None:
    Ext = _CVIEWS.Ext  # noqa: F811
