"""``strided.torch.jit``: the eager answers of PyTorch 2.13's ``torch.jit`` words, and a clear
refusal of compiling. Each answer is compared with real PyTorch's, outside a script."""

from __future__ import annotations

import typing
import warnings

import numpy as np
import pytest

import strided.torch as st

torch = pytest.importorskip("torch")
from _parity import to_numpy  # noqa: E402


def test_eager_answers_are_pytorchs():
    assert st.jit.is_scripting() is torch.jit.is_scripting() is False
    assert st.jit.is_tracing() is torch.jit.is_tracing() is False
    value = [1, 2]
    assert st.jit.annotate(typing.List[int], value) is value
    assert torch.jit.annotate(typing.List[int], value) is value
    assert st.jit.Final is torch.jit.Final is typing.Final


def _module(lib):
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(3, 2, dtype=lib.float64)

        @lib.jit.export
        def scaled(self, x):
            return self.lin(x) * 2

        @lib.jit.ignore
        def python_only(self, x):
            return x.sum()

        @lib.jit.unused
        def unused_path(self, x):
            return x - 1

        @lib.jit.ignore(drop=False)
        def kept(self, x):
            return x + 1

        def forward(self, x):
            if lib.jit.is_scripting():
                return x
            return self.kept(self.scaled(x)) + self.python_only(x) + self.unused_path(x).mean()

    return Block()


def test_decorated_methods_run_eagerly_as_in_pytorch():
    tm, sm = _module(torch), _module(st)
    w = np.arange(6.0).reshape(2, 3) / 7
    b = np.array([0.5, -0.25])
    with torch.no_grad():
        tm.lin.weight.copy_(torch.tensor(w))
        tm.lin.bias.copy_(torch.tensor(b))
    with st.no_grad():
        sm.lin.weight.copy_(st.tensor(w))
        sm.lin.bias.copy_(st.tensor(b))
    x = np.linspace(-1, 1, 12).reshape(4, 3)
    want = tm(torch.tensor(x))
    got = sm(st.tensor(x))  # (the default device: the module's)
    np.testing.assert_allclose(to_numpy(got), want.detach().numpy(), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("kwargs,warns", [({"drop": True}, True), ({"drop_on_export": True}, True),
                                          ({"drop": False}, False), ({}, False)])
def test_ignore_warns_as_pytorch(kwargs, warns):
    for lib in (torch, st):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            deco = lib.jit.ignore(**kwargs)

            def f(x):
                return x * 3

            assert deco(f) is f
        got = [str(m.message) for m in w if issubclass(m.category, FutureWarning)]
        assert bool(got) == warns, (lib.__name__, kwargs, got)
        if warns:
            assert got[0].startswith("ignore(")
    with pytest.raises(RuntimeError, match="must be a bool or a function"):
        torch.jit.ignore(3)
    with pytest.raises(RuntimeError, match="must be a bool or a function"):
        st.jit.ignore(3)


@pytest.mark.parametrize("name", ["script", "trace", "trace_module", "freeze", "save", "load",
                                  "optimize_for_inference"])
def test_compiling_is_refused_by_name(name):
    assert callable(getattr(torch.jit, name))  # a word PyTorch has
    with pytest.raises(NotImplementedError, match=f"torch.jit.{name}: strided has no TorchScript compiler"):
        getattr(st.jit, name)(lambda x: x)


def test_interface_takes_a_class_only():
    class I:
        def f(self, x: int) -> int:
            ...

    assert st.jit.interface(I) is I
    with pytest.raises(RuntimeError, match="interface must be applied to a class"):
        st.jit.interface(lambda x: x)
