"""The file format's CRC-32 (``_cio.crc32`` where built, else ``zlib.crc32``) and the
load path that checksums each chunk as it is read (behaviour only, no timing).

References: ``zlib.crc32`` (the checksum docs/format.md specifies), files
written by the previous format code (the same bytes: the format did not
change) and files corrupted by hand, one flipped byte in every region of
every chunk the loader reads.
"""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided.io import _native as ser

from conftest import host

try:
    from strided._csrc import _cio
except ImportError:  # not built (no compiler): the zlib fallback is all there is
    _cio = None

needs_cio = pytest.mark.skipif(_cio is None, reason="strided._csrc._cio is not built")


@pytest.fixture(params=["wide", "128-bit"])
def cio(request):
    """The C checksum on its 512-bit path (where the CPU has it) and on its 128-bit path."""
    if _cio is None:
        pytest.skip("strided._csrc._cio is not built")
    was = _cio.set_wide(request.param == "wide")
    yield _cio
    _cio.set_wide(was)


# --- the C checksum against zlib ----------------------------------------------------


@needs_cio
@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=2000), value=st.integers(0, 2**32 - 1), wide=st.booleans())
def test_cio_crc32_is_zlib_crc32(data, value, wide):
    was = _cio.set_wide(wide)
    try:
        assert _cio.crc32(data, value) == zlib.crc32(data, value)
        assert _cio.crc32(data) == zlib.crc32(data)
    finally:
        _cio.set_wide(was)


def test_cio_crc32_every_length_and_alignment(cio):
    # Every length through the 16-, 64- and 256-byte steps and their tails, at every
    # alignment of a 16-byte vector.
    buf = np.random.default_rng(3).integers(0, 256, 1200, dtype=np.uint8)
    for start in range(16):
        for n in range(0, 700):
            b = buf[start:start + n]
            assert cio.crc32(b, 0x12345678) == zlib.crc32(b, 0x12345678), (start, n)


@pytest.mark.parametrize("n", [1 << 16, (1 << 16) + 15, 3 * (1 << 20) + 77])
def test_cio_crc32_large_buffers(cio, n):
    # From 64 KiB on the GIL is released: the same value.
    b = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8)
    assert cio.crc32(b) == zlib.crc32(b)
    assert cio.crc32(memoryview(b)[5:], 99) == zlib.crc32(memoryview(b)[5:], 99)
    assert cio.crc32(b.view(np.float32) if n % 4 == 0 else b) == zlib.crc32(b)


def test_cio_crc32_chains_like_zlib(cio):
    data = np.random.default_rng(5).integers(0, 256, 100_003, dtype=np.uint8).tobytes()
    c = 0
    for i in range(0, len(data), 777):
        c = cio.crc32(data[i:i + 777], c)
    assert c == zlib.crc32(data)


@needs_cio
def test_cio_crc32_rejects_bad_arguments():
    with pytest.raises((BufferError, TypeError, ValueError), match="contiguous"):
        _cio.crc32(np.arange(100, dtype=np.uint8)[::2])
    with pytest.raises(TypeError):
        _cio.crc32("text")
    for bad in (-1, 2**32, 2**80):
        with pytest.raises(ValueError, match="0..2\\*\\*32-1"):
            _cio.crc32(b"abc", bad)
    with pytest.raises(TypeError):
        _cio.crc32(b"abc", 1.5)


def test_format_checksum_follows_the_environment():
    # The C checksum where it is built and the CPU has it, unless STRIDED_NO_CEXT=1;
    # zlib otherwise. Either way it is zlib's CRC-32 (the files are the same).
    env = dict(os.environ, STRIDED_NO_CEXT="1")
    code = "import zlib; from strided.io import _native as s; print(s._crc32 is zlib.crc32)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
    if os.environ.get("STRIDED_NO_CEXT", "") not in ("", "0") or _cio is None or not _cio.CLMUL:
        assert ser._crc32 is zlib.crc32
    else:
        assert ser._crc32 is _cio.crc32
    data = os.urandom(5000)
    assert ser._crc32(data, 7) == zlib.crc32(data, 7)


# --- the load path: every corrupted chunk region is caught ------------------------------


def _layout(data: bytes):
    """(data start, header) of a one-container file, parsed from docs/format.md."""
    hlen = struct.unpack_from("<Q", data, 16)[0]
    return -(-(32 + hlen) // 64) * 64, json.loads(data[32:32 + hlen])


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 4 KiB + 40 bytes (not a multiple of 16 or 256: every step of the
    checksum and its tail runs in every chunk)."""
    monkeypatch.setattr(ser, "_CHUNK", 4096 + 40)
    return 4096 + 40


def _offsets(chunk: int, nbytes: int):
    """Bytes to flip in each chunk of a record: first, inside the 256-byte steps, in the
    16-byte steps after them, in the last (< 16-byte) tail, last."""
    for c0 in range(0, nbytes, chunk):
        n = min(chunk, nbytes - c0)
        for off in (0, 100, n - n % 256 + 3, n - (n % 16) - 5, n - (n % 16) + 1, n - 1):
            if 0 <= off < n:
                yield c0 + off


@pytest.mark.parametrize("where", ["path", "file", "bytesio"])
def test_a_flipped_byte_in_any_chunk_region_is_caught(tmp_path, small_chunks, cio, where):
    rng = np.random.default_rng(11)
    obj = {"w": xp.asarray(rng.standard_normal(3 * 4096 // 4 + 37).astype(np.float32)),
           "i": xp.asarray(rng.integers(0, 2**40, 999))}
    path = tmp_path / "m.st"
    xp.save(obj, path)
    data = path.read_bytes()
    start, header = _layout(data)
    loaded = xp.load(path)
    for k in obj:
        assert np.array_equal(host(loaded[k]), host(obj[k]))
    flipped = 0
    for ri, rec in enumerate(header["storages"]):
        nbytes = rec["numel"] * np.dtype(rec["dtype"]).itemsize
        for off in _offsets(small_chunks, nbytes):
            bad = bytearray(data)
            bad[start + rec["offset"] + off] ^= 0x10
            if where == "bytesio":
                src = io.BytesIO(bytes(bad))
            else:
                (tmp_path / "bad.st").write_bytes(bytes(bad))
                src = tmp_path / "bad.st" if where == "path" else open(tmp_path / "bad.st", "rb")
            try:
                with pytest.raises(ValueError, match=f"record {ri} is corrupted"):
                    xp.load(src)
                # verify=False loads the damaged byte as it is
                if hasattr(src, "seek"):
                    src.seek(0)
                out = xp.load(src, verify=False)
            finally:
                if hasattr(src, "close") and where == "file":
                    src.close()
            got = np.concatenate([host(out[k]).view(np.uint8).reshape(-1) for k in ("w", "i")])
            want = np.concatenate([host(obj[k]).view(np.uint8).reshape(-1) for k in ("w", "i")])
            assert (got != want).sum() == 1
            flipped += 1
    assert flipped >= 2 * 6  # at least every region of every chunk of each record


def test_a_flipped_byte_in_a_large_record_is_caught(tmp_path, cio):
    # Default chunk size: a record of several chunks, a byte flipped in the last one.
    n = 3 * ser._CHUNK // 4 + 5
    a = xp.asarray(np.random.default_rng(2).standard_normal(n).astype(np.float32))
    path = tmp_path / "big.st"
    xp.save(a, path)
    data = bytearray(path.read_bytes())
    start, _ = _layout(bytes(data))
    assert np.array_equal(host(xp.load(path)), host(a))
    for off in (0, ser._CHUNK - 1, ser._CHUNK, 2 * ser._CHUNK + 17, 4 * n - 1):
        bad = bytearray(data)
        bad[start + off] ^= 0x80
        (tmp_path / "bad.st").write_bytes(bytes(bad))
        with pytest.raises(ValueError, match="record 0 is corrupted"):
            xp.load(tmp_path / "bad.st")


def test_loads_reuse_pooled_memory_and_stay_correct(tmp_path):
    # The loaded array's buffer may come from the caching pool (a buffer a freed array
    # left behind): every byte of it is the file's, none is left from the old array.
    a = np.random.default_rng(4).standard_normal(1 << 18).astype(np.float32)  # 1 MiB
    path = tmp_path / "p.st"
    xp.save(a, path)
    for _ in range(3):
        junk = xp.full((1 << 18,), 7.0, dtype=xp.float32)
        del junk  # its buffer goes back to the pool, full of 7.0
        out = xp.load(path)
        assert np.array_equal(host(out), a)
        del out


def test_files_are_unchanged_by_the_checksum_in_use(monkeypatch):
    # zlib and the C checksum write byte-identical files.
    obj = {"a": xp.arange(70_000, dtype=xp.float32), "b": [1, "x", xp.ones((3, 300))]}
    buf = io.BytesIO()
    xp.save(obj, buf)
    monkeypatch.setattr(ser, "_crc32", zlib.crc32)
    ref = io.BytesIO()
    xp.save(obj, ref)
    assert buf.getvalue() == ref.getvalue()
    buf.seek(0)
    assert np.array_equal(host(xp.load(buf)["a"]), np.arange(70_000, dtype=np.float32))
