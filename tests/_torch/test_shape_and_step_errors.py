"""A bool in a shape and a zero slice step: the errors NumPy and PyTorch give.

``np.zeros((True, 2))`` and ``torch.zeros((True, 2))`` raise TypeError (a bool is an
int to Python, not a size); ``x[::0]`` raises ValueError("slice step cannot be zero") in
both. strided took True as 1 and raised IndexError; the compiled view path declines a
zero step to the Python path, so both paths raise the same error.
"""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp

torch = pytest.importorskip("torch")

SHAPES = [(True, 2), (2, False), (True,), [True, 3]]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
def test_a_bool_in_a_creation_shape_is_a_type_error_as_numpy_and_torch(fn, shape):
    with pytest.raises(TypeError):
        getattr(np, fn)(shape)
    if type(shape[0]) is bool:  # (PyTorch's argument parser looks at the first entry only:
        with pytest.raises(TypeError):  # torch.zeros((2, False)) is a 2x0 tensor)
            getattr(torch, fn)(shape)
    with pytest.raises(TypeError, match="bool"):
        getattr(xp, fn)(shape)


def test_a_bool_in_other_shapes_is_a_type_error():
    x = xp.ones(2)
    for call in (lambda: xp.full((True, 2), 1.0), lambda: xp.zeros(True), lambda: xp.empty(2, True),
                 lambda: xp.reshape(x, (True, 2)), lambda: x.reshape(2, True), lambda: x.view(True, 2),
                 lambda: xp.broadcast_to(x, (True, 2)), lambda: x.expand(True, 2),
                 lambda: x.new_zeros((True,))):
        with pytest.raises(TypeError, match="bool"):
            call()
    with pytest.raises(TypeError):
        np.reshape(np.ones(2), (True, 2))  # (NumPy's reshape too; PyTorch's accepts it)
    # integers of every kind still work, NumPy's included
    assert xp.zeros((np.int64(2), 3)).shape == (2, 3)
    assert x.reshape(np.int32(2), 1).shape == (2, 1)


KEYS = [np.s_[::0], np.s_[0:2:0], np.s_[1, ::0], np.s_[..., ::0], np.s_[None, ::0],
        np.s_[[0, 1], ::0], (slice(None, None, np.int64(0)),)]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_a_zero_slice_step_is_a_value_error_as_numpy_and_torch(key):
    base = np.arange(12.0).reshape(3, 4)
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        base[key]
    tkey = tuple(torch.tensor(k) if isinstance(k, list) else k for k in key) if isinstance(key, tuple) else key
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        torch.from_numpy(base)[tkey]
    x = xp.asarray(base)
    for _ in range(3):  # (the compiled path's caches warm)
        with pytest.raises(ValueError, match="slice step cannot be zero"):
            x[key]
    before = x.clone()
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        x[key] = 1.0
    assert bool(xp.all(x == before))


def test_a_bool_is_refused_after_the_equal_int_shape_was_cached():
    # (True == 1 and hash(True) == hash(1): the shape caches of reshape/view/broadcast_to
    # must not take (2, True) for the cached (2, 1))
    x = xp.ones(2)
    for _ in range(3):
        x.reshape(2, 1), x.view(2, 1), xp.reshape(x, (2, 1)), xp.broadcast_to(x, (1, 2)), x.expand(1, 2)
        xp.zeros((2, 1)), x.reshape(1, 2)
    for call in (lambda: x.reshape(2, True), lambda: x.view(2, True), lambda: xp.reshape(x, (2, True)),
                 lambda: xp.broadcast_to(x, (True, 2)), lambda: x.expand(True, 2), lambda: xp.zeros((2, True)),
                 lambda: x.reshape(True, 2), lambda: x.view((True, 2))):
        with pytest.raises(TypeError, match="bool"):
            call()
