"""The names PyTorch programs meet first: ``torch.accelerator``, ``torch.distributed``, the legacy
tensor types (``torch.FloatTensor``, ...) with ``set_default_tensor_type``, ``torch.GradScaler``,
``get_device_module``, ``empty_permuted``, the top-level autocast state functions and
``set_anomaly_enabled``, against PyTorch 2.13 on the same calls."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402
from strided.torch import _entry_names  # noqa: E402

HAS_CUDA = S.cuda.is_available()  # (True under the CuPy stand-in; PyTorch here is a CPU build)
TORCH_CUDA = torch.cuda.is_available()
SAME_MACHINE = HAS_CUDA == TORCH_CUDA  # (both see an accelerator, or neither does)


def outcome(f, m):
    """What ``f(m)`` gives: ("ok", value) or (error type, message), warnings recorded."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = ("ok", f(m))
        except Exception as e:  # noqa: BLE001
            r = (type(e), str(e))
    return r, [(x.category, str(x.message).split(" (Triggered internally")[0]) for x in w]


# --- torch.accelerator ---------------------------------------------------------------------------

def test_accelerator_agrees_with_cuda():
    A = S.accelerator
    assert A.is_available() is S.cuda.is_available()
    assert A.device_count() == (S.cuda.device_count() if HAS_CUDA else 0)
    acc = A.current_accelerator()
    if HAS_CUDA:
        assert acc.type == "cuda" and A.current_device_index() == S.cuda.current_device()
        assert S.zeros(2, device=acc).device.type == "cuda"
        A.set_device_index(A.current_device_index())  # (the current one: a no-op)
        A.set_device_index(-1)
        A.synchronize()
        A.synchronize(0)
        A.synchronize("cuda:0")
        with A.device_index(0):
            pass
        with pytest.raises(ValueError, match="cpu doesn't match the current accelerator cuda"):
            A.set_device_index("cpu")
        with pytest.raises(ValueError, match="Expected a torch.device with a specified index"):
            A.set_device_index("cuda")
        with pytest.raises((RuntimeError, NotImplementedError)):
            A.set_device_index(A.device_count())  # (no such device, or one strided cannot make current)
    else:
        assert acc is None and A.current_accelerator(check_available=True) is None
    # the quickstart's first line
    device = A.current_accelerator().type if A.is_available() else "cpu"
    assert S.ones(2, device=device).device.type == device


@pytest.mark.parametrize("call", [
    "current_accelerator()", "current_accelerator(True)", "is_available()", "device_count()",
    "current_device_index()", "current_device_idx()", "set_device_index(0)", "set_device_index(-1)",
    "set_device_index('cuda:0')", "set_device_index('cpu')", "set_device_idx(0)", "synchronize()",
    "synchronize(0)", "synchronize('cuda')", "synchronize('cpu')", "device_index(None).__enter__()",
    "device_index(0).__enter__()",
])
def test_accelerator_is_pytorchs(call):
    if not SAME_MACHINE:
        pytest.skip("strided and PyTorch see different accelerators here")
    want, ww = outcome(lambda m: eval("m.accelerator." + call), torch)
    got, gw = outcome(lambda m: eval("m.accelerator." + call), S)
    assert gw == ww
    if want[0] == "ok":
        assert got[0] == "ok"
        assert (got[1] is None) == (want[1] is None)
        assert getattr(got[1], "type", got[1]) == getattr(want[1], "type", want[1])
    else:
        assert got == want


def test_accelerator_lacks_what_strided_lacks():
    with pytest.raises(AttributeError, match="memory_allocated"):
        S.accelerator.memory_allocated
    assert "accelerator" in S.__all__ and "distributed" in S.__all__


# --- torch.distributed -----------------------------------------------------------------------------

@pytest.mark.parametrize("call", ["get_rank()", "get_world_size()", "barrier()", "get_backend()",
                                  "all_reduce(m.ones(2))", "broadcast(m.ones(2), 0)",
                                  "all_gather([m.ones(2)], m.ones(2))", "get_rank(group=None)"])
def test_distributed_needs_a_process_group(call):
    (wtype, wmsg), _ = outcome(lambda m: eval("m.distributed." + call), torch)
    (gtype, gmsg), _ = outcome(lambda m: eval("m.distributed." + call), S)
    assert gtype is wtype is ValueError
    assert gmsg.startswith(wmsg), gmsg  # (PyTorch's words, then why it is always so in strided)


def test_distributed_is_truthfully_absent():
    D = S.distributed
    assert D.is_available() is False and D.is_initialized() is False
    assert torch.distributed.is_initialized() is False  # (PyTorch's, before any init: the same answer)
    assert (D.is_nccl_available(), D.is_gloo_available(), D.is_mpi_available()) == (False, False, False)
    assert D.is_torchelastic_launched() == torch.distributed.is_torchelastic_launched()
    with pytest.raises(RuntimeError, match="Distributed package doesn't have NCCL built in"):
        D.init_process_group("nccl", init_method="tcp://127.0.0.1:1", world_size=1, rank=0)
    with pytest.raises(RuntimeError, match="strided has no process-group backend"):
        D.init_process_group()
    with pytest.raises(AttributeError, match="no process-group backend"):
        D.new_group
    # the usual guard
    rank = D.get_rank() if D.is_available() and D.is_initialized() else 0
    assert rank == 0


# --- the legacy tensor types -----------------------------------------------------------------------

LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
          "ByteTensor", "BoolTensor"]


def test_the_legacy_types_are_pytorchs():
    legacy_torch = sorted(n for n in dir(torch) if n.endswith("Tensor") and n[:1].isupper() and n != "Tensor")
    assert sorted(LEGACY + ["BFloat16Tensor"]) == legacy_torch  # (no bfloat16 in strided)
    for n in LEGACY:
        T, P = getattr(S, n), getattr(torch, n)
        assert T.__name__ == n and str(T.dtype).split(".")[-1] == str(P.dtype).split(".")[-1]
        assert (T.is_cuda, T.is_sparse, T.layout is S.strided) == (P.is_cuda, P.is_sparse, True)
        assert not issubclass(S.Tensor, T) and not issubclass(torch.Tensor, P)
        assert T.add is S.Tensor.add
    import pickle
    assert pickle.loads(pickle.dumps(S.LongTensor)) is S.LongTensor


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8",
                                   "bool", "complex64"])
def test_isinstance_and_type_strings(dtype):
    for m in (torch, S):
        x = m.zeros(3, dtype=getattr(m, dtype), device="cpu")
        views = [x, x[::2], x.requires_grad_() if x.is_floating_point() else x]
        got = [[isinstance(v, getattr(m, n)) for n in LEGACY] for v in views]
        if m is torch:
            want = got
        else:
            assert got == want
        assert isinstance(x, m.Tensor)
    assert S.zeros(1, dtype=getattr(S, dtype), device="cpu").type() == \
        torch.zeros(1, dtype=getattr(torch, dtype)).type()
    assert not isinstance(1.0, S.FloatTensor) and not isinstance(np.zeros(2, np.float32), S.FloatTensor)
    if HAS_CUDA:
        assert not isinstance(S.zeros(2, dtype=S.float32, device="cuda"), S.FloatTensor)  # (torch.cuda.FloatTensor's)


DATA_CALLS = [
    "FloatTensor([1, 2])", "FloatTensor([[1, 2], [3, 4]])", "DoubleTensor([1.1])", "LongTensor([1.5, 2.7, -1.7])",
    "LongTensor([])", "FloatTensor([[]])", "FloatTensor([[], []])", "FloatTensor([[], [1]])", "BoolTensor([0, 2])",
    "BoolTensor([2.5, 0.0, float('nan')])", "BoolTensor([1 + 1j, 0j])", "ByteTensor([-1, 255])", "ByteTensor([-255])",
    "ByteTensor([True])", "CharTensor([-128, 127])", "HalfTensor([1, 2])", "HalfTensor([1e6])",
    "FloatTensor([1e40])", "FloatTensor([1, 2.5, True])", "LongTensor([True, 2])", "FloatTensor((2, 3))",
    "FloatTensor(range(3))", "FloatTensor([np.float64(1.5)])", "FloatTensor([np.float32(1.5)])",
    "LongTensor([np.float64(1.5)])", "LongTensor([np.int8(-3)])", "ByteTensor([np.int8(-3)])",
    "FloatTensor([np.array([1, 2]), np.array([3, 4])])", "FloatTensor(np.array([1, 2]))",
    "FloatTensor(np.array(2.0))", "ByteTensor(np.array([300]))", "LongTensor(np.array([1.0, 2.0]))",
    "FloatTensor([m.tensor(1., device='cpu'), m.tensor(2, device='cpu')])",
    "IntTensor([2**31 - 1, -2**31])", "ShortTensor([-32768])",
    # refusals
    "ByteTensor([1, 300])", "ByteTensor([-256])", "ByteTensor([300.0])", "ByteTensor([255.9])",
    "ByteTensor([-1.5])", "CharTensor([-129])", "IntTensor([2**31])", "ShortTensor([40000])",
    "LongTensor([1e20])", "LongTensor([float('nan')])", "LongTensor([2**63])", "LongTensor([2**64 - 1])",
    "ByteTensor([np.int64(300)])", "FloatTensor([[1, 2], [3]])", "FloatTensor([[[1]], [[2, 3]]])",
    "FloatTensor([[1], 2])", "FloatTensor([1, [2]])", "FloatTensor([1 + 2j])", "FloatTensor([None])",
    "LongTensor([None])", "LongTensor([1 + 1j])", "BoolTensor([None])", "LongTensor([np.float32(1.5)])",
    "FloatTensor(['ab'])", "FloatTensor('a')", "FloatTensor(2.5)", "FloatTensor(True)", "FloatTensor(None)",
    "FloatTensor({1: 2})", "FloatTensor(iter([1, 2]))", "FloatTensor(np.float64(2.0))",
    "FloatTensor([m.ones(2, device='cpu'), m.ones(2, device='cpu')])",
    "LongTensor([m.tensor(1.5, device='cpu')])", "ByteTensor([m.tensor(300, device='cpu')])",
    "BoolTensor([m.tensor(2.5, device='cpu')])", "FloatTensor([10**400])",
]


@pytest.mark.parametrize("call", DATA_CALLS)
def test_legacy_constructor_from_data(call):
    (wk, wv), _ = outcome(lambda m: eval("m." + call), torch)
    (gk, gv), _ = outcome(lambda m: eval("m." + call), S)
    if wk != "ok":
        assert (gk, gv) == (wk, wv)
        return
    assert gk == "ok", gv
    assert gv.device.type == "cpu" and str(gv.dtype).split(".")[-1] == str(wv.dtype).split(".")[-1]
    assert tuple(gv.shape) == tuple(wv.shape)
    np.testing.assert_array_equal(np.asarray(gv.tolist()), wv.numpy())


SIZE_CALLS = [
    "FloatTensor(2, 3)", "FloatTensor()", "FloatTensor(0)", "FloatTensor(2, 0)", "LongTensor(4)",
    "FloatTensor(m.Size([2, 3]))", "FloatTensor(m.Size([]))", "FloatTensor(np.int64(3))",
    "FloatTensor(3, np.int64(2))", "FloatTensor(m.tensor(3, device='cpu'), 2)",
    "FloatTensor(2, m.tensor([3], device='cpu'))", "FloatTensor(2, True)", "BoolTensor(2, 1)",
    "FloatTensor(2, 3, device='cpu')", "FloatTensor(2, device=m.device('cpu'))", "FloatTensor([1.0], device='cpu')",
    # refusals
    "FloatTensor(-1)", "FloatTensor(2, -1)", "FloatTensor(-2, -1)", "FloatTensor(2, 3.0)", "FloatTensor(3, [1])",
    "FloatTensor(2, m.ones(2))", "FloatTensor(2, device='meta')", "FloatTensor([1.0], device='meta')",
]


@pytest.mark.parametrize("call", SIZE_CALLS)
def test_legacy_constructor_from_sizes(call):
    (wk, wv), _ = outcome(lambda m: eval("m." + call), torch)
    (gk, gv), _ = outcome(lambda m: eval("m." + call), S)
    if wk != "ok":
        assert (gk, gv) == (wk, wv)
        return
    assert gk == "ok", gv
    assert gv.device.type == "cpu" and str(gv.dtype).split(".")[-1] == str(wv.dtype).split(".")[-1]
    assert tuple(gv.shape) == tuple(wv.shape) and tuple(gv.stride()) == tuple(wv.stride())


def test_legacy_constructor_refusals_of_pytorchs_type():
    for m in (torch, S):
        with pytest.raises(TypeError):
            m.FloatTensor(True, 2)  # (PyTorch: an invalid combination of arguments)
        with pytest.raises(TypeError):
            m.FloatTensor(2, dtype=m.float64)
    if HAS_CUDA:
        with pytest.raises(RuntimeError, match="legacy constructor expects device type: cpu but device type: cuda"):
            S.FloatTensor(2, device="cuda")


@pytest.mark.parametrize("src,T", [("int64", "LongTensor"), ("float32", "FloatTensor"), ("float32", "LongTensor"),
                                   ("int64", "FloatTensor"), ("float64", "FloatTensor"), ("complex64", "FloatTensor"),
                                   ("uint8", "BoolTensor"), ("int16", "ShortTensor")])
def test_legacy_constructor_of_a_tensor(src, T):
    res = []
    for m in (torch, S):
        x = m.tensor([1, 2], dtype=getattr(m, src), device="cpu")
        try:
            y = getattr(m, T)(x)
        except TypeError as e:
            res.append(("TypeError", str(e)))
            continue
        # an alias: a new tensor object over x's memory
        y[0] = 7
        res.append(("ok", y is x, x.tolist()))
    assert res[1] == res[0]


def test_legacy_constructor_of_a_tensor_keeps_autograd_and_numpy_memory():
    for m in (torch, S):
        a = m.ones(2, device="cpu", requires_grad=True)
        b = m.FloatTensor(a)
        assert b.requires_grad and b.grad_fn is not None
        (b * 3).sum().backward()
        assert a.grad.tolist() == [3.0, 3.0]
        arr = np.ones(2, np.float32)
        t = m.FloatTensor(arr)
        arr[0] = 5
        assert t.tolist() == [5.0, 1.0]  # (shares the ndarray's memory, as torch.from_numpy)
    if HAS_CUDA:
        with pytest.raises(TypeError, match=r"device=cuda:0"):
            S.FloatTensor(S.ones(2, device="cuda"))


@pytest.mark.parametrize("target", ["torch.LongTensor", "torch.DoubleTensor", "'torch.IntTensor'",
                                    "torch.FloatTensor", "'torch.BoolTensor'"])
def test_type_casts_to_a_legacy_type(target):
    got = []
    for m in (torch, S):
        x = m.tensor([1.5, -2.0], device="cpu")
        y = x.type(eval(target.replace("torch.", "m.") if not target.startswith("'") else target))
        got.append((y.type(), y.tolist(), y is x))
    assert got[1] == got[0]


def test_set_default_tensor_type():
    dt = S.get_default_dtype()
    _entry_names._STATE["warned_default_tensor_type"] = False
    try:
        for arg in ("m.DoubleTensor", "'torch.FloatTensor'", "'torch.DoubleTensor'", "m.FloatTensor"):
            got = []
            for m in (torch, S):
                r, w = outcome(lambda m: m.set_default_tensor_type(eval(arg)), m)
                got.append((r, [c for c, _ in w], str(m.tensor([1.5]).dtype).split(".")[-1],
                            str(m.get_default_dtype()).split(".")[-1], m.Tensor(1, device="cpu").type()))
            assert got[1][2:] == got[0][2:] and got[1][0] == got[0][0]
        # the deprecation warning: once per process, PyTorch's words (this process's PyTorch has warned)
        _entry_names._STATE["warned_default_tensor_type"] = False
        _, w = outcome(lambda m: m.set_default_tensor_type(m.FloatTensor), S)
        assert w == [(UserWarning, "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                                   "torch.set_default_dtype() and torch.set_default_device() as alternatives.")]
        assert outcome(lambda m: m.set_default_tensor_type(m.FloatTensor), S)[1] == []
        for arg in ("m.LongTensor", "'torch.LongTensor'", "m.float64", "3", "'torch.Foo'", "'FloatTensor'"):
            (wt, wm), _ = outcome(lambda m: m.set_default_tensor_type(eval(arg)), torch)
            (gt, gm), _ = outcome(lambda m: m.set_default_tensor_type(eval(arg)), S)
            assert gt is wt, arg
            if wt is TypeError:
                assert gm == wm
        if not HAS_CUDA:
            assert outcome(lambda m: m.set_default_tensor_type("torch.cuda.FloatTensor"), S)[0] == \
                outcome(lambda m: m.set_default_tensor_type("torch.cuda.FloatTensor"), torch)[0]
        with pytest.raises(NotImplementedError, match="float16"):
            S.set_default_tensor_type(S.HalfTensor)  # (PyTorch takes it; strided's default is float32/float64)
    finally:
        torch.set_default_dtype(torch.float32)
        S.set_default_dtype(dt)


# --- GradScaler, get_device_module, empty_permuted -------------------------------------------------

def test_grad_scaler_and_get_device_module():
    assert S.GradScaler is S.amp.GradScaler and torch.GradScaler is torch.amp.GradScaler
    for arg in ("'cpu'", "'cuda'", "'cuda:1'", "m.device('cpu')", "None", "'mps'", "'meta'", "'foo'", "0"):
        want, _ = outcome(lambda m: m.get_device_module(eval(arg)), torch)
        got, _ = outcome(lambda m: m.get_device_module(eval(arg)), S)
        if want[0] == "ok":
            if arg in ("'mps'",):  # (PyTorch has a torch.mps; strided has no such device)
                assert got[0] is RuntimeError and "torch.mps" in got[1]
            elif arg != "None" or SAME_MACHINE:
                assert got[1].__name__ == "strided." + want[1].__name__
        else:
            assert got == want
    assert S.get_device_module().__name__ == ("strided.torch.cuda" if HAS_CUDA else "strided.torch.cpu")


@pytest.mark.parametrize("call", [
    "((2, 3, 5, 7), (0, 2, 3, 1))", "([2, 3], [1, 0])", "((2, 3, 4), (2, 0, 1), dtype=m.float64, requires_grad=True)",
    "((), ())", "((2, 0, 3), (2, 1, 0))", "((2, 1, 3), (1, 0, 2))", "(m.Size([2, 3]), (1, 0))",
    "((2, 3), (1, 0), layout=m.strided)", "((2, 3), (1, 0), device='cpu')", "((2, 3), physical_layout=(1, 0))",
    "((4, 3, 2), (0, 1, 2), dtype=m.int64)",
    # refusals
    "((2, 3), (0, 0))", "((2, 3), (0,))", "((2, 3), (0, 2))", "((2, 3), (0, -1))", "((2, -1), (1, 0))",
    "((2, 3), (1, 0), pin_memory=True)", "(2, (0,))", "((2, 3), (1.0, 0))", "((2, 3.0), (1, 0))",
    "((2, 3), (1, 0), out=None)",
])
def test_empty_permuted_is_pytorchs(call):
    (wk, wv), _ = outcome(lambda m: eval("m.empty_permuted" + call), torch)
    (gk, gv), _ = outcome(lambda m: eval("m.empty_permuted" + call), S)
    if wk != "ok":
        assert gk is wk
        if wk is not TypeError or "out" not in call:  # (Python's words for an unknown keyword)
            assert gv == wv
        return
    assert gk == "ok", gv
    assert (tuple(gv.shape), tuple(gv.stride()), str(gv.dtype).split(".")[-1], gv.requires_grad, gv.is_leaf) == \
        (tuple(wv.shape), tuple(wv.stride()), str(wv.dtype).split(".")[-1], wv.requires_grad, wv.is_leaf)
    assert gv.device == S.get_default_device() or "device=" in call


# --- autocast state --------------------------------------------------------------------------------

@pytest.fixture
def autocast_state():
    """Each test leaves both libraries' autocast state as it found it."""
    yield
    for m in (torch, S):
        m.set_autocast_enabled("cpu", False)
        m.set_autocast_enabled("cuda", False)
        m.set_autocast_dtype("cuda", m.float16)
        m.set_autocast_cache_enabled(True)
    torch.set_autocast_dtype("cpu", torch.bfloat16)
    from strided.torch.amp import autocast_mode
    autocast_mode._STATE.dtype["cpu"] = autocast_mode._BFLOAT16
    autocast_mode._STATE.nesting = 0
    n = torch.autocast_decrement_nesting()  # (back to 0: PyTorch's counter has no setter)
    while n != 0:
        n = torch.autocast_increment_nesting() if n < 0 else torch.autocast_decrement_nesting()


STATE_CALLS = [
    # (a sequence of calls; each result, error and warning is compared)
    ["is_autocast_enabled()", "is_autocast_enabled('cpu')", "is_autocast_enabled('cuda')"],
    ["set_autocast_enabled('cpu', False)", "is_autocast_enabled('cpu')"],
    ["set_autocast_dtype('cuda', m.float64)", "get_autocast_dtype('cuda')", "set_autocast_dtype('cuda', m.float16)"],
    ["set_autocast_dtype('cpu', m.float16)", "get_autocast_dtype('cpu')", "get_autocast_cpu_dtype()"],
    ["set_autocast_dtype('cpu', m.int64)", "get_autocast_dtype('cpu')"],
    ["set_autocast_cpu_dtype(m.float16)", "get_autocast_dtype('cpu')", "get_autocast_cpu_dtype()"],
    ["set_autocast_gpu_dtype(m.float64)", "get_autocast_dtype('cuda')", "get_autocast_gpu_dtype()"],
    ["get_autocast_gpu_dtype()", "is_autocast_cpu_enabled()", "set_autocast_cpu_enabled(False)"],
    ["is_autocast_cache_enabled()", "set_autocast_cache_enabled(False)", "is_autocast_cache_enabled()",
     "set_autocast_cache_enabled(True)", "clear_autocast_cache()"],
    ["autocast_increment_nesting()", "autocast_increment_nesting()", "autocast_decrement_nesting()",
     "autocast_decrement_nesting()", "autocast_decrement_nesting()", "autocast_increment_nesting()"],
    # refusals
    ["set_autocast_dtype('foo', m.float16)"], ["set_autocast_dtype('cpu', 'float16')"],
    ["set_autocast_enabled('cpu', 1)"], ["set_autocast_enabled('cpu')"], ["set_autocast_enabled('cpu', None)"],
    ["set_autocast_enabled(1)"], ["set_autocast_enabled('cpu', True, 3)"], ["set_autocast_cache_enabled(1)"],
    ["set_autocast_cpu_enabled(1)"],
]


@pytest.mark.parametrize("calls", STATE_CALLS, ids=lambda c: c[0])
def test_autocast_state_is_pytorchs(calls, autocast_state):
    for call in calls:
        want, ww = outcome(lambda m: eval("m." + call), torch)
        got, gw = outcome(lambda m: eval("m." + call), S)
        assert gw == ww, call
        if want[0] == "ok":
            assert got[0] == "ok", (call, got)
            assert str(got[1]).split(".")[-1] == str(want[1]).split(".")[-1], call
        else:
            assert got == want, call


def test_autocast_enabled_is_seen_as_in_pytorch(autocast_state):
    # CUDA where strided has none: the flag changes no op, and is seen as PyTorch's is
    if not HAS_CUDA and not TORCH_CUDA:
        for m in (torch, S):
            m.set_autocast_enabled(True)
            assert (m.is_autocast_enabled(), m.is_autocast_enabled("cuda"), m.is_autocast_enabled("cpu")) == \
                (True, True, False)
            m.set_autocast_enabled("cuda", False)
            assert m.is_autocast_enabled() is False
    # CPU (and CUDA where strided has it): PyTorch would then autocast ops; strided cannot
    a = torch.ones(2, 2)
    torch.set_autocast_enabled("cpu", True)
    assert (a @ a).dtype == torch.bfloat16
    torch.set_autocast_enabled("cpu", False)
    for call in (lambda: S.set_autocast_enabled("cpu", True), lambda: S.set_autocast_cpu_enabled(True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            with pytest.raises(NotImplementedError, match="no per-op autocast policy"):
                call()
    assert S.is_autocast_enabled("cpu") is False
    if HAS_CUDA:
        with pytest.raises(NotImplementedError):
            S.set_autocast_enabled("cuda", True)
    # the state torch.autocast keeps is the same state
    with S.autocast("cpu", enabled=False, cache_enabled=False):
        assert S.is_autocast_cache_enabled() is False and S.autocast_increment_nesting() == 2
        S.autocast_decrement_nesting()
    assert S.is_autocast_cache_enabled() is True
    S.set_autocast_dtype("cpu", S.float32)
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported"):
        with S.autocast("cpu"):
            pass
    with pytest.raises(RuntimeError, match="strided has no 'mps' device"):
        S.set_autocast_enabled("mps", False)


def test_set_anomaly_enabled_is_pytorchs():
    try:
        for calls in (["set_anomaly_enabled(True)", "is_anomaly_enabled()", "is_anomaly_check_nan_enabled()"],
                      ["set_anomaly_enabled(True, False)", "is_anomaly_check_nan_enabled()",
                       "set_anomaly_enabled(False)", "is_anomaly_enabled()", "is_anomaly_check_nan_enabled()"],
                      ["set_anomaly_enabled(1)"], ["set_anomaly_enabled(True, 0)"]):
            for call in calls:
                want, ww = outcome(lambda m: eval("m." + call), torch)
                got, gw = outcome(lambda m: eval("m." + call), S)
                assert got == want and gw == ww, call
        S.set_anomaly_enabled(True)
        x = S.tensor([0.0, 1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="returned nan values"):
            (x.sqrt() * 0).sum().backward()
    finally:
        torch.set_anomaly_enabled(False)
        S.set_anomaly_enabled(False)
