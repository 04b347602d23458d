"""STRIDED_CACHE_LIMIT: read once at import; a bad value warns and keeps the default."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# (the same test whatever the default device: CI's stand-in leg leaves it out)
pytestmark = pytest.mark.host_pinned

_PROBE = ("import warnings, sys\n"
          "with warnings.catch_warnings(record=True) as w:\n"
          "    warnings.simplefilter('always')\n"
          "    import strided\n"
          "print(strided.get_cache_limit())\n"
          "print('|'.join(str(x.message) for x in w if 'STRIDED_CACHE_LIMIT' in str(x.message)))\n")


def _limit(value):
    env = dict(os.environ)
    env.pop("STRIDED_CACHE_LIMIT", None)
    if value is not None:
        env["STRIDED_CACHE_LIMIT"] = value
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return int(out[0]), out[1] if len(out) > 1 else ""


def test_a_number_of_bytes_is_the_limit():
    assert _limit("123456") == (123456, "")
    assert _limit(" 0 ") == (0, "")  # 0 turns caching off
    assert _limit(str(2**80)) == (sys.maxsize, "")  # clamped, as set_cache_limit clamps


@pytest.mark.parametrize("bad", ["abc", "-5", "1e9", "1.5"])
def test_a_bad_value_warns_and_keeps_the_default(bad):
    default, _ = _limit(None)
    limit, warned = _limit(bad)
    assert limit == default
    assert f"STRIDED_CACHE_LIMIT={bad!r} ignored" in warned
