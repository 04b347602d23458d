"""PyTorch's parameter names (``torch.matmul(input=a, other=b)``, ``x.view(size=...)``) against
PyTorch 2.13: the calls are generated from the table of PyTorch's names
(``strided.torch._torch_parameters``), filtered to the names both namespaces have; each is
made with its first arguments spelled by keyword, in PyTorch and in strided.torch, and must
give PyTorch's values and strided's own positional result. Unknown keywords raise TypeError
in both. Every operand is made on the suite's default device (``S.tensor`` without
``device=``) and read back through ``.cpu()``."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as S  # noqa: E402
import strided.torch.nn.functional as SF  # noqa: E402
from strided.torch._torch_parameters import FFT, FUNCTIONAL, FUNCTIONS, LINALG, METHODS, SPECIAL  # noqa: E402

TF = torch.nn.functional

# (random, uninitialised or file results: no two calls agree; in-place forms: another test's)
_NOT_VALUES = ("rand", "normal", "bernoulli", "poisson", "multinomial", "dropout", "empty", "seed",
               "save", "load", "set_", "from_file", "rng_state")


def _valued(name: str) -> bool:
    return not name.endswith("_") and not any(w in name for w in _NOT_VALUES)


_RNG = np.random.default_rng(27)
_M = (_RNG.random((3, 3)) * 0.8 + 0.1 + 2 * np.eye(3)).astype(np.float32)  # (invertible, positive)
_N = (_RNG.random((3, 3)) * 0.8 + 0.1).astype(np.float32)
_V = (_RNG.random(3) * 0.8 + 0.1).astype(np.float32)
_W = (_RNG.random(3) * 0.8 + 0.1).astype(np.float32)


def pair(a: np.ndarray):
    """The same data as a PyTorch tensor and as a strided array (default device)."""
    return torch.from_numpy(np.array(a)), S.tensor(np.array(a))


def H(x):
    """Host values of a result: arrays as NumPy, tuples item by item, dtypes by name."""
    if isinstance(x, torch.Tensor):
        return x.detach().resolve_conj().numpy()
    if isinstance(x, S.Tensor):
        return np.asarray(x.detach().cpu())
    if isinstance(x, (tuple, list)):
        return [H(v) for v in x]
    if isinstance(x, (torch.dtype, S.dtype)):
        return str(x).split(".")[-1]
    return x


def close(a, b) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(
            close(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            return np.allclose(a.astype(np.complex128), b.astype(np.complex128), rtol=1e-5, atol=1e-5,
                               equal_nan=True)
        return bool(np.array_equal(a, b))
    return a == b


def _call(f, args, kwargs):
    try:
        return True, f(*args, **kwargs)
    except Exception as e:  # noqa: BLE001  (whatever PyTorch or strided refuses for the sample)
        return False, e


def check(name: str, tf, sf, targs: tuple, sargs: tuple, names: tuple, nkw: int):
    """``tf``/``sf`` called with ``targs``/``sargs``, the last ``nkw`` of them spelled by
    PyTorch's ``names``: PyTorch's values, and strided's positional result."""
    ok, want_pos = _call(tf, targs, {})
    if not ok:
        pytest.skip(f"torch.{name} takes no such sample ({type(want_pos).__name__})")
    k = len(targs) - nkw
    ok, want_kw = _call(tf, targs[:k], dict(zip(names[k:], targs[k:])))
    if not ok:
        pytest.skip(f"torch.{name} takes no {names[k:]} by keyword for this sample")
    ok, got_pos = _call(sf, sargs, {})
    if not ok:
        pytest.skip(f"strided.torch.{name} refuses the positional sample too: {got_pos}")
    got_kw = sf(*sargs[:k], **dict(zip(names[k:], sargs[k:])))  # (must not raise)
    assert close(H(got_kw), H(got_pos)), f"{name}: the keyword call differs from the positional one"
    assert close(H(got_pos), H(want_pos)), f"{name}: strided.torch's positional values differ from PyTorch's"
    assert close(H(got_kw), H(want_kw)), name


# --- the namespace's functions of one tensor: every name whose first parameter is ``input`` ---

def _torch_takes(f, *args) -> bool:
    """Whether PyTorch takes the sample (the names generated are filtered to PyTorch's calls)."""
    return _call(f, tuple(torch.from_numpy(np.array(a)) for a in args), {})[0]


UNARY = sorted(n for n, ovs in FUNCTIONS.items()
               if _valued(n) and any(pos[:1] == ("input",) for pos, _ in ovs)
               and hasattr(torch, n) and hasattr(S, n) and _torch_takes(getattr(torch, n), _M))


@pytest.mark.parametrize("name", UNARY)
def test_one_tensor_by_keyword(name):
    t, s = pair(_M)
    check(name, getattr(torch, name), getattr(S, name), (t,), (s,), ("input",), 1)


# --- functions of two tensors: every (input, <second>) overload; PyTorch says which applies ---

_SECOND = {"mm": (_M, _N), "bmm": (_M[None], _N[None]), "dot": (_V, _W), "vdot": (_V, _W), "inner": (_V, _W),
           "outer": (_V, _W), "ger": (_V, _W), "mv": (_M, _V), "cross": (_M, _N)}
BINARY = sorted({(n, pos[1]) for n, ovs in FUNCTIONS.items() for pos, _ in ovs
                 if _valued(n) and len(pos) >= 2 and pos[0] == "input" and hasattr(torch, n) and hasattr(S, n)
                 and _torch_takes(getattr(torch, n), *_SECOND.get(n, (_M, _N)))})


@pytest.mark.parametrize("name,second", BINARY, ids=[f"{n}-{p}" for n, p in BINARY])
def test_two_tensors_by_keyword(name, second):
    a, b = _SECOND.get(name, (_M, _N))
    (ta, sa), (tb, sb) = pair(a), pair(b)
    check(name, getattr(torch, name), getattr(S, name), (ta, tb), (sa, sb), ("input", second), 2)


# --- torch.linalg, torch.special, torch.fft: each function's first tensor by its name ---------

_SYM = (_M + _M.T) / 2 + 3 * np.eye(3, dtype=np.float32)  # (symmetric positive definite)


def _first_by_name():
    out = []
    for mod, table in (("linalg", LINALG), ("special", SPECIAL), ("fft", FFT)):
        for n, ovs in sorted(table.items()):
            pos = ovs[0][0]
            if not pos or not _valued(n) or not hasattr(getattr(S, mod), n):
                continue
            for sample in ((_SYM, _V) if mod == "linalg" else (_V, _M)):
                if _torch_takes(getattr(getattr(torch, mod), n), sample):
                    out.append((mod, n, pos[0], "matrix" if sample.ndim == 2 else "vector"))
                    break
    return out


FIRST = _first_by_name()


@pytest.mark.parametrize("mod,name,first,sample", FIRST, ids=[f"{m}.{n}" for m, n, _, _ in FIRST])
def test_submodule_functions_by_keyword(mod, name, first, sample):
    t, s = pair({"matrix": _SYM if mod == "linalg" else _M, "vector": _V}[sample])
    check(f"{mod}.{name}", getattr(getattr(torch, mod), name), getattr(getattr(S, mod), name), (t,), (s,),
          (first,), 1)


def test_submodule_tables_cover_the_functions():
    """Every public function of the three submodules has its names (the table is PyTorch's)."""
    assert len(FIRST) >= 80  # (81 of PyTorch 2.13: a filter that drops names shows here)
    for mod, table in (("linalg", LINALG), ("special", SPECIAL), ("fft", FFT)):
        missing = [n for n in dir(getattr(torch, mod)) if not n.startswith("_") and callable(
            getattr(getattr(torch, mod), n)) and not isinstance(getattr(getattr(torch, mod), n), type)
            and hasattr(getattr(S, mod), n) and n not in table]
        assert not missing, (mod, missing)


# --- the calls PyTorch programs spell this way (the tutorials' and the scan's) ---------------

def _cases():
    m, n, v = _M, _N, _V
    idx = np.array([[0, 1, 2], [2, 1, 0]])
    mask = _N > 0.5
    return {
        "matmul": ("matmul", (m, n), ("input", "other")),
        "where": ("where", (mask, m, n), ("condition", "input", "other")),
        "reshape": ("reshape", (m, (9,)), ("input", "shape")),
        "transpose": ("transpose", (m, 0, 1), ("input", "dim0", "dim1")),
        "unsqueeze": ("unsqueeze", (v, 0), ("input", "dim")),
        "gather": ("gather", (m, 0, idx), ("input", "dim", "index")),
        "chunk": ("chunk", (m, 2, 1), ("input", "chunks", "dim")),
        "split": ("split", (m, 2, 0), ("tensor", "split_size_or_sections", "dim")),
        "narrow": ("narrow", (m, 1, 0, 2), ("input", "dim", "start", "length")),
        "masked_fill": ("masked_fill", (m, mask, 0.5), ("input", "mask", "value")),
        "flatten": ("flatten", (m[None], 1), ("input", "start_dim")),
        "pow": ("pow", (m, 2.0), ("input", "exponent")),
        "add_alpha": ("add", (m, n), ("input", "other")),
        "max_dim": ("max", (m, 1), ("input", "dim")),
        "max_other": ("max", (m, n), ("input", "other")),
        "min_dim_keepdim": ("min", (m, 0, True), ("input", "dim", "keepdim")),
        "mm": ("mm", (m, n), ("input", "mat2")),
        "dot": ("dot", (v, _W), ("input", "tensor")),
        "outer": ("outer", (v, _W), ("input", "vec2")),
        "t": ("t", (m,), ("input",)),
        "numel": ("numel", (m,), ("input",)),
        "unique": ("unique", (np.round(m),), ("input",)),
        "det": ("det", (m,), ("input",)),
        "inverse": ("inverse", (m,), ("input",)),
    }


def _operands(args):
    ta, sa = [], []
    for a in args:
        if isinstance(a, np.ndarray):
            t, s = pair(a)
        else:
            t = s = a
        ta.append(t)
        sa.append(s)
    return tuple(ta), tuple(sa)


CASES = _cases()


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("nkw", ["all", "last"])
def test_spelled_calls(case, nkw):
    name, args, names = CASES[case]
    targs, sargs = _operands(args)
    check(name, getattr(torch, name), getattr(S, name), targs, sargs, names,
          len(args) if nkw == "all" else 1)


def test_one_hot_by_keyword():
    t = torch.tensor([0, 2, 1])
    s = S.tensor([0, 2, 1])
    check("one_hot", TF.one_hot, SF.one_hot, (t, 3), (s, 3), ("input", "num_classes"), 2)


# --- methods: x.view(size=), x.expand(size=), x.repeat(repeats=), and every (other,) method -----

METHOD_CASES = {
    "view": ((_M, (9,)), ("size",)),
    "view_dtype": ((_M, S.int32), ("dtype",)),
    "expand": ((_V, (2, 3)), ("size",)),
    "repeat": ((_V, (2, 2)), ("repeats",)),
    "reshape": ((_M, (9,)), ("shape",)),
    "transpose": ((_M, 0, 1), ("dim0", "dim1")),
    "permute": ((_M, (1, 0)), ("dims",)),
    "mm": ((_M, _N), ("mat2",)),
    "matmul": ((_M, _N), ("other",)),
    "pow": ((_M, 2.0), ("exponent",)),
    "masked_fill": ((_M, _N > 0.5, 0.0), ("mask", "value")),
    "split": ((_M, 2, 1), ("split_size", "dim")),
}


@pytest.mark.parametrize("case", sorted(METHOD_CASES))
def test_methods_by_keyword(case):
    args, names = METHOD_CASES[case]
    name = case.split("_")[0] if case == "view_dtype" else case
    if case == "view_dtype":
        targs, sargs = (torch.from_numpy(_M.copy()), torch.int32), (S.tensor(_M.copy()), S.int32)
    else:
        targs, sargs = _operands(args)
    check(name, getattr(torch.Tensor, name), getattr(S.Tensor, name), targs, sargs, ("self",) + names,
          len(names))


METHOD_BINARY = sorted(n for n, ovs in METHODS.items()
                       if _valued(n) and any(pos[:1] == ("other",) for pos, _ in ovs)
                       and hasattr(torch.Tensor, n) and hasattr(S.Tensor, n)
                       and _torch_takes(getattr(torch.Tensor, n), _M, _N))


@pytest.mark.parametrize("name", METHOD_BINARY)
def test_other_methods_by_keyword(name):
    (ta, sa), (tb, sb) = pair(_M), pair(_N)
    check(name, getattr(torch.Tensor, name), getattr(S.Tensor, name), (ta, tb), (sa, sb), ("self", "other"), 1)


# --- unknown keywords: TypeError in both, naming the keyword -------------------------------

UNKNOWN = [("sin", (_M,)), ("abs", (_M,)), ("add", (_M, _N)), ("mm", (_M, _N)), ("matmul", (_M, _N)),
           ("reshape", (_M, (9,))), ("transpose", (_M, 0, 1)), ("where", (_N > 0.5, _M, _N)),
           ("max", (_M,)), ("flatten", (_M,)), ("numel", (_M,))]


@pytest.mark.parametrize("name,args", UNKNOWN, ids=[n for n, _ in UNKNOWN])
def test_unknown_keyword_raises(name, args):
    targs, sargs = _operands(args)
    with pytest.raises(TypeError, match="bogus"):
        getattr(torch, name)(*targs, bogus=1)
    with pytest.raises(TypeError, match=r"'bogus'"):  # (the function's own error, or the binder's)
        getattr(S, name)(*sargs, bogus=1)
    if len(sargs) == 1:
        with pytest.raises(TypeError, match="bogus"):
            getattr(S, name)(input=sargs[0], bogus=1)


@pytest.mark.parametrize("name,args", [("view", (_M, (9,))), ("expand", (_V, (2, 3))), ("repeat", (_V, (2,)))])
def test_unknown_method_keyword_raises(name, args):
    targs, sargs = _operands(args)
    with pytest.raises(TypeError, match="bogus"):
        getattr(targs[0], name)(*targs[1:], bogus=1)
    with pytest.raises(TypeError, match=r"\(\).*'bogus'"):  # (the method's own error)
        getattr(sargs[0], name)(*sargs[1:], bogus=1)


def test_twice_by_position_and_keyword_raises():
    t, s = pair(_M)
    with pytest.raises(TypeError):
        torch.mm(t, t, input=t)
    with pytest.raises(TypeError, match="multiple values"):
        S.mm(s, s, input=s)


def test_table_covers_the_scan():
    """The names the scan found refusing PyTorch's keywords are in the table, with PyTorch's names."""
    for name, first in (("sin", ("input",)), ("mm", ("input", "mat2")), ("pow", ("input", "exponent")),
                        ("where", ("condition", "input", "other")), ("split", ("tensor", "split_size_or_sections")),
                        ("dot", ("input", "tensor")), ("outer", ("input", "vec2"))):
        assert any(pos[:len(first)] == first for pos, _ in FUNCTIONS[name]), name
    assert any(pos[:1] == ("size",) for pos, _ in METHODS["view"])
    assert any(pos[:1] == ("input",) for pos, _ in FUNCTIONAL["one_hot"])


def test_names_from_submodules_take_pytorchs_names():
    """The top-level names defined in strided.torch's submodules (``torch.embedding``,
    ``torch.orgqr``, ...: ``_FROM_SUBMODULE``) take PyTorch's names too, as the same object on
    every access."""
    w = np.arange(12.0).reshape(4, 3)
    got = S.embedding(weight=S.tensor(w), indices=S.tensor([1, 2]))
    want = torch.embedding(weight=torch.tensor(w), indices=torch.tensor([1, 2]))
    np.testing.assert_array_equal(H(got), H(want))
    assert S.embedding is S.embedding
    a = _M.astype(np.float64)
    (tq, tt), (sq, st) = torch.geqrf(torch.from_numpy(a)), S.geqrf(S.tensor(a))
    np.testing.assert_allclose(H(S.orgqr(input=sq, input2=st)), H(torch.orgqr(input=tq, input2=tt)), atol=1e-12)
    from strided.torch._keyword_names import _takes
    for name in S._FROM_SUBMODULE:
        if name in FUNCTIONS and callable(getattr(torch, name, None)):
            wanted = {k for pos, _ in FUNCTIONS[name] for k in pos}
            assert _takes(getattr(S, name), 0, wanted), name
