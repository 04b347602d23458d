"""docs/torch-parity.md stays true.

The page is regenerated from the live code and compared (signatures, the
``strided.torch`` column, which PyTorch calls raise in strided). With PyTorch
installed, every name's call (written exactly as for PyTorch) runs with both
libraries on the same data: a name without a note must give PyTorch's result
(values, shapes and dtypes); a note that the call can show must still show (the
results differ: a note never outlives the behaviour it describes); and each
strided spelling of ALT must give PyTorch's result.
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
    assert not [n for n in tp.NOTES if n not in NAMES]
    assert set(tp.SPECS) <= set(NAMES) and set(tp.ALT) <= set(NAMES)
    assert tp.UNSHOWN <= set(tp.NOTES)


def test_page_columns_come_from_the_code():
    import inspect

    page = tp.PAGE.read_text()
    assert f"| `torch.matmul` | {tp.status('torch.matmul')} | `{inspect.signature(xp.matmul)}".replace(
        " -> 'Array'", "") in page.replace(" -> 'Array'", "")
    pkg = tp.torch_package()
    if pkg is None:
        assert "The `strided.torch` package is not part of this build" in page
    else:
        row = next(line for line in page.splitlines() if line.startswith("| `torch.sum` |"))
        assert row.split(" | ")[3] == ("yes" if hasattr(pkg, "sum") else "no")
    # a call that raises in strided makes the name differ, and the page quotes the error
    for n in NAMES:
        if tp.exists(n) and tp.raised(n):
            assert tp.status(n) == "supported with differences", n


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
    shape_only = spec.startswith("shape:")
    path = str(tmp_path / f"{lib.__name__}.bin")
    return shape_only, _plain(tp.run_spec(spec, lib, path, torch), torch)


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


def _same(t, s, shape_only) -> bool:
    try:
        _assert_same(t, s, shape_only, "")
    except AssertionError:
        return False
    return True


@pytest.mark.parametrize("name", PRESENT)
def test_against_pytorch(name, tmp_path, on_cpu):  # PyTorch's side runs on the CPU; so does ours
    torch = pytest.importorskip("torch")
    spec = tp.SPECS[name]
    shape_only, t = _run(spec, torch, tmp_path, torch)
    if tp.raised(name) is None:
        _, s = _run(spec, xp, tmp_path, torch)
        if name in tp.NOTES and not shape_only and name not in tp.UNSHOWN:
            assert not _same(t, s, shape_only), (
                f"{name}: PyTorch's call gives PyTorch's result now; the page's note is stale: "
                f"{tp.NOTES[name]}")
        else:
            _assert_same(t, s, shape_only, name)
    if name in tp.ALT:
        alt = tp.ALT[name]
        _, t = _run(alt, torch, tmp_path, torch)
        _, s = _run(alt, xp, tmp_path, torch)
        _assert_same(t, s, alt.startswith("shape:"), f"{name} (ALT)")


def test_specs_are_pytorch_code():
    # A spec is PyTorch's call: it must not branch on the library (ALT does, on purpose).
    assert not [n for n, spec in tp.SPECS.items() if "lib is torch" in spec]
