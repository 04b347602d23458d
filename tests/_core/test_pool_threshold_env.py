"""The pool's default threshold follows glibc's mmap threshold when the environment fixes one
(MALLOC_MMAP_THRESHOLD_, GLIBC_TUNABLES' glibc.malloc.mmap_threshold) below 256 KiB: from
there on NumPy's own buffers are fresh mappings, faulted in on every call."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# (the same test whatever the default device: CI's stand-in leg leaves it out)
pytestmark = pytest.mark.host_pinned

_PROBE = ("import numpy as np, strided as xp\n"
          "xp.set_num_threads(1)\n"
          "print(xp.get_pool_threshold())\n"
          "a = xp.ones(40000, dtype=xp.float32, device='cpu')\n"  # 160,000 bytes: between 128 KiB and 256 KiB
          "k = xp.memory_stats()['num_allocs']\n"  # (ones' own buffer: the pool's too from its threshold)
          "r = a + a\n"
          "n = np.asarray(r)\n"
          "print(type(n.base).__name__, bool((n == 2).all()), xp.memory_stats()['num_allocs'] - k)\n")


def _run(**env_vars):
    env = {k: v for k, v in os.environ.items() if k not in ("MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES")}
    env.update(env_vars)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(os.path.dirname(__file__), "..", "..", "src"),
                                         env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return int(out[0]), out[1], out[2] == "True", int(out[3])


def test_default_is_256_kib_and_a_160_kb_result_is_numpys():
    thr, base, ok, allocs = _run()
    assert thr == 256 << 10 and ok
    assert allocs == 0  # nothing pooled


@pytest.mark.parametrize("env", [{"MALLOC_MMAP_THRESHOLD_": "131072"},
                                 {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=131072"}])
def test_a_fixed_smaller_mmap_threshold_is_the_pools(env):
    thr, base, ok, allocs = _run(**env)
    assert thr == 131072 and ok
    assert allocs == 1  # the 160 KB result came from the pool


@pytest.mark.parametrize("value", ["1048576", "abc", "-1", str(64 << 20)])
def test_larger_or_bad_values_keep_the_default(value):
    assert _run(MALLOC_MMAP_THRESHOLD_=value)[0] == 256 << 10


def test_tiny_values_are_at_least_a_page():
    assert _run(MALLOC_MMAP_THRESHOLD_="0")[0] == 4096
