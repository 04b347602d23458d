"""``strided.torch.testing`` against PyTorch 2.13's ``torch.testing``.

``assert_close`` raises exactly where PyTorch's raises, with the same error type and message
(strided's names for dtypes and types put in), over a grid of values near the default
tolerances of each dtype, NaN/inf, shapes, dtypes, containers, scalars, NumPy arrays and the
keyword options, and over random perturbations (Hypothesis). ``make_tensor`` is checked by
properties: shape, dtype, range, contiguity, zeros, requires_grad, and PyTorch's errors.
"""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as stg

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402


def outcome(lib, build):
    actual, expected, kw = build(lib)
    try:
        lib.testing.assert_close(actual, expected, **kw)
        return None
    except Exception as e:  # noqa: BLE001 (compared below)
        return type(e), str(e)


def normalize(msg: str) -> str:
    msg = msg.replace("torch.Size", "Size").replace("strided.Size", "Size")
    msg = msg.replace("<class 'torch.Tensor'>", "<array>")
    msg = msg.replace("<class 'strided._core.array.Array'>", "<array>")
    return msg.replace("torch.", "").replace("strided.", "")


def agree(build):
    t, s = outcome(torch, build), outcome(st, build)
    if t is None or s is None:
        assert t is s, (t, s)
        return t
    assert s[0] is t[0], (s, t)
    assert normalize(s[1]) == normalize(t[1]), f"\nstrided: {s[1]}\ntorch:   {t[1]}"
    return t


def arr(lib, a, dtype=None):
    a = np.array(a, dtype=dtype)
    return torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())


REL = [0.0, 1e-8, 1e-7, 5e-7, 1e-6, 1.3e-6, 2e-6, 9e-6, 1e-5, 1.1e-5, 3e-5, 1e-3, 0.5]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("d", REL)
def test_default_tolerances_near_the_boundary(dtype, d):
    base = np.array([[0.0, 1.0, -3.0], [100.0, 1e-6, 2.5]])
    agree(lambda lib: (arr(lib, base + d * np.abs(base) + d, dtype), arr(lib, base, dtype), {}))
    agree(lambda lib: (arr(lib, base[0, 1] + d, dtype), arr(lib, base[0, 1], dtype), {}))  # 0-d


SPECIAL = [
    ([1.0, np.nan], [1.0, np.nan]), ([np.inf, -np.inf], [np.inf, -np.inf]), ([np.inf], [-np.inf]),
    ([np.nan, 2.0], [1.0, 2.0]), ([1.0, 2.0], [np.inf, 2.0]), ([0.0, -0.0], [-0.0, 0.0]),
    ([1e-30, 0.0], [0.0, 1e-30]),
]


@pytest.mark.parametrize("pair", SPECIAL, ids=range(len(SPECIAL)))
@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_inf_and_zeros(pair, equal_nan, dtype):
    agree(lambda lib: (arr(lib, pair[0], dtype), arr(lib, pair[1], dtype), dict(equal_nan=equal_nan)))


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8", "bool"])
@pytest.mark.parametrize("delta", [0, 1, 3])
def test_integer_and_bool_arrays_compare_exactly(dtype, delta):
    a = np.array([[0, 1, 2], [1, 0, 1]])
    b = (a + delta * (a == 1)) % 2 if dtype == "bool" else a + delta * (a == 1)
    agree(lambda lib: (arr(lib, b, dtype), arr(lib, a, dtype), {}))
    agree(lambda lib: (arr(lib, b, dtype), arr(lib, a, dtype), dict(rtol=0.1, atol=1.5)))


@pytest.mark.parametrize("kw", [dict(), dict(check_dtype=False), dict(rtol=1e-3, atol=0.0),
                                dict(rtol=0.0, atol=1e-3),
                                dict(rtol=1e-3), dict(atol=1e-3), dict(check_device=False), dict(msg="custom"),
                                dict(msg=lambda m: "wrapped: " + m), dict(check_stride=True)])
@pytest.mark.parametrize("case", ["dtype", "shape", "close", "far", "int-float", "strides"])
def test_attributes_and_options(kw, case):
    a = np.arange(6.0).reshape(2, 3)

    def build(lib):
        if case == "dtype":
            return arr(lib, a, "float32"), arr(lib, a + 1e-4, "float64"), kw
        if case == "shape":
            return arr(lib, a), arr(lib, a.reshape(3, 2)), kw
        if case == "close":
            return arr(lib, a + 5e-4), arr(lib, a), kw
        if case == "far":
            return arr(lib, a + 0.1), arr(lib, a), kw
        if case == "int-float":
            return arr(lib, a, "int64"), arr(lib, a + 0.25, "float32"), kw
        x = arr(lib, a.T)
        return x, x.contiguous() if lib is torch else x.contiguous(), kw
    agree(build)


P = collections.namedtuple("P", "a b")


@pytest.mark.parametrize("case", range(14))
def test_containers_scalars_and_numpy(case):
    def build(lib):
        t = lambda v, dt="float32": arr(lib, v, dt)  # noqa: E731
        return [
            ([t([1.0]), t([2.0])], [t([1.0]), t([2.5])], {}),
            ([t([1.0])], [t([1.0]), t([2.0])], {}),
            ({"x": t([1.0]), "y": [1, 2.0]}, {"x": t([1.0]), "y": [1, 2.5]}, {}),
            ({"x": 1}, {"y": 1}, {}),
            (P(t([1.0]), 3), P(t([1.0]), 3), {}),
            (1.0, 1.0 + 1e-8, {}), (1.0, 1.1, {}), (3, 4, {}), (1 + 2j, 1 + 2.5j, {}),
            (True, False, {}), (None, None, {}), (None, 1, {}),
            (np.arange(3.0), np.arange(3.0) + 1, {}),
            (t([1.0]), 1.0, {}),
        ][case]
    agree(build)


@settings(max_examples=60, deadline=None)
@given(stg.lists(stg.floats(-1e3, 1e3, width=32), min_size=1, max_size=6),
       stg.sampled_from(["float32", "float64"]),
       stg.floats(0.0, 3.0), stg.integers(0, 5))
def test_random_perturbations_raise_where_pytorch_raises(values, dtype, scale, k):
    tol = 1.3e-6 if dtype == "float32" else 1e-7
    x = np.array(values, dtype=dtype)
    y = x.copy()
    y[k % len(y)] = y[k % len(y)] * (1 + scale * tol) + scale * (1e-5 if dtype == "float32" else 1e-7)
    agree(lambda lib: (arr(lib, y, dtype), arr(lib, x, dtype), {}))


# --- make_tensor ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64", "int64", "int8", "uint8", "bool"])
@pytest.mark.parametrize("shape", [(3, 4), (5,), (1,), (), (2, 0)])
@pytest.mark.parametrize("noncontiguous", [False, True])
def test_make_tensor_properties(dtype, shape, noncontiguous):
    dt = getattr(st, dtype)
    x = st.testing.make_tensor(shape, dtype=dt, device="cpu", noncontiguous=noncontiguous)
    ref = torch.testing.make_tensor(shape, dtype=getattr(torch, dtype), device="cpu", noncontiguous=noncontiguous)
    assert x.dtype == dt and tuple(x.shape) == tuple(ref.shape)
    assert x.is_contiguous() == ref.is_contiguous()
    v = to_numpy(x)
    lo, hi = {"bool": (0, 1), "uint8": (0, 9), "int8": (-9, 9), "int64": (-9, 9)}.get(dtype, (-9, 9))
    parts = [v.real, v.imag] if dtype.startswith("complex") else [v]
    for p in parts:
        assert (p >= lo).all() and (p <= hi).all()
    if dtype in ("float32", "float64") and v.size:
        # (float16: the draw in float32 may round up to 9, as PyTorch's uniform_ on Half does)
        assert (v < 9).all()


def test_make_tensor_ranges_and_options():
    x = st.testing.make_tensor(4000, dtype=st.int64, device="cpu", low=3, high=6)
    assert set(to_numpy(x).tolist()) == {3, 4, 5}
    f = to_numpy(st.testing.make_tensor(4000, dtype=st.float64, device="cpu", low=-0.5, high=0.25))
    assert f.min() >= -0.5 and f.max() < 0.25 and f.min() < -0.45 and f.max() > 0.2
    z = st.testing.make_tensor(400, dtype=st.int64, device="cpu", low=0, high=2, exclude_zero=True)
    assert (to_numpy(z) == 1).all()
    zf = st.testing.make_tensor(50, dtype=st.float32, device="cpu", low=0, high=1e-30, exclude_zero=True)
    assert (to_numpy(zf) != 0).all()
    b = st.testing.make_tensor(3, 4, dtype=st.bool, device="cpu", exclude_zero=True, noncontiguous=True)
    assert to_numpy(b).all() and not b.is_contiguous()
    big = to_numpy(st.testing.make_tensor(100, dtype=st.float32, device="cpu", low=-math.inf, high=math.inf))
    assert np.isfinite(big).all()
    g = st.testing.make_tensor((2, 2), dtype=st.float64, device="cpu", requires_grad=True)
    assert g.requires_grad and g.is_leaf
    u = to_numpy(st.testing.make_tensor(300, dtype=st.uint8, device="cpu", low=-5, high=3.5))
    assert u.min() >= 0 and u.max() <= 3


@pytest.mark.parametrize("kw", [dict(low=5, high=2), dict(low=float("nan")), dict(requires_grad=True),
                                dict(low=300, high=400), dict(dtype_bool=True, requires_grad=True)])
def test_make_tensor_errors_are_pytorchs(kw):
    kw = dict(kw)
    name = "bool" if kw.pop("dtype_bool", False) else "uint8"
    errs = []
    for lib in (torch, st):
        with pytest.raises(ValueError) as e:
            lib.testing.make_tensor(3, dtype=getattr(lib, name), device="cpu", **kw)
        errs.append(normalize(str(e.value)))
    assert errs[0] == errs[1]


def test_make_tensor_memory_format_is_refused():
    with pytest.raises(NotImplementedError, match="memory_format is not supported by strided"):
        st.testing.make_tensor(2, 2, dtype=st.float32, device="cpu", memory_format="channels_last")


@pytest.mark.parametrize("case", range(7))
def test_deprecated_assert_allclose(case):
    def build(lib):
        t = lambda v, dt="float32": arr(lib, v, dt)  # noqa: E731
        return [(t([1.0, np.nan]), [1.00001, np.nan], {}), (t([1.0]), [1.001], {}),
                (t([1.0], "float64"), t([1.0 + 2e-5], "float64"), {}), (t([1, 2], "int64"), [1, 3], {}),
                (t([1.0]), t([1.5], "float64"), {}), ([1.0, 2.0], [1.0, 2.5], dict(rtol=0.1)),
                (t([1.0]), [2.0], dict(msg="boom"))][case]

    def run(lib):
        a, e, kw = build(lib)
        with pytest.warns(FutureWarning, match="assert_allclose\\(\\)` is deprecated"):
            try:
                lib.testing.assert_allclose(a, e, **kw)
                return None
            except Exception as err:  # noqa: BLE001
                return type(err), normalize(str(err))
    assert run(st) == run(torch)
