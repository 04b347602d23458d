"""More of ``torch.Tensor``'s methods (strided/torch/_more_methods.py) against PyTorch 2.13 on
the same calls: ``apply_``/``map_``/``map2_`` (values, conversions, order, refusals),
``stft``/``istft``/``nonzero_static``, ``pin_memory``, ``dim_order``, ``is_set_to``, the sparse
and quantized accessors of a dense tensor, and ``resize_``/``resize_as_``/``set_``/
``as_strided_`` (a no-op where the geometry is unchanged; strided keeps shapes otherwise)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402

CPU = "cpu"


def _outcome(f, m):
    try:
        return ("ok", f(m))
    except Exception as e:  # noqa: BLE001 - compared below
        return ("err", e)


def _plain(r):
    if isinstance(r, (tuple, list)):
        return type(r)(_plain(v) for v in r)
    if hasattr(r, "tolist") and hasattr(r, "dtype"):
        return (str(r.dtype).split(".")[-1], tuple(r.shape), r.tolist())
    return r


def same(f, *, prefix=None):
    """``f(torch)`` and ``f(S)``: equal results, or errors of one type and message (the
    message's start up to ``prefix`` where PyTorch's goes on with its build's details)."""
    want, got = _outcome(f, torch), _outcome(f, S)
    if want[0] == "err":
        assert got[0] == "err", f"PyTorch raised {want[1]!r}; strided gave {got[1]!r}"
        assert isinstance(got[1], type(want[1])), (got[1], want[1])
        w, g = str(want[1]), str(got[1])
        if prefix is not None:
            w, g = w[:w.index(prefix)], g[:len(w[:w.index(prefix)])]
        assert g == w, (g, w)
        return None
    assert got[0] == "ok", f"PyTorch gave {want[1]!r}; strided raised {got[1]!r}"
    w, g = _plain(want[1]), _plain(got[1])
    assert g == w or _close(g, w), (g, w)
    return got[1]


def _close(g, w):
    try:
        return g[:2] == w[:2] and np.allclose(np.asarray(g[2]), np.asarray(w[2]), rtol=1e-5, atol=1e-5, equal_nan=True)
    except Exception:  # noqa: BLE001
        return False


# --- apply_, map_, map2_ -----------------------------------------------------------------

DTYPES = ["float32", "float64", "float16", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32",
          "uint64", "bool", "complex64", "complex128"]
VALUES = [-1, -255, -256, 255, 256, 2 ** 31, 2 ** 63, -2 ** 63, 2 ** 64, -1.0, -0.5, 255.9, 256.0, 2.5,
          float("inf"), float("nan"), 1e19, -0.0, 1e300, 10 ** 400, True, 1j, 1 + 0j, 0j, "a", None]


@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_stores_results_as_pytorch_converts_them(dtype):
    for v in VALUES:
        same(lambda m: m.zeros(2, dtype=getattr(m, dtype), device=CPU).apply_(lambda _: v))


@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_passes_python_numbers(dtype):
    def f(m):
        seen = []
        x = m.tensor([1, 0], dtype=getattr(m, dtype), device=CPU)
        x.apply_(lambda v: seen.append((type(v).__name__, v)) or v)
        return seen
    same(f)


def test_apply_map_values_order_and_return():
    a = np.arange(6.0).reshape(2, 3)
    calls = [
        lambda m: m.tensor(a.tolist(), device=CPU).t().apply_(lambda v: v * 10 + 1),
        lambda m: m.tensor(2.0, device=CPU).apply_(lambda v: v * 3),
        lambda m: m.ones(0, device=CPU).apply_(lambda v: 1 / 0),
        lambda m: m.tensor([1, 2], device=CPU).apply_(lambda v: v * 2.7),
        lambda m: m.tensor([True, False], device=CPU).apply_(lambda v: not v),
        lambda m: m.tensor([1 + 2j], device=CPU).apply_(lambda v: v * 1j),
        lambda m: m.tensor(a.tolist(), device=CPU).map_(m.tensor([10.0, 20.0, 30.0], device=CPU), lambda x, y: x + y),
        lambda m: m.tensor(a.tolist(), device=CPU).map_(m.tensor(5.0, device=CPU), lambda x, y: x * y),
        lambda m: m.tensor(a.tolist(), device=CPU).map2_(m.ones(2, 1, device=CPU),
                                                         m.tensor([1.0, 2.0, 3.0], device=CPU),
                                                         lambda x, y, z: x - y * z),
    ]
    for f in calls:
        same(f)
    for m in (torch, S):
        x = m.ones(3, device=CPU)
        assert x.apply_(lambda v: v) is x and x.map_(x, lambda u, v: u) is x and x.map2_(x, x, lambda u, v, w: u) is x
        order = []
        m.tensor(a.tolist(), device=CPU).t().map_(m.zeros(3, 2, device=CPU), lambda u, v: order.append(u) or u)
        assert order == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_map_reads_what_earlier_calls_wrote():
    def f(m):
        x = m.arange(5.0, device=CPU)
        x[1:].map_(x[:-1], lambda u, v: u + v)  # (a running sum: each call sees the last write)
        return x
    same(f)


def test_an_exception_leaves_the_earlier_writes():
    def f(m):
        x = m.arange(4.0, device=CPU)
        try:
            x.apply_(lambda v: 1 / (v - 2))
        except ZeroDivisionError:
            return x
    same(f)


def test_apply_map_refusals():
    t = lambda m, *s, **k: m.ones(*s, device=CPU, **k)  # noqa: E731
    calls = [
        lambda m: t(m, 2).apply_(3),
        lambda m: t(m, 2).apply_(lambda v: "a"),
        lambda m: t(m, 2, requires_grad=True).apply_(lambda v: v),
        lambda m: (t(m, 2, requires_grad=True) * 1).apply_(lambda v: v),
        lambda m: t(m, 3).map_(3, lambda u, v: u),
        lambda m: t(m, 3).map_(t(m, 3, requires_grad=True), lambda u, v: u),
        lambda m: t(m, 3, requires_grad=True).map_(t(m, 3), lambda u, v: u),
        lambda m: t(m, 3).map_(t(m, 4), lambda u, v: u),
        lambda m: t(m, 2, 3).map_(t(m, 4, 1, 3), lambda u, v: u),
        lambda m: m.tensor(1.0, device=CPU).map_(t(m, 3), lambda u, v: u),
        lambda m: t(m, 3).map2_(t(m, 4), t(m, 3), lambda u, v, w: u),
        lambda m: t(m, 3).map2_(t(m, 3), t(m, 3, requires_grad=True), lambda u, v, w: u),
        lambda m: t(m, 3).map2_(t(m, 3), 1, lambda u, v, w: u),
    ]
    for d in ("int64", "float64", "float16", "uint8", "bool", "complex64", "uint16"):
        calls.append(lambda m, d=d: t(m, 3).map_(t(m, 3, dtype=getattr(m, d)), lambda u, v: u))
        calls.append(lambda m, d=d: t(m, 3, dtype=getattr(m, d)).map2_(t(m, 3, dtype=getattr(m, d)), t(m, 3),
                                                                       lambda u, v, w: u))
        calls.append(lambda m, d=d: t(m, 3, dtype=getattr(m, d)).map2_(t(m, 3), t(m, 3), lambda u, v, w: u))
    for f in calls:
        same(f)
    for m in (torch, S):
        with m.no_grad():  # (refused under no_grad too, as PyTorch's)
            with pytest.raises(RuntimeError, match="Can't call apply_"):
                t(m, 2, requires_grad=True).apply_(lambda v: v)


def test_apply_goes_through_the_writer():
    # Note: PyTorch bumps no version (measured: 0), so a saved operand changed by apply_ gives
    # a silently wrong gradient there; strided's writer bumps it and backward raises.
    x = S.ones(3, device=CPU)
    v = x._version
    x.apply_(lambda e: e + 1)
    assert x._version > v
    w = S.ones(3, device=CPU, requires_grad=True)
    x = S.full((3,), 2.0, device=CPU)
    y = (w * x).sum()
    x.apply_(lambda e: e + 1)
    with pytest.raises(RuntimeError, match="modified by an inplace"):
        y.backward()
    # (elements that share memory: PyTorch applies the function to one element three times;
    # strided's writer refuses such a target)
    with pytest.raises(RuntimeError):
        S.ones(1, device=CPU).expand(3).apply_(lambda e: e + 1)


@pytest.mark.skipif(not S.cuda.is_available(), reason="no cuda device (CuPy) for strided")
def test_apply_map_are_cpu_only():
    # (PyTorch's messages, torch/csrc/utils/tensor_apply.cpp; its CPU build has no CUDA to compare)
    g = S.ones(2, device="cuda")
    with pytest.raises(TypeError, match="^apply_ is only implemented on CPU tensors$"):
        g.apply_(lambda v: v)
    with pytest.raises(TypeError, match="^map_ is only implemented on CPU tensors$"):
        g.map_(S.ones(2, device="cuda"), lambda u, v: u)
    with pytest.raises(TypeError,
                       match=r"^map_: expected torch.FloatTensor for 'other' \(got torch.cuda.FloatTensor\)$"):
        S.ones(2, device=CPU).map_(g, lambda u, v: u)
    with pytest.raises(TypeError, match="^map2_ is only implemented on CPU tensors$"):
        g.map2_(g, g, lambda u, v, w: u)


# --- the functions as methods; memory and layout questions -------------------------------------

def test_stft_istft_nonzero_static_methods():
    sig = np.sin(np.arange(32) / 3.0)
    same(lambda m: m.tensor(sig.tolist(), device=CPU).stft(8, hop_length=2, window=m.hann_window(8, device=CPU),
                                                           return_complex=True))
    same(lambda m: m.tensor(sig.tolist(), device=CPU).stft(8, window=m.ones(8, device=CPU), center=False,
                                                           return_complex=False, normalized=True))
    same(lambda m: m.tensor(sig.tolist(), device=CPU).stft(8, window=m.hann_window(8, device=CPU), return_complex=True)
         .istft(8, window=m.hann_window(8, device=CPU), length=32))
    same(lambda m: m.tensor([0, 1, 2, 0], device=CPU).nonzero_static(size=4))
    same(lambda m: m.tensor([[0, 1], [1, 1]], device=CPU).nonzero_static(size=2, fill_value=7))
    same(lambda m: m.tensor([0, 1], device=CPU).nonzero_static(size=-1))
    same(lambda m: m.tensor([0, 1], device=CPU).nonzero_static(size=2.0))
    for m in (torch, S):
        with pytest.raises(TypeError):
            m.tensor([0, 1], device=CPU).nonzero_static(4)  # (size is keyword-only)


def test_const_data_ptr_is_data_ptr():
    for m in (torch, S):
        x = m.arange(6.0, device=CPU).reshape(2, 3)
        assert x.const_data_ptr() == x.data_ptr() and x[1].const_data_ptr() == x[1].data_ptr()


def test_pin_memory_share_memory_storage_type():
    if not S.cuda.is_available():
        same(lambda m: m.ones(2, device=CPU).pin_memory())
        for m in (torch, S):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                with pytest.raises(RuntimeError, match="^CPU device type not an accelerator.$"):
                    m.ones(2, device=CPU).pin_memory("cpu")
            assert any(issubclass(x.category, DeprecationWarning) for x in w)
    else:
        with pytest.raises(RuntimeError, match="no page-locked"):
            S.ones(2, device=CPU).pin_memory()
        with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
            S.ones(2, device="cuda").pin_memory()
    # (PyTorch moves the storage to shared memory and returns x; strided can't, and says so)
    x = S.ones(2, device=CPU)
    with pytest.raises(RuntimeError, match="shared memory"):
        x.share_memory_()
    assert x.is_shared() is False
    with pytest.raises(RuntimeError, match="legacy typed storage"):
        x.storage_type()


LAYOUTS = [((2, 3), (3, 1)), ((2, 3), (1, 2)), ((2, 1, 3), (3, 3, 1)), ((2, 1, 3), (3, 1, 1)), ((1, 3), (3, 1)),
           ((1, 3), (1, 1)), ((3, 1), (1, 1)), ((2, 2), (2, 1)), ((2, 3), (0, 1)), ((2, 3), (1, 0)), ((), ()),
           ((0, 3), (3, 1)), ((3, 0), (1, 3)), ((2, 3, 4), (12, 1, 3)), ((2, 3, 4), (1, 8, 2)), ((1, 1), (1, 1)),
           ((2, 2), (1, 1)), ((2, 2), (0, 0)), ((3, 2), (1, 3)), ((2, 3, 4, 5), (60, 1, 15, 3)),
           ((2, 1, 3, 3), (9, 9, 3, 1)), ((2, 3, 1, 1), (3, 1, 1, 1)), ((2, 3, 1, 1), (3, 1, 3, 3)),
           ((4,), (2,)), ((2, 3, 4), (4, 8, 1))]
CHECKS = [False, True, [], "contiguous", "both", "last"]


@pytest.mark.parametrize("shape,strides", LAYOUTS)
def test_dim_order_is_pytorchs(shape, strides):
    def arg(m, c):
        return {"contiguous": [m.contiguous_format], "both": [m.contiguous_format, m.channels_last],
                "last": [m.channels_last]}.get(c, c) if isinstance(c, str) else c
    for c in CHECKS:
        same(lambda m: m.empty_strided(shape, strides, device=CPU).dim_order(ambiguity_check=arg(m, c)))


def test_dim_order_arguments():
    same(lambda m: m.empty(2, 3).dim_order(ambiguity_check=1))
    same(lambda m: m.empty(2, 3).dim_order(ambiguity_check="ILLEGAL"))
    same(lambda m: m.empty(2, 3).dim_order(ambiguity_check=[m.contiguous_format, 3]))
    same(lambda m: m.empty(1, 2, 3, 4).dim_order(ambiguity_check=[m.preserve_format]))
    for m in (torch, S):
        with pytest.raises(TypeError):
            m.empty(2, 3).dim_order(True)  # (keyword-only)


def test_is_set_to():
    def x(m):
        return m.arange(6.0, device=CPU).reshape(2, 3)
    calls = [
        lambda m: (lambda a: a.is_set_to(a))(x(m)),
        lambda m: (lambda a: a.is_set_to(a.view(2, 3)))(x(m)),
        lambda m: (lambda a: a.is_set_to(a.view(6)))(x(m)),
        lambda m: (lambda a: a.is_set_to(a.clone()))(x(m)),
        lambda m: (lambda a: a.is_set_to(a.view(m.int32)))(x(m)),
        lambda m: (lambda a: a.is_set_to(a.detach()))(x(m)),
        lambda m: (lambda a: a.is_set_to(a[:]))(x(m)),
        lambda m: (lambda a: a[1].is_set_to(a[0]))(x(m)),
        lambda m: (lambda a: a.t().is_set_to(a.t()))(x(m)),
        lambda m: (lambda a: a.t().is_set_to(a))(x(m)),
        lambda m: m.ones(0, device=CPU).is_set_to(m.ones(0, device=CPU)),
        lambda m: (lambda a: a.is_set_to(a.view(m.bool)))(m.ones(2, dtype=m.uint8, device=CPU)),
        lambda m: x(m).is_set_to(3),
    ]
    for f in calls:
        same(f)


# --- sparse, nested, mkldnn and quantized ----------------------------------------------------

ACCESSORS = ["values", "indices", "crow_indices", "col_indices", "ccol_indices", "row_indices", "coalesce",
             "is_coalesced", "sparse_dim", "dense_dim"]
DENSE = [lambda m: m.arange(6.0, device=CPU).reshape(2, 3), lambda m: m.ones(2, dtype=m.int64, device=CPU),
         lambda m: m.tensor(1.0, device=CPU), lambda m: m.ones(2, 2, requires_grad=True, device=CPU)]


@pytest.mark.parametrize("name", ACCESSORS)
def test_sparse_accessors_of_a_dense_tensor(name):
    for make in DENSE:
        same(lambda m: getattr(make(m), name)())


NO_KERNEL = [("int_repr", ()), ("q_scale", ()), ("q_zero_point", ()), ("q_per_channel_scales", ()),
             ("q_per_channel_zero_points", ()), ("q_per_channel_axis", ()), ("qscheme", ()),
             ("sparse_resize_", ((2, 3), 1, 1)), ("sparse_resize_and_clear_", ((2, 3), 1, 1)),
             ("to_padded_tensor", (0.0,)), ("to_padded_tensor", (0.0, (3, 4))), ("sparse_mask", "self")]


@pytest.mark.parametrize("name,args", NO_KERNEL)
def test_no_kernel_for_a_dense_tensor(name, args):
    # (PyTorch's dispatcher message goes on with its build's list of backends: compared up to it)
    for make in DENSE[:3]:
        def f(m):
            x = make(m)
            return getattr(x, name)(*((x,) if args == "self" else args))
        same(f, prefix=" If you are a Facebook employee")
    same(lambda m: m.ones(2).sparse_mask(1))
    if S.cuda.is_available():
        x = S.ones(2, 2, device="cuda")
        with pytest.raises(NotImplementedError, match=f"^Could not run 'aten::{name}' with arguments from the "
                                                      f"'CUDA' backend"):
            getattr(x, name)(*((x,) if args == "self" else args))


def test_to_sparse_checks_then_refuses():
    # (where PyTorch raises, the same error; where it builds a sparse tensor, strided refuses)
    x = lambda m, *s: m.arange(6.0).reshape(2, 3) if not s else m.ones(*s)  # noqa: E731
    errors = [
        lambda m: x(m).to_sparse(3), lambda m: x(m).to_sparse(-1), lambda m: x(m).to_sparse(0),
        lambda m: x(m).to_sparse(blocksize=(1, 1)), lambda m: x(m).to_sparse(layout=m.sparse_coo, blocksize=(1, 1)),
        lambda m: x(m).to_sparse(layout=m.sparse_bsr), lambda m: x(m).to_sparse(layout=m.sparse_bsc),
        lambda m: x(m).to_sparse_csr(1), lambda m: x(m).to_sparse_csr(-1), lambda m: x(m, 2, 2, 2).to_sparse_csr(2),
        lambda m: x(m).to_sparse_csc(1), lambda m: x(m).to_sparse_bsr((2, 2)), lambda m: x(m).to_sparse_bsc((2, 2)),
        lambda m: x(m).to_sparse_bsr((1,)), lambda m: x(m).to_sparse_bsc((1, 1, 1)),
        lambda m: x(m).to_sparse_bsr((1, 1), -1), lambda m: x(m).to_sparse_bsr((1, 1), 1),
        lambda m: x(m, 2, 2, 2).to_sparse_bsc((1, 1), -1),
        lambda m: m.ones(2, dtype=m.float64).to_mkldnn(), lambda m: m.ones(2, dtype=m.bool).to_mkldnn(),
        lambda m: m.ones(2).to_mkldnn(m.float64),
    ]
    for s in [(2,), (3,), (), (0,)]:
        errors += [lambda m, s=s: m.ones(s).to_sparse_csr(), lambda m, s=s: m.ones(s).to_sparse_csc(),
                   lambda m, s=s: m.ones(s).to_sparse_bsr((1, 1)), lambda m, s=s: m.ones(s).to_sparse_bsc((1, 1))]
    for f in errors:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception):
                f(torch)
        same(f)
    builds = [lambda m: x(m).to_sparse(), lambda m: x(m).to_sparse(1), lambda m: x(m).to_sparse(sparse_dim=1),
              lambda m: x(m).to_sparse(layout=m.sparse_csr), lambda m: x(m).to_sparse_coo(),
              lambda m: x(m).to_sparse_csr(), lambda m: x(m, 2, 2, 2).to_sparse_csr(1), lambda m: x(m).to_sparse_csc(),
              lambda m: x(m).to_sparse_bsr((1, 1)), lambda m: x(m).to_sparse_bsc([1, 1]),
              lambda m: x(m, 2, 2, 2).to_sparse_bsr((2, 2)),
              lambda m: x(m).to_sparse(layout=m.sparse_bsc, blocksize=(1, 1)),
              lambda m: x(m).to_mkldnn(), lambda m: m.ones(2, dtype=m.uint8).to_mkldnn()]
    for f in builds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert f(torch).layout is not torch.strided
        with pytest.raises(RuntimeError, match="is not supported: strided arrays have the strided layout only"):
            f(S)
    for m in (torch, S):
        y = x(m)
        assert y.to_sparse(layout=m.strided) is y


def test_dequantize_of_an_unquantized_tensor():
    for d in ("float32", "float64", "float16", "int64", "bool", "uint8"):
        same(lambda m: m.ones(2, 3, dtype=getattr(m, d)).t().dequantize())
    for m in (torch, S):
        x = m.ones(2)
        assert x.dequantize() is x  # (float32: x itself)
        y = m.ones(2, dtype=m.float64)
        assert y.dequantize().dtype is m.float32 and y.dequantize() is not y
        for dt in (m.float32, m.float64):
            r = m.ones(2, dtype=dt, requires_grad=True)
            d = r.dequantize()
            assert d.requires_grad
            with pytest.raises(RuntimeError, match="derivative for dequantize is not implemented"):
                d.sum().backward()
        with m.no_grad():
            r = m.ones(2, requires_grad=True)
            assert r.dequantize() is r


# --- resize_, resize_as_, resize, resize_as, set_, as_strided_ -----------------------------------

FIXED = "immutable shape, strides and storage"


def _fixed_or_same(f):
    """PyTorch changes the array's geometry here: strided refuses (and PyTorch does not raise)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f(torch)
    with pytest.raises(RuntimeError, match=FIXED):
        f(S)


def test_resize_to_the_same_geometry_is_a_no_op():
    x = lambda m: m.arange(6.0, device=CPU).reshape(2, 3)  # noqa: E731
    for m in (torch, S):
        for call in (lambda y: y.resize_(2, 3), lambda y: y.resize_((2, 3)), lambda y: y.resize_([2, 3]),
                     lambda y: y.resize_(y.shape), lambda y: y.resize_(size=(2, 3)),
                     lambda y: y.resize_(2, 3, memory_format=m.contiguous_format),
                     lambda y: y.resize_as_(m.ones(2, 3, dtype=m.int64, device=CPU)),
                     lambda y: y.resize_as_(m.ones(2, 3, device=CPU), memory_format=m.contiguous_format),
                     lambda y: y.resize_as_(m.ones(3, 2, device=CPU).t(), memory_format=m.preserve_format)):
            y = x(m)
            v = y._version
            assert call(y) is y and tuple(y.shape) == (2, 3) and y.stride() == (3, 1) and y._version == v
        y = x(m).t()  # (no memory_format: the strides stay)
        assert y.resize_(3, 2) is y and y.stride() == (1, 3)
        y = m.ones(2, 3, 4, 5, device=CPU).to(memory_format=m.channels_last)
        assert y.resize_(2, 3, 4, 5, memory_format=m.channels_last) is y and y.stride() == (60, 1, 15, 3)
        y = m.empty_strided((2, 3, 1, 1), (3, 1, 3, 3), device=CPU)
        assert y.resize_as_(y, memory_format=m.channels_last) is y and y.stride() == (3, 1, 3, 3)
        assert m.tensor(1.0, device=CPU).resize_(()).shape == ()


def test_resize_checks_and_refusals():
    x = lambda m: m.arange(6.0, device=CPU).reshape(2, 3)  # noqa: E731
    for f in [lambda m: m.ones(2, requires_grad=True, device=CPU).resize_(2),
              lambda m: m.ones(2, requires_grad=True, device=CPU).resize_(3),
              lambda m: (m.ones(2, requires_grad=True, device=CPU) * 1).resize_(2),
              lambda m: m.ones(2, requires_grad=True, device=CPU).resize_as_(m.ones(2, device=CPU)),
              lambda m: x(m).resize_(-1), lambda m: x(m).resize_(2, -1),
              lambda m: x(m).resize_(2, 3, memory_format=m.preserve_format),
              lambda m: x(m).resize_(2, 3, memory_format=m.channels_last),
              lambda m: x(m).resize_(2, 3, memory_format=m.channels_last_3d),
              lambda m: x(m).resize_as_(x(m), memory_format=m.channels_last),
              lambda m: x(m).resize_as_(3)]:
        same(f)
    for m in (torch, S):
        with m.no_grad():
            with pytest.raises(RuntimeError, match="^cannot resize variables that require grad$"):
                m.ones(2, requires_grad=True, device=CPU).resize_(2)
        for bad in ("a", None, 2.0):
            with pytest.raises(TypeError):
                x(m).resize_(bad)
    for f in [lambda m: x(m).resize_(2, 2), lambda m: x(m).resize_(3, 3), lambda m: x(m).resize_(6),
              lambda m: x(m).resize_as_(m.ones(3, device=CPU)),
              lambda m: x(m).t().resize_(3, 2, memory_format=m.contiguous_format),
              lambda m: m.ones(1, 2, device=CPU).t().resize_(2, 1, memory_format=m.contiguous_format),
              lambda m: x(m).t().contiguous().t().resize_as_(m.ones(2, 3, device=CPU), memory_format=m.preserve_format),
              lambda m: m.ones(2, 3, 1, 1, device=CPU).resize_as_(m.ones(2, 3, 1, 1, device=CPU),
                                                                   memory_format=m.channels_last)]:
        _fixed_or_same(f)


def test_out_of_place_resize_is_pytorchs():
    a = np.arange(6.0).reshape(2, 3)
    for f in [lambda m: m.tensor(a.tolist()).resize(3, 2), lambda m: m.tensor(a.tolist()).resize(6),
              lambda m: m.tensor(a.tolist()).t().resize(6), lambda m: m.tensor(a.tolist()).resize_as(m.ones(3, 2)),
              lambda m: m.tensor(a.tolist()).resize(2, 2), lambda m: m.tensor(a.tolist()).resize((2, 3)),
              lambda m: m.tensor(a.tolist()).resize_as(3)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            same(f)
    for m in (torch, S):
        y = m.tensor(a.tolist())
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            r = y.resize(3, 2)
        assert r is not y and r.data_ptr() == y.data_ptr()  # (a view of a contiguous tensor)
        with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
            r = y.t().resize_as(y)
        assert r.data_ptr() != y.data_ptr()
        w = m.tensor(a.tolist(), requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (w.t().resize(6) * m.arange(6.0)).sum().backward()
        assert w.grad.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]


def test_set_and_as_strided_to_the_same_geometry_are_no_ops():
    def x(m):
        return m.arange(6.0, device=CPU).reshape(2, 3)
    for m in (torch, S):
        for call in (lambda y: y.set_(y), lambda y: y.set_(y.view(2, 3)), lambda y: y.set_(y[:]),
                     lambda y: y.set_(y.untyped_storage(), 0, (2, 3), (3, 1)),
                     lambda y: y.set_(y.untyped_storage(), 0, (2, 3)),
                     lambda y: y.set_(source=y.untyped_storage(), storage_offset=0, size=(2, 3), stride=(3, 1)),
                     lambda y: y.as_strided_((2, 3), (3, 1)), lambda y: y.as_strided_([2, 3], [3, 1], 0),
                     lambda y: y.as_strided_(size=(2, 3), stride=(3, 1), storage_offset=None)):
            y = x(m)
            v = y._version
            assert call(y) is y and tuple(y.shape) == (2, 3) and y.stride() == (3, 1)
            assert y._version == v + 1  # (as PyTorch's: a new version)
            assert y.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
        y = x(m)[1]
        assert y.as_strided_((3,), (1,), 3) is y and y.storage_offset() == 3
        z = m.ones(3, device=CPU)
        assert z.set_(z.untyped_storage()) is z
        r = m.ones(2, 2, device=CPU, requires_grad=True) * 1  # (a non-leaf: its graph is kept)
        assert r.as_strided_((2, 2), (2, 1)) is r
        r.sum().backward()


def test_set_and_as_strided_checks_and_refusals():
    def x(m):
        return m.arange(6.0, device=CPU).reshape(2, 3)
    for f in [lambda m: x(m).set_(m.ones(3, dtype=m.int64, device=CPU)),
              lambda m: x(m).set_(m.ones(3, dtype=m.bool, device=CPU)),
              lambda m: m.ones(3, dtype=m.uint16, device=CPU).set_(m.ones(3, dtype=m.complex64, device=CPU)),
              lambda m: m.ones(2, requires_grad=True, device=CPU).set_(m.ones(2, device=CPU)),
              lambda m: (lambda y: y.set_(y))(m.ones(2, requires_grad=True, device=CPU)),
              lambda m: m.ones(2, requires_grad=True, device=CPU).as_strided_((2,), (1,)),
              lambda m: x(m).as_strided_((2, 3), (3,)), lambda m: x(m).as_strided_((2,), (-1,)),
              lambda m: x(m).as_strided_((3, 3), (3, 1)), lambda m: x(m)[1].as_strided_((3,), (1,), 4),
              lambda m: x(m).as_strided_((2, 3), (3, 1), -1), lambda m: x(m).as_strided_((-2, 3), (3, 1))]:
        same(f)
    for f in [lambda m: x(m).set_(), lambda m: x(m).set_(x(m)), lambda m: (lambda y: y.set_(y.view(6)))(x(m)),
              lambda m: (lambda y: y.set_(y.untyped_storage()))(x(m)),
              lambda m: (lambda y: y.set_(y.untyped_storage(), 1, (2, 2), (2, 1)))(x(m)),
              lambda m: x(m).as_strided_((3, 2), (2, 1)), lambda m: x(m).as_strided_((2, 2), (3, 1), 1),
              lambda m: x(m)[1].as_strided_((3,), (1,), 0)]:
        _fixed_or_same(f)
    for m in (torch, S):
        with m.no_grad():
            y = m.ones(2, requires_grad=True, device=CPU)
            assert y.set_(y) is y and y.requires_grad


def test_methods_have_docstrings():
    names = ["apply_", "map_", "map2_", "stft", "istft", "nonzero_static", "pin_memory", "share_memory_",
             "storage_type", "const_data_ptr", "dim_order", "is_set_to", "to_sparse", "to_sparse_coo", "to_sparse_csr",
             "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc", "sparse_mask", "sparse_resize_",
             "sparse_resize_and_clear_", "to_padded_tensor", "to_mkldnn", "dequantize", "int_repr", "q_scale",
             "q_zero_point", "q_per_channel_scales", "q_per_channel_zero_points", "q_per_channel_axis", "qscheme",
             "resize_", "resize_as_", "resize", "resize_as", "set_", "as_strided_", *ACCESSORS]
    for n in names:
        f = getattr(S.Tensor if hasattr(S, "Tensor") else type(S.ones(1)), n)
        assert f.__doc__ and f.__name__ == n, n
