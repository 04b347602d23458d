"""Array's methods for strided.torch's functions (``x.erf()``, ``x.addcmul(a, b)``,
``x.cummax(0)``, ``x.polygamma(n)``, ...) and their in-place forms (``x.lgamma_()``, ...)
against PyTorch 2.13's ``torch.Tensor`` methods: values, dtypes, shapes, views (written
through), float64 gradients, the in-place rules (identity, kept dtype, the cast and shape
refusals, leaf refusal, gradients through a clone) and the top-level ``torch.erf_(x)``."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import strided
import strided.torch as st
from strided import Array

torch = pytest.importorskip("torch")

from _parity import to_numpy  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:torch.qr is deprecated")  # (PyTorch's own warning)

METHODS = """addcdiv addcmul addmv addr aminmax argwhere bincount corrcoef cov cummax cummin deg2rad diag
diag_embed diagflat digamma dist dsplit erf erfc erfinv exp2 fix fliplr flipud float_power fmax
fmin fmod frac gcd get_device heaviside histc histogram hsplit i0 inner is_conj is_neg is_nonzero
is_same_size is_signed isneginf isposinf isreal kron kthvalue lcm ldexp lgamma logaddexp2
logcumsumexp logdet logit matrix_power msort multinomial mv nan_to_num nanmedian nanquantile
pinverse polygamma qr quantile rad2deg resolve_conj resolve_neg rot90 rsqrt select sgn sinc
slogdet svd take_along_dim tensor_split unique_consecutive vdot vsplit xlogy""".split()
INPLACE = """addmm_ addmv_ addr_ baddbmm_ conj_physical_ cumprod_ cumsum_ deg2rad_ digamma_ erf_ erfc_
erfinv_ exp2_ fix_ float_power_ fmod_ frac_ gcd_ heaviside_ i0_ lcm_ ldexp_ lgamma_ logit_ nan_to_num_
polygamma_ rad2deg_ rsqrt_ sgn_ sinc_ tril_ triu_ xlogy_""".split()
TORCH_LEVEL = """addmv_ deg2rad_ erf_ erfc_ exp2_ fix_ frac_ gcd_ i0_ lcm_ ldexp_ logit_ nan_to_num_
rad2deg_ rsqrt_ sinc_ xlogy_ conj_physical_""".split()

R = np.random.default_rng(18)


def u(*shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, shape)


def spd(n, batch=()):
    a = R.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def ints(*shape, lo=-5, hi=6):
    return R.integers(lo, hi, shape).astype(np.int64)


class A:
    """An array argument: made in each library (float ones in the case's dtype)."""

    def __init__(self, a, grad=True):
        self.a, self.grad = np.asarray(a), grad


class Case:
    def __init__(self, x, *args, grad=True, out=0, tol=None, **kwargs):
        self.x, self.args, self.kwargs = np.asarray(x), args, kwargs
        self.grad, self.out, self.tol = grad, out, tol  # out: the output whose gradient is checked


def make(v, lib, dtype, leaves=None, grad=False):
    if isinstance(v, A):
        a = v.a.astype(dtype) if v.a.dtype.kind == "f" else v.a
        t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
        if grad and v.grad and a.dtype.kind == "f":
            t.requires_grad_()
            leaves.append(t)
        return t
    if isinstance(v, (list, tuple)) and any(isinstance(e, A) for e in v):
        return type(v)(make(e, lib, dtype, leaves, grad) for e in v)
    return v


NOGRAD = dict(grad=False)
x34 = u(3, 4)
CASES = {
    "addcdiv": [Case(u(3, 4), A(u(3, 4)), A(u(3, 4, lo=0.5))), Case(u(4), A(u(3, 4)), A(u(1, 4, lo=0.5)), value=-0.5)],
    "addcmul": [Case(u(3, 4), A(u(3, 4)), A(u(3, 4))), Case(u(3, 1), A(u(4)), A(u(3, 4)), value=2)],
    "addmv": [Case(u(3), A(u(3, 4)), A(u(4))), Case(u(1), A(u(3, 4)), A(u(4)), beta=0.5, alpha=2)],
    "addr": [Case(u(3, 4), A(u(3)), A(u(4))), Case(u(4), A(u(3)), A(u(4)), beta=2, alpha=-1)],
    "aminmax": [Case(u(3, 4)), Case(u(3, 4), dim=1), Case(u(3, 4), dim=0, keepdim=True, out=1)],
    "argwhere": [Case(np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]]), **NOGRAD)],
    "bincount": [Case(np.array([0, 3, 1, 3]), **NOGRAD), Case(np.array([0, 3, 1, 3]), A(u(4)), **NOGRAD),
                 Case(np.array([2, 0]), minlength=5, **NOGRAD),
                 Case(np.array([0, 3, 1, 3]), A(np.array([1, 2, 3, 4])), **NOGRAD)],
    "corrcoef": [Case(u(3, 5)), Case(u(5))],
    "cov": [Case(u(3, 5)), Case(u(2, 6), correction=0),
            Case(u(2, 4), fweights=A(np.array([1, 2, 1, 3])), aweights=A(u(4, lo=0.5), grad=False))],
    "cummax": [Case(u(3, 4), 1), Case(u(3, 4), dim=0), Case(u(5), -1)],
    "cummin": [Case(u(3, 4), 1), Case(u(3, 4), dim=0)],
    "logcumsumexp": [Case(u(3, 4), 1), Case(u(3, 4), dim=0)],
    "deg2rad": [Case(u(3, 4, lo=-360, hi=360)), Case(ints(4), **NOGRAD)],
    "diag": [Case(u(4)), Case(u(3, 4)), Case(u(3, 4), 1), Case(u(4), diagonal=-2)],
    "diag_embed": [Case(u(2, 3)), Case(u(2, 3), 1), Case(u(2, 3), offset=-1, dim1=0, dim2=2)],
    "diagflat": [Case(u(3)), Case(u(2, 2), 1), Case(u(3), offset=-1)],
    "digamma": [Case(u(3, 4, lo=0.2, hi=5))],
    "dist": [Case(u(3, 4), A(u(3, 4))), Case(u(3, 4), A(u(4)), 3), Case(u(3, 4), A(u(3, 4)), p=1.5)],
    "dsplit": [Case(u(2, 2, 4), 2), Case(u(2, 2, 4), [1, 3]), Case(u(2, 2, 4), sections=2),
               Case(u(2, 2, 4), indices=[1])],
    "hsplit": [Case(u(2, 4), 2), Case(u(6), [1, 4]), Case(u(2, 4), sections=4)],
    "vsplit": [Case(u(4, 2), 2), Case(u(4, 2), [3]), Case(u(4, 2), indices=[1, 2])],
    "tensor_split": [Case(u(5, 2), 3), Case(u(5, 2), [1, 4]), Case(u(2, 5), 2, 1), Case(u(2, 5), 2, dim=1),
                     Case(u(2, 5), sections=2, dim=1), Case(u(5), indices=[2])],
    "erf": [Case(u(3, 4)), Case(ints(4), **NOGRAD)],
    "erfc": [Case(u(3, 4))],
    "erfinv": [Case(u(3, 4, lo=-0.9, hi=0.9))],
    "exp2": [Case(u(3, 4)), Case(ints(4), **NOGRAD)],
    "fix": [Case(u(3, 4, lo=-5, hi=5)), Case(ints(4), **NOGRAD)],
    "fliplr": [Case(u(3, 4)), Case(u(2, 3, 4))],
    "flipud": [Case(u(3, 4)), Case(u(3))],
    "float_power": [Case(u(3, 4, lo=0.1), 2), Case(u(3, 4, lo=0.1), A(u(4))), Case(ints(4), 2.5, **NOGRAD),
                    Case(u(3, lo=0.1), exponent=-1.5)],
    "fmax": [Case(np.array([1.0, np.nan, 3.0, -1.0]), A(np.array([np.nan, 2.0, 1.0, 0.5])))],
    "fmin": [Case(np.array([1.0, np.nan, 3.0, -1.0]), A(np.array([np.nan, 2.0, 1.0, 0.5])))],
    "fmod": [Case(u(3, 4, lo=-5, hi=5), 1.5), Case(u(3, 4, lo=-5, hi=5), A(u(4, lo=0.5))),
             Case(ints(5), 3, **NOGRAD), Case(u(4, lo=-5, hi=5), other=-2.0)],
    "frac": [Case(u(3, 4, lo=-5, hi=5))],
    "gcd": [Case(ints(6), A(ints(6)), **NOGRAD)],
    "lcm": [Case(ints(6), A(ints(6)), **NOGRAD)],
    "get_device": [Case(u(2), **NOGRAD)],
    "heaviside": [Case(np.array([-1.0, 0.0, 2.0]), A(np.array([0.5])), **NOGRAD),
                  Case(ints(5), A(ints(5)), **NOGRAD)],
    "histc": [Case(u(10), **NOGRAD), Case(u(10), 4, -1, 1, **NOGRAD), Case(u(10), bins=3, min=0, max=2, **NOGRAD)],
    "histogram": [Case(u(10), 4, **NOGRAD), Case(u(2, 5), **NOGRAD),
                  Case(u(10), A(np.array([-1.5, 0.0, 0.5, 2.0])), **NOGRAD),
                  Case(u(10), 3, range=(-1.0, 1.0), weight=A(u(10, lo=0)), density=True, **NOGRAD),
                  Case(np.array([1.0, 1.0]), 2, **NOGRAD), Case(np.zeros(0), 2, **NOGRAD),
                  Case(np.array([0.0, 1.0, 2.0, 3.0, 4.0]), bins=4, **NOGRAD)],
    "i0": [Case(u(3, 4, lo=-3, hi=3))],
    "inner": [Case(u(3, 4), A(u(2, 4))), Case(u(4), A(u(4)))],
    "is_conj": [Case(u(2), **NOGRAD)],
    "is_neg": [Case(u(2), **NOGRAD)],
    "is_nonzero": [Case(np.array([0.5]), **NOGRAD), Case(np.array(0.0), **NOGRAD)],
    "is_same_size": [Case(u(2, 3), A(u(2, 3)), **NOGRAD), Case(u(2, 3), A(u(3, 2)), **NOGRAD)],
    "is_signed": [Case(u(2), **NOGRAD), Case(np.array([1], np.uint8), **NOGRAD)],
    "isneginf": [Case(np.array([1.0, -np.inf, np.inf, np.nan]), **NOGRAD)],
    "isposinf": [Case(np.array([1.0, -np.inf, np.inf, np.nan]), **NOGRAD)],
    "isreal": [Case(u(3), **NOGRAD)],
    "kron": [Case(u(2, 3), A(u(3, 2))), Case(u(2), A(u(3)))],
    "kthvalue": [Case(u(3, 5), 2), Case(u(3, 5), 1, 0, True), Case(u(3, 5), k=3, dim=1, keepdim=False)],
    # (PyTorch's gradient with an integer exponent computes 2**other in integers, 0 for a negative
    # one: its LdexpBackward0; the gradient is checked with a float exponent)
    "ldexp": [Case(u(4), A(ints(4, lo=-3, hi=4)), **NOGRAD),
              Case(u(4), A(np.array([1.0, -2.0, 0.0, 3.0]), grad=False))],
    "lgamma": [Case(u(3, 4, lo=0.2, hi=5))],
    "logaddexp2": [Case(u(3, 4), A(u(4)))],
    "logdet": [Case(spd(3)), Case(spd(2, (2,)))],
    "logit": [Case(u(3, 4, lo=0.05, hi=0.95)), Case(u(3, 4, lo=0.05, hi=0.95), 0.2),
              Case(u(4, lo=0.1, hi=0.9), eps=0.01)],
    "matrix_power": [Case(u(3, 3), 3), Case(u(3, 3), n=0), Case(spd(3), -2)],
    "msort": [Case(u(4, 3))],
    "mv": [Case(u(3, 4), A(u(4)))],
    "nan_to_num": [Case(np.array([1.0, np.nan, np.inf, -np.inf])),
                   Case(np.array([1.0, np.nan, np.inf, -np.inf]), 2.0, 3.0, -3.0),
                   Case(np.array([1.0, np.nan, np.inf]), nan=None, posinf=5.0)],
    "nanmedian": [Case(np.array([[1.0, np.nan, 3.0, 0.5], [np.nan, 2.0, np.nan, np.nan], [2.0, -1.0, 5.0, 4.0]]), 1),
                  Case(np.array([[1.0, np.nan, 3.0, 0.5], [7.0, np.nan, 6.0, -2.0]]), dim=0, keepdim=True),
                  Case(np.array([3.0, np.nan, 1.0, 2.0, 5.0])), Case(np.array([2.0, 1.0, 2.0, np.nan])),
                  Case(np.array([np.nan, np.nan])), Case(u(3, 4))],
    "nanquantile": [Case(np.array([[1.0, np.nan, 3.0, 0.5], [7.0, 2.0, 6.0, -2.0]]), 0.3),
                    Case(np.array([[1.0, np.nan, 3.0, 0.5], [7.0, 2.0, 6.0, -2.0]]), 0.3, 1, True),
                    Case(u(3, 5), A(np.array([0.1, 0.5, 0.9]), grad=False), dim=1),
                    Case(u(3, 5), 0.4, dim=0, interpolation="lower"),
                    Case(u(3, 5), 0.4, dim=0, interpolation="higher"),
                    Case(u(3, 5), 0.4, dim=0, interpolation="midpoint"),
                    Case(u(3, 5), 0.4, dim=0, interpolation="nearest")],
    "quantile": [Case(u(3, 5), 0.3), Case(u(3, 5), 0.3, 1, True),
                 Case(u(3, 5), A(np.array([0.1, 0.9]), grad=False), dim=0, interpolation="midpoint")],
    "pinverse": [Case(u(3, 4)), Case(u(4, 3), rcond=1e-10)],
    "polygamma": [Case(u(3, 4, lo=0.3, hi=4), 1), Case(u(3, 4, lo=0.3, hi=4), n=2), Case(u(4, lo=0.3), 0)],
    "qr": [Case(u(4, 3)), Case(u(3, 4), some=False, out=1), Case(u(4, 3), False, out=1, grad=False)],
    "rad2deg": [Case(u(3, 4)), Case(ints(4), **NOGRAD)],
    "resolve_conj": [Case(u(3))],
    "resolve_neg": [Case(u(3))],
    "rot90": [Case(u(3, 4)), Case(u(3, 4), 2), Case(u(2, 3, 4), -1, [1, 2]), Case(u(2, 3), k=3, dims=(1, 0))],
    "rsqrt": [Case(u(3, 4, lo=0.1))],
    "select": [Case(u(3, 4), 0, 1), Case(u(3, 4), 1, -1), Case(u(2, 3, 4), dim=2, index=0)],
    "sgn": [Case(np.array([-2.0, 0.0, 3.0])), Case(ints(5), **NOGRAD), Case(np.array([3 + 4j, 0j, -2j]), **NOGRAD)],
    "sinc": [Case(u(3, 4)), Case(np.array([0.0, 1.0, -2.0]))],
    "slogdet": [Case(u(3, 3), out=1), Case(spd(3, (2,)), out=1)],
    "svd": [Case(u(4, 3), out=1), Case(u(3, 4), some=False, out=1), Case(u(4, 3), False, out=1)],
    "take_along_dim": [Case(u(3, 4), A(np.array([[0], [3], [1]]))), Case(u(3, 4), A(np.array([5, 0]))),
                       Case(u(3, 4), A(np.array([[2, 0, 1, 1]])), dim=0)],
    "unique_consecutive": [Case(np.array([1.0, 1.0, 2.0, 2.0, 3.0, 1.0]), **NOGRAD),
                           Case(np.array([1, 1, 2, 2, 3, 1]), return_inverse=True, return_counts=True, **NOGRAD),
                           Case(np.array([[1, 1], [1, 1], [2, 0]]), True, True, **NOGRAD)],
    "vdot": [Case(u(4), A(u(4)))],
    "xlogy": [Case(np.array([0.0, 1.5, 2.0, 0.0]), A(np.array([0.0, 2.0, 0.5, np.nan]))),
              Case(u(3, 4, lo=0.1), 3.0), Case(u(3, 4), A(u(4, lo=0.1)))],
}

# In-place forms: (self, args, kwargs) cases (floats in float32 and float64)
INPLACE_CASES = {
    "addmm_": [Case(u(3, 4), A(u(3, 2)), A(u(2, 4))), Case(u(3, 4), A(u(3, 2)), A(u(2, 4)), beta=0.5, alpha=2)],
    "baddbmm_": [Case(u(2, 3, 4), A(u(2, 3, 2)), A(u(2, 2, 4)), beta=2, alpha=0.5)],
    "addmv_": [Case(u(3), A(u(3, 4)), A(u(4)), beta=0.5)],
    "addr_": [Case(u(3, 4), A(u(3)), A(u(4)), alpha=2)],
    "conj_physical_": [Case(u(3)), Case(np.array([1 + 2j, -3j]), **NOGRAD)],
    "cumprod_": [Case(u(3, 4), 1), Case(ints(3, 2), dim=0, **NOGRAD)],
    "cumsum_": [Case(u(3, 4), 0), Case(ints(3, 2), dim=1, **NOGRAD)],
    "deg2rad_": [Case(u(5))], "digamma_": [Case(u(5, lo=0.2, hi=4))], "erf_": [Case(u(5))],
    "erfc_": [Case(u(5))], "erfinv_": [Case(u(5, lo=-0.9, hi=0.9))], "exp2_": [Case(u(5))],
    "fix_": [Case(u(5, lo=-4, hi=4)), Case(ints(4), **NOGRAD)], "frac_": [Case(u(5, lo=-4, hi=4))],
    "i0_": [Case(u(5))], "lgamma_": [Case(u(5, lo=0.2, hi=4))], "rad2deg_": [Case(u(5))],
    "rsqrt_": [Case(u(5, lo=0.2))],
    "sgn_": [Case(u(5)), Case(ints(4), **NOGRAD), Case(np.array([3 + 4j, 0j, -2j]), **NOGRAD)], "sinc_": [Case(u(5))],
    "float_power_": [Case(u(5, lo=0.2), 2.0), Case(u(2, 3, lo=0.2), A(u(3)))],
    "fmod_": [Case(u(5, lo=-4, hi=4), 1.5), Case(ints(5), 3, **NOGRAD), Case(u(2, 3, lo=-4, hi=4), A(u(3, lo=0.5)))],
    "gcd_": [Case(ints(5), A(ints(5)), **NOGRAD)], "lcm_": [Case(ints(5), A(ints(5)), **NOGRAD)],
    "ldexp_": [Case(u(4), A(ints(4, lo=-3, hi=4)), **NOGRAD),
               Case(u(4), A(np.array([1.0, -2.0, 0.0, 3.0]), grad=False))],
    "xlogy_": [Case(u(5, lo=0.1), 3.0), Case(u(2, 3), A(u(3, lo=0.2)))],
    "heaviside_": [Case(np.array([-1.0, 0.0, 2.0]), A(np.array([0.5])), **NOGRAD), Case(ints(4), A(ints(4)), **NOGRAD)],
    "logit_": [Case(u(5, lo=0.1, hi=0.9)), Case(u(5, lo=0.1, hi=0.9), eps=0.2)],
    "nan_to_num_": [Case(np.array([1.0, np.nan, np.inf, -np.inf]), posinf=9.0), Case(ints(3), **NOGRAD)],
    "polygamma_": [Case(u(5, lo=0.3, hi=3), 1), Case(u(5, lo=0.3, hi=3), n=2)],
    "tril_": [Case(u(3, 4)), Case(u(3, 4), 1), Case(ints(3, 3), diagonal=-1, **NOGRAD)],
    "triu_": [Case(u(3, 4)), Case(u(2, 3, 4), -1), Case(ints(3, 3), diagonal=1, **NOGRAD)],
}


def _ids(table):
    return [(n, i) for n in sorted(table) for i in range(len(table[n]))]


def _run(lib, name, case, dtype, grad=False):
    leaves = []
    x = make(A(case.x), lib, dtype, leaves, grad)
    args = [make(a, lib, dtype, leaves, grad) for a in case.args]
    kwargs = {k: make(v, lib, dtype, leaves, grad) for k, v in case.kwargs.items()}
    return getattr(x, name)(*args, **kwargs), x, leaves


def same(got, want, tol, path="result"):
    """``got`` (strided) and ``want`` (PyTorch) agree: types, namedtuple fields, dtypes,
    shapes and values (NaN where NaN)."""
    if isinstance(want, torch.Tensor):
        assert type(got) is Array, f"{path}: {type(got).__name__}, PyTorch gives a tensor"
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (path, got.dtype, want.dtype)
        assert tuple(got.shape) == tuple(want.shape), (path, got.shape, want.shape)
        g, w = to_numpy(got), to_numpy(want)
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, equal_nan=True, err_msg=path, **tol)
        else:
            np.testing.assert_array_equal(g, w, err_msg=path)
    elif isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (path, got, want)
        if hasattr(want, "_fields") or hasattr(want, "n_fields"):
            fields = [f for f in dir(want) if f in getattr(got, "_fields", ())] or []
            assert fields, f"{path}: PyTorch's is a named tuple; got {type(got).__name__}"
            for f in fields:
                same(getattr(got, f), getattr(want, f), tol, f"{path}.{f}")
        for i, (a, b) in enumerate(zip(got, want)):
            same(a, b, tol, f"{path}[{i}]")
    else:
        assert type(got) is type(want) and got == want, (path, got, want)


TOL = {"float32": dict(rtol=3e-5, atol=3e-6), "float64": dict(rtol=1e-9, atol=1e-11)}


# --- every listed name is there ---------------------------------------------------------------------

@pytest.mark.parametrize("name", METHODS + INPLACE)
def test_method_exists_is_documented_and_tested(name):
    m = inspect.getattr_static(Array, name)
    assert m.__doc__ and m.__doc__.strip()
    if name != "multinomial":  # (multinomial: by its properties, below)
        assert (INPLACE_CASES if name.endswith("_") else CASES).get(name), f"no cases for {name}"


@pytest.mark.parametrize("name", TORCH_LEVEL)
def test_torch_level_inplace_function_exists(name):
    assert callable(getattr(st, name)) and name in st.__all__
    assert getattr(st, name).__doc__


def _schema(name):
    packet = getattr(torch.ops.aten, name)
    for o in packet.overloads():
        s = getattr(packet, o)._schema
        args = s.arguments
        if args and args[0].name == "self" and not any(a.name == "out" for a in args) and \
                str(args[0].type) == "Tensor" and not o.startswith("Scalar") and "out" not in o:
            return s
    return None


SIGNATURE_NAMES = [n for n in METHODS + INPLACE
                   if n not in ("dsplit", "hsplit", "vsplit", "tensor_split", "nanmedian", "histogram")]


@pytest.mark.parametrize("name", SIGNATURE_NAMES)
def test_signature_is_pytorchs_schema(name):
    s = _schema(name)
    if name == "polygamma":  # (the function's order is (n, input); the method's: (n))
        want = [("n", False, None)]
    else:
        want = [(a.name, a.kwarg_only, a.default_value if a.has_default_value() else None)
                for a in s.arguments[1:]]
    sig = inspect.signature(getattr(Array, name))
    ps = list(sig.parameters.values())
    assert ps[0].name == "self"
    got = [(p.name, p.kind is p.KEYWORD_ONLY, None if p.default is p.empty else p.default) for p in ps[1:]]
    assert [g[:2] for g in got] == [w[:2] for w in want]
    for (n, _, d), (_, _, wd) in zip(got, want):
        if wd is not None and n not in ("nan",):  # (PyTorch's nan=None is documented as 0.0)
            assert d == (list(wd) if isinstance(wd, (list, tuple)) else wd), (n, d, wd)


def test_signatures_of_the_overloaded_methods():
    assert list(inspect.signature(Array.tensor_split).parameters) == ["self", "indices_or_sections", "dim"]
    assert list(inspect.signature(Array.dsplit).parameters) == ["self", "indices_or_sections"]
    assert str(inspect.signature(Array.nanmedian)) == "(self, /, dim=None, keepdim=False)"
    assert str(inspect.signature(Array.histogram)) == "(self, /, bins=100, *, range=None, weight=None, density=False)"
    assert str(inspect.signature(Array.kthvalue)) == "(self, /, k, dim=-1, keepdim=False)"


# --- values, dtypes, shapes ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,i", _ids(CASES))
def test_method_matches_pytorch(name, i, dtype):
    case = CASES[name][i]
    want, _, _ = _run(torch, name, case, dtype)
    got, _, _ = _run(st, name, case, dtype)
    if name == "get_device":  # (PyTorch's arrays are on the CPU: -1; strided's on the default device)
        want = -1 if strided.get_default_device().type == "cpu" else strided.get_default_device().index
    if name == "svd":
        got = _svd_signs(got, want)
    same(got, want, case.tol or TOL[dtype])


def _svd_signs(got, want):
    """``got``'s singular vectors with the signs of PyTorch's (each is unique up to a sign,
    which LAPACK chooses; the product ``U diag(S) V^T`` is checked apart)."""
    def aligned(g, w):
        sign = np.sign(np.sum(to_numpy(g) * to_numpy(w), axis=-2, keepdims=True))
        return g * st.asarray(sign.astype(to_numpy(g).dtype))
    return type(got)(aligned(got.U, want.U), got.S, aligned(got.V, want.V))


def test_svd_reconstructs_its_input():
    a = u(4, 3)
    U, S, V = st.asarray(a).svd()
    np.testing.assert_allclose(to_numpy(U * S @ V.mT), a, atol=1e-12)


def _grad(t):
    g = t.grad
    if g is None:
        return None
    if isinstance(g, torch.Tensor) and g._is_zerotensor():  # (PyTorch's efficient zeros: sgn's)
        return np.zeros(tuple(g.shape))
    return to_numpy(g)


def _first(out, k):
    return out[k] if isinstance(out, (tuple, list)) else out


@pytest.mark.parametrize("name,i", [(n, i) for n, i in _ids(CASES) if CASES[n][i].grad])
def test_method_gradient_matches_pytorch(name, i):
    case = CASES[name][i]
    grads = []
    for lib in (torch, st):
        out, x, leaves = _run(lib, name, case, "float64", grad=True)
        o = _first(out, case.out)
        w = np.random.default_rng(1).standard_normal(tuple(o.shape))
        (o * make(A(w), lib, "float64")).sum().backward()
        grads.append([_grad(t) for t in leaves])
    want, got = grads
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert (g is None) == (w is None), f"leaf {k}: one gradient is None"
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-10, err_msg=f"grad of leaf {k}")


# --- views --------------------------------------------------------------------------------------------

VIEWS = [("select", (1, 2)), ("select", (0, -1)), ("dsplit", (2,)), ("hsplit", ([1],)), ("vsplit", (2,)),
         ("tensor_split", (2, 1)), ("tensor_split", ([1], 2)), ("resolve_conj", ()), ("resolve_neg", ())]


@pytest.mark.parametrize("name,args", VIEWS)
def test_views_write_through_as_pytorchs(name, args):
    base = np.arange(2 * 4 * 4, dtype=np.float64).reshape(2, 4, 4)
    results = []
    for lib in (torch, st):
        x = torch.from_numpy(base.copy()) if lib is torch else strided.asarray(base.copy())
        out = getattr(x, name)(*args)
        v = out[0] if isinstance(out, (tuple, list)) else out
        v.fill_(-7.0)
        results.append(to_numpy(x))
    np.testing.assert_array_equal(results[1], results[0])


NONCONTIGUOUS = [("erf", ()), ("lgamma", ()), ("cummax", (0,)), ("logcumsumexp", (1,)), ("nanmedian", (0,)),
                 ("xlogy", (2.0,)), ("kthvalue", (2, 0)), ("diag", (1,)), ("select", (1, 2)), ("rot90", ()),
                 ("quantile", (0.25, 1)), ("sinc", ())]


@pytest.mark.parametrize("name,args", NONCONTIGUOUS)
def test_methods_of_a_transposed_strided_array(name, args):
    base = u(6, 5) + 3.0  # (positive: lgamma and xlogy's domain)
    outs = []
    for lib in (torch, st):
        x = (torch.from_numpy(base.copy()) if lib is torch else strided.asarray(base.copy()))[::2].t()
        outs.append(getattr(x, name)(*args))
    same(outs[1], outs[0], TOL["float64"])


@pytest.mark.parametrize("name", ["fliplr", "flipud", "rot90", "diag", "msort", "diagflat"])
def test_copies_are_copies_as_pytorchs(name):
    base = np.arange(16.0).reshape(4, 4)
    x = strided.asarray(base.copy())
    getattr(x, name)().fill_(-1.0)
    np.testing.assert_array_equal(to_numpy(x), base)


# --- in-place forms -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,i,dtype", [(n, i, d) for n, i in _ids(INPLACE_CASES) for d in ("float32", "float64")
                                          if d == "float64" or n != "float_power_"])  # (float32: refused)
def test_inplace_matches_pytorch_and_returns_self(name, i, dtype):
    case = INPLACE_CASES[name][i]
    want, tx, _ = _run(torch, name, case, dtype)
    got, sx, _ = _run(st, name, case, dtype)
    assert want is tx and got is sx
    assert str(sx.dtype).split(".")[-1] == str(tx.dtype).split(".")[-1]
    same(sx, tx, TOL[dtype])


@pytest.mark.parametrize("name,i", [(n, i) for n, i in _ids(INPLACE_CASES) if INPLACE_CASES[n][i].grad])
def test_inplace_gradient_through_a_clone(name, i):
    case = INPLACE_CASES[name][i]
    grads = []
    for lib in (torch, st):
        leaves = []
        x0 = make(A(case.x), lib, "float64", leaves, True)
        args = [make(a, lib, "float64", leaves, True) for a in case.args]
        kwargs = {k: make(v, lib, "float64", leaves, True) for k, v in case.kwargs.items()}
        y = x0.clone()
        r = getattr(y, name)(*args, **kwargs)
        assert r is y
        w = np.random.default_rng(2).standard_normal(tuple(y.shape))
        (y * make(A(w), lib, "float64")).sum().backward()
        grads.append([_grad(t) for t in leaves])
    for k, (g, w) in enumerate(zip(*reversed(grads))):
        np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-10, err_msg=f"grad of leaf {k}")


FLOAT_RESULT = ["deg2rad_", "digamma_", "erf_", "erfc_", "erfinv_", "exp2_", "i0_", "lgamma_", "rad2deg_",
                "rsqrt_", "sinc_", "logit_"]


@pytest.mark.parametrize("name", FLOAT_RESULT + ["polygamma_", "xlogy_", "ldexp_", "fmod_"])
def test_inplace_refuses_a_float_result_in_an_integer_array(name):
    args = {"polygamma_": (1,), "xlogy_": (2,), "ldexp_": (st.tensor([1, 2]),), "fmod_": (2.5,)}.get(name, ())
    targs = tuple(torch.tensor([1, 2]) if type(a) is Array else a for a in args)
    with pytest.raises(RuntimeError, match="can't be cast"):
        getattr(torch.tensor([1, 2]), name)(*targs)
    x = st.tensor([1, 2])
    with pytest.raises(TypeError, match="can't be cast to the desired output type int64"):
        getattr(x, name)(*args)
    np.testing.assert_array_equal(to_numpy(x), [1, 2])  # (untouched)


@pytest.mark.parametrize("name", ["erf_", "lgamma_", "sinc_", "fmod_", "tril_", "addmm_"])
def test_inplace_refuses_a_leaf_that_requires_grad(name):
    args = {"fmod_": (2.0,), "addmm_": (st.ones(2, 2), st.ones(2, 2))}.get(name, ())
    x = st.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        getattr(x, name)(*args)
    with strided.no_grad():
        getattr(x, name)(*args)  # (outside recording: allowed, as PyTorch's)


def test_inplace_refuses_a_result_of_another_shape():
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        torch.ones(2, 2).fmod_(torch.ones(3, 2, 2))
    with pytest.raises(RuntimeError, match=r"output with shape \[2, 2\] doesn't match the broadcast shape \[3, 2, 2\]"):
        st.ones(2, 2).fmod_(st.ones(3, 2, 2))
    with pytest.raises(RuntimeError):
        st.ones(2).addmm_(st.ones(2, 2), st.ones(2, 2))


def test_float_power_inplace_needs_float64_as_pytorchs():
    for lib in (torch, st):
        with pytest.raises(RuntimeError, match="requires dtype"):
            lib.ones(2).float_power_(2)
        with pytest.raises(RuntimeError, match="requires dtype"):
            lib.tensor([1, 2]).float_power_(2)
    np.testing.assert_allclose(to_numpy(st.ones(2, dtype=st.float64).float_power_(2)), [1.0, 1.0])


def test_cumulative_inplace_dtype_must_match():
    for lib in (torch, st):
        with pytest.raises(RuntimeError, match="should match"):
            lib.ones(2).cumsum_(0, dtype=lib.float64)
        with pytest.raises(RuntimeError, match="should match"):
            lib.ones(2, dtype=lib.float64).cumprod_(0, dtype=lib.float32)
    x = st.tensor([1, 2, 3])
    assert x.cumsum_(0, dtype=st.int64) is x and to_numpy(x).tolist() == [1, 3, 6]


def test_inplace_into_a_view_writes_the_base():
    b = st.arange(6.0).reshape(2, 3)
    t = torch.arange(6.0).reshape(2, 3)
    b[1].lgamma_()
    t[1].lgamma_()
    np.testing.assert_allclose(to_numpy(b), t.numpy(), rtol=1e-6)
    c, tc = st.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    c.t().triu_()
    tc.t().triu_()
    np.testing.assert_array_equal(to_numpy(c), tc.numpy())


TORCH_LEVEL_ARGS = {"addmv_": (A(np.ones((3, 2)) * 0.5), A(np.array([1.0, 2.0]))), "gcd_": (A(np.array([4, 6, 9])),),
                    "lcm_": (A(np.array([4, 6, 9])),), "ldexp_": (A(np.array([1, 2, -1])),),
                    "xlogy_": (A(np.array([0.5, 2.0, 3.0])),), "logit_": (0.1,), "nan_to_num_": (1.0,)}


@pytest.mark.parametrize("name", TORCH_LEVEL)
def test_torch_level_inplace_is_the_method(name):
    x = np.array([6, 4, 3]) if name in ("gcd_", "lcm_") else np.array([0.25, 0.5, 0.75])
    outs = []
    for lib in (torch, st):
        t = make(A(x), lib, "float64")
        r = getattr(lib, name)(t, *(make(a, lib, "float64") for a in TORCH_LEVEL_ARGS.get(name, ())))
        assert r is t
        outs.append(to_numpy(t))
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-12)


# --- what the rows compute themselves -------------------------------------------------------------------

def test_multinomial_by_properties():
    p = st.tensor([0.0, 1.0, 3.0, 0.0, 2.0])
    r = p.multinomial(3)
    assert r.dtype == st.int64 and tuple(r.shape) == (3,)
    got = sorted(to_numpy(r).tolist())
    assert len(set(got)) == 3 and set(got) <= {1, 2, 4}  # (no replacement, never a zero weight)
    r = p.multinomial(4000, replacement=True)
    freq = np.bincount(to_numpy(r), minlength=5) / 4000
    np.testing.assert_allclose(freq, [0, 1 / 6, 1 / 2, 0, 1 / 3], atol=0.04)
    r = st.ones(2, 4).multinomial(num_samples=2)
    assert tuple(r.shape) == (2, 2)


def test_nanmedian_of_all_gradient_is_shared_like_pytorchs():
    for values in ([2.0, 1.0, 2.0, np.nan, 3.0, 2.0], [np.nan, np.nan, np.nan], [5.0]):
        grads = []
        for lib in (torch, st):
            x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
            m = x.nanmedian()
            (m * 3.0).backward()
            grads.append(to_numpy(x.grad))
        np.testing.assert_allclose(grads[1], grads[0])


def test_nanmedian_of_an_all_nan_slice_is_nan():
    # (the index PyTorch gives there is its sort's, unspecified: only the value is compared)
    x = np.array([[np.nan, np.nan, np.nan, np.nan], [1.0, np.nan, 2.0, 0.0]])
    v, i = st.tensor(x).nanmedian(1)
    np.testing.assert_array_equal(to_numpy(v), torch.tensor(x).nanmedian(1).values.numpy())
    assert i.dtype == st.int64 and to_numpy(i)[1] == 0


def test_what_strided_does_not_support_says_so():
    with pytest.raises(NotImplementedError, match="compute_uv=False"):
        st.ones(3, 3).svd(compute_uv=False)


def test_histogram_type_and_fields():
    h = st.tensor([1.0, 2.0, 2.5]).histogram(2)
    assert type(h).__name__ == "histogram" and h._fields == ("hist", "bin_edges")
    hist, edges = h
    assert hist.dtype == st.float32 and edges.dtype == st.float32


ERRORS = [
    ("bincount", lambda lib: lib.tensor([-1, 2]).bincount(), RuntimeError, "non-negative"),
    ("bincount", lambda lib: lib.tensor([[1, 2]]).bincount(), RuntimeError, "1-d non-negative"),
    ("bincount", lambda lib: lib.tensor([1.0, 2.0]).bincount(), NotImplementedError, ""),
    ("bincount", lambda lib: lib.tensor([1, 2]).bincount(lib.ones(3)), RuntimeError, "same length"),
    ("bincount", lambda lib: lib.tensor([1, 2]).bincount(minlength=-1), RuntimeError, "minlength should be >= 0"),
    ("histogram", lambda lib: lib.tensor([1.0, 2.0]).histogram(0), RuntimeError, "bins must be > 0"),
    ("histogram", lambda lib: lib.tensor([1, 2]).histogram(2), NotImplementedError, ""),
    ("histogram", lambda lib: lib.tensor([1.0, 2.0]).histogram(2, range=(3.0, 1.0)), RuntimeError,
     "min should not exceed max"),
    ("histogram", lambda lib: lib.tensor([1.0, np.inf]).histogram(2), RuntimeError, "not finite"),
    ("nanquantile", lambda lib: lib.tensor([1.0, 2.0]).nanquantile(1.5), RuntimeError, "q must be in the range"),
    ("nanquantile", lambda lib: lib.tensor([1, 2]).nanquantile(0.5), RuntimeError, "float or double"),
    ("nanquantile", lambda lib: lib.tensor([1.0, 2.0]).nanquantile(0.5, interpolation="cubic"), RuntimeError,
     "interpolation must be one of"),
    ("nanmedian", lambda lib: lib.ones(2, 3).nanmedian(2), IndexError, ""),
    ("nanmedian", lambda lib: lib.ones(2, 3).nanmedian((0, 1)), TypeError, "dim must be an int"),
    ("nanmedian", lambda lib: lib.ones(3).nanmedian(keepdim=True), TypeError, "needs a dim"),
    ("nanquantile", lambda lib: lib.tensor([1.0, 2.0]).nanquantile(lib.tensor([0.5, 1.5])), RuntimeError,
     "q values must be in the range"),
    ("histogram", lambda lib: lib.tensor([1.0, 2.0]).histogram(lib.tensor([0.0, 1.0]), range=(0.0, 1.0)),
     TypeError, "range="),
    ("kthvalue", lambda lib: lib.ones(2, 3).kthvalue(4), (IndexError, RuntimeError), ""),
    ("erf", lambda lib: lib.ones(2).erf(1), TypeError, ""),
    ("addcmul", lambda lib: lib.ones(2).addcmul(lib.ones(2), lib.ones(2), 3), TypeError, ""),
    ("fmod", lambda lib: lib.ones(2).fmod(divisor=2), TypeError, ""),
    ("dsplit", lambda lib: lib.ones(2, 2, 2).dsplit(indices_or_sections=2), TypeError, ""),
    ("polygamma", lambda lib: lib.ones(2).polygamma(), TypeError, ""),
]


@pytest.mark.parametrize("name,call,exc,match", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_bad_input_raises_as_pytorch(name, call, exc, match):
    with pytest.raises(exc):
        call(torch)
    with pytest.raises(exc, match=match or None):
        call(st)
