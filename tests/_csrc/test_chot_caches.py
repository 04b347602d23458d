"""The compiled caches (strided/_csrc/_chot/names.c, and the views' name
caches) against the Python definitions they stand in front of, for the arguments a cache
must not answer for, and the errors a C path must not swallow.

- A cache key is compared by identity or exact type, never by calling user code: a user
  ``__eq__`` that renames again inside the comparison (it freed the key being compared:
  a crash, or another call's names) and ``np.str_`` names (equal to a cached ``str``,
  refused by the Python path) behave as the Python path says, whatever was cached before.
- A C path clears only the errors it expects: a KeyboardInterrupt or MemoryError raised
  by Python code a C path calls (here: while a native view is built) propagates, once,
  exactly as from the Python definition.

These run with and without the C extension (STRIDED_NO_CEXT=1): the outcome asked for is
the Python definition's either way.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import strided as xp
from strided._api import elementwise as E
from strided._core import array as _array_mod
from strided.named import _core as named_core

SRC = os.path.dirname(os.path.dirname(os.path.abspath(xp.__file__)))  # (the strided under test)


def _python_path(method):
    """The Python definition behind a (possibly compiled) Array method."""
    return getattr(method, "__wrapped__", method)


def _outcome(fn, *args):
    """('names', names) or ('raises', exception type) of fn(*args)."""
    try:
        return ("names", fn(*args).names)
    except Exception as e:  # (the outcome compared is the exception's type)
        return ("raises", type(e))


# --- a user __eq__ inside a cache comparison ------------------------------------------

# x.rename("c", "d") twice leaves ("c", "d") as the call site's last key. The next call's
# first name is an object whose __eq__ renames x again: that replaced (and freed) the key
# being compared, and reuses its memory for tuples whose items are then freed. Under
# PYTHONMALLOC=debug the freed memory is poisoned: reading it crashed (SIGSEGV, every run).
_REENTRANT = textwrap.dedent("""
    import strided as xp
    x = xp.ones(2, 3, names=["a", "b"])
    for s in [{other}, {last}]:
        x.{op}(*s); x.{op}(*s)
    class Evil:
        calls = 0
        def __eq__(self, other):
            Evil.calls += 1
            x.{op}(*{other})
            t = [(1, object()) for i in range(50)]
            del t
            return True
        __hash__ = object.__hash__
    try:
        r = x.{op}(Evil(), {last}[1])
        print("returned", r.names)
    except Exception as e:
        print(type(e).__name__, Evil.calls)
""")


@pytest.mark.parametrize("op,other,last", [("rename", ("e", "f"), ("c", "d")),
                                           ("align_to", ("b", "a"), ("a", "b"))])
def test_a_user_eq_that_renames_again_does_not_crash(op, other, last):
    env = dict(os.environ, PYTHONMALLOC="debug",
               PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-c", _REENTRANT.format(op=op, other=other, last=last)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    # the Python path: a name that is not a str is refused (rename: TypeError; align_to:
    # DimensionNameError), and nothing compares it with anything
    want = _outcome(_python_path(getattr(xp.Array, op)), xp.ones(2, 3, names=["a", "b"]), object(), last[1])
    assert want[0] == "raises"
    assert p.stdout.split() == [want[1].__name__, "0"], p.stdout


class _EqualTo:
    """Hashes and compares equal to a str, and counts the comparisons."""

    calls = 0

    def __init__(self, s):
        self.s = s

    def __eq__(self, other):
        type(self).calls += 1
        return other == self.s

    def __hash__(self):
        return hash(self.s)


@pytest.mark.parametrize("op,start,names", [("rename", ["a", "b"], ("c", "d")),
                                            ("refine_names", [None, None], ("c", "d")),
                                            ("align_to", ["a", "b"], ("a", "b"))])
def test_a_name_equal_to_a_cached_one_is_not_taken_for_it(op, start, names):
    """An object equal to "d" (hash and __eq__) is not the str "d": the cache primed with
    ("c", "d") must not answer for ("c", obj) (it answered with another call's names)."""
    x = xp.ones(2, 3, names=start)
    fn = getattr(xp.Array, op)
    for _ in range(2):  # primed: a hit, and the call site's last key
        fn(x, *names)
    _EqualTo.calls = 0
    got = _outcome(fn, x, names[0], _EqualTo(names[1]))
    got_calls, _EqualTo.calls = _EqualTo.calls, 0
    want = _outcome(_python_path(fn), xp.ones(2, 3, names=start), names[0], _EqualTo(names[1]))
    assert got == want
    assert want[0] == "raises"
    assert got_calls == _EqualTo.calls  # (no comparison of the compiled path's own)


# --- np.str_ names: the same answer whether or not the cache was primed ------------------

NAME_CALLS = [
    ("rename", ("p", "q")),
    ("rename", ("p", None)),
    ("rename", (..., "q")),
    ("refine_names", ("p", "q")),
    ("align_to", ("b", "a")),
    ("align_to", ("b", "z", "a")),
    ("align_to", (..., "a")),
]


def _with_np_str(names, i):
    return tuple(np.str_(n) if j == i and type(n) is str else n for j, n in enumerate(names))


@pytest.mark.parametrize("op,names", NAME_CALLS)
def test_np_str_names_do_not_depend_on_history(op, names):
    start = ["a", "b"] if op != "refine_names" else [None, None]
    fn = getattr(xp.Array, op)
    for i, n in enumerate(names):
        if type(n) is not str:
            continue
        odd = _with_np_str(names, i)
        fresh = _outcome(fn, xp.ones(2, 3, names=start), *odd)  # nothing cached for it
        reference = _outcome(_python_path(fn), xp.ones(2, 3, names=start), *odd)
        x = xp.ones(2, 3, names=start)
        for _ in range(2):
            fn(x, *names)  # the same call with str names, cached (and the last key)
        primed = _outcome(fn, x, *odd)
        assert fresh == reference, (odd, fresh, reference)
        assert primed == reference, (odd, primed, reference)


def test_np_str_names_are_refused_by_the_python_path():
    """The reference the tests above compare with: a dimension name is a str or None,
    exactly (strided.named's rule; np.str_ is a str subclass)."""
    with pytest.raises(TypeError):
        _python_path(xp.Array.rename)(xp.ones(2, 3, names=["a", "b"]), np.str_("p"), "q")


def test_the_view_name_cache_holds_only_plain_keys():
    """What the compiled views may find: every key the Python side caches is made of
    exact strs, None, Ellipsis and ints (so comparing one runs no user code)."""
    x = xp.ones(2, 3, names=["a", "b"])
    for _ in range(2):
        x.rename("p", "q"), x.align_to("b", "a"), x.refine_names(..., "b"), x[0], x.T
    plain = (str, int, type(None), type(Ellipsis))

    def ok(v, depth=0):
        if type(v) is tuple:
            return depth < 3 and all(ok(u, depth + 1) for u in v)
        return type(v) in plain

    assert named_core.VIEW_NAMES
    assert all(ok(k) for k in named_core.VIEW_NAMES), [k for k in named_core.VIEW_NAMES if not ok(k)]


# --- errors a C path did not raise propagate ---------------------------------------------

def _raise_once(monkeypatch, exc):
    """Make building a native view (array._native, which Array._get_native calls: the C
    path through its nat callback, elementwise._nat, the Python path directly) raise exc
    the first time."""
    real, calls = _array_mod._native, []

    def once(*args):
        calls.append(1)
        if len(calls) == 1:
            raise exc("arrived while a native view was built")
        return real(*args)

    monkeypatch.setattr(_array_mod, "_native", once)
    return calls


@pytest.mark.parametrize("exc", [KeyboardInterrupt, MemoryError])
@pytest.mark.parametrize("path", ["namespace", "python definition"])
def test_an_interrupt_while_a_native_is_built_propagates(monkeypatch, exc, path):
    fn = xp.exp if path == "namespace" else _python_path(xp.exp)
    # (a view whose native is built on first use, in Python: a zero stride, which the
    # compiled builder, views.c native_build, leaves to array._native)
    v = xp.broadcast_to(xp.arange(4.0, device="cpu"), (3, 4)).mT
    assert v._np is None
    calls = _raise_once(monkeypatch, exc)
    with pytest.raises(exc):
        fn(v)
    assert len(calls) == 1  # raised once, and nothing ran the call a second time
    monkeypatch.undo()
    np.testing.assert_allclose(np.asarray(fn(v)), np.exp(np.broadcast_to(np.arange(4.0), (3, 4)).T))


@pytest.mark.parametrize("exc", [KeyboardInterrupt, MemoryError])
def test_an_interrupt_in_a_binary_call_propagates(monkeypatch, exc):
    a = xp.broadcast_to(xp.arange(3.0, device="cpu"), (2, 3)).mT  # (built in Python: a zero stride)
    b = xp.ones((3, 2), device="cpu")
    calls = _raise_once(monkeypatch, exc)
    with pytest.raises(exc):
        a + b
    assert len(calls) == 1


@pytest.mark.parametrize("exc", [KeyboardInterrupt, MemoryError])
def test_an_interrupt_in_a_named_call_propagates(monkeypatch, exc):
    # (a zero stride: its native view is built in Python, where the error is raised)
    x = xp.broadcast_to(xp.ones(3, device="cpu"), (2, 3)).refine_names("a", "b")
    for _ in range(2):
        xp.exp(x.mT)  # the name outcome cached: the compiled named path answers
    v = x.mT
    calls = _raise_once(monkeypatch, exc)
    with pytest.raises(exc):
        xp.exp(v)
    assert len(calls) == 1
