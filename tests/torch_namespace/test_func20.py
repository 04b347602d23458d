"""``torch.func`` against PyTorch 2.13: ``grad``, ``grad_and_value`` (``argnums``, ``has_aux``),
``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``functional_call`` and ``vmap``; nested
transforms (``grad(grad(f))``, ``jacrev(jacrev(f))``, ``vmap(grad(f))``), pytree arguments and
outputs, composition with ``backward`` (a result that depends on outside parameters keeps its
history), the errors; and ``torch.nn.utils.stateless.functional_call``."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (compared with PyTorch on the CPU: the default device is the CPU on every leg)
pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

import strided  # noqa: E402
import strided.torch as st  # noqa: E402
import strided.torch.func as SF  # noqa: E402
import torch.func as TF  # noqa: E402

from _parity import to_numpy  # noqa: E402

RNG = np.random.default_rng(2020)


def T(lib, a, grad=False, dtype="float64"):
    a = np.asarray(a, dtype=dtype)
    t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
    if grad:
        t.requires_grad_(True)
    return t


def same(s, t, path="result"):
    """``s`` (strided) and ``t`` (PyTorch) nested alike (tuples, lists, dicts), equal arrays."""
    if isinstance(t, torch.Tensor):
        assert isinstance(s, strided.Array), f"{path}: {type(s).__name__}, PyTorch gives a tensor"
        assert tuple(s.shape) == tuple(t.shape), (path, s.shape, t.shape)
        assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (path, s.dtype, t.dtype)
        assert s.requires_grad == t.requires_grad, (path, "requires_grad", s.requires_grad, t.requires_grad)
        kw = {"rtol": 1e-5, "atol": 1e-6} if t.dtype == torch.float32 else {"rtol": 1e-10, "atol": 1e-12}
        np.testing.assert_allclose(to_numpy(s.detach()), t.detach().numpy(), err_msg=path, **kw)
        return
    assert type(s) is type(t), f"{path}: {type(s).__name__} where PyTorch gives {type(t).__name__}"
    if isinstance(t, dict):
        assert list(s) == list(t), path
        for k in t:
            same(s[k], t[k], f"{path}[{k!r}]")
        return
    if isinstance(t, (tuple, list)):
        assert len(s) == len(t), (path, len(s), len(t))
        for i, (a, b) in enumerate(zip(s, t)):
            same(a, b, f"{path}[{i}]")
        return
    assert s == t, (path, s, t)


def both(build):
    """build(lib, mod) for strided and PyTorch with the same numpy draws."""
    state = RNG.bit_generator.state
    s = build(st, SF)
    RNG.bit_generator.state = state
    t = build(torch, TF)
    return s, t


def rand(lib, *shape, dtype="float64", grad=False):
    return T(lib, RNG.uniform(-1.2, 1.2, shape), grad, dtype)


def f1(x, y):
    return (x.sin() * y).sum() + (x ** 3).sum()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0), -1, (-2,)])
def test_grad_and_value_argnums(argnums, dtype):
    s, t = both(lambda lib, m: m.grad_and_value(f1, argnums=argnums)(rand(lib, 3, dtype=dtype),
                                                                      rand(lib, 3, dtype=dtype)))
    same(s, t)
    s, t = both(lambda lib, m: m.grad(f1, argnums)(rand(lib, 2, 2, dtype=dtype), rand(lib, 2, 2, dtype=dtype)))
    same(s, t)


def test_grad_has_aux_and_pytree_arguments():
    def f(d, scale):
        out = (d["a"] * d["b"][0]).sum() * scale + d["b"][1].exp().sum()
        return out, {"aux": d["a"] * 2, "n": [d["b"][1]]}

    def build(lib, m):
        d = {"a": rand(lib, 3), "b": [rand(lib, 3), rand(lib, 2)]}
        return (m.grad(f, has_aux=True)(d, 2.0), m.grad_and_value(f, has_aux=True)(d, 3.0))
    same(*both(build))


@pytest.mark.parametrize("n", [2, 3])
def test_grad_nested(n):
    """grad(grad(f)) and grad(grad(grad(f))) of a scalar function: the derivatives of PyTorch."""
    def f(x):
        return x.sin() * x ** 3

    def build(lib, m):
        g = f
        for _ in range(n):
            g = m.grad(g)
        x = T(lib, 0.7)
        return g(x)
    same(*both(build))


def test_grad_of_grad_with_two_arguments_and_closures():
    """An inner grad over x inside an outer grad over w: the result depends on w (an outer variable)."""
    def build(lib, m):
        x = rand(lib, 3)

        def inner(x, w):
            return (x.sin() * w * x).sum()

        def outer(w):
            return (m.grad(inner)(x, w) ** 2).sum()
        w = rand(lib, 3)
        return m.grad(outer)(w), m.grad(lambda w: m.grad(inner, argnums=1)(x, w).sum())(w)
    same(*both(build))


def test_results_keep_history_only_through_outside_arrays():
    """A grad of a function reading a parameter that requires grad keeps the parameter's history
    (backward reaches it, as PyTorch's); inputs of the transform itself do not leave it."""
    def build(lib, m):
        w = rand(lib, 3, grad=True)
        x = rand(lib, 3)
        g = m.grad(lambda x: (x * x * w).sum())(x)
        plain = m.grad(lambda x: (x ** 3).sum())(x)
        g.sum().backward()
        xr = rand(lib, 3, grad=True)
        gx = m.grad(lambda x: (x ** 3).sum())(xr)
        gx.sum().backward()
        return g, plain, w.grad, gx, xr.grad
    same(*both(build))


@pytest.mark.parametrize("has_aux", [False, True])
def test_vjp_structures(has_aux):
    def f(x, y):
        out = {"p": x * y, "q": (x.exp(), y.sum())}
        return (out, x.cos()) if has_aux else out

    def build(lib, m):
        x, y = rand(lib, 2, 3), rand(lib, 2, 3)
        r = m.vjp(f, x, y, has_aux=has_aux)
        ct = {"p": rand(lib, 2, 3), "q": (rand(lib, 2, 3), rand(lib))}
        return (r[0], r[1](ct), r[1](ct)) + ((r[2],) if has_aux else ())  # (vjp_fn runs twice)
    same(*both(build))


def test_vjp_fn_errors_on_wrong_cotangents():
    for m, lib in ((TF, torch), (SF, st)):
        out, fn = m.vjp(lambda x: (x * 2, x * 3), T(lib, [1.0, 2.0]))
        with pytest.raises(RuntimeError, match="Expected pytree structure of cotangents"):
            fn(T(lib, [1.0, 1.0]))
        with pytest.raises(RuntimeError, match="Mismatch in shape"):
            fn((T(lib, [1.0, 1.0, 1.0]), T(lib, [1.0, 1.0])))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_jvp_values(dtype):
    def f(x, y):
        return x.sin() * y, (x @ y.mT).sum()

    def build(lib, m):
        x, y, tx, ty = (rand(lib, 2, 3, dtype=dtype) for _ in range(4))
        return m.jvp(f, (x, y), (tx, ty)), m.jvp(lambda a: (a.tanh(), a * 2), (x,), (tx,), has_aux=True)
    same(*both(build))


def test_jvp_errors():
    for m, lib in ((TF, torch), (SF, st)):
        x = T(lib, [1.0, 2.0])
        with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
            m.jvp(lambda a: a, x, (x,))
        with pytest.raises(RuntimeError, match="same python structure"):
            m.jvp(lambda a, b: a, (x, x), (x,))
        with pytest.raises(RuntimeError, match="has_aux is True"):
            m.jvp(lambda a: a, (x,), (x,), has_aux=True)


@pytest.mark.parametrize("which", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("argnums", [0, (0, 1), 1])
def test_jacobians(which, argnums):
    def f(x, y):
        return {"a": x.sin() * y, "b": (x.exp().sum(), y * y)}

    def build(lib, m):
        x, y = rand(lib, 2, 3), rand(lib, 2, 3)
        j = getattr(m, which)(f, argnums=argnums)(x, y)
        jaux = getattr(m, which)(lambda x: (x ** 2, x.sum()), has_aux=True)(x)
        return j, jaux
    same(*both(build))


def test_jacobian_of_pytree_argument_and_nested_jacobians():
    def build(lib, m):
        d = {"u": rand(lib, 3), "v": rand(lib, 2)}
        j = m.jacrev(lambda d: d["u"].sum() * d["v"])(d)
        x = rand(lib, 3)
        jj = m.jacrev(m.jacrev(lambda x: x.sin() * x.sum()))(x)
        jf = m.jacfwd(m.jacrev(lambda x: (x ** 3).prod()))(x)
        return j, jj, jf
    same(*both(build))


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_hessian(argnums):
    def build(lib, m):
        x, y = rand(lib, 3), rand(lib, 2)
        return m.hessian(lambda x, y: (x.sin() * x).sum() * (y ** 2).sum(), argnums)(x, y)
    same(*both(build))


def test_vmap_of_grad_per_sample_gradients():
    def build(lib, m):
        w = rand(lib, 3)
        xs, ys = rand(lib, 4, 3), rand(lib, 4)
        loss = lambda w, x, y: ((x * w).sum() - y) ** 2  # noqa: E731
        return m.vmap(m.grad(loss), in_dims=(None, 0, 0))(w, xs, ys)
    same(*both(build))
    assert SF.vmap is st.vmap


def test_jacfwd_randomness_error_as_pytorch():
    for m, lib in ((TF, torch), (SF, st)):
        x = T(lib, [1.0, 2.0])
        with pytest.raises(RuntimeError, match="randomness"):
            m.jacfwd(lambda a: a * lib.rand(2))(x)
        assert m.jacfwd(lambda a: a * lib.rand(2), randomness="different")(x).shape == (2, 2)
        with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
            m.jacfwd(lambda a: a, randomness="some")(x)


GRAD_ERRORS = [
    ("vector output", lambda m, lib, x: m.grad(lambda a: a * 2)(x), RuntimeError, "scalar Tensor, got tensor with 1"),
    ("list output", lambda m, lib, x: m.grad(lambda a: [a.sum()])(x), RuntimeError, "to return a Tensor, got"),
    ("argnum range", lambda m, lib, x: m.grad(lambda a: a.sum(), argnums=2)(x), RuntimeError,
     "Got argnum=2, but only 1 positional inputs"),
    ("argnum float", lambda m, lib, x: m.grad(lambda a: a.sum(), argnums=1.0)(x), RuntimeError,
     "argnums must be int or Tuple"),
    ("argnum in tuple", lambda m, lib, x: m.grad(lambda a: a.sum(), argnums=(0, "a"))(x), RuntimeError,
     "argnum must be int"),
    ("argnums empty", lambda m, lib, x: m.grad(lambda a, b: a.sum(), argnums=())(x, x), RuntimeError,
     "argnums must be non-empty"),
    ("argnums repeated", lambda m, lib, x: m.grad(lambda a, b: a.sum(), argnums=(0, 0))(x, x), RuntimeError,
     "argnums elements must be unique"),
    ("has_aux", lambda m, lib, x: m.grad(lambda a: a.sum(), has_aux=True)(x), RuntimeError, "(output, aux)"),
    ("int input", lambda m, lib, x: m.grad(lambda a: a.sum())(lib.tensor([1, 2])), RuntimeError,
     "floating point dtype"),
    ("vjp has_aux", lambda m, lib, x: m.vjp(lambda a: a, x, has_aux=True), RuntimeError, "(output, aux)"),
    ("vjp int output", lambda m, lib, x: m.vjp(lambda a: (a > 0).long(), x), RuntimeError, "floating-point"),
    ("vjp empty output", lambda m, lib, x: m.vjp(lambda a: (), x), RuntimeError, "non-empty output"),
    ("jacrev float output", lambda m, lib, x: m.jacrev(lambda a: 1.0)(x), RuntimeError, "only tensors"),
    ("jacrev chunk", lambda m, lib, x: m.jacrev(lambda a: a, chunk_size=0)(x), ValueError, "chunk_size"),
]


@pytest.mark.parametrize("name,call,exc,match", GRAD_ERRORS, ids=[e[0] for e in GRAD_ERRORS])
def test_errors_as_pytorch(name, call, exc, match):
    with pytest.raises(exc) as t_info:
        call(TF, torch, T(torch, [1.0, 2.0]))
    with pytest.raises(exc) as s_info:
        call(SF, st, T(st, [1.0, 2.0]))
    assert match in str(t_info.value), str(t_info.value)
    assert match in str(s_info.value), str(s_info.value)


class _Pair:
    """Builds the same small module in both libraries (a Linear, a buffer, a tied weight)."""

    @staticmethod
    def build(lib, tied=False):
        nn = lib.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(3, 2)
                self.register_buffer("shift", lib.zeros(2, dtype=lib.float64))
                if tied:
                    self.lin2 = nn.Linear(3, 2)
                    self.lin2.weight = self.lin.weight

            def forward(self, x, scale=1.0):
                out = self.lin(x) * scale + self.shift
                if tied:
                    out = out + self.lin2(x)
                return out
        m = Net().double()
        with lib.no_grad():
            m.lin.weight.copy_(T(lib, np.arange(6.0).reshape(2, 3) / 10))
            m.lin.bias.copy_(T(lib, [0.5, -0.5]))
            if tied:
                m.lin2.bias.copy_(T(lib, [1.0, 1.0]))
        return m


@pytest.mark.parametrize("spelling", ["func", "stateless"])
def test_functional_call(spelling):
    def build(lib, m):
        net = _Pair.build(lib)
        params = {"lin.weight": rand(lib, 2, 3, grad=True), "shift": rand(lib, 2)}
        x = rand(lib, 4, 3)
        if spelling == "func":
            out = m.functional_call(net, params, (x,), {"scale": 2.0})
            out2 = m.functional_call(net, (params, {"lin.bias": rand(lib, 2)}), x)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                out = lib.nn.utils.stateless.functional_call(net, params, (x,), {"scale": 2.0})
                out2 = lib.nn.utils.stateless.functional_call(net, params, x)
        out.sum().backward()
        return out, out2, params["lin.weight"].grad, net.lin.weight.grad, net(x)  # (the module is restored)
    same(*both(build))


def test_stateless_functional_call_warns_futurewarning():
    for lib in (torch, st):
        net = _Pair.build(lib)
        with pytest.warns(FutureWarning, match="torch.func.functional_call"):
            lib.nn.utils.stateless.functional_call(net, {}, (T(lib, np.ones((1, 3))),))


def test_functional_call_tied_weights_and_strict():
    def build(lib, m):
        net = _Pair.build(lib, tied=True)
        w = rand(lib, 2, 3)
        x = rand(lib, 2, 3)
        return (m.functional_call(net, {"lin.weight": w}, (x,)),
                m.functional_call(net, {"lin.weight": w}, (x,), tie_weights=False),
                m.functional_call(net, {"lin.weight": w, "lin2.weight": w}, (x,)))
    same(*both(build))
    for m, lib in ((TF, torch), (SF, st)):
        net = _Pair.build(lib, tied=True)
        x = T(lib, np.ones((1, 3)))
        with pytest.raises(ValueError, match="which are tied"):
            m.functional_call(net, {"lin.weight": T(lib, np.ones((2, 3))), "lin2.weight": T(lib, np.ones((2, 3)))},
                              (x,))
        with pytest.raises(RuntimeError, match=r"Unexpected key\(s\): 'nope'\.") as info:
            m.functional_call(net, {"nope": x}, (x,), strict=True)
        assert "Missing key(s): 'lin.bias', 'lin.weight', 'lin2.bias', 'lin2.weight', 'shift'." in str(info.value)
        with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
            m.functional_call(net, ({"shift": x}, {"shift": x}), (x,))
        with pytest.raises(ValueError, match="Expected parameter_and_buffer_dicts"):
            m.functional_call(net, 3, (x,))
        with pytest.raises(AttributeError, match="has no attribute `nolayer`"):
            m.functional_call(net, {"nolayer.weight": x}, (x,))
        assert net(x).shape == (1, 2)  # (restored after the errors)


def test_grad_over_functional_call_parameters():
    """The per-parameter gradient through functional_call (the torch.func training idiom)."""
    def build(lib, m):
        net = _Pair.build(lib)
        params = {k: v.detach() for k, v in net.named_parameters()}
        x, y = rand(lib, 4, 3), rand(lib, 4, 2)

        def loss(p, x, y):
            return ((m.functional_call(net, p, (x,)) - y) ** 2).mean()
        return m.grad(loss)(params, x, y), m.vmap(m.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    same(*both(build))


def test_namespace():
    assert st.func is SF
    for name in ("grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "functional_call",
                 "vmap"):
        assert hasattr(TF, name) and callable(getattr(SF, name)), name
        assert getattr(SF, name).__doc__, name


def test_under_no_grad_results_are_detached():
    """Called under no_grad, the transforms still differentiate; nothing they return keeps a history
    (even through a parameter that requires grad), as PyTorch's."""
    def build(lib, m):
        x = rand(lib, 2)
        w = rand(lib, 2, grad=True)
        with lib.no_grad():
            g = m.grad(lambda a: (a ** 3 * w).sum())(x)
            j = m.jacrev(lambda a: a.sin() * w)(x)
            o, fn = m.vjp(lambda a: a * w, x)
            r = fn(T(lib, [1.0, 1.0]))
        h = m.hessian(lambda a: (a ** 3 * w).sum())(x)
        return g, j, o, r, h
    same(*both(build))


def test_linearize():
    def f(x, y):
        return {"a": x.sin() * y, "b": (x * y).sum()}

    def build(lib, m):
        x, y = rand(lib, 3), rand(lib, 3)
        out, jvp_fn = m.linearize(f, x, y)
        t1 = jvp_fn(rand(lib, 3), rand(lib, 3))
        t2 = jvp_fn(rand(lib, 3), rand(lib, 3))  # (called again: the graph is kept)
        return out, t1, t2
    same(*both(build))
    for m, lib in ((TF, torch), (SF, st)):
        out, jvp_fn = m.linearize(lambda a: a * 2, T(lib, [1.0, 2.0]))
        with pytest.raises(RuntimeError, match="tangent:0 with shape"):
            jvp_fn(T(lib, [1.0]))
        with pytest.raises(RuntimeError, match="tangent:0 with dtype"):
            jvp_fn(T(lib, [1.0, 2.0], dtype="float32"))
        with pytest.raises(RuntimeError, match="to have the same argspec as the primals"):
            jvp_fn(T(lib, [1.0, 2.0]), T(lib, [1.0, 2.0]))


def test_stack_module_state_and_model_ensembling():
    """The torch.func ensembling idiom: stacked states, vmap over functional_call of a base model."""
    def build(lib, m):
        base = _Pair.build(lib)
        models = [copy.deepcopy(base) for _ in range(3)]  # (one class)
        with lib.no_grad():
            for i, mod in enumerate(models):
                mod.lin.weight.mul_(i + 1)
        params, buffers = m.stack_module_state(models)
        x = rand(lib, 4, 3)
        out = m.vmap(lambda p, b, x: m.functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None))(params,
                                                                                                        buffers, x)
        out.sum().backward()
        return params, buffers, out, params["lin.weight"].grad
    same(*both(build))
    for m, lib in ((TF, torch), (SF, st)):
        with pytest.raises(RuntimeError, match="Expected at least one model"):
            m.stack_module_state([])
        with pytest.raises(RuntimeError, match="same class"):
            m.stack_module_state([lib.nn.Linear(1, 1), lib.nn.Tanh()])
        with pytest.raises(RuntimeError, match="same training/eval mode"):
            m.stack_module_state([lib.nn.Linear(1, 1), lib.nn.Linear(1, 1).eval()])
        a, b = lib.nn.Linear(1, 1), lib.nn.Linear(1, 1)
        b.bias.requires_grad_(False)
        with pytest.raises(RuntimeError, match="Expected bias from each model to have the same .requires_grad"):
            m.stack_module_state([a, b])


def test_unsupported_names_say_so():
    with pytest.raises(AttributeError, match="strided does not support it"):
        SF.functionalize
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        SF.nothing


def test_on_the_simulated_device(sim):
    """On another device (the suite's stand-in GPU) the transforms give the CPU's values, on that device."""
    x0 = RNG.uniform(-1, 1, 3)
    res = {}
    for dev in ("cpu", sim):
        x = st.asarray(x0.copy(), device=dev)
        f = lambda a: (a.sin() * a).sum()  # noqa: E731
        r = (SF.grad(SF.grad(lambda a: f(a * 1.0)))(x[0]), SF.jacrev(lambda a: a.exp() * a)(x), SF.hessian(f)(x),
             SF.jvp(lambda a: a ** 2, (x,), (x,))[1], SF.vjp(lambda a: a.tanh(), x)[1](x)[0])
        assert all(t.device == x.device for t in r)
        res[str(dev)] = [to_numpy(t.cpu()) for t in r]
    for a, b in zip(res["cpu"], res[str(sim)]):
        np.testing.assert_allclose(b, a, rtol=1e-12)
