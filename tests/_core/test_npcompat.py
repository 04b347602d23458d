"""strided survives a NumPy without the private attributes it reads (strided/_core/_npcompat.py).

Each case runs a fresh interpreter that computes its references with NumPy first, then
deletes one private NumPy attribute (or, for the ufunc methods that a C type cannot lose,
makes ``_npcompat``'s reader answer "absent"), then imports strided and checks that the
fallback is the one in use and that ``clip``, large (pooled, threaded) elementwise results,
NumPy functions on strided arrays and division by zero agree with NumPy, without a warning.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import strided

# (the same test whatever the default device: CI's stand-in leg leaves it out)
pytestmark = pytest.mark.host_pinned

# The strided this process imported (a checkout's src, or an installed wheel's site-packages)
SRC = str(Path(strided.__file__).resolve().parents[1])

# (what is removed, the code that removes it, a check that the fallback is in use)
CASES = {
    "umath.clip": ("import numpy._core.umath as m; del m.clip",
                   "assert c.umath_clip is c._clip_fallback"),
    "_get_madvise_hugepage": (
        "import numpy._core.multiarray as m; del m._get_madvise_hugepage",
        "assert c.madvise_hugepage() is bool(HUGE), (c.madvise_hugepage(), HUGE)"),
    "umath._extobj_contextvar": (  # (np.errstate reads _ufunc_config's: that one must stay)
        "import numpy._core.umath as m; del m._extobj_contextvar",
        "assert c.errstate_var() is not None"),
    "no errstate variable": (
        "after_load('strided._core._npcompat', errstate_var=lambda: None)",
        "import strided._core.dispatch as d; assert d.ERRSTATE is None"),
    "_ARRAY_API": (  # (the compiled take then makes its results with numpy.empty)
        "after_load('strided._core._npcompat', array_api=lambda: None)",
        "assert c.array_api() is None"),
    "ufunc._get_strided_loop": (
        "after_load('strided._core._npcompat', strided_loop_info=lambda k, dt: None)",
        "assert c.strided_loop_info(np.exp, np.dtype(np.float64)) is None"),
}

SCRIPT = """
import importlib.abc, importlib.machinery, sys, warnings
import numpy as np


def after_load(name, **attrs):
    # attrs set on module name as soon as it is executed (before its importers run)
    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname != name:
                return None
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            run = spec.loader.exec_module
            def exec_module(mod):
                run(mod)
                vars(mod).update(attrs)
            spec.loader.exec_module = exec_module
            return spec
    sys.meta_path.insert(0, Finder())

import numpy._core.multiarray
HUGE = numpy._core.multiarray._get_madvise_hugepage()
NV = np._NoValue
rng = np.random.default_rng(0)
big = rng.standard_normal(1 << 21)            # 16 MiB of float64: pooled and threaded
big[::1001] = np.nan
ints = rng.integers(-100, 100, 1 << 20).astype(np.int32)
perm, perm_big = rng.permutation(1000)[:100], rng.integers(-(1 << 21), 1 << 21, 1 << 18)
ref = {{
    "clip": np.clip(big, -0.5, 0.75), "clip_lo": np.maximum(big, -0.5),
    "clip_int": np.clip(ints, -7, 9), "clip_arr": np.clip(big[:10], big[10:20], 1.0),
    "exp": np.exp(big), "fma": big * big + 1.0, "sum": np.sum(big[:1000]),
    "hist": np.histogram(big[~np.isnan(big)][:500], bins=5)[0],
    "take": big[:1000][perm], "take_big": big[perm_big],
}}
{remove}
import strided as xp
from strided._core import _npcompat as c
{check}
warnings.simplefilter("error")
x = xp.asarray(big)
got = {{
    "clip": xp.clip(x, -0.5, 0.75), "clip_lo": xp.clip(x, min=-0.5),
    "clip_int": xp.clip(xp.asarray(ints), -7, 9),
    "clip_arr": xp.clip(x[:10], x[10:20], 1.0),
    "exp": xp.exp(x), "fma": x * x + 1.0, "sum": np.sum(x[:1000]),
    "hist": np.histogram(x[~xp.isnan(x)][:500], bins=5)[0],
    "take": x[:1000][xp.asarray(perm)], "take_big": x[xp.asarray(perm_big)],
}}
for k, v in ref.items():
    np.testing.assert_array_equal(np.asarray(got[k]), v, err_msg=k)
assert xp.asarray(got["clip"]).dtype == xp.float64
assert (xp.asarray([1.0, -1.0, 0.0]) / 0.0).tolist()[:2] == [float("inf"), float("-inf")]
assert xp.clip(xp.asarray([3.0, float("nan")]), 0.0, 1.0).tolist()[0] == 1.0
print("ok")
"""


@pytest.mark.parametrize("cext", ["", "1"], ids=["cext", "no-cext"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_import_and_results_without_a_private_numpy_attribute(case, cext):
    remove, check = CASES[case]
    code = SCRIPT.format(remove=remove, check=check)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]),
               STRIDED_DEFAULT_DEVICE="cpu", STRIDED_NO_CEXT=cext)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", f"{case}:\n{r.stdout}\n{r.stderr}"
    assert r.stderr == "", r.stderr


def test_the_fallbacks_compute_what_numpy_computes():
    import numpy as np

    from strided._core import _npcompat as c

    a = np.array([-3.0, 0.5, np.nan, 7.0, -0.0])
    for lo, hi in [(-1.0, 1.0), (np.nan, 1.0), (0.0, np.nan), (2.0, -2.0), (np.array([0, 1, 2, 3, 4.0]), 3.5)]:
        np.testing.assert_array_equal(c._clip_fallback(a, lo, hi), np.clip(a, lo, hi))
        out = np.empty_like(a)
        assert c._clip_fallback(a, lo, hi, out=out) is out
        np.testing.assert_array_equal(out, np.clip(a, lo, hi))
    i = np.arange(-5, 5, dtype=np.int16)
    r = c._clip_fallback(i, -2, 3)
    assert r.dtype == np.int16
    np.testing.assert_array_equal(r, np.clip(i, -2, 3))
    # NumPy's own hugepage setting against its rule, re-derived here
    assert c._hugepage_rule() == bool(np._core.multiarray._get_madvise_hugepage())
    var = c.errstate_var()
    with np.errstate(divide="raise"):
        assert var.get() is not None
    assert c.strided_loop_info(np.exp, np.dtype(np.float64)) is not None
    assert c.strided_loop_info(np.exp, np.dtype(np.int8)) is None  # resolved to float16: declined
    assert c.NoValue is np._NoValue


def test_no_value_is_found_where_numpy_moves_it(monkeypatch):
    # (np._NoValue cannot be deleted before import in a subprocess: NumPy's own functions
    # read it at call time.) Here: the fallback finds the very object NumPy's functions pass.
    import numpy as np
    import numpy._globals

    from strided._core import _npcompat as c

    nv = np._NoValue
    monkeypatch.delattr(np, "_NoValue")
    monkeypatch.delattr(numpy._globals, "_NoValue")
    assert c._no_value() is nv
    monkeypatch.setattr(np, "sum", lambda a, axis=None: a)  # no such default anywhere
    assert type(c._no_value()) is c._NoValueType
