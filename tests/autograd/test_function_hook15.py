"""The unary namespace functions (``strided.exp(x)``, ``strided.relu(x)``) and ``x @ W`` hand
an Array that carries an extension to the extension hook from C (issue 38, stop 55: _chot's
hooked_operator for one operand, hooked_matmul), as their Python definitions do (the
unary ``func`` of elementwise.py; ``_matmul_op`` of linalg_functions.py): the same hook
call, so the same results, graph nodes and gradients, without those Python frames.
Checked against the Python definitions called directly, and against PyTorch where it is
installed."""

from __future__ import annotations

import numpy as np
import pytest

import strided as st
from strided._api import elementwise as E
from strided._api import linalg_functions as L
from strided._core import dispatch

from _frames import python_calls
from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_COMPILED = dispatch.CHOT is not None
# every unary row without keyword parameters that has a derivative rule
_UNARY = sorted(r.name for r in E.ROWS if r.nargs == 1 and not r.params
                and r.name not in ("logical_not", "bitwise_invert", "sign", "signbit", "isnan", "isinf",
                                   "isfinite", "floor", "ceil", "trunc", "round", "real", "imag", "conj"))


def _input(name):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    v = rng.uniform(0.1, 0.9, (3, 4))  # (inside every function's domain: log, acos, atanh ...)
    if name == "acosh":
        v = v + 1.0
    v[0, 0] = -v[0, 0] if name in ("relu", "abs", "negative", "positive", "square", "exp", "tanh") else v[0, 0]
    return v


def _run(fn, a, names=None):
    x = st.asarray(a, device="cpu", requires_grad=True, names=names)
    z, frames = python_calls(lambda: fn(x))
    st.sum(z * z).backward()
    return z, frames, x.grad


@pytest.mark.parametrize("name", _UNARY)
def test_recorded_function_is_the_python_definitions(name):
    a = _input(name)
    fast = getattr(st, name)
    z0, frames, g0 = _run(fast, a)
    with np.errstate(all="ignore"):  # (the bare definition: strided's entry points set this)
        z1, _, g1 = _run(E.FUNCTIONS[name].__wrapped__, a)  # the Python definition behind the Fast
    if _COMPILED:
        assert "func" not in frames, frames  # (the compiled door: no frame of the definition)
    assert z0.requires_grad and type(z0.grad_fn).__name__ == type(z1.grad_fn).__name__
    assert host(z0.detach()).tobytes() == host(z1.detach()).tobytes()
    assert host(g0.detach()).tobytes() == host(g1.detach()).tobytes()


def test_recorded_functions_match_torch():
    torch = pytest.importorskip("torch")
    a = _input("relu")
    x = st.asarray(a, device="cpu", requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    z = st.log(st.exp(st.tanh(st.relu(x))) + 1.0)
    tz = torch.log(torch.exp(torch.tanh(torch.relu(t))) + 1.0)
    st.sum(z).backward()
    tz.sum().backward()
    np.testing.assert_allclose(host(z.detach()), tz.detach().numpy(), rtol=1e-14, atol=0)
    np.testing.assert_allclose(host(x.grad.detach()), t.grad.numpy(), rtol=1e-13, atol=1e-300)


def test_named_recorded_and_plain_inputs():
    a = _input("exp")
    z, _, g = _run(st.exp, a, names=("r", "c"))
    assert z.names == ("r", "c")
    np.testing.assert_allclose(host(g.detach()), 2 * np.exp(a) * np.exp(a), rtol=1e-14)
    with st.no_grad():
        y = st.exp(st.asarray(a, device="cpu", requires_grad=True))
    assert not y.requires_grad and y.grad_fn is None
    assert host(st.exp(st.asarray(a, device="cpu"))).tobytes() == np.exp(a).tobytes()
    with pytest.raises(TypeError):
        st.exp("text")


@pytest.mark.parametrize("which", ["left", "right", "both"])
@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((2, 3, 4), (4, 5))])
def test_recorded_matmul_operator_is_the_python_definitions(which, shapes):
    rng = np.random.default_rng(7)
    a, b = rng.uniform(-1, 1, shapes[0]), rng.uniform(-1, 1, shapes[1])
    results = []
    for door in ("operator", "definition"):
        x = st.asarray(a, device="cpu", requires_grad=which in ("left", "both"))
        y = st.asarray(b, device="cpu", requires_grad=which in ("right", "both"))
        if door == "operator":
            z, frames = python_calls(lambda: x @ y)
            assert "_matmul_op" not in frames or not _COMPILED, frames
        else:
            z = L._matmul_op(x, y)  # the Python definition behind Array.__matmul__
        st.sum(z * z).backward()
        results.append((host(z.detach()), type(z.grad_fn).__name__,
                        None if x.grad is None else host(x.grad.detach()),
                        None if y.grad is None else host(y.grad.detach())))
    (z0, n0, gx0, gy0), (z1, n1, gx1, gy1) = results
    assert z0.tobytes() == z1.tobytes() and n0 == n1
    for g0, g1 in ((gx0, gx1), (gy0, gy1)):
        assert (g0 is None) == (g1 is None)
        if g0 is not None:
            assert g0.tobytes() == g1.tobytes()


def test_recorded_matmul_matches_torch_and_refuses_what_it_refused():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    a, b = rng.uniform(-1, 1, (5, 3)), rng.uniform(-1, 1, (3, 2))
    x, w = st.asarray(a, device="cpu", requires_grad=True), st.asarray(b, device="cpu", requires_grad=True)
    tx, tw = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    st.sum(st.exp(x @ w)).backward()
    torch.exp(tx @ tw).sum().backward()
    np.testing.assert_allclose(host(x.grad.detach()), tx.grad.numpy(), rtol=1e-13)
    np.testing.assert_allclose(host(w.grad.detach()), tw.grad.numpy(), rtol=1e-13)
    with pytest.raises(ValueError, match="matmul"):
        x @ st.asarray(np.ones((4, 2)), device="cpu")
    assert type(x @ np.ones((3, 2))) is st.Array  # (a NumPy operand: the mixing rule, as before)
