"""``torch.autograd.functional`` against PyTorch 2.13: ``vjp``, ``jvp``, ``jacobian``, ``hessian``,
``hvp``, ``vhp`` -- values, dtypes, the nesting of the returned tuples (array or tuple inputs and
outputs), ``create_graph`` (the results differentiated again, compared by their gradients),
``strict`` and the errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (compared with PyTorch on the CPU: the default device is the CPU on every leg)
pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

import strided  # noqa: E402
import strided.torch as st  # noqa: E402
import strided.autograd.functional as SF  # noqa: E402
import torch.autograd.functional as TF  # noqa: E402

from _parity import to_numpy  # noqa: E402

RNG = np.random.default_rng(20)


def T(lib, a, grad=False, transpose=False):
    a = np.asarray(a)
    if transpose:  # (a non-contiguous view: the transpose of a copy)
        a = np.ascontiguousarray(a.T)
    t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
    if transpose:
        t = t.t() if lib is torch else t.mT
    if grad:
        t.requires_grad_(True)
    return t


def same(s, t, tol=None, path="result"):
    """``s`` (strided) and ``t`` (PyTorch) nested alike, with equal values, dtypes and shapes."""
    if isinstance(t, torch.Tensor):
        assert isinstance(s, strided.Array), f"{path}: {type(s).__name__}, PyTorch gives a tensor"
        assert tuple(s.shape) == tuple(t.shape), (path, s.shape, t.shape)
        assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (path, s.dtype, t.dtype)
        assert s.requires_grad == t.requires_grad, (path, s.requires_grad, t.requires_grad)
        kw = tol or ({"rtol": 1e-5, "atol": 1e-6} if t.dtype == torch.float32 else {"rtol": 1e-10, "atol": 1e-12})
        np.testing.assert_allclose(to_numpy(s.detach()), t.detach().numpy(), err_msg=path, **kw)
        return
    assert type(s) is type(t), f"{path}: {type(s).__name__} where PyTorch gives {type(t).__name__}"
    assert len(s) == len(t), (path, len(s), len(t))
    for i, (a, b) in enumerate(zip(s, t)):
        same(a, b, tol, f"{path}[{i}]")


def leaves(r):
    if isinstance(r, (tuple, list)):
        return [x for e in r for x in leaves(e)]
    return [r]


# Functions written once for both libraries (methods only).
def f_square_sin(x):
    return x * x * x.sin()


def f_pair_scalar(x, y):
    return (x * y.exp()).sum() + (x ** 3).sum()


def f_pair_tuple(x, y):
    return (x @ y, (x * 2).tanh())


def f_mixed(x, y):
    return (x.sin() * y).sum(0)


def f_scalar(x):
    return (x ** 3).sum() + (x.sin() * x).sum()


def make(lib, shapes, dtype, grad=False, transpose=False):
    return tuple(T(lib, RNG_VALUES[s].astype(dtype), grad, transpose and len(s) == 2) for s in shapes)


RNG_VALUES = {s: RNG.uniform(-1.5, 1.5, s) for s in [(3,), (2, 3), (3, 2), (3, 3), (2, 2), ()]}

CASES = {  # name: (func, input shapes, does it return a scalar)
    "square_sin": (f_square_sin, [(2, 3)], False),
    "pair_scalar": (f_pair_scalar, [(3,), (3,)], True),
    "pair_tuple": (f_pair_tuple, [(2, 3), (3, 2)], False),
    "mixed": (f_mixed, [(2, 3), (2, 3)], False),
    "scalar": (f_scalar, [(3, 3)], True),
}


def inputs(lib, case, dtype, as_tuple, transpose=False):
    fn, shapes, _ = CASES[case]
    xs = make(lib, shapes, dtype, transpose=transpose)
    return xs if (as_tuple or len(xs) > 1) else xs[0]


def out_like(lib, case, dtype):
    """A v shaped as the outputs (a tuple when the function returns one)."""
    fn, shapes, _ = CASES[case]
    xs = make(torch, shapes, dtype)
    out = fn(*xs)
    if isinstance(out, tuple):
        return tuple(T(lib, RNG.uniform(-1, 1, tuple(o.shape)).astype(dtype)) for o in out)
    return T(lib, RNG.uniform(-1, 1, tuple(out.shape)).astype(dtype))


def in_like(lib, case, dtype, as_tuple):
    fn, shapes, _ = CASES[case]
    vs = tuple(T(lib, RNG.uniform(-1, 1, s).astype(dtype)) for s in shapes)
    return vs if (as_tuple or len(vs) > 1) else vs[0]


def both(make_args):
    """(strided's, PyTorch's) from one numpy draw: make_args(lib) called with the RNG state replayed."""
    state = RNG.bit_generator.state
    s = make_args(st)
    RNG.bit_generator.state = state
    t = make_args(torch)
    return s, t


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("as_tuple", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_vjp_jvp_jacobian_match(case, as_tuple, dtype):
    fn = CASES[case][0]
    (si, sv, sw), (ti, tv, tw) = both(lambda lib: (inputs(lib, case, dtype, as_tuple, transpose=True),
                                                   out_like(lib, case, dtype), in_like(lib, case, dtype, as_tuple)))
    same(SF.vjp(fn, si, sv), TF.vjp(fn, ti, tv))
    same(SF.jvp(fn, si, sw), TF.jvp(fn, ti, tw))
    same(SF.jacobian(fn, si), TF.jacobian(fn, ti))
    same(SF.jacobian(fn, si, vectorize=True), TF.jacobian(fn, ti, vectorize=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("as_tuple", [False, True])
@pytest.mark.parametrize("case", [c for c in sorted(CASES) if CASES[c][2]])
def test_hessian_hvp_vhp_match(case, as_tuple, dtype):
    fn = CASES[case][0]
    (si, sw), (ti, tw) = both(lambda lib: (inputs(lib, case, dtype, as_tuple), in_like(lib, case, dtype, as_tuple)))
    same(SF.hessian(fn, si), TF.hessian(fn, ti))
    same(SF.hvp(fn, si, sw), TF.hvp(fn, ti, tw))
    same(SF.vhp(fn, si, sw), TF.vhp(fn, ti, tw))
    same(SF.vjp(fn, si), TF.vjp(fn, ti))  # (v may be None for a one-element output)


@pytest.mark.parametrize("which", ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"])
def test_create_graph_results_differentiate_as_pytorchs(which):
    """create_graph=True: the results keep their history; their gradients match PyTorch's."""
    case = "pair_scalar" if which in ("hessian", "hvp", "vhp") else "pair_tuple"
    fn = CASES[case][0]

    def call(lib, mod):
        xs = make(lib, CASES[case][1], "float64", grad=True)
        if which in ("vjp",):
            r = mod.vjp(fn, xs, out_like(lib, case, "float64"), create_graph=True)
        elif which in ("jvp", "hvp", "vhp"):
            r = getattr(mod, which)(fn, xs, in_like(lib, case, "float64", True), create_graph=True)
        else:
            r = getattr(mod, which)(fn, xs, create_graph=True)
        total = sum((x * x).sum() for x in leaves(r))
        total.backward()
        return r, tuple(x.grad for x in xs)

    (sr, sg), (tr, tg) = both(lambda lib: call(lib, SF if lib is st else TF))
    same(sr, tr)
    same(sg, tg)


def test_results_are_detached_without_create_graph():
    """Inputs that require grad: the results do not (PyTorch detaches them), and .grad is untouched."""
    def call(lib, mod):
        x = T(lib, [1.0, 2.0], grad=True)
        r = mod.jacobian(lambda a: a ** 2, x), mod.vjp(lambda a: a.exp(), x, x.detach())[1]
        return r, x.grad
    (sr, sg), (tr, tg) = both(lambda lib: call(lib, SF if lib is st else TF))
    same(sr, tr)
    assert sg is None and tg is None


def test_unused_inputs_and_outputs_without_grad_give_zeros():
    def f(x, y):
        return x * 2, y.detach() * 0 + 1
    (sx, sy), (tx, ty) = both(lambda lib: (T(lib, [1.0, 2.0]), T(lib, [3.0])))
    same(SF.jacobian(f, (sx, sy)), TF.jacobian(f, (tx, ty)))
    same(SF.vjp(f, (sx, sy), (st.ones(2, dtype=st.float64), st.ones(1, dtype=st.float64))),
         TF.vjp(f, (tx, ty), (torch.ones(2, dtype=torch.float64), torch.ones(1, dtype=torch.float64))))
    same(SF.jvp(f, (sx, sy), (sx, sy)), TF.jvp(f, (tx, ty), (tx, ty)))
    same(SF.hessian(lambda a, b: (a * 3).sum(), (sx, sy)), TF.hessian(lambda a, b: (a * 3).sum(), (tx, ty)))


def test_empty_output_jacobian_raises_as_pytorch():
    for mod, lib in ((TF, torch), (SF, st)):
        with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
            mod.jacobian(lambda a: a[:0], T(lib, [1.0, 2.0]))


STRICT = [
    ("vjp", lambda m, x: m.vjp(lambda a: a.detach(), x, x, strict=True), "does not require gradients"),
    ("vjp_unused", lambda m, x: m.vjp(lambda a, b: a * 2, (x, x), x, strict=True), "independent of input 1"),
    ("jacobian", lambda m, x: m.jacobian(lambda a, b: a * 2, (x, x), strict=True), "independent of input 1"),
    ("jacobian_linear_cg", lambda m, x: m.jacobian(lambda a: a * 2, x, create_graph=True, strict=True),
     "independent of input 0. This is not allowed in strict mode when create_graph=True"),
    ("jvp", lambda m, x: m.jvp(lambda a: a * 2 + 0 * a.detach(), x, x, strict=True), None),
    ("hessian", lambda m, x: m.hessian(lambda a: (a * 2).sum(), x, strict=True), "jacobian of the user-provided"),
    ("hvp", lambda m, x: m.hvp(lambda a: (a * 2).sum(), x, x, strict=True), "jacobian of the user-provided"),
    ("vhp", lambda m, x: m.vhp(lambda a: (a * 2).sum(), x, x, strict=True), "jacobian of the user-provided"),
]


@pytest.mark.parametrize("name,call,match", STRICT, ids=[s[0] for s in STRICT])
def test_strict_mode_as_pytorch(name, call, match):
    sx, tx = T(st, [1.0, 2.0]), T(torch, [1.0, 2.0])
    try:
        expected = call(TF, tx)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=match or "") as info:
            call(SF, sx)
        assert str(info.value) == str(e)
    else:
        same(call(SF, sx), expected)


ERRORS = [
    ("non-tensor output", lambda m, lib, x: m.vjp(lambda a: 3.0, x, x), TypeError, "outputs of the user-provided"),
    ("list output", lambda m, lib, x: m.jacobian(lambda a: [a], x), TypeError, "outputs of the user-provided"),
    ("non-tensor input", lambda m, lib, x: m.jacobian(lambda a: a, [1.0]), TypeError, "inputs given to jacobian"),
    ("tuple with a float", lambda m, lib, x: m.jvp(lambda a, b: a, (x, 2.0), (x, x)), TypeError, "index 1"),
    ("v shape", lambda m, lib, x: m.vjp(lambda a: a * 2, x, x[:1]), RuntimeError, "v has invalid size"),
    ("v tuple length", lambda m, lib, x: m.jvp(lambda a, b: a * b, (x, x), (x,)), RuntimeError, "invalid length"),
    ("v entry shape", lambda m, lib, x: m.hvp(lambda a, b: (a * b).sum(), (x, x), (x, x[:1])), RuntimeError,
     "Entry 1 in v has invalid size"),
    ("v None", lambda m, lib, x: m.vjp(lambda a: a * 2, x), RuntimeError, "v can only be None"),
    ("v None jvp", lambda m, lib, x: m.jvp(lambda a: a * 2, x), RuntimeError, "v can only be None"),
    ("hessian of a vector", lambda m, lib, x: m.hessian(lambda a: a * 2, x), RuntimeError, "single element"),
    ("hessian of a tuple", lambda m, lib, x: m.hessian(lambda a: (a.sum(),), x), RuntimeError, "single Tensor"),
    ("hvp of a vector", lambda m, lib, x: m.hvp(lambda a: a * 2, x, x), RuntimeError, "single element"),
    ("vhp of a tuple", lambda m, lib, x: m.vhp(lambda a: (a.sum(), a.sum()), x, x), RuntimeError, "single Tensor"),
    ("bad strategy", lambda m, lib, x: m.jacobian(lambda a: a, x, strategy="both"), AssertionError, "strategy"),
    ("vectorize strict", lambda m, lib, x: m.jacobian(lambda a: a * 2, x, strict=True, vectorize=True),
     RuntimeError, "vectorized=True"),
    ("forward strict", lambda m, lib, x: m.jacobian(lambda a: a, x, strict=True, strategy="forward-mode"),
     RuntimeError, "forward-mode"),
    ("forward create_graph", lambda m, lib, x: m.jacobian(lambda a: a, x, create_graph=True,
                                                           strategy="forward-mode"), NotImplementedError,
     "create_graph=True"),
    ("forward no vectorize", lambda m, lib, x: m.jacobian(lambda a: a, x, strategy="forward-mode"),
     NotImplementedError, "vectorize=True"),
]


@pytest.mark.parametrize("name,call,exc,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_as_pytorch(name, call, exc, match):
    with pytest.raises(exc, match=match) as t_info:
        call(TF, torch, T(torch, [1.0, 2.0]))
    with pytest.raises(exc, match=match) as s_info:
        call(SF, st, T(st, [1.0, 2.0]))
    if exc is not TypeError:  # (TypeError names the class: <class 'float'> in both, <class 'list'> in both)
        assert str(s_info.value) == str(t_info.value).replace("torch.Size", "strided.Size")


def test_forward_mode_says_strided_lacks_it():
    with pytest.raises(NotImplementedError, match="no forward-mode"):
        SF.jacobian(lambda a: a * 2, T(st, [1.0]), vectorize=True, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="no forward-mode"):
        SF.hessian(lambda a: (a * a).sum(), T(st, [1.0]), vectorize=True, outer_jacobian_strategy="forward-mode")


def test_reachable_as_torch_autograd_functional():
    # (strided.torch.autograd.functional is a module re-exporting strided.autograd.functional's objects)
    assert all(getattr(st.autograd.functional, n) is getattr(SF, n) for n in SF.__all__)
    assert strided.autograd.functional.hessian is SF.hessian
    assert SF.__all__ == TF.__all__


def test_against_finite_differences():
    """jacobian and hessian agree with central differences (float64)."""
    x0 = RNG.uniform(-1, 1, 4)

    def f(x):
        return (x.sin() * x.roll(1, 0)).sum() + (x ** 4).sum()
    h = 1e-5
    J = to_numpy(SF.jacobian(f, st.asarray(x0)))
    fd = np.array([(to_numpy(f(st.asarray(x0 + h * e))) - to_numpy(f(st.asarray(x0 - h * e)))) / (2 * h)
                   for e in np.eye(4)])
    np.testing.assert_allclose(J, fd, rtol=1e-6, atol=1e-8)
    H = to_numpy(SF.hessian(f, st.asarray(x0)))
    g = lambda x: to_numpy(SF.jacobian(f, st.asarray(x)))  # noqa: E731
    fdh = np.array([(g(x0 + h * e) - g(x0 - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(H, fdh, rtol=1e-5, atol=1e-7)
