"""The compiled parts of named dimensions against their Python definitions.

- ``Ext`` (strided/_csrc/_chot/names.c): the per-array record of autograd and names is a
  compiled type with a free list when the extension is built; the Python class in
  ``strided._core.array`` stays the definition (``_ExtPython``). Both must have the same
  attributes, defaults and refusals, take weak references and be collected in cycles, and a
  recycled Ext must start from the defaults.
- Named calls answered in C (elementwise, reductions with ``axis=`` or PyTorch's ``dim=``,
  views, ``out=``) give the names, values and errors of the Python path
  (``STRIDED_NO_CEXT=1``), called repeatedly so that the compiled caches answer.
- A call spelled with ``dim=``/``keepdim=`` is answered by the compiled cache after its
  first sight (it used to miss it every time: the cache kept the call as bound, ``axis=``).
- ``strided.named.flatten`` and ``unflatten`` by names keep their checked outcome per
  (names, arguments): a repeated call gives the first one's names and errors.
- ``x.equal(y)`` compares names first, as PyTorch's ``at::equal`` does
  (``namedinference::are_names_equal``): different names give False, never an error.
"""

import gc
import json
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import strided as xp
from strided._core import array as _array_mod
from strided._core.array import Ext

SRC = os.path.dirname(os.path.dirname(os.path.abspath(xp.__file__)))
_FIELDS = ("requires_grad", "grad", "grad_fn", "output_nr", "retains_grad", "hooks", "names",
           "is_view", "acc")
_PY = _array_mod._ExtPython
_CLASSES = [_PY] + ([Ext] if Ext is not _PY else [])


def _defaults(e):
    return {f: getattr(e, f) for f in _FIELDS}


def test_compiled_ext_is_used_when_built():
    compiled = _array_mod._CVIEWS is not None
    assert (Ext is not _PY) == compiled
    assert Ext.__module__ == "strided._core.array" and Ext.__name__ == "Ext"


@pytest.mark.parametrize("cls", _CLASSES, ids=lambda c: "compiled" if c is not _PY else "python")
def test_ext_fields_defaults_and_refusals(cls):
    e = cls()
    assert _defaults(e) == {"requires_grad": False, "grad": None, "grad_fn": None, "output_nr": 0,
                            "retains_grad": False, "hooks": None, "names": None, "is_view": False,
                            "acc": None}
    assert _defaults(e) == _defaults(_PY())
    with pytest.raises(AttributeError):
        e.other = 1  # no __dict__: only the nine fields
    with pytest.raises(TypeError):
        cls(1)
    e.names = ("a", None)
    assert e.names == ("a", None)
    del e.names
    with pytest.raises(AttributeError):
        e.names
    with pytest.raises(AttributeError):
        del e.names
    e.names = ("b",)
    assert e.names == ("b",)


@pytest.mark.parametrize("cls", _CLASSES, ids=lambda c: "compiled" if c is not _PY else "python")
def test_ext_weakrefs_and_cycles(cls):
    e = cls()
    r = weakref.ref(e)

    class Node:  # grad_fn -> node -> the Ext: a cycle only the collector frees
        pass

    n = Node()
    n.ext = e
    e.grad_fn = n
    del e, n
    gc.collect()
    assert r() is None


def test_recycled_ext_starts_from_the_defaults():
    # (the free list hands back released records: none may keep another array's fields)
    for _ in range(3):
        es = [Ext() for _ in range(300)]
        for i, e in enumerate(es):
            e.names = ("x", str(i))
            e.requires_grad = True
            e.output_nr = i
            e.hooks = [i]
        del es, e
        fresh = [Ext() for _ in range(300)]
        assert all(_defaults(f) == _defaults(_PY()) for f in fresh)
        del fresh
    m = xp.ones((2, 3)).rename("a", "b")
    outs = [m + m for _ in range(50)]
    assert all(o._ext.names == ("a", "b") and o._ext.requires_grad is False
               and o._ext.grad_fn is None for o in outs)


@pytest.mark.skipif(_array_mod._CVIEWS is None, reason="the compiled extension is not built")
def test_named_ext_is_a_fresh_record_with_the_names_or_refuses():
    # (names.c's named_ext, behind squeeze's hot path: what ``e = Ext(); e.names = names`` makes)
    make = _array_mod._CVIEWS.named_ext
    e = make(("a", None))
    py = _PY()
    py.names = ("a", None)
    assert type(e) is Ext and _defaults(e) == _defaults(py)
    assert make(("a",)) is not make(("a",))
    for bad in (["a"], ("a", 1), None, "a", (np.str_("a"),)):
        with pytest.raises(TypeError, match="named_ext"):
            make(bad)


def test_ext_records_hold_their_type_exactly_once():
    # (a heap type's instance holds a reference to it; a record on the free list keeps its
    # own, and one freed past the list's 256 gives it back: the type's count is the same
    # after any number of named results, records and free-list overflows)
    m = xp.ones((2, 3), device="cpu").rename("a", "b")
    x1 = xp.ones((1, 3), device="cpu").rename("o", "c")

    def churn():
        outs = [m + m for _ in range(400)] + [Ext() for _ in range(400)]
        outs += [xp.squeeze(x1, axis=0) for _ in range(400)] + [m.T for _ in range(400)]
        del outs

    churn()
    gc.collect()
    before = sys.getrefcount(Ext)
    for _ in range(5):
        churn()
    gc.collect()
    assert sys.getrefcount(Ext) == before


def test_named_result_records_join_cycles_and_come_back_clean():
    # (a named result's record starts untracked by the collector: setting a field tracks it;
    # one changed behind __setattr__'s back, by the member descriptor itself, is still
    # released with its fields, never handed out again with them)
    m = xp.ones((2, 3)).rename("a", "b")
    ys = [m + m for _ in range(5)]
    e = ys[-1]._ext
    r = weakref.ref(e)

    class Node:
        pass

    n = Node()
    n.ext = e
    e.grad_fn = n
    assert gc.is_tracked(e)
    del ys, e, n
    gc.collect()
    assert r() is None
    y = m + m
    kind = type(y._ext)
    kind.hooks.__set__(y._ext, [1])
    kind.output_nr.__set__(y._ext, 5)
    kind.is_view.__set__(y._ext, True)
    del y
    outs = [m + m for _ in range(300)] + [Ext() for _ in range(300)]
    assert all({**_defaults(o._ext if type(o) is not Ext else o), "names": None}
               == _defaults(_PY()) for o in outs)


# --- the compiled named paths against the Python path ------------------------------------------

# Each case: a statement over the arrays below, run 4 times (the compiled caches answer from
# the second on); its outcome is the names and values of the result, or the error's type.
_CASES = [
    "an + bn", "an * 2.0", "xp.exp(mn)", "mn + vn", "an + xp.ones(8)", "mn + cn",
    "xp.sum(mn, axis='C')", "xp.sum(mn, axis=1)", "xp.sum(mn, dim='C')", "xp.sum(mn, dim=1)",
    "xp.sum(mn, dim='R', keepdim=True)", "xp.mean(mn, dim='C', keepdim=True)",
    "xp.sum(mn, dim=('R', 'C'))", "xp.prod(mn, dim='C')", "mn.sum(dim='C')", "mn.sum('C')",
    "xp.sum(mn, dim='Z')", "xp.sum(mn, axis='Z')", "xp.sum(mn, axis='C', dim='C')",
    "xp.std(mn, dim='C')", "xp.std(mn, dim='C', correction=1)", "xp.max(mn, dim='C')",
    "xp.sum(mn, dim='C', keepdims=True)", "xp.sum(mn, 'C')",
    "mn.T", "a3n.mT", "xp.permute_dims(a3n, (2, 0, 1))", "a3n.permute('W', 'N', 'H')",
    "mn.transpose(0, 1)", "xp.reshape(mn, (12,))", "a3n.flatten(1, 2)", "mn[1:3]", "mn[1]",
    "mn[1:3, 0]", "xp.expand_dims(mn, axis=0)", "mn.unsqueeze(0)", "xp.squeeze(m1n, axis=0)",
    "mn.rename('A', 'B')", "mn.align_to('C', 'R')", "mn.permute('Z', 'R')",
    "xp.exp(mn, out=o_ok)", "xp.exp(mn, out=o_clash)", "xp.add(an, bn, out=ao_clash)",
    "xp.sum(mn, dim='C', out=so_clash)",
    "xp.named.flatten(a3n, ['H', 'W'], 'HW')", "xp.named.flatten(a3n, ('N', 'H'), 'NH')",
    "xp.named.flatten(a3n, ['H', 'N'], 'HW')", "xp.named.flatten(a3n, ['H', 'W'], 'N')",
    "xp.named.flatten(a3n, [1, 2], 'HW')", "a3n.unflatten('W', (('P', 2), ('Q', 2)))",
    "a3n.unflatten(2, (2, 2))", "a3n.unflatten('W', (('P', 2), ('Q', 3)))",
    "a3n.unflatten('W', (('P', 2), ('N', 2)))", "a3n.unflatten('Z', (2, 2))",
    "a3n.unflatten('W', [['P', -1], ['Q', 2]])",
    "mn.equal(mn)", "mn.equal(cn)", "mn.equal(m)", "m.equal(m)", "mn.equal(mn2)",
    # (permute by names: the names found by identity, by value, mixed with ints, repeated)
    "a3n.permute(('W', 'N', 'H'))", "a3n.permute('W', 0, 'H')", "a3n.permute('W', 'W', 'H')",
    "xp.permute_dims(a3n, ('W', 'N', 'H'))", "a3n.permute(''.join(['W']), 'N', 'H')",
    # (flatten and unflatten by names: the cached outcome runs the view's body directly)
    "xp.named.flatten(a3n, ('H', 'W'), 'HW')", "a3n.flatten(['N', 'H'], 'NH')",
    "xp.named.unflatten(a3n, 'W', (('P', -1), ('Q', 2)))", "a3n.unflatten(1, (('P', 3), ('Q', 1)))",
    "a3n.unflatten(2, [2, 2])", "a3n.unflatten(2, (True, 4))", "a3n.unflatten(-1, (2, 2))",
    "xp.named.flatten(a3n.rename(None), [0, 1], 'A')", "a3n.rename(None).unflatten('W', (2, 2))",
    # (answered in C (views.c) from the second call: all-None outcomes unnamed, a view that is
    # not contiguous, sizes the cache does not take, a bool size, an out_name of None)
    "m.rename(None, 'C').unflatten('C', (2, 2))", "xp.named.flatten(a3n, ['H', 'W'], None)",
    "m.rename(None, 'C').unflatten('C', (2, 2)).has_names()",
    "xp.named.flatten(a3n.rename(None, 'H', 'W'), ['H', 'W'], None).has_names()",
    "a3n.mT.unflatten('H', (('P', 3), ('Q', 1)))", "a3n.mT.flatten(['W', 'H'], 'WH')",
    "a3n.unflatten('W', (('P', True), ('Q', 4)))", "a3n.unflatten('W', (('P', -1), ('Q', -1)))",
    "a3n.unflatten('W', (('P', 0), ('Q', -1)))", "a3n.unflatten('W', (2, -1))",
    "a3n.flatten(('N', 'H', 'W'), 'A')", "a3n.flatten(['W'], 'Z')", "a3n.flatten([], 'Z')",
    "a3n.flatten(['H', 2], 'HW')", "a3n.flatten(['H', True], 'HW')", "a3n.unflatten(True, (1, 2))",
    # (squeeze's hot path (views.py) on named arrays, its cached outcome, errors)
    "xp.squeeze(m1n, axis=-2)", "xp.squeeze(m1n, axis=1)", "xp.squeeze(m1n, axis=2)",
    "xp.squeeze(m1n.rename('O', None), axis=0)", "xp.squeeze(m1n.rename(None, 'C'), axis=0)",
    "xp.squeeze(m1n, axis=True)", "xp.squeeze(m1n, axis='O')", "xp.squeeze(m1n, dim=0)",
]

_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import strided as xp
    m = xp.reshape(xp.arange(12, dtype=xp.float64), (3, 4))
    g = dict(xp=xp, m=m, mn=m.rename("R", "C"), cn=m.rename("R", "D"), mn2=(m + 1).rename("R", "C"),
             vn=xp.arange(4, dtype=xp.float64).rename("C"), an=xp.arange(8.0).rename("N"),
             bn=xp.ones(8).rename("N"), m1n=xp.ones((1, 4)).rename("O", "C"),
             a3n=xp.ones((2, 3, 4)).rename("N", "H", "W"))
    out = {}
    for stmt in json.loads(sys.argv[1]):
        got = []
        for i in range(4):
            g.update(o_ok=xp.zeros((3, 4)).rename("R", None), o_clash=xp.zeros((3, 4)).rename("X", "C"),
                     ao_clash=xp.zeros(8).rename("M"), so_clash=xp.zeros(3).rename("Q"))
            try:
                r = eval(stmt, g)
                if type(r) is bool:
                    got.append(["bool", r])
                else:
                    got.append(["array", list(r.names), np.asarray(r.rename(None).cpu()).tolist()])
                if stmt.startswith("xp.exp(mn, out"):
                    got.append(["out", list(g["o_ok"].names), np.asarray(g["o_ok"].rename(None).cpu()).tolist()])
            except Exception as e:
                got.append(["raises", type(e).__name__])
            for k in ("o_clash", "ao_clash", "so_clash"):  # refused out= is left as it was
                if stmt.endswith(k + ")"):
                    got.append(["untouched", float(np.asarray(g[k].rename(None).cpu()).sum())])
        out[stmt] = got
    print(json.dumps(out))
""")


def _run(no_cext: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("STRIDED_NO_CEXT", None)
    if no_cext:
        env["STRIDED_NO_CEXT"] = "1"
    p = subprocess.run([sys.executable, "-c", _SCRIPT, json.dumps(_CASES)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def outcomes():
    return _run(False), _run(True)


@pytest.mark.parametrize("stmt", _CASES)
def test_compiled_named_paths_match_the_python_path(outcomes, stmt):
    compiled, python = outcomes
    assert compiled[stmt] == python[stmt]
    assert all(g == python[stmt][0] or g[0] in ("out", "untouched") for g in python[stmt])


def test_expected_outcomes_of_the_python_path(outcomes):
    # (independent of either path: what the rules say)
    _, python = outcomes
    assert python["xp.sum(mn, dim='C')"][0] == ["array", ["R"], [6.0, 22.0, 38.0]]
    assert python["xp.sum(mn, dim='R', keepdim=True)"][0] == ["array", ["R", "C"],
                                                              [[12.0, 15.0, 18.0, 21.0]]]
    assert python["xp.sum(mn, dim='Z')"][0] == ["raises", "DimensionNameError"]
    assert python["xp.sum(mn, axis='C', dim='C')"][0] == ["raises", "TypeError"]
    assert python["xp.std(mn, dim='C')"][0] == ["raises", "TypeError"]
    assert python["xp.max(mn, dim='C')"][0] == ["raises", "TypeError"]
    assert python["xp.sum(mn, 'C')"][0] == ["raises", "TypeError"]
    assert python["mn + cn"][0] == ["raises", "DimensionNameError"]
    assert python["a3n.unflatten('W', (('P', 2), ('N', 2)))"][0] == ["raises", "DimensionNameError"]
    assert python["xp.named.flatten(a3n, ['H', 'W'], 'HW')"][0][:2] == ["array", ["N", "HW"]]
    assert python["xp.exp(mn, out=o_clash)"][:2] == [["raises", "DimensionNameError"], ["untouched", 0.0]]
    assert python["xp.sum(mn, dim='C', out=so_clash)"][:2] == [["raises", "DimensionNameError"],
                                                                ["untouched", 0.0]]


# --- dim= reaches the compiled cache -------------------------------------------------------------

def _hook_calls(stmt, g, times):
    """(results, hook calls) of evaluating stmt `times` times, counting the dispatch hook's calls."""
    hook = _array_mod.HOOK[0]
    calls = []

    def counting(*args):
        calls.append(args[0])
        return hook(*args)

    _array_mod.HOOK[0] = counting
    try:
        results = [eval(stmt, g) for _ in range(times)]
    finally:
        _array_mod.HOOK[0] = hook
    return results, calls


@pytest.mark.skipif(_array_mod._CVIEWS is None, reason="the compiled path (C extension not built)")
@pytest.mark.parametrize("stmt", ["xp.sum(mn, dim='C')", "xp.sum(mn, dim=1)",
                                  "xp.mean(mn, dim='C', keepdim=True)", "xp.sum(mn, dim=('R', 'C'))",
                                  "xp.sum(mn, axis='C')"])
def test_a_call_spelled_with_dim_is_answered_by_the_compiled_cache(stmt):
    m = xp.reshape(xp.arange(12, dtype=xp.float32), (3, 4))
    g = {"xp": xp, "mn": m.rename("R", "C")}
    expected = eval(stmt, g)
    results, calls = _hook_calls(stmt, g, 10)
    assert len(calls) <= 1  # (the first sight of the spelling may take the Python path)
    for r in results:
        assert r.names == expected.names
        assert r.tolist() == expected.tolist()


# --- x.equal(y) --------------------------------------------------------------------------------

@pytest.mark.parametrize("n1, n2, same_values, expected", [
    (("N", "C"), ("N", "C"), True, True),
    (("N", "C"), ("N", "C"), False, False),
    (("N", "C"), ("N", "D"), True, False),   # a clash: False, no error (PyTorch's at::equal)
    (("N", "C"), ("C", "N"), True, False),
    (("N", "C"), (None, None), True, False),  # unnamed: names all None, which differ
    ((None, "C"), (None, "C"), True, True),
    ((None, None), (None, None), True, True),
])
def test_equal_compares_names_first(n1, n2, same_values, expected):
    x = xp.reshape(xp.arange(6, dtype=xp.float32), (2, 3)).rename(*n1)
    y = xp.reshape(xp.arange(6, dtype=xp.float32) + (0 if same_values else 1), (2, 3)).rename(*n2)
    assert x.equal(y) is expected
    assert y.equal(x) is expected
    assert x.names == n1 and y.names == n2  # (the inputs keep their names)


# --- flatten and unflatten by names: cached outcomes, tracked arrays, PyTorch's names --------------

def _np(x):
    return np.asarray(x.rename(None).cpu())


# (method name, arguments, the result's names and values as PyTorch's named tensors define them
# (torch 2.13 no longer has them: its documentation's rules, values from NumPy), or None: an
# error) on an array named (N, H, W) of shape (2, 3, 4)
_B = np.arange(24.0).reshape(2, 3, 4)
_DEFINED_VIEWS = [
    ("flatten", (["H", "W"], "HW"), ("N", "HW"), _B.reshape(2, 12)),
    ("flatten", (("N", "H"), "NH"), ("NH", "W"), _B.reshape(6, 4)),
    ("flatten", (["N", "H", "W"], "A"), ("A",), _B.reshape(24)),
    ("flatten", (["H", "N"], "HN"), None, None),  # (not consecutive and in order)
    ("flatten", (["H", "W"], "N"), None, None),   # (a duplicate name)
    ("unflatten", ("W", (("P", 2), ("Q", 2))), ("N", "H", "P", "Q"), _B.reshape(2, 3, 2, 2)),
    ("unflatten", ("H", (("P", 3), ("Q", 1))), ("N", "P", "Q", "W"), _B.reshape(2, 3, 1, 4)),
    ("unflatten", ("W", (("P", -1), ("Q", 2))), ("N", "H", "P", "Q"), _B.reshape(2, 3, 2, 2)),
    ("unflatten", (2, (("P", 2), ("Q", 2))), ("N", "H", "P", "Q"), _B.reshape(2, 3, 2, 2)),
    ("unflatten", ("W", (("P", 3), ("Q", 2))), None, None),  # (sizes that don't multiply to 4)
    ("unflatten", ("W", (("N", 2), ("Q", 2))), None, None),  # (a duplicate name)
    ("unflatten", ("Z", (("P", 2), ("Q", 2))), None, None),  # (no such dim)
    ("align_to", ("W", "N", "H"), ("W", "N", "H"), _B.transpose(2, 0, 1)),
    ("align_to", ("W", ...), ("W", "N", "H"), _B.transpose(2, 0, 1)),
    ("align_to", ("W", "N", "H", "E"), ("W", "N", "H", "E"), _B.transpose(2, 0, 1)[..., None]),
    ("permute", ("W", "N", "H"), ("W", "N", "H"), _B.transpose(2, 0, 1)),
    ("permute", ("W", "Z", "H"), None, None),
]


@pytest.mark.parametrize("method, args, names, values", _DEFINED_VIEWS, ids=lambda v: repr(v)[:40])
def test_named_views_repeated_match_the_definition(method, args, names, values):
    x = xp.asarray(_B).rename("N", "H", "W")
    for _ in range(3):  # (the cached outcomes answer from the second call on)
        if names is None:
            with pytest.raises((ValueError, RuntimeError)):
                getattr(x, method)(*args)
            continue
        got = getattr(x, method)(*args)
        assert got.names == names
        np.testing.assert_array_equal(_np(got), values)
    assert x.names == ("N", "H", "W")


@pytest.mark.parametrize("op", [
    lambda x: xp.named.flatten(x, ["H", "W"], "HW"),
    lambda x: x.flatten(["N", "H"], "NH"),
    lambda x: x.unflatten("W", (("P", 2), ("Q", 2))),
    lambda x: xp.named.unflatten(x, 1, (("P", 3), ("Q", 1))),
], ids=["flatten", "flatten method", "unflatten method", "unflatten"])
def test_cached_flatten_and_unflatten_record_a_tracked_array(op):
    # (the cached outcome skips dispatch only for an array autograd does not track)
    base = np.random.default_rng(0).standard_normal((2, 3, 4))
    for _ in range(3):
        x = xp.asarray(base, requires_grad=True)
        xn = x.rename("N", "H", "W")
        y = op(xn)
        assert y.grad_fn is not None
        (y * y).sum().backward()
        np.testing.assert_allclose(_np(x.grad), 2 * base)  # d/dx sum(view(x)**2) = 2x
        z = op(xn.detach())
        assert z.grad_fn is None and z.names == y.names


@pytest.mark.skipif(_array_mod._CVIEWS is None, reason="the compiled path (C extension not built)")
@pytest.mark.parametrize("stmt", ["xp.named.flatten(a3n, ['H', 'W'], 'HW')",
                                  "a3n.unflatten('W', (('P', 2), ('Q', 2)))",
                                  "a3n.permute('W', 'N', 'H')"])
def test_cached_named_views_do_not_dispatch(stmt):
    a3n = xp.ones((2, 3, 4)).rename("N", "H", "W")
    g = {"xp": xp, "a3n": a3n}
    expected = eval(stmt, g)
    eval(stmt, g)
    results, calls = _hook_calls(stmt, g, 5)
    assert calls == []
    for r in results:
        assert r.names == expected.names and r.shape == expected.shape
