"""STRIDED_DEFAULT_DEVICE naming a device that is unusable here (issue 19)."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def _run(code, **env):
    e = dict(os.environ, **env)
    e.pop("PYTHONWARNINGS", None)
    return subprocess.run([sys.executable, "-W", "always", "-c", code], env=e,
                          capture_output=True, text=True, timeout=120)


def test_unusable_env_device_warns_and_falls_back_to_cpu():
    # A device type that no backend serves is unusable on every machine.
    r = _run("import strided as xp; print(xp.asarray([1.0]).device)",
             STRIDED_DEFAULT_DEVICE="nosuchdevice")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "cpu"
    assert "STRIDED_DEFAULT_DEVICE" in r.stderr and "nosuchdevice" in r.stderr
    assert "RuntimeWarning" in r.stderr


def test_explicit_use_of_unusable_device_still_raises():
    r = _run("import strided as xp\n"
             "try:\n    xp.asarray([1.0], device='nosuchdevice')\n"
             "except ValueError as e:\n    print('ValueError', e)\n",
             STRIDED_DEFAULT_DEVICE="nosuchdevice")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ValueError") and "nosuchdevice" in r.stdout


def test_cuda_without_cupy_falls_back(tmp_path):
    # A `cupy` that fails to import stands for a machine without CuPy.
    (tmp_path / "cupy").mkdir()
    (tmp_path / "cupy" / "__init__.py").write_text("raise ImportError('no CuPy here')\n")
    pp = os.pathsep.join([str(tmp_path)] + [p for p in sys.path if p])
    r = _run("import strided as xp; print(xp.asarray([1.0]).device)",
             STRIDED_DEFAULT_DEVICE="cuda", PYTHONPATH=pp)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "cpu"
    assert "STRIDED_DEFAULT_DEVICE='cuda'" in r.stderr and "CuPy" in r.stderr
