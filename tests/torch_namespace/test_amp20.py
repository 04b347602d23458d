"""``strided.torch.amp`` against PyTorch 2.13: GradScaler's scale sequence, skipped steps and
parameters over a few training steps; its errors, state dicts and pass-through when disabled;
autocast's no-op regions, PyTorch's own disable-with-warning cases, strided's refusals; custom_fwd /
custom_bwd; the deprecated torch.cuda.amp / torch.cpu.amp spellings."""

import pickle
import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]


def _np(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else to_numpy(x)


def _train(lib, dtype, opt_name, bad_steps, bad_value, scaler_kw, nsteps=7, explicit_unscale=False):
    """A small regression trained with a GradScaler; the loss is multiplied by ``bad_value`` at
    the steps in ``bad_steps`` (an inf or NaN gradient). Returns what to compare."""
    rng = np.random.default_rng(3)
    w0, b0 = rng.standard_normal((3, 2)), rng.standard_normal(2)
    x, y = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    dt = getattr(lib, dtype)
    w = lib.nn.Parameter(lib.tensor(w0, dtype=dt))
    b = lib.nn.Parameter(lib.tensor(b0, dtype=dt))
    X, Y = lib.tensor(x, dtype=dt), lib.tensor(y, dtype=dt)
    opt = {"SGD": lambda: lib.optim.SGD([w, b], lr=0.05, momentum=0.9),
           "Adam": lambda: lib.optim.Adam([w, b], lr=0.01)}[opt_name]()
    scaler = lib.amp.GradScaler("cpu", **scaler_kw)
    out = {"scale": [scaler.get_scale()], "tracker": [], "w": [], "b": [], "grad": [], "ret": []}
    for i in range(nsteps):
        opt.zero_grad()
        loss = ((X @ w + b - Y) ** 2).mean()
        if i in bad_steps:
            loss = loss * bad_value
        scaled = scaler.scale(loss)
        out.setdefault("scaled", []).append(float(scaled.item()))
        scaled.backward()
        if explicit_unscale:
            scaler.unscale_(opt)
            lib.nn.utils.clip_grad_norm_([w, b], max_norm=0.5)
        out["ret"].append(scaler.step(opt))
        out["grad"].append(_np(w.grad).copy())
        scaler.update()
        out["scale"].append(scaler.get_scale())
        out["tracker"].append(scaler.state_dict()["_growth_tracker"])
        out["w"].append(_np(w).copy())
        out["b"].append(_np(b).copy())
    out["state"] = scaler.state_dict()
    return out


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("bad_steps,bad_value", [((), 1.0), ((2,), float("inf")), ((1, 2, 5), float("nan")),
                                                 ((0, 4), float("-inf"))])
@pytest.mark.parametrize("scaler_kw", [dict(init_scale=8.0, growth_interval=2),
                                       dict(growth_factor=3.0, backoff_factor=0.25, growth_interval=1),
                                       dict()])
def test_training_steps_match_pytorch(dtype, opt_name, bad_steps, bad_value, scaler_kw):
    ref = _train(torch, dtype, opt_name, bad_steps, bad_value, scaler_kw)
    got = _train(st, dtype, opt_name, bad_steps, bad_value, scaler_kw)
    assert got["scale"] == ref["scale"]
    assert got["tracker"] == ref["tracker"]
    assert got["state"] == ref["state"]
    assert got["ret"] == ref["ret"]
    np.testing.assert_array_equal(np.isfinite(got["scaled"]), np.isfinite(ref["scaled"]))
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == "float64" else dict(rtol=2e-5, atol=2e-6)
    for key in ("w", "b", "grad"):
        for g, r in zip(got[key], ref[key]):
            assert g.dtype == r.dtype
            np.testing.assert_allclose(g, r, equal_nan=True, **tol)


@pytest.mark.parametrize("bad_steps", [(), (3,)])
def test_unscale_then_clip_then_step_matches_pytorch(bad_steps):
    kw = dict(init_scale=1024.0, growth_interval=3)
    ref = _train(torch, "float64", "SGD", bad_steps, float("inf"), kw, explicit_unscale=True)
    got = _train(st, "float64", "SGD", bad_steps, float("inf"), kw, explicit_unscale=True)
    assert got["scale"] == ref["scale"] and got["tracker"] == ref["tracker"]
    for key in ("w", "b", "grad"):
        for g, r in zip(got[key], ref[key]):
            np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-14, equal_nan=True)


def test_scale_does_not_grow_past_float32():
    for lib in (torch, st):
        w = lib.nn.Parameter(lib.tensor([1.0]))
        opt = lib.optim.SGD([w], lr=0.0)
        s = lib.amp.GradScaler("cpu", init_scale=2.0**126, growth_interval=1, growth_factor=4.0)
        seq = []
        for _ in range(3):
            s.scale(w.sum() * 0).backward()
            s.step(opt)
            s.update()
            seq.append(s.get_scale())
        if lib is torch:
            ref = seq
    assert seq == ref == [2.0**126] * 3


def test_scale_on_containers_matches_pytorch():
    vals = [np.array([1.0, -2.0]), np.array([[3.0]]), np.array([0.5])]
    res = {}
    for lib in (torch, st):
        s = lib.amp.GradScaler("cpu", init_scale=4.0)
        a, b, c = (lib.tensor(v) for v in vals)
        out = s.scale([a, (b, [c])])
        assert type(out) is list and type(out[1]) is tuple and type(out[1][1]) is list
        it = s.scale(iter([a, b]))
        assert not isinstance(it, (list, tuple))
        res[lib] = [_np(out[0]), _np(out[1][0]), _np(out[1][1][0])] + [_np(t) for t in it]
        with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
            s.scale([a, 3.0])
    for g, r in zip(res[st], res[torch]):
        np.testing.assert_array_equal(g, r)


def test_scale_keeps_the_dtype_and_gradient_like_pytorch():
    res = {}
    for lib in (torch, st):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        s = lib.amp.GradScaler("cpu", init_scale=16.0)
        y = s.scale((x * x).sum())
        y.backward()
        res[lib] = (y.dtype == lib.float64, float(y.item()), _np(x.grad))
    assert res[st][:2] == res[torch][:2]
    np.testing.assert_array_equal(res[st][2], res[torch][2])


def _scaler_and_opt(lib, **kw):
    w = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
    opt = lib.optim.SGD([w], lr=0.1)
    return w, opt, lib.amp.GradScaler("cpu", **kw)


@pytest.mark.parametrize("lib", [torch, st], ids=["torch", "strided"])
def test_usage_errors_are_pytorchs(lib):
    w, opt, s = _scaler_and_opt(lib)
    with pytest.raises(AssertionError, match="Attempted unscale_ but _scale is None"):
        s.unscale_(opt)
    with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
        s.step(opt)
    with pytest.raises(AssertionError, match="Attempted update but _scale is None"):
        s.update()
    s.scale((w * w).sum()).backward()
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        s.unscale_(opt)
    s.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
        s.unscale_(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        s.step(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        s.step(opt, closure=lambda: None)
    with pytest.raises(AssertionError, match="growth factor must be > 1.0"):
        lib.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="backoff factor must be < 1.0"):
        lib.amp.GradScaler("cpu", backoff_factor=1.0)
    with pytest.raises(RuntimeError, match="source state dict is empty"):
        s.load_state_dict({})


@pytest.mark.parametrize("lib", [torch, st], ids=["torch", "strided"])
def test_fp16_gradients_are_refused_by_unscale(lib):
    w = lib.nn.Parameter(lib.tensor([1.0, 2.0], dtype=lib.float16))
    opt = lib.optim.SGD([w], lr=0.1)
    s = lib.amp.GradScaler("cpu")
    s.scale(lib.tensor(1.0))
    w.grad = lib.ones(2, dtype=lib.float16)
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        s.unscale_(opt)


def test_update_with_new_scale_matches_pytorch():
    res = {}
    for lib in (torch, st):
        w, opt, s = _scaler_and_opt(lib, init_scale=8.0)
        seq = []
        s.scale((w * w).sum()).backward()
        s.step(opt)
        s.update(3.0)
        seq.append(s.get_scale())
        s.update(lib.tensor(0.75))
        seq.append(s.get_scale())
        with pytest.raises(RuntimeError, match="output with shape \\[\\] doesn't match the broadcast shape \\[1\\]"):
            s.update(lib.tensor([0.5]))
        seq.append(s.get_scale())
        for bad in (lib.tensor([1.0, 2.0]), lib.tensor([1.0], requires_grad=True)):
            with pytest.raises(AssertionError, match="new_scale should be a float"):
                s.update(bad)
        # a non-power-of-two scale: unscaling multiplies by float32(1/scale), as PyTorch's kernel
        opt.zero_grad()
        s.update(3.0)
        s.scale((w * w).sum()).backward()
        s.unscale_(opt)
        seq.append(_np(w.grad).tolist())
        res[lib] = seq
    assert res[st] == res[torch]


def test_state_dict_round_trip_and_pickle_match_pytorch():
    res = {}
    for lib in (torch, st):
        w, opt, s = _scaler_and_opt(lib, init_scale=32.0, growth_interval=3)
        for _ in range(2):
            s.scale((w * w).sum()).backward()
            s.step(opt)
            s.update()
        sd = s.state_dict()
        t = lib.amp.GradScaler("cpu")
        before = t.get_scale()
        t.load_state_dict(sd)
        u = pickle.loads(pickle.dumps(s))
        s.scale((w * w).sum()).backward()
        s.unscale_(opt)
        with pytest.raises(AssertionError, match="may only be pickled"):
            pickle.dumps(s)
        t.scale(lib.tensor(1.0))
        t.load_state_dict(dict(sd, scale=2.0, _growth_tracker=1))
        res[lib] = (sd, before, t.state_dict(), u.state_dict(), t.get_growth_factor(),
                    t.get_backoff_factor(), t.get_growth_interval(), t.is_enabled())
        t.set_growth_factor(5.0)
        t.set_backoff_factor(0.125)
        t.set_growth_interval(7)
        res[lib] += (t.state_dict(),)
    assert res[st] == res[torch]


def test_disabled_is_a_pass_through_like_pytorch():
    res = {}
    for lib in (torch, st):
        w, opt, s = _scaler_and_opt(lib, enabled=False)
        loss = (w * w).sum()
        assert s.scale(loss) is loss
        loss.backward()
        s.unscale_(opt)
        ret = s.step(opt)
        s.update()
        s.load_state_dict({})
        res[lib] = (ret, s.get_scale(), s.state_dict(), s.is_enabled(), _np(w).tolist())
    assert res[st] == res[torch]


@pytest.mark.skipif(st.cuda.is_available() or torch.cuda.is_available(),
                    reason="PyTorch's CUDA fallback is only observable without CUDA")
def test_cuda_scaler_without_cuda_warns_and_disables_like_pytorch():
    for lib in (torch, st):
        with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available") as rec:
            s = lib.amp.GradScaler()
        assert not s.is_enabled() and s.get_scale() == 1.0
        assert rec[0].filename == __file__


# ---------------------------------------------------------------------------- autocast


def _state(lib):
    return (lib.is_autocast_enabled(), lib.is_autocast_enabled("cpu"), lib.is_autocast_enabled("cuda"),
            str(lib.get_autocast_dtype("cuda")).rsplit(".", 1)[-1])


def test_disabled_regions_nest_and_restore_like_pytorch():
    res = {}
    for lib in (torch, st):
        seq = [_state(lib)]
        with lib.autocast("cpu", enabled=False):
            seq.append(_state(lib))
            with lib.amp.autocast("cuda", dtype=lib.float32, enabled=False) as a:
                seq.append(_state(lib))
                assert isinstance(a, lib.autocast)
                with lib.autocast(device_type="cuda", dtype=lib.float64, enabled=False):
                    seq.append(_state(lib))
                seq.append(_state(lib))
            seq.append(_state(lib))
        try:
            with lib.autocast("cuda", dtype=lib.float32, enabled=False):
                raise KeyError("x")
        except KeyError:
            pass
        seq.append(_state(lib))
        res[lib] = seq
    assert res[st] == res[torch]
    assert res[st][2][3] == "float32" and res[st][3][3] == "float64"


def test_decorator_runs_inside_the_region_like_pytorch():
    res = {}
    for lib in (torch, st):
        @lib.autocast("cuda", dtype=lib.float32, enabled=False)
        def f(x, k=1):
            """doc"""
            return x * k, str(lib.get_autocast_dtype("cuda")).rsplit(".", 1)[-1]

        y, inside = f(lib.tensor([1.0, 2.0]), k=3)
        res[lib] = (_np(y).tolist(), inside, f.__name__, f.__doc__, _state(lib))
        with pytest.raises(TypeError, match="requires a callable, but got int"):
            lib.autocast("cpu", enabled=False)(3)
    assert res[st] == res[torch]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_cpu_with_an_unsupported_dtype_warns_and_disables_like_pytorch(dtype):
    res = {}
    for lib in (torch, st):
        with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported") as rec:
            ctx = lib.autocast("cpu", dtype=getattr(lib, dtype))
        assert rec[0].filename == __file__
        with ctx:
            res[lib] = (lib.is_autocast_enabled("cpu"), (lib.ones(2) @ lib.ones(2)).dtype == lib.float32)
    assert res[st] == res[torch] == (False, True)


@pytest.mark.skipif(st.cuda.is_available() or torch.cuda.is_available(),
                    reason="PyTorch's CUDA fallback is only observable without CUDA")
def test_cuda_without_cuda_warns_and_disables_like_pytorch():
    res = {}
    for lib in (torch, st):
        with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported") as rec:
            with lib.autocast("cuda"):
                res[lib] = _state(lib)
        assert rec[0].filename == __file__
    assert res[st] == res[torch]


@pytest.mark.parametrize("kw", [dict(), dict(dtype="float16"), dict(enabled=True, cache_enabled=False)])
def test_regions_pytorch_would_autocast_are_refused(kw):
    kw = dict(kw)
    if "dtype" in kw:
        kw["dtype"] = getattr(st, kw["dtype"])
        with torch.autocast("cpu", dtype=torch.float16):  # PyTorch really autocasts here
            assert torch.is_autocast_enabled("cpu")
    with pytest.raises(NotImplementedError, match="not supported by strided.*enabled=False"):
        st.autocast("cpu", **kw)
    with pytest.raises(NotImplementedError, match="not supported by strided"):
        st.autocast("cpu", **kw)(lambda: None)
    assert not st.is_autocast_enabled("cpu")


def test_device_strings_with_an_index_follow_pytorchs_branches():
    for lib in (torch, st):
        with pytest.warns(UserWarning, match="In CPU:0 autocast, but the target dtype is not supported"):
            lib.autocast("cpu:0", dtype=lib.float32)
        with lib.autocast("cuda:0", enabled=False):
            assert not lib.is_autocast_enabled("cuda")
    # (PyTorch's "cuda" check is on the exact string: "cuda:0" with float16 really autocasts)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with torch.autocast("cuda:0"):
            pass
        with pytest.raises(NotImplementedError, match="not supported by strided"):
            st.autocast("cuda:0")


def test_get_autocast_dtype_cpu_names_bfloat16():
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16
    with pytest.raises(NotImplementedError, match="bfloat16, which strided has no dtype for"):
        st.get_autocast_dtype("cpu")
    with st.autocast("cpu", dtype=st.float32, enabled=False):
        assert st.get_autocast_dtype("cpu") == st.float32
        with torch.autocast("cpu", dtype=torch.float32, enabled=False):
            assert torch.get_autocast_dtype("cpu") == torch.float32


def test_bad_device_types():
    for lib in (torch, st):
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.autocast(lib.device("cpu"))
        with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, .* device string: foo"):
            lib.autocast("foo", enabled=False)
        with pytest.raises(RuntimeError, match="device string: foo"):
            lib.is_autocast_enabled("foo")
        with pytest.raises(RuntimeError, match="device string: foo"):
            lib.amp.is_autocast_available("foo")
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.amp.custom_fwd(device_type=1)
    assert torch.amp.is_autocast_available("cpu") == st.amp.is_autocast_available("cpu") is True
    assert st.amp.is_autocast_available("cuda") is True
    assert st.amp.is_autocast_available("mps") is False
    with pytest.raises(RuntimeError, match="strided has no 'mps' device"):
        st.autocast("mps", enabled=False)


def _custom_function(lib, fwd_kw, record):
    class Mul3(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(**fwd_kw)
        def forward(ctx, x, *, k=3.0):
            record.append(("fwd", lib.is_autocast_enabled(fwd_kw["device_type"])))
            ctx.k = k
            return x * k

        @staticmethod
        @lib.amp.custom_bwd(device_type=fwd_kw["device_type"])
        def backward(ctx, g):
            record.append(("bwd", lib.is_autocast_enabled(fwd_kw["device_type"]), ctx._fwd_used_autocast))
            return g * ctx.k
    return Mul3


@pytest.mark.parametrize("fwd_kw", [dict(device_type="cpu"), dict(device_type="cuda"),
                                    dict(device_type="cpu", cast_inputs="float32")])
def test_custom_fwd_and_bwd_match_pytorch(fwd_kw):
    res = {}
    for lib in (torch, st):
        kw = dict(fwd_kw)
        if "cast_inputs" in kw:
            kw["cast_inputs"] = getattr(lib, kw["cast_inputs"])
        record = []
        F = _custom_function(lib, kw, record)
        x = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        y = F.apply(x)
        (y * y).sum().backward()
        res[lib] = (record, _np(y).tolist(), _np(x.grad).tolist(), y.dtype == lib.float64)
    assert res[st] == res[torch]


# ---------------------------------------------------------------------------- deprecated spellings


def test_deprecated_cuda_and_cpu_amp_warn_like_pytorch():
    cases = [
        (lambda lib: lib.cuda.amp.autocast(enabled=False), "torch.cuda.amp.autocast\\(args...\\)` is deprecated"),
        (lambda lib: lib.cpu.amp.autocast(enabled=False), "torch.cpu.amp.autocast\\(args...\\)` is deprecated"),
        (lambda lib: lib.cpu.amp.GradScaler(init_scale=4.0), "torch.cpu.amp.GradScaler\\(args...\\)` is deprecated"),
        (lambda lib: lib.cuda.amp.custom_fwd(lambda ctx, x: x), "torch.cuda.amp.custom_fwd\\(args...\\)` is deprecated"),
        (lambda lib: lib.cuda.amp.custom_bwd(lambda ctx, x: x), "torch.cuda.amp.custom_bwd\\(args...\\)` is deprecated"),
    ]
    for make, msg in cases:
        out = {}
        for lib in (torch, st):
            with warnings.catch_warnings(record=True) as rec:
                warnings.simplefilter("always")
                obj = make(lib)
            fut = [r for r in rec if issubclass(r.category, FutureWarning)]
            assert len(fut) == 1, (lib, [str(r.message) for r in rec])
            assert fut[0].filename == __file__
            assert re.search(msg, str(fut[0].message))
            out[lib] = str(fut[0].message)
            if hasattr(obj, "get_scale"):
                assert obj.get_scale() == 4.0 and obj.is_enabled() and obj._device == "cpu"
            if isinstance(obj, lib.amp.autocast):
                with obj:
                    assert not lib.is_autocast_enabled(obj.device)
        assert out[st] == out[torch]
    with pytest.warns(FutureWarning):
        assert isinstance(st.cpu.amp.GradScaler(), st.amp.GradScaler)
    assert st.cuda.amp.amp_definitely_not_available() == (not st.cuda.is_available())
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        st.cpu.nothing


def test_deprecated_cpu_autocast_default_is_refused():
    with pytest.warns(FutureWarning):
        with pytest.raises(NotImplementedError, match="bfloat16"):
            st.cpu.amp.autocast()
    with pytest.warns(FutureWarning):
        with torch.cpu.amp.autocast():
            assert torch.is_autocast_enabled("cpu")
