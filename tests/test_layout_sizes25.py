"""A CPU elementwise result has the layout NumPy's own call gives, at every size.

Below the buffer pool's threshold (256 KiB) a result takes NumPy's layout
(``layout.elementwise_order``: where the operands disagree about order, row-major wins);
from it on the large path (``elementwise.large_ufunc``: pooled buffer, threads) once laid
the result out in the axis order of the first largest operand instead, so ``a.T + b``
was row-major at 100x100 and column-major at 400x400. Here every case runs on both
sides of that threshold and of the thread threshold (2 MiB), with the thread pool on and
with one thread: the result's strides (in elements) and bits equal NumPy's for the same
call on the same NumPy arrays. On a leg whose default device is another one (``cuda`` over
the CuPy stand-in, whose kernels write row-major results and ``KeepOrder`` transposes around
them by the same rule) the same calls there have the CPU's strides and bits.
"""

import numpy as np
import pytest

import strided as st

DEV = st.asarray(0).device
CPU = st.asarray(0, device="cpu").device

# (shape of the result, dtype): both sides of 256 KiB, and above 2 MiB (the threads)
SIZES = [
    ((100, 100), np.float64),     # 80 KB
    ((200, 200), np.float64),     # 320 KB
    ((400, 400), np.float64),     # 1.3 MB
    ((1000, 300), np.float32),    # 1.2 MB
    ((1000, 1000), np.float64),   # 8 MB: split on the threads
    ((20, 30, 40), np.float64),   # 192 KB
    ((40, 50, 60), np.float64),   # 960 KB
    ((100, 80, 60), np.float32),  # 1.9 MB
    ((120, 100, 60), np.float64),  # 5.8 MB
]


def _base(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(dtype)


def _inv(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


class Op:
    """One operand: a NumPy array and the same view of a strided array of the same values."""

    def __init__(self, base, perm=None, step=False):
        # base has the layout's shape; the view (``perm`` applied) has the result's shape
        self.base = base
        self.perm = perm
        self.step = step

    def make(self, xp, device=None):
        if xp is np:
            a = self.base
        else:
            a = st.asarray(self.base, device=device)
        if self.step:
            a = a[::2]
        if self.perm is not None:
            a = np.transpose(a, self.perm) if xp is np else st.permute_dims(a, self.perm)
        return a


def _permuted(shape, dtype, perm, seed, step=False):
    """An operand of ``shape`` that is ``perm`` of a C-contiguous array (sliced with a step
    along its first axis when ``step``)."""
    inv = _inv(perm)
    bshape = tuple(shape[i] for i in inv)
    if step:
        bshape = (bshape[0] * 2,) + bshape[1:]
    return Op(_base(bshape, dtype, seed), perm, step)


def _operands(shape, dtype):
    """(id, [operands]) of the binary calls: permuted operands against C-contiguous,
    permuted, broadcast, 0-d and Python scalar ones."""
    nd = len(shape)
    rev = tuple(range(nd - 1, -1, -1))
    rot = tuple(range(1, nd)) + (0,)  # 3-d: (1, 2, 0)
    swap_last = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    cases = [
        ("T+C", [_permuted(shape, dtype, rev, 1), Op(_base(shape, dtype, 2))]),
        ("C+T", [Op(_base(shape, dtype, 2)), _permuted(shape, dtype, rev, 1)]),
        ("T+T", [_permuted(shape, dtype, rev, 1), _permuted(shape, dtype, rev, 2)]),
        ("T+row", [_permuted(shape, dtype, rev, 1), Op(_base(shape[-1:], dtype, 3))]),
        ("T+col", [_permuted(shape, dtype, rev, 1),
                   Op(_base(shape[:1] + (1,) * (nd - 1), dtype, 4))]),
        ("T+0d", [_permuted(shape, dtype, rev, 1), Op(np.asarray(_base((), dtype, 5)))]),
        ("T+scalar", [_permuted(shape, dtype, rev, 1), 0.75]),
        ("stepT+C", [_permuted(shape, dtype, rev, 1, step=True), Op(_base(shape, dtype, 2))]),
        ("stepT+T", [_permuted(shape, dtype, rev, 1, step=True), _permuted(shape, dtype, rev, 2)]),
    ]
    if nd == 3:
        cases += [
            ("rot+C", [_permuted(shape, dtype, rot, 1), Op(_base(shape, dtype, 2))]),
            ("rot+swap", [_permuted(shape, dtype, rot, 1), _permuted(shape, dtype, swap_last, 2)]),
            ("swap+rot", [_permuted(shape, dtype, swap_last, 2), _permuted(shape, dtype, rot, 1)]),
            ("rot+rot", [_permuted(shape, dtype, rot, 1), _permuted(shape, dtype, rot, 2)]),
            ("rot+col", [_permuted(shape, dtype, rot, 1),
                         Op(_base(shape[:2] + (1,), dtype, 4))]),
        ]
    return cases


CASES = [pytest.param(shape, dtype, ops, id=f"{'x'.join(map(str, shape))}-{np.dtype(dtype).name}-{cid}")
         for shape, dtype in SIZES for cid, ops in _operands(shape, dtype)]

BINARY = ["add", "subtract", "multiply", "less", "maximum"]
CALLS = BINARY + ["exp", "where", "clip"]


def _call(xp, name, ops, device=None):
    args = [o.make(xp, device) if isinstance(o, Op) else o for o in ops]
    x, y = args
    if name in BINARY:
        return getattr(xp, name)(x, y)
    if name == "exp":
        return xp.exp(x)
    if name == "where":
        return xp.where(x > 0.25, x, y)
    if name == "clip":
        if isinstance(y, float):
            return xp.clip(x, -0.5, y)
        # an array bound (clip of arrays is a ufunc in NumPy too)
        return xp.clip(x, y, None) if xp is np else xp.clip(x, min=y)
    raise AssertionError(name)


@pytest.fixture(params=["default", 1], ids=["threads-default", "threads-1"])
def threads(request):
    old = st.get_num_threads()
    if request.param != "default":
        st.set_num_threads(request.param)
    yield st.get_num_threads()
    st.set_num_threads(old)


def _bits(a):
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "f":
        return a.view(np.dtype(f"u{a.dtype.itemsize}"))
    return a


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("shape,dtype,ops", CASES)
def test_result_layout_and_bits_are_numpys(shape, dtype, ops, name, threads):
    want = _call(np, name, ops)
    got = _call(st, name, ops, CPU)
    g = np.asarray(got)
    assert g.shape == want.shape and g.dtype == want.dtype
    wstrides = tuple(s // want.itemsize for s in want.strides)
    assert got.stride() == wstrides, (
        f"{name} at {shape} {np.dtype(dtype).name}: strided's strides {got.stride()}, "
        f"NumPy's {wstrides}")
    assert tuple(s // g.itemsize for s in g.strides) == wstrides
    np.testing.assert_array_equal(_bits(g), _bits(want))


@pytest.mark.skipif(DEV == CPU, reason="the default device is the CPU (the test above)")
@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("shape,dtype,ops", CASES)
def test_the_default_device_has_the_cpus_layout(shape, dtype, ops, name):
    cpu = _call(st, name, ops, CPU)
    got = _call(st, name, ops, DEV)
    assert got.device == DEV
    assert got.stride() == cpu.stride(), (
        f"{name} at {shape} {np.dtype(dtype).name}: strides on {DEV} {got.stride()}, "
        f"on cpu {cpu.stride()}")
    g = np.asarray(st.asarray(got, device=CPU, copy=True))
    if name != "exp":  # (a device's exp need not be NumPy's to the last bit)
        np.testing.assert_array_equal(_bits(g), _bits(np.asarray(cpu)))


@pytest.mark.parametrize("n", [100, 200, 400, 1000])
def test_the_issue_example(n):
    """``a.T + b`` and ``a.T < b``: row-major at every size, as NumPy's."""
    a = st.asarray(np.ones((n, n)), device=CPU)
    b = st.asarray(np.ones((n, n)), device=CPU)
    assert st.add(a.T, b).stride() == (n, 1)
    assert (a.T + b).stride() == (n, 1)
    assert st.less(a.T, b).stride() == (n, 1)
    # and the pooled, threaded path keeps a layout all operands share
    assert st.multiply(a.T, b.T).stride() == (1, n)
    assert st.exp(a.T).stride() == (1, n)


# --- copies in the source's order (NumPy's order "K") ----------------------------------

def _view(xp, a, steps, perm):
    a = a[tuple(slice(None, None, s) for s in steps)]
    return np.transpose(a, perm) if xp is np else st.permute_dims(a, perm)


COPY_CASES = [
    pytest.param(shape, steps, perm, id=f"{'x'.join(map(str, shape))}-{steps}-{perm}")
    for shape in [(6, 8), (400, 600), (4, 6, 10), (40, 60, 100)]
    for steps, perm in ([((2, 1), (1, 0)), ((1, 2), (1, 0)), ((-1, 1), (1, 0)), ((1, -1), (0, 1)),
                         ((1, 2), (0, 1)), ((1, 1), (1, 0))] if len(shape) == 2 else
                        [((2, 1, 1), (2, 0, 1)), ((1, 1, 3), (1, 0, 2)), ((1, -1, 1), (2, 1, 0)),
                         ((1, 1, 2), (0, 1, 2)), ((1, 1, 1), (1, 2, 0))])
]


@pytest.mark.parametrize("call", ["astype-same", "asarray-copy", "astype-float32"])
@pytest.mark.parametrize("shape,steps,perm", COPY_CASES)
def test_copies_keep_numpys_order_k(shape, steps, perm, call):
    """``astype(x, x.dtype)`` and ``asarray(x, copy=True)`` of a transposed slice with a step
    lay the copy out as NumPy's ``x.astype(x.dtype)`` / ``numpy.array(x, copy=True)`` (order
    "K"; they were row-major), as ``astype`` to another dtype already did."""
    base = _base(shape, np.float64, 7)
    n = _view(np, base, steps, perm)
    for dev in {CPU, DEV}:
        x = _view(st, st.asarray(base, device=dev), steps, perm)
        if call == "astype-same":
            want, got = n.astype(np.float64), st.astype(x, st.float64)
        elif call == "asarray-copy":
            want, got = np.array(n, copy=True), st.asarray(x, copy=True)
        else:
            want, got = n.astype(np.float32), st.astype(x, st.float32)
        assert got.stride() == tuple(s // want.itemsize for s in want.strides), (dev, call)
        np.testing.assert_array_equal(np.asarray(st.asarray(got, device=CPU, copy=True)), want)
