"""HDF5 files through h5py (install the ``hdf5`` extra: ``pip install strided[hdf5]``).

``save_hdf5`` writes one plain dataset per array, readable by h5py and any
HDF5 tool, with dimension names stored as HDF5 dimension labels;
``load_hdf5`` reads arrays back; ``open_hdf5`` gives a lazy handle whose
datasets read only the slice asked for::

    with strided.io.open_hdf5("points.h5") as f:
        last = f["coords"][-2:]   # reads two rows from disk
"""

from __future__ import annotations

import operator
import os
from collections.abc import Mapping

import numpy as np

from .._core import dtypes as _dtypes, layout as _layout
from .._core.array import _LATE, Array, Size
from .._api.creation import share_native
from .._core.device import CPU
from ._native import FormatError, RefusedError, _atomic_write
from .._api.views import flip, reshape

__all__ = ["save_hdf5", "load_hdf5", "open_hdf5", "H5File", "H5Group", "H5Dataset",
           "FormatError", "RefusedError"]

# Errors h5py raises for a file it can't parse (malformed headers, broken links, bad
# chunks); they become FormatError naming the file. FileNotFoundError, PermissionError
# and IsADirectoryError stay what they are.
_H5_ERRORS = (OSError, RuntimeError, KeyError, ValueError, TypeError, AttributeError,
              IndexError, SystemError)

_SLAB_BYTES = 1 << 26  # most bytes copied at once when writing a noncontiguous array


def _h5py():
    try:
        import h5py
    except ImportError:
        raise ImportError("strided.io needs h5py for HDF5 files: install the hdf5 extra "
                          "(pip install 'strided[hdf5]') or h5py itself") from None
    return h5py


# --- save ----------------------------------------------------------------------------


def _flatten(mapping, prefix, out):
    for k, v in mapping.items():
        if not isinstance(k, str) or not k.strip("/"):
            raise TypeError(f"save_hdf5(): keys must be non-empty strings; got {k!r}")
        key = f"{prefix}{k.strip('/')}"
        if any(part == "." for part in k.split("/")):
            raise ValueError(f"save_hdf5(): key {key!r} has a '.' path component (the group itself)")
        if isinstance(v, Mapping):
            _flatten(v, key + "/", out)
        elif isinstance(v, (Array, np.ndarray)):
            out[key] = v
        else:
            raise TypeError(f"save_hdf5(): {key!r} is a {type(v).__name__}; values must be "
                            f"strided arrays, NumPy arrays or mappings of them")
    return out


def _names_of(x):
    ext = getattr(x, "_ext", None)
    return None if ext is None else ext.names


def _slabs(shape, itemsize, limit):
    """Index tuples splitting ``shape`` into blocks of at most ``limit`` bytes."""
    if not shape:
        yield ()
        return
    inner = _layout.prod(shape[1:]) * itemsize
    if inner <= limit:
        step = max(1, limit // max(inner, 1))
        for i in range(0, shape[0], step):
            yield (slice(i, min(i + step, shape[0])),)
        return
    for i in range(shape[0]):
        for rest in _slabs(shape[1:], itemsize, limit):
            yield (slice(i, i + 1),) + rest


def _write_dataset(group, key, x, compression, chunks):
    if isinstance(x, np.ndarray):
        if x.dtype.newbyteorder("=") not in _dtypes._BY_NP:
            raise TypeError(f"save_hdf5(): {key!r} has dtype {x.dtype}, which strided does not support")
        native, on_host, to_host, names = x, True, np.asarray, None
    else:
        native, on_host, to_host = x._get_native(), x._device is CPU, x._device.backend.to_host
        names = _names_of(x)
    shape = tuple(native.shape)
    scalar = not shape
    if key in group:
        del group[key]
    dset = group.create_dataset(key, shape=shape, dtype=native.dtype,
                                compression=None if scalar else compression,
                                chunks=None if scalar else chunks)
    if _layout.prod(shape):
        if on_host and native.flags.c_contiguous:
            dset[()] = native
        else:
            # Note: a noncontiguous (or device) array goes in bounded slabs, so
            # writing never needs a second full-size copy in memory.
            for sel in _slabs(shape, native.itemsize, _SLAB_BYTES):
                dset[sel] = np.ascontiguousarray(to_host(native[sel]))
    if names is not None:
        for dim, n in zip(dset.dims, names):
            if n is not None:
                dim.label = n
    return dset


def save_hdf5(path_or_group, mapping, *, compression=None, chunks=None) -> None:
    """Write a mapping of arrays to an HDF5 file, one dataset per array.

    Keys may be nested (``"layer1/weight"``) or the mapping may nest; dtypes
    are preserved and dimension names become HDF5 dimension labels.
    ``path_or_group`` is a path (the file is replaced atomically), an open
    h5py File/Group, or a writable handle from ``open_hdf5``. ``compression``
    and ``chunks`` are passed to h5py (``"gzip"``, ``"lzf"``, a gzip level;
    ``True`` or a chunk shape).
    """
    h5py = _h5py()
    if not isinstance(mapping, Mapping):
        raise TypeError(f"save_hdf5(): mapping must be a dict of arrays; got {type(mapping).__name__}"
                        + (" (wrap it: {'name': x})" if isinstance(mapping, (Array, np.ndarray)) else ""))
    items = _flatten(mapping, "", {})
    for key in items:  # a dataset can't also be a group
        for i in range(len(key)):
            if key[i] == "/" and key[:i] in items:
                raise ValueError(f"save_hdf5(): {key[:i]!r} is an array and also the group of {key!r}")

    def write(group):
        for key, x in items.items():
            _write_dataset(group, key, x, compression, chunks)

    if isinstance(path_or_group, (H5File, H5Group)):
        path_or_group._check()
        write(path_or_group._h)
    elif isinstance(path_or_group, h5py.Group):
        write(path_or_group)
    else:
        try:
            path = os.fspath(path_or_group)
        except TypeError:
            raise TypeError("save_hdf5(): expected a path, an h5py File/Group or an open_hdf5 handle; "
                            f"got {type(path_or_group).__name__}") from None

        def write_file(tmp):
            f = h5py.File(tmp, "w")
            try:
                write(f)
            except BaseException:
                try:  # closing a file whose write failed can fail again; the first error is the one
                    f.close()
                except Exception:
                    pass
                raise
            f.close()

        _atomic_write(path, write_file, by_path=True, func="save_hdf5")


# --- load ----------------------------------------------------------------------------


def _foreign_type(dt) -> str | None:
    """What an HDF5 dataset of NumPy dtype ``dt`` (as h5py maps it) holds, in words, when that
    is not an array of numbers strided can hold; None when it is."""
    h5py = _h5py()
    try:
        if h5py.check_string_dtype(dt) is not None or dt.kind in "SU":
            return "text (an HDF5 string type)"
        if h5py.check_ref_dtype(dt) is not None:
            return f"HDF5 {'region' if h5py.check_ref_dtype(dt) is h5py.RegionReference else 'object'} references"
        if h5py.check_vlen_dtype(dt) is not None:
            return "variable-length sequences (an HDF5 vlen type)"
    except (TypeError, ValueError, AttributeError):
        pass
    if dt.names is not None:
        fields = ", ".join(repr(n) for n in dt.names[:6]) + (", ..." if len(dt.names) > 6 else "")
        return f"records of fields {fields} (an HDF5 compound type)"
    if dt.subdtype is not None:
        return f"an HDF5 array type of element shape {dt.subdtype[1]}"
    if dt.kind == "O":
        return "Python objects"
    if dt.kind == "V":
        return "opaque bytes (an HDF5 opaque type)"
    return None


def _check_numeric(dset, what):
    """TypeError naming the dataset and its type when it holds no numbers (text, compound
    records, references, vlen sequences, opaque bytes): what other tools write beside arrays."""
    try:
        dt = dset.dtype
    except _H5_ERRORS:
        return  # (h5py can't even say: the read that follows reports the file)
    kind = _foreign_type(dt)
    if kind is not None:
        raise TypeError(f"{what} holds {kind}, not numbers: strided does not support its type "
                        f"({dt}); read it with h5py, or load the file's other datasets by key")


def _to_array(np_arr, names, what):
    if isinstance(np_arr, np.generic):
        np_arr = np.asarray(np_arr)
    if not isinstance(np_arr, np.ndarray):  # h5py gives bytes, str or objects for foreign types
        raise TypeError(f"{what} holds a {type(np_arr).__name__}, not an array of numbers (strided "
                        f"does not support its type)")
    if not np_arr.dtype.isnative:
        np_arr = np_arr.astype(np_arr.dtype.newbyteorder("="))
    if np_arr.dtype not in _dtypes._BY_NP:
        raise TypeError(f"{what} has dtype {np_arr.dtype}, which strided does not support")
    arr = share_native(np_arr, CPU)
    if names is not None and any(n is not None for n in names) and "set_names" in _LATE:
        arr = _LATE["set_names"](arr, _valid_names(names, what))
    return arr


def _valid_names(labels, what) -> tuple:
    """HDF5 dimension labels as dimension names: labels that aren't valid names (other
    tools write labels such as "x [m]") or repeat one are dropped, with a warning."""
    out, seen, dropped = [], set(), []
    for n in labels:
        if n is not None and (not n.isidentifier() or n.startswith("_") or n in seen):
            dropped.append(n)
            n = None
        if n is not None:
            seen.add(n)
        out.append(n)
    if dropped:
        import warnings

        from .._core.caller import stacklevel
        warnings.warn(f"{what}: dimension labels {dropped} are not valid dimension names (Python "
                      f"identifiers, unique, not starting with '_'); they were dropped", UserWarning,
                      stacklevel=stacklevel())
    return tuple(out)


def _labels(dset):
    return tuple(d.label or None for d in dset.dims)


def _h5fail(e, filename, what):
    """An h5py error on an untrusted file, told as FormatError naming the file and the object."""
    if isinstance(e, (FileNotFoundError, PermissionError, IsADirectoryError, FormatError)):
        return e
    msg = str(e).strip() or type(e).__name__
    return FormatError(f"HDF5 file {filename!r}: can't read {what}: {msg}")


def _read_all(dset, what, filename="?"):
    if dset.shape is None:
        raise TypeError(f"{what} is an empty (null) HDF5 dataset; it holds no array")
    _check_numeric(dset, what)
    try:
        data = dset[()]
    except _H5_ERRORS as e:
        raise _h5fail(e, filename, what) from None
    return _to_array(data, _labels(dset), what)


def _entry(group, key, external: bool, filename: str):
    """``group[key]``, checking each link on the way: an external link, a virtual
    dataset or external raw storage (other files) only with ``external=True``;
    a dangling or broken link is a FormatError."""
    h5py = _h5py()
    obj = group
    sep = b"/" if isinstance(key, bytes) else "/"  # h5py gives names that aren't UTF-8 as bytes
    for part in [p for p in key.split(sep) if p]:
        where = f"{obj.name.rstrip('/')}/{_text(part)}"
        try:
            link = obj.get(part, getlink=True)
        except _H5_ERRORS as e:
            raise _h5fail(e, filename, f"the link {where!r}") from None
        if link is None:
            raise KeyError(f"no {key!r} in HDF5 file {filename!r}")
        if isinstance(link, h5py.ExternalLink) and not external:
            raise RefusedError(
                f"HDF5 file {filename!r}: {where!r} is an external link to {link.path!r} in the file "
                f"{link.filename!r}; strided does not open other files unless asked: pass external=True")
        try:
            obj = obj[part]
        except _H5_ERRORS as e:
            target = getattr(link, "path", None)
            raise FormatError(f"HDF5 file {filename!r}: {where!r} is a dangling or broken link"
                              + (f" (to {target!r})" if target else "") + f": {e}") from None
    if isinstance(obj, h5py.Dataset) and not external:
        _check_local(obj, filename)
    return obj


def _text(name) -> str:
    return name.decode("utf-8", "backslashreplace") if isinstance(name, bytes) else name


def _check_local(dset, filename):
    try:
        virtual = dset.is_virtual
        ext = dset.external
    except _H5_ERRORS as e:
        raise _h5fail(e, filename, f"HDF5 dataset {dset.name!r}") from None
    if virtual:
        raise RefusedError(f"HDF5 file {filename!r}: dataset {dset.name!r} is a virtual dataset that "
                           f"reads from other files; pass external=True to read it")
    if ext:
        raise RefusedError(f"HDF5 file {filename!r}: dataset {dset.name!r} keeps its data in external "
                           f"files ({', '.join(repr(str(e[0])) for e in ext[:3])}); pass external=True "
                           f"to read it")


_MAX_ENTRIES = 1 << 20  # links walked by one load_hdf5 (hard links can repeat groups exponentially)


def _collect(group, out, external, filename, prefix=""):
    """Every dataset under ``group``, walked iteratively. A group that links back
    to one of its own ancestors (a soft or hard link cycle) is a FormatError, not
    an endless walk; a dataset reached by several links is read once and shared."""
    h5py = _h5py()
    todo = [(group, prefix, (group.id,))]
    read = {}
    walked = 0
    while todo:
        g, pre, ancestors = todo.pop()
        try:
            names = list(g.keys())
        except _H5_ERRORS as e:
            raise _h5fail(e, filename, f"the group {g.name!r}") from None
        walked += len(names)
        if walked > _MAX_ENTRIES:
            raise FormatError(f"HDF5 file {filename!r}: more than {_MAX_ENTRIES} links to walk (do hard "
                              f"links repeat groups?); read the datasets one by one with open_hdf5")
        for k in names:
            try:
                v = _entry(g, k, external, filename)
            except KeyError:
                raise FormatError(f"HDF5 file {filename!r}: the group {g.name!r} lists {k!r}, which "
                                  f"can't be found (the file is corrupted)") from None
            if isinstance(v, h5py.Dataset):
                arr = read.get(v.id)
                if arr is None:
                    arr = read[v.id] = _read_all(v, f"HDF5 dataset {v.name!r}", filename)
                out[pre + _text(k)] = arr
            elif isinstance(v, h5py.Group):
                if v.id in ancestors:
                    raise FormatError(f"HDF5 file {filename!r}: {pre + _text(k)!r} links back to a group "
                                      f"that contains it (a link cycle)")
                todo.append((v, pre + _text(k) + "/", ancestors + (v.id,)))
    return dict(sorted(out.items()))


def load_hdf5(path, key=None, *, external: bool = False):
    """Read an HDF5 file: the array at ``key``, or a dict of every array (flat
    ``"group/name"`` keys) under ``key`` or the whole file. Dimension labels
    come back as dimension names.

    The file is untrusted: external links, virtual datasets and external raw
    storage (all of which read other files) raise ``RefusedError`` unless
    ``external=True``; a file that is not HDF5, is malformed, or has dangling
    links or link cycles raises ``FormatError`` (a ValueError) naming the file.
    """
    h5py = _h5py()
    if isinstance(path, (H5File, H5Group)):
        path._check()
        return _load_from(path._h, key, external or path._file._external, path._file._filename)
    if isinstance(path, h5py.Group):
        return _load_from(path, key, external, path.file.filename)
    name = os.fsdecode(os.fspath(path)) if isinstance(path, (str, bytes, os.PathLike)) else path
    f = _open(h5py, path, "r", name)
    with f:
        return _load_from(f, key, external, name)


def _open(h5py, path, mode, name):
    try:
        return h5py.File(path, mode)
    except _H5_ERRORS as e:
        if isinstance(e, (FileNotFoundError, PermissionError, IsADirectoryError)):
            raise
        if mode == "r" and isinstance(name, str) and os.path.isfile(name):
            raise FormatError(f"{name!r} is not an HDF5 file, or its HDF5 header is corrupted "
                              f"({str(e).strip()})") from None
        raise


def _load_from(group, key, external, filename):
    h5py = _h5py()
    if key is None:
        return _collect(group, {}, external, filename)
    if not isinstance(key, str):
        raise TypeError(f"load_hdf5(): key must be a string; got {type(key).__name__}")
    obj = _entry(group, key, external, filename)
    if isinstance(obj, h5py.Dataset):
        return _read_all(obj, f"HDF5 dataset {obj.name!r}", filename)
    if not isinstance(obj, h5py.Group):
        raise TypeError(f"load_hdf5(): {key!r} is a {type(obj).__name__}, not a dataset or a group")
    return _collect(obj, {}, external, filename)


# --- the lazy handle -------------------------------------------------------------------


class _Node:
    __slots__ = ("_h", "_file")

    def _check(self):
        f = self._file
        if f._closed or not self._h.id.valid:
            raise ValueError(f"the HDF5 file {f._filename!r} is closed; open it again with "
                             f"strided.io.open_hdf5 to read it")


class H5Group(_Node):
    """A group of an open HDF5 file: ``g["name"]`` gives a dataset or a subgroup."""

    def __init__(self, h, file):
        self._h = h
        self._file = file

    def __getitem__(self, key):
        self._check()
        if not isinstance(key, str):
            raise TypeError(f"HDF5 keys are strings; got {key!r}")
        try:
            obj = _entry(self._h, key, self._file._external, self._file._filename)
        except KeyError:
            raise KeyError(f"no {key!r} in HDF5 group {self._h.name!r}; it has {sorted(self._h.keys())}") from None
        h5py = _h5py()
        if isinstance(obj, h5py.Dataset):
            return H5Dataset(obj, self._file)
        if isinstance(obj, h5py.Group):
            return H5Group(obj, self._file)
        raise TypeError(f"HDF5 object {obj.name!r} is a {type(obj).__name__}, not a dataset or a group")

    def keys(self):
        self._check()
        return list(self._h.keys())

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def __contains__(self, key):
        self._check()
        return key in self._h

    @property
    def name(self) -> str:
        return self._h.name

    def __repr__(self):
        if self._file._closed:
            return f"<strided.io.H5Group (closed file {self._file._filename!r})>"
        return f"<strided.io.H5Group {self._h.name!r} keys={self.keys()}>"


class H5File(H5Group):
    """An open HDF5 file (a context manager); datasets are read lazily."""

    def __init__(self, h, filename, writable, external=False):
        super().__init__(h, self)
        self._closed = False
        self._filename = filename
        self._writable = writable
        self._external = external

    def close(self) -> None:
        """Close the file; later reads raise ValueError."""
        if not self._closed:
            self._closed = True
            self._h.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self._closed else f"keys={self.keys()}"
        return f"<strided.io.H5File {self._filename!r} {state}>"


class H5Dataset(_Node):
    """A dataset of an open HDF5 file. Indexing reads only the selection from
    disk and returns a strided array; ``read()`` reads everything."""

    def __init__(self, h, file):
        self._h = h
        self._file = file

    @property
    def shape(self) -> Size:
        self._check()
        return Size(self._h.shape or ())

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def dtype(self):
        self._check()
        _check_numeric(self._h, f"HDF5 dataset {self._h.name!r}")
        return _dtypes.from_numpy_dtype(self._h.dtype)

    @property
    def names(self) -> tuple:
        self._check()
        return _labels(self._h)

    @property
    def name(self) -> str:
        return self._h.name

    def __len__(self) -> int:
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d HDF5 dataset")
        return shape[0]

    def read(self) -> Array:
        """The whole dataset as an array."""
        self._check()
        return _read_all(self._h, f"HDF5 dataset {self._h.name!r}", self._file._filename)

    def __getitem__(self, key):
        self._check()
        what = f"HDF5 dataset {self._h.name!r}"
        if self._h.shape is None:
            raise TypeError(f"{what} is an empty (null) HDF5 dataset; it holds no array")
        _check_numeric(self._h, what)
        shape = self._h.shape
        if _has_bool_scalar(key):
            return self._bool_scalar_read(key, shape, what)
        basic = _basic_selection(key, shape)
        if basic is None:  # advanced: h5py's own rules (increasing index lists, masks)
            try:
                return _to_array(np.asarray(self._h[_host_key(key)]), None, what)
            except (TypeError, ValueError, IndexError) as e:
                raise type(e)(f"{what}: can't read index {key!r}: {e}") from None
        sel, flips, kept, new_axes = basic
        try:
            data = self._h[sel]
        except _H5_ERRORS as e:
            raise _h5fail(e, self._file._filename, what) from None
        arr = _to_array(np.asarray(data), None, what)
        if flips:
            arr = flip(arr, axis=tuple(flips))
        if new_axes:
            arr = reshape(arr, _with_new_axes(arr._shape, new_axes))
        labels = _labels(self._h)
        if any(labels) and "set_names" in _LATE:
            names = [labels[d] if d is not None else None for d in kept]
            if any(n is not None for n in names):
                arr = _LATE["set_names"](arr, tuple(names))
        return arr

    def _bool_scalar_read(self, key, shape, what):
        """``self[key]`` for a key holding a bool scalar, exactly as NumPy indexes: a bool
        is a 0-d boolean index (``True`` a new axis of length 1, ``False`` of length 0),
        never the row 1 or 0 h5py would read. The region the key touches is read (ints
        as one-row slices, slices as they are, index arrays as their whole axes), then
        NumPy applies the same key to it, ints turned into 0."""
        key = key if isinstance(key, tuple) else (key,)
        if sum(k is Ellipsis for k in key) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        used = sum(_axes_used(k) for k in key)
        if used > len(shape):
            raise IndexError(f"too many indices: {used} for a dataset with {len(shape)} dimensions")
        region, local, dim = [], [], 0
        for k in key:
            if k is Ellipsis:
                m = len(shape) - used
                region += [slice(None)] * m
                dim += m
                local.append(k)
            elif k is None or _is_bool_scalar(k):
                local.append(k)
            elif isinstance(k, slice):
                region.append(k)
                local.append(slice(None))
                dim += 1
            elif _axes_used(k) == 1 and not isinstance(k, (list, np.ndarray, Array)):
                n = shape[dim]
                i = operator.index(k)
                if not -n <= i < n:
                    raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")
                i %= n
                region.append(slice(i, i + 1))
                local.append(0)
                dim += 1
            else:  # index arrays and masks: their whole axes, indexed by NumPy below
                m = _axes_used(k)
                region += [slice(None)] * m
                dim += m
                local.append(_host_key(k))
        region += [slice(None)] * (len(shape) - dim)
        part = self[tuple(region)]._host()
        try:
            return _to_array(np.asarray(part[tuple(local)]), None, what)
        except (TypeError, ValueError, IndexError) as e:
            raise type(e)(f"{what}: can't read index {key!r}: {e}") from None

    def __setitem__(self, key, value):
        self._check()
        if not self._file._writable:
            raise ValueError(f"the HDF5 file {self._file._filename!r} was opened read-only (mode 'r')")
        if isinstance(value, Array):
            value = value._host()
        self._h[_host_key(key)] = value

    def __repr__(self):
        if self._file._closed:
            return f"<strided.io.H5Dataset (closed file {self._file._filename!r})>"
        return f"<strided.io.H5Dataset {self._h.name!r} shape={tuple(self.shape)} dtype={self._h.dtype}>"


def _host_key(key):
    if isinstance(key, tuple):
        return tuple(_host_key(k) for k in key)
    if isinstance(key, Array):
        return key._host()
    return key


def _is_bool_scalar(k) -> bool:
    """A Python or NumPy bool, or a 0-d boolean array: NumPy's 0-d boolean index."""
    if isinstance(k, (bool, np.bool_)):
        return True
    return isinstance(k, (np.ndarray, Array)) and k.ndim == 0 and k.dtype.kind == "b"


def _has_bool_scalar(key) -> bool:
    return any(_is_bool_scalar(k) for k in key) if isinstance(key, tuple) else _is_bool_scalar(key)


def _axes_used(k) -> int:
    """How many of the dataset's axes an index item consumes (NumPy's count)."""
    if k is None or k is Ellipsis or _is_bool_scalar(k):
        return 0
    if isinstance(k, (list, np.ndarray, Array)):
        a = np.asarray(_host_key(k))
        return a.ndim if a.dtype.kind == "b" else 1
    return 1


def _basic_selection(key, shape):
    """Turn a basic index (ints, slices, Ellipsis, None) into an h5py selection
    with positive steps, plus the axes to flip afterwards, the source
    dimension of each result dimension (None for new ones) and where new
    axes go. Returns None for advanced indices."""
    key = key if isinstance(key, tuple) else (key,)
    items = []
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, slice):
            items.append(k)
        elif isinstance(k, (bool, np.bool_)) or isinstance(k, (list, np.ndarray, Array)):
            return None
        elif hasattr(k, "__index__"):
            items.append(operator.index(k))
        else:
            raise IndexError(f"only integers, slices, ellipsis, None and index arrays are valid "
                             f"HDF5 dataset indices; got {type(k).__name__}")
    if sum(k is Ellipsis for k in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for k in items if k is not None and k is not Ellipsis)
    if used > len(shape):
        raise IndexError(f"too many indices: {used} for a dataset with {len(shape)} dimensions")
    if Ellipsis in items:
        i = items.index(Ellipsis)
        items[i:i + 1] = [slice(None)] * (len(shape) - used)
    else:
        items += [slice(None)] * (len(shape) - used)
    sel, flips, kept, new_axes = [], [], [], []
    dim = 0
    for k in items:
        if k is None:
            new_axes.append(len(kept))
            kept.append(None)
            continue
        n = shape[dim]
        if isinstance(k, int):
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {dim} with size {n}")
            sel.append(k + n if k < 0 else k)
        else:
            start, stop, step = k.indices(n)
            count = len(range(start, stop, step))
            if step > 0:
                sel.append(slice(start, start + step * (count - 1) + 1 if count else start, step))
            else:
                last = start + step * (count - 1) if count else 0
                sel.append(slice(last, start + 1 if count else 0, -step))
                flips.append(len(kept) - len(new_axes))
            kept.append(dim)
        dim += 1
    return tuple(sel), flips, kept, new_axes


def _with_new_axes(shape, new_axes):
    out = list(shape)
    for pos in new_axes:
        out.insert(pos, 1)
    return tuple(out)


def open_hdf5(path, mode: str = "r", *, external: bool = False) -> H5File:
    """Open an HDF5 file lazily: ``f["coords"][-2:]`` reads just those rows.

    ``mode`` is h5py's: ``"r"`` (default), ``"r+"``, ``"a"``, ``"w"``, ``"x"``.
    Use it as a context manager; after closing, access raises ValueError.
    ``external=True`` lets lookups follow external links, virtual datasets
    and external storage into other files (refused by default, as in
    ``load_hdf5``).
    """
    h5py = _h5py()
    if mode not in ("r", "r+", "a", "w", "w-", "x"):
        raise ValueError(f"open_hdf5(): mode must be 'r', 'r+', 'a', 'w' or 'x'; got {mode!r}")
    given = os.fsdecode(os.fspath(path)) if isinstance(path, (str, bytes, os.PathLike)) else path
    f = _open(h5py, path, mode, given)
    name = f.filename if isinstance(f.filename, str) else repr(path)
    return H5File(f, name, mode != "r", external)
