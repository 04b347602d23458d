"""Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD, Adafactor, LBFGS and SparseAdam of
``strided.torch.optim`` against PyTorch 2.13: trajectories from the same start (several
parameter shapes, both float dtypes, every option), the state (keys, values, the 0-d
scalars' dtypes), state-dict round trips that continue identically, LBFGS's iterates on
Rosenbrock's function with and without the strong-Wolfe line search, the argument
checks' errors, and the options of the older optimizers (``foreach``, ``fused``, ...)."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided
import strided.torch as storch
from _parity import to_numpy

TOL = {"float64": dict(rtol=1e-10, atol=1e-12), "float32": dict(rtol=2e-4, atol=2e-5)}
SHAPES = [(4, 3), (3,), (2, 3, 2), ()]


def _T(lib, a):
    return torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())


def problem(lib, dtype, shapes=SHAPES, seed=0):
    """Parameters of several shapes (a matrix, a vector, a batch of matrices, a scalar) and
    a smooth non-quadratic loss over them."""
    rng = np.random.default_rng(seed)
    ps = [lib.nn.Parameter(_T(lib, rng.standard_normal(s).astype(dtype))) for s in shapes]
    targets = [_T(lib, rng.standard_normal(s).astype(dtype)) for s in shapes]

    def loss():
        total = 0
        for p, t in zip(ps, targets):
            total = total + (((p - t) ** 2) * (p + 2)).sum() + 0.1 * (p ** 4).sum()
        return total
    return ps, loss


def trajectory(lib, name, kw, dtype, steps=15, groups=None):
    ps, loss = problem(lib, dtype)
    params = ps if groups is None else [dict(g, params=[ps[i] for i in g["params"]]) for g in groups]
    opt = getattr(lib.optim, name)(params, **kw)
    for _ in range(steps):
        opt.zero_grad()
        loss().backward()
        opt.step()
    return ps, opt


CONFIGS = [
    ("Adadelta", {}), ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1)),
    ("Adadelta", dict(lr=0.3, maximize=True, foreach=False)),
    ("Adamax", {}), ("Adamax", dict(lr=0.05, betas=(0.8, 0.95), weight_decay=0.1, eps=1e-6)),
    ("Adamax", dict(lr=0.02, maximize=True)),
    ("NAdam", {}), ("NAdam", dict(lr=0.05, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, betas=(0.7, 0.9), maximize=True)),
    ("RAdam", {}), ("RAdam", dict(lr=0.05, weight_decay=0.1)),
    # betas[1] = 0.9: rho_t passes 5 after a few steps, so both branches run
    ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.8, 0.9))),
    ("RAdam", dict(lr=0.02, betas=(0.9, 0.8), maximize=True)),
    ("Rprop", {}), ("Rprop", dict(lr=0.3, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(lr=0.05, maximize=True)),
    ("ASGD", {}), ("ASGD", dict(lr=0.05, t0=3, lambd=0.01, alpha=0.6, weight_decay=0.1)),
    ("ASGD", dict(lr=0.01, t0=0, maximize=True)),
    ("Adafactor", {}),
    ("Adafactor", dict(lr=0.05, weight_decay=0.1, d=1.5, eps=(1e-4, 1e-2), beta2_decay=-0.5)),
    ("Adafactor", dict(lr=0.02, maximize=True, foreach=None)),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_trajectory_and_state_equal_pytorchs(name, kw, dtype):
    ss, so = trajectory(storch, name, kw, dtype)
    ts, to = trajectory(torch, name, kw, dtype)
    for s, t in zip(ss, ts):
        assert s.dtype == getattr(strided, dtype) and s.shape == tuple(t.shape)
        np.testing.assert_allclose(to_numpy(s), to_numpy(t), **TOL[dtype])
    for s, t in zip(ss, ts):
        sst, tst = so.state[s], to.state[t]
        assert list(sst) == list(tst)  # the same keys, in the same order
        for key in tst:
            a, b = sst[key], tst[key]
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], key
            assert tuple(a.shape) == tuple(b.shape), key
            np.testing.assert_allclose(to_numpy(a), to_numpy(b), **TOL[dtype], err_msg=key)


def test_param_groups_with_their_own_options():
    groups = [dict(params=[0, 1], lr=0.05), dict(params=[2], weight_decay=0.2, betas=(0.5, 0.6)),
              dict(params=[3], maximize=True)]
    for name in ["Adamax", "NAdam", "RAdam"]:
        ss, so = trajectory(storch, name, dict(lr=0.01), "float64", groups=groups)
        ts, to = trajectory(torch, name, dict(lr=0.01), "float64", groups=groups)
        for s, t in zip(ss, ts):
            np.testing.assert_allclose(to_numpy(s), to_numpy(t), **TOL["float64"])
        sg = [{k: v for k, v in g.items() if k != "params"} for g in so.param_groups]
        tg = [{k: v for k, v in g.items() if k != "params"} for g in to.param_groups]
        assert sg == tg


def test_parameters_without_gradients_are_left_alone():
    for name, kw in [("Adadelta", {}), ("Rprop", {}), ("ASGD", {}), ("Adafactor", {}), ("NAdam", {})]:
        a = storch.nn.Parameter(storch.ones(3, dtype=storch.float64))
        b = storch.nn.Parameter(storch.ones(2, dtype=storch.float64))
        opt = getattr(storch.optim, name)([a, b], **kw)
        (a * a).sum().backward()
        opt.step()
        assert b not in opt.state and a in opt.state
        np.testing.assert_array_equal(to_numpy(b), np.ones(2))


@pytest.mark.parametrize("name,kw", [c for c in CONFIGS if "maximize" not in c[1]][1::2],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_state_dict_round_trip_continues_identically(name, kw):
    def run(lib, split):
        ps, loss = problem(lib, "float64")
        opt = getattr(lib.optim, name)(ps, **kw)
        for i in range(12):
            if i == split:
                sd = opt.state_dict()
                ps2 = [lib.nn.Parameter(p.detach().clone()) for p in ps]
                opt = getattr(lib.optim, name)(ps2, **kw)
                opt.load_state_dict(sd)
                with (torch.no_grad() if lib is torch else storch.no_grad()):
                    for p, q in zip(ps, ps2):
                        q.copy_(p)
                ps = ps2
                loss = _rebind(loss, ps)
            opt.zero_grad()
            loss().backward()
            opt.step()
        return ps, opt

    straight, so = run(storch, None)
    resumed, ro = run(storch, 5)
    for a, b in zip(straight, resumed):
        if name in ("NAdam", "ASGD"):
            # Note: PyTorch's load_state_dict casts every floating state value but "step" to
            # the parameter's dtype, so NAdam's mu_product and ASGD's eta and mu go from
            # float32 to float64 and the resumed run rounds differently (PyTorch's does too;
            # the resumed runs are compared just below).
            np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=1e-6)
        else:
            np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    torch_resumed, to = run(torch, 5)
    for a, b in zip(resumed, torch_resumed):
        np.testing.assert_allclose(to_numpy(a), to_numpy(b), **TOL["float64"])
    # the layout: the same groups and the same numbered state as PyTorch's
    sd, td = ro.state_dict(), to.state_dict()
    assert sd["param_groups"] == td["param_groups"]
    assert sorted(sd["state"]) == sorted(td["state"])
    for i in td["state"]:
        assert list(sd["state"][i]) == list(td["state"][i])
        for k, v in td["state"][i].items():
            assert str(sd["state"][i][k].dtype).split(".")[-1] == str(v.dtype).split(".")[-1], k


def _rebind(loss, ps):
    """The loss of ``problem`` over new parameter objects (its closure's targets kept)."""
    cells = dict(zip(loss.__code__.co_freevars, (c.cell_contents for c in loss.__closure__)))
    targets = cells["targets"]

    def new_loss():
        total = 0
        for p, t in zip(ps, targets):
            total = total + (((p - t) ** 2) * (p + 2)).sum() + 0.1 * (p ** 4).sum()
        return total
    return new_loss


def test_scalar_state_follows_the_default_dtype():
    """NAdam's mu_product and ASGD's eta and mu are in PyTorch's scalar dtype: float32, or
    float64 when the default dtype is float64 (their rounding shows in the trajectory)."""
    for default in ["float32", "float64"]:
        old_s, old_t = storch.get_default_dtype(), torch.get_default_dtype()
        storch.set_default_dtype(getattr(storch, default))
        torch.set_default_dtype(getattr(torch, default))
        try:
            for name, kw, keys in [("NAdam", dict(lr=0.05), ["step", "mu_product"]),
                                   ("ASGD", dict(lr=0.05, t0=2), ["step", "eta", "mu"])]:
                ss, so = trajectory(storch, name, kw, "float64", steps=8)
                ts, to = trajectory(torch, name, kw, "float64", steps=8)
                for s, t in zip(ss, ts):
                    np.testing.assert_allclose(to_numpy(s), to_numpy(t), **TOL["float64"])
                    for k in keys:
                        assert str(so.state[s][k].dtype).endswith(default)
                        assert str(to.state[t][k].dtype).endswith(default)
                        assert so.state[s][k].item() == to.state[t][k].item()
        finally:
            storch.set_default_dtype(old_s)
            torch.set_default_dtype(old_t)


def test_adafactor_eps1_none_takes_the_first_parameters_dtype():
    """PyTorch reassigns eps1 inside its loop: with eps=(None, ...) the first updated
    parameter's machine epsilon serves the whole group (here float32's for a float64 one)."""
    def run(lib):
        rng = np.random.default_rng(3)
        a = lib.nn.Parameter(_T(lib, rng.standard_normal((3, 2)).astype("float32")))
        b = lib.nn.Parameter(_T(lib, (rng.standard_normal((2, 4)) * 1e-5).astype("float64")))
        opt = lib.optim.Adafactor([a, b], lr=0.05)
        for _ in range(6):
            opt.zero_grad()
            ((a ** 2).sum() + (b ** 2).sum() * 1e-8).backward()
            opt.step()
        return a, b
    (sa, sb), (ta, tb) = run(storch), run(torch)
    np.testing.assert_allclose(to_numpy(sa), to_numpy(ta), **TOL["float32"])
    np.testing.assert_allclose(to_numpy(sb), to_numpy(tb), **TOL["float64"])


def test_rprop_sign_changes_and_step_size_bounds():
    """A large lr makes the gradient flip: the step sizes shrink (and the flipped elements
    skip a step) and grow, clamped to step_sizes, as PyTorch's."""
    kw = dict(lr=1.5, etas=(0.4, 1.3), step_sizes=(0.01, 2.0))
    ss, so = trajectory(storch, "Rprop", kw, "float64", steps=12)
    ts, to = trajectory(torch, "Rprop", kw, "float64", steps=12)
    for s, t in zip(ss, ts):
        np.testing.assert_allclose(to_numpy(so.state[s]["step_size"]), to_numpy(to.state[t]["step_size"]),
                                   **TOL["float64"])
        np.testing.assert_allclose(to_numpy(so.state[s]["prev"]), to_numpy(to.state[t]["prev"]),
                                   **TOL["float64"])
        np.testing.assert_allclose(to_numpy(s), to_numpy(t), **TOL["float64"])
    sizes = np.concatenate([to_numpy(so.state[s]["step_size"]).ravel() for s in ss])
    assert sizes.min() >= 0.01 and sizes.max() <= 2.0 and len(set(sizes.round(12))) > 2


# --- LBFGS --------------------------------------------------------------------------------

def rosenbrock(lib, dtype, x0):
    x = lib.nn.Parameter(_T(lib, np.array(x0, dtype=dtype)))

    def f():
        return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
    return x, f


def lbfgs_run(lib, kw, steps, dtype="float64", x0=(-1.5, 2.0, 0.5)):
    x, f = rosenbrock(lib, dtype, x0)
    opt = lib.optim.LBFGS([x], **kw)

    def closure():
        opt.zero_grad()
        loss = f()
        loss.backward()
        return loss
    out = []
    for _ in range(steps):
        loss = opt.step(closure)
        st = opt.state[x]
        out.append((float(loss.detach()), to_numpy(x).copy(), st["func_evals"], st["n_iter"]))
    return out, opt, x


@pytest.mark.parametrize("kw,steps,tol", [
    (dict(), 2, 1e-8),
    (dict(line_search_fn="strong_wolfe"), 6, 1e-9),
    (dict(history_size=3, max_iter=7, lr=0.5), 6, 1e-9),
    (dict(line_search_fn="strong_wolfe", history_size=2, max_iter=10), 3, 1e-9),
    (dict(max_iter=1, lr=0.2), 25, 1e-9),
    (dict(line_search_fn="strong_wolfe", max_iter=1), 25, 1e-9),
    (dict(line_search_fn="strong_wolfe", max_eval=8, tolerance_change=1e-5), 4, 1e-9),
], ids=["plain", "wolfe", "history3", "wolfe-history2", "one-iter", "wolfe-one-iter", "max-eval"])
def test_lbfgs_rosenbrock_iterates_equal_pytorchs(kw, steps, tol):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s, _, _ = lbfgs_run(storch, kw, steps)
        t, _, _ = lbfgs_run(torch, kw, steps)
    for (sl, sx, se, si), (tl, tx, te, ti) in zip(s, t):
        np.testing.assert_allclose(sx, tx, rtol=tol, atol=tol)
        np.testing.assert_allclose(sl, tl, rtol=tol, atol=tol)
        assert (se, si) == (te, ti)  # the same function evaluations and iterations


def test_lbfgs_float32_convex_problem():
    """In float32 the iterates follow PyTorch's on a well-conditioned quadratic (0-d float32
    scalars in the recursion, as PyTorch's tensors) while the loss still moves by more than
    float32's resolution; at the noise floor both sit at the exact solution."""
    rng = np.random.default_rng(5)
    m = rng.standard_normal((5, 5))
    A64 = m @ m.T / 5 + np.eye(5)
    b64 = rng.standard_normal(5)
    w0 = rng.standard_normal(5)
    solution = np.linalg.solve(A64, b64)

    def run(lib):
        A = _T(lib, A64.astype("float32"))
        b = _T(lib, b64.astype("float32"))
        w = lib.nn.Parameter(_T(lib, w0.astype("float32")))
        opt = lib.optim.LBFGS([w], max_iter=4, history_size=3, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = 0.5 * (w * (A @ w)).sum() - (b * w).sum()
            loss.backward()
            return loss
        xs, losses = [], []
        for _ in range(3):
            losses.append(float(opt.step(closure)))
            xs.append(to_numpy(w).copy())
        assert str(opt.state[w]["d"].dtype).endswith("float32")
        return xs, losses
    # (on a GPU, float32 sums and products round otherwise than PyTorch's CPU kernels, and
    # L-BFGS's recursion amplifies that ~20x an iteration: there the iterates agree to 1e-2)
    tol = 1e-4 if strided.get_default_device().type == "cpu" else 1e-2
    (sx, sl), (tx, tl) = run(storch), run(torch)
    # The first two steps take the loss from 3.07 to within a few ulp of its minimum: there
    # each line-search comparison is decided by more than rounding, and the iterates agree.
    for a, b in zip(sx[:2], tx[:2]):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol / 10)
    # The third step starts at the floor (the losses it compares differ by 1-4 ulp), so
    # which trial point wins depends on the last bit of a 5-term float32 sum, whose order
    # is the kernel's (NumPy's here, PyTorch's own there). Both must still be at the solution
    # to float32's accuracy for this conditioning, and neither worse than the other by more
    # than a few ulp of the loss.
    for x in (sx[2], tx[2]):
        np.testing.assert_allclose(x, solution, atol=2e-3)
    ulp = np.spacing(np.float32(abs(tl[2])))
    assert abs(sl[2] - tl[2]) <= 8 * ulp


def test_lbfgs_several_parameters_and_a_missing_gradient():
    def run(lib):
        rng = np.random.default_rng(2)
        a = lib.nn.Parameter(_T(lib, rng.standard_normal((2, 3))))
        b = lib.nn.Parameter(_T(lib, rng.standard_normal(4)))
        c = lib.nn.Parameter(_T(lib, rng.standard_normal(2)))  # never in the loss: no grad
        opt = lib.optim.LBFGS([a, b, c], max_iter=5, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = ((a.sum(0) - 1) ** 2).sum() + ((b - 0.5) ** 2).sum() + 0.1 * (b ** 4).sum() + (a * a).sum() * 0.1
            loss.backward()
            return loss
        for _ in range(3):
            opt.step(closure)
        return [to_numpy(p).copy() for p in (a, b, c)]
    for x, y in zip(run(storch), run(torch)):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-11)


def test_lbfgs_state_dict_round_trip():
    kw = dict(line_search_fn="strong_wolfe", history_size=4, max_iter=5)
    straight, _, _ = lbfgs_run(storch, kw, 4)

    x, f = rosenbrock(storch, "float64", (-1.5, 2.0, 0.5))
    opt = storch.optim.LBFGS([x], **kw)

    def closure():
        opt.zero_grad()
        loss = f()
        loss.backward()
        return loss
    for _ in range(2):
        opt.step(closure)
    sd = opt.state_dict()
    assert sorted(sd["state"][0]) == sorted(["func_evals", "n_iter", "d", "t", "old_dirs", "old_stps",
                                             "ro", "H_diag", "prev_flat_grad", "prev_loss", "al"])
    tx, tf = rosenbrock(torch, "float64", (-1.5, 2.0, 0.5))
    assert sd["param_groups"] == torch.optim.LBFGS([tx], **kw).state_dict()["param_groups"]
    x2 = storch.nn.Parameter(x.detach().clone())
    opt2 = storch.optim.LBFGS([x2], **kw)
    opt2.load_state_dict(sd)

    def closure2():
        opt2.zero_grad()
        loss = (100 * (x2[1:] - x2[:-1] ** 2) ** 2 + (1 - x2[:-1]) ** 2).sum()
        loss.backward()
        return loss
    for i in range(2):
        opt2.step(closure2)
        np.testing.assert_array_equal(to_numpy(x2), straight[2 + i][1])
        assert opt2.state[x2]["func_evals"] == straight[2 + i][2]


def test_lbfgs_errors_as_pytorchs():
    for lib in (storch, torch):
        a = lib.nn.Parameter(lib.ones(2))
        b = lib.nn.Parameter(lib.ones(2))
        with pytest.raises(ValueError, match="doesn't support per-parameter options"):
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        with pytest.raises(ValueError, match="Invalid learning rate"):
            lib.optim.LBFGS([a], lr=-0.1)
        opt = lib.optim.LBFGS([a], line_search_fn="armijo")

        def closure():
            opt.zero_grad()
            loss = (a * a).sum()
            loss.backward()
            return loss
        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            opt.step(closure)
    assert storch.optim.LBFGS([storch.nn.Parameter(storch.ones(1))]).defaults["max_eval"] == 25


def test_lbfgs_stops_at_once_on_a_stationary_point():
    for lib in (storch, torch):
        w = lib.nn.Parameter(lib.zeros(3))
        opt = lib.optim.LBFGS([w])

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss
        opt.step(closure)
        assert opt.state[w] == {"func_evals": 1, "n_iter": 0}


# --- argument checks and options -----------------------------------------------------------

BAD = [
    ("Adadelta", dict(lr=-1), "Invalid learning rate: -1"), ("Adadelta", dict(rho=1.5), "Invalid rho value: 1.5"),
    ("Adadelta", dict(eps=-1), "Invalid epsilon value"), ("Adadelta", dict(weight_decay=-1), "Invalid weight_decay"),
    ("Adamax", dict(lr=-1), "Invalid learning rate"), ("Adamax", dict(eps=-1), "Invalid epsilon value"),
    ("Adamax", dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    ("Adamax", dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
    ("Adamax", dict(weight_decay=-1), "Invalid weight_decay"),
    ("NAdam", dict(lr=-1), "Invalid learning rate"), ("NAdam", dict(betas=(-0.1, 0.9)), "index 0"),
    ("NAdam", dict(momentum_decay=-1), "Invalid momentum_decay value: -1"),
    ("NAdam", dict(weight_decay=-1), "Invalid weight_decay"), ("NAdam", dict(eps=-1), "Invalid epsilon"),
    ("RAdam", dict(lr=-1), "Invalid learning rate"), ("RAdam", dict(betas=(0.9, 1.5)), "index 1"),
    ("RAdam", dict(eps=-1), "Invalid epsilon"), ("RAdam", dict(weight_decay=-1), "Invalid weight_decay"),
    ("Rprop", dict(lr=-1), "Invalid learning rate"), ("Rprop", dict(etas=(1.0, 1.2)), "Invalid eta values: 1.0, 1.2"),
    ("Rprop", dict(etas=(0.5, 0.9)), "Invalid eta values"),
    ("ASGD", dict(lr=-1), "Invalid learning rate"), ("ASGD", dict(weight_decay=-1), "Invalid weight_decay"),
    ("Adafactor", dict(lr=-1), "Learning rate should be >= 0 but is: -1"),
    ("Adafactor", dict(beta2_decay=0.5), "beta2_decay should be <= 0"),
    ("Adafactor", dict(eps=(-1, 1e-3)), "epsilon1 should be >= 0"),
    ("Adafactor", dict(eps=(None, -1)), "epsilon2 should be >= 0"),
    ("Adafactor", dict(d=0.5), "Clipping threshold d should be >= 1"),
    ("Adafactor", dict(weight_decay=-1), "weight_decay should be >= 0"),
    ("SparseAdam", dict(lr=0.0), "Invalid learning rate: 0.0"), ("SparseAdam", dict(eps=0.0), "Invalid epsilon"),
    ("SparseAdam", dict(betas=(0.9, 1.0)), "index 1"),
]


@pytest.mark.parametrize("name,kw,msg", BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_bad_arguments_raise_as_pytorch(name, kw, msg):
    for lib in (storch, torch):
        with pytest.raises(ValueError, match=msg.replace("(", r"\(")):
            getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))], **kw)


ALL = ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam",
       "Rprop", "ASGD", "Adafactor", "LBFGS", "SparseAdam"]


@pytest.mark.parametrize("name", ALL)
def test_signature_equals_pytorchs(name):
    """The same argument names, order, kinds (keyword-only markers) and defaults."""
    s = inspect.signature(getattr(storch.optim, name).__init__).parameters
    t = inspect.signature(getattr(torch.optim, name).__init__).parameters
    assert list(s) == list(t)
    for k in t:
        assert s[k].kind == t[k].kind, k
        assert s[k].default == t[k].default, k


def _options(name):
    t = inspect.signature(getattr(torch.optim, name).__init__).parameters
    return [k for k in ("foreach", "fused", "capturable", "differentiable") if k in t]


@pytest.mark.parametrize("name", ALL[:-2])
def test_implementation_options_accepted_or_refused(name):
    """``foreach`` and ``fused`` (None, True, False) mean the same update and are accepted
    (and kept in the groups, as PyTorch; ``fused=True``'s numbers: test_programs20);
    ``capturable`` and ``differentiable`` (CUDA graphs, a differentiable step) raise
    NotImplementedError naming the option."""
    opts = _options(name)
    for k in opts:
        for v in ([None, True, False] if k in ("foreach", "fused") else [False]):
            p = storch.nn.Parameter(storch.ones(2))
            opt = getattr(storch.optim, name)([p], **{k: v})
            assert opt.param_groups[0][k] == v
            tp = torch.nn.Parameter(torch.ones(2))
            assert getattr(torch.optim, name)([tp], **{k: v}).param_groups[0][k] == v
            (p * p).sum().backward()
            opt.step()
        if k not in ("foreach", "fused"):
            with pytest.raises(NotImplementedError, match=k):
                getattr(storch.optim, name)([storch.nn.Parameter(storch.ones(2))], **{k: True})


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD", "LBFGS"])
def test_tensor_lr_and_complex_parameters_refused(name):
    p = storch.nn.Parameter(storch.ones(2))
    with pytest.raises(NotImplementedError, match="tensor lr"):
        getattr(storch.optim, name)([p], lr=storch.tensor(0.1))
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        getattr(storch.optim, name)([p], lr=storch.tensor([0.1, 0.2]))
    c = storch.nn.Parameter(storch.ones(2, dtype=storch.complex64))
    with pytest.raises(NotImplementedError, match="complex"):
        opt = getattr(storch.optim, name)([c])
        c.grad = storch.ones(2, dtype=storch.complex64)
        opt.step()


def test_adafactor_refuses_complex_as_pytorch():
    for lib in (storch, torch):
        c = lib.nn.Parameter(lib.ones(2, dtype=lib.complex64))
        opt = lib.optim.Adafactor([c])
        c.grad = lib.ones(2, dtype=lib.complex64)
        with pytest.raises(RuntimeError, match="Adafactor does not support complex parameters"):
            opt.step()


def test_sparse_adam_refuses_dense_gradients_as_pytorch():
    for lib in (storch, torch):
        w = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SparseAdam([w], lr=0.1)
        assert opt.step(lambda: 3.0) == 3.0  # no gradient yet: nothing to refuse
        (w * w).sum().backward()
        with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
            opt.step()
        assert sorted(opt.defaults) == ["betas", "eps", "lr", "maximize"]


def test_step_with_closure_returns_its_loss():
    for name in ["Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD", "Adafactor"]:
        losses = []
        for lib in (storch, torch):
            w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
            opt = getattr(lib.optim, name)([w])

            def closure():
                opt.zero_grad()
                loss = (w * w).sum()
                loss.backward()
                return loss
            losses.append(float(opt.step(closure).detach()))
        assert losses[0] == losses[1]


# --- swa_utils: AveragedModel and update_bn -------------------------------------------------

def _mlp(lib, dtype="float64"):
    rng = np.random.default_rng(7)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    with (torch.no_grad() if lib is torch else storch.no_grad()):
        for p in m.parameters():
            p.copy_(_T(lib, rng.standard_normal(tuple(p.shape)).astype("float32")))
    m = m.to(getattr(lib, dtype))
    x = _T(lib, rng.standard_normal((8, 3)).astype(dtype))
    return m, x


def _train_and_average(lib, make_avg, steps=8, dtype="float64"):
    model, x = _mlp(lib, dtype)
    avg = make_avg(lib, model)
    opt = lib.optim.SGD(model.parameters(), lr=0.02, momentum=0.5)
    for _ in range(steps):
        opt.zero_grad()
        (model(x) ** 2).sum().backward()
        opt.step()
        avg.update_parameters(model)
    return avg, model, x


SWA = lambda lib: lib.optim.swa_utils  # noqa: E731
AVERAGERS = {
    "swa": lambda lib, m: SWA(lib).AveragedModel(m),
    "ema-multi": lambda lib, m: SWA(lib).AveragedModel(m, multi_avg_fn=SWA(lib).get_ema_multi_avg_fn(0.8)),
    "ema-avg": lambda lib, m: SWA(lib).AveragedModel(m, avg_fn=SWA(lib).get_ema_avg_fn(0.7)),
    # the SWA weight 1 / (n + 1) is a float32 tensor in PyTorch: visible in float64
    "swa-multi": lambda lib, m: SWA(lib).AveragedModel(m, multi_avg_fn=SWA(lib).get_swa_multi_avg_fn()),
    "swa-avg": lambda lib, m: SWA(lib).AveragedModel(m, avg_fn=SWA(lib).get_swa_avg_fn()),
    "custom": lambda lib, m: SWA(lib).AveragedModel(m, avg_fn=lambda a, p, n: a * 0.5 + p * 0.5 + n * 1e-3),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kind", list(AVERAGERS))
def test_averaged_model_equals_pytorchs(kind, dtype):
    sa, sm, sx = _train_and_average(storch, AVERAGERS[kind], dtype=dtype)
    ta, tm, tx = _train_and_average(torch, AVERAGERS[kind], dtype=dtype)
    tol = dict(rtol=1e-13, atol=1e-14) if dtype == "float64" else TOL["float32"]
    for s, t in zip(sa.module.parameters(), ta.module.parameters()):
        np.testing.assert_allclose(to_numpy(s), to_numpy(t), **tol)
    assert int(sa.n_averaged) == int(ta.n_averaged) == 8
    assert str(sa.n_averaged.dtype).endswith("int64")
    np.testing.assert_allclose(to_numpy(sa(sx)), to_numpy(ta(tx)), **tol)
    assert list(sa.state_dict()) == list(ta.state_dict())
    # the average is not the model
    assert not np.allclose(to_numpy(sa.module[0].weight), to_numpy(sm[0].weight))


def _with_buffers(lib):
    class WithBuffers(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(2, 2).to(getattr(lib, "float64"))
            self.register_buffer("stat", lib.zeros(2, dtype=lib.float64))
            self.register_buffer("count", lib.zeros((), dtype=lib.int64))

        def forward(self, x):
            with (torch.no_grad() if lib is torch else storch.no_grad()):
                self.stat.add_(x.mean(0))
                self.count.add_(3)
            return self.lin(x) + self.stat

    with (torch.no_grad() if lib is torch else storch.no_grad()):
        m = WithBuffers()
        m.lin.weight.copy_(_T(lib, np.array([[0.5, -1.0], [2.0, 0.25]])))
        m.lin.bias.copy_(_T(lib, np.array([0.1, -0.2])))
    return m


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("ema", [False, True])
def test_averaged_model_buffers_as_pytorch(use_buffers, ema):
    """Without use_buffers the buffers are copied from the model; with it they are averaged
    too (the integer count through the float formula, truncated back, as PyTorch)."""
    out = []
    for lib in (storch, torch):
        m = _with_buffers(lib)
        kw = dict(multi_avg_fn=SWA(lib).get_ema_multi_avg_fn(0.6)) if ema else {}
        avg = SWA(lib).AveragedModel(m, use_buffers=use_buffers, **kw)
        opt = lib.optim.SGD(m.parameters(), lr=0.2)
        x = _T(lib, np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]]))
        for _ in range(5):
            opt.zero_grad()
            (m(x) ** 2).sum().backward()
            opt.step()
            avg.update_parameters(m)
        out.append({k: to_numpy(v).copy() for k, v in avg.state_dict().items()})
    assert list(out[0]) == list(out[1])
    for k in out[1]:
        assert out[0][k].dtype == out[1][k].dtype, k
        np.testing.assert_allclose(out[0][k], out[1][k], rtol=1e-13, atol=1e-14, err_msg=k)


def test_swa_errors_as_pytorchs():
    for lib in (storch, torch):
        m = lib.nn.Linear(2, 2)
        with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
            SWA(lib).AveragedModel(m, avg_fn=SWA(lib).get_swa_avg_fn(),
                                   multi_avg_fn=SWA(lib).get_swa_multi_avg_fn())
        for f in (SWA(lib).get_ema_avg_fn, SWA(lib).get_ema_multi_avg_fn):
            with pytest.raises(ValueError, match="Invalid decay value 1.5 provided"):
                f(1.5)
            with pytest.raises(ValueError, match="Invalid decay value -0.1 provided"):
                f(-0.1)


class _FakeBatchNorm(storch.nn.Module):
    """Batch normalization's running statistics (PyTorch's BatchNorm1d formulas, no affine):
    stands in for strided's BatchNorm where this branch has none."""

    def __init__(self, n):
        super().__init__()
        self.momentum = 0.1
        self.register_buffer("running_mean", storch.zeros(n, dtype=storch.float64))
        self.register_buffer("running_var", storch.ones(n, dtype=storch.float64))
        self.register_buffer("num_batches_tracked", storch.zeros((), dtype=storch.int64))

    def reset_running_stats(self):
        with storch.no_grad():
            self.running_mean.fill_(0)
            self.running_var.fill_(1)
            self.num_batches_tracked.fill_(0)

    def forward(self, x):
        if self.training:
            with storch.no_grad():
                self.num_batches_tracked.add_(1)
                f = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
                n = x.shape[0]
                mean = x.mean(0)
                var = ((x - mean) ** 2).sum(0) / n
                self.running_mean.mul_(1 - f).add_(mean * f)
                self.running_var.mul_(1 - f).add_(var * (n / (n - 1)) * f)
            return (x - mean) / (var + 1e-5).sqrt()
        return (x - self.running_mean) / (self.running_var + 1e-5).sqrt()


def _bn_model(lib, monkeypatch):
    if lib is torch or hasattr(storch.nn, "BatchNorm1d"):
        bn = lib.nn.BatchNorm1d(3, affine=False).to(lib.float64)
    else:
        monkeypatch.setattr(storch.optim.swa_utils, "_batchnorm_class", lambda: _FakeBatchNorm)
        bn = _FakeBatchNorm(3)
    lin = lib.nn.Linear(3, 3).to(lib.float64)
    with (torch.no_grad() if lib is torch else storch.no_grad()):
        lin.weight.copy_(_T(lib, np.array([[1.0, 0.5, 0.0], [0.0, 2.0, -1.0], [0.3, 0.0, 1.0]])))
        lin.bias.copy_(_T(lib, np.array([0.5, -1.0, 2.0])))
    return lib.nn.Sequential(lin, bn), bn


@pytest.mark.parametrize("training", [True, False])
def test_update_bn_recomputes_running_statistics_as_pytorch(training, monkeypatch):
    """One pass with momentum None (the cumulative average of the batches' statistics),
    list batches read by their first element, the momentum and mode restored."""
    rng = np.random.default_rng(11)
    batches = [rng.standard_normal((5, 3)) * (i + 1) for i in range(4)]
    stats = []
    for lib in (storch, torch):
        model, bn = _bn_model(lib, monkeypatch)
        model.train(training)
        bn.momentum = 0.3
        with (torch.no_grad() if lib is torch else storch.no_grad()):
            bn.running_mean.fill_(7.0)  # (reset by update_bn)
        loader = [_T(lib, b) if i % 2 else [_T(lib, b), "label"] for i, b in enumerate(batches)]
        SWA(lib).update_bn(loader, model)
        assert bn.momentum == 0.3 and model.training is training and bn.training is training
        stats.append([to_numpy(bn.running_mean).copy(), to_numpy(bn.running_var).copy(),
                      int(bn.num_batches_tracked)])
    np.testing.assert_allclose(stats[0][0], stats[1][0], rtol=1e-13)
    np.testing.assert_allclose(stats[0][1], stats[1][1], rtol=1e-13)
    assert stats[0][2] == stats[1][2] == 4


def test_update_bn_without_batch_norm_is_a_no_op():
    for lib in (storch, torch):
        model = lib.nn.Linear(2, 2)
        model.eval()
        calls = []

        class Loader:
            def __iter__(self):
                calls.append(1)
                return iter([lib.ones(1, 2)])
        SWA(lib).update_bn(Loader(), model)
        assert calls == [] and model.training is False


def test_lbfgs_refuses_a_non_contiguous_gradient_as_pytorch():
    for lib in (storch, torch):
        w = lib.nn.Parameter(lib.ones(3, 2))
        opt = lib.optim.LBFGS([w])

        def closure():
            w.grad = lib.ones(2, 3).T  # a transposed (non-contiguous) gradient
            return lib.tensor(1.0)
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            opt.step(closure)
