"""Several threads at once: in-place writes, saves, backward passes, lazy storages.

The rules (docs/reliability.md): operations on different arrays are
independent; gradients accumulated into a shared leaf from several threads
are all kept; a save while another thread writes produces a file that loads;
``storage()`` of one array is one object for every thread.
"""

from __future__ import annotations

import io
import sys
import threading

import numpy as np
import pytest

import strided as xp

THREADS = 8


def host(a):
    return np.asarray(a.detach().cpu().numpy())


@pytest.fixture(autouse=True)
def _switch_often():
    """Switch threads every microsecond, so races show up in a few rounds."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _run(n, fn):
    barrier = threading.Barrier(n)
    errors = []

    def body(i):
        try:
            barrier.wait()
            fn(i)
        except BaseException as e:  # pragma: no cover - reported by the assert
            errors.append(e)

    ts = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors[:3]


def test_inplace_writes_to_disjoint_views_from_many_threads():
    x = xp.zeros((THREADS, 1000))
    _run(THREADS, lambda i: [x[i].add_(1.0) for _ in range(200)])
    assert (host(x) == 200.0).all()
    assert x.storage().version() >= THREADS * 200


def test_backward_from_many_threads_with_shared_and_private_leaves():
    shared = xp.ones(16, requires_grad=True)
    private = [xp.full((16,), float(i), requires_grad=True) for i in range(THREADS)]
    rounds = 20

    def work(i):
        for _ in range(rounds):
            ((shared * private[i]).sum() + (shared * 2).sum()).backward()

    _run(THREADS, work)
    expected_shared = sum(rounds * (i + 2.0) for i in range(THREADS))
    assert host(shared.grad).tolist() == [expected_shared] * 16
    for i in range(THREADS):
        assert host(private[i].grad).tolist() == [float(rounds)] * 16


def test_first_gradients_of_many_fresh_leaves_from_many_threads():
    # The first accumulation into a leaf (grad None -> a copy) is where two threads could
    # both see None; every leaf here gets its first gradients from all threads at once.
    leaves = [xp.ones(4096, requires_grad=True) for _ in range(150)]
    _run(THREADS, lambda i: [(w * 1.0).sum().backward() for w in leaves])
    for w in leaves:
        assert host(w.grad)[0] == THREADS and (host(w.grad) == THREADS).all()


def test_grad_mode_is_per_thread():
    w = xp.ones(3, requires_grad=True)
    seen = [None] * THREADS

    def work(i):
        if i % 2:
            with xp.autograd.no_grad():
                for _ in range(50):
                    y = w * 2
                seen[i] = y.requires_grad
        else:
            for _ in range(50):
                y = w * 2
            seen[i] = y.requires_grad

    _run(THREADS, work)
    assert seen == [i % 2 == 0 for i in range(THREADS)]


def test_saves_from_many_threads_while_others_write():
    arrays = [xp.zeros(50000) for _ in range(THREADS // 2)]
    stop = threading.Event()
    files = {}

    def work(i):
        a = arrays[i // 2]
        if i % 2:  # writer
            k = 0
            while not stop.is_set() and k < 2000:
                a.add_(1.0)
                k += 1
        else:  # saver
            for j in range(5):
                buf = io.BytesIO()
                xp.save({"a": a, "view": a[::3]}, buf)
                files[i, j] = buf.getvalue()
            stop.set()

    _run(THREADS, work)
    for data in files.values():
        d = xp.load(io.BytesIO(data))  # every file loads (its checksums match)
        assert d["view"].storage() is d["a"].storage()
    assert len(files) == THREADS // 2 * 5


def test_many_threads_materialize_the_same_lazy_results():
    for _ in range(20):
        ys = [xp.arange(100.0, device="cpu") * 2 for _ in range(4)]  # numpy() views: CPU memory
        got = [[None] * 4 for _ in range(THREADS)]

        def work(i):
            for k, y in enumerate(ys):
                got[i][k] = (y.storage(), y[1:].storage(), y.numpy())

        _run(THREADS, work)
        for k, y in enumerate(ys):
            sts = {id(g[k][0]) for g in got} | {id(g[k][1]) for g in got} | {id(y.storage())}
            assert len(sts) == 1
            y[0] = -1.0
            assert all(g[k][2][0] == -1.0 for g in got)  # every numpy() view is of that one memory
