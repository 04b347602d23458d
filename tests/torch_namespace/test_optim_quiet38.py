"""An optimizer's step runs quiet, as every door does, and gives PyTorch's values.

Adam's and AdamW's host updates (``optim/adam.py``) call NumPy themselves: under a user's
``np.errstate(all="raise")`` a gradient whose square overflows (1e200), underflows (1e-200) or
is infinite raised ``FloatingPointError`` where PyTorch's step gives inf, 0 or NaN. Each
optimizer, two steps from the same state, against PyTorch 2.13's parameters.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402

from _parity import to_numpy  # noqa: E402

_OPTIMIZERS = {"SGD": dict(momentum=0.9), "Adam": {}, "AdamW": {}, "Adam-amsgrad": dict(amsgrad=True),
               "RMSprop": {}, "Adagrad": {}, "Adadelta": {}, "Adamax": {}, "NAdam": {}, "RAdam": {},
               "ASGD": {}, "Rprop": {}}


def _steps(L, name, grad, raising):
    cls = getattr(L.optim, name.split("-")[0])
    p = L.nn.Parameter(L.tensor([1.0, -2.0, 0.5], dtype=L.float64))
    opt = cls([p], lr=0.1, **_OPTIMIZERS[name])
    for _ in range(2):
        p.grad = L.tensor([grad, -grad, 0.0], dtype=L.float64)
        if not raising:
            opt.step()
        else:  # (the user's strictest error state)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                with np.errstate(all="raise"):
                    opt.step()
    return p.detach().numpy() if L is torch else to_numpy(p)


@pytest.mark.parametrize("grad", [1e200, 1e-200, np.inf, 1.5])
@pytest.mark.parametrize("name", sorted(_OPTIMIZERS))
def test_step_is_quiet_and_pytorchs(name, grad):
    want = _steps(torch, name, grad, False)
    got = _steps(S, name, grad, True)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
