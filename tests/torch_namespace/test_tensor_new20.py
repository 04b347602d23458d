"""``Tensor.new(...)`` (PyTorch's legacy constructor) against PyTorch 2.13: every form (no
arguments, sizes, ``size=``, a ``Size``, data as a list / tuple / range / NumPy array, an
array of the same dtype), the result's dtype, device, shape, values (where defined), that it
shares memory with an array argument and never requires grad, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# (compared with PyTorch on the CPU: the default device is the CPU on every leg)
pytestmark = pytest.mark.usefixtures("on_cpu")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402

LIBS = (torch, st)
DTYPES = ["float32", "float64", "int32", "int64", "bool"]


def base(lib, dtype, requires_grad=False):
    x = lib.ones(2, 3, dtype=getattr(lib, dtype))
    if requires_grad:
        x.requires_grad_(True)
    return x


def describe(r):
    return (tuple(r.shape), str(r.dtype).split(".")[-1], r.requires_grad, str(r.device))


# (forms whose values are uninitialized: compare shape, dtype, device, requires_grad)
SIZE_FORMS = {
    "none": lambda lib, x: x.new(),
    "ints": lambda lib, x: x.new(2, 3),
    "one_int": lambda lib, x: x.new(4),
    "zero": lambda lib, x: x.new(2, 0),
    "numpy_int": lambda lib, x: x.new(np.int64(3)),
    "size_kw": lambda lib, x: x.new(size=(2, 3)),
    "size_obj": lambda lib, x: x.new(lib.Size([3, 1, 2])),
    "size_empty": lambda lib, x: x.new(lib.Size([])),
    "device": lambda lib, x: x.new(2, device="cpu"),
}

DATA_FORMS = {
    "list": lambda lib, x: x.new([1, 2]),
    "nested": lambda lib, x: x.new([[1.5, -2.0], [3.0, 4.25]]),
    "tuple": lambda lib, x: x.new((2, 3)),
    "empty_tuple": lambda lib, x: x.new(()),
    "empty_list": lambda lib, x: x.new([]),
    "range": lambda lib, x: x.new(range(3)),
    "numpy": lambda lib, x: x.new(np.array([1.0, 0.0, 2.5])),
    "bools": lambda lib, x: x.new([True, False]),
    "device": lambda lib, x: x.new([1, 0], device="cpu"),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", sorted(SIZE_FORMS))
@pytest.mark.parametrize("requires_grad", [False, True])
def test_new_size_forms(dtype, form, requires_grad):
    if requires_grad and dtype not in ("float32", "float64"):
        return
    got = describe(SIZE_FORMS[form](st, base(st, dtype, requires_grad)))
    ref = describe(SIZE_FORMS[form](torch, base(torch, dtype, requires_grad)))
    assert got == ref


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", sorted(DATA_FORMS))
def test_new_data_forms(dtype, form):
    got = DATA_FORMS[form](st, base(st, dtype))
    ref = DATA_FORMS[form](torch, base(torch, dtype))
    assert describe(got) == describe(ref)
    np.testing.assert_array_equal(to_numpy(got), to_numpy(ref))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("shape,strides", [((3,), None), ((2, 3), None), ((3, 2), "t"), ((), None)])
def test_new_from_an_array_shares_memory(dtype, shape, strides):
    res = []
    for lib in LIBS:
        a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape[::-1] if strides else shape)
        t = torch.from_numpy(a.copy()) if lib is torch else strided.asarray(a.copy())
        if strides:
            t = t.t()
        if dtype != "int64":
            t.requires_grad_(True)
        r = base(lib, dtype).new(t)
        assert r.requires_grad is (dtype != "int64")
        if r.requires_grad:
            w = np.asarray(np.arange(r.numel(), dtype=dtype).reshape(tuple(r.shape)) + 1)
            (r * (torch.from_numpy(w) if lib is torch else strided.asarray(w))).sum().backward()
            leaf = t if t.is_leaf else None
            g = to_numpy(leaf.grad).copy() if leaf is not None else None
        else:
            g = None
        with lib.no_grad():
            r.add_(1) if r.ndim else r.fill_(7)
        res.append((describe(r), to_numpy(t).copy(), to_numpy(r).copy(), g))
    assert res[0][0] == res[1][0]
    if res[0][3] is not None:
        np.testing.assert_array_equal(res[1][3], res[0][3])
    np.testing.assert_array_equal(res[1][1], res[0][1])  # (written through the shared memory)
    np.testing.assert_array_equal(res[1][2], res[0][2])


ERRORS = [
    (lambda lib, x: x.new(lib.ones(2, dtype=lib.int32)), TypeError, None),
    (lambda lib, x: x.new(2, dtype=lib.float32), TypeError, "invalid combination of arguments"),
    (lambda lib, x: x.new(2, requires_grad=True), TypeError, "invalid combination of arguments"),
    (lambda lib, x: x.new(lib.ones(2, dtype=lib.float64), 2), TypeError,
     "invalid combination of arguments"),
    (lambda lib, x: x.new([1], [2]), TypeError, "invalid combination of arguments"),
    (lambda lib, x: x.new(2, 3.0), TypeError, "argument 'size'"),
    (lambda lib, x: x.new(2.5), TypeError, "new\\(\\): data must be a sequence \\(got float\\)"),
    (lambda lib, x: x.new(True), TypeError, "new\\(\\): data must be a sequence \\(got bool\\)"),
    (lambda lib, x: x.new("ab"), TypeError, "new\\(\\): invalid data type 'str'"),
    (lambda lib, x: x.new([1 + 2j]), TypeError, "must be real number, not complex"),
    (lambda lib, x: x.new(-1), RuntimeError,
     "Trying to create tensor with negative dimension -1: \\[-1\\]"),
    (lambda lib, x: x.new(2, -3), RuntimeError, "negative dimension -3"),
    (lambda lib, x: x.new(2, device="meta"), RuntimeError,
     "legacy constructor expects device type: cpu but device type: meta was passed"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_new_errors(i):
    call, exc, msg = ERRORS[i]
    for lib in LIBS:
        with pytest.raises(exc, match=msg):
            call(lib, base(lib, "float64"))


def test_new_keeps_the_arrays_device():
    # (every device strided has here: the CPU, and CUDA where there is one or its stand-in)
    devices = ["cpu"] + (["cuda"] if st.cuda.is_available() else [])
    for dev in devices:
        x = st.ones(2, dtype=st.float64, device=dev)
        for r in (x.new(), x.new(2, 3), x.new([1.0, 2.0]), x.new((1, 2)), x.new(size=(2,)),
                  x.new(st.zeros(2, dtype=st.float64, device=dev))):
            assert r.device == x.device and r.dtype == x.dtype
        assert x.new(2, device=dev).device == x.device
        np.testing.assert_array_equal(to_numpy(x.new([[1, 2]])), [[1.0, 2.0]])
