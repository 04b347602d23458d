"""save(fsync=) and load(verify=), and the threaded record checksums (behaviour only, no timing).

References: ``zlib.crc32`` of the whole record (the footer's value per
docs/format.md, found here with an independent parse of the bytes), the
bytes a one-thread save writes, and files corrupted by hand.
"""

from __future__ import annotations

import io
import json
import os
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided.io import _native as ser

from conftest import host


def _bytes(obj, **kw) -> bytes:
    buf = io.BytesIO()
    xp.save(obj, buf, **kw)
    return buf.getvalue()


def _records(data: bytes):
    """(data start, header, footer CRCs) of a one-container file, parsed from docs/format.md."""
    hlen = struct.unpack_from("<Q", data, 16)[0]
    header = json.loads(data[32:32 + hlen])
    start = -(-(32 + hlen) // 64) * 64
    n = len(header["storages"])
    crcs = struct.unpack_from(f"<{n}I", data, len(data) - 4 * (n + 1))
    return start, header, crcs


@pytest.fixture
def many_threads(monkeypatch):
    """Checksum on three worker threads, in parts of 4 KiB, even for small files."""
    monkeypatch.setattr(ser, "_THREADED_CRC", 0)
    monkeypatch.setattr(ser, "_CRC_INLINE", False)  # threads even with the C checksum
    monkeypatch.setattr(ser, "_CRC_PART", 4096)
    monkeypatch.setattr(ser, "_CHUNK", 3 * 4096 + 8)  # chunks that don't end on a part boundary
    old = xp.get_num_threads()
    xp.set_num_threads(3)
    yield
    xp.set_num_threads(old)


def _sample():
    rng = np.random.default_rng(7)
    return {"a": xp.asarray(rng.standard_normal(20_000).astype(np.float32)),
            "b": xp.asarray(rng.integers(0, 1000, (50, 301))),
            "c": xp.asarray(np.arange(5, dtype=np.float64))}


# --- CRC-32 combination ------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=3000), cut=st.integers(0, 3000))
def test_crc_combine_equals_crc_of_concatenation(data, cut):
    a, b = data[:cut], data[cut:]
    assert ser._crc32_combine(zlib.crc32(a), zlib.crc32(b), len(b)) == zlib.crc32(data)


def test_threaded_checksums_write_the_same_file(many_threads):
    obj = _sample()
    threaded = _bytes(obj)
    start, header, crcs = _records(threaded)
    for r, crc in zip(header["storages"], crcs):
        nbytes = r["numel"] * np.dtype(r["dtype"]).itemsize
        assert crc == zlib.crc32(threaded[start + r["offset"]:start + r["offset"] + nbytes])
    xp.set_num_threads(1)
    assert _bytes(obj) == threaded  # one worker: same bytes
    ser._THREADED_CRC = 1 << 40
    assert _bytes(obj) == threaded  # inline: same bytes


def test_threaded_checksums_reject_corrupted_records(many_threads):
    data = bytearray(_bytes(_sample()))
    start, header, _ = _records(bytes(data))
    out = xp.load(io.BytesIO(bytes(data)))
    assert np.array_equal(host(out["b"]), host(_sample()["b"]))
    for rec in header["storages"]:
        nbytes = rec["numel"] * np.dtype(rec["dtype"]).itemsize
        bad = bytearray(data)
        bad[start + rec["offset"] + (4096 + 5 if nbytes > 4096 + 5 else 0)] ^= 0x04  # a later part
        with pytest.raises(ValueError, match="corrupted"):
            xp.load(io.BytesIO(bytes(bad)))


# --- save(fsync=) ------------------------------------------------------------------


@pytest.fixture
def fsyncs(monkeypatch):
    calls = []
    real = os.fsync

    def counting(fd):
        calls.append(fd)
        return real(fd)
    monkeypatch.setattr(ser.os, "fsync", counting)
    return calls


def test_save_fsyncs_by_default(tmp_path, fsyncs):
    xp.save(_sample(), tmp_path / "a.strd")
    assert len(fsyncs) >= 1  # the file (and, where possible, its directory)


def test_save_fsync_false_skips_fsync_and_writes_the_same_file(tmp_path, fsyncs):
    obj = _sample()
    xp.save(obj, tmp_path / "a.strd")
    n = len(fsyncs)
    xp.save(obj, tmp_path / "b.strd", fsync=False)
    assert len(fsyncs) == n
    assert (tmp_path / "a.strd").read_bytes() == (tmp_path / "b.strd").read_bytes() == _bytes(obj)
    assert sorted(os.listdir(tmp_path)) == ["a.strd", "b.strd"]  # no temporary left behind


def test_save_fsync_false_still_replaces_atomically(tmp_path, monkeypatch):
    p = tmp_path / "a.strd"
    xp.save({"old": xp.ones(3)}, p, fsync=False)
    old = p.read_bytes()

    def fail(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(ser, "_write_all", fail)
    with pytest.raises(OSError, match="unchanged"):
        xp.save({"new": xp.zeros(3)}, p, fsync=False)
    assert p.read_bytes() == old
    assert os.listdir(tmp_path) == ["a.strd"]


def test_file_objects_are_never_fsynced(tmp_path, fsyncs):
    with open(tmp_path / "a.strd", "wb") as f:
        xp.save(_sample(), f, fsync=True)
    assert fsyncs == []


@pytest.mark.parametrize("bad", [1, None, "yes"])
def test_flags_must_be_bools(bad):
    with pytest.raises(TypeError, match="fsync"):
        xp.save(xp.ones(2), io.BytesIO(), fsync=bad)
    with pytest.raises(TypeError, match="verify"):
        xp.load(io.BytesIO(_bytes(xp.ones(2))), verify=bad)


# --- load(verify=) -----------------------------------------------------------------


def _flip_in_record(data: bytes, which: int = 0) -> bytes:
    start, header, _ = _records(data)
    bad = bytearray(data)
    bad[start + header["storages"][which]["offset"] + 2] ^= 0x40
    return bytes(bad)


def test_verify_is_on_by_default():
    bad = _flip_in_record(_bytes(_sample()))
    with pytest.raises(ValueError, match="storage record 0 is corrupted"):
        xp.load(io.BytesIO(bad))
    with pytest.raises(ValueError, match="corrupted"):
        xp.load(io.BytesIO(bad), verify=True)


def test_verify_false_loads_damaged_data_as_it_is():
    obj = _sample()
    bad = _flip_in_record(_bytes(obj))
    out = xp.load(io.BytesIO(bad), verify=False)
    got, want = host(out["a"]), host(obj["a"])
    assert got.view(np.uint32)[0] == want.view(np.uint32)[0] ^ (0x40 << 16)  # the flipped bit
    assert np.array_equal(got[1:], want[1:])
    assert np.array_equal(host(out["b"]), host(obj["b"]))


@pytest.mark.parametrize("verify", [True, False])
def test_verify_false_still_checks_structure(verify):
    data = _bytes(_sample())
    with pytest.raises(ValueError, match="truncated"):
        xp.load(io.BytesIO(data[:-20]), verify=verify)
    bad = bytearray(data)
    bad[40] ^= 0x01  # inside the header
    with pytest.raises(ValueError, match="header is corrupted"):
        xp.load(io.BytesIO(bytes(bad)), verify=verify)
    bad = bytearray(data)
    bad[-1] ^= 0x01  # the footer's own checksum
    with pytest.raises(ValueError, match="footer"):
        xp.load(io.BytesIO(bytes(bad)), verify=verify)


def test_verify_false_round_trips(tmp_path):
    obj = _sample()
    xp.save(obj, tmp_path / "a.strd", fsync=False)
    out = xp.load(tmp_path / "a.strd", verify=False)
    for k in obj:
        assert np.array_equal(host(out[k]), host(obj[k]))
        assert out[k].dtype == obj[k].dtype


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "replace"])
def test_fsync_false_over_an_existing_file(tmp_path, monkeypatch, exchange):
    if not exchange:
        monkeypatch.setattr(ser, "_RENAMEAT2", [None])  # systems without renameat2
    real = tmp_path / "real.strd"
    link = tmp_path / "link.strd"
    xp.save({"old": xp.ones(3)}, real)
    os.chmod(real, 0o640)
    link.symlink_to(real)
    obj = _sample()
    xp.save(obj, link, fsync=False)
    assert link.is_symlink()  # the symlink's target was replaced, not the link
    assert real.read_bytes() == _bytes(obj)
    assert os.stat(real).st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == ["link.strd", "real.strd"]
    out = xp.load(real)
    assert np.array_equal(host(out["b"]), host(obj["b"]))


def test_fsync_save_starts_writeback_as_it_writes(tmp_path, monkeypatch):
    # save(fsync=True) asks the kernel to start writing each new stretch of the file
    # (sync_file_range); the ranges follow each other without gaps or overlaps, within
    # the file, and the file is the same as one written without them.
    calls = []

    def fake(fd, offset, nbytes, flags):
        calls.append((offset, nbytes, flags, os.fstat(fd).st_size))
        return 0

    monkeypatch.setattr(ser, "_SYNC_FILE_RANGE", [fake])
    monkeypatch.setattr(ser, "_WRITEBACK_STEP", 10_000)
    monkeypatch.setattr(ser, "_CHUNK", 4096)
    obj = _sample()
    xp.save(obj, tmp_path / "a.st")
    assert len(calls) >= 5
    pos = calls[0][0]
    for offset, nbytes, flags, size in calls:
        assert offset == pos and nbytes >= 10_000 and flags == 2 and offset + nbytes <= size
        pos += nbytes
    n_fsync = len(calls)
    xp.save(obj, tmp_path / "b.st", fsync=False)
    assert len(calls) == n_fsync  # fsync=False: nothing to wait for, nothing started early
    assert (tmp_path / "a.st").read_bytes() == (tmp_path / "b.st").read_bytes() == _bytes(obj)


def test_fsync_save_without_sync_file_range(tmp_path, monkeypatch):
    monkeypatch.setattr(ser, "_SYNC_FILE_RANGE", [None])  # systems without it
    obj = _sample()
    xp.save(obj, tmp_path / "a.st")
    assert (tmp_path / "a.st").read_bytes() == _bytes(obj)
