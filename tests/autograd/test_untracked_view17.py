"""An in-place operation that autograd records, written into a view of an array autograd
does not track (``x = zeros(3); x[:2].copy_(a * 2)``): PyTorch gives ``x`` the new history
(``CopySlices``); strided, which does not track views of plain arrays, refuses it before
writing, where it used to leave ``x`` without history, so that ``a``'s gradient through
``x`` was silently lost. What strided can express gives PyTorch's gradients."""

from __future__ import annotations

import numpy as np
import pytest

import strided.torch as st
from conftest import host

torch = pytest.importorskip("torch")

WRITES = {
    "copy_": lambda v, a: v.copy_(a * 2),
    "add_": lambda v, a: v.add_(a),
    "mul_": lambda v, a: v.mul_(a),
    "setitem of a view": lambda v, a: v.__setitem__(0, a[0]),
}


@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_recorded_write_into_a_plain_arrays_view_is_refused_before_writing(write):
    f = WRITES[write]
    x = st.zeros(3, device="cpu") + 5.0
    a = st.tensor([1.0, 2.0], requires_grad=True, device="cpu")
    with pytest.raises(RuntimeError, match="autograd does not track"):
        f(x[:2], a)
    assert host(x).tolist() == [5.0, 5.0, 5.0]
    # (PyTorch gives x the history strided can't)
    tx, ta = torch.zeros(3) + 5.0, torch.tensor([1.0, 2.0], requires_grad=True)
    f(tx[:2], ta)
    assert tx.grad_fn is not None


def test_a_reinterpreting_view_of_a_plain_complex_array_is_refused():
    z = st.zeros(2, dtype=st.complex64, device="cpu")
    a = st.tensor([1.0, 2.0], requires_grad=True, device="cpu")
    with pytest.raises(RuntimeError, match="autograd does not track"):
        z.real.copy_(a)
    assert host(z).tolist() == [0j, 0j]


def _grads(lib, build):
    a = lib.tensor([1.0, -2.0], requires_grad=True)
    w = lib.tensor([3.0, 4.0, 5.0])
    out = build(lib, a)
    (out * w[: out.shape[0]]).sum().backward()
    return a.grad


@pytest.mark.parametrize("build", [
    lambda lib, a: _set(lib.zeros(3), slice(0, 2), a * 2),              # setitem on the array itself
    lambda lib, a: lib.zeros(4)[:2].copy_(a * 2),                          # the array cut from is gone
    lambda lib, a: _cut_copy(lib.zeros(3, requires_grad=True).clone(), a),  # a tracked array's view
    lambda lib, a: lib.zeros(2).copy_(a * 3),                              # the whole array
], ids=["setitem", "base gone", "tracked base", "whole array"])
def test_what_strided_expresses_gives_pytorchs_gradients(build):
    g, t = _grads(st, build), _grads(torch, build)
    np.testing.assert_array_equal(host(g), t.numpy())


def _set(x, key, v):
    x[key] = v
    return x


def _cut_copy(x, a):
    x[:2].copy_(a * 2)
    return x


def test_writes_that_autograd_does_not_record_are_not_refused():
    x = st.zeros(3, device="cpu")
    x[:2].copy_(st.ones(2, device="cpu"))
    assert host(x).tolist() == [1.0, 1.0, 0.0]
    a = st.tensor([1.0, 2.0], requires_grad=True, device="cpu")
    with st.no_grad():
        x[:2].copy_(a)
    assert host(x).tolist() == [1.0, 2.0, 0.0]


# --- views that cover the whole array, and views cut before the write (stop 58) ---------------
# Both used to be silent: the write gave the view (or the array itself) the history and left
# the other array, which PyTorch rebases or replays, without it.

WHOLE_VIEWS = {
    "view": lambda x: x.view(6),
    "reshape": lambda x: x.reshape(2, 3),
    "T of 2-D": lambda x: x.reshape(2, 3).T,
    "flatten": lambda x: x.flatten(),
    "x[...]": lambda x: x[...],
}


@pytest.mark.parametrize("cut", sorted(WHOLE_VIEWS))
def test_a_recorded_write_into_a_whole_view_of_a_plain_array_is_refused(cut):
    x = st.zeros(6, device="cpu") + 5.0
    v = WHOLE_VIEWS[cut](x)
    a = st.ones(tuple(v.shape), requires_grad=True, device="cpu")
    with pytest.raises(RuntimeError, match="another live array views the same memory"):
        v.copy_(a * 2)
    assert host(x).tolist() == [5.0] * 6
    # (PyTorch gives x the history)
    tx = torch.zeros(6) + 5.0
    tv = WHOLE_VIEWS[cut](tx)
    tv.copy_(torch.ones(tuple(tv.shape), requires_grad=True) * 2)
    assert tx.grad_fn is not None


# (strided's write, the same write spelled for PyTorch: its out= refuses an operand that
# requires grad, so that row is the in-place method there)
BASE_WRITES = {
    "setitem": (lambda x, a: x.__setitem__(Ellipsis, a * 2),) * 2,
    "copy_": (lambda x, a: x.copy_(a * 2),) * 2,
    "add_": (lambda x, a: x.add_(a),) * 2,
    "out=": (lambda x, a: st.mul(x, a, out=x), lambda x, a: x.mul_(a)),
}


@pytest.mark.parametrize("write", sorted(BASE_WRITES))
def test_a_recorded_write_into_a_plain_array_with_a_live_view_is_refused(write):
    ours, theirs = BASE_WRITES[write]
    x = st.zeros(3, device="cpu") + 5.0
    v = x[:2]
    a = st.tensor([1.0, 2.0, 3.0], requires_grad=True, device="cpu")
    with pytest.raises(RuntimeError, match="another live array views the same memory"):
        ours(x, a)
    assert host(x).tolist() == [5.0] * 3 and host(v).tolist() == [5.0] * 2
    # (PyTorch replays the write into v: v gets a history)
    tx = torch.zeros(3) + 5.0
    tv = tx[:2]
    theirs(tx, torch.tensor([1.0, 2.0, 3.0], requires_grad=True))
    assert tv.grad_fn is not None


def test_once_the_view_is_gone_the_write_gives_pytorchs_gradient():
    def build(lib):
        a = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        x = lib.zeros(3) + 5.0
        v = x[:2]
        del v
        x.mul_(a)
        (x * lib.tensor([3.0, 4.0, 5.0])).sum().backward()
        return a.grad

    np.testing.assert_array_equal(host(build(st)), build(torch).numpy())


def test_a_plain_array_saved_for_backward_is_no_view():
    # p * a saves p for a's gradient: p.add_(a) is allowed, as in PyTorch, and the backward
    # through the product then reports the changed value, as PyTorch's does
    for lib in (st, torch):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        p = lib.ones(3)
        q = p * a
        p.add_(a)
        assert p.grad_fn is not None
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            q.sum().backward()
