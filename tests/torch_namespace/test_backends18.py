"""``strided.torch.backends`` and ``strided.torch.random`` against PyTorch 2.13.

backends: the flags read PyTorch's defaults where their meaning holds trivially for strided
(cuDNN's, ``mkldnn.enabled``), set and read back, refuse a non-bool with PyTorch's
RuntimeError, and a misspelt flag with an AttributeError; the availability questions answer
what is true of strided (no cuDNN, MPS, oneDNN or OpenMP). random: seeds as PyTorch's
(``initial_seed``, negative seeds wrapped), the state round trip restores the stream, and
``fork_rng`` restores the generators; the draws themselves are compared only by properties.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

CUDNN_FLAGS = [("enabled", False), ("benchmark", True), ("deterministic", True), ("allow_tf32", False)]


@pytest.mark.parametrize("name,other", CUDNN_FLAGS)
def test_cudnn_flags_default_set_and_type_errors_are_pytorchs(name, other):
    assert getattr(st.backends.cudnn, name) == getattr(torch.backends.cudnn, name)
    default = getattr(st.backends.cudnn, name)
    try:
        setattr(st.backends.cudnn, name, other)
        assert getattr(st.backends.cudnn, name) is other
        errs = []
        for lib in (torch, st):
            for bad in ("yes", 1, None):
                with pytest.raises(RuntimeError) as e:
                    setattr(lib.backends.cudnn, name, bad)
                errs.append(str(e.value))
        assert errs[:3] == errs[3:]
        assert getattr(st.backends.cudnn, name) is other
    finally:
        setattr(st.backends.cudnn, name, default)
        setattr(torch.backends.cudnn, name, default)


def test_cudnn_module_answers_and_flags_context():
    c = st.backends.cudnn
    assert c.is_available() is False and c.version() is None
    assert c.benchmark_limit is torch.backends.cudnn.benchmark_limit is None
    c.benchmark_limit = 4
    with c.flags():
        assert c.benchmark_limit == 4
    c.benchmark_limit = None
    with c.flags(enabled=False, benchmark=True, deterministic=True, allow_tf32=False):
        assert (c.enabled, c.benchmark, c.deterministic, c.allow_tf32) == (False, True, True, False)
    assert (c.enabled, c.benchmark, c.deterministic, c.allow_tf32) == (True, False, False, True)
    with pytest.raises(AttributeError, match="no flag 'benchmrk'"):
        c.benchmrk = True
    cudnn = importlib.import_module("strided.torch.backends.cudnn")
    assert cudnn is c
    from strided.torch.backends import cudnn as again
    assert again is c


def test_matmul_tf32_flag(monkeypatch):
    m = st.backends.cuda.matmul
    assert m.allow_tf32 is torch.backends.cuda.matmul.allow_tf32 is False
    m.allow_tf32 = True
    assert m.allow_tf32 is True
    m.allow_tf32 = False
    errs = []
    for lib in (torch, st):
        with pytest.raises(RuntimeError) as e:
            lib.backends.cuda.matmul.allow_tf32 = "x"
        errs.append(str(e.value))
        with pytest.raises(AttributeError, match="Unknown attribute foo"):
            lib.backends.cuda.matmul.foo = 1
    assert errs[0] == errs[1]
    monkeypatch.setenv("CUPY_TF32", "1")
    assert m.allow_tf32 is True
    with pytest.raises(RuntimeError, match="CUPY_TF32=1"):
        m.allow_tf32 = False
    monkeypatch.delenv("CUPY_TF32")
    assert m.allow_tf32 is False


def test_availability_is_what_strided_has():
    b = st.backends
    assert b.mps.is_available() is torch.backends.mps.is_available() is False
    assert b.mps.is_built() is False
    assert b.mkldnn.is_available() is False and b.openmp.is_available() is False
    assert b.mkldnn.enabled is torch.backends.mkldnn.enabled is True
    b.mkldnn.enabled = False
    assert b.mkldnn.enabled is False
    b.mkldnn.enabled = True
    with pytest.raises(RuntimeError, match="expects a bool"):
        b.mkldnn.enabled = 0
    assert "backends" in dir(st) and hasattr(st, "random")
    assert "random" not in st.__all__  # (a star import must not shadow Python's random module)


# --- random ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2**32 + 5, 2**63 - 1, 2**64 - 1, -1, -(2**63)])
def test_manual_seed_and_initial_seed_are_pytorchs(seed):
    g = st.random.manual_seed(seed)
    tg = torch.random.manual_seed(seed)
    assert isinstance(g, st.Generator)
    assert st.random.initial_seed() == torch.random.initial_seed() == g.initial_seed() == tg.initial_seed()
    assert st.random.default_generator.initial_seed() == st.random.initial_seed()


def test_seed_bounds_errors():
    for bad in (2**64, -(2**63) - 1):
        with pytest.raises((ValueError, RuntimeError)):
            torch.manual_seed(bad)
        with pytest.raises(ValueError, match="64 bits"):
            st.random.manual_seed(bad)


def test_seed_is_fresh_and_recorded():
    a = st.random.seed()
    assert isinstance(a, int) and st.random.initial_seed() == a
    b = st.random.seed()
    assert a != b and 0 <= b < 2**64


def test_rng_state_round_trip_restores_the_stream():
    st.random.manual_seed(7)
    st.rand(5, device="cpu")
    s = st.random.get_rng_state()
    assert str(s.dtype).endswith("uint8") and s.ndim == 1
    a = to_numpy(st.randn(10, device="cpu"))
    st.random.manual_seed(123)
    st.random.set_rng_state(s)
    assert st.random.initial_seed() == 7
    np.testing.assert_array_equal(to_numpy(st.randn(10, device="cpu")), a)
    st.random.set_rng_state(s.clone())  # an array that is a copy of the state works too
    np.testing.assert_array_equal(to_numpy(st.randn(10, device="cpu")), a)
    st.random.set_rng_state(st.get_rng_state())  # strided.torch's dict
    before = st.random.get_rng_state()
    assert to_numpy(before).tolist() == to_numpy(st.random.get_rng_state()).tolist()


def test_set_rng_state_errors_are_pytorchs_types():
    for bad, err in (([1, 2], TypeError), ("float", TypeError), ("short", RuntimeError)):
        for lib in (torch, st):
            arg = {"float": lib.zeros(48), "short": lib.zeros(3, dtype=lib.uint8)}.get(bad, bad) \
                if isinstance(bad, str) else bad
            with pytest.raises(err):
                lib.random.set_rng_state(arg)


@pytest.mark.parametrize("enabled", [True, False])
def test_fork_rng(enabled):
    st.random.manual_seed(3)
    state = to_numpy(st.random.get_rng_state())
    with st.random.fork_rng(enabled=enabled):
        st.random.manual_seed(99)
        st.rand(4, device="cpu")
    restored = (to_numpy(st.random.get_rng_state()) == state).all()
    assert bool(restored) is enabled
    assert (st.random.initial_seed() == 3) is enabled
    st.random.manual_seed(3)
    with st.random.fork_rng(devices=[]):
        inside = to_numpy(st.rand(3, device="cpu"))
    np.testing.assert_array_equal(to_numpy(st.rand(3, device="cpu")), inside)  # (the draw inside was undone)


def test_random_module_lists_pytorchs_names():
    for name in ("set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"):
        assert name in torch.random.__all__ and name in st.random.__all__
        assert getattr(st.random, name).__doc__
