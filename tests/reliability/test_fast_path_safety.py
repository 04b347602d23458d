"""The fast paths are the reference, faster -- never different (issue 29, issue 27 item 2).

One test per defect a hostile review found in the compiled hot path
(strided/_csrc/_chot.c) and in temporary elision (_elementwise._elide):

- elision overwrote an array the user still held: ``xp.add(*args)``,
  ``functools.partial(xp.add, t)``, ``itertools.starmap``, ``ThreadPool.starmap``
  (the only reference is a container's, borrowed by the call), and NumPy's object
  loop (``o + 1.0`` on an object array: ``PyNumber_Add`` on a borrowed item), in
  both paths;
- elision dropped autograd and names when the *other* operand carried them;
- the C entry points trusted Array's slots: ``object.__new__(Array) @ itself``,
  ``del x._dtype; x + 1`` and ``x._dtype = 5; x + 1`` crashed the interpreter.

The crash cases run in subprocesses, so a segfault fails the test instead of
killing pytest, and each runs both with the compiled paths and with
``STRIDED_NO_CEXT=1``: the two must give the same error.
"""

from __future__ import annotations

import functools
import itertools
import os
import subprocess
import sys
import textwrap
from multiprocessing.pool import ThreadPool

import numpy as np
import pytest

import strided as xp
from strided._api import elementwise
from strided._api.elementwise import ROWS
from strided._core import dispatch

N = 200_000  # float64: 1.6 MB, above the compiled path's elide-first size (ELIDE_FIRST_FROM, 1 MiB)
assert N * 8 > elementwise._ELIDE_BYTES

COMPILED = elementwise.COMPILED
ELISION = COMPILED and dispatch.CHOT.elision_state()[0]


def _elided_in_c() -> int:
    """Calls elided by the compiled loop so far (0 without the compiled path)."""
    return dispatch.CHOT.elided_calls() if COMPILED else 0


def host(x) -> np.ndarray:
    return np.array(x._host(), copy=True)


def bits(a) -> bytes:
    return np.ascontiguousarray(a).tobytes()


# Each binary row with operands it takes: a temporary maker and the other operand.
def _operands(row):
    for dt, vals in ((xp.float64, (1.5, 0.25)), (xp.int64, (6, 3)), (xp.bool, (True, False))):
        try:
            row.func(xp.ones(2, dtype=dt), xp.ones(2, dtype=dt))
        except TypeError:
            continue
        a = xp.full(N, vals[0], dtype=dt)
        b = xp.full(N, vals[1], dtype=dt)
        return dt, a, b
    raise AssertionError(f"no dtype for {row.name}")


BINARY = [r for r in ROWS if r.nargs == 2]


def _fresh(a):
    """A temporary: a kernel result that only the caller holds (800 KB)."""
    return xp.positive(a) if a.dtype != xp.bool else xp.logical_not(xp.logical_not(a))


# --- held arrays are never overwritten ------------------------------------------------------

@pytest.mark.parametrize("row", BINARY, ids=lambda r: r.name)
def test_star_args_leave_the_held_tuple_alone(row):
    dt, a, b = _operands(row)
    expect = host(row.func(a, b))
    for args in ((_fresh(a), b), (a, _fresh(b))):
        before = [bits(host(x)) for x in args]
        r = getattr(xp, row.name)(*args)
        assert [bits(host(x)) for x in args] == before, f"{row.name}(*args) overwrote args"
        assert bits(host(r)) == bits(expect)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "pow"])
def test_partial_starmap_map_and_threads_leave_the_held_arrays_alone(name):
    f = getattr(xp, name)
    a = xp.full(N, 1.5, dtype=xp.float64)
    want = bits(np.full(N, 1.5))
    p = functools.partial(f, _fresh(a))
    p(2.0)
    assert bits(host(p.args[0])) == want, "functools.partial"
    pairs = [(_fresh(a), 2.0), (2.0, _fresh(a))]
    list(itertools.starmap(f, pairs))
    assert [bits(host(t)) for t, _ in pairs[:1]] + [bits(host(t)) for _, t in pairs[1:]] == [want] * 2
    pairs = [(_fresh(a), 2.0) for _ in range(4)]
    with ThreadPool(2) as pool:
        pool.starmap(f, pairs)
    assert all(bits(host(t)) == want for t, _ in pairs), "ThreadPool.starmap"
    xs = [_fresh(a)]
    list(map(f, xs, [2.0]))
    assert bits(host(xs[0])) == want, "map"
    o = np.empty(1, object)
    o[0] = _fresh(a)
    np.frompyfunc(f, 2, 1)(o, 2.0)
    assert bits(host(o[0])) == want, "np.frompyfunc"


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "pow", "lt"])
def test_operator_module_calls_leave_the_held_arrays_alone(op):
    """``operator.add(*args)`` and ``partial(operator.add, t)``: the operator slot is
    called from C with a borrowed item (NumPy's own elision overwrites its arrays here:
    its check accepts any chain of CPython frames)."""
    import operator
    f = getattr(operator, op)
    a = xp.full(N, 1.5, dtype=xp.float64)
    want = bits(np.full(N, 1.5))
    args = (_fresh(a), 2.0)
    f(*args)
    assert bits(host(args[0])) == want
    args = (2.0, _fresh(a))
    f(*args)
    assert bits(host(args[1])) == want
    p = functools.partial(f, _fresh(a))
    p(2.0)
    assert bits(host(p.args[0])) == want


_OBJECT_LOOP = """
import numpy as np, strided as xp
a = xp.full({n}, 1.5, dtype=xp.float64)
bad = []
for op in ["+", "-", "*", "/", "//", "%", "**", "<", "=="]:
    for form in ["o {{op}} 1.0", "1.0 {{op}} o", "o {{op}} o2"]:
        o = np.empty(1, object); o[0] = xp.multiply(a, a)
        o2 = np.empty(1, object); o2[0] = xp.multiply(a, a)
        try:
            eval(form.format(op=op))
        except TypeError:  # comparisons: NumPy wants one bool per item
            pass
        if not (o[0]._host() == 2.25).all() or not (o2[0]._host() == 2.25).all():
            bad.append(form.format(op=op))
print("overwritten:", bad)
"""


def _run(code: str, no_cext: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ, STRIDED_NO_CEXT="1" if no_cext else "")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("no_cext", [False, True], ids=["compiled", "python"])
def test_numpy_object_loop_leaves_the_items_alone(no_cext):
    """``o + 1.0`` on an object array: NumPy's loop calls the operator with a borrowed item
    (refcount 1, as a temporary's), in both paths (a subprocess per path)."""
    p = _run(_OBJECT_LOOP.format(n=N), no_cext)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "overwritten: []"


def test_object_loop_here():
    a = xp.full(N, 1.5, dtype=xp.float64)
    o = np.empty(1, object)
    o[0] = xp.multiply(a, a)
    r = o + 1.0
    assert bits(host(o[0])) == bits(np.full(N, 2.25))
    assert bits(host(r[0])) == bits(np.full(N, 3.25))


# --- elision still happens where it is provably safe ---------------------------------------

def test_interpreter_temporaries_are_still_elided(monkeypatch):
    """``a * b + c`` and ``add(multiply(a, b), c)`` lend the temporary's buffer (compiled,
    where the C call-chain check is available; the Python definitions: the function form
    only). The held arrays are untouched."""
    seen = []
    orig = elementwise._elide

    def spy(*args):
        r = orig(*args)
        seen.append(r is not None)
        return r

    monkeypatch.setattr(elementwise, "_elide", spy)
    a, b, c = (xp.full(N, v, dtype=xp.float64) for v in (1.5, 2.0, 0.25))
    c0 = _elided_in_c()
    r1 = a * b + c
    r2 = xp.add(xp.multiply(a, b), c)
    r3 = 1.0 - a * b
    in_c = _elided_in_c() - c0
    assert bits(host(r1)) == bits(host(r2)) == bits(np.full(N, 3.25))
    assert bits(host(r3)) == bits(np.full(N, -2.0))
    for x, v in ((a, 1.5), (b, 2.0), (c, 0.25)):
        assert bits(host(x)) == bits(np.full(N, v))
    if ELISION:
        # each elided: by the compiled loop (_chot/fast.c, fast_binary_into) on the CPU, by the
        # Python half elsewhere (a device whose natives are not NumPy's: the stand-in's)
        assert in_c + seen.count(True) == 3 and False not in seen, (in_c, seen)
    elif not COMPILED and elementwise._TEMP_REFS_FUNC > 0:
        assert seen == [True]  # the Python function form


@pytest.mark.skipif(not COMPILED, reason="the compiled path is not built (or STRIDED_NO_CEXT=1)")
def test_elision_is_on_where_the_check_is_sound():
    on, chains, why = dispatch.CHOT.elision_state()
    if sys.platform.startswith("linux") and (3, 10) <= sys.version_info < (3, 14):
        assert on and chains > 0, why
    else:  # pragma: no cover
        assert on or why.startswith("off")


# --- autograd and names are kept ------------------------------------------------------------

@pytest.mark.parametrize("form", ["function", "operator", "reflected", "temporary-second"])
def test_elision_keeps_the_other_operands_graph(form):
    a = xp.zeros(N, dtype=xp.float64)
    w = xp.ones(N, dtype=xp.float64)
    w.requires_grad_(True)
    if form == "function":
        y = xp.add(xp.exp(a), w)
    elif form == "operator":
        y = xp.exp(a) + w
    elif form == "reflected":
        y = w + xp.exp(a)
    else:
        y = xp.add(w, xp.exp(a))
    assert y.grad_fn is not None and y.requires_grad
    loss = (y * 3.0).sum()
    loss.backward()
    assert (host(w.grad) == 3.0).all()  # 2.0 when the add was elided into exp(a)'s buffer
    assert bits(host(y)) == bits(np.full(N, 2.0))


@pytest.mark.parametrize("form", ["function", "operator", "reflected"])
def test_elision_keeps_the_other_operands_names(form):
    a = xp.zeros((400, 250), dtype=xp.float64)
    n = xp.ones((400, 250), dtype=xp.float64).rename("rows", "cols")
    if form == "function":
        y = xp.add(xp.exp(a), n)
    elif form == "operator":
        y = xp.exp(a) + n
    else:
        y = n + xp.exp(a)
    assert y.names == ("rows", "cols")
    assert bits(host(y)) == bits(np.full((400, 250), 2.0))


def test_a_weakly_referenced_temporary_is_not_elided(monkeypatch):
    import weakref
    seen = []
    orig = elementwise._elide
    monkeypatch.setattr(elementwise, "_elide", lambda *a: seen.append(orig(*a)) or seen[-1])
    a = xp.full(N, 1.5, dtype=xp.float64)
    refs = []

    def tracked():
        t = xp.multiply(a, a)
        refs.append(weakref.ref(t))
        return t

    c0 = _elided_in_c()
    r1 = xp.add(tracked(), 1.0)
    r2 = tracked() + 1.0
    assert bits(host(r1)) == bits(host(r2)) == bits(np.full(N, 3.25))
    assert not any(r is not None for r in seen)
    assert _elided_in_c() == c0


# --- the C entry points check what they read (contract.h) -----------------------------------

_CONTRACT_CASES = r'''
import numpy as np, strided as xp
from strided._api import elementwise as E
from strided._api import linalg_functions as L
def bare():
    return object.__new__(xp.Array)
def ones(*shape):
    return xp.ones(shape, dtype=xp.float64)
def named_broken(how, slot, fn, *value):
    x = ones(2, 3).rename("a", "b")
    how(x._ext, slot, *value)
    return fn(x)
def broken(slot, value=None, delete=False, shape=(2, 3)):
    x = ones(*shape)
    if delete:
        delattr(x, slot)
    else:
        setattr(x, slot, value)
    return x
cases = {
    "bare @ bare": lambda: bare() @ bare(),
    "bare + 1": lambda: bare() + 1,
    "1 - bare": lambda: 1 - bare(),
    "exp(bare)": lambda: xp.exp(bare()),
    "add(bare, bare)": lambda: xp.add(bare(), bare()),
    "where(bare, ...)": lambda: xp.where(bare(), ones(2), ones(2)),
    "bare[0]": lambda: bare()[0],
    "bare.T": lambda: bare().T,
    "bare.mT": lambda: bare().mT,
    "reshape(bare)": lambda: xp.reshape(bare(), (2,)),
    "sum(bare)": lambda: xp.sum(bare()),
    "del _dtype; x + 1": lambda: broken("_dtype", delete=True) + 1,
    "_dtype = 5; x + 1": lambda: broken("_dtype", 5) + 1,
    "_dtype = 5; exp": lambda: xp.exp(broken("_dtype", 5)),
    "_dtype = 5; x @ x": lambda: (lambda x: x @ x)(broken("_dtype", 5, shape=(2, 2))),
    "_dtype = 5; x[0]": lambda: broken("_dtype", 5)[0],
    "_dtype = np float64; x + 1": lambda: broken("_dtype", np.dtype("float64")) + 1,
    "_shape = list; x + 1": lambda: broken("_shape", [2, 3]) + 1,
    "_shape = list; x[0]": lambda: broken("_shape", [2, 3])[0],
    "_shape bad items; exp": lambda: xp.exp(broken("_shape", (2, "a"))),
    "del _shape; x.T": lambda: broken("_shape", delete=True).T,
    "_str = 5; x[0]": lambda: broken("_str", 5)[0],
    "del _str; contiguous": lambda: broken("_str", delete=True).contiguous(),
    "_off = 1.5; x[0]": lambda: broken("_off", 1.5)[0],
    "del _off; reshape": lambda: xp.reshape(broken("_off", delete=True), (6,)),
    "_device = 'cpu'; x + 1": lambda: broken("_device", "cpu") + 1,
    "del _device; x + x": lambda: (lambda x: x + x)(broken("_device", delete=True)),
    "_np = 5; x + 1": lambda: broken("_np", 5) + 1,
    "del _np; x * 2": lambda: broken("_np", delete=True) * 2,
    "_st = 5; x[0]": lambda: broken("_st", 5)[0],
    "del _st; x.T": lambda: broken("_st", delete=True).T,
    "del _ext; sum": lambda: xp.sum(broken("_ext", delete=True)),
    "del _ext; x + 1": lambda: broken("_ext", delete=True) + 1,
    "del _ext; concat": lambda: xp.concat([ones(2), broken("_ext", delete=True, shape=(2,))]),
    "_ext = 5; x + 1": lambda: broken("_ext", 5) + 1,
    "named, del names; x + 1": lambda: named_broken(delattr, "names", lambda x: x + 1),
    "named, names = 5; exp": lambda: named_broken(setattr, "names", xp.exp, 5),
    "named, del requires_grad; sum(axis)": lambda: named_broken(
        delattr, "requires_grad", lambda x: xp.sum(x, axis="a")),
}
def restoring(obj, attr, value, fn):
    old = getattr(obj, attr)
    try:
        if value is None:
            delattr(obj, attr)
        else:
            setattr(obj, attr, value)
        return fn()
    finally:
        setattr(obj, attr, old)
cases.update({
    "DType _index = 'a'": lambda: restoring(xp.float64, "_index", "a", lambda: ones(2) + 1),
    "DType del itemsize": lambda: restoring(xp.float64, "itemsize", None, lambda: ones(2) * ones(2)),
    "DType del _np": lambda: restoring(xp.float64, "_np", None, lambda: xp.exp(ones(2))),
    "pool list emptied": lambda: _pool_emptied(),
})
def _pool_emptied():
    saved = list(E._BIG)
    E._BIG.clear()
    try:
        return ones(2) + 1
    finally:
        E._BIG.extend(saved)
for name, fn in cases.items():
    try:
        r = fn()
        if isinstance(r, tuple):
            r = r[-1]
        out = "ok " + (str(r.dtype) + " " + str(tuple(r.shape)) + " " + repr(r._host().tolist())
                       if isinstance(r, xp.Array) else type(r).__name__)
    except Exception as e:
        out = type(e).__name__ + ": " + str(e)
    print(name, "->", out, flush=True)
print("done")
'''


@pytest.fixture(scope="module")
def contract_runs():
    compiled = _run(_CONTRACT_CASES, no_cext=False)
    python = _run(_CONTRACT_CASES, no_cext=True)
    return compiled, python


def test_broken_arrays_raise_the_python_error_and_never_crash(contract_runs):
    compiled, python = contract_runs
    assert python.returncode == 0, python.stderr
    assert compiled.returncode == 0, (f"the compiled path died (signal {-compiled.returncode}) "
                                      f"after:\n{compiled.stdout[-2000:]}\n{compiled.stderr[-2000:]}")
    c, p = compiled.stdout.splitlines(), python.stdout.splitlines()
    assert c[-1] == "done"
    for lc, lp in zip(c, p):
        assert lc == lp, f"compiled {lc!r} != Python {lp!r}"
    assert len(c) == len(p)


@pytest.mark.parametrize("case, error", [
    ("x = object.__new__(xp.Array); x @ x", "AttributeError"),
    ("x = xp.ones(3); del x._dtype; x + 1", "AttributeError"),
    ("x = xp.ones(3); x._dtype = 5; x + 1", "AttributeError"),
])
def test_the_reviews_crash_cases(case, error):
    code = f"import strided as xp\ntry:\n    {case}\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
    outs = []
    for no_cext in (False, True):
        p = _run(code, no_cext)
        assert p.returncode == 0, f"{'python' if no_cext else 'compiled'}: exit {p.returncode}\n{p.stderr}"
        outs.append(p.stdout)
    assert outs[0] == outs[1] and outs[0].startswith(error)


@pytest.mark.skipif(not COMPILED, reason="the compiled path is not built (or STRIDED_NO_CEXT=1)")
def test_setup_refuses_other_classes():
    chot = dispatch.CHOT
    from strided._core.device import Device
    from strided._core.dtypes import DType
    from strided._core.storage import Storage

    class Other:
        __slots__ = ("_np",)

    with pytest.raises(TypeError):
        chot.setup_array(Other, DType, Storage, Device)
    with pytest.raises(TypeError):
        chot.setup_array(xp.Array, Other, Storage, Device)
    chot.setup_array(xp.Array, DType, Storage, Device)  # the same classes again: fine


# --- found by the differential test ---------------------------------------------------------

@pytest.mark.parametrize("form", ["operator", "reflected", "function"])
def test_a_temporary_that_cannot_broadcast_raises_the_reference_error(form):
    """The elision's own broadcast check raised ``shapes (3, 4), (256, 160) cannot be
    broadcast together``; the reference path names the function: the same error now."""
    small = xp.ones((3, 4), dtype=xp.float64)
    big = xp.ones((256, 160), dtype=xp.float64)
    with pytest.raises(ValueError, match=r"^add\(\): operands of shapes \(3, 4\) and \(256, 160\) "
                                         r"cannot be broadcast together$"):
        if form == "operator":
            small + (big - big)
        elif form == "reflected":
            small + (2.0 - big)
        else:
            xp.add(small, xp.subtract(big, big))
