"""PyTorch words that meant something else in strided.torch, against PyTorch 2.13: a ``range``
as an index, a CPU index on another device's array, memory formats (``clone``,
``contiguous``, ``is_contiguous``, ``to``, ``*_like``) and the strides they give, the layouts
of ``softmax``/``log_softmax``/``quantile``, ``nn.Parameter``'s repr, and the values, dtypes
and error types of ``lerp``, ``cdist``, ``div(rounding_mode=)``, ``ldexp``, ``sign``,
``round(decimals=)``, ``deg2rad``, ``logit(eps=)`` and integer powers."""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as storch  # noqa: E402
from _parity import to_numpy  # noqa: E402


def _outcome(lib, fn):
    """("ok", numpy value, dtype name, shape, strides) or ("err", exception, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(lib)
    except Exception as e:  # noqa: BLE001 (compared with the other library's)
        return ("err", e, str(e))
    return ("ok", to_numpy(r), str(r.dtype).split(".")[-1], tuple(r.shape), tuple(r.stride()))


def _same(fn, rtol=1e-5, atol=1e-6, strides=True):
    """The outcome of ``fn(strided.torch)`` is ``fn(torch)``'s: value, dtype, shape (and
    strides); or an error that ``except <PyTorch's exception type>`` catches."""
    t, s = _outcome(torch, fn), _outcome(storch, fn)
    assert t[0] == s[0], (t, s)
    if t[0] == "err":
        assert isinstance(s[1], type(t[1])), (t, s)
        return
    assert s[2] == t[2] and s[3] == t[3], (t, s)
    if strides:
        assert s[4] == t[4], (t, s)
    if t[1].dtype.kind in "fc":
        np.testing.assert_allclose(s[1], t[1], rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(s[1], t[1])


# --- 1. indexing -----------------------------------------------------------------------------

@pytest.mark.parametrize("key", [
    range(3), range(0), range(4, 0, -2), range(-3, 0), (range(1, 3),), (slice(None), range(0, 4, 2)),
    (range(2), 1), (range(2), range(1, 3)), (Ellipsis, range(3)), (None, range(2)),
])
def test_range_index_is_a_list_of_its_ints(key):
    a = np.arange(20).reshape(5, 4)
    _same(lambda L: L.tensor(a)[key])


@pytest.mark.parametrize("key", [range(2), (range(1, 3), 0), (slice(None), range(0, 4, 2))])
def test_range_index_assignment(key):
    a = np.arange(20.0).reshape(5, 4)

    def f(L):
        x = L.tensor(a)
        x[key] = -1.0
        return x
    _same(f)


@pytest.mark.parametrize("key", [range(3), (range(1, 3),), (slice(None), range(0, 4, 2)), (range(2), 1)])
def test_range_index_gradient(key):
    # (nn_tutorial's nll: ``-input[range(n), target].mean()``: the backward re-read the key and
    # refused the range)
    a = np.arange(20.0).reshape(5, 4)
    picked = a[tuple(list(k) if type(k) is range else k for k in (key if type(key) is tuple else (key,)))]
    w = np.linspace(-1, 1, picked.size).reshape(picked.shape)
    grads = []
    for L in (torch, storch):
        x = L.tensor(a, requires_grad=True)
        (x[key] * L.tensor(w)).sum().backward()
        grads.append(np.asarray(x.grad.cpu()))
    np.testing.assert_array_equal(grads[1], grads[0])


def test_range_and_index_array_gradient():
    a = np.arange(12.0).reshape(3, 4)
    grads = []
    for L in (torch, storch):
        x = L.tensor(a, requires_grad=True)
        (-x[range(3), L.tensor([0, 1, 3])].mean()).backward()
        grads.append(np.asarray(x.grad.cpu()))
    np.testing.assert_array_equal(grads[1], grads[0])


def test_cpu_index_on_another_devices_array(sim):
    """PyTorch takes a CPU index tensor for a CUDA tensor: the index is copied there."""
    x = strided.arange(10, device=sim) * 10
    k = strided.asarray([3, 1, 7], device="cpu")  # (on cpu whatever the suite's default device)
    r = x[k]
    assert r.device == sim and r.tolist() == [30, 10, 70]
    x[strided.asarray([0, 2], device="cpu")] = -1
    assert x.tolist()[:3] == [-1, 10, -1]
    assert x[strided.asarray([True] * 5 + [False] * 5, device="cpu")].tolist() == [-1, 10, -1, 30, 40]
    with pytest.raises(IndexError):
        x[strided.asarray([10], device="cpu")]
    # a device index on a CPU array is refused, as PyTorch's (a RuntimeError there)
    with pytest.raises(RuntimeError, match="index"):
        strided.arange(3, device="cpu")[strided.asarray([0], device=sim)]


# --- 2. memory formats -----------------------------------------------------------------------

def test_memory_format_objects():
    for name in ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d"):
        ours, theirs = getattr(storch, name), getattr(torch, name)
        assert repr(ours) == repr(theirs) == f"torch.{name}"
        assert isinstance(ours, storch.memory_format)
        assert type(ours).__name__ == type(theirs).__name__ == "memory_format"
        assert pickle.loads(pickle.dumps(ours)) is ours
    with pytest.raises(TypeError):
        torch.memory_format()
    with pytest.raises(TypeError):
        storch.memory_format()


_FORMATS = ["contiguous_format", "preserve_format", "channels_last", "channels_last_3d", None]


@hs.composite
def _views(draw):
    """(shape, a view recipe): a base of 1-5 axes (sizes 0-4), permuted, sliced with steps."""
    nd = draw(hs.integers(1, 5))
    shape = draw(hs.lists(hs.integers(0, 4), min_size=nd, max_size=nd))
    perm = draw(hs.permutations(range(nd)))
    steps = draw(hs.lists(hs.sampled_from([1, 1, 2]), min_size=nd, max_size=nd))
    expand = draw(hs.one_of(hs.none(), hs.integers(0, nd - 1)))
    return shape, perm, steps, expand


def _make_view(L, recipe, dtype="float32"):
    shape, perm, steps, expand = recipe
    x = L.arange(math.prod(shape), dtype=getattr(L, dtype)).reshape(shape)
    if expand is not None and shape[expand] == 1:
        size = list(shape)
        size[expand] = 3
        x = x.expand(*size)
    x = x[tuple(slice(None, None, s) for s in steps)]
    return x.permute(*perm)


@settings(max_examples=150, deadline=None)
@given(_views(), hs.sampled_from(_FORMATS))
def test_clone_layout_is_pytorchs(recipe, fmt):
    def f(L):
        x = _make_view(L, recipe)
        return x.clone() if fmt is None else x.clone(memory_format=getattr(L, fmt))
    _same(f)
    _same(lambda L: L.clone(_make_view(L, recipe)) if fmt is None
          else L.clone(_make_view(L, recipe), memory_format=getattr(L, fmt)))


@settings(max_examples=100, deadline=None)
@given(_views(), hs.sampled_from(["contiguous_format", "channels_last", "channels_last_3d", None]))
def test_contiguous_and_is_contiguous_are_pytorchs(recipe, fmt):
    def f(L):
        x = _make_view(L, recipe)
        return x.contiguous() if fmt is None else x.contiguous(memory_format=getattr(L, fmt))
    _same(f)
    for lib in (torch, storch):
        x = _make_view(lib, recipe)
        got = [x.is_contiguous() if fmt is None else x.is_contiguous(memory_format=getattr(lib, fmt))]
        if lib is torch:
            want = got
        else:
            assert got == want, recipe


@settings(max_examples=100, deadline=None)
@given(_views(), hs.sampled_from(_FORMATS), hs.sampled_from(["zeros_like", "ones_like", "full_like", "empty_like"]))
def test_like_layout_is_pytorchs(recipe, fmt, name):
    def f(L):
        x = _make_view(L, recipe)
        args = (2.5,) if name == "full_like" else ()
        kw = {} if fmt is None else {"memory_format": getattr(L, fmt)}
        r = getattr(L, name)(x, *args, **kw)
        return r.zero_() if name == "empty_like" else r
    _same(f)


@settings(max_examples=60, deadline=None)
@given(_views(), hs.sampled_from(["contiguous_format", "preserve_format", "channels_last"]),
       hs.sampled_from([None, "float64"]))
def test_to_memory_format_is_pytorchs(recipe, fmt, dtype):
    def f(L):
        x = _make_view(L, recipe)
        args = (getattr(L, dtype),) if dtype else ()
        return x.to(*args, memory_format=getattr(L, fmt))
    _same(f)


@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format", "preserve_format"])
def test_module_to_memory_format(fmt):
    got = []
    for lib in (torch, storch):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.Linear(2, 3))
        w = m[0].weight
        assert m.to(memory_format=getattr(lib, fmt)) is m
        assert m[0].weight is w  # (the same Parameter object, its data in the format)
        got.append([tuple(p.stride()) for p in m.parameters()])
    assert got[0] == got[1]


def test_memory_format_errors_are_pytorchs():
    _same(lambda L: L.zeros(2, 3).clone(memory_format=L.channels_last))
    _same(lambda L: L.zeros(2, 3, 4, 5).clone(memory_format=L.channels_last_3d))
    _same(lambda L: L.zeros(2, 3).contiguous(memory_format=L.preserve_format))
    _same(lambda L: L.zeros(2, 3).clone(memory_format="channels_last"))
    _same(lambda L: L.zeros(2, 3).t().contiguous(memory_format=L.preserve_format))
    _same(lambda L: L.zeros(2, 3).contiguous(memory_format=L.preserve_format))
    for x, y in ((torch.zeros(2, 3), storch.zeros(2, 3)), (torch.zeros(2, 3).t(), storch.zeros(2, 3).t())):
        assert x.is_contiguous(memory_format=torch.preserve_format) == \
            y.is_contiguous(memory_format=storch.preserve_format)


def test_clone_in_a_format_has_gradients():
    for lib in (torch, storch):
        x = lib.arange(24.0).reshape(2, 3, 2, 2).requires_grad_(True)
        y = x.clone(memory_format=lib.channels_last)
        (y * lib.arange(24.0).reshape(2, 3, 2, 2)).sum().backward()
        if lib is torch:
            want = (x.grad.numpy(), y.stride())
        else:
            np.testing.assert_array_equal(to_numpy(x.grad), want[0])
            assert y.stride() == want[1]
    r = storch.zeros(3, 4, requires_grad=True).t()
    z = storch.zeros_like(r, requires_grad=True)
    assert z.requires_grad and z.is_leaf and z.stride() == (1, 4)


# --- 3. layouts of softmax, log_softmax, quantile --------------------------------------------

@settings(max_examples=80, deadline=None)
@given(_views(), hs.integers(-5, 4), hs.sampled_from(["softmax", "log_softmax"]))
def test_softmax_layout_is_pytorchs(recipe, dim, name):
    nd = len(recipe[0])
    dim = dim % nd

    def f(L):
        return getattr(L, name)(_make_view(L, recipe) / 7, dim)
    _same(f)
    _same(lambda L: getattr(L.nn.functional, name)(_make_view(L, recipe) / 7, dim=dim))
    _same(lambda L: getattr(_make_view(L, recipe) / 7, name)(dim))


@settings(max_examples=60, deadline=None)
@given(_views(), hs.one_of(hs.none(), hs.integers(0, 4)), hs.booleans(),
       hs.sampled_from(["scalar", "0-d", "1-d"]), hs.sampled_from(["quantile", "nanquantile"]))
def test_quantile_layout_is_pytorchs(recipe, dim, keepdim, qkind, name):
    shape, nd = recipe[0], len(recipe[0])
    if dim is not None:
        dim %= nd
    if 0 in shape:
        return  # (PyTorch: "quantile() input tensor must be non-empty")

    def q(L):
        return {"scalar": 0.3, "0-d": L.tensor(0.3), "1-d": L.tensor([0.1, 0.5, 0.9])}[qkind]

    _same(lambda L: getattr(L, name)(_make_view(L, recipe), q(L), dim=dim, keepdim=keepdim))
    _same(lambda L: getattr(_make_view(L, recipe), name)(q(L), dim, keepdim))


# --- 4. nn.Parameter's repr --------------------------------------------------------------------

def _pytorch_repr_on(t, device, grad):
    """PyTorch's repr of ``nn.Parameter(t)`` were ``t`` on ``device`` (the default device
    being the CPU): ``torch/_tensor_str.py``'s ``_str_intern`` puts ``device='cuda:0'`` first
    among the suffixes of a tensor off the default device, before ``requires_grad=True``,
    joined by its ``_add_suffixes``. (Built with PyTorch's own pieces: this machine's PyTorch
    has no CUDA tensor to print.)"""
    from torch import _tensor_str
    suffixes = ([] if device == "cpu" else [f"device='{device}'"]) + (["requires_grad=True"] if grad else [])
    return "Parameter containing:\n" + _tensor_str._add_suffixes(
        "tensor(" + _tensor_str._tensor_str(t, len("tensor(")), suffixes, len("tensor("), False)


@pytest.mark.parametrize("data", [[1.0, 2.0], [[1.5]], 3.0, [1, 2]])
@pytest.mark.parametrize("grad", [True, False])
def test_parameter_repr_is_pytorchs(data, grad, device):
    if isinstance(data, list) and isinstance(np.asarray(data).flat[0], np.integer) and grad:
        grad = False  # (only floating tensors require grad)
    t = torch.tensor(data)
    cpu_want = repr(torch.nn.Parameter(t, requires_grad=grad))
    assert _pytorch_repr_on(t, "cpu", grad) == cpu_want  # (the builder is PyTorch's repr on cpu)
    # (a device's index is printed, as PyTorch prints cuda:0 for torch.device("cuda"))
    dev = "cpu" if str(device) == "cpu" else f"{device.type}:{device.index or 0}"
    want = _pytorch_repr_on(t, dev, grad)
    got = repr(storch.nn.Parameter(storch.tensor(data), requires_grad=grad))
    assert got == want
    assert str(storch.nn.Parameter(storch.tensor(data), requires_grad=grad)) == want
    on_cpu = storch.nn.Parameter(storch.tensor(data, device="cpu"), requires_grad=grad)
    assert repr(on_cpu) == cpu_want


# --- 5. functions --------------------------------------------------------------------------------

def _t(L, v, d=None):
    return L.tensor(v, dtype=getattr(L, d) if d else None)


_FLOATS = ["float16", "float32", "float64"]


@pytest.mark.parametrize("d1", _FLOATS + ["int64"])
@pytest.mark.parametrize("d2", _FLOATS)
@pytest.mark.parametrize("w", [0.5, 2, -0.25, "tensor32", "tensor64", "0-d32"])
def test_lerp_dtypes_and_weights(d1, d2, w):
    def f(L):
        weight = {"tensor32": _t(L, [[0.25], [0.75]], "float32"), "tensor64": _t(L, [[0.25], [0.75]], "float64"),
                  "0-d32": _t(L, 0.3, "float32")}.get(w, w)
        return L.lerp(_t(L, [1.0, -2.0, 3.5], d1), _t(L, [3.0, 5.0, -1.0], d2), weight)
    _same(f, rtol=2e-3, atol=2e-3)
    _same(lambda L: _t(L, [1.0, -2.0], d1).lerp_(_t(L, [3.0, 5.0], d2), 0.5), rtol=2e-3, atol=2e-3)


_A = np.random.default_rng(0).standard_normal((2, 3, 4))
_B = np.random.default_rng(1).standard_normal((2, 5, 4))


@pytest.mark.parametrize("p", [0, 0.5, 1, 1.5, 2, 3, math.inf, -1, -0.5])
@pytest.mark.parametrize("mode", [None, "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                  "donot_use_mm_for_euclid_dist", "nonsense"])
def test_cdist_p_and_compute_mode(p, mode):
    kw = {} if mode is None else {"compute_mode": mode}
    _same(lambda L: L.cdist(L.tensor(_A), L.tensor(_B), p=p, **kw), rtol=1e-6, atol=1e-6)
    _same(lambda L: L.cdist(L.tensor(_A, dtype=L.float32), L.tensor(_B, dtype=L.float32), p=p, **kw),
          rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", [
    lambda L: L.cdist(L.tensor([[1, 2]]), L.tensor([[3, 4]])),
    lambda L: L.cdist(L.tensor(_A, dtype=L.float32), L.tensor(_B)),
    lambda L: L.cdist(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0])),
    lambda L: L.cdist(L.tensor(_A), L.tensor(_B[..., :3])),
    lambda L: L.cdist(L.tensor(_A[:1]), L.tensor(_B)),
    lambda L: L.cdist(L.zeros(0, 3), L.zeros(2, 3)),
    lambda L: L.cdist(L.zeros(2, 0), L.zeros(3, 0)),
    lambda L: L.cdist(L.tensor(_A), L.tensor(_B), p="fro"),
])
def test_cdist_shapes_dtypes_and_errors(case):
    _same(case)


_DIVIDENDS = {"int64": [-7, 7, -8, 9, 0], "int8": [-128, 127, -7, 7, 0], "uint8": [200, 7, 0, 1, 255],
              "float32": [-7.0, 7.5, -7.5, 0.0, 1e30], "float64": [-7.0, 7.5, -7.5, 0.0, -0.0],
              "bool": [True, False, True, True, False]}
_DIVISORS = {"int64": [2, -2, 3, -3, 5], "int8": [-1, 2, -2, 3, 7], "uint8": [3, 2, 5, 1, 2],
             "float32": [2.0, -2.0, 0.0, -0.0, 3.0], "float64": [2.0, 0.0, -2.0, 3.0, -7.0],
             "bool": [True, True, True, True, True]}


@pytest.mark.parametrize("da", sorted(_DIVIDENDS))
@pytest.mark.parametrize("db", sorted(_DIVISORS))
@pytest.mark.parametrize("mode", [None, "trunc", "floor", "nonsense"])
def test_div_rounding_modes(da, db, mode):
    _same(lambda L: L.div(_t(L, _DIVIDENDS[da], da), _t(L, _DIVISORS[db], db), rounding_mode=mode))
    _same(lambda L: _t(L, _DIVIDENDS[da], da).div(3, rounding_mode=mode))
    _same(lambda L: _t(L, _DIVIDENDS[da], da).div(-2.5, rounding_mode=mode))
    _same(lambda L: _t(L, _DIVIDENDS[da], da).div_(_t(L, _DIVISORS[db], db), rounding_mode=mode))


@pytest.mark.parametrize("dx", ["float16", "float32", "float64", "int64", "int32", "bool", "complex64"])
@pytest.mark.parametrize("de", ["int64", "int32", "float32", "float64"])
def test_ldexp(dx, de):
    _same(lambda L: L.ldexp(_t(L, [1, 0, 1], dx), _t(L, [3, -2, 100], de)))
    _same(lambda L: _t(L, [1, 0, 1], dx).ldexp(_t(L, [3, -2, 1], de)))
    _same(lambda L: _t(L, [1, 0, 1], dx).ldexp_(_t(L, [3, -2, 1], de)))


@pytest.mark.parametrize("d", ["bool", "uint8", "int8", "int64", "float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("name", ["sign", "sgn"])
def test_sign_and_sgn_dtypes(d, name):
    v = [1, 0, 1] if d in ("bool", "uint8") else [2.5, -0.0, -3] if d[0] in "fc" else [2, 0, -3]
    _same(lambda L: getattr(L, name)(_t(L, v, d)))
    _same(lambda L: getattr(_t(L, v, d), name)())
    _same(lambda L: getattr(_t(L, v, d), name + "_")())


_ROUND = [1.2345, -2.5, 0.5, 1.5, 123.456, 2.675, -0.05, 1e10]


@pytest.mark.parametrize("d", ["float16", "float32", "float64", "int64", "int32", "uint8", "bool", "complex64"])
@pytest.mark.parametrize("decimals", [None, 0, 1, 2, 3, -1, -2, 1.5, True])
def test_round_decimals(d, decimals):
    v = [15, 25, 0, 123] if d in ("int64", "int32", "uint8") else [1, 0] if d == "bool" else _ROUND
    if d == "float16":
        v = v[:-1]
    kw = {} if decimals is None else {"decimals": decimals}
    _same(lambda L: L.round(_t(L, v, d), **kw), rtol=1e-3, atol=1e-3)
    _same(lambda L: _t(L, v, d).round(**kw), rtol=1e-3, atol=1e-3)
    _same(lambda L: _t(L, v, d).round_(**kw), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("d", ["int64", "int32", "uint8", "bool", "float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("name", ["deg2rad", "rad2deg"])
def test_deg2rad_rad2deg(d, name):
    v = [180, 90, 0] if d != "bool" else [True, False, True]
    _same(lambda L: getattr(L, name)(_t(L, v, d)), rtol=1e-3)
    _same(lambda L: getattr(_t(L, v, d), name)(), rtol=1e-3)
    _same(lambda L: getattr(_t(L, v, d), name + "_")(), rtol=1e-3)


@pytest.mark.parametrize("eps", [None, 0.0, 1e-6, 0.2, 0.5, 0.6, -0.1, 1.5])
@pytest.mark.parametrize("d", ["float32", "float64", "int64", "bool", "float16"])
def test_logit_eps(eps, d):
    v = [0.0, 0.1, 0.5, 0.9, 1.0, -0.5, 1.5] if d[0] == "f" else [0, 1, 1] if d == "bool" else [0, 1, 2, -1]
    _same(lambda L: L.logit(_t(L, v, d), eps=eps), rtol=2e-3)
    _same(lambda L: _t(L, v, d).logit(eps), rtol=2e-3)
    _same(lambda L: L.special.logit(_t(L, v, d), eps=eps), rtol=2e-3)
    if d[0] == "f":
        _same(lambda L: _t(L, v, d).logit_(eps=eps), rtol=2e-3)


@pytest.mark.parametrize("d", ["int64", "int32", "int8", "uint8", "bool"])
@pytest.mark.parametrize("exp", [-1, -2])
def test_integer_to_negative_power_raises_as_pytorch(d, exp):
    v = [2, 3, 1] if d != "bool" else [True, False, True]
    for f in (lambda L: L.pow(_t(L, v, d), exp), lambda L: _t(L, v, d) ** exp,
              lambda L: _t(L, v, d).pow_(exp), lambda L: L.pow(_t(L, v, d), exp, out=_t(L, v, d))):
        with pytest.raises(RuntimeError, match="(?i)integers to negative integer powers"):
            f(torch)
        # (a bool base computes as an integer one, as PyTorch's: the same refusal)
        with pytest.raises(RuntimeError, match="(?i)integers to negative integer powers") as e:
            f(storch)
        assert isinstance(e.value, ValueError)  # (and the standard's type)


def test_dtype_and_cast_refusals_catch_as_both():
    """A refused dtype or cast: the standard's TypeError and PyTorch's RuntimeError."""
    cases = [lambda L: _t(L, [1, 2]).deg2rad_(),
             lambda L: L.add(_t(L, [1.5]), _t(L, [1.5]), out=_t(L, [1])),
             lambda L: _t(L, [1, 2]).div_(2),
             lambda L: L.round(_t(L, [True])),
             lambda L: L.sign(_t(L, [1 + 1j]))]
    for f in cases:
        with pytest.raises(RuntimeError):
            f(torch)
        with pytest.raises(RuntimeError):
            f(storch)
    with pytest.raises(TypeError):
        strided.add(strided.asarray([1.5]), 1.0, out=strided.asarray([1]))
    with pytest.raises(TypeError):
        strided.floor(strided.asarray([1j]))


@pytest.mark.parametrize("make", [
    lambda L: L.nn.parameter.UninitializedParameter(),
    lambda L: L.nn.parameter.UninitializedBuffer(),
    lambda L: L.nn.LazyLinear(3).weight,
    lambda L: L.nn.LazyConv2d(4, 3).bias,
])
def test_uninitialized_shape_raises_as_pytorchs(make):
    for lib in (torch, storch):
        x = make(lib)
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
            x.shape
        assert repr(x) in ("<UninitializedParameter>", "<UninitializedBuffer>")
    for lib in (torch, storch):  # (materialized: an ordinary shape)
        p = lib.nn.parameter.UninitializedParameter()
        p.materialize((2, 3))
        assert tuple(p.shape) == (2, 3) and p.stride() == (3, 1)
        m = lib.nn.LazyLinear(3)
        m(lib.ones(2, 5))
        assert tuple(m.weight.shape) == (3, 5)
