"""``x.view(dtype)`` across element sizes, ``view_as_real`` and ``view_as_complex``, against
PyTorch 2.13: the same shapes, strides, storage offsets and values over every layout, the
same refusals, shared memory both ways, and gradients (LLaMA's rotary embeddings are written
with view_as_complex)."""

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as hs

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402
from strided._api.views import ViewDtypeError  # noqa: E402

from _parity import to_numpy  # noqa: E402

DTYPES = ["float32", "float64", "int16", "int8", "uint8", "int32", "int64", "complex64", "complex128",
          "float16"]


def pair(a: np.ndarray, sl):
    """The strided and torch views ``sl`` of copies of ``a``."""
    return st.tensor(a)[sl], torch.tensor(a)[sl]


def layout(x):
    return tuple(x.shape), tuple(x.stride()), x.storage_offset()


def outcome(f):
    try:
        return f()
    except (RuntimeError, ValueError) as e:
        return e


@settings(max_examples=150, deadline=None)
@given(src=hs.sampled_from(DTYPES), dst=hs.sampled_from(DTYPES),
       shape=hs.lists(hs.integers(1, 6), min_size=1, max_size=3),
       start=hs.integers(0, 3), step=hs.integers(1, 2), last_step=hs.sampled_from([1, 1, 2]))
def test_view_dtype_is_pytorchs(src, dst, shape, start, step, last_step):
    assume(all(start < n for n in shape[:-1]))  # (no empty view: its offset is another matter)
    rng = np.random.default_rng(0)
    a = (rng.integers(0, 256, size=int(np.prod(shape)) * 16, dtype=np.uint8)
         .view(np.dtype(src))[:int(np.prod(shape))].reshape(shape))
    if np.dtype(src).kind in "fc":
        a = np.nan_to_num(a, nan=1.0, posinf=2.0, neginf=-2.0)  # (NaN payloads aside)
    sl = (slice(start, None, step),) * (len(shape) - 1) + (slice(None, None, last_step),)
    x, t = pair(a, sl)
    got = outcome(lambda: x.view(getattr(st, dst)))
    want = outcome(lambda: t.view(getattr(torch, dst)))
    if isinstance(want, Exception):
        assert isinstance(got, ViewDtypeError), (want, got)
        assert isinstance(got, RuntimeError) and isinstance(got, ValueError)
        return
    assert not isinstance(got, Exception), (got, want)
    assert got.dtype == getattr(st, dst)
    assert layout(got) == layout(want)
    np.testing.assert_array_equal(np.ascontiguousarray(to_numpy(got)).view(np.uint8),
                                  np.ascontiguousarray(want.numpy()).view(np.uint8))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("sl", [(), (slice(None, None, 2),), (slice(1, None), slice(None, None, 3)),
                                (slice(None), 1)])
def test_view_as_real_is_pytorchs_and_shares_memory(dtype, sl):
    a = (np.arange(24) + 1j * np.arange(24, 48)).astype(dtype).reshape(4, 6)
    x, t = pair(a, sl)
    r, rt = st.view_as_real(x), torch.view_as_real(t)
    assert layout(r) == layout(rt)
    assert r.dtype == (st.float32 if dtype == "complex64" else st.float64)
    np.testing.assert_array_equal(to_numpy(r), rt.numpy())
    r[..., 1] = -7.0  # (a write through the real view is the complex array's imaginary part)
    np.testing.assert_array_equal(to_numpy(x).imag, np.full(x.shape, -7.0))
    back, back_t = st.view_as_complex(r), torch.view_as_complex(rt)
    assert layout(back) == layout(back_t)
    np.testing.assert_array_equal(to_numpy(back), to_numpy(x))


@pytest.mark.parametrize("make", [
    lambda L: L.zeros(3, 2),
    lambda L: L.zeros(4, 3, 2)[::2],
    lambda L: L.zeros(3, 4)[:, 1:3],  # offset 1: odd
    lambda L: L.zeros(3, 4)[:, :2],
    lambda L: L.zeros(3, 3)[:, :2],   # stride 3: odd
    lambda L: L.zeros(2, 3),          # last axis of 3
    lambda L: L.zeros(2, 2).t(),      # last stride 2
    lambda L: L.zeros(()),
    lambda L: L.zeros(3, 2, dtype=L.int32),
    lambda L: L.zeros(3, 2, dtype=L.complex64),
])
def test_view_as_complex_accepts_and_refuses_as_pytorch(make):
    x, t = make(st), make(torch)
    want = outcome(lambda: torch.view_as_complex(t))
    got = outcome(lambda: st.view_as_complex(x))
    if isinstance(want, Exception):
        assert isinstance(got, ViewDtypeError) and isinstance(got, RuntimeError), (want, got)
        return
    assert layout(got) == layout(want)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]


def test_view_as_complex_of_float16_is_refused():
    """PyTorch makes complex32 of float16 pairs; strided has no complex32 and says so."""
    assert torch.view_as_complex(torch.zeros(3, 2, dtype=torch.float16)).dtype == torch.complex32
    with pytest.raises(RuntimeError, match="float16"):
        st.view_as_complex(st.zeros(3, 2, dtype=st.float16))


def test_view_as_real_of_a_real_array_is_refused():
    with pytest.raises(RuntimeError, match="complex"):
        st.view_as_real(st.zeros(2))
    with pytest.raises(RuntimeError):
        torch.view_as_real(torch.zeros(2))


def test_gradients_through_both_views_are_pytorchs():
    """A rotary embedding as LLaMA writes it: pairs of features as complex numbers, rotated,
    back to reals; float64 gradients of the input and of the angles."""
    rng = np.random.default_rng(3)
    q = rng.standard_normal((2, 5, 8))
    ang = rng.standard_normal((5, 4))
    w = rng.standard_normal((2, 5, 8))
    grads = []
    for L in (st, torch):
        qq = L.tensor(q, requires_grad=True)
        aa = L.tensor(ang, requires_grad=True)
        qc = L.view_as_complex(qq.reshape(2, 5, 4, 2))
        rot = L.polar(L.ones_like(aa), aa)
        out = L.view_as_real(qc * rot).flatten(2)
        (out * L.tensor(w)).sum().backward()
        grads.append((to_numpy(out.detach()), to_numpy(qq.grad), to_numpy(aa.grad)))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_a_write_into_a_saved_view_is_caught_by_the_version_counter():
    """The views share the memory's version counter: a write through the real view of the
    memory of an array saved for backward is refused at backward, as in PyTorch."""
    for L in (st, torch):
        z = L.tensor(np.array([1 + 1j, 2 - 1j]), requires_grad=True)
        y = z * 1.0
        p = y * y  # (saves y)
        L.view_as_real(y.detach())[0, 0] = 5.0
        with pytest.raises(RuntimeError, match="modified by an inplace operation|version"):
            p.abs().sum().backward()
