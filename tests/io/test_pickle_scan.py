"""The weights-only scan of a pickled root (strided/io/_native.py, ``_scan_pickle``) walks the
opcodes as ``pickletools.genops`` does, but reads GLOBAL/INST/PERSID lines as the unpickler
does (plain UTF-8, no escapes) and refuses protocol 0's escaped STRING before decoding it: no
DeprecationWarning from codecs.escape_decode on a hostile file, and the same refusals."""

from __future__ import annotations

import io
import pickle
import pickletools
import sys
import warnings
from pathlib import Path

import pytest

import strided as xp
from strided.io import _native

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reliability"))
import fuzz_corpus as C  # noqa: E402


@pytest.mark.parametrize("obj", [{"a": [1, 2.5, "x"], "b": (None, True)}, list(range(300)), "é" * 5,
                                 b"\x00\xff" * 10])
@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
def test_opcodes_are_genops(obj, protocol):
    payload = pickle.dumps(obj, protocol=protocol)  # (protocol 0 writes str as UNICODE, not STRING)
    ours = [(op.name, arg) for op, arg in _native._opcodes(payload)]
    theirs = [(op.name, arg) for op, arg, _ in pickletools.genops(payload)]
    assert ours == theirs


@pytest.mark.parametrize("payload", [b"", b"\x80\x04", b"\xff.", b"\x80\x04K"])
def test_malformed_pickles_raise_valueerror_like_genops(payload):
    with pytest.raises(ValueError):
        list(pickletools.genops(payload))
    with pytest.raises(ValueError):
        list(_native._opcodes(payload))


def test_protocol0_string_with_invalid_escapes_is_refused_without_a_warning():
    payload = b"S'\\i\\o'\np0\n."  # a STRING opcode whose escapes codecs would warn about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(xp.io.RefusedError, match="STRING"):
            _native._scan_pickle(payload)
        base = C.native_corpus()[0]
        with pytest.raises(xp.io.RefusedError, match="STRING"):
            xp.load(io.BytesIO(C.with_pickle_root(base, payload)))
    # and genops itself does warn on it (the reason for the check above)
    with pytest.warns(DeprecationWarning):
        list(pickletools.genops(payload))


@pytest.mark.parametrize("payload", [b"cbuiltins\\o\neval\n.", b"c\\\nx\n.", b"ibuiltins\neval\\i\n)."])
def test_global_names_with_backslashes_are_refused_without_a_warning(payload):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(xp.io.RefusedError, match=r"\\"):
            _native._scan_pickle(payload)


def test_safe_globals_still_load():
    # protocol-2 pickles (GLOBAL opcodes, newline-ended names) of the allowed constructors
    import collections

    for obj in [collections.OrderedDict(a=1), {frozenset({1, 2}), 3}, [complex(1, 2), range(3), slice(1, 2)]]:
        payload = pickle.dumps(obj, protocol=2, fix_imports=False)  # (builtins, not __builtin__)
        assert any(op.name == "GLOBAL" for op, _ in _native._opcodes(payload))
        _native._scan_pickle(payload)  # no refusal
        assert pickle.loads(payload) == obj
