"""adopt's registry of exported Storages under garbage collection: a weakref callback can
run inside a collection that an allocation set off while the registry's lock is held (in
the same thread), so it must not wait for that lock. It did, and a process that called
``np.asarray(x)`` in a loop could hang for good (seen in
tests/reliability/test_differential_tiny.py's worker)."""

import subprocess
import sys
import textwrap
import pytest

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def test_a_storage_freed_while_the_registry_lock_is_held_does_not_hang():
    prog = textwrap.dedent("""
        import gc
        import numpy as np
        import strided as xp
        from strided._core.call import adopt
        a = xp.asarray(np.arange(8.0), device="cpu")  # (host memory handed to NumPy)
        n = np.asarray(a)                 # a's Storage is exported (adopt.exported)
        st = a.storage()
        cycle = [st]
        cycle.append(cycle)               # freed only by the collector
        del a, st, cycle
        with adopt._LOCK:                 # as inside exported(): a collection runs there
            gc.collect()                  # the Storage dies; its callback must not wait
        b = xp.asarray(np.arange(4.0), device="cpu")
        assert np.asarray(b)[2] == 2.0    # the registry still works (and purges)
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
