"""``storage_offset()`` of a slice, empty ones included, is PyTorch's: an empty slice starts where
it would (``x[5:5]`` at 5, ``x[12:]`` of 10 elements at 10), as PyTorch's; strided gave 0. Slices
with positive steps (PyTorch has no others) of 1-3 dimensional arrays, against PyTorch 2.13."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402

_bound = hs.one_of(hs.none(), hs.integers(-12, 12))


@hs.composite
def cases(draw):
    shape = tuple(draw(hs.lists(hs.integers(0, 6), min_size=1, max_size=3)))
    key = []
    for n in shape:
        if draw(hs.booleans()) and n:
            key.append(draw(hs.integers(-n, n - 1)))
        else:
            key.append(slice(draw(_bound), draw(_bound), draw(hs.one_of(hs.none(), hs.integers(1, 3)))))
    return shape, tuple(key[:draw(hs.integers(1, len(shape)))])


@settings(max_examples=400, deadline=None)
@given(case=cases())
def test_slices_start_where_pytorchs_do(case):
    shape, key = case
    n = 1
    for m in shape:
        n *= m
    x, t = S.arange(n).reshape(shape), torch.arange(n).reshape(shape)
    for base_s, base_t in ((x, t), (x[..., :], t[..., :])):
        vs, vt = base_s[key], base_t[key]
        assert tuple(vs.shape) == tuple(vt.shape), key
        assert vs.storage_offset() == vt.storage_offset(), (shape, key)
        if vt.numel():
            assert vs.stride() == vt.stride(), (shape, key)
    if len(shape) > 1 and shape[0] > 1:  # and through a view that is not at offset 0
        k0 = key[0] if isinstance(key[0], slice) else slice(None)
        vs, vt = x[1:][k0], t[1:][k0]
        assert vs.storage_offset() == vt.storage_offset(), (shape, key)


def test_the_issues_examples():
    x = S.arange(10.0)
    assert [x[5:5].storage_offset(), x[12:].storage_offset(), x[8:].storage_offset()] == [5, 10, 8]
    y = x.reshape(2, 5)
    assert y[:, 5:].storage_offset() == 5 and y[2:].storage_offset() == 10
    z = x[5:5]
    z += 1  # (an empty write: nothing changes)
    assert x.tolist() == [float(i) for i in range(10)]
