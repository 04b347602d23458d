"""``strided.torch.broadcast_tensors`` records one expand per input, as PyTorch's: an input that
no used result depends on keeps ``grad`` None (one joint node gave it zeros), and the gradients
of the used ones are PyTorch's."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)

SHAPES = [((3,), (2, 1)), ((1, 4), (3, 1), (4,)), ((2, 3), (2, 3))]


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("used", [(0,), (1,), (0, 1)])
def test_grads_and_nones_are_pytorchs(shapes, used, on_cpu):
    rng = np.random.default_rng(len(shapes) + sum(used))
    vals = [rng.standard_normal(s) for s in shapes]
    res, fns, same = {}, {}, {}
    for lib in (torch, st):
        xs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in vals]
        outs = lib.broadcast_tensors(*xs)
        fns[lib] = [type(o.grad_fn).__name__ for o in outs]
        same[lib] = [o is x for o, x in zip(outs, xs)]  # (an input of the common shape: itself)
        loss = sum((outs[i] * float(i + 2)).sum() for i in used)
        loss.backward()
        res[lib] = [None if x.grad is None else (x.grad.numpy() if lib is torch else to_numpy(x.grad))
                    for x in xs]
    assert fns[st] == fns[torch] and same[st] == same[torch]
    for w, g in zip(res[torch], res[st]):
        assert (w is None) == (g is None)
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_without_grad_the_results_are_views_of_the_common_shape(on_cpu):
    a, b = st.broadcast_tensors(st.ones(2, 1), st.zeros(3))
    assert tuple(a.shape) == tuple(b.shape) == (2, 3)


@pytest.mark.parametrize("dst,src", [((), (1,)), ((3,), (1, 3)), ((2, 3), (1, 2, 3)), ((2, 3), (3,)),
                                     ((2, 3), ()), ((2, 3), (2, 1))])
def test_copy_broadcasts_the_source_to_the_target_only(dst, src, on_cpu):
    """copy_ takes a source that broadcasts to the target's shape, as PyTorch's; one with more
    dimensions (even leading ones) is refused, where NumPy's assignment would take it."""
    rng = np.random.default_rng(3)
    v = rng.standard_normal(src)
    t = torch.zeros(dst, dtype=torch.float64)
    s = st.zeros(dst, dtype=st.float64)
    try:
        t.copy_(torch.tensor(v))
    except RuntimeError:
        with pytest.raises(ValueError, match="can't be broadcast"):
            s.copy_(st.tensor(v))
        np.testing.assert_array_equal(to_numpy(s), np.zeros(dst))  # (nothing written)
        return
    s.copy_(st.tensor(v))
    np.testing.assert_array_equal(to_numpy(s), t.numpy())
