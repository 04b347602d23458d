"""PyTorch's ``flip`` copies: ``torch.flip(x, dims)`` and ``x.flip(dims)`` give a new array,
so writing into the result leaves ``x`` as it was, as in PyTorch 2.13; their values and
gradients are PyTorch's. The standard's ``strided.flip`` stays a view."""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp
import strided.torch as st
from conftest import host

torch = pytest.importorskip("torch")

CALLS = [lambda lib, x: lib.flip(x, [0]), lambda lib, x: lib.flip(x, (0, 1)), lambda lib, x: x.flip(1),
         lambda lib, x: x.flip(0, 1), lambda lib, x: x.flip(dims=[0]), lambda lib, x: x.flip([-1])]


@pytest.mark.parametrize("call", CALLS)
def test_a_write_into_the_result_leaves_the_input(call):
    a = np.arange(6.0).reshape(2, 3)
    for lib, x in ((st, st.tensor(a)), (torch, torch.tensor(a))):
        r = call(lib, x)
        r[0, 0] = -1.0
        got = host(x) if lib is st else x.numpy()
        np.testing.assert_array_equal(got, a)


@pytest.mark.parametrize("call", CALLS)
def test_values_and_gradients_are_pytorchs(call):
    a = np.random.default_rng(0).standard_normal((2, 3))
    w = np.random.default_rng(1).standard_normal((2, 3))
    x, t = st.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    r, q = call(st, x), call(torch, t)
    np.testing.assert_array_equal(host(r.detach()), q.detach().numpy())
    (r * st.tensor(w)).sum().backward()
    (q * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(host(x.grad), t.grad.numpy())


def test_the_standards_flip_is_a_view():
    x = xp.asarray([1.0, 2.0, 3.0])
    v = xp.flip(x)
    v[0] = 9.0
    assert host(x).tolist() == [1.0, 2.0, 9.0]


BAD = [(lambda lib, x: x.flip(), TypeError, False), (lambda lib, x: lib.flip(x), TypeError, False),
       (lambda lib, x: x.flip(0, -2), RuntimeError, True), (lambda lib, x: lib.flip(x, (1, -1)), RuntimeError, True),
       (lambda lib, x: lib.fliplr(x[0]), RuntimeError, False)]  # (False: the type only, the words are strided's)


@pytest.mark.parametrize("call,err,same_words", BAD)
def test_bad_dims_raise_pytorchs_error(call, err, same_words):
    """``x.flip()`` without dims raises (the standard's ``strided.flip(x)`` reverses every axis:
    PyTorch's word must not), and a repeated dim is PyTorch's RuntimeError, message and all."""
    msgs = []
    for lib in (torch, st):
        with pytest.raises(err) as e:
            call(lib, lib.ones(2, 3))
        msgs.append(str(e.value))
    assert msgs[1] == msgs[0] or not same_words
