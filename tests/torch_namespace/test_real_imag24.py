"""``torch.real`` and ``torch.imag`` against PyTorch 2.13: views of a complex tensor's memory
(a write through one reaches the tensor, as PyTorch's), the same layouts, ``real`` of a real
tensor is the tensor itself, ``imag`` of a real tensor is refused, and gradients flow.

(``strided.real``/``strided.imag`` are the standard's functions: new arrays; only the PyTorch
namespace's are views.)"""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402


def layout(x):
    return tuple(x.shape), tuple(x.stride()), x.storage_offset()


@settings(max_examples=60, deadline=None)
@given(shape=hs.lists(hs.integers(2, 4), min_size=1, max_size=3), dtype=hs.sampled_from(["complex64", "complex128"]),
       start=hs.integers(0, 1), step=hs.integers(1, 2), transpose=hs.booleans(), part=hs.sampled_from(["real", "imag"]),
       seed=hs.integers(0, 2**16))
def test_parts_are_views_as_pytorchs(shape, dtype, start, step, transpose, part, seed):
    # (non-empty views: an empty one's storage offset is strided's own, 0, where PyTorch keeps
    # the slice's start)
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    s, t = st.tensor(a), torch.tensor(a)
    sl = (slice(start, None, step),)
    s, t = s[sl], t[sl]
    if transpose and s.ndim > 1:
        s, t = s.transpose(0, -1), t.transpose(0, -1)
    ps, pt = getattr(st, part)(s), getattr(torch, part)(t)
    assert layout(ps) == layout(pt)
    assert str(ps.dtype).split(".")[-1] == str(pt.dtype).split(".")[-1]
    np.testing.assert_array_equal(to_numpy(ps), pt.numpy())
    # a write through the part reaches the complex tensor, as PyTorch's
    ps.fill_(7.5)
    pt.fill_(7.5)
    np.testing.assert_array_equal(to_numpy(s), t.numpy())


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_real_of_a_real_tensor_is_the_tensor(dtype):
    s = st.tensor(np.array([1, 0, 2], dtype=dtype))
    t = torch.tensor(np.array([1, 0, 2], dtype=dtype))
    assert (torch.real(t) is t) and (st.real(s) is s)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_imag_of_a_real_tensor_is_refused(dtype):
    with pytest.raises(RuntimeError, match="non-complex"):
        torch.imag(torch.tensor(np.array([1, 0], dtype=dtype)))
    with pytest.raises(RuntimeError, match=f"non-complex.*{dtype}"):
        st.imag(st.tensor(np.array([1, 0], dtype=dtype)))


def test_non_tensor_input_is_refused():
    for f in (st.real, st.imag):
        with pytest.raises(TypeError, match="must be a tensor"):
            f([1.0, 2.0])
    with pytest.raises(TypeError):
        torch.real([1.0, 2.0])


def test_gradients_are_pytorchs():
    a = np.array([1 + 2j, 3 - 4j, -0.5 + 0.25j])
    zs = st.tensor(a, requires_grad=True)
    zt = torch.tensor(a, requires_grad=True)
    for z, lib in ((zs, st), (zt, torch)):
        (lib.real(z) ** 2 * 3 + lib.imag(z) * lib.real(z)).sum().backward()
    np.testing.assert_allclose(to_numpy(zs.grad), zt.grad.numpy(), rtol=1e-12)


def test_standard_namespace_keeps_new_arrays():
    """``strided.real`` (the standard's) is a new array: a write into it leaves ``z`` alone."""
    z = strided.asarray([1 + 2j, 3 + 4j])
    r = strided.real(z)
    r[0] = 9.0
    assert complex(z[0]) == 1 + 2j
