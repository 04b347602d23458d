"""Pickle for transport (docs/guide/save-load.md, "Pickle and processes"): a pickled
view carries what it reaches, proportional to the view as NumPy's pickles are;
arrays cross process boundaries with dtype, device, names and requires_grad;
``strided.save`` keeps its storage sharing. Device-neutral (the suite's device)."""

import io
import multiprocessing
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp
from conftest import host

DEVICE = xp.get_default_device()


def _roundtrip(obj, protocol=pickle.HIGHEST_PROTOCOL):
    return pickle.loads(pickle.dumps(obj, protocol=protocol))


def test_a_small_view_pickles_in_proportion_to_itself(device):
    big = xp.zeros((1000, 1000), dtype=xp.float64, device=device)
    small = big[10:20, 30:40]
    n = len(pickle.dumps(small))
    ref = len(pickle.dumps(np.zeros((1000, 1000))[10:20, 30:40]))  # NumPy's: ~950 bytes
    assert n < 2 * ref and n < 2000, n
    assert len(pickle.dumps(big)) > 8_000_000  # the whole array still carries its elements


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(0, 6), min_size=1, max_size=3), data=st.data())
def test_any_view_round_trips_its_values(shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    key = tuple(slice(data.draw(st.integers(0, n)), None, data.draw(st.sampled_from([1, 2, -1])))
                for n in shape)
    x = xp.asarray(a, device=DEVICE)
    view = x[key]
    got = _roundtrip(view)
    assert got.dtype == view.dtype and got.device == view.device and got.shape == view.shape
    np.testing.assert_array_equal(host(got), a[key])
    # what crosses: the storage when the view reaches at least half of it, else its elements
    reached = int(np.prod(a[key].shape))
    assert len(got.storage()) == (a.size if reached and a.size <= 2 * reached else reached)


def test_broadcast_views_cross_as_their_distinct_elements(device):
    row = xp.asarray(np.arange(5.0), device=device)
    wide = xp.broadcast_to(row, (100_000, 5))
    assert len(pickle.dumps(wide)) < 1000
    got = _roundtrip(wide)
    assert got.shape == (100_000, 5) and got.stride() == (0, 1)
    np.testing.assert_array_equal(host(got[12345]), np.arange(5.0))
    part = _roundtrip(xp.broadcast_to(xp.asarray(np.arange(100.0), device=device)[:3, None], (3, 4)))
    assert len(part.storage()) == 3 and part.stride() == (1, 0)
    np.testing.assert_array_equal(host(part), np.repeat(np.arange(3.0)[:, None], 4, 1))


def test_views_pickled_together_keep_sharing_only_when_they_carry_the_storage(device):
    a = xp.asarray(np.arange(12.0).reshape(3, 4), device=device)
    whole, transposed, small = _roundtrip([a, a.t(), a[0, :2]])
    assert transposed.storage() is whole.storage()  # the pickle's memo kept one storage
    assert small.storage() is not whole.storage() and len(small.storage()) == 2
    whole[0, 0] = -1.0
    assert float(transposed[0, 0]) == -1.0 and float(small[0]) == 0.0


def test_save_keeps_storage_sharing_of_small_views(tmp_path, device):
    big = xp.asarray(np.arange(1000.0), device=device)
    path = tmp_path / "views.strd"
    xp.save({"a": big[:10], "b": big[5:15], "in_a_pickle": frozenset([big[2:4]])}, path)
    back = xp.load(path)  # weights_only=True: arrays inside a pickled object still safe
    assert back["a"].storage() is back["b"].storage()
    (c,) = back["in_a_pickle"]
    assert c.storage() is back["a"].storage() and len(back["a"].storage()) == 15
    back["a"][7] = -5.0
    assert float(back["b"][2]) == -5.0


def test_names_and_requires_grad_cross(device):
    x = xp.asarray(np.arange(6.0).reshape(2, 3), device=device, requires_grad=True, names=("r", "c"))
    got = _roundtrip(x[:, :1])
    assert got.names == ("r", "c") and got.requires_grad and got.grad_fn is None
    np.testing.assert_array_equal(host(got.detach()), [[0.0], [3.0]])


def test_a_non_leaf_arrives_as_a_leaf_without_its_history(device):
    x = xp.asarray([1.0, 2.0], device=device, requires_grad=True)
    y = x * 3.0
    y.retain_grad()
    (y.sum()).backward()
    got = _roundtrip(y)
    assert got.requires_grad and got.is_leaf and got.grad_fn is None and got.grad is None
    got.sum().backward()  # a fresh leaf: its own graph, gradients of its own
    np.testing.assert_array_equal(host(got.grad), [1.0, 1.0])


def test_non_leaf_matches_pytorch():
    torch = pytest.importorskip("torch")
    t = torch.ones(2, requires_grad=True) * 2
    s = xp.ones(2, requires_grad=True) * 2
    tt, ss = _roundtrip(t), _roundtrip(s)
    assert (tt.requires_grad, tt.is_leaf, tt.grad_fn) == (ss.requires_grad, ss.is_leaf, ss.grad_fn)


@pytest.mark.skipif(DEVICE.type == "sim", reason="the test-only sim device is registered by "
                    "conftest.py, which a spawned process does not run")
def test_round_trip_through_a_spawned_process():
    ctx = multiprocessing.get_context("spawn")
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    x = xp.asarray(a, device=DEVICE, names=("n", "c"))
    g = xp.asarray(np.linspace(0, 1, 4), device=DEVICE, requires_grad=True)

    def apply(pool, fn, args):
        # (a task the child can't unpickle kills the worker and Pool.apply waits forever)
        return pool.apply_async(fn, args).get(timeout=300)

    with ctx.Pool(1) as pool:
        doubled = apply(pool, xp.multiply, (x[1:3, ::2], 2))  # the child computes on the view
        names = apply(pool, getattr, (x, "names"))
        back = apply(pool, xp.asarray, (g,))  # sent there and back
        dtype_dev = apply(pool, getattr, (x.float(), "dtype")), apply(pool, getattr, (x, "device"))
    assert type(doubled) is xp.Array and doubled.dtype == xp.int32 and doubled.device == x.device
    assert doubled.names == ("n", "c") and names == ("n", "c")
    np.testing.assert_array_equal(host(doubled), a[1:3, ::2] * 2)
    assert back.requires_grad and back.is_leaf
    np.testing.assert_array_equal(host(back.detach()), np.linspace(0, 1, 4))
    assert dtype_dev == (xp.float32, x.device)


def test_every_protocol_and_a_file_object(device):
    x = xp.asarray(np.arange(40.0).reshape(8, 5), device=device)[2:4, 1:3]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        buf = io.BytesIO()
        pickle.dump(x, buf, protocol=protocol)
        buf.seek(0)
        got = pickle.load(buf)
        np.testing.assert_array_equal(host(got), np.arange(40.0).reshape(8, 5)[2:4, 1:3])
        assert len(got.storage()) == 4


def test_protocol_5_sends_the_elements_out_of_band(device):
    a = np.arange(1000.0).reshape(10, 100)
    x = xp.asarray(a, device=device)
    for key in ((slice(None),), (slice(2, 4), slice(0, 5))):
        buffers = []
        payload = pickle.dumps(x[key], protocol=5, buffer_callback=buffers.append)
        assert sum(memoryview(b).nbytes for b in buffers) == a[key].nbytes and len(payload) < 1000
        np.testing.assert_array_equal(host(pickle.loads(payload, buffers=buffers)), a[key])


def test_dask_distributed_serializes_a_view_in_proportion():
    protocol = pytest.importorskip("distributed.protocol")
    big = xp.zeros((1000, 1000), dtype=xp.float64, device=DEVICE)
    header, frames = protocol.serialize(big[:10, :10])
    assert sum(memoryview(f).nbytes for f in frames) < 2000  # was 8,000,247 bytes
    got = protocol.deserialize(header, frames)
    assert type(got) is xp.Array and got.shape == (10, 10) and got.dtype == xp.float64


# Written by strided 0.1 before its modules moved into layer folders (main at 1851c3a):
# pickle.dumps((x[:, 1], float32, x.device, x.storage()), protocol=2) for
# x = asarray([[1., 2.], [3., 4.]]). It names strided._serialization, _storage,
# _dtypes and _device, the flat modules of that layout.
_PICKLE_BEFORE_THE_LAYOUT = (
    b'\x80\x02(cstrided._serialization\n_rebuild_array\nq\x00(cstrided._storage\n_rebuild_storage\n'
    b'q\x01cnumpy._core.multiarray\n_reconstruct\nq\x02cnumpy\nndarray\nq\x03K\x00\x85q\x04c_codecs\n'
    b'encode\nq\x05X\x01\x00\x00\x00bq\x06X\x06\x00\x00\x00latin1q\x07\x86q\x08Rq\t\x87q\nRq\x0b(K\x01K'
    b'\x04\x85q\x0ccnumpy\ndtype\nq\rX\x02\x00\x00\x00f4q\x0e\x89\x88\x87q\x0fRq\x10(K\x03X\x01\x00\x00'
    b'\x00<q\x11NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tq\x12b\x89h\x05X\x12\x00\x00\x00\x00\x00\xc2'
    b'\x80?\x00\x00\x00@\x00\x00@@\x00\x00\xc2\x80@q\x13h\x07\x86q\x14Rq\x15tq\x16bX\x07\x00\x00\x00'
    b'float32q\x17X\x03\x00\x00\x00cpuq\x18\x87q\x19Rq\x1aK\x01K\x02\x85q\x1bK\x02\x85q\x1cN\x89tq\x1dRq'
    b'\x1ecstrided._dtypes\n_dtype_from_name\nq\x1fh\x17\x85q Rq!cstrided._device\nDevice\nq"h\x18\x85q'
    b'#Rq$h\x1atq%.')


def test_pickles_written_before_the_layout_move_still_load():
    x, dt, dev, st = pickle.loads(_PICKLE_BEFORE_THE_LAYOUT)
    assert x.tolist() == [2.0, 4.0] and x.stride() == (2,) and x.dtype == xp.float32
    assert dt is xp.float32 and dev == xp.Device("cpu")
    assert st.tolist() == [1.0, 2.0, 3.0, 4.0] and x.storage() is st  # one storage, as pickled
