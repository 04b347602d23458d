"""flatten of a 0-d array and unflatten with no sizes: PyTorch's checks (PyTorch 2.13 as reference).

A 0-d tensor flattens to shape (1,) for dims 0 and -1 only; any other dim raises
IndexError. ``unflatten(dim, ())`` raises for every length of the dim (it used to
succeed on a length-1 dim, removing it).
"""
import itertools

import pytest

import strided as xp
import strided.torch as st

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("s, e", list(itertools.product(range(-3, 3), repeat=2)))
@pytest.mark.parametrize("door", ["function", "method"])
def test_flatten_0d_dims_as_pytorch(s, e, door):
    t = torch.tensor(2.5)
    x = st.tensor(2.5)
    try:
        want = torch.flatten(t, s, e)
    except IndexError:
        with pytest.raises(IndexError, match="out of bounds"):
            st.flatten(x, s, e) if door == "function" else x.flatten(s, e)
        return
    got = st.flatten(x, s, e) if door == "function" else x.flatten(s, e)
    assert tuple(got.shape) == tuple(want.shape) == (1,)
    assert float(got[0]) == 2.5


@pytest.mark.parametrize("shape, dim", [((2, 1, 3), 1), ((2, 0, 3), 1), ((4,), 0), ((1,), -1)])
def test_unflatten_empty_sizes_raises_as_pytorch(shape, dim):
    with pytest.raises(RuntimeError):
        torch.zeros(shape).unflatten(dim, ())
    x = xp.zeros(shape)
    with pytest.raises(ValueError, match="sizes must be non-empty"):
        x.unflatten(dim, ())
    with pytest.raises(ValueError, match="sizes must be non-empty"):
        st.unflatten(st.zeros(*shape), dim, ())
    assert x.shape == shape  # (nothing changed)


def test_unflatten_empty_sizes_named_raises():
    x = xp.zeros((2, 1, 3), names=("N", "C", "W"))
    with pytest.raises(ValueError, match="sizes must be non-empty"):
        x.unflatten("C", ())
