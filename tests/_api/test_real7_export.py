"""``np.asarray(x)`` of an array already handed to NumPy (issue 38, real7: SciPy converts its
inputs on every call; the export registry now finds a Storage it holds without a new weakref
or the lock). The registry must still hold each exported Storage once, find it again for a
native built from the exported memory later (shared, as NumPy's own views share), and stay
right under threads and after Storages die."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import strided as xp
from strided._core.call import adopt

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

CPU = xp.Device("cpu")


def _live(st):
    key = id(adopt._root(st._data))
    return [r for r in adopt._EXPORTED.get(key, []) if r() is not None]


def test_reexport_registers_once_and_views_come_back_shared():
    x = xp.asarray(np.arange(12.0).reshape(3, 4), device=CPU)
    a1 = np.asarray(x)
    a2 = np.asarray(x)
    assert np.shares_memory(a1, a2)
    st = x.storage()
    assert [r() for r in _live(st)] == [st]
    # a native made from the exported memory is adopted over the same Storage
    y = xp.asarray(np.asarray(x)[::-1, 1:], device=CPU)
    assert y.storage() is st
    np.testing.assert_array_equal(np.asarray(y), a1[::-1, 1:])
    y[0, 0] = -1.0
    assert a1[2, 1] == -1.0


def test_export_after_storages_died_and_under_threads():
    for _ in range(50):
        t = xp.asarray(np.ones(7), device=CPU)
        np.asarray(t)
        del t
    gc.collect()
    xs = [xp.asarray(np.full(5, float(i)), device=CPU) for i in range(8)]
    errors = []

    def work(i):
        try:
            for _ in range(200):
                v = np.asarray(xs[i % len(xs)])
                assert v[0] == float(i % len(xs))
        except Exception as e:  # (reported below)
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    for x in xs:
        assert [r() for r in _live(x.storage())] == [x.storage()]
        back = xp.asarray(np.asarray(x)[1:], device=CPU)
        assert back.storage() is x.storage()


def test_two_storages_over_one_memory_are_both_registered():
    # x.view(int64): another Storage over the same root memory; each export registers its own
    x = xp.asarray(np.arange(4.0), device=CPU)
    v = x.view(xp.int64)
    assert v.storage() is not x.storage()
    np.asarray(x)
    np.asarray(v)
    np.asarray(x)
    live = _live(x.storage())
    assert sorted(map(id, (r() for r in live))) == sorted((id(x.storage()), id(v.storage())))
    back = xp.asarray(np.asarray(v)[1:], device=CPU)
    assert back.storage() is v.storage() and back.dtype == xp.int64
