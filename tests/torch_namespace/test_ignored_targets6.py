"""``cross_entropy`` and ``nll_loss`` with ignored targets, against PyTorch 2.13: an ignored
target's loss element and gradient are 0 -- also when every target is ignored (the mean is
0/0 = NaN, its gradient 0 for the ignored rows) and when the ignored row's log-probability at
the placeholder class is -inf. A class of weight 0 that is not ignored gives PyTorch's NaN.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import strided.torch as st  # noqa: E402

_TARGETS = ([-100] * 4, [0, -100, 2, -100], [2, 2, -100, 1], [2, 0, 1, 2])


@pytest.mark.parametrize("targets", _TARGETS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weight", [None, [1.0, 2.0, 0.5], [1.0, 2.0, 0.0]])
@pytest.mark.parametrize("func, label_smoothing",
                         [("cross_entropy", 0.0), ("cross_entropy", 0.1), ("nll_loss", 0.0)])
def test_ignored_targets_are_pytorchs(func, label_smoothing, weight, reduction, targets):
    x = np.random.default_rng(len(str(targets))).standard_normal((4, 3))
    x[1, 0] = -np.inf  # (row 1's class 0: the placeholder an ignored target is read at)
    if func == "nll_loss":
        x = np.asarray(torch.log_softmax(torch.tensor(x), 1))
    kw = dict(reduction=reduction)
    if label_smoothing:
        kw["label_smoothing"] = label_smoothing
    xt = torch.tensor(x, requires_grad=True)
    want = getattr(torch.nn.functional, func)(
        xt, torch.tensor(targets), weight=None if weight is None else torch.tensor(weight, dtype=torch.float64), **kw)
    want.sum().backward()
    xs = st.tensor(x, requires_grad=True)
    got = getattr(st.nn.functional, func)(
        xs, st.tensor(targets), weight=None if weight is None else st.tensor(weight, dtype=st.float64), **kw)
    got.sum().backward()
    np.testing.assert_allclose(np.asarray(got.detach().cpu()), want.detach().numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.asarray(xs.grad.cpu()), xt.grad.numpy(), rtol=1e-12, atol=1e-15)
