"""Valid files to start from, and the mutations the loader fuzz tests apply.

Imported by test_fuzz_loaders.py and run as a script by its HDF5 worker
process (``python fuzz_corpus.py hdf5-worker CASES_FILE RESULTS_FILE``).
"""

from __future__ import annotations

import base64
import collections
import io
import json
import pickle
import random
import struct
import sys
import zlib

import numpy as np

import strided as xp
from strided.io import _native as S
from strided import io as sio

INTERESTING = [-1, 0, 1, 2, 3, 7, 63, 64, 255, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 62, 2 ** 63,
               -(2 ** 63), 10 ** 30, 1.5, -0.0, None, True, "", "float32", "cpu", "cuda:9", [], {}]


def native_corpus() -> list[bytes]:
    """A few valid strided files covering the format's node kinds."""
    a = xp.arange(24.0).reshape(4, 6)
    objs = [
        xp.arange(10),
        {"w": a, "t": a.T, "row": a[1], "step": a[::2, ::3], "flip": xp.flip(a, axis=0)},
        [xp.ones(3, dtype=xp.complex64), xp.zeros((2, 0)), xp.asarray(3.5), xp.asarray([True, False])],
        {"n": 1, "f": 2.5, "c": 1 - 2j, "s": "text", "b": b"\x00\x01", "none": None, "t": (1, [2, {"x": 3}]),
         "d": xp.float64, "dev": xp.Device("cpu"), "size": xp.Size([2, 3]), "np": np.arange(4, dtype=np.int16),
         "npscalar": np.float32(1.25)},
        {"set": {1, 2}, "fs": frozenset("ab"), "ba": bytearray(b"xyz"), "od": collections.OrderedDict(a=1),
         "r": range(3), "sl": slice(1, 5, 2)},
        {"st": a.storage(), "v": a[2:]},
    ]
    out = []
    for o in objs:
        buf = io.BytesIO()
        xp.save(o, buf)
        out.append(buf.getvalue())
    named = xp.zeros((2, 3), names=("a", "b")) if "names" in xp.zeros.__code__.co_varnames else xp.zeros((2, 3))
    buf = io.BytesIO()
    xp.save({"named": named, "g": xp.ones(2, requires_grad=True)}, buf)
    out.append(buf.getvalue())
    return out


def split(data: bytes):
    """(preamble fields, header dict, the bytes after the header's padding)."""
    magic, version, crc, hlen, total = S._PREAMBLE.unpack(data[:S._PREAMBLE.size])
    h = json.loads(data[S._PREAMBLE.size:S._PREAMBLE.size + hlen])
    return (magic, version, total), h, data[S._align(S._PREAMBLE.size + hlen):]


def join(fields, h, rest, *, raw_header: bytes | None = None, fix_total=True) -> bytes:
    """A file with header ``h`` (or the bytes ``raw_header``) and a correct header checksum."""
    magic, version, total = fields
    header = raw_header if raw_header is not None else _deep(json.dumps(h, separators=(",", ":"))).encode()
    start = S._align(S._PREAMBLE.size + len(header))
    if fix_total:
        total = start + len(rest)
    out = S._PREAMBLE.pack(magic, version, zlib.crc32(header), len(header), total) + header
    return out + bytes(start - len(out)) + rest


def _deep(text: str) -> str:
    import re
    return re.sub(r'"@DEEP(\d+)@"', lambda m: '{"t":"list","v":[' * int(m.group(1)) + '{"t":"none"}'
                  + "]}" * int(m.group(1)), text)


def _nodes(obj):
    """Every (container, key) in a JSON value (iteratively: mutated trees may be deep)."""
    out, todo = [], [obj]
    while todo:
        o = todo.pop()
        items = o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else ()
        for k, v in items:
            out.append((o, k))
            todo.append(v)
    return out


def mutate_header(h, rng: random.Random):
    """Change 1-3 values of the header (structure kept valid JSON, checksums fixed later)."""
    for _ in range(rng.randint(1, 3)):
        spots = _nodes(h)
        if not spots:
            return h
        cont, key = rng.choice(spots)
        r = rng.random()
        if r < 0.6:
            cont[key] = rng.choice(INTERESTING)
        elif r < 0.75 and isinstance(cont, dict):
            del cont[key]
        elif r < 0.85 and isinstance(cont[key], list) and cont[key]:
            cont[key] = cont[key] * rng.choice([0, 2, 50])
        elif r < 0.95 and isinstance(cont[key], str) and cont[key]:
            s = cont[key]
            i = rng.randrange(len(s))
            cont[key] = s[:i] + chr(rng.randrange(32, 127)) + s[i + 1:]
        else:  # deep nesting, spliced in as text by join() (json.dumps itself would recurse)
            cont[key] = f"@DEEP{rng.choice([5, 300, 3000, 100000])}@"
    return h


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    kind = rng.random()
    if kind < 0.4:  # flip bytes anywhere
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind < 0.7:  # truncate
        return bytes(b[:rng.randrange(len(b))])
    if kind < 0.85:  # insert or delete a run
        i = rng.randrange(len(b))
        if rng.random() < 0.5:
            return bytes(b[:i] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))) + b[i:])
        return bytes(b[:i] + b[i + rng.randint(1, 64):])
    # overwrite a 4- or 8-byte field with an extreme value
    i = rng.randrange(max(1, len(b) - 8))
    b[i:i + 8] = struct.pack("<q", rng.choice([0, -1, 2 ** 62, 2 ** 31, 1, 64]))
    return bytes(b[:len(data)])


PLAIN_PICKLES = [
    {1, 2, 3}, frozenset([b"a", "b"]), bytearray(b"abc" * 10), collections.OrderedDict(a=[1, 2], b=(3,)),
    [1 + 2j, slice(1, None), range(2, 9, 3)], {"k": {frozenset([1]): set()}},
]


def pickle_payloads() -> list[bytes]:
    return [pickle.dumps(o, protocol=p) for o in PLAIN_PICKLES for p in (2, 4, 5)]


def with_pickle_root(base: bytes, payload: bytes) -> bytes:
    fields, h, rest = split(base)
    h["root"] = {"t": "pickle", "v": base64.b64encode(payload).decode()}
    return join(fields, h, rest)


# --- HDF5 ------------------------------------------------------------------------------------

def hdf5_corpus(directory) -> list[bytes]:
    import os
    out = []
    a = xp.arange(60.0).reshape(6, 10)
    for i, (kw, m) in enumerate([({}, {"a": a, "g/b": xp.arange(5), "g/h/c": xp.ones(3, dtype=xp.complex64)}),
                                 ({"compression": "gzip", "chunks": True}, {"z": a, "i": xp.arange(100)}),
                                 ({}, {"s": xp.asarray(2.5), "e": xp.zeros((0, 3))})]):
        p = os.path.join(directory, f"c{i}.h5")
        sio.save_hdf5(p, m, **kw)
        with open(p, "rb") as f:
            out.append(f.read())
    return out


ALLOWED_HDF5 = (sio.FormatError,)


def _hdf5_case(path) -> str:
    try:
        out = sio.load_hdf5(path)
        for v in out.values():
            np.asarray(v.cpu().numpy()).sum()
        with sio.open_hdf5(path) as f:
            for k in f.keys():
                obj = f[k]
                if isinstance(obj, sio.H5Dataset) and obj.ndim:
                    obj[:1]
        return "ok"
    except sio.FormatError:
        return "FormatError"
    except TypeError as e:
        if "does not support" in str(e) or "null" in str(e) or "not a dataset or a group" in str(e):
            return "TypeError (not an array)"
        return f"UNEXPECTED TypeError: {e}"
    except Exception as e:  # noqa: BLE001 - the point is to catch what slipped through
        return f"UNEXPECTED {type(e).__name__}: {str(e)[:200]}"


def hdf5_worker(cases_dir, results_file, start):
    """Load each case file in ``cases_dir`` from index ``start``, appending one result line each."""
    import os
    names = sorted(os.listdir(cases_dir))
    with open(results_file, "a") as out:
        for name in names[start:]:
            out.write(f"{name}\t{_hdf5_case(os.path.join(cases_dir, name))}\n")
            out.flush()


if __name__ == "__main__":
    if sys.argv[1] == "hdf5-worker":
        hdf5_worker(sys.argv[2], sys.argv[3], int(sys.argv[4]))
