"""The ``size=`` keyword of ``rand`` / ``randn`` and the ``low=`` / ``high=`` / ``size=``
keywords of ``randint`` against PyTorch 2.13: shapes, dtypes, ``requires_grad``, ``out=``, the
distributions (statistically: the same distribution as PyTorch, not the same numbers), and
PyTorch's TypeErrors for a bad or doubled size."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (compared with PyTorch on the CPU: the default device is the CPU on every leg)
pytestmark = [pytest.mark.host_pinned, pytest.mark.usefixtures("on_cpu")]

import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

LIBS = (torch, st)


def describe(r):
    return (tuple(r.shape), str(r.dtype).split(".")[-1], r.requires_grad)


FORMS = [
    ("rand", dict(size=(2, 3))),
    ("rand", dict(size=[4])),
    ("rand", dict(size=())),
    ("rand", dict(size=(2, 0, 3), dtype="float64")),
    ("randn", dict(size=(3, 2))),
    ("randn", dict(size=[5], dtype="float64", requires_grad=True)),
    ("randint", dict(high=5, size=(3,))),
    ("randint", dict(low=2, high=9, size=(2, 2))),
    ("randint", dict(low=-3, high=4, size=[6], dtype="int32")),
]


@pytest.mark.parametrize("i", range(len(FORMS)))
def test_size_keyword_shapes_and_dtypes(i):
    name, kw = FORMS[i]
    out = []
    for lib in LIBS:
        k = dict(kw)
        if "dtype" in k:
            k["dtype"] = getattr(lib, k["dtype"])
        out.append(describe(getattr(lib, name)(**k)))
    assert out[0] == out[1]


def test_size_keyword_with_size_object_generator_and_out():
    for lib in LIBS:
        g = lib.Generator().manual_seed(3)
        assert tuple(lib.rand(size=lib.Size([2, 3]), generator=g).shape) == (2, 3)
        o = lib.empty(2, 3)
        r = lib.randn(size=(2, 3), out=o)
        assert r is o
    g1, g2 = st.Generator().manual_seed(5), st.Generator().manual_seed(5)
    np.testing.assert_array_equal(to_numpy(st.rand(size=(4,), generator=g1)),
                                  to_numpy(st.rand(4, generator=g2)))


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_size_keyword_distribution(name):
    a = to_numpy(getattr(st, name)(size=(20000,), dtype=st.float64))
    if name == "rand":
        assert a.min() >= 0 and a.max() < 1
        assert abs(a.mean() - 0.5) < 0.01 and abs(a.var() - 1 / 12) < 0.005
    else:
        assert abs(a.mean()) < 0.03 and abs(a.std() - 1) < 0.03


def test_randint_keywords_bounds():
    for lib in LIBS:
        a = to_numpy(lib.randint(low=3, high=6, size=(3000,)))
        assert set(np.unique(a)) == {3, 4, 5}
        b = to_numpy(lib.randint(2, high=4, size=(2000,)))
        assert set(np.unique(b)) == {2, 3}
        c = to_numpy(lib.randint(high=2, size=(2000,)))
        assert set(np.unique(c)) == {0, 1}


ERRORS = [
    (lambda lib: lib.rand(size=2), "rand\\(\\): argument 'size' must be tuple of ints, not int"),
    (lambda lib: lib.randn(size=None), "argument 'size' must be tuple of ints, not NoneType"),
    (lambda lib: lib.rand(2, size=(3,)), "rand\\(\\) received an invalid combination of arguments"),
    (lambda lib: lib.randn(2, 3, size=None), "randn\\(\\) received an invalid combination"),
    (lambda lib: lib.rand(size=(2.0,)), "rand\\(\\): argument 'size' must be tuple of ints"),
    (lambda lib: lib.randint(5, size=3),
     "randint\\(\\): argument 'size' must be tuple of ints, not int"),
    (lambda lib: lib.randint(5, (3,), size=(3,)),
     "randint\\(\\) received an invalid combination of arguments"),
    (lambda lib: lib.randint(low=3, size=(2,)), "missing 2 required positional argument"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_size_keyword_errors(i):
    call, msg = ERRORS[i]
    for lib in LIBS:
        with pytest.raises(TypeError, match=msg):
            call(lib)
