"""Fault injection for save: the writing process killed at random points, and a full disk.

Whatever happens to the process that saves, the file under the target name is
the old one or the complete new one, never a mix or a truncated file. The
figures of one run are printed (``-s``) and quoted in docs/reliability.md.
"""

from __future__ import annotations

import errno
import os
import random
import resource
import signal
import time

import numpy as np
import pytest

import strided as xp
from strided import io as sio

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")

KILLS = 60  # processes killed per format (CI budget: a few seconds)
N = 1 << 17  # elements per saved array (512 KiB of float32)


def _saver(target, fmt, start):
    """Child: save versions start, start+1, ... forever (until killed)."""
    i = start
    while True:
        i += 1
        w = xp.full((N,), float(i), dtype=xp.float32)
        if fmt == "strided":
            xp.save({"i": i, "w": w, "tail": w[-5:]}, target)
        else:
            sio.save_hdf5(target, {"i": xp.asarray(i), "w": w})


def _read(target, fmt):
    if fmt == "strided":
        d = xp.load(target)
        i, w = d["i"], np.asarray(d["w"].cpu().numpy())
        assert d["tail"].storage() is d["w"].storage()
    else:
        d = sio.load_hdf5(target)
        i, w = int(d["i"].item()), np.asarray(d["w"].cpu().numpy())
    assert w.shape == (N,) and (w == i).all(), "a file mixing two versions"
    return i


def _fork(fn):
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns
        code = 1
        try:
            fn()
            code = 0
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            os._exit(code)
    return pid


@pytest.mark.parametrize("fmt", ["strided", "hdf5"])
def test_sigkill_at_random_points_leaves_the_old_or_the_new_file(tmp_path, fmt):
    if fmt == "hdf5":
        pytest.importorskip("h5py")
    rng = random.Random(1717)
    target = tmp_path / ("t.strd" if fmt == "strided" else "t.h5")
    if fmt == "strided":
        xp.save({"i": 0, "w": (w := xp.zeros(N, dtype=xp.float32)), "tail": w[-5:]}, target)
    else:
        sio.save_hdf5(target, {"i": xp.asarray(0), "w": xp.zeros(N, dtype=xp.float32)})
    last, mid_write, advanced = 0, 0, 0
    for _ in range(KILLS):
        pid = _fork(lambda: _saver(target, fmt, last))
        time.sleep(rng.uniform(0.0, 0.04))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        i = _read(target, fmt)  # loads, and is one whole version
        assert i >= last
        advanced += i > last
        last = i
        leftovers = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        mid_write += bool(leftovers)  # killed between creating the temporary file and the rename
        for p in leftovers:
            p.unlink()
        assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
    print(f"\n[faults] {fmt}: {KILLS} SIGKILLs, {mid_write} mid-write, {advanced} after a complete save, "
          f"last version {last}; every file loaded whole")
    assert mid_write > 0 and advanced > 0  # the faults did land inside and between saves


@pytest.mark.parametrize("fmt", ["strided", "hdf5"])
def test_a_full_disk_gives_a_clear_error_and_keeps_the_old_file(tmp_path, fmt):
    if fmt == "hdf5":
        pytest.importorskip("h5py")
    target = tmp_path / ("t.strd" if fmt == "strided" else "t.h5")
    if fmt == "strided":
        xp.save({"old": xp.arange(10)}, target)
    else:
        sio.save_hdf5(target, {"old": xp.arange(10)})
    before = target.read_bytes()
    report = tmp_path / "report.txt"

    def child():
        limit = 200_000  # bytes: the "disk" fills up in the middle of the new file
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG
        try:
            big = {"new": xp.ones(1 << 20)}
            xp.save(big, target) if fmt == "strided" else sio.save_hdf5(target, big)
        except OSError as e:
            report.write_text(f"{type(e).__name__}|{e.errno}|{e.filename}|{e}")
            return
        report.write_text("no error")

    pid = _fork(child)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    kind, err, filename, msg = report.read_text().split("|", 3)
    assert int(err) == errno.EFBIG, msg
    assert str(target) in msg and ".tmp" not in msg
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, "report.txt"])
