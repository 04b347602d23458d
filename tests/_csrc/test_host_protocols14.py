"""Two protocols the compiled hot path answers in C for the host (issue 38, stop 54), each
against what Python's own definition gives:

- ``hash`` of a strided DType: the class's ``tp_hash`` reads its ``_hash`` slot (_chot's
  dtype_hash) instead of calling ``DType.__hash__``; the value must stay the NumPy dtype's
  hash (a DType compares equal to its NumPy dtype, so dicts and sets keyed by either find
  the other), and assigning ``__hash__`` on a subclass must be honoured as Python honours it.
- The host backend's device context (``backend.ctx``): a context manager that does nothing,
  as ``contextlib.nullcontext()``: ``__enter__`` gives None, ``__exit__`` suppresses nothing.

They run with and without the C extension (STRIDED_NO_CEXT=1): the outcome is the same.
"""

import contextlib

import numpy as np
import pytest

import strided as xp
from strided._core import dtypes as _dtypes
from strided._core.device import Device

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_ALL = [xp.bool, xp.int8, xp.int16, xp.int32, xp.int64, xp.uint8, xp.uint16, xp.uint32,
        xp.uint64, xp.float32, xp.float64, xp.complex64, xp.complex128]


@pytest.mark.parametrize("d", _ALL, ids=lambda d: d.name)
def test_dtype_hash_is_numpys(d):
    nd = np.dtype(d.name)
    assert hash(d) == hash(nd) == d.__hash__()
    assert {nd: "numpy"}[d] == "numpy" and {d: "ours"}[nd] == "ours"
    assert d in {nd} and nd in {d}
    assert (d, d) in {(nd, nd): 1}


def test_dtype_hash_of_an_unset_or_replaced_slot_is_the_methods():
    """A DType whose _hash slot is not an int (a subclass that overrides __hash__, or an
    instance whose slot was deleted) hashes as Python would: by its __hash__ method."""

    class Odd(_dtypes.DType):
        __slots__ = ()

        def __hash__(self):
            return 12345

    odd = Odd("float32", np.float32, "f", xp.float32._index)
    assert hash(odd) == 12345

    bare = _dtypes.DType("float32", np.float32, "f", xp.float32._index)
    del bare._hash
    with pytest.raises(AttributeError, match="_hash"):
        hash(bare)
    bare._hash = 2**70  # (beyond a C hash: Python hashes the int the method returns)
    assert hash(bare) == hash(2**70)
    bare._hash = -1  # (-1 means an error in C: Python's slot gives -2)
    assert hash(bare) == -2


def test_host_context_does_nothing():
    ctx = Device("cpu").backend.ctx(Device("cpu"))
    with ctx as v:
        assert v is None
    with pytest.raises(KeyError, match="inside"):
        with ctx:
            raise KeyError("inside")
    assert ctx.__exit__(None, None, None) in (False, None)
    with ctx, contextlib.nullcontext():  # (and it nests, reentrant)
        with ctx:
            pass
