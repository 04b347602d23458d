"""PyTorch's ``keepdim`` is a bool and nothing else, and an empty ``dim`` is refused where
PyTorch refuses it: every reduction, through the function and the method, by keyword and
positionally, against PyTorch 2.13 (the outcome: the same shape and values, or both raise).

Before: ``keepdim=2``/``keepdim=None`` were taken as True/False, and ``prod``/``logsumexp``
with ``dim=()`` returned the input unreduced (PyTorch raises); ``max(x, dim=())`` named
``argmax`` in its error.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

REDUCTIONS = ["sum", "prod", "mean", "nansum", "nanmean", "std", "var", "amax", "amin", "all",
              "any", "argmax", "argmin", "max", "min", "logsumexp", "norm", "median", "mode",
              "count_nonzero"]
KEEPDIMS = [True, False, 1, 0, 2, None, np.True_, "yes"]
_DATA = np.array([[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]], np.float64)


def _value(r):
    if isinstance(r, tuple):  # (values, indices)
        return tuple(_value(v) for v in r)
    return np.asarray(r.tolist())


def _outcome(lib, fn):
    x = lib.tensor(_DATA.copy())
    try:
        r = fn(lib, x)
    except (TypeError, RuntimeError, ValueError, IndexError) as e:
        return ("raise", type(e).__name__, str(e))
    return ("ok", _value(r))


def _same(want, got, what):
    if want[0] == "raise":
        assert got[0] == "raise", (what, "PyTorch raises", want[2][:100], "strided returned", got)
        assert got[1] in ("TypeError", "RuntimeError", "ValueError", "IndexError")
        return
    assert got[0] == "ok", (what, "strided raised", got[1:], "PyTorch returned", want[1])
    w, g = want[1], got[1]
    for a, b in zip(w if isinstance(w, tuple) else (w,), g if isinstance(g, tuple) else (g,)):
        assert np.shape(a) == np.shape(b), what
        np.testing.assert_allclose(b, a, rtol=1e-12, err_msg=str(what))


def _doors(name, kd):
    yield "function kw", lambda lib, x: getattr(lib, name)(x, 1, keepdim=kd)
    yield "method kw", lambda lib, x: getattr(x, name)(1, keepdim=kd)
    yield "method dim= kw", lambda lib, x: getattr(x, name)(dim=1, keepdim=kd)
    if name not in ("std", "var", "norm", "count_nonzero"):  # (their third positional isn't keepdim)
        yield "function positional", lambda lib, x: getattr(lib, name)(x, 1, kd)
        yield "method positional", lambda lib, x: getattr(x, name)(1, kd)


@pytest.mark.parametrize("name", [n for n in REDUCTIONS if n != "count_nonzero"])  # (no keepdim in PyTorch)
def test_keepdim_must_be_bool(name):
    for kd in KEEPDIMS:
        for door, fn in _doors(name, kd):
            _same(_outcome(torch, fn), _outcome(st, fn), (name, door, kd))


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("empty", [(), []], ids=["tuple", "list"])
def test_empty_dim_means_or_raises_as_pytorch(name, empty):
    for door, fn in (("function", lambda lib, x: getattr(lib, name)(x, dim=empty)),
                     ("method", lambda lib, x: getattr(x, name)(dim=empty))):
        _same(_outcome(torch, fn), _outcome(st, fn), (name, door, empty))
