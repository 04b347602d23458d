"""HDF5 through strided.io, checked against plain h5py and NumPy."""

from __future__ import annotations

import io
import sys
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.extra import numpy as hnp

import strided as xp
from strided import io as sio
from strided._core.array import _LATE, Array, Ext

h5py = pytest.importorskip("h5py")

ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128"]


def host(x) -> np.ndarray:
    return np.array(x._host(), copy=True)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and \
        np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def sample(name: str, shape=(3, 4)) -> np.ndarray:
    n = int(np.prod(shape))
    if name == "bool":
        return (np.arange(n) % 3 == 0).reshape(shape)
    dt = np.dtype(name)
    raw = np.random.default_rng(0).integers(0, 256, n * dt.itemsize, dtype=np.uint8)
    return raw.view(dt).reshape(shape).copy()  # arbitrary bits: NaN payloads, subnormals...


def named(x: Array, names) -> Array:
    x._ext = Ext()
    x._ext.names = tuple(names)
    return x


@pytest.fixture
def set_names(monkeypatch):
    """A stand-in for the named-dimensions extension's setter."""
    monkeypatch.setitem(_LATE, "set_names", named)


# --- the seed document's example -------------------------------------------------------------


def test_seed_example_with_plain_h5py(tmp_path):
    points = xp.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
    with h5py.File(tmp_path / "ourpoints.hdf5", "w") as f:
        f.create_dataset("coords", data=points.cpu().numpy())
    with h5py.File(tmp_path / "ourpoints.hdf5", "r") as f:
        dset = f["coords"]
        last_points = xp.from_numpy(dset[-2:])
    assert same_bits(host(last_points), np.array([[5, 3], [2, 1]], np.float32))
    with sio.open_hdf5(tmp_path / "ourpoints.hdf5") as f:
        assert same_bits(host(f["coords"][-2:]), np.array([[5, 3], [2, 1]], np.float32))


# --- save_hdf5 / load_hdf5 ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_DTYPES)
def test_dtypes_preserved_and_readable_by_h5py(tmp_path, name):
    ref = sample(name)
    path = tmp_path / "d.h5"
    sio.save_hdf5(path, {"x": xp.asarray(ref.copy()), "t": xp.asarray(ref.copy()).t()})
    with h5py.File(path, "r") as f:
        assert f["x"].dtype == ref.dtype and same_bits(f["x"][()], ref)
        assert same_bits(f["t"][()], ref.T)
    out = sio.load_hdf5(path)
    assert out["x"].dtype is getattr(xp, name) and same_bits(host(out["x"]), ref)
    assert same_bits(host(out["t"]), ref.T)


@pytest.mark.parametrize("case", ["0d", "empty", "negative", "broadcast", "step", "lazy", "numpy"])
def test_layouts(tmp_path, case):
    base = np.arange(60, dtype=np.float64).reshape(5, 12)
    x = {"0d": xp.asarray(np.float64(2.5)), "empty": xp.asarray(base)[:, 12:],
         "negative": xp.flip(xp.asarray(base), axis=(0, 1)),
         "broadcast": xp.broadcast_to(xp.asarray(base[0]), (4, 12)),
         "step": xp.asarray(base)[::2, 1::3], "lazy": xp.asarray(base) * 3, "numpy": base[::-1].T}[case]
    ref = {"0d": np.array(2.5), "empty": base[:, 12:], "negative": base[::-1, ::-1],
           "broadcast": np.broadcast_to(base[0], (4, 12)), "step": base[::2, 1::3], "lazy": base * 3,
           "numpy": base[::-1].T}[case]
    sio.save_hdf5(tmp_path / "l.h5", {"x": x}, compression="gzip")
    with h5py.File(tmp_path / "l.h5", "r") as f:
        assert same_bits(np.asarray(f["x"][()]), np.array(ref, order="C"))
        assert f["x"].compression == ("gzip" if ref.ndim else None)
    assert same_bits(host(sio.load_hdf5(tmp_path / "l.h5", "x")), np.array(ref, order="C"))


def test_nested_keys_groups_and_key_selection(tmp_path):
    w, b, s = xp.ones((2, 3)), xp.zeros(3), xp.arange(4)
    path = tmp_path / "m.h5"
    sio.save_hdf5(path, {"layer1/weight": w, "layer1": {"bias": b}, "step": s})
    with h5py.File(path, "r") as f:
        assert isinstance(f["layer1"], h5py.Group)
        assert sorted(f["layer1"].keys()) == ["bias", "weight"]
    everything = sio.load_hdf5(path)
    assert sorted(everything) == ["layer1/bias", "layer1/weight", "step"]
    assert same_bits(host(everything["layer1/weight"]), np.ones((2, 3), np.float32))
    assert sorted(sio.load_hdf5(path, "layer1")) == ["bias", "weight"]
    assert sio.load_hdf5(path, "step").tolist() == [0, 1, 2, 3]
    with pytest.raises(KeyError, match="nope"):
        sio.load_hdf5(path, "nope")


def test_compression_and_chunks(tmp_path):
    x = xp.asarray(np.arange(4000, dtype=np.int32).reshape(40, 100))
    sio.save_hdf5(tmp_path / "c.h5", {"x": x}, compression="lzf", chunks=(10, 25))
    with h5py.File(tmp_path / "c.h5", "r") as f:
        assert f["x"].compression == "lzf" and f["x"].chunks == (10, 25)
        assert same_bits(f["x"][()], np.arange(4000, dtype=np.int32).reshape(40, 100))


def test_dimension_names_are_hdf5_labels(tmp_path, set_names):
    x = named(xp.ones((2, 3, 4)), ("batch", None, "cols"))
    path = tmp_path / "n.h5"
    sio.save_hdf5(path, {"x": x, "plain": xp.ones(2)})
    with h5py.File(path, "r") as f:
        assert [d.label for d in f["x"].dims] == ["batch", "", "cols"]
        assert [d.label for d in f["plain"].dims] == [""]
    out = sio.load_hdf5(path)
    assert out["x"]._ext.names == ("batch", None, "cols")
    assert out["plain"]._ext is None
    with sio.open_hdf5(path) as f:
        assert f["x"].names == ("batch", None, "cols")
        part = f["x"][0, :, 1:]
        assert part._ext.names == (None, "cols") and tuple(part.shape) == (3, 3)
        assert f["x"][:, None, 0]._ext.names == ("batch", None, "cols")
        assert f["x"][..., None, ::-1]._ext.names == ("batch", None, None, "cols")


def test_labels_written_by_h5py_become_names(tmp_path, set_names):
    with h5py.File(tmp_path / "h.h5", "w") as f:
        d = f.create_dataset("img", data=np.zeros((2, 3)))
        d.dims[0].label = "rows"
    assert sio.load_hdf5(tmp_path / "h.h5", "img")._ext.names == ("rows", None)


@pytest.mark.parametrize("layout", ["transposed", "flipped", "contiguous"])
def test_writes_need_no_full_copy(tmp_path, monkeypatch, layout):
    base = np.arange(4_000_000, dtype=np.float64).reshape(2000, 2000)  # 32 MB
    x = {"transposed": xp.asarray(base).t(), "flipped": xp.flip(xp.asarray(base), axis=1),
         "contiguous": xp.asarray(base)}[layout]
    ref = {"transposed": base.T, "flipped": base[:, ::-1], "contiguous": base}[layout]
    monkeypatch.setattr(sio._hdf5, "_SLAB_BYTES", 1 << 20)
    tracemalloc.start()
    try:
        sio.save_hdf5(tmp_path / "big.h5", {"x": x})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * (1 << 20), peak  # far below the 32 MB a contiguous copy costs
    with h5py.File(tmp_path / "big.h5", "r") as f:
        assert same_bits(f["x"][()], ref)


def test_slabs_for_rows_larger_than_the_limit(tmp_path, monkeypatch):
    base = np.arange(2 * 3 * 50, dtype=np.int16).reshape(2, 3, 50)
    monkeypatch.setattr(sio._hdf5, "_SLAB_BYTES", 16)  # smaller than one row: split the last axis
    sio.save_hdf5(tmp_path / "s.h5", {"x": xp.flip(xp.asarray(base), axis=2)})
    with h5py.File(tmp_path / "s.h5", "r") as f:
        assert same_bits(f["x"][()], base[:, :, ::-1])


def test_write_into_an_open_group(tmp_path):
    with h5py.File(tmp_path / "g.h5", "w") as f:
        g = f.create_group("model")
        sio.save_hdf5(g, {"w": xp.arange(3)})
        assert f["model/w"][()].tolist() == [0, 1, 2]
    with sio.open_hdf5(tmp_path / "g.h5", "a") as f:
        sio.save_hdf5(f, {"extra": xp.ones(1)})
        sio.save_hdf5(f["model"], {"w": xp.arange(5)})  # replaces the dataset
    out = sio.load_hdf5(tmp_path / "g.h5")
    assert out["model/w"].tolist() == [0, 1, 2, 3, 4] and out["extra"].tolist() == [1.0]


def test_save_hdf5_to_a_path_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "a.h5"
    sio.save_hdf5(path, {"old": xp.arange(2)})
    before = path.read_bytes()
    calls = []
    real = sio._hdf5._write_dataset

    def failing(*args):
        calls.append(1)
        if len(calls) == 2:
            raise OSError("disk full")
        return real(*args)

    monkeypatch.setattr(sio._hdf5, "_write_dataset", failing)
    with pytest.raises(OSError, match="disk full"):
        sio.save_hdf5(path, {"a": xp.ones(3), "b": xp.ones(3)})
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["a.h5"]


def test_save_hdf5_errors(tmp_path):
    with pytest.raises(TypeError, match="wrap it"):
        sio.save_hdf5(tmp_path / "e.h5", xp.ones(2))
    with pytest.raises(TypeError, match="'bad' is a list"):
        sio.save_hdf5(tmp_path / "e.h5", {"bad": [1, 2]})
    with pytest.raises(TypeError, match="keys must be"):
        sio.save_hdf5(tmp_path / "e.h5", {3: xp.ones(2)})
    with pytest.raises(TypeError, match="path"):
        sio.save_hdf5(3.5, {"x": xp.ones(2)})
    with pytest.raises(TypeError, match="does not support"):
        sio.save_hdf5(tmp_path / "e.h5", {"x": np.array(["a"])})
    assert list(tmp_path.iterdir()) == []


def test_unsupported_dataset_dtype(tmp_path):
    with h5py.File(tmp_path / "s.h5", "w") as f:
        f.create_dataset("s", data=np.array([b"ab", b"cd"]))
        f.create_dataset("null", data=h5py.Empty("f4"))
    with pytest.raises(TypeError, match="does not support"):
        sio.load_hdf5(tmp_path / "s.h5", "s")
    with pytest.raises(TypeError, match="null"):
        sio.load_hdf5(tmp_path / "s.h5", "null")


def test_missing_h5py_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "h5py", None)
    for call in (lambda: sio.save_hdf5("x.h5", {}), lambda: sio.load_hdf5("x.h5"),
                 lambda: sio.open_hdf5("x.h5")):
        with pytest.raises(ImportError, match=r"strided\[hdf5\]"):
            call()


# --- open_hdf5: lazy reads --------------------------------------------------------------------------


class CountingFile(io.FileIO):
    """A file that counts the bytes HDF5 reads through it."""

    nread = 0

    def readinto(self, b):
        n = super().readinto(b)
        self.nread += n or 0
        return n

    def read(self, size=-1):
        data = super().read(size)
        self.nread += len(data)
        return data


def test_slice_reads_only_the_slice_from_disk(tmp_path):
    rows = 100_000
    data = np.arange(rows * 8, dtype=np.float64).reshape(rows, 8)  # 6.4 MB
    sio.save_hdf5(tmp_path / "big.h5", {"coords": xp.asarray(data)})
    raw = CountingFile(tmp_path / "big.h5", "r")
    with sio.open_hdf5(raw) as f:
        d = f["coords"]
        assert tuple(d.shape) == (rows, 8) and d.dtype is xp.float64 and len(d) == rows
        before = raw.nread
        last = d[-2:]
        sliced = raw.nread - before
        assert same_bits(host(last), data[-2:])
        assert sliced < data.nbytes // 100, sliced
        before = raw.nread
        whole = d.read()
        assert raw.nread - before >= data.nbytes  # the counter does see full reads
        assert same_bits(host(whole), data)
    raw.close()


@settings(max_examples=120, deadline=None)
@given(idx=hnp.basic_indices(shape=(4, 5, 3), allow_newaxis=True, allow_ellipsis=True))
def test_lazy_indexing_matches_numpy(tmp_path_factory, idx):
    path = tmp_path_factory.getbasetemp() / "idx.h5"
    base = np.arange(60, dtype=np.int32).reshape(4, 5, 3)
    if not path.exists():
        sio.save_hdf5(path, {"x": xp.asarray(base)})
    with sio.open_hdf5(path) as f:
        got = f["x"][idx]
    assert isinstance(got, Array) and same_bits(host(got), np.asarray(base[idx]))


def test_advanced_indices_follow_h5py(tmp_path):
    base = np.arange(20, dtype=np.float32).reshape(5, 4)
    sio.save_hdf5(tmp_path / "a.h5", {"x": xp.asarray(base)})
    with sio.open_hdf5(tmp_path / "a.h5") as f:
        assert same_bits(host(f["x"][[0, 3]]), base[[0, 3]])
        assert same_bits(host(f["x"][xp.asarray([1, 2])]), base[[1, 2]])
        assert same_bits(host(f["x"][:, np.array([True, False, True, False])]), base[:, [0, 2]])
        with pytest.raises((TypeError, ValueError, IndexError), match="can't read index"):
            f["x"][[3, 0]]  # h5py needs increasing indices
        with pytest.raises(IndexError, match="out of bounds"):
            f["x"][5]
        with pytest.raises(IndexError, match="too many indices"):
            f["x"][0, 0, 0]
        with pytest.raises(IndexError, match="valid"):
            f["x"][1.5]


def test_handle_navigation_and_closed_access(tmp_path):
    sio.save_hdf5(tmp_path / "n.h5", {"g/a": xp.arange(3), "b": xp.ones(2)})
    f = sio.open_hdf5(tmp_path / "n.h5")
    assert sorted(f.keys()) == ["b", "g"] and "g" in f and len(f) == 2
    g = f["g"]
    assert isinstance(g, sio.H5Group) and list(g) == ["a"]
    d = g["a"]
    with pytest.raises(KeyError, match="nope"):
        f["nope"]
    f.close()
    assert f.closed
    for access in (lambda: d[0], lambda: d.shape, lambda: d.read(), lambda: f["b"], lambda: g.keys(),
                   lambda: f.keys()):
        with pytest.raises(ValueError, match="closed"):
            access()
    assert "closed" in repr(f) and "closed" in repr(d)
    f.close()  # closing twice is fine


def test_handle_writes_need_a_writable_mode(tmp_path):
    sio.save_hdf5(tmp_path / "w.h5", {"x": xp.zeros(4)})
    with sio.open_hdf5(tmp_path / "w.h5") as f:
        with pytest.raises(ValueError, match="read-only"):
            f["x"][0] = 1.0
    with sio.open_hdf5(tmp_path / "w.h5", "r+") as f:
        f["x"][1:3] = xp.asarray([5.0, 6.0], dtype=xp.float32)
    with h5py.File(tmp_path / "w.h5", "r") as f:
        assert f["x"][()].tolist() == [0.0, 5.0, 6.0, 0.0]
    with pytest.raises(ValueError, match="mode"):
        sio.open_hdf5(tmp_path / "w.h5", "rw")
