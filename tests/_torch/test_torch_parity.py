"""docs/torch-parity.md stays true.

The page is regenerated from code and compared; every name marked supported
(or supported with differences) must exist and have a call in SPECS, and when
PyTorch is installed each call runs with both libraries on the same data and
the results must agree (values, shapes and dtypes).
"""

from __future__ import annotations

import os
import pathlib
import sys

import numpy as np
import pytest

import strided as xp

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_tools"))
import torch_parity as tp  # noqa: E402

sys.path.pop(0)

NAMES = tp.names()


def test_the_list_has_150_distinct_names_with_a_source():
    assert len(NAMES) == 150 and len(set(NAMES)) == 150
    assert all(n.split(".")[0] in ("torch", "Tensor") for n in NAMES)
    assert "https://pytorch.org/docs/stable/" in tp.DATA.read_text()


def test_page_is_up_to_date():
    assert tp.PAGE.read_text() == tp.page(), (
        "docs/torch-parity.md is stale: run `python docs/_tools/torch_parity.py`")


def test_every_present_name_has_a_spec_and_no_stale_entries():
    present = [n for n in NAMES if tp.exists(n)]
    assert not [n for n in present if n not in tp.SPECS]
    assert not [n for n in tp.DIFFERENCES if n not in NAMES]
    assert set(tp.SPECS) <= set(NAMES)


def test_counts():
    c = tp.counts()
    assert sum(c.values()) == 150
    assert c["missing"] <= 5  # what was left out is listed on the page


def _plain(v, torch):
    if type(v).__name__ == "Size" or isinstance(v, getattr(torch, "Size", ())):
        return tuple(v)
    if isinstance(v, (tuple, list)):
        return [_plain(e, torch) for e in v]
    if torch is not None and isinstance(v, torch.Tensor):
        return v.detach().numpy()
    if isinstance(v, xp.Array):
        return np.asarray((v.detach() if v.requires_grad else v).cpu())
    return v


def _run(spec, lib, tmp_path, torch):
    env = tp.inputs(lib, np)
    env["torch"] = torch
    env["path"] = str(tmp_path / f"{lib.__name__}.bin")
    shape_only = spec.startswith("shape:")
    *stmts, last = spec.removeprefix("shape:").split("\n")
    exec("\n".join(stmts), env)  # noqa: S102 (our own specs)
    return shape_only, _plain(eval(last, env), torch)  # noqa: S307


def _assert_same(t, s, shape_only, where):
    if isinstance(t, list):
        assert isinstance(s, list) and len(s) == len(t), where
        for i, (a, b) in enumerate(zip(t, s)):
            _assert_same(a, b, shape_only, f"{where}[{i}]")
    elif isinstance(t, np.ndarray):
        assert isinstance(s, np.ndarray), where
        assert (s.shape, s.dtype) == (t.shape, t.dtype), where
        if not shape_only:
            np.testing.assert_allclose(s, t, rtol=1e-5, atol=1e-6, err_msg=where)
    elif isinstance(t, float):
        assert s == pytest.approx(t, rel=1e-5), where
    else:
        assert s == t, where


PRESENT = [n for n in NAMES if tp.exists(n)]


@pytest.mark.parametrize("name", PRESENT)
def test_against_pytorch(name, tmp_path, on_cpu):  # PyTorch's side runs on the CPU; so does ours
    torch = pytest.importorskip("torch")
    spec = tp.SPECS[name]
    shape_only, t = _run(spec, torch, tmp_path, torch)
    _, s = _run(spec, xp, tmp_path, torch)
    _assert_same(t, s, shape_only, name)


@pytest.mark.parametrize("name", [n for n in PRESENT if tp.status(n) == "supported"])
def test_supported_means_spelled_as_in_pytorch(name):
    # A supported name's spec is PyTorch code: it must not branch on the library.
    assert "lib is torch" not in tp.SPECS[name]
