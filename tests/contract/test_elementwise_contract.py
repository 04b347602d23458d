"""Contract tests generated from the registry (``strided._api.elementwise.ROWS``).

For every elementwise row and every door it has — the namespace function, the method,
the operator and reflected operator, the in-place operator and ``op_`` method, ``out=``,
the PyTorch alias spellings, and NumPy's ufunc (or function) called on strided arrays —
Hypothesis draws small inputs (broadcasting shapes, views of a larger base, 0-d) and
checks the rules every door must keep:

- values and dtype as the reference: NumPy (the table of tests/_api/test_elementwise.py),
  or PyTorch for a PyTorch spelling;
- a write bumps the version counter of the Storage that owns the written memory;
- dimension names are kept (the inputs' names, unified from the right), or the call is
  refused with DimensionNameError;
- a graph is kept (the result requires grad) or refused with an error;
- user-held inputs are unchanged (their bytes compared before and after);
- nothing else raises.
"""

from __future__ import annotations

import importlib.util
import operator
import pathlib

import numpy as np
import pytest
torch = pytest.importorskip("torch")  # (the CPython 3.12 leg has no PyTorch)
from hypothesis import HealthCheck, given, settings, strategies as st

import strided as xp
from conftest import host
from strided._api.elementwise import ROWS
from strided.named import DimensionNameError

_spec = importlib.util.spec_from_file_location(
    "_contract_elementwise_reference", pathlib.Path(__file__).parents[1] / "_api" / "test_elementwise.py")
_ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ref)
REF, _values, _expected, _check, _allowed = _ref.REF, _ref._values, _ref._expected, _ref._check, _ref._allowed

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

SETTINGS = settings(max_examples=6, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))

# PyTorch has these dtypes' kernels (its uint16/32/64 support is partial)
_TORCH_DTYPES = {"bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64",
                 "complex64", "complex128"}


def _bytes(a):
    return host(a).tobytes()


def _make(ref: np.ndarray, how: str, names):
    """``ref`` as a strided array laid out ``how`` (a view of a larger base, or not): (the
    array, the base whose Storage owns it)."""
    if how == "contiguous" or ref.ndim == 0:
        a = xp.asarray(ref.copy())
        base = a
    elif how == "strided":  # every other element of a base twice as long on the last axis
        big = np.zeros(ref.shape[:-1] + (2 * ref.shape[-1],), dtype=ref.dtype)
        big[..., ::2] = ref
        base = xp.asarray(big)
        a = base[..., ::2]
    else:  # "reversed": a negative stride
        base = xp.asarray(ref[..., ::-1].copy())
        a = base[..., ::-1]
    if names is not None:
        a = a.rename(*names) if ref.ndim else a
    return a, base


@st.composite
def _case(draw, row):
    """(numpy inputs, layouts, names) for one call of ``row``."""
    dtypes = _allowed(row.name)
    dt = draw(st.sampled_from(dtypes))
    if row.nargs == 2:
        shapes = draw(st.sampled_from([((), ()), ((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)),
                                       ((2, 3), (2, 3)), ((1, 2, 2), (2, 2))]))
    else:
        shapes = (draw(st.sampled_from([(), (3,), (2, 3), (2, 1, 2)])),)
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    domains = REF[row.name][2:]
    vals = [np.asarray(_values(dom, dt._np, s, rng)) for dom, s in zip(domains, shapes)]
    hows = [draw(st.sampled_from(["contiguous", "strided", "reversed"])) for _ in vals]
    named = draw(st.sampled_from(["none", "same", "clash"]))
    return vals, hows, named


def _names_for(vals, named):
    """Names per input: suffixes of ("A", "B", "C") (so they agree from the right), or a
    clash: the second input's names reversed."""
    if named == "none":
        return [None] * len(vals)
    out = [("A", "B", "C")[3 - v.ndim:] if v.ndim else None for v in vals]
    if named == "clash" and len(vals) == 2 and vals[1].ndim >= 2:
        out[1] = tuple(reversed(out[1]))
    return out


def _clash(names):
    if len(names) < 2 or names[0] is None or names[1] is None:
        return False
    return any(a != b for a, b in zip(reversed(names[0]), reversed(names[1])))


def _want_names(vals, names):
    nd = max(v.ndim for v in vals)
    if all(n is None for n in names) or nd == 0:
        return None
    return ("A", "B", "C")[3 - nd:]


def _doors(row):
    """name -> (kind, call(args) -> result) for every door of ``row``."""
    fn = getattr(xp, row.name)
    doors = {"function": ("out-of-place", fn)}
    if isinstance(getattr(xp.Array, row.name, None), property):  # x.real, x.imag
        doors["attribute"] = ("out-of-place", lambda a: getattr(a, row.name))
    elif hasattr(xp.Array, row.name):
        # (every method is a PyTorch spelling: torch.Tensor's method is its reference, or
        # NumPy's function where PyTorch has no such method)
        doors["method"] = ("torch", row.name) if hasattr(torch.Tensor, row.name) else \
            ("method", lambda *a: getattr(a[0], row.name)(*a[1:]))
    d = row.dunder
    if d is not None:
        if row.nargs == 2:
            doors["operator"] = ("out-of-place", getattr(operator, d if d not in ("and", "or") else d + "_"))
            doors["reflected operator"] = ("reflected", getattr(operator, d if d not in ("and", "or") else d + "_"))
            if hasattr(xp.Array, f"__i{d}__"):
                doors["in-place operator"] = ("in-place", getattr(operator, "i" + d))
        else:
            doors["operator"] = ("out-of-place", getattr(operator, {"invert": "invert", "neg": "neg",
                                                                   "pos": "pos", "abs": "abs"}[d]))
    if hasattr(xp.Array, row.name + "_"):
        # (an in-place method given PyTorch's meaning where it differs from the row's, as
        # x.sign_(): PyTorch's in-place method is its reference)
        doors["op_ method"] = ("torch", row.name + "_") if getattr(
            getattr(xp.Array, row.name + "_"), "torch_meaning", False) else \
            ("in-place", lambda *a: getattr(a[0], row.name + "_")(*a[1:]))
    doors["out="] = ("out=", fn)
    for alias in row.aliases:
        if hasattr(xp.Array, alias):
            doors[f"alias {alias}"] = ("torch", alias)
    npf = getattr(np, row.name, None)
    if npf is not None:
        doors["numpy"] = ("numpy", npf)
    return doors


def _numpy_ref(row, vals):
    with np.errstate(all="ignore"):
        return _expected(row.name, *vals)


def _check_unchanged(arrays, before, door):
    for a, b in zip(arrays, before):
        assert _bytes(a) == b, f"{door}: an input was changed"


def _run_door(row, door, kind, call, vals, hows, named):
    names = _names_for(vals, named)
    made = [_make(v, h, n) for v, h, n in zip(vals, hows, names)]
    args = [m[0] for m in made]
    clash = _clash(names)
    want_names = _want_names(vals, names)
    try:
        ref = _numpy_ref(row, vals)
    except (ValueError, TypeError) as e:  # (integers to negative integer powers)
        ref = e
    before = [_bytes(a) for a in args]
    if isinstance(ref, Exception):
        if kind not in ("torch", "reflected"):
            with pytest.raises(type(ref)):
                _call(kind, call, args, None, made)
            _check_unchanged(args, before, door)
            return
    if kind == "torch":
        dts = {v.dtype.name for v in vals}
        if not dts <= _TORCH_DTYPES or clash:
            return
        ts = [torch.from_numpy(np.array(v, copy=True)) for v in vals]
        try:
            want = getattr(ts[0], call)(*ts[1:])
        except (RuntimeError, TypeError):
            return  # PyTorch lacks it for these dtypes: nothing to compare
        got = getattr(args[0], call)(*args[1:])
        if call.endswith("_"):  # (in place: the target is the result, the other operands as they were)
            assert got is args[0], door
            args, before = args[1:], before[1:]
        if not isinstance(want, torch.Tensor):  # Tensor.equal: one Python bool
            assert type(got) is type(want) and got == want, (door, got, want)
            _check_unchanged(args, before, door)
            return
        g = host(got.rename(None) if want_names else got)
        w = want.resolve_conj().resolve_neg().numpy()
        assert g.dtype == w.dtype and g.shape == w.shape, (door, g.dtype, w.dtype, g.shape, w.shape)
        tol = {"float32": 2e-6, "complex64": 2e-6, "float64": 1e-13, "complex128": 1e-13}.get(g.dtype.name, 0)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True, err_msg=door)
        if want_names is not None:
            assert got.names == want_names, (door, got.names, want_names)
        _check_unchanged(args, before, door)
        return
    if clash:
        with pytest.raises(DimensionNameError):
            _call(kind, call, args, ref, made)
        _check_unchanged(args, before, door)
        return
    if kind == "method" and row.method_float and vals[0].dtype.kind in "biu":
        return  # PyTorch's integer -> default float for methods: the alias doors compare that
    if kind in ("in-place", "out="):
        return _run_write(row, door, kind, call, vals, made, ref, want_names)
    if kind == "reflected":
        scalar = _scalar(vals[1].dtype)
        try:
            with np.errstate(all="ignore"):
                want = np.asarray(REF[row.name][0](scalar, vals[0]))
        except ValueError as e:
            with pytest.raises(type(e)):
                call(scalar, args[0])
            return
        got = call(scalar, args[0])
        if row.name == "divide" and vals[0].dtype.kind in "biu":
            want = want.astype(xp.get_default_dtype()._np)
        _check(door, got, want)
        _check_unchanged(args, before, door)
        return
    got = call(*args)
    _check(f"{row.name} {door}", got.rename(None) if want_names else got, ref)
    if want_names is not None:
        assert got.names == want_names, (door, got.names, want_names)
    _check_unchanged(args, before, door)


def _scalar(dt):
    return {"b": True, "i": 2, "u": 2, "f": 1.5, "c": 1.5 + 0.5j}[dt.kind]


def _call(kind, call, args, ref, made):
    if kind == "out=":
        out = xp.empty(np.broadcast_shapes(*[a.shape for a in args]),
                       dtype=xp.float64 if ref is None else xp.asarray(ref).dtype)
        return call(*args, out=out)
    if kind == "reflected":
        return call(_scalar(np.dtype(args[0].dtype._np)), args[0])
    if kind == "in-place":
        return call(*args)
    return call(*args)


def _run_write(row, door, kind, call, vals, made, ref, want_names):
    args = [m[0] for m in made]
    if kind == "out=":
        big = xp.zeros((2,) + ref.shape, dtype=xp.asarray(ref).dtype)  # out: a view of a larger base
        out = big[1]
        if want_names is not None:
            out = out.rename(*want_names)
        before = [_bytes(a) for a in args]
        v = big._version
        r = call(*args, out=out)
        assert r is out and big._version > v, door
        _check(door, out.rename(None) if want_names else out, ref)
        _check_unchanged(args, before, door)
        return
    # in place: the target is the first input; the result must keep its dtype and shape
    x, base = made[0]
    if ref.shape != tuple(x.shape) or not np.can_cast(ref.dtype, vals[0].dtype, "same_kind"):
        with pytest.raises((TypeError, ValueError, RuntimeError)):
            call(*args)
        return
    before = [_bytes(a) for a in args[1:]]
    v = base._version
    r = call(*args)
    assert r is x, door
    assert base._version > v, f"{door}: the write did not bump the owning Storage's version"
    want = ref.astype(vals[0].dtype) if ref.dtype != vals[0].dtype else ref
    _check(door, x.rename(None) if want_names else x, want)
    if want_names is not None:
        assert x.names == want_names
    _check_unchanged(args[1:], before, door)


def _run_grad(row, vals):
    """A graph is kept (the result requires grad) or refused with an error; an in-place
    write into a leaf that requires grad, or out= with grad, is refused."""
    if vals[0].dtype.kind not in "fc":
        return
    leaf = xp.asarray(vals[0].copy(), requires_grad=True)
    rest = [xp.asarray(v.copy()) for v in vals[1:]]
    fn = getattr(xp, row.name)
    try:
        r = fn(leaf, *rest)
    except RuntimeError as e:
        assert "derivative" in str(e) or "grad" in str(e), e
    else:
        if r.dtype.kind in "fc":
            assert r.requires_grad, f"{row.name}: the graph was cut silently"
        else:
            assert not r.requires_grad
    if hasattr(xp.Array, row.name + "_"):
        with pytest.raises(RuntimeError, match="leaf"):
            getattr(leaf, row.name + "_")(*rest)
    out = xp.empty(np.broadcast_shapes(*[v.shape for v in vals]), dtype=leaf.dtype, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad"):
        fn(leaf, *rest, out=out)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_every_door_keeps_the_rules(row):
    doors = _doors(row)

    @SETTINGS
    @given(_case(row))
    def check(case):
        vals, hows, named = case
        for door, (kind, call) in doors.items():
            if kind == "numpy" and (named != "none"):
                continue  # (NumPy's path on named arrays: test_fallback_pipeline.py)
            if kind == "numpy":
                args = [_make(v, h, None)[0] for v, h in zip(vals, hows)]
                before = [_bytes(a) for a in args]
                with np.errstate(all="ignore"):
                    got = call(*args)
                _check(f"{row.name} {door}", got, _numpy_ref(row, vals))
                _check_unchanged(args, before, door)
                continue
            _run_door(row, door, kind, call, vals, hows, named)
        _run_grad(row, vals)

    check()
