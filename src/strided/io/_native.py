"""Save and load: strided's own file format, and pickle/copy support for arrays.

``save(obj, f)`` writes an object tree (arrays, nested dicts/lists/tuples,
Python scalars, strings, None, dtypes, devices) as one small JSON header and
one raw little-endian record per storage; ``load(f)`` reads it back without
executing anything from the file. The format is specified in
``docs/format.md``; this module is its only reader and writer.

Pickling an ``Array`` pickles its ``Storage`` as an object, so pickle's memo
keeps views that share a storage sharing one after unpickling.
"""

from __future__ import annotations

import base64
import builtins
import collections
import functools
import io
import json
import mmap as _mmap
import os
import _compat_pickle
import pickle
import pickletools
import secrets
import stat
import struct
import sys
import zlib
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._core import cext as _cext, dtypes as _dtypes, layout as _layout, pool as _pool
from .._core.array import _LATE, Array, Size, _native
from .._core.device import CPU, Device
from .._core.dtypes import DType
from .._core.storage import Storage

__all__ = ["save", "load"]

MAGIC = b"\x89STR\r\n\x1a\n"
FORMAT_VERSION = 1
_PREAMBLE = struct.Struct("<8sIIQQ")  # magic, version, header crc32, header length, total length
_FOOTER_MAGIC = b"STREND\r\n"
ALIGN = 64
_CHUNK = 1 << 22  # bytes moved per write/read step (4 MiB: a save copies each chunk while it is in cache)
_THREADED_CRC = 1 << 25  # from this many bytes of records on, checksum on worker threads
_CRC_PART = 1 << 22  # bytes per CRC task on a worker thread (4 MiB)
_MAX_HEADER = 1 << 31
_PICKLE_PROTOCOL = 4
_LITTLE = sys.byteorder == "little"


def _fast_crc32():
    """``zlib.crc32``, or the same function from ``_cio.c`` (carry-less multiplication,
    several times faster) where it is built and the CPU has it, unless STRIDED_NO_CEXT=1."""
    _cio = _cext.load("_cio")
    if _cio is not None and _cio.CLMUL:
        return _cio.crc32
    return zlib.crc32  # not built, or not this CPU


_crc32 = _fast_crc32()
_CRC_INLINE = _crc32 is not zlib.crc32  # the C checksum runs on the calling thread

# Globals a pickled payload may name when ``weights_only=True``: constructors
# of plain data only. Arrays, storages, dtypes, devices and shapes never appear
# as globals: they travel as persistent ids into the file's own tables.
_SAFE_GLOBALS = frozenset({
    ("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"),
    ("builtins", "complex"), ("builtins", "slice"), ("builtins", "range"),
    ("builtins", "bytearray"),
})
# Opcodes that set object state or look up extension registries: refused
# under ``weights_only=True`` (none of the allowed constructors needs them).
_UNSAFE_OPCODES = frozenset({"BUILD", "INST", "OBJ", "NEWOBJ", "NEWOBJ_EX", "EXT1", "EXT2", "EXT4"})

_FOREIGN = [
    (b"PK\x03\x04", "a zip archive (a PyTorch file? read it with torch.load)"),
    (b"\x93NUMPY", "a NumPy .npy file (read it with numpy.load)"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file (read it with strided.io.load_hdf5)"),
    (b"\x80", "a Python pickle (strided.load never unpickles whole files; use pickle.load "
              "only on files you trust)"),
]


def _align(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


def _le(np_dtype) -> np.dtype:
    """The little-endian version of a native dtype (the records' byte order)."""
    return np_dtype.newbyteorder("<")


_CRC_POLY = 0xEDB88320  # CRC-32 (zlib), reflected


def _crc_mulmod(a: int, b: int) -> int:
    """``a * b`` modulo the CRC-32 polynomial (reflected bit order, as zlib's multmodp)."""
    m, p = 1 << 31, 0
    while a:
        if a & m:
            p ^= b
            a ^= m
        m >>= 1
        b = (b >> 1) ^ _CRC_POLY if b & 1 else b >> 1
    return p


def _crc_x2n_table() -> list:
    p, out = 1 << 30, []  # x^1
    for _ in range(32):
        out.append(p)
        p = _crc_mulmod(p, p)
    return out


_CRC_X2N = _crc_x2n_table()  # x^(2^n) modulo the polynomial


@functools.lru_cache(maxsize=64)
def _crc_shift(nbytes: int) -> int:
    """``x^(8 * nbytes)`` modulo the polynomial: what appending ``nbytes`` bytes does to a CRC."""
    p, k = 1 << 31, 3
    while nbytes:
        if nbytes & 1:
            p = _crc_mulmod(_CRC_X2N[k & 31], p)
        nbytes >>= 1
        k += 1
    return p


def _crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """The CRC-32 of ``A + B`` from ``crc32(A)``, ``crc32(B)`` and ``len(B)`` (zlib's crc32_combine)."""
    return _crc_mulmod(_crc_shift(len2), crc1) ^ crc2


def _crc_workers(nbytes: int) -> int:
    """Threads that checksum ``nbytes`` of records: none (inline) for small files or with
    the C checksum (tens of GB/s on a chunk just read or copied, still in cache: less than
    a hand-off to a thread costs), else ``get_num_threads()`` (at least one, which overlaps
    zlib's checksum with the I/O)."""
    if nbytes < _THREADED_CRC or _CRC_INLINE:
        return 0
    from .._core.threads import get_num_threads
    return max(1, min(get_num_threads(), nbytes // _CRC_PART))


class _Checksums:
    """CRC-32 of each record, fed chunk by chunk.

    For large files the chunks are cut into parts of ``_CRC_PART`` bytes whose
    CRCs run on worker threads (zlib releases the GIL) while the caller writes
    or reads the next chunk; the parts' CRCs are combined in order
    (``_crc32_combine``), so the value is the CRC-32 of the whole record, as
    one ``zlib.crc32`` call would give. A buffer passed to ``add`` must stay
    unchanged until the next ``add`` or ``end_record`` returns; at most about
    two chunks' worth of parts wait.
    """

    def __init__(self, workers: int):
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="strided-crc") if workers else None
        self._keep = 2 * workers
        self._pending = deque()  # (future, nbytes) of the current record, in order
        self._crc = 0
        self._done = []

    def _fold(self, keep: int) -> None:
        pending = self._pending
        while len(pending) > keep:
            fut, n = pending.popleft()
            self._crc = _crc32_combine(self._crc, fut.result(), n)

    def add(self, buf) -> None:
        if self._pool is None:
            self._crc = _crc32(buf, self._crc)
            return
        mv = memoryview(buf).cast("B")
        for i in range(0, mv.nbytes, _CRC_PART):
            part = mv[i:i + _CRC_PART]
            self._pending.append((self._pool.submit(_crc32, part), part.nbytes))
        self._fold(self._keep)

    def end_record(self) -> None:
        self._fold(0)
        self._done.append(self._crc)
        self._crc = 0

    def results(self) -> list:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        return self._done


class _NoChecksums:
    """What ``load(verify=False)`` feeds its records to: nothing is computed."""

    def add(self, buf) -> None:
        pass

    def end_record(self) -> None:
        pass

    def results(self):
        return None


# --- save --------------------------------------------------------------------------


class _Tables:
    """The storages and arrays met while encoding one object tree."""

    def __init__(self):
        self.storages = []  # Storage objects, in record order
        self.storage_index = {}  # id(Storage) -> index
        self.whole = []  # per storage: saved whole (a Storage node or full_storage)
        self.arrays = []  # (Array, is_numpy) in table order
        self.array_index = {}  # id(object) -> index
        self.keep = []  # keeps encoded objects alive so ids stay unique

    def storage(self, st: Storage, whole: bool) -> int:
        i = self.storage_index.get(id(st))
        if i is None:
            i = self.storage_index[id(st)] = len(self.storages)
            self.storages.append(st)
            self.whole.append(False)
        self.whole[i] = self.whole[i] or whole
        return i

    def array(self, obj, full: bool) -> int:
        i = self.array_index.get(id(obj))
        if i is None:
            self.keep.append(obj)
            is_numpy = isinstance(obj, np.ndarray)
            arr = _share_numpy(obj) if is_numpy else obj
            self.storage(arr._layout()[0], full)
            i = self.array_index[id(obj)] = len(self.arrays)
            self.arrays.append((arr, is_numpy))
        return i


def _share_numpy(a: np.ndarray) -> Array:
    from .._api.creation import share_native
    return share_native(a, CPU)


def _float_hex(v: float) -> str:
    return struct.pack("<d", v).hex()


def _np_savable(obj) -> bool:
    return obj.dtype.isnative and obj.dtype in _dtypes._BY_NP


class _Encoder:
    """Turns an object tree into JSON nodes, filling the storage/array tables."""

    def __init__(self, full_storage: bool):
        self.full = full_storage
        self.tables = _Tables()
        self.active = set()  # ids of the containers on the current path (cycle check)

    def node(self, obj):
        t = type(obj)
        if obj is None:
            return {"t": "none"}
        if t is builtins.bool:
            return {"t": "bool", "v": obj}
        if t is builtins.int:
            return {"t": "int", "v": obj}
        if t is builtins.float:
            return {"t": "float", "v": _float_hex(obj)}
        if t is builtins.complex:
            return {"t": "complex", "v": [_float_hex(obj.real), _float_hex(obj.imag)]}
        if t is str:
            return {"t": "str", "v": obj}
        if t is bytes:
            return {"t": "bytes", "v": base64.b64encode(obj).decode("ascii")}
        if t is Array:
            return {"t": "array", "i": self.tables.array(obj, self.full)}
        if t is np.ndarray and _np_savable(obj):
            return {"t": "ndarray", "i": self.tables.array(obj, self.full)}
        if isinstance(obj, np.generic) and _np_savable(obj):
            return {"t": "npscalar", "dtype": _dtypes._BY_NP[obj.dtype].name,
                    "v": _le(obj.dtype).type(obj).tobytes().hex()}
        if t is DType:
            return {"t": "dtype", "v": obj.name}
        if t is Device:
            return {"t": "device", "v": str(obj)}
        if isinstance(obj, Storage):
            return {"t": "storage", "i": self.tables.storage(obj, True)}
        if t is Size:
            return {"t": "size", "v": [builtins.int(n) for n in obj]}
        if t in (list, tuple, dict, collections.OrderedDict):
            if id(obj) in self.active:
                raise ValueError(f"save(): can't save a {t.__name__} that contains itself")
            self.active.add(id(obj))
            try:
                if t is list or t is tuple:
                    return {"t": t.__name__, "v": [self.node(v) for v in obj]}
                return {"t": "dict" if t is dict else "odict",
                        "v": [[self.node(k), self.node(v)] for k, v in obj.items()]}
            finally:
                self.active.discard(id(obj))
        return {"t": "pickle", "v": base64.b64encode(self.pickled(obj)).decode("ascii")}

    def pickled(self, obj) -> bytes:
        """Pickle an object outside the format's own types (read back only with
        ``weights_only=False``, or when it names safe globals only)."""
        enc = self

        class _Pickler(pickle.Pickler):
            def persistent_id(self, o):
                t = type(o)
                if t is Array:
                    return ("array", enc.tables.array(o, enc.full))
                if t is np.ndarray and _np_savable(o):
                    return ("ndarray", enc.tables.array(o, enc.full))
                if isinstance(o, Storage):
                    return ("storage", enc.tables.storage(o, True))
                if t is DType:
                    return ("dtype", o.name)
                if t is Device:
                    return ("device", str(o))
                if t is Size:
                    return ("size", tuple(builtins.int(n) for n in o))
                return None

        buf = io.BytesIO()
        try:
            _Pickler(buf, protocol=_PICKLE_PROTOCOL).dump(obj)
        except (pickle.PicklingError, TypeError, AttributeError) as e:
            raise TypeError(f"save(): can't save a {type(obj).__name__}: it is none of the format's own "
                            f"types and can't be pickled ({e})") from None
        return buf.getvalue()


def _plan(tables: _Tables):
    """Which storage elements each record holds, and each array's description."""
    spans = []
    for i, st in enumerate(tables.storages):
        spans.append((0, len(st) - 1) if tables.whole[i] else None)
    described = []
    for arr, is_numpy in tables.arrays:
        st, off, shape, strides = arr._layout()
        si = tables.storage_index[id(st)]
        lo, hi = _layout.extent(off, shape, strides)
        if hi >= lo and not tables.whole[si]:
            span = spans[si]
            spans[si] = (lo, hi) if span is None else (min(span[0], lo), max(span[1], hi))
        described.append((arr, is_numpy, si, off, shape, strides, hi < lo))
    spans = [(0, -1) if s is None else s for s in spans]
    arrays = []
    for arr, is_numpy, si, off, shape, strides, empty in described:
        d = {"storage": si, "offset": 0 if empty else off - spans[si][0],
             "shape": list(shape), "strides": list(strides)}
        if is_numpy:
            d["numpy"] = True
        ext = arr._ext
        if ext is not None:
            names = ext.names
            if names is not None and any(n is not None for n in names):
                d["names"] = list(names)
            if ext.requires_grad:
                d["requires_grad"] = True
        arrays.append(d)
    return spans, arrays


def _write_all(f, data) -> None:
    """Write a whole buffer: file objects may write less than asked, and a
    non-blocking one may write nothing (``None`` or ``BlockingIOError``); then
    wait until it can take more (``select`` on its descriptor) and go on, so
    no byte is ever dropped. Without a descriptor to wait on, raise."""
    mv = memoryview(data).cast("B")
    while mv.nbytes:
        try:
            n = f.write(mv)
        except BlockingIOError as e:
            n = e.characters_written
            if n:
                mv = mv[n:]
            _wait_writable(f)
            continue
        if n is None:  # a raw non-blocking file that took nothing
            _wait_writable(f)
            continue
        if n >= mv.nbytes:
            return
        if n == 0:
            _wait_writable(f)
        mv = mv[n:]


def _wait_writable(f) -> None:
    import select
    try:
        fd = f.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        raise OSError("save(): the file object would block and has no descriptor to wait on; "
                      "nothing more can be written without losing data") from None
    select.select([], [fd], [])


def _record_chunks(st: Storage, lo: int, hi: int):
    """The bytes of storage elements ``lo..hi`` as little-endian host buffers."""
    step = max(1, _CHUNK // st.dtype.itemsize)
    data = st._data
    to_host = st.device.backend.to_host
    for a in range(lo, hi + 1, step):
        # Note: a copy, so the bytes checksummed are the bytes written even while
        # another thread writes to the array (each chunk is one consistent snapshot).
        # Into a pooled buffer: the chunks of a large save reuse warm memory.
        src = to_host(data[a:min(a + step, hi + 1)])
        chunk = _pool.empty(src.shape, src.dtype, src.nbytes)
        np.copyto(chunk, src, casting="no")
        if not _LITTLE:
            chunk = chunk.astype(_le(chunk.dtype))
        yield chunk


def _write_container(obj, f, full_storage: bool, name=None, on_chunk=None) -> None:
    """Write the container of ``obj`` to ``f``; ``on_chunk()``, if given, is called after
    each chunk of record data reached ``f``."""
    enc = _Encoder(full_storage)
    root = enc.node(obj)
    tables = enc.tables
    spans, arrays = _plan(tables)
    _snapshot_mapped(f, tables, name)
    records, pos = [], 0
    for st, (lo, hi) in zip(tables.storages, spans):
        numel = hi - lo + 1
        records.append({"dtype": st.dtype.name, "device": str(st.device), "numel": numel,
                        "offset": pos})
        pos = _align(pos + numel * st.dtype.itemsize)
    header = json.dumps({"storages": records, "arrays": arrays, "root": root},
                        separators=(",", ":"), allow_nan=False).encode("utf-8")
    data_start = _align(_PREAMBLE.size + len(header))
    footer_len = len(_FOOTER_MAGIC) + 4 * (len(records) + 1)
    total = data_start + pos + footer_len
    _write_all(f, _PREAMBLE.pack(MAGIC, FORMAT_VERSION, zlib.crc32(header), len(header), total))
    _write_all(f, header)
    _write_all(f, bytes(data_start - _PREAMBLE.size - len(header)))
    sums, written = _Checksums(_crc_workers(pos)), 0
    try:
        for st, rec, (lo, hi) in zip(tables.storages, records, spans):
            if written < rec["offset"]:
                _write_all(f, bytes(rec["offset"] - written))
            for chunk in _record_chunks(st, lo, hi):
                sums.add(chunk)
                _write_all(f, chunk)
                if on_chunk is not None:
                    on_chunk()
            sums.end_record()
            written = rec["offset"] + rec["numel"] * st.dtype.itemsize
    finally:
        crcs = sums.results()
    _write_all(f, bytes(pos - written))
    body = struct.pack(f"<{len(crcs)}I", *crcs)
    _write_all(f, _FOOTER_MAGIC + body + struct.pack("<I", zlib.crc32(body)))


def _is_mapped(a) -> bool:
    """True when NumPy array ``a``'s memory belongs to an ``mmap`` (``load(mmap=True)``)."""
    while True:
        if isinstance(a, np.ndarray):
            a = a.base
        elif isinstance(a, memoryview):
            a = a.obj
        else:
            return isinstance(a, _mmap.mmap)


def _mappings():
    """This process's file mappings: ``[(start, end, file_offset, dev, inode, path)]``
    from ``/proc/self/maps`` (Linux; empty elsewhere)."""
    out = []
    try:
        with open("/proc/self/maps", "rb") as fh:
            for line in fh:
                parts = line.split(None, 5)
                if len(parts) >= 5 and parts[4] != b"0":
                    a, b = parts[0].split(b"-")
                    major, minor = parts[3].split(b":")
                    path = os.fsdecode(parts[5].rstrip(b"\n")) if len(parts) > 5 else ""
                    out.append((int(a, 16), int(b, 16), int(parts[2], 16),
                                os.makedev(int(major, 16), int(minor, 16)), int(parts[4]), path))
    except (OSError, ValueError):
        return []
    return out


def _snapshot_mapped(f, tables, name) -> None:
    """Never write through the memory being read, never read a mapping that lost its file.

    Storages memory-mapped from the very file ``f`` writes (``save(load(p,
    mmap=True), open(p, "r+b"))``) are copied before anything is written, so
    the file is rewritten from the copy. A mapping whose file was truncated
    under it (``open(p, "wb")`` truncates before save runs) has lost its data:
    reading it would kill the process (SIGBUS), so nothing is written and
    ValueError says why.
    """
    mapped = [i for i, st in enumerate(tables.storages)
              if st.device is CPU and _is_mapped(st._data)]
    if not mapped:
        return
    try:
        target = os.fstat(f.fileno())
        target = (target.st_dev, target.st_ino)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        target = None
    maps = _mappings()
    for i in mapped:
        st = tables.storages[i]
        p, n = st._data.ctypes.data, st._data.nbytes
        for start, end, off, dev, ino, path in maps:
            if not (p < end and start < p + n):
                continue
            need = off + (min(p + n, end) - start)
            size = _size_of_inode(dev, ino, path, f, target)
            if size is not None and size < need:
                raise ValueError(
                    f"save(): an array being saved is memory-mapped from a file that was truncated "
                    f"under it{' (' + name + ', opened for writing)' if (dev, ino) == target else ''}: its "
                    f"data is no longer in the file and reading it would crash; nothing was written. "
                    f"Load without mmap=True, or save to a path (save replaces a file atomically, "
                    f"so arrays mapped from the old one stay readable)")
            if (dev, ino) == target:
                tables.storages[i] = Storage(st._data.copy(), st.dtype, st.device)
                break


def _size_of_inode(dev, ino, path, f, target):
    """The current size of the mapped file (None when it can't be found by its path)."""
    if (dev, ino) == target:
        return os.fstat(f.fileno()).st_size
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_size if (st.st_dev, st.st_ino) == (dev, ino) else None


def save(obj, f, *, full_storage: bool = False, fsync: bool = True) -> None:
    """Save an array or a tree of arrays to a path or a binary file object.

    ``obj`` may be an array or nested dicts/lists/tuples of arrays, Python
    numbers, strings, bytes, None, dtypes, devices, storages and NumPy arrays;
    any other object is pickled into the file (and reading it back then needs
    ``load(..., weights_only=False)`` unless it names only plain-data globals).
    Views that share a storage share one record and load sharing it again.
    A view's record holds only the storage elements that the views saved with
    it span; ``full_storage=True`` saves whole storages (as PyTorch does).
    Saving to a path writes a temporary file beside it and renames it over the
    target, so a failed save never leaves a truncated file under that name.
    With ``fsync=True`` (the default) the file and its directory entry are
    flushed to the disk (``os.fsync``) before ``save`` returns, so the file
    survives a power failure; ``fsync=False`` leaves that to the operating
    system (as ``torch.save`` and ``numpy.save`` do): much faster for large
    files, still atomic against a crash of the process, but a power failure
    may lose the new file (the old one, if any, is then kept). A file object
    is never fsynced: flushing it is its owner's business.

    >>> import strided, io
    >>> buf = io.BytesIO()
    >>> strided.save({"w": strided.ones(2, 3)}, buf)
    >>> _ = buf.seek(0)
    >>> strided.load(buf)["w"].shape
    strided.Size([2, 3])
    """
    _flag("save", "fsync", fsync)
    if hasattr(f, "write"):
        if isinstance(f, io.TextIOBase):
            raise TypeError("save(): the file must be opened in binary mode ('wb')")
        _write_container(obj, f, full_storage, repr(getattr(f, "name", f"<{type(f).__name__}>")))
        return
    try:
        path = os.fspath(f)
    except TypeError:
        raise TypeError(f"save(): f must be a path or a binary file object; got {type(f).__name__}") from None
    def write(fh):
        _write_container(obj, fh, full_storage, on_chunk=_writeback_ahead(fh) if fsync else None)

    _atomic_write(path, write, fsync=fsync)


_SYNC_FILE_RANGE = []  # [libc.sync_file_range or None], looked up on first use
_WRITEBACK_STEP = 1 << 23  # bytes written between two writeback requests (8 MiB)


def _writeback_ahead(fh):
    """A callback that asks the kernel to start writing ``fh``'s new bytes to the disk
    (Linux ``sync_file_range(SYNC_FILE_RANGE_WRITE)``: it starts the writes and does not
    wait for them), or None where the system has no such call.

    Why: ``save(fsync=True)`` ends in an ``fsync`` that waits for every byte to reach the
    disk. Started as the file is written, the disk's work overlaps the serialisation
    instead of following it, and the final ``fsync`` waits only for the last writes. The
    durability is the same: only the ``fsync`` promises anything.
    """
    if not _SYNC_FILE_RANGE:
        fn = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes
                fn = ctypes.CDLL(None, use_errno=True).sync_file_range
                fn.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
                fn.restype = ctypes.c_int
            except (OSError, AttributeError, ImportError):
                fn = None
        _SYNC_FILE_RANGE.append(fn)
    fn = _SYNC_FILE_RANGE[0]
    try:
        fd = fh.fileno()
        start = fh.tell()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    if fn is None:
        return None
    state = [start]

    def written():
        end = fh.tell()  # the position after the bytes handed to the file so far
        if end - state[0] >= _WRITEBACK_STEP:
            fh.flush()
            fn(fd, state[0], end - state[0], 2)  # SYNC_FILE_RANGE_WRITE; a failure changes nothing
            state[0] = end

    return written


def _flag(func: str, name: str, v) -> None:
    if type(v) is not builtins.bool:
        raise TypeError(f"{func}(): {name} must be True or False; got {type(v).__name__}")


def _atomic_write(path, write, *, by_path: bool = False, func: str = "save", fsync: bool = True) -> None:
    """Run ``write`` on a temporary file beside ``path``, then rename it over ``path``.

    ``write`` gets an open binary file, or with ``by_path=True`` the temporary
    file's path (for writers such as h5py that open files themselves). A
    symlink is followed (its target is replaced) and an existing target's
    permission bits are kept. A target that exists and is not a regular file
    (a directory, FIFO, device or socket) is refused before anything is
    written: renaming over it would replace it. Errors name ``path``, never
    the temporary file; on any error the old file is left as it was.
    ``fsync=False`` skips flushing the file and the directory to the disk.
    """
    user_path = path = os.fsdecode(path)
    if not path:
        raise ValueError(f"{func}(): the path is empty")
    path = os.path.realpath(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise _renamed(e, func, user_path, None) from None
    if mode is not None and not stat.S_ISREG(mode):
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        raise ValueError(f"{func}(): {user_path!r} is {kind}, not a regular file; {func} writes a new "
                         f"file and renames it over the target, which would replace it. To write a "
                         f"stream, open it yourself and pass the file object")
    directory, base = os.path.split(path)
    tmp = None
    try:
        while True:
            tmp = os.path.join(directory, f".{base}.{secrets.token_hex(6)}.tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
                break
            except FileExistsError:
                continue
    except OSError as e:
        raise _renamed(e, func, user_path, tmp) from None
    try:
        if mode is not None:
            os.chmod(tmp, mode & 0o7777)
        if by_path:
            os.close(fd)
            write(tmp)
            if fsync:
                fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_BINARY", 0))
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        else:
            with open(fd, "wb") as fh:
                write(fh)
                fh.flush()
                if fsync:
                    os.fsync(fh.fileno())
        if fsync or mode is None or not _exchange(tmp, path):
            os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, Exception):
            new = _renamed(e, func, user_path, tmp)
            if new is not e:
                raise new from None
        raise
    if fsync and hasattr(os, "O_DIRECTORY"):  # make the rename itself durable
        try:
            dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            os.fsync(dfd)
        except OSError:
            pass
        finally:
            os.close(dfd)


_RENAMEAT2 = []  # [libc.renameat2 or None], looked up on first use


def _exchange(tmp: str, path: str) -> bool:
    """Swap ``tmp`` and the existing ``path`` atomically (Linux ``renameat2`` with
    ``RENAME_EXCHANGE``), then delete ``tmp`` (now the old file); False where the
    system or file system can't, and nothing was changed.

    Why: ext4 (``auto_da_alloc``) writes a file's data to the disk before a
    rename replaces another file with it, which is the cost ``fsync=False``
    means to skip (tens to hundreds of ms per 100 MB); an exchange is just as
    atomic (the name always holds the old or the new file) and is not flushed.
    """
    if not _RENAMEAT2:
        fn = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes
                fn = ctypes.CDLL(None, use_errno=True).renameat2
                fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                fn.restype = ctypes.c_int
            except (OSError, AttributeError, ImportError):
                fn = None
        _RENAMEAT2.append(fn)
    fn = _RENAMEAT2[0]
    if fn is None or fn(-100, os.fsencode(tmp), -100, os.fsencode(path), 2) != 0:  # AT_FDCWD, RENAME_EXCHANGE
        return False
    try:
        os.unlink(tmp)
    except OSError:
        pass  # the old file stays behind under the hidden temporary name
    return True


def _renamed(e: Exception, func: str, path: str, tmp):
    """``e`` told in terms of the user's ``path``: an OSError names it (the old
    file, if any, is intact); another error has the temporary file's name replaced."""
    if isinstance(e, OSError):
        why = e.strerror or str(e)
        if tmp is not None:
            why = why.replace(tmp, path)
        if e.errno is None:
            return OSError(f"{func}(): couldn't write {path!r} ({why}); any existing file is unchanged")
        # OSError(errno, ...) is the subclass errno maps to (FileNotFoundError, PermissionError, ...)
        return OSError(e.errno, f"{func}(): couldn't write the file ({why}); any existing file is "
                                f"unchanged", path)
    if tmp is not None and tmp in str(e):
        try:
            return type(e)(str(e).replace(tmp, path))
        except Exception:
            return e
    return e


# --- load --------------------------------------------------------------------------


class FormatError(ValueError):
    """A file that ``load`` / ``load_hdf5`` can't read as asked: truncated,
    corrupted, foreign, malformed, beyond the safety limits, or holding
    something the loader refuses (``RefusedError``). The message names the
    file and what is wrong where. A ValueError, so ``except ValueError`` works."""


class RefusedError(FormatError, pickle.UnpicklingError):
    """The file asks for something the loader won't do unless told to: run code
    or build objects other than plain data (``weights_only=True``), or read
    other files (HDF5 external links, virtual datasets, external storage).
    Nothing from the file was run or followed. Also a ``pickle.UnpicklingError``."""


_Corrupt = FormatError  # the name this module's checks use

# Limits of a safe load (``weights_only=True``): what a hostile file can make us build.
MAX_HEADER_BYTES = 1 << 28  # the JSON header: 256 MiB
MAX_DEPTH = 200  # nesting of containers in the object tree and in pickled objects
MAX_PICKLE_BYTES = 1 << 26  # one pickled object: 64 MiB
MAX_PICKLE_ITEMS = 1 << 22  # items in one set/frozenset/OrderedDict/bytearray built by a pickle


def _read_into(f, mv, name: str, what: str) -> None:
    """Fill ``mv`` from ``f``; a short read means the file is truncated."""
    readinto = getattr(f, "readinto", None)
    pos, n = 0, mv.nbytes
    while pos < n:
        if readinto is not None:
            k = readinto(mv[pos:])
        else:
            b = f.read(min(n - pos, _CHUNK))
            k = len(b)
            mv[pos:pos + k] = b
        if not k:
            raise _Corrupt(f"{name}: the file is truncated (it ends inside the {what})")
        pos += k


def _read_bytes(f, n: int, name: str, what: str) -> bytes:
    """Read exactly ``n`` bytes, a MiB at a time (``n`` comes from an untrusted file)."""
    parts = []
    while n:
        b = f.read(min(n, 1 << 20))
        if not b:
            raise _Corrupt(f"{name}: the file is truncated (it ends inside the {what})")
        parts.append(b)
        n -= len(b)
    return b"".join(parts)


def _remaining(f):
    """Bytes left in a seekable file from its current position, else None."""
    try:
        if not f.seekable():
            return None
        here = f.tell()
        end = f.seek(0, os.SEEK_END)
        f.seek(here)
        return end - here
    except (AttributeError, OSError, ValueError):
        return None


def _int(v, what, lo=0):
    if type(v) is not builtins.int or v < lo:
        raise _Corrupt(f"bad {what} {v!r}")
    return v


def _check_header(h):
    """Validate the header's tables (the file is untrusted)."""
    if type(h) is not dict or not {"storages", "arrays", "root"} <= h.keys():
        raise _Corrupt("the header lacks its tables")
    storages, arrays = h["storages"], h["arrays"]
    if type(storages) is not list or type(arrays) is not list:
        raise _Corrupt("the header's tables are not lists")
    end = 0
    for r in storages:
        if type(r) is not dict or type(r.get("dtype")) is not str or r["dtype"] not in _dtypes._BY_NAME \
                or type(r.get("device")) is not str:
            raise _Corrupt(f"bad storage record {str(r)[:200]}")
        off = _int(r.get("offset"), "record offset")
        if off != _align(end):
            raise _Corrupt(f"record offset {off} is not where the previous record ends ({_align(end)})")
        end = off + _int(r.get("numel"), "record size") * _dtypes._BY_NAME[r["dtype"]].itemsize
    for a in arrays:
        if type(a) is not dict:
            raise _Corrupt(f"bad array entry {a!r}")
        si = _int(a.get("storage"), "storage index")
        if si >= len(storages):
            raise _Corrupt(f"array refers to storage {si}; the file has {len(storages)}")
        shape, strides = a.get("shape"), a.get("strides")
        if type(shape) is not list or type(strides) is not list or len(shape) != len(strides):
            raise _Corrupt(f"bad array shape/strides {shape!r}/{strides!r}")
        for n in shape:
            _int(n, "dimension")
        for s in strides:
            _int(s, "stride", lo=-(1 << 62))
        lo, hi = _layout.extent(_int(a.get("offset"), "array offset"), shape, strides)
        if hi >= lo and (lo < 0 or hi >= storages[si]["numel"]):
            raise _Corrupt(f"array (offset {a['offset']}, shape {shape}, strides {strides}) reaches "
                           f"outside its record of {storages[si]['numel']} elements")
        names = a.get("names")
        if names is not None and (type(names) is not list or len(names) != len(shape)
                                  or any(n is not None and type(n) is not str for n in names)):
            raise _Corrupt(f"bad dimension names {names!r}")
    return _align(end)


def _target(map_location, saved: str, cpu_storage: Storage):
    """The storage ``map_location`` asks for, given the record read on the host."""
    ml = map_location
    if callable(ml):
        r = ml(cpu_storage, saved)
        if isinstance(r, Storage):
            if r.dtype is not cpu_storage.dtype or len(r) != len(cpu_storage):
                raise ValueError(f"load(): map_location returned a storage of {r.dtype.name}[{len(r)}] "
                                 f"for a record of {cpu_storage.dtype.name}[{len(cpu_storage)}]")
            return r
        ml = saved if r is None else r
    elif isinstance(ml, dict):
        ml = {str(Device(k)): v for k, v in ml.items()}.get(saved, saved)
    elif ml is None:
        ml = saved
    if not isinstance(ml, (str, Device)):
        raise TypeError(f"load(): map_location must be None, a device, a dict or a function; got {ml!r}")
    dev = Device(ml)
    if dev is CPU:
        return cpu_storage
    try:
        backend = dev.backend
    except (ValueError, ImportError, RuntimeError) as e:
        raise FormatError(f"load(): the file holds arrays on {saved}, and device {dev} is not "
                         f"available here ({e}); pass map_location='cpu'") from None
    with backend.ctx(dev):
        return Storage(backend.from_host(cpu_storage._data, dev), cpu_storage.dtype, dev)


def _bounded(items, what):
    if not isinstance(items, (list, tuple, set, frozenset, dict, bytes, bytearray, str)):
        raise RefusedError(_refusal(f"{what} built from a {type(items).__name__} (only from "
                                    f"data already in the file)"))
    if len(items) > MAX_PICKLE_ITEMS:
        raise RefusedError(_refusal(f"{what} of {len(items)} items (the limit is {MAX_PICKLE_ITEMS})"))
    return items


def _safe_bytearray(*args):
    if args:
        _bounded(args[0], "a bytearray")
    return bytearray(*args)


def _safe_set(*args):
    return set(_bounded(args[0], "a set")) if args else set()


def _safe_frozenset(*args):
    return frozenset(_bounded(args[0], "a frozenset")) if args else frozenset()


def _safe_odict(*args, **kwargs):
    return collections.OrderedDict(_bounded(args[0], "an OrderedDict")) if args else collections.OrderedDict()


# The constructors a safe load hands out: each takes only data already in the file
# (so a few bytes can't ask for gigabytes, as ``bytearray(10**12)`` would).
_SAFE_CONSTRUCTORS = {
    ("builtins", "bytearray"): _safe_bytearray, ("builtins", "set"): _safe_set,
    ("builtins", "frozenset"): _safe_frozenset, ("collections", "OrderedDict"): _safe_odict,
    ("builtins", "complex"): builtins.complex, ("builtins", "slice"): builtins.slice,
    ("builtins", "range"): builtins.range,
}
assert set(_SAFE_CONSTRUCTORS) == _SAFE_GLOBALS


def _safe_global(module: str, name: str) -> tuple[str, str]:
    """``(module, name)`` as Python 3 names it, if a safe load may construct it; else refused.

    Note: pickle's own find_class maps Python 2's names (``__builtin__.set``, which protocols
    0-2 write) to Python 3's before importing (CPython Lib/pickle.py, _Unpickler.find_class);
    a safe loader must map the same way, and then allowlist the mapped name.
    """
    key = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
    key = (_compat_pickle.IMPORT_MAPPING.get(key[0], key[0]), key[1])
    if key not in _SAFE_GLOBALS:
        raise RefusedError(_refusal(f"{module}.{name}"))
    return key


class _SafeUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        return _SAFE_CONSTRUCTORS[_safe_global(module, name)]


def _check_depth(obj, limit: int) -> None:
    """Refuse containers nested deeper than ``limit`` (iteratively: no recursion to blow)."""
    stack = [(obj, 0)]
    seen = set()
    while stack:
        o, d = stack.pop()
        t = type(o)
        if t in (list, tuple, set, frozenset, dict, collections.OrderedDict):
            if d >= limit:
                raise FormatError(f"a pickled object is nested deeper than {limit} levels")
            if id(o) in seen:
                continue
            seen.add(id(o))
            items = o.items() if isinstance(o, dict) else o
            for v in items:
                stack.append((v, d + 1))


def _refusal(what: str) -> str:
    return (f"load(weights_only=True) refused to load {what}: the file pickles an object that "
            f"is not plain data. Nothing from it was run. If you trust the file, load it with "
            f"weights_only=False")


_OPS = {op.code.encode("latin-1"): op for op in pickletools.opcodes}
# Protocol 0's escaped byte string (Python 2 ``str``): no pickle protocol >= 1 writes it, and
# PyTorch's weights-only unpickler has no such opcode either: refused before its argument is
# read (pickletools decodes its escapes with codecs.escape_decode, which warns --
# DeprecationWarning -- on an invalid escape in a hostile or corrupt file).
_REFUSED_BEFORE_READING = frozenset({"STRING"})


def _read_line(data) -> str:
    line = data.readline()
    if not line.endswith(b"\n"):
        raise ValueError("no newline found when trying to read stringnl")
    return line[:-1].decode("utf-8")  # (UnicodeDecodeError is a ValueError)


# Note: pickletools (CPython 3.11, 3.12) runs GLOBAL's, INST's and PERSID's newline-ended
# arguments through codecs.escape_decode as well, which warns on a backslash; the unpickler
# reads them as plain UTF-8 lines (Modules/_pickle.c, load_global), and so does this scan:
# a name with a backslash is then simply not a safe global.
_READERS = {
    "stringnl_noescape": _read_line,
    "stringnl_noescape_pair": lambda data: f"{_read_line(data)} {_read_line(data)}",
}


def _opcodes(payload: bytes):
    """``(opcode, argument)`` of each opcode of ``payload`` up to STOP: ``pickletools.genops``,
    with the arguments read as the unpickler reads them (above) and the opcodes above refused
    before their argument is read. ValueError (a malformed pickle) where genops raises it."""
    data = io.BytesIO(payload)
    while True:
        code = data.read(1)
        op = _OPS.get(code)
        if op is None:
            raise ValueError("pickle exhausted before seeing STOP" if code == b"" else
                             f"at position {data.tell() - 1}, opcode {code!r} unknown")
        if op.name in _REFUSED_BEFORE_READING:
            raise RefusedError(_refusal(f"pickle opcode {op.name} (protocol 0's escaped strings)"))
        arg = None
        if op.arg is not None:
            arg = _READERS.get(op.arg.name, op.arg.reader)(data)
        yield op, arg
        if op.name == "STOP":
            return


def _scan_pickle(payload: bytes) -> None:
    """Refuse a pickle that names an unsafe global or sets object state, without running it.

    A static pass over the opcodes: strings pushed (and memoized) are tracked
    so that ``STACK_GLOBAL`` is named; anything not resolvable is refused.
    """
    memo, stack = {}, []
    for op, arg in _opcodes(payload):
        name = op.name
        if name in ("GLOBAL", "INST"):
            module, _, qual = arg.partition(" ")
            _safe_global(module, qual)
        elif name == "STACK_GLOBAL":
            module, qual = (stack[-2], stack[-1]) if len(stack) >= 2 else (None, None)
            if type(module) is not str or type(qual) is not str:
                raise RefusedError(_refusal("an unnamed global"))
            _safe_global(module, qual)
        if name in _UNSAFE_OPCODES:
            raise RefusedError(_refusal(f"pickle opcode {name} (it sets object state)"))
        if name == "MEMOIZE":
            memo[len(memo)] = stack[-1] if stack else None
        elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
            memo[arg] = stack[-1] if stack else None
        elif name in ("GET", "BINGET", "LONG_BINGET"):
            stack.append(memo.get(arg))
        elif "UNICODE" in name:
            stack.append(arg)
        elif op.stack_after:
            stack.append(None)


class _Decoder:
    def __init__(self, arrays, storages, weights_only: bool, name: str):
        self.arrays = arrays  # index -> Array or np.ndarray
        self.storages = storages
        self.weights_only = weights_only
        self.name = name

    def _pid(self, pid):
        if type(pid) is tuple and len(pid) == 2:
            kind, v = pid
            try:
                if kind in ("array", "ndarray"):
                    return self.arrays[v]
                if kind == "storage":
                    return self.storages[v]
                if kind == "dtype":
                    return _dtypes._BY_NAME[v]
                if kind == "device":
                    return Device(v)
                if kind == "size":
                    return Size(_int(n, "dimension") for n in v)
            except (IndexError, KeyError, TypeError, ValueError):
                pass
        raise pickle.UnpicklingError(f"{self.name}: bad persistent id {pid!r} in a pickled object")

    def unpickle(self, payload: bytes):
        if self.weights_only:
            if len(payload) > MAX_PICKLE_BYTES:
                raise FormatError(f"a pickled object of {len(payload)} bytes is over the limit of a "
                                  f"safe load ({MAX_PICKLE_BYTES}); load with weights_only=False if "
                                  f"you trust the file")
            try:
                _scan_pickle(payload)
            except FormatError:
                raise
            except Exception as e:  # a malformed pickle: pickletools could not parse it
                raise _Corrupt(f"a pickled object is malformed ({e})") from None
            u = _SafeUnpickler(io.BytesIO(payload))
            u.persistent_load = self._pid
            try:
                obj = u.load()
            except FormatError:
                raise
            except RecursionError:
                raise FormatError("a pickled object is nested too deeply") from None
            except Exception as e:  # a malformed pickle that the scan let through
                raise _Corrupt(f"a pickled object is malformed ({type(e).__name__}: {e})") from None
            _check_depth(obj, MAX_DEPTH)
            return obj
        u = pickle.Unpickler(io.BytesIO(payload))
        u.persistent_load = self._pid
        return u.load()

    def node(self, n, depth=0):
        if type(n) is not dict:
            raise _Corrupt(f"bad node {str(n)[:200]}")
        if depth > MAX_DEPTH:
            raise _Corrupt(f"the object tree is nested deeper than {MAX_DEPTH} levels")
        t, v = n.get("t"), n.get("v")
        if t == "none":
            return None
        if t == "bool" and type(v) is builtins.bool:
            return v
        if t == "int" and type(v) is builtins.int:
            return v
        if t == "float":
            return _unhex_float(v)
        if t == "complex" and type(v) is list and len(v) == 2:
            return builtins.complex(_unhex_float(v[0]), _unhex_float(v[1]))
        if t == "str" and type(v) is str:
            return v
        if t == "bytes" and type(v) is str:
            return _b64(v)
        if t in ("array", "ndarray", "storage"):
            table = self.storages if t == "storage" else self.arrays
            i = n.get("i")
            if type(i) is builtins.int and 0 <= i < len(table):
                obj = table[i]
                if (t == "ndarray") == isinstance(obj, np.ndarray) or t == "storage":
                    return obj
        if t == "npscalar" and type(n.get("dtype")) is str and n["dtype"] in _dtypes._BY_NAME and type(v) is str:
            d = _dtypes._BY_NAME[n["dtype"]]._np
            try:
                return np.frombuffer(bytes.fromhex(v), dtype=_le(d))[0].astype(d)[()]
            except (ValueError, IndexError):
                pass
        if t == "dtype" and type(v) is str and v in _dtypes._BY_NAME:
            return _dtypes._BY_NAME[v]
        if t == "device" and type(v) is str:
            return Device(v)
        if t == "size" and type(v) is list:
            return Size(_int(d, "dimension") for d in v)
        if t in ("list", "tuple") and type(v) is list:
            items = [self.node(x, depth + 1) for x in v]
            return items if t == "list" else tuple(items)
        if t in ("dict", "odict") and type(v) is list:
            out = {} if t == "dict" else collections.OrderedDict()
            for kv in v:
                if type(kv) is not list or len(kv) != 2:
                    raise _Corrupt(f"bad dict entry {str(kv)[:200]}")
                key = self.node(kv[0], depth + 1)
                value = self.node(kv[1], depth + 1)
                try:
                    out[key] = value
                except TypeError:
                    raise _Corrupt(f"a dict key is unhashable ({type(key).__name__})") from None
            return out
        if t == "pickle" and type(v) is str:
            return self.unpickle(_b64(v))
        raise _Corrupt(f"bad node {json.dumps(n)[:200]}")


def _unhex_float(v) -> float:
    try:
        b = bytes.fromhex(v)
        if len(b) == 8:
            return struct.unpack("<d", b)[0]
    except (TypeError, ValueError):
        pass
    raise _Corrupt(f"bad float {v!r}")


def _b64(v: str) -> bytes:
    try:
        return base64.b64decode(v.encode("ascii"), validate=True)
    except ValueError:
        raise _Corrupt("bad base64 data") from None


def _read_container(f, name, use_mmap, weights_only=True, verify=True):
    start = f.tell() if use_mmap else None
    pre = f.read(_PREAMBLE.size)
    if not isinstance(pre, bytes):
        raise TypeError(f"load(): {name} must be opened in binary mode ('rb')")
    if len(pre) < len(MAGIC) or pre[:len(MAGIC)] != MAGIC:
        if not pre:
            raise _Corrupt(f"{name}: the file is empty")
        if MAGIC.startswith(pre):
            raise _Corrupt(f"{name}: the file is truncated (it ends inside the magic bytes)")
        for magic, what in _FOREIGN:
            if pre.startswith(magic):
                raise _Corrupt(f"{name} is not a strided file: it looks like {what}")
        raise _Corrupt(f"{name} is not a strided file (its first bytes are {pre[:8]!r}, "
                       f"not the format's magic bytes)")
    if len(pre) < _PREAMBLE.size:
        raise _Corrupt(f"{name}: the file is truncated (it ends inside the preamble)")
    _, version, header_crc, header_len, total = _PREAMBLE.unpack(pre)
    if version > FORMAT_VERSION:
        raise FormatError(f"{name} was written in strided file format version {version}; this "
                         f"strided reads versions up to {FORMAT_VERSION}: upgrade strided to load it")
    if version < 1:
        raise _Corrupt(f"{name}: bad format version {version}")
    if header_len > min(total, _MAX_HEADER):
        raise _Corrupt(f"{name}: bad header length {header_len}")
    if weights_only and header_len > MAX_HEADER_BYTES:
        raise _Corrupt(f"{name}: its header of {header_len} bytes is over the limit of a safe load "
                       f"({MAX_HEADER_BYTES}); load with weights_only=False if you trust the file")
    left = _remaining(f)
    if left is not None and left < total - _PREAMBLE.size:
        raise _Corrupt(f"{name}: the file is truncated ({left + _PREAMBLE.size} bytes of the "
                       f"{total} the header announces)")
    header = _read_bytes(f, header_len, name, "header")
    if zlib.crc32(header) != header_crc:
        raise _Corrupt(f"{name}: the header is corrupted (checksum mismatch)")
    try:
        h = json.loads(header.decode("utf-8"))
    except (ValueError, RecursionError) as e:
        raise _Corrupt(f"{name}: the header is not valid JSON ({e})") from None
    try:
        records_end = _check_header(h)
    except _Corrupt as e:
        raise _Corrupt(f"{name}: corrupted header: {e}") from None
    data_start = _align(_PREAMBLE.size + header_len)
    recs = h["storages"]
    footer_len = len(_FOOTER_MAGIC) + 4 * (len(recs) + 1)
    data_len = total - data_start - footer_len
    if data_len != records_end:
        raise _Corrupt(f"{name}: corrupted header: its records take {records_end} bytes; the "
                       f"preamble announces {data_len}")
    hosts = []
    if use_mmap:
        try:
            fileno = f.fileno()
        except (AttributeError, OSError, io.UnsupportedOperation):
            raise ValueError("load(mmap=True) needs a path or a file with a file descriptor; "
                             f"got {type(f).__name__}") from None
        mm = _mmap.mmap(fileno, 0, access=_mmap.ACCESS_COPY)
        for r in recs:
            d = _dtypes._BY_NAME[r["dtype"]]._np
            a = np.frombuffer(mm, dtype=_le(d), count=r["numel"], offset=start + data_start + r["offset"])
            hosts.append(a if _LITTLE else a.astype(d))
        f.seek(start + total)
    else:
        pos = _PREAMBLE.size + header_len
        sums = _Checksums(_crc_workers(data_len)) if verify else _NoChecksums()
        try:
            for r in recs:
                d = _dtypes._BY_NAME[r["dtype"]]._np
                _read_bytes(f, data_start + r["offset"] - pos, name, "padding")
                if left is None and r["numel"] * d.itemsize > _CHUNK:
                    # Note: a stream of unknown length: memory grows with the bytes that
                    # actually arrive, never with what an untrusted header claims.
                    raw = _read_bytes(f, r["numel"] * d.itemsize, name, "array data")
                    a = np.frombuffer(bytearray(raw), dtype=_le(d))
                    raw_mv = memoryview(raw)
                    for i in range(0, len(raw), _CHUNK):
                        sums.add(raw_mv[i:i + _CHUNK])
                    sums.end_record()
                    pos = data_start + r["offset"] + a.nbytes
                    hosts.append(a)
                    continue
                # Into a pooled buffer: a load whose result replaces one freed earlier
                # reuses memory already faulted in instead of faulting in fresh pages.
                a = _pool.empty((r["numel"],), _le(d), r["numel"] * d.itemsize)
                mv = memoryview(a).cast("B")
                for i in range(0, mv.nbytes, _CHUNK):
                    _read_into(f, mv[i:i + _CHUNK], name, "array data")
                    sums.add(mv[i:i + _CHUNK])
                sums.end_record()
                pos = data_start + r["offset"] + a.nbytes
                hosts.append(a)
        finally:
            crcs = sums.results()
        _read_bytes(f, data_start + data_len - pos, name, "padding")
        footer = _read_bytes(f, footer_len, name, "footer")
        if not footer.startswith(_FOOTER_MAGIC):
            raise _Corrupt(f"{name}: the file is corrupted (bad footer)")
        body = footer[len(_FOOTER_MAGIC):-4]
        if zlib.crc32(body) != struct.unpack("<I", footer[-4:])[0]:
            raise _Corrupt(f"{name}: the file is corrupted (footer checksum mismatch)")
        for i, (got, crc) in enumerate(zip(crcs or (), struct.unpack(f"<{len(recs)}I", body))):
            if got != crc:
                raise _Corrupt(f"{name}: the data of storage record {i} is corrupted (checksum mismatch)")
        if not _LITTLE:
            hosts = [a.astype(a.dtype.newbyteorder("=")) for a in hosts]
    return h, hosts


def _build(h, hosts, name, map_location, weights_only):
    numpy_only = {a["storage"] for a in h["arrays"] if a.get("numpy")}
    storages = []
    for i, (r, a) in enumerate(zip(h["storages"], hosts)):
        try:
            saved = str(Device(r["device"]))
        except (TypeError, ValueError):
            raise _Corrupt(f"{name}: corrupted header: bad device {r['device']!r}") from None
        st = Storage(a, _dtypes._BY_NAME[r["dtype"]], CPU)
        storages.append(st if i in numpy_only else _target(map_location, saved, st))
    arrays = []
    for a in h["arrays"]:
        arr = Array._from_storage(storages[a["storage"]], a["offset"], tuple(a["shape"]), tuple(a["strides"]))
        if a.get("numpy"):
            arrays.append(arr.numpy())
            continue
        try:
            if a.get("names") is not None and "set_names" in _LATE:
                arr = _LATE["set_names"](arr, tuple(a["names"]))
            if a.get("requires_grad") and "set_requires_grad" in _LATE:
                arr = _LATE["set_requires_grad"](arr, True)
        except (TypeError, ValueError, RuntimeError) as e:  # names or grad flag the array can't take
            raise _Corrupt(f"{name}: corrupted header: array {len(arrays)}: {e}") from None
        arrays.append(arr)
    try:
        return _Decoder(arrays, storages, weights_only, name).node(h["root"])
    except RecursionError:
        raise _Corrupt(f"{name}: the object tree is nested too deeply") from None
    except RefusedError as e:
        raise RefusedError(f"{name}: {e}") from None
    except _Corrupt as e:
        raise _Corrupt(f"{name}: corrupted header: {e}") from None


def load(f, *, map_location=None, weights_only: bool = True, mmap: bool = False, verify: bool = True):
    """Load what ``save`` wrote, from a path or a binary file object.

    ``weights_only=True`` (the default) never runs code from the file: a
    pickled object that names anything but plain-data constructors raises
    ``pickle.UnpicklingError`` naming it. ``map_location`` (``"cpu"``, a
    device, a dict ``{"cuda:0": "cpu"}`` or a function ``(storage, location)
    -> storage | device | None``) chooses where storages go. ``mmap=True`` maps
    arrays copy-on-write instead of reading them: writes to the loaded
    arrays stay in this process and never reach the file. A truncated,
    corrupted or foreign file raises ValueError.

    ``verify=True`` (the default) checks every record's CRC-32 against the
    footer, so damaged array data raises ValueError instead of loading.
    Each chunk is checksummed as soon as it is read, while it is in cache,
    by strided's C CRC-32 (carry-less multiplication: tens of GB/s, a few
    ms per 100 MB); where that is not built or the CPU lacks it, zlib's
    CRC-32 runs on up to ``get_num_threads()`` threads beside the reads.
    Arrays read from a file take their memory from strided's buffer pool
    (``strided.memory_stats()``), like other large results. ``verify=False`` skips the record checksums, as ``numpy.load``
    and ``torch.load`` do, for files you know are intact: the preamble,
    header (its own CRC), tables, sizes and footer are still checked, so a
    truncated or malformed file still raises, but flipped bits inside the
    array data load silently. ``mmap=True`` never verifies records (that
    would read every page).
    """
    _flag("load", "verify", verify)
    if hasattr(f, "read"):
        if isinstance(f, io.TextIOBase):
            raise TypeError("load(): the file must be opened in binary mode ('rb')")
        name = repr(getattr(f, "name", f"<{type(f).__name__}>"))
        return _load_from(f, name, map_location, weights_only, mmap, verify)
    try:
        path = os.fspath(f)
    except TypeError:
        raise TypeError(f"load(): f must be a path or a binary file object; got {type(f).__name__}") from None
    with open(path, "rb") as fh:
        return _load_from(fh, repr(os.fsdecode(path)), map_location, weights_only, mmap, verify)


def _load_from(f, name, map_location, weights_only, use_mmap, verify=True):
    h, hosts = _read_container(f, name, use_mmap, weights_only, verify)
    return _build(h, hosts, name, map_location, weights_only)
