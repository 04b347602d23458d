"""Differential testing of named dimensions: the compiled paths against the Python definitions.

The compiled hot path (_chot.c, "named dimensions") answers named elementwise calls,
reductions with any keywords and the views it computes (indexing, ``.T``, ``.mT``,
permute, expand_dims, reshape) from outcomes the named handler cached
(_handler._EW_NAMES, _RED, _VIEW_NAMES). Hypothesis writes programs of such calls on
arrays with overlapping names (the same names in another order, the same ndim with
other names, other ndims, renamed views, requires_grad), each call made three times
in a row (the first sight caches, the next two take the compiled path), and wrong
calls among them (an unknown name, a duplicate name, an out-of-range axis, a bool
axis). Each program runs here (compiled) and in a ``STRIDED_NO_CEXT=1`` worker (the
Python definitions), with test_differential.py's runner, and the two must agree on
every value (bit for bit), dtype, shape, name, error (type and message) and gradient,
and neither may change an array the program holds. The caches live as long as the
process, so later programs meet the outcomes earlier ones cached: a stale outcome
would show as a difference.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as xp
from strided._core import array as _array, dispatch

from .test_differential import Worker, run_both
from conftest import cpu_only

# The compiled paths under test serve CPU arrays (on another device they decline at once):
# with another default device (the cuda stand-in run) there is nothing of theirs to compare.
pytestmark = [pytest.mark.host_pinned, cpu_only]

COMPILED = dispatch.CHOT is not None


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


# (dtype, shape, names): I0..I9. Names overlap on purpose: ("r", "c") and ("c", "r")
# share a key's ndim and names; I3 is I0's shape with one name; I7 has I0's names, 3-D.
INPUTS = [("float64", (3, 4), ("r", "c")), ("float64", (4, 3), ("c", "r")),
          ("float32", (3, 4), ("r", "c")), ("float64", (3, 4), (None, "c")),
          ("float64", (4,), ("c",)), ("int64", (3, 4), ("r", "c")),
          ("float64", (1, 4), ("o", "c")), ("float64", (2, 3, 4), ("n", "r", "c")),
          ("bool", (3, 4), ("r", "c")), ("float64", (3, 4), None)]
ARRAYS = [f"I{i}" for i in range(len(INPUTS))]
NAMES = ["'r'", "'c'", "'n'", "'o'", "'zz'"]
AXES = NAMES + ["0", "1", "-1", "2", "5", "None", "True", "('r', 'c')", "('c',)", "(0, 1)",
                "(0, True)", "('r', 0)", "(1.0,)"]
REDUCTIONS = ["sum", "prod", "mean", "max", "min", "var", "std", "argmax", "argmin", "any", "all",
              "count_nonzero"]


@st.composite
def reduction(draw, x):
    f = draw(st.sampled_from(REDUCTIONS))
    kw = []
    if draw(st.integers(0, 4)):
        kw.append(f"axis={draw(st.sampled_from(AXES))}")
    if draw(st.booleans()):
        kw.append(f"keepdims={draw(st.sampled_from(['True', 'False', '1']))}")
    if f in ("sum", "prod") and draw(st.booleans()):
        kw.append(f"dtype={draw(st.sampled_from(['xp.float64', 'xp.float32', 'xp.int64', 'None']))}")
    if f in ("var", "std") and draw(st.booleans()):
        kw.append(f"correction={draw(st.sampled_from(['0', '1', '1.0', 'True', '-1']))}")
    kw = draw(st.permutations(kw))
    if draw(st.integers(0, 5)) == 0:  # the method, PyTorch's spelling
        return f"{x}.{f}({', '.join(k.replace('axis=', 'dim=') for k in kw)})"
    return f"xp.{f}({', '.join([x] + list(kw))})"


def _index(draw):
    entry = st.sampled_from(["1:3", "::2", "1", "-1", "0", "7", ":", "::-1", "2:0"])
    k = draw(st.lists(entry, min_size=1, max_size=4))
    return ", ".join(k) if len(k) > 1 or draw(st.booleans()) else k[0]


@st.composite
def view(draw, x):
    kind = draw(st.integers(0, 14))
    if kind == 0:
        return f"{x}[{_index(draw)}]"
    if kind == 1:
        return f"{x}.{draw(st.sampled_from(['T', 'mT']))}"
    if kind == 2:
        perm = draw(st.sampled_from(["(1, 0)", "(0, 1)", "(2, 0, 1)", "(-1, 0)", "(0, 0)", "(True, 0)",
                                     "('c', 'r')", "(0, 1, 2)"]))
        return f"xp.permute_dims({x}, {perm})"
    if kind == 3:
        dims = draw(st.sampled_from(["1, 0", "(1, 0)", "2, 0, 1", "'c', 'r'", "-1, 0", "0"]))
        return f"{x}.permute({dims})"
    if kind == 4:
        return f"{x}.transpose({draw(st.sampled_from(['0, 1', '-2, -1', '1, 0', 0]))})"
    if kind == 5:
        shape = draw(st.sampled_from(["(12,)", "(-1,)", "(4, 3)", "(2, 6)", "(5,)", "(3, 4)"]))
        return draw(st.sampled_from([f"xp.reshape({x}, {shape})", f"{x}.reshape{shape}",
                                     f"{x}.reshape(-1)", f"xp.reshape({x}, {shape}, copy=None)"]))
    if kind == 6:
        a = draw(st.sampled_from(["0", "1", "-1", "2", "5", "True", "'c'", "(0, 1)"]))
        return draw(st.sampled_from([f"xp.expand_dims({x}, axis={a})", f"{x}.unsqueeze({a})",
                                     f"xp.expand_dims({x})", f"xp.unsqueeze({x}, dim={a})"]))
    if kind == 7:
        return f"xp.squeeze({x}, axis={draw(st.sampled_from(['0', 'None', '(0,)', '-2', NAMES[3], NAMES[0]]))})"
    if kind == 8:
        return f"{x}.contiguous()"
    if kind == 9:
        names = draw(st.sampled_from(["'a', 'b'", "None", "'c', 'r'", "'r', 'r'", "..., 'w'",
                                      "c='k'", "zz='k'", "'a'", "'_x', 'b'"]))
        return f"{x}.rename({names})"
    if kind == 10:
        return f"{x}.refine_names({draw(st.sampled_from(['r', 'c']) | st.just('...'))!r}, 'c')" \
            .replace("'...'", "...")
    if kind == 11:
        to = draw(st.sampled_from(["'c', 'r'", "'c', 'h', 'r'", "..., 'r'", "'r'", "'h', ..., 'r'",
                                   "'c', 'c'", "..., ...", "'n', 'r', 'c', 'z'"]))
        return f"{x}.align_to({to})"
    if kind == 12:
        return draw(st.sampled_from([f"{x}.flatten(0, 1)", f"{x}.flatten()",
                                     f"xp.named.flatten({x}, ['r', 'c'], 'rc')",
                                     f"{x}.flatten(['r', 'c'], 'rc')"]))
    if kind == 13:
        return draw(st.sampled_from([f"{x}.unflatten('c', (('p', 2), ('q', 2)))",
                                     f"{x}.unflatten(-1, (2, 2))",
                                     f"{x}.unflatten('c', (('p', 2), ('p', 2)))"]))
    return f"{x}.names"


@st.composite
def elementwise(draw, x, y):
    op = draw(st.sampled_from(["+", "*", "<", "-"]))
    s = draw(st.sampled_from(["2.0", "3", "True"]))
    return draw(st.sampled_from([f"({x} {op} {y})", f"({x} {op} {s})", f"({s} {op} {x})",
                                 f"xp.exp({x})", f"xp.add({x}, {y})", f"xp.negative({x})",
                                 f"xp.maximum({x}, {y})"]))


@st.composite
def programs(draw):
    prog, held = [], []
    for k in range(draw(st.integers(1, 8))):
        v = f"v{k}"
        pool = ARRAYS + held

        def arr():
            return draw(st.sampled_from(pool))

        kind = draw(st.sampled_from(["reduction", "reduction", "view", "view", "view", "ew", "align",
                                     "rename"]))
        if kind == "reduction":
            e = draw(reduction(arr()))
        elif kind == "view":
            e = draw(view(arr()))
        elif kind in ("ew", "align"):
            e = draw(elementwise(arr(), arr()))
        else:  # a renamed view, held: later calls meet its names
            e = draw(view(arr()).filter(lambda s: ".rename(" in s or ".refine_names(" in s)
                     | st.sampled_from([f"{arr()}.rename('c', 'r')", f"{arr()}.rename(None)",
                                        f"{arr()}[:, None]"]))
        if kind in ("view", "rename") and ".names" not in e:  # its layout too
            e = f"(lambda r: (r, r.stride(), r.storage_offset()))({e})"
        # three times: the first call caches the outcome, the other two take the compiled path
        calls = f"[{e} for _ in range(3)]"
        if kind == "align":
            prog.append((v, f"with xp.named.auto_align():\n    {v} = {calls}"))
        else:
            prog.append((v, f"{v} = {calls}"))
        if kind in ("view", "rename") and draw(st.booleans()):
            prog.append((f"w{k}", f"w{k} = {v}[0][0]"))
            held.append(f"w{k}")
    spec = [(dtype, shape, draw(st.integers(0, 2**16)), i in (0, 1) and draw(st.integers(0, 3)) == 0,
             names) for i, (dtype, shape, names) in enumerate(INPUTS)]
    return prog, spec


def test_compiled_and_python_paths_agree_on_names(worker):
    stats = collections.Counter()
    run_both(worker, programs(), stats)
    print(f"\nnamed differential: {dict(stats)}")
    # the programs compute, and they make mistakes
    assert stats["statements"] > stats["errors"] > 0


# --- the compiled path is really taken --------------------------------------------------------

class _CountingHook:
    """Counts the calls that reach the extensions' dispatch chain (the Python path)."""

    def __init__(self, hook):
        self.hook, self.calls = hook, []

    def __call__(self, name, impl, args, kwargs):
        self.calls.append(name)
        return self.hook(name, impl, args, kwargs)


@pytest.fixture
def counting():
    """The dispatch hook replaced by a _CountingHook of it while the test runs."""
    xp.ones(1).rename("a")  # (names installed their handler)
    hook = _array.HOOK[0]
    c = _array.HOOK[0] = _CountingHook(hook)
    try:
        yield c
    finally:
        _array.HOOK[0] = hook


HOT = ["x + y", "x + v", "xp.exp(x)", "x * 2.0", "xp.sum(x, axis='c')", "xp.sum(x, axis=1)",
       "xp.sum(x, axis='c', keepdims=True)", "xp.sum(x)", "xp.sum(x, axis='c', dtype=xp.float64)",
       "xp.var(x, axis='r', correction=1)", "xp.max(x, axis=('r', 'c'))", "x.T", "x.mT",
       "x[1:3]", "x[1]", "x[1:3, 0]", "xp.permute_dims(x, (1, 0))", "x.permute(1, 0)",
       "x.permute((1, 0))", "xp.expand_dims(x, axis=0)", "x.unsqueeze(1)",
       "xp.reshape(x, (12,))", "x.reshape(12)", "x.contiguous()", "x.permute('c', 'r')",
       "xp.permute_dims(x, ('c', 0))", "x.transpose(0, 1)", "x.rename('a', 'b')",
       "x.rename(None)", "x.refine_names('r', 'c')", "xp.squeeze(w, axis=0)", "xp.squeeze(w, 0)",
       "x.flatten(0, 1)", "xp.flatten(x, 0, 1)", "x.unflatten(1, (2, 2))",
       "xp.expand_dims(x, axis=(0, 2))", "xp.sum(x, axis=('c', 0))", "x.align_to('c', 'r')",
       "x.align_to('c', 'h', 'r')", "x.align_to(..., 'r')"]


@pytest.mark.skipif(not COMPILED, reason="the compiled hot path is not built (or STRIDED_NO_CEXT=1)")
@pytest.mark.parametrize("expr", HOT)
def test_a_seen_call_on_named_arrays_takes_the_compiled_path(expr, counting):
    ns = {"xp": xp, "x": xp.reshape(xp.arange(12.0), (3, 4)).rename("r", "c"),
          "y": xp.ones((3, 4)).rename("r", "c"), "v": xp.ones(4).rename("c"),
          "w": xp.ones((1, 4)).rename("o", "c")}
    expect = eval(expr, ns)  # the first sight: the Python path caches the outcome
    del counting.calls[:]
    got = eval(expr, ns)
    assert counting.calls == []
    assert got is not ns["x"] or expect is ns["x"]
    assert got.names == expect.names and got.shape == expect.shape and got.dtype == expect.dtype
    assert got.stride() == expect.stride() and got.storage_offset() == expect.storage_offset()
    assert np.array_equal(np.asarray(got), np.asarray(expect))


@pytest.mark.skipif(not COMPILED, reason="the compiled hot path is not built (or STRIDED_NO_CEXT=1)")
def test_differing_names_broadcast_in_c_only_where_auto_align_changes_nothing(counting):
    x = xp.ones((2, 3)).rename("n", "c")
    y = xp.ones((3, 2)).rename("c", "n")
    z = xp.ones(3).rename("c")
    for _ in range(2):
        with pytest.raises(xp.named.DimensionNameError, match="do not match"):
            x + y
        assert (x + z).names == ("n", "c")
        with xp.named.auto_align():
            got = x + y  # aligned by name: y transposed
            assert (x + z).names == ("n", "c")
        assert got.names == ("n", "c") and got.shape == (2, 3)
    del counting.calls[:]
    x + z
    assert counting.calls == []  # seen, auto_align() off: the compiled path
    with xp.named.auto_align():
        assert (x + z).names == ("n", "c")  # X + bias: lining up by name changes nothing,
        assert counting.calls == []        # so the compiled path answers under either setting
        x + y
        assert (z + x).names == ("c", "n")  # (the bias first: lined up in its order of names)
    assert counting.calls == ["add", "add"]  # lining up by name is the handler's, always


# --- outcomes against an independent reference ----------------------------------------------

def _np_sum(a, names, axis, keepdims):
    pos = tuple(names.index(n) if isinstance(n, str) else n for n in
                (axis if isinstance(axis, tuple) else (axis,)))
    out_names = names if keepdims else tuple(n for i, n in enumerate(names) if i not in pos)
    return np.sum(a, axis=pos, keepdims=keepdims), out_names


@settings(max_examples=60, deadline=None, database=None)
@given(st.permutations(["a", "b", "c"]), st.sampled_from([("a",), ("b", "c"), ("c", "a"), "b", 0]),
       st.booleans())
def test_reductions_by_name_match_numpy_after_renames(order, axis, keepdims):
    """Arrays of the same ndim with the same names in other orders, reduced over the same
    names, three times each: the cached outcome of one order never serves another."""
    a = np.arange(24.0).reshape(2, 3, 4)
    for names in (tuple(order), tuple(reversed(order))):
        x = xp.asarray(a).rename(*names)
        ref, ref_names = _np_sum(a, names, axis, keepdims)
        for _ in range(3):
            got = xp.sum(x, axis=axis, keepdims=keepdims)
            assert got.names == ref_names and np.array_equal(np.asarray(got), ref)


def test_views_by_name_match_numpy_after_renames():
    a = np.arange(12.0).reshape(3, 4)
    for names in (("r", "c"), ("c", "r"), ("r", None), ("x", "y")):
        x = xp.asarray(a).rename(*names)
        for _ in range(3):
            assert x.T.names == names[::-1] and np.array_equal(np.asarray(x.T), a.T)
            assert x[1:].names == names and np.array_equal(np.asarray(x[1:]), a[1:])
            assert x[1].names == names[1:] and np.array_equal(np.asarray(x[1]), a[1])
            assert x[:, 2].names == names[:1]
            assert xp.expand_dims(x, axis=1).names == (names[0], None, names[1])
            assert xp.reshape(x, (12,)).names == (None,)
