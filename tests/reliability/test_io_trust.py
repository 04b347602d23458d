"""save/load and HDF5 under hostile files, odd targets and careless use (issue 17)."""

from __future__ import annotations

import collections
import fcntl
import io
import os
import pickle
import pickletools
import subprocess
import sys
import threading

import numpy as np
import pytest

import strided as xp
from strided import io as sio
from strided.io import _native as S

from . import fuzz_corpus as C


def host(a):
    return np.asarray(a.cpu().numpy())


# --- the error hierarchy -----------------------------------------------------------------

def test_error_hierarchy():
    assert issubclass(sio.FormatError, ValueError)
    assert issubclass(sio.RefusedError, sio.FormatError)
    assert issubclass(sio.RefusedError, pickle.UnpicklingError)


# --- save: targets ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "directory", "device", "socket"])
def test_save_refuses_non_regular_targets_and_leaves_them(tmp_path, kind):
    # Note: every target lives in tmp_path (never /dev/null: an old strided replaced it).
    target = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "directory":
        target.mkdir()
    elif kind == "device":
        import stat
        try:
            os.mknod(target, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null node
        except PermissionError:
            pytest.skip("creating a device node needs CAP_MKNOD")
    else:
        import socket
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(target))
        sock.close()
    before = os.stat(target)
    with pytest.raises(ValueError, match="not a regular file") as e:
        xp.save(xp.ones(3), target)
    assert repr(str(target)) in str(e.value)
    after = os.stat(target)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == [kind]


def test_save_hdf5_refuses_non_regular_targets(tmp_path):
    pytest.importorskip("h5py")
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(ValueError, match="FIFO"):
        sio.save_hdf5(tmp_path / "pipe", {"x": xp.ones(2)})
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_save_errors_name_the_users_path_not_the_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "model.strd"
    xp.save(xp.zeros(2), target)
    old = target.read_bytes()

    def failing(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(S, "_write_container", failing)
    with pytest.raises(OSError) as e:
        xp.save(xp.ones(3), target)
    assert e.value.errno == 28 and e.value.filename == str(target)
    assert ".tmp" not in str(e.value) and str(target) in str(e.value)
    assert target.read_bytes() == old
    assert [p.name for p in tmp_path.iterdir()] == ["model.strd"]
    with pytest.raises(FileNotFoundError) as e:
        xp.save(xp.ones(3), tmp_path / "no" / "such" / "dir.strd")
    assert ".tmp" not in str(e.value) and "dir.strd" in str(e.value)


# --- save: never writing through the memory it reads -------------------------------------------

def _mapped(tmp_path, n=50000):
    p = tmp_path / "m.strd"
    xp.save({"w": xp.arange(float(n)), "b": xp.ones(7)}, p)
    return p, p.read_bytes(), xp.load(p, mmap=True)


def test_saving_a_mapped_array_into_its_own_file_object_keeps_the_file(tmp_path):
    p, orig, m = _mapped(tmp_path)
    with open(p, "r+b") as f:  # positioned at 0, over the data being read
        xp.save(m, f)
    assert p.read_bytes() == orig
    assert host(xp.load(p)["w"])[-1] == 49999.0


def test_saving_a_mapped_array_into_its_truncated_file_raises_instead_of_crashing(tmp_path):
    # open(p, "wb") truncates the file before save runs: the mapped data is gone. Reading it
    # would kill the process with SIGBUS; save must raise instead (run in a child process,
    # so a crash would show as a signal, not take pytest down).
    code = f"""
import strided as xp
p = {str(tmp_path / 'm.strd')!r}
xp.save({{"w": xp.arange(50000.0)}}, p)
m = xp.load(p, mmap=True)
try:
    with open(p, "wb") as f:
        xp.save(m, f)
except ValueError as e:
    assert "truncated" in str(e), e
    print("refused")
try:
    xp.save(m, p + ".copy")
except ValueError as e:
    print("refused again")
"""
    env = {k: v for k, v in os.environ.items() if k != "STRIDED_DEFAULT_DEVICE"}  # mmap is CPU
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**env, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.split() == ["refused", "refused", "again"]


def test_saving_a_mapped_array_to_its_own_path_replaces_the_file_safely(tmp_path):
    p, orig, m = _mapped(tmp_path)
    xp.save({"again": m["w"]}, p)
    assert host(m["w"])[-1] == 49999.0  # the mapping still reads the old file's data
    assert host(xp.load(p)["again"])[-1] == 49999.0


# --- save: non-blocking and short writes ---------------------------------------------------------

class _Trickle(io.RawIOBase):
    """A raw file that takes at most 7 bytes per write and returns None every other call."""

    def __init__(self):
        self.data = bytearray()
        self.calls = 0

    def writable(self):
        return True

    def write(self, b):
        self.calls += 1
        if self.calls % 2 == 0:
            return None
        n = min(7, len(b))
        self.data += bytes(b[:n])
        return n

    def fileno(self):  # select() on it returns at once
        return _DEVNULL_W


_DEVNULL_W = os.open(os.devnull, os.O_WRONLY)


def test_save_to_a_file_that_takes_little_or_nothing_per_write_loses_nothing():
    f = _Trickle()
    obj = {"w": xp.arange(300.0), "s": "text"}
    xp.save(obj, f)
    back = xp.load(io.BytesIO(bytes(f.data)))
    assert host(back["w"]).tolist() == list(range(300)) and back["s"] == "text"


def test_save_to_a_nonblocking_pipe_loses_nothing():
    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
    got = bytearray()

    def drain():
        import time
        while True:
            time.sleep(0.001)  # a slow reader: the writer meets a full pipe
            b = os.read(r, 1 << 14)
            if not b:
                return
            got.extend(b)

    t = threading.Thread(target=drain)
    t.start()
    big = xp.arange(400000.0)  # 3.2 MB through a 64 KiB pipe
    with open(w, "wb", buffering=0) as f:
        xp.save({"big": big}, f)
    t.join()
    os.close(r)
    back = xp.load(io.BytesIO(bytes(got)))
    assert host(back["big"])[-1] == 399999.0 and back["big"].shape == (400000,)


def test_a_file_that_would_block_without_a_descriptor_raises():
    class NoFd(_Trickle):
        def write(self, b):
            return None

        def fileno(self):
            raise io.UnsupportedOperation("no fileno")

    with pytest.raises(OSError, match="would block"):
        xp.save(xp.ones(3), NoFd())


# --- save while another thread writes -------------------------------------------------------------

def test_save_while_another_thread_writes_in_place_produces_a_file_that_loads(tmp_path):
    x = xp.zeros(1 << 20)
    stop = threading.Event()

    def writer():
        k = 0.0
        while not stop.is_set():
            k += 1
            x.add_(1.0)
            x[::7] = k

    t = threading.Thread(target=writer)
    t.start()
    try:
        for i in range(6):
            p = tmp_path / f"s{i}.strd"
            xp.save({"x": x}, p)
            assert xp.load(p)["x"].shape == (1 << 20,)  # checksums agree: the file loads
    finally:
        stop.set()
        t.join()


# --- load: weights_only limits ----------------------------------------------------------------------

def _file_with_pickle(payload: bytes) -> io.BytesIO:
    """A valid strided file whose root is one pickled object (checksums recomputed)."""
    buf = io.BytesIO()
    xp.save(None, buf)
    return io.BytesIO(C.with_pickle_root(buf.getvalue(), payload))


def test_weights_only_refuses_constructors_that_allocate_from_a_number():
    # bytearray(2**30): a few bytes of pickle asking for a GiB
    payload = (b"\x80\x04\x8c\x08builtins\x94\x8c\tbytearray\x94\x93\x94"
               b"J\x00\x00\x00@\x85\x94R\x94.")
    assert pickletools.dis(payload, out=io.StringIO()) is None  # a well-formed pickle
    with pytest.raises(sio.RefusedError, match="bytearray built from a int"):
        xp.load(_file_with_pickle(payload))


def _set_of_range_pickle(n):
    # set(range(n)): the set constructor called on a range object
    return (b"\x80\x04\x8c\x08builtins\x94\x8c\x03set\x94\x93\x94\x8c\x08builtins\x94\x8c\x05range\x94"
            b"\x93\x94J" + n.to_bytes(4, "little") + b"\x85\x94R\x94\x85\x94R\x94.")


def test_weights_only_refuses_a_set_built_from_a_range():
    with pytest.raises(sio.RefusedError, match="set built from a range"):
        xp.load(_file_with_pickle(_set_of_range_pickle(10 ** 9)))


def test_weights_only_still_loads_plain_pickled_data():
    obj = {"s": {1, 2}, "f": frozenset([3]), "b": bytearray(b"xy"), "o": collections.OrderedDict(a=1),
           "c": 1 + 2j, "r": range(5), "sl": slice(1, 2)}
    buf = io.BytesIO()
    xp.save(obj, buf)
    buf.seek(0)
    assert xp.load(buf) == obj
    payload = pickle.dumps({frozenset([1, 2]), 3}, protocol=4)
    assert xp.load(_file_with_pickle(payload)) == {frozenset([1, 2]), 3}


def test_weights_only_refuses_deep_nesting():
    deep = []
    for _ in range(S.MAX_DEPTH + 5):
        deep = [deep]
    payload = pickle.dumps(frozenset([tuple([0])]), protocol=4)  # shallow: fine
    xp.load(_file_with_pickle(payload))
    nested = b"\x80\x04" + b"]" * (S.MAX_DEPTH + 5) + b"a" * (S.MAX_DEPTH + 4) + b"."
    with pytest.raises(sio.FormatError, match="nested deeper"):
        xp.load(_file_with_pickle(nested))
    buf = io.BytesIO()
    xp.save(deep, buf)  # the format's own tree
    buf.seek(0)
    with pytest.raises(sio.FormatError, match="nested deeper"):
        xp.load(buf)


def test_weights_only_bounds_the_header_and_each_pickle(monkeypatch):
    buf = io.BytesIO()
    xp.save({"k": "v" * 5000}, buf)
    monkeypatch.setattr(S, "MAX_HEADER_BYTES", 1000)
    buf.seek(0)
    with pytest.raises(sio.FormatError, match="over the limit"):
        xp.load(buf)
    buf.seek(0)
    assert xp.load(buf, weights_only=False)["k"] == "v" * 5000
    monkeypatch.setattr(S, "MAX_PICKLE_BYTES", 10)
    with pytest.raises(sio.FormatError, match="over the limit"):
        xp.load(_file_with_pickle(pickle.dumps(set(range(20)), protocol=4)))


def test_a_stream_claiming_a_huge_record_is_not_allocated_up_front():
    class Stream(io.RawIOBase):  # not seekable: the loader can't check the length first
        def __init__(self, data):
            self._b = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, mv):
            return self._b.readinto(mv)

    buf = io.BytesIO()
    xp.save(xp.ones(4), buf)
    fields, h, rest = C.split(buf.getvalue())
    h["storages"][0]["numel"] = 1 << 40  # 4 TiB of float32
    start = len(C.join(fields, h, b""))  # where the records begin
    claimed = (fields[0], fields[1], start + S._align((1 << 40) * 4) + len(S._FOOTER_MAGIC) + 8)
    out = C.join(claimed, h, rest, fix_total=False)
    with pytest.raises(sio.FormatError, match="truncated"):
        xp.load(io.BufferedReader(Stream(out)))


# --- unpickling arrays (pickle.loads, weights_only=False) ---------------------------------------

def test_unpickled_arrays_must_lie_inside_their_storage():
    st = xp.arange(4.0).storage()
    for args in [(st, 2, (4,), (1,)), (st, -1, (2,), (1,)), (st, 0, (2,), (5,)), (st, 0, (2,), (1, 1)),
                 ("not a storage", 0, (2,), (1,)), (st, 0.5, (2,), (1,)), (st, 0, (-2,), (1,))]:
        with pytest.raises(sio.FormatError):
            sio._pickle._rebuild_array(*args)
    assert host(sio._pickle._rebuild_array(st, 1, (3,), (1,))).tolist() == [1.0, 2.0, 3.0]


def test_unpickled_storage_must_be_a_flat_buffer_of_its_dtype():
    from strided._core.storage import _rebuild_storage
    with pytest.raises(ValueError, match="1-D float64"):
        _rebuild_storage(np.zeros((2, 2)), "float64", "cpu")
    with pytest.raises(ValueError, match="1-D float64"):
        _rebuild_storage(np.zeros(2, np.float32), "float64", "cpu")
    with pytest.raises(ValueError, match="1-D float64"):
        _rebuild_storage([1.0, 2.0], "float64", "cpu")


def test_pickle_round_trip_still_works():
    a = xp.arange(6.0).reshape(2, 3)
    b = pickle.loads(pickle.dumps({"a": a, "t": a.T}))
    assert host(b["t"]).tolist() == host(a.T).tolist()
    assert b["a"].storage() is b["t"].storage()


# --- HDF5 --------------------------------------------------------------------------------------------

h5py = pytest.importorskip("h5py")


def _h5(path, build):
    with h5py.File(path, "w") as f:
        build(f)
    return path


@pytest.fixture
def other(tmp_path):
    return _h5(tmp_path / "other.h5", lambda f: f.create_dataset("x", data=np.arange(3.0)))


def test_hdf5_external_link_refused_unless_asked(tmp_path, other):
    p = _h5(tmp_path / "e.h5", lambda f: f.__setitem__("e", h5py.ExternalLink(str(other), "/x")))
    for call in (lambda: sio.load_hdf5(p), lambda: sio.load_hdf5(p, "e"),
                 lambda: sio.open_hdf5(p)["e"]):
        with pytest.raises(sio.RefusedError, match="external link") as e:
            call()
        assert str(p) in str(e.value)
    assert host(sio.load_hdf5(p, external=True)["e"]).tolist() == [0, 1, 2]
    with sio.open_hdf5(p, external=True) as f:
        assert host(f["e"][1:]).tolist() == [1, 2]


def test_hdf5_virtual_dataset_refused_unless_asked(tmp_path, other):
    def build(f):
        lay = h5py.VirtualLayout(shape=(3,), dtype="f8")
        lay[:] = h5py.VirtualSource(str(other), "x", shape=(3,))
        f.create_virtual_dataset("v", lay)

    p = _h5(tmp_path / "v.h5", build)
    with pytest.raises(sio.RefusedError, match="virtual dataset"):
        sio.load_hdf5(p)
    with pytest.raises(sio.RefusedError, match="virtual dataset"):
        sio.open_hdf5(p)["v"]
    assert host(sio.load_hdf5(p, "v", external=True)).tolist() == [0, 1, 2]


def test_hdf5_external_storage_refused_unless_asked(tmp_path):
    raw = tmp_path / "raw.bin"
    raw.write_bytes(np.arange(3.0).tobytes())
    p = _h5(tmp_path / "s.h5", lambda f: f.create_dataset("s", shape=(3,), dtype="f8",
                                                          external=[(str(raw), 0, 24)]))
    with pytest.raises(sio.RefusedError, match="external files"):
        sio.load_hdf5(p)
    assert host(sio.load_hdf5(p, external=True)["s"]).tolist() == [0, 1, 2]


@pytest.mark.parametrize("cycle", ["soft", "hard"])
def test_hdf5_link_cycles_are_format_errors(tmp_path, cycle):
    def build(f):
        g = f.create_group("g")
        g["x"] = np.arange(2)
        g["loop"] = h5py.SoftLink("/g") if cycle == "soft" else g

    p = _h5(tmp_path / "c.h5", build)
    with pytest.raises(sio.FormatError, match="link cycle"):
        sio.load_hdf5(p)


def test_hdf5_hard_links_to_one_group_are_read_once_and_shared(tmp_path):
    def build(f):
        g = f.create_group("g")
        g["x"] = np.arange(2)
        f["h"] = g

    out = sio.load_hdf5(_h5(tmp_path / "h.h5", build))
    assert sorted(out) == ["g/x", "h/x"] and out["g/x"] is out["h/x"]


def test_hdf5_dangling_links_are_format_errors(tmp_path):
    p = _h5(tmp_path / "d.h5", lambda f: f.__setitem__("d", h5py.SoftLink("/nowhere")))
    for call in (lambda: sio.load_hdf5(p), lambda: sio.load_hdf5(p, "d"), lambda: sio.open_hdf5(p)["d"]):
        with pytest.raises(sio.FormatError, match="dangling"):
            call()


def test_load_hdf5_of_a_non_hdf5_file_names_it(tmp_path):
    p = tmp_path / "not.h5"
    p.write_bytes(b"definitely not hdf5" * 20)
    for call in (sio.load_hdf5, sio.open_hdf5):
        with pytest.raises(sio.FormatError, match="not an HDF5 file") as e:
            call(p)
        assert str(p) in str(e.value)
    with pytest.raises(FileNotFoundError):
        sio.load_hdf5(tmp_path / "missing.h5")
