"""dask.array with strided chunks, on the synchronous scheduler and on a local cluster.

An array made by ``da.from_array(x, chunks=..., asarray=False)`` from a strided
array keeps strided chunks: dask's ``meta`` is a strided array, and the NumPy
functions dask calls on each chunk (``np.sum``, ``np.matmul``, ``np.sin``,
``np.concatenate``, ...) reach strided's implementations through
``__array_function__``/``__array_ufunc__``. Every operation below is run on the
same data in a NumPy-chunked dask array as the reference; each chunk of the
strided run, and its ``.compute()`` result, must be a strided array with
NumPy's values.

The ``distributed`` tests start a 2-worker ``LocalCluster`` on the loopback
interface (a few seconds); deselect them with ``-m "not distributed"``.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import strided as xp  # noqa: E402

CHUNKS = (3, 4)


def _data():
    return np.random.default_rng(1).standard_normal((8, 10))


OPERATIONS = {
    "sum": lambda d: d.sum(),
    "sum(axis=1)": lambda d: d.sum(axis=1),
    "mean(axis=0)": lambda d: d.mean(axis=0),
    "max": lambda d: d.max(),
    "min(axis=1)": lambda d: d.min(axis=1),
    "prod(axis=0)": lambda d: d.prod(axis=0),
    "std": lambda d: d.std(),
    "var(axis=1)": lambda d: d.var(axis=1),
    "any(d > 1)": lambda d: (d > 1).any(axis=0),
    "argmax(axis=0)": lambda d: d.argmax(axis=0),
    "argmin(axis=1)": lambda d: d.argmin(axis=1),
    "cumsum(axis=1)": lambda d: d.cumsum(axis=1),
    "d[d > 1]": lambda d: d[d > 1],
    "T": lambda d: d.T,
    "transpose + 1": lambda d: d.transpose() + 1,
    "d @ d.T": lambda d: d @ d.T,
    "da.dot": lambda d: da.dot(d.T, d),
    "da.tensordot": lambda d: da.tensordot(d, d, axes=((1,), (1,))),
    "da.sin": lambda d: da.sin(d),
    "np.exp": lambda d: np.exp(d),
    "da.where": lambda d: da.where(d > 0, d, 0.0),
    "d[1:6, ::3]": lambda d: d[1:6, ::3],
    "d[[0, 5, 2]]": lambda d: d[[0, 5, 2]],
    "d[:, 3]": lambda d: d[:, 3],
    "da.concatenate": lambda d: da.concatenate([d, d[:2]], axis=0),
    "da.stack": lambda d: da.stack([d, 2 * d]),
    "rechunk": lambda d: d.rechunk((8, 2)) * 3,
    "astype(float32)": lambda d: d.astype(np.float32),
}


def _strided(a):
    return da.from_array(xp.asarray(a, device="cpu"), chunks=CHUNKS, asarray=False)


def _numpy(a):
    return da.from_array(a, chunks=CHUNKS)


def _host(r):
    assert isinstance(r, xp.Array), f"a {type(r).__module__}.{type(r).__name__}, not a strided array"
    return np.asarray(r.to_device("cpu"))


def _check(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-5 if want.dtype == np.float32 else 1e-12)
    else:
        np.testing.assert_array_equal(got, want)


def test_from_array_keeps_strided_chunks():
    d = _strided(_data())
    assert isinstance(d._meta, xp.Array)
    assert all(isinstance(b, xp.Array) for b in dask.compute(*d.to_delayed().ravel(), scheduler="sync"))


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_synchronous_scheduler(name):
    a = _data()
    op = OPERATIONS[name]
    r = op(_strided(a))
    blocks = dask.compute(*r.to_delayed().ravel(), scheduler="sync")
    assert blocks and all(isinstance(b, xp.Array) for b in blocks), {type(b) for b in blocks}
    want = op(_numpy(a)).compute(scheduler="sync")
    _check(_host(r.compute(scheduler="sync")), np.asarray(want))


def test_reference_run_is_numpy():
    # The reference really is NumPy's: so the strided run is not compared with itself.
    assert isinstance(_numpy(_data()).sum().compute(scheduler="sync"), np.generic | np.ndarray)


@pytest.fixture
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  worker_dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


CLUSTER_OPERATIONS = ["sum", "mean(axis=0)", "std", "d @ d.T", "da.sin", "T", "d[1:6, ::3]",
                      "da.concatenate", "rechunk"]


@pytest.mark.distributed
def test_local_cluster(client):
    # One test for the whole cluster (one start, also under xdist): the operations, on
    # 2 worker processes, then a view sent to a worker.
    a = _data()
    d = _strided(a)
    for name in CLUSTER_OPERATIONS:
        r = OPERATIONS[name](d)
        blocks = client.compute(list(r.to_delayed().ravel()), sync=True)
        assert all(isinstance(b, xp.Array) for b in blocks), (name, {type(b) for b in blocks})
        want = np.asarray(OPERATIONS[name](_numpy(a)).compute(scheduler="sync"))
        _check(_host(client.compute(r, sync=True)), want)
    # The tasks ran in the workers' processes, which imported strided themselves.
    assert all(client.run(lambda: "strided" in __import__("sys").modules).values())

    # A small view of a big array crosses to a worker as its own elements, not the whole storage.
    big = xp.arange(1_000_000, dtype=xp.float64, device="cpu").reshape(1000, 1000)
    view = big[10:20, 30:40]
    assert len(pickle.dumps(view)) < 10 * len(pickle.dumps(np.asarray(view.to_device("cpu")).copy()))
    [future] = client.scatter([view])
    back = future.result()
    _check(_host(back), np.arange(1_000_000.0).reshape(1000, 1000)[10:20, 30:40])
    total = client.submit(lambda v: xp.sum(v), future).result()
    _check(_host(total), np.asarray(np.arange(1_000_000.0).reshape(1000, 1000)[10:20, 30:40].sum()))


def test_dask_sizes_strided_chunks_by_their_data():
    # The scheduler's memory accounting (spilling, placement) uses dask.sizeof.
    from dask.sizeof import sizeof

    a = np.ones((300, 200))
    x = xp.asarray(a, device="cpu")
    for s, n in [(x, a), (x[::3, 10:20], a[::3, 10:20]), (x.T, a.T)]:
        assert n.nbytes <= sizeof(s) <= n.nbytes + 1024, (sizeof(s), sizeof(n))
