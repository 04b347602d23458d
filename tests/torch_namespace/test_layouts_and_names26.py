"""``torch.layout`` (``torch.strided``, the sparse layouts), the flags programs read off a tensor
(``x.layout``, ``x.is_sparse``, ``x.is_pinned()``, ...), the factories' ``layout=`` and
``pin_memory=``, and a few more of PyTorch's names (``torch.range``, ``torch.fill``,
``torch.embedding``, ``torch.bilinear``, ``torch.nonzero_static``, ``torch.cond``,
``set_warn_always``, the methods ``narrow_copy``, ``hardshrink``, ``prelu``), against PyTorch
2.13 on the same calls."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402

FLAGS = ["is_sparse", "is_sparse_csr", "is_quantized", "is_meta", "is_nested", "is_mkldnn", "is_xpu", "is_mps",
         "is_ipu", "is_xla", "is_vulkan", "is_maia", "is_mtia"]


def test_the_layout_and_flags_are_pytorchs():
    for m in (torch, S):
        x = m.zeros(2, 3)
        assert repr(x.layout) == "torch.strided" and x.layout is m.strided
        assert isinstance(m.strided, m.layout) and isinstance(m.sparse_coo, m.layout)
        assert x.to_dense() is x and x.is_pinned() is False and x.is_shared() is False
        assert [getattr(x, f) for f in FLAGS] == [False] * len(FLAGS), m.__name__
    assert [repr(getattr(S, n)) for n in ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged")] \
        == [repr(getattr(torch, n)) for n in ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged")]
    assert pickle.loads(pickle.dumps(S.strided)) is S.strided
    with pytest.raises(TypeError):
        S.layout()
    assert "strided" not in S.__all__ and "layout" in S.__all__  # (as torch.__all__: the package is not shadowed)


@pytest.mark.parametrize("make", [lambda m, **k: m.zeros(2, 3, **k), lambda m, **k: m.ones((2, 3), **k),
                                  lambda m, **k: m.empty(2, **k), lambda m, **k: m.full((2,), 1.5, **k),
                                  lambda m, **k: m.zeros_like(m.ones(2), **k), lambda m, **k: m.full_like(m.ones(2), 3, **k)])
def test_factories_take_layout_and_pin_memory(make):
    for m in (torch, S):
        assert make(m, layout=m.strided).layout is m.strided
        assert make(m, layout=None, pin_memory=False).shape == make(m).shape
        with pytest.raises(TypeError, match="layout"):
            make(m, layout="strided")
    with pytest.raises(RuntimeError) as want:
        make(torch, pin_memory=True)
    with pytest.raises(RuntimeError) as got:
        make(S, pin_memory=True)
    assert str(got.value) == str(want.value)
    with pytest.raises(RuntimeError, match="sparse_coo is not supported"):
        make(S, layout=S.sparse_coo)  # (PyTorch makes a sparse tensor; strided has none)


@pytest.mark.parametrize("args,kw", [((1, 4), {}), ((0, 1, 0.25), {}), ((1, 4), {"dtype": "int64"}),
                                     ((-1.5, 2.2, 0.7), {"dtype": "float64"}), ((3, 0, -1), {}), ((0.1, 0.7, 0.1), {})])
def test_range_is_pytorchs(args, kw):
    out = []
    for m in (torch, S):
        k = {n: getattr(m, v) for n, v in kw.items()}
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = m.range(*args, **k)
        assert any("torch.range is deprecated" in str(x.message) for x in w)
        out.append((str(r.dtype).split(".")[-1], np.asarray(r.tolist())))
    assert out[1][0] == out[0][0]
    np.testing.assert_array_equal(out[1][1], out[0][1])


def test_range_refusals():
    for m in (torch, S):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError):
                m.range(0, 1, 0)
            with pytest.raises(RuntimeError):
                m.range(3, 0, 1)
            with pytest.raises(TypeError):
                m.range(5)  # (end is required)


def test_fill_embedding_bilinear_nonzero_static_cond():
    a = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    calls = [
        lambda m: m.fill(m.from_numpy(a.copy()).T, 2.5),
        lambda m: m.fill(m.zeros(2, 2, dtype=m.int64), m.tensor(3.7)),
        lambda m: m.embedding(m.tensor(a.tolist()), m.tensor([[3, 0], [1, 1]])),
        lambda m: m.embedding(m.tensor(a.tolist()), m.tensor([2, 0]), 0),
        lambda m: m.bilinear(m.ones(2, 3), m.tensor(a.tolist())[:2], m.ones(5, 3, 3), m.arange(5.0)),
        lambda m: m.nonzero_static(m.tensor([0, 1, 1, 0, 2]), size=4),
        lambda m: m.nonzero_static(m.tensor([[0, 1], [1, 1]]), size=2, fill_value=9),
        lambda m: m.nonzero_static(m.tensor([[0, 1], [1, 1]]), size=5),
        lambda m: m.cond(m.tensor(True), lambda x: x + 1, lambda x: x - 1, (m.zeros(2),)),
        lambda m: m.cond(False, lambda x, y: x * y, lambda x, y: x - y, (m.ones(2), m.ones(2))),
        lambda m: m.arange(5.0).narrow_copy(0, 1, 3),
        lambda m: m.tensor([-1.0, 0.2, 0.7, 2.0]).hardshrink(0.5),
        lambda m: m.tensor([[-1.0, 2.0], [-3.0, 0.5]]).prelu(m.tensor([0.25, 0.5])),
    ]
    for i, f in enumerate(calls):
        want, got = f(torch), f(S)
        assert tuple(got.shape) == tuple(want.shape), i
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], i
        assert tuple(got.stride()) == tuple(want.stride()) or got.numel() <= 1, i
        np.testing.assert_allclose(np.asarray(got.tolist()), want.numpy(), rtol=1e-6, err_msg=str(i))
    with pytest.raises(RuntimeError, match="0-dimension"):
        S.fill(S.zeros(2), S.ones(2))


def test_warn_always_flag():
    for m in (torch, S):
        assert m.is_warn_always_enabled() is False
        m.set_warn_always(True)
        try:
            assert m.is_warn_always_enabled() is True
        finally:
            m.set_warn_always(False)
        assert m.init_num_threads() is None


@pytest.mark.parametrize("call", [
    "linspace(0, 1, steps=5)", "linspace(start=0, end=1, steps=3)", "linspace(-2, 2, 4, dtype=m.float64)",
    "arange(end=5)", "arange(start=1, end=5)", "arange(1, 5, step=2)", "arange(5)", "arange(0.5, 2)",
    "arange(1, 4, dtype=m.float64)", "arange(10, 0, -3)", "eye(3, m=2)", "eye(n=2)", "eye(2)", "eye(2, 3, dtype=m.int64)",
    "logspace(0, 2, steps=3)", "arange(3, layout=m.strided)", "eye(2, layout=m.strided)",
    "linspace(0, 1, 3, layout=m.strided)", "logspace(0, 1, 2, layout=m.strided)",
])
def test_creation_with_pytorchs_keywords(call):
    # (torch.linspace(0, 1, steps=5) raised: strided.torch took the standard's linspace, whose
    # parameter is num; arange's end and eye's m likewise)
    got, want = [], []
    for m, out in ((torch, want), (S, got)):
        r = eval("m." + call)
        out.extend([str(r.dtype).split(".")[-1], tuple(r.shape), np.asarray(r.tolist())])
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)


@pytest.mark.parametrize("call", ["rand(2, 3, {})", "randn(2, {})", "randint(0, 5, (2,), {})", "randperm(4, {})",
                                  "rand_like(m.ones(2), {})", "randn_like(m.ones(2), {})",
                                  "randint_like(m.ones(2), 0, 3, {})"])
def test_random_factories_take_layout_and_pin_memory(call):
    for m in (torch, S):
        assert tuple(eval("m." + call.format("layout=m.strided")).shape) in ((2, 3), (2,), (4,))
    with pytest.raises(RuntimeError) as want:
        eval("torch." + call.format("pin_memory=True").replace("m.", "torch."))
    with pytest.raises(RuntimeError) as got:
        eval("S." + call.format("pin_memory=True").replace("m.", "S."))
    assert str(got.value) == str(want.value)
