"""``strided.torch``'s own names against PyTorch 2.13: Tensor, device, dtype, cuda,
print options, creation defaults, and the in-place view methods."""

from __future__ import annotations

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)

import strided
import strided.torch as storch
from strided.torch import _repr


def host(x):
    return np.asarray(x.to_device("cpu"))


def test_tensor_is_the_array_type():
    x = storch.ones(2)
    assert isinstance(x, storch.Tensor) and storch.is_tensor(x)
    assert not isinstance(np.ones(2), storch.Tensor) and not storch.is_tensor([1.0])
    assert issubclass(strided.Array, storch.Tensor)
    assert storch.Tensor.add is strided.Array.add


@pytest.mark.parametrize("args", [([1, 2],), ([[1.5, 2], [3, 4]],), (np.arange(3),), ()])
def test_legacy_constructor_copies_data_in_the_default_float(args):
    ref = torch.Tensor(*args)
    got = storch.Tensor(*args)
    assert str(got.dtype) == str(ref.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(host(got), ref.numpy())


@pytest.mark.parametrize("args", [(2, 3), (0,), (storch.Size([4, 1]),)])
def test_legacy_constructor_with_sizes_is_uninitialised(args):
    got = storch.Tensor(*args)
    targs = (torch.Size(args[0]),) if isinstance(args[0], storch.Size) else args
    assert tuple(got.shape) == tuple(torch.Tensor(*targs).shape)
    assert got.dtype == storch.float32


def test_legacy_constructor_refuses_other_dtypes_and_mixed_args():
    with pytest.raises(TypeError, match="int64"):
        storch.Tensor(storch.arange(3))
    with pytest.raises(TypeError, match="sizes"):
        storch.Tensor(2, [1])


def test_numel_devices_and_dtypes():
    assert storch.numel(storch.zeros(2, 3)) == 6
    assert storch.device("cpu") == "cpu"
    d = storch.device("cuda", 0)
    assert (d.type, d.index) == ("cuda", 0)
    assert repr(d) == repr(torch.device("cuda", 0))
    for name in ("float32", "float", "long", "int", "double", "half", "bool", "float64",
                 "int64", "int32", "float16"):
        assert str(getattr(storch, name)) == str(getattr(torch, name)).removeprefix("torch.")
        assert isinstance(getattr(storch, name), storch.dtype)


def test_cuda_questions_follow_strided():
    try:
        strided._core.device.get_backend("cuda")
        reachable = True
    except ValueError:
        reachable = False
    assert storch.cuda.is_available() is reachable
    assert (storch.cuda.device_count() > 0) is reachable


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "rand", "randn"])
def test_creation_takes_sizes_as_varargs_with_float32_default(fn):
    x = getattr(storch, fn)(2, 3, requires_grad=True)
    ref = getattr(torch, fn)(2, 3, requires_grad=True)
    assert tuple(x.shape) == tuple(ref.shape) and x.requires_grad
    assert x.dtype == storch.float32 and ref.dtype == torch.float32


def test_arange_tensor_from_numpy_defaults_follow_pytorch():
    assert str(storch.arange(5).dtype) == "int64"
    assert storch.arange(0.0, 1.0, 0.25).dtype == storch.float32
    assert storch.tensor([1.0, 2.0]).dtype == storch.float32
    a = np.arange(4.0)
    x = storch.from_numpy(a)
    assert x.dtype == storch.float64


@pytest.fixture
def printopts():
    saved = storch.get_printoptions()
    yield
    storch.set_printoptions(**saved)


@pytest.mark.parametrize("opts", [dict(precision=2), dict(sci_mode=True), dict(precision=6, sci_mode=True),
                                  dict(threshold=5), dict(threshold=5, edgeitems=1),
                                  dict(linewidth=30), dict(profile="short"), dict(profile="full"),
                                  dict(sci_mode=False)])
def test_printoptions_match_pytorch(opts, printopts):
    data = np.array([[1.23456, -2.5, 1e-5, 300.0, 7.0, 8.125], [0.5, 1.0, 2.0, 3.0, 4.0, 5.0]],
                    dtype=np.float32)
    big = np.arange(2000, dtype=np.float32).reshape(40, 50) / 7
    saved = torch._tensor_str.get_printoptions()
    torch.set_printoptions(**opts)
    try:
        refs = [repr(torch.from_numpy(d)) for d in (data, big, data[0])]
    finally:
        torch.set_printoptions(**saved)
    storch.set_printoptions(**opts)
    got = [repr(strided.asarray(d, device="cpu")) for d in (data, big, data[0])]
    assert got == refs


def test_printoptions_round_trip_and_errors(printopts):
    assert storch.get_printoptions() == torch._tensor_str.get_printoptions() | {"sci_mode": None}
    storch.set_printoptions(precision=3, linewidth=100)
    assert (_repr.PRECISION, _repr.LINEWIDTH) == (3, 100)
    with pytest.raises(ValueError, match="profile"):
        storch.set_printoptions(profile="long")
    with pytest.raises(ValueError, match="precision"):
        storch.set_printoptions(precision=-1)


def test_grad_modes_seed_save_load(tmp_path):
    x = storch.ones(2, requires_grad=True)
    with storch.no_grad():
        assert not (x * 2).requires_grad
        with storch.enable_grad():
            assert (x * 2).requires_grad
    with storch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    storch.manual_seed(3)
    a = storch.rand(4)
    storch.manual_seed(3)
    np.testing.assert_array_equal(host(a), host(storch.rand(4)))
    storch.save({"w": a}, tmp_path / "w.pt")
    np.testing.assert_array_equal(host(storch.load(tmp_path / "w.pt")["w"]), host(a))


# --- in-place view methods ----------------------------------------------------------

VIEW_CASES = [("unsqueeze_", (2, 3), (1,)), ("unsqueeze_", (2, 3), (-1,)),
              ("squeeze_", (1, 3, 1), ()), ("squeeze_", (1, 3, 1), (2,)), ("squeeze_", (2, 3), (0,)),
              ("t_", (2, 3), ()), ("t_", (3,), ()), ("transpose_", (2, 3, 4), (0, 2)),
              ("swapdims_", (2, 3), (0, 1))]


@pytest.mark.parametrize("name,shape,args", VIEW_CASES)
def test_inplace_views_change_metadata_like_pytorch(name, shape, args):
    data = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    ref = torch.from_numpy(data.copy())
    rv = ref._version
    r = getattr(ref, name)(*args)
    x = strided.asarray(data)
    st = x.storage()
    xv = x._version
    out = getattr(x, name)(*args)
    assert out is x and r is ref
    assert tuple(x.shape) == tuple(ref.shape) and x.stride() == ref.stride()
    assert x.storage() is st
    np.testing.assert_array_equal(host(x), ref.numpy())
    assert x._version - xv == ref._version - rv == 1


@pytest.mark.parametrize("name,shape,args", VIEW_CASES)
def test_inplace_views_with_autograd_like_pytorch(name, shape, args):
    data = np.random.default_rng(0).standard_normal(shape)
    w = np.random.default_rng(1).standard_normal(np.shape(getattr(torch.zeros(shape), name)(*args)))
    leaf_t = torch.from_numpy(data).requires_grad_()
    leaf_s = strided.asarray(data).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf"):
        getattr(leaf_s, name)(*args)
    with pytest.raises(RuntimeError, match="leaf"):
        getattr(leaf_t, name)(*args)
    yt = leaf_t * 3
    getattr(yt, name)(*args)
    (yt * torch.from_numpy(w)).sum().backward()
    ys = leaf_s * 3
    getattr(ys, name)(*args)
    assert ys.grad_fn is not None and not ys.is_leaf
    (ys * strided.asarray(w)).sum().backward()
    np.testing.assert_allclose(host(leaf_s.grad), leaf_t.grad.numpy(), rtol=1e-12)
    with storch.no_grad():
        getattr(leaf_s, name)(*args)
    assert leaf_s.requires_grad and leaf_s.is_leaf and tuple(leaf_s.shape) == tuple(yt.shape)


def test_inplace_view_invalidates_saved_values_as_pytorch():
    for lib in (torch, storch):
        a = lib.ones(3, dtype=lib.float64, requires_grad=True)
        b = a * 2
        c = b * b  # saves b
        b.unsqueeze_(0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            c.sum().backward()


@pytest.mark.parametrize("name,kw", [("addcmul_", {}), ("addcmul_", {"value": 0.3}),
                                     ("addcdiv_", {}), ("addcdiv_", {"value": -1.7})])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_addcmul_addcdiv_like_pytorch(name, kw, dtype):
    # PyTorch's vectorised CPU kernels may fuse the multiply-add: a few ulp apart.
    rng = np.random.default_rng(5)
    s, a, b = (rng.standard_normal(50).astype(dtype) for _ in range(3))
    ref = torch.from_numpy(s.copy())
    getattr(ref, name)(torch.from_numpy(a), torch.from_numpy(b), **kw)
    x = strided.asarray(s.copy())
    getattr(x, name)(strided.asarray(a), strided.asarray(b), **kw)
    tol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(host(x), ref.numpy(), rtol=tol, atol=tol)


def test_clamp_min_max_inplace():
    data = np.array([-2.0, 0.5, 3.0])
    for name, v in (("clamp_min_", 0.0), ("clamp_max_", 1.0)):
        ref = getattr(torch.from_numpy(data.copy()), name)(v)
        x = strided.asarray(data.copy())
        assert getattr(x, name)(v) is x
        np.testing.assert_array_equal(host(x), ref.numpy())
