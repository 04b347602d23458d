"""Complex inputs PyTorch 2.13 computes and strided.torch refused: ``logaddexp`` (PyTorch's
``_log_add_exp_helper``: operands ordered by real part, its NaN and infinity cases),
``corrcoef`` (the real and imaginary parts each clipped) and ``F.rms_norm``. Values, dtypes and
gradients against torch itself."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402

from _parity import to_numpy  # noqa: E402

INF, NAN = np.inf, np.nan
# finite, every infinite and NaN part, ties of the real part, and values whose exp overflows
_EDGE = np.array([0, 1 + 2j, -3 - 1j, 1 - 5j, complex(INF, 1), complex(-INF, 2), complex(INF, -1),
                  complex(-INF, 0.5), complex(NAN, 0), complex(0, NAN), complex(1, INF), 1e300 + 1j,
                  -1e300, 800 + 3j])
_TOL = {np.complex128: dict(rtol=1e-13, atol=1e-300), np.complex64: dict(rtol=2e-6, atol=1e-6)}


def _close(got, want, tol):
    got = to_numpy(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    nan_t = np.isnan(want.real) | np.isnan(want.imag)
    nan_s = np.isnan(got.real) | np.isnan(got.imag)
    np.testing.assert_array_equal(nan_s, nan_t)
    for part in (np.real, np.imag):
        np.testing.assert_allclose(part(got)[~nan_t], part(want)[~nan_t], **tol)


@pytest.mark.parametrize("dt", [np.complex128, np.complex64], ids=lambda d: d.__name__)
def test_complex_logaddexp_is_pytorchs_on_every_edge_pair(dt):
    with np.errstate(over="ignore"):  # (1e300 is inf in complex64)
        a, b = (v.astype(dt) for v in np.meshgrid(_EDGE, _EDGE))
    want = torch.logaddexp(torch.tensor(a), torch.tensor(b)).numpy()
    _close(S.logaddexp(S.tensor(a), S.tensor(b)), want, _TOL[dt])
    _close(S.tensor(a).logaddexp(S.tensor(b)), want, _TOL[dt])  # the method
    out = S.empty(a.shape, dtype=getattr(S, dt.__name__))
    r = S.logaddexp(S.tensor(a), S.tensor(b), out=out)
    assert r is out
    _close(out, want, _TOL[dt])


def test_complex_logaddexp_beside_a_real_operand_and_a_scalar():
    x = np.array([1.0, -2.0, 700.0])
    z = np.array([1j, 2 - 1j, 3 + 0.5j])
    _close(S.logaddexp(S.tensor(x), S.tensor(z)),
           torch.logaddexp(torch.tensor(x), torch.tensor(z)).numpy(), _TOL[np.complex128])
    xf = x.astype(np.float32)
    _close(S.logaddexp(S.tensor(z.astype(np.complex64)), S.tensor(xf)),
           torch.logaddexp(torch.tensor(z.astype(np.complex64)), torch.tensor(xf)).numpy(), _TOL[np.complex64])


def _grads(build, *values):
    got = []
    for L in (torch, S):
        leaves = [L.tensor(v, requires_grad=True) for v in values]
        r = build(L, *leaves)
        (r.real.sum() + 3 * r.imag.sum()).backward()
        got.append([to_numpy(x.grad) if L is S else x.grad.numpy() for x in leaves])
    for w, g in zip(*got):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


def _rand(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def test_complex_logaddexp_gradients_are_pytorchs():
    _grads(lambda L, a, b: L.logaddexp(a, b), _rand((3, 4), 1), _rand((3, 4), 2))
    _grads(lambda L, a, b: a.logaddexp(b), _rand((3, 4), 3), _rand((4,), 4))  # broadcast


@pytest.mark.parametrize("dt", [np.complex128, np.complex64], ids=lambda d: d.__name__)
def test_complex_corrcoef_clips_each_part(dt):
    z = _rand((4, 6), 5)
    z[2] = z[0] * (2 - 1j)  # perfectly correlated rows: parts at +-1 before the clip
    z[3] = -z[1]
    z = z.astype(dt)
    _close(S.corrcoef(S.tensor(z)), torch.corrcoef(torch.tensor(z)).numpy(), _TOL[dt])
    one = z[0]  # one variable: 0-d
    _close(S.corrcoef(S.tensor(one)), torch.corrcoef(torch.tensor(one)).numpy(), _TOL[dt])


def test_complex_corrcoef_gradients_are_pytorchs():
    _grads(lambda L, a: L.corrcoef(a), _rand((3, 7), 6))


@pytest.mark.parametrize("dt", [np.complex128, np.complex64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("kw", [dict(normalized_shape=(5,)), dict(normalized_shape=(3, 5), eps=1e-3),
                                dict(normalized_shape=(5,), weight=True)], ids=str)
def test_complex_rms_norm_is_pytorchs(dt, kw):
    z = _rand((2, 3, 5), 7).astype(dt)
    kt, ks = dict(kw), dict(kw)
    if kw.get("weight"):
        w = _rand((5,), 8).astype(dt)
        kt["weight"], ks["weight"] = torch.tensor(w), S.tensor(w)
    tol = dict(rtol=1e-12, atol=1e-15) if dt is np.complex128 else dict(rtol=1e-5, atol=1e-6)
    _close(S.nn.functional.rms_norm(S.tensor(z), **ks),
           torch.nn.functional.rms_norm(torch.tensor(z), **kt).numpy(), tol)


def test_complex_rms_norm_gradients_are_pytorchs():
    _grads(lambda L, a, w: L.nn.functional.rms_norm(a, (4,), weight=w), _rand((3, 4), 9), _rand((4,), 10))


def test_what_pytorch_refuses_stays_refused():
    z = S.tensor(_rand((3,), 11))
    with pytest.raises(NotImplementedError):
        torch.logaddexp2(torch.tensor(_rand((3,), 11)), torch.tensor(_rand((3,), 11)))
    with pytest.raises(TypeError, match="complex"):
        S.logaddexp2(z, z)
