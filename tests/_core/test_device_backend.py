"""Device backends: nothing copies to the host behind the user's back, results stay
on their device, devices never mix, and the CuPy backend works where a GPU exists.

Most tests run on the simulated device ``sim`` (see conftest): its arrays behave
like CuPy's (no implicit conversion to NumPy, no host arrays in kernels, 0-d
results instead of scalars) and every copy to the host counts in
``backend.d2h_copies``. The same cases run on ``cuda`` where CuPy and an NVIDIA
GPU are present, and skip cleanly elsewhere.
"""

from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import strided as xp
from conftest import SIM, SimArray, simcupy, to_np


def _gpu_available() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        xp.Device("cuda").backend
    except ValueError:
        return False
    return True


HAS_GPU = _gpu_available()
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="needs CuPy and an NVIDIA GPU")
DEVICES = ["sim", pytest.param("cuda", marks=needs_gpu)]


def _d2h(dev) -> int:
    return xp.Device(dev).backend.d2h_copies


# --- one table of operations: each runs on cpu and on the device ---------------------------

def _inputs(dev):
    """The operands every case draws from, made on ``dev`` from the same host data."""
    g = np.random.default_rng(0)
    a = g.standard_normal((3, 4))
    spd = a[:, :3].T @ a[:, :3] + 3 * np.eye(3)

    def on(v, dtype=None):
        return xp.asarray(v, dtype=dtype, device=dev)
    return types.SimpleNamespace(
        a=on(a), b=on(g.standard_normal(4)), v=on(np.arange(1.0, 5.0)),
        t=on(np.arange(24.0).reshape(2, 3, 4))[:, ::-1, 1:],  # noncontiguous, negative stride
        i=on(np.arange(12).reshape(3, 4)), idx=on([2, 0, 2]), spd=on(spd),
        z=on(np.array([1 + 2j, -0.5j, np.inf + 1j, 0j]), xp.complex128),
        ab=on(np.array([[np.inf, -1.0], [2.0, -np.inf]])), sorted=on(np.array([0.0, 1.0, 1.0, 3.0])),
        dev=dev)


def _setitem(x, key, value):
    x = x.clone()
    x[key] = value
    return x


CASES = {
    # elementwise, with scalars, broadcasting and the special-case corrections
    "add": lambda t: t.a + t.b, "scalar": lambda t: 2.5 * t.a - 1, "compare": lambda t: t.a > t.b,
    "floor_divide_inf": lambda t: t.ab // t.ab.mT, "pow_half": lambda t: t.ab ** 0.5,
    "pow_arrays": lambda t: xp.abs(t.a) ** t.b, "int_ops": lambda t: (t.i << 2) % 5 - (t.i // 3),
    "expm1_complex": lambda t: xp.expm1(t.z), "tanh_complex": lambda t: xp.tanh(t.z),
    "clip": lambda t: xp.clip(t.a, t.b, 0.5), "where": lambda t: xp.where(t.a > 0, t.a, 0.0),
    "strided_unary": lambda t: xp.exp(t.t), "in_place": lambda t: t.a.clone().mul_(t.b).add_(1.0),
    "out": lambda t: xp.multiply(t.a, 2.0, out=xp.empty((3, 4), dtype=xp.float64, device=t.dev)),
    # reductions
    "sum": lambda t: xp.sum(t.a), "sum_axis": lambda t: xp.sum(t.t, axis=(0, 2)),
    "prod": lambda t: xp.prod(t.a, axis=0), "max": lambda t: xp.max(t.a), "min": lambda t: xp.min(t.t, axis=1),
    "mean": lambda t: xp.mean(t.a, axis=1), "var": lambda t: xp.var(t.a, correction=1),
    "std_complex": lambda t: xp.std(t.z[:2]), "cumulative_sum": lambda t: xp.cumulative_sum(t.a, axis=1),
    "cumulative_prod": lambda t: xp.cumulative_prod(t.v, include_initial=True),
    "all_any": lambda t: (xp.all(t.a > -5), xp.any(t.a > 0, axis=0)),
    "argmax": lambda t: xp.argmax(t.a, axis=1), "argmin": lambda t: xp.argmin(t.a),
    "count_nonzero": lambda t: xp.count_nonzero(t.i % 2, axis=0),
    "sum_out": lambda t: xp.sum(t.a, axis=0, out=xp.empty(4, dtype=xp.float64, device=t.dev)),
    # indexing: basic, integer arrays, lists, boolean masks; reads and writes
    "basic": lambda t: t.t[1, ::-1, None, 2:], "int_array": lambda t: t.a[t.idx],
    "int_arrays": lambda t: t.a[t.idx, t.idx[::-1] + 1], "list_index": lambda t: t.a[[0, 2], 1:],
    "mask": lambda t: t.a[t.a > 0], "mask_rows": lambda t: t.a[t.a[:, 0] > -10],
    "setitem_basic": lambda t: _setitem(t.a, (slice(None), 1), t.a[0, :3]),
    "setitem_mask": lambda t: _setitem(t.a, t.a < 0, 0.0), "setitem_int": lambda t: _setitem(t.a, t.idx[:2], t.b),
    "take": lambda t: xp.take(t.a, t.idx, axis=0),
    "take_along_axis": lambda t: xp.take_along_axis(t.a, xp.argsort(t.a, axis=1), axis=1),
    "nonzero": lambda t: xp.nonzero(t.a > 0),
    # manipulation
    "concat": lambda t: xp.concat([t.a, t.a[::-1, ::-1][1:]], axis=0), "stack": lambda t: xp.stack([t.a, t.a], axis=1),
    "reshape": lambda t: xp.reshape(t.t, (-1,)), "permute": lambda t: xp.permute_dims(t.t, (2, 0, 1)),
    "flip_roll": lambda t: xp.roll(xp.flip(t.a, axis=0), 1, axis=1), "repeat": lambda t: xp.repeat(t.a, 2, axis=1),
    "tile": lambda t: xp.tile(t.b, (2, 1)), "squeeze_expand": lambda t: xp.squeeze(xp.expand_dims(t.a, axis=0), axis=0),
    "broadcast_arrays": lambda t: xp.broadcast_arrays(t.a, t.b), "moveaxis": lambda t: xp.moveaxis(t.t, 0, -1),
    "unstack": lambda t: xp.unstack(t.a), "diff": lambda t: xp.diff(t.a, axis=1),
    "astype": lambda t: t.a.astype(xp.int32), "contiguous": lambda t: t.t.contiguous(),
    # sorting, searching, sets
    "sort": lambda t: xp.sort(t.a, axis=0, descending=True), "argsort": lambda t: xp.argsort(t.a, stable=True),
    "searchsorted": lambda t: xp.searchsorted(t.sorted, t.a),
    "searchsorted_sorter": lambda t: xp.searchsorted(t.v[::-1], t.b, sorter=xp.flip(xp.arange(4, device=t.dev))), "unique_all": lambda t: xp.unique_all(t.i % 3),
    "unique_values": lambda t: xp.unique_values(t.sorted), "isin": lambda t: xp.isin(t.i, t.idx),
    # linear algebra
    "matmul": lambda t: t.a @ t.a.mT, "matvec": lambda t: xp.matmul(t.t, t.b[1:]),
    "tensordot": lambda t: xp.tensordot(t.a, t.a, axes=([1], [1])), "vecdot": lambda t: xp.vecdot(t.a, t.b),
    "einsum": lambda t: xp.einsum("ij,j->i", t.a, t.b), "cholesky": lambda t: xp.linalg.cholesky(t.spd),
    "det": lambda t: xp.linalg.det(t.spd), "inv": lambda t: xp.linalg.inv(t.spd),
    "solve": lambda t: xp.linalg.solve(t.spd, t.a[:, :3]), "slogdet": lambda t: tuple(xp.linalg.slogdet(t.spd)),
    "eigvalsh": lambda t: xp.linalg.eigvalsh(t.spd), "svdvals": lambda t: xp.linalg.svdvals(t.a),
    "pinv": lambda t: xp.linalg.pinv(t.a), "matrix_rank": lambda t: xp.linalg.matrix_rank(t.a),
    "matrix_norm": lambda t: xp.linalg.matrix_norm(t.a, ord=2), "vector_norm": lambda t: xp.linalg.vector_norm(t.a, ord=3),
    "matrix_power": lambda t: xp.linalg.matrix_power(t.spd, -2), "cross": lambda t: xp.linalg.cross(t.a[:, :3], t.a[:, 1:]),
    "outer_trace": lambda t: xp.linalg.trace(xp.linalg.outer(t.b, t.v)),
    # fft (of z's finite entries: what an infinity becomes is the algorithm's, which the
    # standard leaves open; cuFFT multiplies inf by a twiddle factor's zero part (NaN) where
    # NumPy's pocketfft skips the trivial twiddle: fft([1+2j, -.5j, inf+1j, 0])[1] is
    # -inf+nanj on an H100, -inf+1j in NumPy)
    "fft": lambda t: xp.fft.fft(t.z[[0, 1, 3]]), "rfft": lambda t: xp.fft.rfft(t.a), "irfftn": lambda t: xp.fft.irfftn(t.z[None, [0, 1, 3]]),
    "fftshift": lambda t: xp.fft.fftshift(t.a),
    # creation on the device
    "zeros": lambda t: xp.zeros((2, 3), device=t.dev), "full": lambda t: xp.full((2,), 7, device=t.dev),
    "arange": lambda t: xp.arange(0, 5, 0.5, device=t.dev), "linspace": lambda t: xp.linspace(0, 1, 5, device=t.dev),
    "eye": lambda t: xp.eye(3, k=1, device=t.dev), "like": lambda t: (xp.ones_like(t.a), xp.full_like(t.i, 3)),
    "asarray": lambda t: (xp.asarray(3.0, device=t.dev), xp.asarray([[1, 2]], device=t.dev)),
    "meshgrid": lambda t: xp.meshgrid(t.b, t.v), "tril": lambda t: xp.tril(t.a),
    "fftfreq": lambda t: xp.fft.fftfreq(8, device=t.dev),
}

# Random sampling: the values differ between devices; shapes, dtypes and devices do not.
RANDOM = {
    "rand": lambda t: xp.rand(3, 4, device=t.dev), "randn_complex": lambda t: xp.randn(3, dtype=xp.complex64, device=t.dev),
    "randint": lambda t: xp.randint(0, 10, (5,), device=t.dev), "randperm": lambda t: xp.randperm(6, device=t.dev),
    "normal": lambda t: xp.normal(t.a, 2.0), "bernoulli": lambda t: xp.bernoulli(xp.full((3,), 0.5, device=t.dev)),
    "multinomial": lambda t: xp.multinomial(xp.abs(t.a), 2), "multinomial_replacement": lambda t: xp.multinomial(
        xp.abs(t.b), 5, replacement=True),
    "in_place": lambda t: (t.a.clone().uniform_(), t.a.clone().normal_(), t.a.clone().bernoulli_(0.3),
                           t.i.clone().random_(0, 5)),
    "generator": lambda t: xp.rand(4, generator=xp.Generator(t.dev).manual_seed(3), device=t.dev),
}


def _outputs(r) -> list:
    return list(r) if isinstance(r, tuple) else [r]


def _check_on_device(r, dev) -> None:
    for o in _outputs(r):
        assert o.device is xp.Device(dev)
        backend = o.device.backend
        assert isinstance(o._get_native(), backend.ndarray)
        assert isinstance(o.storage()._data, backend.ndarray)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_op_stays_on_device_without_host_copies(dev, name):
    ref = _outputs(CASES[name](_inputs("cpu")))
    t = _inputs(dev)
    before = _d2h(dev)
    r = CASES[name](t)
    assert _d2h(dev) == before, f"{name} copied to the host"
    _check_on_device(r, dev)
    out = _outputs(r)
    assert len(out) == len(ref)
    for o, e in zip(out, ref):
        assert o.shape == e.shape and o.dtype == e.dtype
        np.testing.assert_allclose(to_np(o), to_np(e), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(RANDOM))
def test_sampling_stays_on_device_without_host_copies(dev, name):
    ref = _outputs(RANDOM[name](_inputs("cpu")))
    t = _inputs(dev)
    before = _d2h(dev)
    r = RANDOM[name](t)
    assert _d2h(dev) == before, f"{name} copied to the host"
    _check_on_device(r, dev)
    for o, e in zip(_outputs(r), ref):
        assert o.shape == e.shape and o.dtype == e.dtype


@pytest.mark.parametrize("dev", DEVICES)
def test_seeded_generators_repeat_on_device(dev):
    g1, g2 = xp.Generator(dev).manual_seed(7), xp.Generator(dev).manual_seed(7)
    a, b = xp.randn(5, generator=g1, device=dev), xp.randn(5, generator=g2, device=dev)
    assert a.device is xp.Device(dev) and a.tolist() == b.tolist()
    state = g1.get_state()
    c = xp.rand(3, generator=g1, device=dev)
    g1.set_state(state)
    assert xp.rand(3, generator=g1, device=dev).tolist() == c.tolist()
    assert sorted(xp.randperm(50, generator=g2, device=dev).tolist()) == list(range(50))


@pytest.mark.parametrize("dev", DEVICES)
def test_multinomial_follows_the_weights_on_device(dev):
    w = xp.asarray([[1.0, 0.0, 3.0], [0.0, 0.0, 2.0]], device=dev)
    s = to_np(xp.multinomial(w, 4000, replacement=True, generator=xp.Generator(dev).manual_seed(1)))
    assert s.shape == (2, 4000)
    np.testing.assert_allclose(np.bincount(s[0], minlength=3) / 4000, [0.25, 0, 0.75], atol=0.03)
    assert (s[1] == 2).all()
    no_rep = to_np(xp.multinomial(w[0], 2, generator=xp.Generator(dev).manual_seed(2)))
    assert sorted(no_rep.tolist()) == [0, 2]


@pytest.mark.parametrize("dev", DEVICES)
def test_autograd_backward_stays_on_device(dev):
    ad = pytest.importorskip("strided.autograd")
    if not hasattr(ad, "backward") and not hasattr(xp.Array, "backward"):
        pytest.skip("strided.autograd has no backward pass yet")
    grads = {}
    for d in ("cpu", dev):
        x = xp.asarray(np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0]]), device=d, requires_grad=True)
        w = xp.asarray(np.array([0.5, -1.0, 2.0]), device=d, requires_grad=True)
        before = _d2h(dev)
        y = (xp.sum(xp.prod(x, axis=1)) + xp.sum(xp.cumulative_prod(x, axis=1) * w)
             + xp.mean(xp.tanh(x @ w)) + xp.sum(xp.max(x, axis=0)) + xp.sum(xp.std(x, axis=1))
             + xp.sum(x[x > 0.7]) + xp.sum(x[:, [0, 2]] ** 2) + xp.linalg.vector_norm(x))
        y.backward()
        assert _d2h(dev) == before
        assert x.grad.device is xp.Device(d) and w.grad.device is xp.Device(d)
        grads[d] = (to_np(x.grad), to_np(w.grad))
    for g, e in zip(grads[dev], grads["cpu"]):
        np.testing.assert_allclose(g, e, rtol=1e-12)


@pytest.mark.parametrize("dev", DEVICES)
def test_named_dimensions_stay_on_device(dev):
    x = xp.ones((2, 3), names=("a", "b"), device=dev)
    y = xp.arange(3.0, device=dev).rename("b")
    before = _d2h(dev)
    r = xp.sum(x * y, axis="a")
    z = xp.matmul(x, y)
    assert _d2h(dev) == before
    assert r.names == ("b",) and z.names == ("a",)
    _check_on_device((r, z), dev)
    assert r.tolist() == [0.0, 2.0, 4.0] and z.tolist() == [3.0, 3.0]


# --- only the explicit host conversions copy -------------------------------------------------

HOST_COPIES = {
    "item": lambda x: x[0, 0].item(), "tolist": lambda x: x.tolist(), "bool": lambda x: bool(x[0, 0]),
    "float": lambda x: float(x[0, 1]), "int": lambda x: int(x[1, 1]), "cpu": lambda x: x.cpu(),
    "to_device": lambda x: x.to_device("cpu"), "to": lambda x: x.to("cpu"), "repr": repr, "str": str,
    "numpy_force": lambda x: x.numpy(force=True), "asarray_cpu": lambda x: xp.asarray(x, device="cpu"),
    "print_large": lambda x: repr(xp.zeros((50, 40), device=x.device)),
}


@pytest.mark.parametrize("dev", DEVICES)
@pytest.mark.parametrize("name", sorted(HOST_COPIES))
def test_only_explicit_conversions_copy_to_the_host(dev, name):
    x = xp.asarray(np.arange(6.0).reshape(2, 3), device=dev)
    before = _d2h(dev)
    HOST_COPIES[name](x)
    assert _d2h(dev) == before + 1


def test_host_copies_give_the_values(sim):
    ref = np.arange(6.0).reshape(2, 3)
    x = xp.asarray(ref, device=sim)
    assert x.tolist() == ref.tolist() and x[1, 2].item() == 5.0
    assert bool(x[0, 1]) and not bool(x[0, 0]) and int(x[1, 1]) == 4
    c = x.cpu()
    assert c.device is xp.Device("cpu")
    np.testing.assert_array_equal(c.numpy(), ref)
    assert repr(x) == "tensor([[0., 1., 2.],\n        [3., 4., 5.]], device='sim:0', dtype=strided.float64)"


def test_printing_a_large_array_copies_only_what_it_shows(sim):
    x = xp.reshape(xp.arange(1_000_000, dtype=xp.float64, device=sim), (1000, 1000))
    before, nbytes = SIM.d2h_copies, SIM.d2h_bytes
    text = repr(x[::-1])
    assert SIM.d2h_copies == before + 1 and SIM.d2h_bytes - nbytes == 7 * 7 * 8
    assert text.replace("device='sim:0', ", "") == repr(x[::-1].cpu())
    assert "...," in text and text.endswith("9.9900e+02]], device='sim:0', dtype=strided.float64)")


# --- transfers and device errors ------------------------------------------------------------------

def test_implicit_conversion_to_numpy_raises(sim):
    x = xp.ones((2, 2), device=sim)
    with pytest.raises(TypeError, match=r"\.cpu\(\)"):
        x.numpy()
    with pytest.raises(TypeError, match=r"\.cpu\(\)"):
        np.asarray(x)
    r = np.add(x, 1)  # __array_ufunc__ runs strided's add on the device (as CuPy does)
    assert type(r) is xp.Array and r.device == x.device
    with pytest.raises(TypeError, match="no implicit device-to-host copy"):
        np.add(x, 1, out=np.zeros((2, 2)))  # writing into an ndarray would copy to the host
    # the backend's own arrays refuse as well, as CuPy's do
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(x._get_native())


MIXED = {
    "add": lambda c, s: c + s, "reflected": lambda c, s: s * c, "compare": lambda c, s: c < s,
    "matmul": lambda c, s: c @ s.mT, "where": lambda c, s: xp.where(c > 0, s, s),
    "concat": lambda c, s: xp.concat([c, s]), "stack": lambda c, s: xp.stack([c, s]),
    "searchsorted": lambda c, s: xp.searchsorted(c[0], s), "isin": lambda c, s: xp.isin(c, s),
    "take": lambda c, s: xp.take(c, xp.asarray([0, 1], device=s.device), axis=1),
    "take_along_axis": lambda c, s: xp.take_along_axis(c, xp.zeros((2, 1), dtype=xp.int64, device=s.device), axis=1),
    "solve": lambda c, s: xp.linalg.solve(xp.eye(2, device="cpu"), s), "vecdot": lambda c, s: xp.vecdot(c, s),
    "tensordot": lambda c, s: xp.tensordot(c, s.mT, axes=1), "einsum": lambda c, s: xp.einsum("ij,ij->i", c, s),
    "clip": lambda c, s: xp.clip(c, s, None), "setitem": lambda c, s: c.__setitem__(slice(None), s),
    "index_array": lambda c, s: c[xp.asarray([1], device=s.device)], "mask": lambda c, s: c[s > 1],
    "out": lambda c, s: xp.add(c, c, out=s), "reduction_out": lambda c, s: xp.sum(c, axis=0, out=s[0]),
    "creation_out": lambda c, s: xp.zeros((2, 3), out=s, device="cpu"), "in_place": lambda c, s: c.add_(s),
    "meshgrid": lambda c, s: xp.meshgrid(c[0], s[0]), "cross": lambda c, s: xp.linalg.cross(c, s),
    "repeat": lambda c, s: xp.repeat(c, xp.asarray([1, 2], device=s.device), axis=0),
    "diff": lambda c, s: xp.diff(c, prepend=s),
}


@pytest.mark.parametrize("name", sorted(MIXED))
def test_mixing_devices_names_both(sim, name):
    c = xp.asarray(np.arange(6.0).reshape(2, 3), device="cpu")
    s = xp.asarray(np.arange(6.0).reshape(2, 3), device=sim)
    with pytest.raises(ValueError) as e:
        MIXED[name](c, s)
    assert "cpu" in str(e.value) and "sim:0" in str(e.value)


def test_transfers_between_devices(sim):
    ref = np.arange(12.0).reshape(3, 4)
    host = xp.asarray(ref, device="cpu")
    before = SIM.d2h_copies
    s = xp.asarray(host.mT, device=sim)
    assert s.device is sim and SIM.d2h_copies == before  # host -> device: no device-to-host copy
    assert host.to("sim").device is sim and host.to_device("sim:0").device is sim
    other = s.to("sim:1")  # device to device, not through the host
    assert other.device is xp.Device("sim:1") and SIM.d2h_copies == before
    assert other.storage() is not s.storage()
    other[0, 0] = -1.0
    assert s[0, 0].item() == 0.0
    np.testing.assert_array_equal(to_np(other)[1:], ref.T[1:])
    with pytest.raises(ValueError, match="copy"):
        xp.asarray(s, device="cpu", copy=False)
    with pytest.raises(ValueError, match="sim:2"):
        xp.zeros(1, device="sim:2")


def test_devices_lists_the_registered_devices(sim):
    info = xp.__array_namespace_info__()
    devices = list(info.devices())
    assert devices[0] is xp.Device("cpu")
    assert sim in devices and xp.Device("sim:1") in devices
    assert (xp.Device("cuda:0") in devices) == HAS_GPU
    assert info.dtypes(device=sim) == info.dtypes()


def test_default_device_and_its_restoration(sim):
    old = xp.get_default_device()
    xp.set_default_device("sim")
    try:
        assert xp.__array_namespace_info__().default_device() is sim
        assert xp.zeros(2).device is sim and xp.asarray(np.ones(2)).device is sim
        assert xp.rand(2).device is sim and xp.arange(3).device is sim
    finally:
        xp.set_default_device(old)
    with pytest.raises(ValueError, match="unknown device type"):
        xp.set_default_device("tpu")
    assert xp.get_default_device() is old


def _python(code: str, env_device: str | None):
    env = {k: v for k, v in os.environ.items() if k != "STRIDED_DEFAULT_DEVICE"}
    if env_device is not None:
        env["STRIDED_DEFAULT_DEVICE"] = env_device
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_default_device_from_the_environment():
    r = _python("import strided; print(strided.zeros(1).device, strided.get_default_device())", "cpu")
    assert r.returncode == 0 and r.stdout.split() == ["cpu", "cpu"], r.stderr
    # An unusable device warns and keeps cpu (issue 19); explicit use still raises.
    r = _python("import strided; print(strided.get_default_device())", "tpu")
    assert r.returncode == 0 and r.stdout.split() == ["cpu"], r.stderr
    assert "STRIDED_DEFAULT_DEVICE='tpu'" in r.stderr and "unknown device type" in r.stderr


def test_dlpack_on_a_device_without_a_dlpack_type(sim):
    x = xp.asarray(np.arange(4.0), device=sim)
    assert x.__dlpack_device__() == x._get_native().__dlpack_device__()
    with pytest.raises(BufferError):
        np.from_dlpack(x)  # the simulated device's memory has no DLPack device type
    with pytest.raises((ValueError, TypeError), match="DLPack device type"):
        xp.from_dlpack(x._get_native())
    assert xp.from_dlpack(x).storage() is x.storage()
    before = SIM.d2h_copies
    c = xp.from_dlpack(x, device="cpu")
    assert c.device is xp.Device("cpu") and c.tolist() == [0.0, 1.0, 2.0, 3.0] and SIM.d2h_copies == before + 1
    with pytest.raises(ValueError, match="copy"):
        xp.from_dlpack(x, device="cpu", copy=False)
    s = xp.from_dlpack(np.arange(3.0), device=sim)
    assert s.device is sim and s.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError):
        xp.from_dlpack(np.arange(3.0), device=sim, copy=False)


class _HasArray:
    def __array__(self, dtype=None, copy=None):
        return np.arange(4.0).reshape(2, 2)


@pytest.mark.parametrize("obj", [np.float32(2.5), np.arange(6.0)[::-2], memoryview(b"\x01\x02\x03"),
                                 _HasArray(), [[1, 2], [3, 4]], 7])
def test_host_data_is_copied_onto_the_device(sim, obj):
    a = xp.asarray(obj, device=sim)
    assert type(a._get_native()) is SimArray and type(a.storage()._data) is SimArray
    np.testing.assert_array_equal(to_np(a), np.asarray(obj))
    with pytest.raises(ValueError, match="copy"):
        xp.asarray(obj, device=sim, copy=False)


class _CudaArrayLike:
    """An array in CUDA memory as DLPack describes it (CuPy arrays, CUDA tensors)."""

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, **kwargs):
        raise BufferError("no memory behind this test object")


@pytest.mark.skipif(HAS_GPU, reason="a GPU is present")
def test_asarray_keeps_a_gpu_array_on_its_device_without_a_gpu():
    # asarray(device=None) infers the device of a device array: cuda, which needs CuPy here
    with pytest.raises(ValueError, match="needs CuPy and an NVIDIA GPU"):
        xp.asarray(_CudaArrayLike())


def test_shared_native_storage_stays_on_the_device(sim):
    from strided._api.creation import share_native
    base = simcupy.asarray(np.arange(24.0).reshape(4, 6))
    for native in (base[::-1, ::2], base.T, base[1:3, 2:5], base[:, :0]):
        a = share_native(native, sim)
        assert type(a.storage()._data) is SimArray
        np.testing.assert_array_equal(to_np(a), native.get())
    a = share_native(base[::-1, ::2], sim)
    a[0, 0] = -1.0
    assert base.get()[3, 0] == -1.0


def test_save_and_load_onto_the_device(sim):
    src = xp.asarray(np.arange(12.0).reshape(3, 4), device="cpu")
    buf = io.BytesIO()
    xp.save({"x": src, "view": src[1:, ::2], "n": 3}, buf)
    before = SIM.d2h_copies
    out = xp.load(io.BytesIO(buf.getvalue()), map_location="sim")
    assert SIM.d2h_copies == before
    assert out["x"].device is sim and out["view"].device is sim and out["n"] == 3
    assert out["view"].storage() is out["x"].storage()
    np.testing.assert_array_equal(to_np(out["view"]), np.arange(12.0).reshape(3, 4)[1:, ::2])
    buf2 = io.BytesIO()
    xp.save(out, buf2)  # saving a device array copies it to the host, explicitly
    back = xp.load(io.BytesIO(buf2.getvalue()), map_location="cpu")
    assert back["x"].device is xp.Device("cpu") and back["x"].tolist() == src.tolist()
    again = xp.load(io.BytesIO(buf2.getvalue()))
    assert again["x"].device is sim


# --- the CuPy backend (skipped without a GPU) -------------------------------------------------------

@needs_gpu
def test_cuda_views_from_metadata_and_bounds():
    import cupy
    ref = np.arange(60.0).reshape(3, 4, 5)
    g = xp.asarray(ref, device="cuda")
    for v, e in [(g[::-1, 1:, ::2], ref[::-1, 1:, ::2]), (g.mT, ref.swapaxes(-1, -2)),
                 (xp.flip(g, axis=1)[1], ref[:, ::-1][1]), (g[..., 3], ref[..., 3])]:
        nat = v._get_native()
        assert isinstance(nat, cupy.ndarray)
        np.testing.assert_array_equal(cupy.asnumpy(nat), e)
        assert nat.data.ptr == v.data_ptr()
    st = g.storage()
    with pytest.raises(IndexError):
        xp.Array._from_storage(st, 55, (2,), (5,))._get_native()
    assert xp.Device("cuda").backend.devices()[0] is xp.Device("cuda:0")
    with pytest.raises(ValueError, match="does not exist"):
        xp.zeros(1, device=f"cuda:{len(xp.Device('cuda').backend.devices())}")


@needs_gpu
def test_cuda_dlpack_is_zero_copy_with_cupy():
    import cupy
    c = cupy.arange(6.0).reshape(2, 3)
    a = xp.from_dlpack(c)
    assert a.device is xp.Device("cuda:0") and a.data_ptr() == c.data.ptr
    a[0, 0] = 100.0
    assert float(c[0, 0]) == 100.0
    back = cupy.from_dlpack(a.mT)
    assert back.data.ptr == a.data_ptr() and back.shape == (3, 2)
    assert a.__dlpack_device__() == (2, 0)
    g = xp.asarray(c)  # asarray infers the device of a device array and shares its memory
    assert g.device is xp.Device("cuda:0") and g.data_ptr() == c.data.ptr
    t = xp.from_dlpack(c.T)  # a noncontiguous producer
    np.testing.assert_array_equal(t.cpu().numpy(), cupy.asnumpy(c.T))
    with pytest.raises(TypeError, match=r"\.cpu\(\)"):
        a.numpy()
    with pytest.raises(TypeError):
        np.asarray(a)


@needs_gpu
def test_cuda_dlpack_with_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA")
    t = torch.arange(6.0, device="cuda").reshape(2, 3)
    a = xp.from_dlpack(t)
    assert a.device is xp.Device("cuda:0") and a.data_ptr() == t.data_ptr()
    u = torch.from_dlpack(a)
    assert u.data_ptr() == t.data_ptr()


_SMOKE = r"""
import io
import numpy as np
import strided as xp
cuda = xp.Device("cuda:0")
assert xp.get_default_device() is cuda
a = xp.asarray(np.arange(12.0).reshape(3, 4))
b = xp.ones(4)
outs = [a, b, a + b, a @ a.mT, xp.sum(a, axis=0), xp.mean(a), xp.sort(a, descending=True), a[a > 3],
        a[xp.asarray([0, 2])], xp.concat([a, a]), xp.linalg.inv(a @ a.mT + xp.eye(3)),
        xp.fft.rfft(a), xp.rand(3), xp.randn(2, 2), xp.randint(0, 5, (3,)), xp.arange(4),
        xp.linspace(0, 1, 3), xp.unique_values(a), xp.cumulative_sum(a, axis=1), xp.where(a > 2, a, 0.0)]
for o in outs:
    assert o.device is cuda, o.device
w = xp.ones(4, requires_grad=True)
xp.sum(xp.tanh(a @ w)).backward()
assert w.grad.device is cuda
buf = io.BytesIO()
xp.save({"a": a}, buf)
assert xp.load(io.BytesIO(buf.getvalue()))["a"].device is cuda
print("ok", xp.Device("cuda").backend.d2h_copies)
"""


@needs_gpu
def test_whole_module_smoke_with_default_device_cuda():
    r = _python(_SMOKE, "cuda")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok")
