"""``strided.torch.zeros/ones/empty/full`` take PyTorch's ``size`` spellings (``zeros(2, 3)``,
``zeros((2, 3))``, ``zeros(size=(2, 3))``, ``full(size=..., fill_value=...)``): shapes, dtypes and
values against PyTorch 2.13, and PyTorch's TypeError for a size given twice or not a sequence."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

CALLS = [
    ("zeros", (2, 3), {}), ("zeros", ((2, 3),), {}), ("zeros", (), {"size": (2, 3)}),
    ("zeros", (), {"size": [4]}), ("zeros", (), {"size": ()}), ("ones", (), {"size": (3,)}),
    ("ones", (2,), {"dtype": "int32"}), ("ones", (), {"size": (1, 2), "dtype": "float64"}),
    ("empty", (), {"size": (2, 2)}), ("full", (), {"size": (2,), "fill_value": 1.5}),
    ("full", ((2, 2), 3), {}), ("full", (), {"size": [3], "fill_value": True}),
    ("zeros", (), {"size": (2,), "requires_grad": True}),
]


def _kw(lib, kw):
    return {k: getattr(lib, v) if k == "dtype" else v for k, v in kw.items()}


@pytest.mark.parametrize("name,args,kw", CALLS, ids=[f"{c[0]}{c[1]}{sorted(c[2])}" for c in CALLS])
def test_shape_dtype_and_values_are_pytorchs(name, args, kw, on_cpu):
    want = getattr(torch, name)(*args, **_kw(torch, kw))
    got = getattr(st, name)(*args, **_kw(st, kw))
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    assert got.requires_grad == want.requires_grad
    if name != "empty":
        np.testing.assert_array_equal(to_numpy(got), want.detach().numpy())


BAD = [("zeros", (2,), {"size": (2,)}), ("zeros", (), {"size": 2}), ("ones", (), {"size": None}),
       ("empty", (), {"size": (2.0,)}), ("zeros", (), {"size": (2, "a")})]


@pytest.mark.parametrize("name,args,kw", BAD, ids=[f"{c[0]}{c[1]}{c[2]}" for c in BAD])
def test_bad_sizes_are_type_errors_as_in_pytorch(name, args, kw, on_cpu):
    with pytest.raises(TypeError):
        getattr(torch, name)(*args, **kw)
    with pytest.raises(TypeError, match="size"):
        getattr(st, name)(*args, **kw)


def test_strideds_own_shape_keyword_still_works(on_cpu):
    assert tuple(st.zeros(shape=(2, 1)).shape) == (2, 1)
    with pytest.raises(TypeError, match="size= and shape="):
        st.zeros(size=(2,), shape=(2,))
