"""The binary operators hand two Arrays of which one carries an extension to the extension
hook from C (issue 38, stop 54: _chot's hooked_operator), as their Python definition
(elementwise.py's ``op``) does: the same hook call, so the same results, graphs and
gradients, and no Python frame of ``op``. Checked against PyTorch where it is installed and
against the operators' Python definitions (``op``, called directly) otherwise."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import strided as st
from strided._core import dispatch

# (without the C extension the operators are their Python definitions: ``op`` is the door)
_COMPILED = dispatch.CHOT is not None
from _frames import python_calls
from conftest import host

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

_OPS = ["add", "sub", "mul", "truediv", "pow"]


def _pair(seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.5, 2.0, (3, 4)).astype(np.float64)
    b = rng.uniform(0.5, 2.0, (3, 4)).astype(np.float64)
    return a, b


@pytest.mark.parametrize("name", _OPS)
@pytest.mark.parametrize("which", ["left", "right", "both"])
def test_recorded_operator_is_the_python_definitions(name, which):
    a, b = _pair(1)
    fn = getattr(operator, name)
    results = []
    for door in ("operator", "definition"):
        x = st.asarray(a, device="cpu", requires_grad=which in ("left", "both"))
        y = st.asarray(b, device="cpu", requires_grad=which in ("right", "both"))
        if door == "operator":
            z, frames = python_calls(lambda: fn(x, y))
            assert "op" not in frames or not _COMPILED, frames  # (the compiled door)
        else:  # the Python definition the compiled operator stands in front of
            z = _definition(name)(x, y)
        assert z.requires_grad and z.grad_fn is not None
        st.sum(z * z).backward()
        results.append((host(z.detach()), None if x.grad is None else host(x.grad.detach()),
                        None if y.grad is None else host(y.grad.detach()), type(z.grad_fn).__name__))
    (z0, gx0, gy0, n0), (z1, gx1, gy1, n1) = results
    assert z0.tobytes() == z1.tobytes() and n0 == n1
    for g0, g1 in ((gx0, gx1), (gy0, gy1)):
        assert (g0 is None) == (g1 is None)
        if g0 is not None:
            assert g0.tobytes() == g1.tobytes()


def _definition(name):
    """The Python ``op`` behind Array.__<name>__ (the Fast's fallback)."""
    from strided._api import elementwise as E
    return E._operator(next(r for r in E.ROWS if r.dunder == name).func)


def test_recorded_operator_matches_torch():
    torch = pytest.importorskip("torch")
    a, b = _pair(2)
    x = st.asarray(a, device="cpu", requires_grad=True)
    y = st.asarray(b, device="cpu")
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b)
    z = (x * y + x) / y - x ** y
    tz = (tx * ty + tx) / ty - tx ** ty
    st.sum(z).backward()
    tz.sum().backward()
    np.testing.assert_allclose(host(z.detach()), tz.detach().numpy(), rtol=1e-14, atol=0)
    np.testing.assert_allclose(host(x.grad.detach()), tx.grad.numpy(), rtol=1e-13, atol=0)


def test_named_and_recorded_operands():
    a, b = _pair(3)
    x = st.asarray(a, device="cpu", requires_grad=True, names=("r", "c"))
    y = st.asarray(b, device="cpu", names=("r", "c"))
    z, frames = python_calls(lambda: x * y)
    assert z.names == ("r", "c") and z.requires_grad and ("op" not in frames or not _COMPILED)
    st.sum(z).backward()
    assert host(x.grad.detach()).tobytes() == b.tobytes()


def test_no_grad_and_scalars_keep_the_definitions_rules():
    a, b = _pair(4)
    x = st.asarray(a, device="cpu", requires_grad=True)
    y = st.asarray(b, device="cpu")
    with st.no_grad():
        z = x + y
    assert not z.requires_grad and z.grad_fn is None
    np.testing.assert_array_equal(host(z), a + b)
    w = x * 2.0  # (a Python scalar: the function's door, as before)
    assert w.requires_grad
    np.testing.assert_array_equal(host(w.detach()), a * 2.0)
    with pytest.raises(TypeError):
        x + "text"
