"""SGD's update in one compiled pass (``_cgrad.axpy``: ``p += g * a``) against the two
NumPy calls it replaces (``np.add(p, np.multiply(g, a), out=p)``): the same bits for
every float32/float64 value (signed zeros, subnormals, infinities, a NaN in one operand),
one of the two NaNs where both operands are NaN (NumPy's own choice there depends on
the position: see the C comment), and nothing written for what it declines. The
optimizer with and without it gives the same parameters, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import strided as xp
import strided.torch as storch
from strided.torch.optim import sgd as _sgd

axpy = _sgd._axpy
pytestmark = pytest.mark.skipif(axpy is None, reason="the C extension _cgrad is not built (STRIDED_NO_CEXT=1)")

_UINT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def _bits(a):
    return a.view(_UINT[a.dtype])


def _reference(p, g, a):
    r = p.copy()
    with np.errstate(all="ignore"):  # (strided's kernels warn for none of these, as PyTorch)
        np.add(r, np.multiply(g, a), out=r)
    return r


def _check(p, g, a):
    ref = _reference(p, g, a)
    out = p.copy()
    assert axpy(out, g, a) is True
    with np.errstate(all="ignore"):
        prod = np.multiply(g, a)
    both = np.isnan(p) & np.isnan(prod)
    np.testing.assert_array_equal(_bits(out)[~both], _bits(ref)[~both])
    if both.any():  # one of the two NaNs, quieted (NumPy's choice varies by position)
        q = np.isnan(out[both])
        assert q.all()
        quiet = _bits(np.asarray(np.nan, p.dtype)) & ~_bits(np.asarray(-np.inf, p.dtype))
        got = _bits(out[both])
        assert ((got == (_bits(p[both]) | quiet)) | (got == (_bits(prod[both]) | quiet))).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_axpy_equals_numpy_multiply_then_add(dtype, data):
    n = data.draw(st.integers(0, 300), label="n")
    elems = st.floats(width=np.dtype(dtype).itemsize * 8, allow_nan=True, allow_infinity=True,
                      allow_subnormal=True)
    p = data.draw(hnp.arrays(dtype, n, elements=elems), label="p")
    g = data.draw(hnp.arrays(dtype, n, elements=elems), label="g")
    a = data.draw(st.one_of(st.sampled_from([-0.01, -0.1, -1e-3, -0.0, 0.0, -1.0, -1e30, -1e-40, -np.inf]),
                            st.floats(allow_nan=False)), label="a")
    _check(p, g, a)


def _check_momentum(b, g, a, m):
    """axpy(b, g, a, m) against NumPy's ``b *= m; b += g * a`` (``b += g`` for a = 1.0)."""
    ref = b.copy()
    with np.errstate(all="ignore"):
        np.multiply(ref, m, out=ref)
        t = g if a == 1.0 else np.multiply(g, a)
        both = np.isnan(ref) & np.isnan(t)
        np.add(ref, t, out=ref)
    out = b.copy()
    assert axpy(out, g, a, m) is True
    np.testing.assert_array_equal(_bits(out)[~both], _bits(ref)[~both])
    assert np.isnan(out[both]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_axpy_momentum_equals_numpy(dtype, data):
    n = data.draw(st.integers(0, 200), label="n")
    elems = st.floats(width=np.dtype(dtype).itemsize * 8, allow_nan=True, allow_infinity=True,
                      allow_subnormal=True)
    b = data.draw(hnp.arrays(dtype, n, elements=elems), label="b")
    g = data.draw(hnp.arrays(dtype, n, elements=elems), label="g")
    a = data.draw(st.sampled_from([1.0, 0.7, 0.9, -1.0, 1e-30]), label="a")
    m = data.draw(st.one_of(st.sampled_from([0.9, 0.0, -0.0, 0.99, 1.0]), st.floats(allow_nan=False)), label="m")
    _check_momentum(b, g, a, m)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_axpy_large_and_two_dimensional(dtype):
    rng = np.random.default_rng(5)
    for shape in [(256, 784), (10, 256), (4097,), (1,)]:
        p = rng.standard_normal(shape).astype(dtype)
        g = (rng.standard_normal(shape) * 10.0 ** rng.integers(-30, 30, shape)).astype(dtype)
        _check(p, g, -0.01)


def test_axpy_declines_without_writing():
    p = np.arange(12, dtype=np.float32).reshape(3, 4)
    g = np.ones((3, 4), np.float32)
    cases = [
        (p, g, -1),                                       # an int rate: NumPy's call
        (p, g, np.float64(-0.5)),                         # not exactly a float
        (p, g, float("nan")),                             # a NaN rate
        (p, g.astype(np.float64), -0.5),                  # mixed dtypes
        (p, np.ones((4, 3), np.float32).T, -0.5),         # g not C-contiguous
        (p, np.ones(11, np.float32), -0.5),               # lengths differ
        (p.astype(np.int32), g.astype(np.int32), -0.5),   # not floating
        (p, p[::-1], -0.5),                               # overlapping
        (p.astype(np.float16), g.astype(np.float16), -0.5),
    ]
    for pp, gg, a in cases:
        before = pp.copy()
        assert axpy(pp, gg, a) is False
        np.testing.assert_array_equal(pp, before)
    ro = p.copy()
    ro.flags.writeable = False
    assert axpy(ro, g, -0.5) is False
    np.testing.assert_array_equal(ro, p)
    assert axpy(p, p, -0.5) is False  # (p += p * a: the same memory)
    for m in (1, float("nan"), np.float32(0.9)):  # the momentum form: a float, not NaN
        before = p.copy()
        assert axpy(p, g, 1.0, m) is False
        np.testing.assert_array_equal(p, before)
    with pytest.raises(TypeError, match="axpy"):
        axpy(p, g)
    with pytest.raises(TypeError, match="axpy"):
        axpy(p, g, 1.0, 0.9, 2.0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", [dict(lr=0.05), dict(lr=0.05, momentum=0.9), dict(lr=0.05, maximize=True),
                                dict(lr=0.05, weight_decay=0.01), dict(lr=1),
                                dict(lr=0.05, momentum=0.9, dampening=0.3),
                                dict(lr=0.05, momentum=0.8, nesterov=True), dict(lr=0.05, momentum=1)])
def test_sgd_with_and_without_axpy_bit_for_bit(dtype, kw, monkeypatch):
    def run():
        rng = np.random.default_rng(3)
        x = xp.asarray(rng.standard_normal((9, 5)).astype(dtype), device="cpu")
        y = xp.asarray(rng.integers(0, 3, 9), device="cpu")
        model = storch.nn.Sequential(storch.nn.Linear(5, 6), storch.nn.ReLU(), storch.nn.Linear(6, 3))
        model = model.to("cpu", getattr(storch, dtype))  # (PyTorch's linear takes one dtype)
        model.load_state_dict({k: xp.asarray(rng.uniform(-0.5, 0.5, tuple(v.shape)).astype(dtype), device="cpu")
                               for k, v in model.state_dict().items()})
        opt = storch.optim.SGD(model.parameters(), **kw)
        versions = []
        for _ in range(20):
            opt.zero_grad()
            storch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            versions.append([p._version for p in model.parameters()])
        return [np.array(p.detach().numpy()) for p in model.parameters()], versions

    taken = []
    monkeypatch.setattr(_sgd, "_sgd_run", None)  # (the group loop in C calls axpy's loop itself)
    monkeypatch.setattr(_sgd, "_axpy", lambda *a: taken.append(axpy(*a)) or taken[-1])
    fast, v_fast = run()
    # (every host update went through it -- momentum's first step takes the methods --;
    # an int rate is NumPy's call: not offered)
    n_mom = 76 if type(kw.get("momentum", 0.0)) is float and kw.get("momentum") else 0
    assert (len(taken) >= 76 + n_mom and all(taken)) if type(kw["lr"]) is float else not taken
    monkeypatch.setattr(_sgd, "_axpy", lambda *a: False)  # declines: NumPy's calls
    ref, v_ref = run()
    for a, b in zip(fast, ref):
        np.testing.assert_array_equal(_bits(a), _bits(b))
    assert v_fast == v_ref  # (one version bump per write, as before)
