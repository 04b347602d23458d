"""``with torch.device(...):`` makes that device the default for the block (PyTorch 2's
context manager: the changing_default_device recipe), nested blocks restore the outer one,
and an unusable device raises at the ``with`` and leaves the default as it was."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as S  # noqa: E402


def test_the_block_default_is_pytorchs():
    for m in (torch, S):
        before = m.get_default_device()
        with m.device("cpu") as d:
            assert d == m.device("cpu") and m.ones(2).device.type == "cpu"
            assert m.get_default_device().type == "cpu"
        assert m.get_default_device() == before


def test_nested_blocks_restore_the_outer_default(sim):
    outer = strided.get_default_device()
    with S.device(sim):
        assert S.ones(2).device == sim and S.tensor([1.0]).device == sim
        with S.device("cpu"):
            assert S.zeros(1).device == S.device("cpu")
        assert S.zeros(1).device == sim
        with pytest.raises(ZeroDivisionError):
            with S.device("cpu"):
                1 / 0  # (an error inside restores the default too)
        assert S.get_default_device() == sim
    assert strided.get_default_device() is outer


def test_an_unusable_device_raises_at_the_with():
    outer = strided.get_default_device()
    with pytest.raises(ValueError, match="unknown device type 'nope'"):
        with S.device("nope:0"):
            pass
    assert strided.get_default_device() is outer
