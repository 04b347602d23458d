"""``F.linear`` gives no floating-point warning, as every other door (found by the CI rehearsal).

``F.linear``'s recorded branches (an input or the weight requiring grad, ``nn.Linear``) called
NumPy's ``dot`` outside strided's quiet error state: under a user's
``warnings.simplefilter("error")`` an ``inf * 0`` in the product raised RuntimeWarning
("invalid value encountered in dot") where ``matmul``, ``torch.mm`` and PyTorch's own
``F.linear`` give NaN. (The CI rehearsal met it with finite inputs too: OpenBLAS's kernel for
a one-column product left the invalid flag set.) Each case against PyTorch's values.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402

from _parity import to_numpy  # noqa: E402

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def _inputs(n_out):
    a = np.ones((3, 5), np.float32)
    a[0, 0] = np.inf  # inf * 0 below: NaN, the invalid flag
    w = np.zeros((n_out, 5), np.float32)
    w[:, 1] = 0.5
    return a, w


@pytest.mark.parametrize("n_out", [1, 2, 7])
@pytest.mark.parametrize("grad", ["none", "input", "weight", "both"])
@pytest.mark.parametrize("bias", [False, True])
def test_linear_of_inf_times_zero_is_nan_and_quiet(n_out, grad, bias):
    a, w = _inputs(n_out)
    b = np.arange(n_out, dtype=np.float32) if bias else None
    ta, tw = torch.from_numpy(a.copy()), torch.from_numpy(w.copy())
    sa, sw = S.from_numpy(a.copy()), S.from_numpy(w.copy())
    if grad in ("input", "both"):
        ta.requires_grad_(), sa.requires_grad_()
    if grad in ("weight", "both"):
        tw.requires_grad_(), sw.requires_grad_()
    tb = None if b is None else torch.from_numpy(b)
    sb = None if b is None else S.from_numpy(b.copy())
    want = torch.nn.functional.linear(ta, tw, tb)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (a user's, in front of strided's own filters)
        got = S.nn.functional.linear(sa, sw, sb)
        if grad != "none":
            got.sum().backward()
    if grad != "none":
        want.sum().backward()
        for t, s in ((ta, sa), (tw, sw)):
            if t.requires_grad:
                np.testing.assert_array_equal(to_numpy(s.grad), t.grad.numpy())
    np.testing.assert_array_equal(to_numpy(got.detach()), want.detach().numpy())


def test_an_nn_linear_module_of_an_inf_input_is_quiet():
    torch.manual_seed(0)
    tm = torch.nn.Linear(5, 2)
    sm = S.nn.Linear(5, 2, device="cpu")  # (the suite may default to cuda: the inputs are on the cpu)
    with S.no_grad():
        sm.weight.copy_(S.from_numpy(tm.weight.detach().numpy().copy()))
        sm.bias.copy_(S.from_numpy(tm.bias.detach().numpy().copy()))
        sm.weight[:, 0] = 0.0
    with torch.no_grad():
        tm.weight[:, 0] = 0.0
    a, _ = _inputs(2)
    want = tm(torch.from_numpy(a.copy()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = sm(S.from_numpy(a.copy()))
    np.testing.assert_array_equal(to_numpy(got.detach()), want.detach().numpy())
