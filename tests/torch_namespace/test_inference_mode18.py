"""``strided.torch.inference_mode`` against PyTorch 2.13 where strided has its meaning: nothing is
recorded inside (``no_grad``), ``mode=False`` records again (also inside ``no_grad``), the context
manager and the called decorator, the grad mode restored on exit and on an exception. strided makes
no inference tensors (that needs a flag the core does not have): ``Tensor.is_inference()`` and
``is_inference_mode_enabled()`` say so rather than answer."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided.torch as st
from _parity import to_numpy

LIBS = (torch, st)


def _leaf(lib):
    return lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)


@pytest.mark.parametrize("args,kwargs", [((), {}), ((True,), {}), ((), {"mode": True})])
def test_nothing_is_recorded_inside(args, kwargs):
    for lib in LIBS:
        x = _leaf(lib)
        with lib.inference_mode(*args, **kwargs):
            assert lib.is_grad_enabled() is False
            y = x * 2 + x.exp()
        assert y.requires_grad is False and y.grad_fn is None
        assert lib.is_grad_enabled() is True
        assert (x * 2).requires_grad


@pytest.mark.parametrize("outer", ["no_grad", "inference_mode", "enable_grad"])
def test_mode_false_records(outer):
    res = []
    for lib in LIBS:
        x = _leaf(lib)
        ctx = lib.inference_mode() if outer == "inference_mode" else getattr(lib, outer)()
        with ctx:
            with lib.inference_mode(mode=False):
                assert lib.is_grad_enabled() is True
                y = (x * x).sum()
            assert lib.is_grad_enabled() is (outer == "enable_grad")
        y.backward()
        res.append(x.grad)
    np.testing.assert_array_equal(to_numpy(res[1]), to_numpy(res[0]))


def test_called_decorator():
    for lib in LIBS:
        x = _leaf(lib)

        @lib.inference_mode()
        def off(t):
            """doc"""
            return t * 2, lib.is_grad_enabled()

        @lib.inference_mode(mode=False)
        def on(t):
            return t * 2, lib.is_grad_enabled()

        y, enabled = off(x)
        assert not y.requires_grad and enabled is False and off.__name__ == "off" and off.__doc__ == "doc"
        with lib.no_grad():
            z, enabled = on(x)
        assert z.requires_grad and enabled is True
        assert lib.is_grad_enabled() is True


def test_grad_mode_restored_after_an_exception():
    for lib in LIBS:
        with pytest.raises(KeyError):
            with lib.inference_mode():
                raise KeyError("x")
        assert lib.is_grad_enabled() is True
        with lib.no_grad():
            with pytest.raises(KeyError):
                with lib.inference_mode(False):
                    raise KeyError("x")
            assert lib.is_grad_enabled() is False


def test_values_inside_are_the_same():
    a = np.random.default_rng(0).standard_normal((3, 4))
    out = []
    for lib in LIBS:
        w = lib.tensor(a, requires_grad=True)
        with lib.inference_mode():
            out.append(lib.nn.functional.softmax(w @ w.T, dim=-1))
    np.testing.assert_allclose(to_numpy(out[1]), to_numpy(out[0]), rtol=1e-12)


def test_inference_tensors_are_refused_clearly():
    # (strided makes no inference tensors: asking which arrays are is an error that says so)
    with st.inference_mode():
        y = st.ones(2)
        with pytest.raises(NotImplementedError,
                           match="is_inference_mode_enabled\\(\\): strided's inference_mode"):
            st.is_inference_mode_enabled()
    with pytest.raises(NotImplementedError, match="is_inference\\(\\): strided's inference_mode is no_grad"):
        y.is_inference()
