"""repr/str like PyTorch's: aligned nested brackets, dtype when not default,
``...`` summarisation past 1000 elements.

The expected strings were produced by PyTorch (``torch.`` spelled ``strided.``);
when PyTorch is installed, a second test compares a wider corpus directly.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import strided as xp

_SUFFIXES = re.compile(r"((?:,\s*(?:size=\([^)]*\)|dtype=[\w.]+))*)\)$")


def on_device(want: str, device) -> str:
    """PyTorch's repr ``want`` of a CPU tensor, as PyTorch prints the same tensor on
    ``device``: ``device='...'`` becomes the first suffix, and the suffixes are laid
    out again by PyTorch's rule (torch/_tensor_str.py ``_add_suffixes``: a suffix
    that would pass column 80 starts a new line indented like the data)."""
    if str(device) == "cpu":
        return want
    m = _SUFFIXES.search(want)
    body = want[:m.start()]
    suffixes = [f"device='{device}'"] + [t.strip() for t in re.split(r",\s*(?=size=|dtype=)", m.group(1)) if t.strip()]
    out, last = [body], len(body) - body.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > 80:
            out.append(",\n" + " " * len("tensor(") + suffix)
            last = len("tensor(") + len(suffix)
        else:
            out.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(out) + ")"


def test_on_device_follows_pytorch_layout():
    # PyTorch 2.x on a GPU prints these (the rule's two branches and the suffix order).
    assert on_device("tensor([1.])", "cuda:0") == "tensor([1.], device='cuda:0')"
    assert on_device("tensor([], size=(2, 0))", "cuda:0") == "tensor([], device='cuda:0', size=(2, 0))"
    assert on_device("tensor([   1, -100,    7], dtype=strided.int8)", "cuda:0") == (
        "tensor([   1, -100,    7], device='cuda:0', dtype=strided.int8)")
    assert on_device("tensor([  0,   1,   2,  ..., 230, 231, 232], dtype=strided.int32)", "cuda:0") == (
        "tensor([  0,   1,   2,  ..., 230, 231, 232], device='cuda:0',\n       dtype=strided.int32)")
    assert on_device("tensor([], size=(3, 0, 2), dtype=strided.float64)", "cuda:0") == (
        "tensor([], device='cuda:0', size=(3, 0, 2), dtype=strided.float64)")
    assert on_device("tensor([1, 2],\n       dtype=strided.int16)", "cpu") == "tensor([1, 2],\n       dtype=strided.int16)"


# (expression, PyTorch's repr of the same expression)
CASES = [
    ('xp.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])',
     'tensor([[4., 1.],\n        [5., 3.],\n        [2., 1.]])'),
    ('xp.arange(12.).reshape(3, 4) / 7',
     'tensor([[0.0000, 0.1429, 0.2857, 0.4286],\n        [0.5714, 0.7143, 0.8571, 1.0000],\n        [1.1429, 1.2857, 1.4286, 1.5714]])'),
    ('xp.arange(6).reshape(2, 3)',
     'tensor([[0, 1, 2],\n        [3, 4, 5]])'),
    ('xp.tensor([1, -100, 7], dtype=xp.int8)',
     'tensor([   1, -100,    7], dtype=strided.int8)'),
    ('xp.tensor([[True, False], [False, True]])',
     'tensor([[ True, False],\n        [False,  True]])'),
    ('xp.tensor([1.5, 2.0], dtype=xp.float64)',
     'tensor([1.5000, 2.0000], dtype=strided.float64)'),
    ('xp.tensor([0.5, 2.0], dtype=xp.float16)',
     'tensor([0.5000, 2.0000], dtype=strided.float16)'),
    ('xp.tensor(3.5)',
     'tensor(3.5000)'),
    ('xp.tensor(7)',
     'tensor(7)'),
    ('xp.tensor([1e-5, 1.0])',
     'tensor([1.0000e-05, 1.0000e+00])'),
    ('xp.tensor([1e10, 1.0])',
     'tensor([1.0000e+10, 1.0000e+00])'),
    ("xp.tensor([float('nan'), 1.0, float('inf'), -float('inf')])",
     'tensor([nan, 1., inf, -inf])'),
    ('xp.tensor([-0.0, 0.0])',
     'tensor([-0., 0.])'),
    ('xp.tensor([1 + 2j, 3.5 - 4j])',
     'tensor([1.0000+2.j, 3.5000-4.j])'),
    ('xp.tensor([1j, -1], dtype=xp.complex128)',
     'tensor([ 0.+1.j, -1.+0.j], dtype=strided.complex128)'),
    ('xp.tensor([])',
     'tensor([])'),
    ('xp.tensor([], dtype=xp.int64)',
     'tensor([], dtype=strided.int64)'),
    ('xp.zeros(2, 0)',
     'tensor([], size=(2, 0))'),
    ('xp.zeros(0, 3, dtype=xp.int32)',
     'tensor([], size=(0, 3), dtype=strided.int32)'),
    ('xp.arange(40.) * 1.5',
     'tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000, 45.0000, 46.5000,\n        48.0000, 49.5000, 51.0000, 52.5000, 54.0000, 55.5000, 57.0000, 58.5000])'),
    ('xp.arange(2000.)',
     'tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])'),
    ('xp.arange(1200).reshape(30, 40)',
     'tensor([[   0,    1,    2,  ...,   37,   38,   39],\n        [  40,   41,   42,  ...,   77,   78,   79],\n        [  80,   81,   82,  ...,  117,  118,  119],\n        ...,\n        [1080, 1081, 1082,  ..., 1117, 1118, 1119],\n        [1120, 1121, 1122,  ..., 1157, 1158, 1159],\n        [1160, 1161, 1162,  ..., 1197, 1198, 1199]])'),
    ('xp.arange(24).reshape(2, 3, 4)',
     'tensor([[[ 0,  1,  2,  3],\n         [ 4,  5,  6,  7],\n         [ 8,  9, 10, 11]],\n\n        [[12, 13, 14, 15],\n         [16, 17, 18, 19],\n         [20, 21, 22, 23]]])'),
    ('xp.arange(1001, dtype=xp.int32) % 256',
     'tensor([  0,   1,   2,  ..., 230, 231, 232], dtype=strided.int32)'),
    ('xp.arange(6.).reshape(2, 3).t()',
     'tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]])'),
    ('xp.arange(4).flip(0)',
     'tensor([3, 2, 1, 0])'),
]


@pytest.mark.parametrize("expr,want", CASES, ids=[c[0] for c in CASES])
def test_repr_matches_pytorch(expr, want):
    x = eval(expr, {"xp": xp})
    assert repr(x) == on_device(want, x.device)
    assert str(x) == on_device(want, x.device)
    assert repr(x.cpu()) == want


def test_seed_points_repr():
    points = xp.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
    assert repr(points[:2]) == on_device("tensor([[4., 1.],\n        [5., 3.]])", points.device)


def test_summarisation_threshold_is_1000_elements():
    assert "..." not in repr(xp.arange(1000))
    assert "..." in repr(xp.arange(1001))
    assert repr(xp.zeros(10, 101)).count("\n") == 6  # 3 + ... + 3 rows


def test_dtype_shown_when_not_default(default_float64, device):
    assert repr(xp.asarray([1.5])) == on_device("tensor([1.5000])", device)
    assert repr(xp.asarray([1.5], dtype=xp.float32)) == on_device("tensor([1.5000], dtype=strided.float32)", device)
    assert repr(xp.asarray([1j])) == on_device("tensor([0.+1.j])", device)
    assert repr(xp.asarray([1j], dtype=xp.complex64)) == on_device("tensor([0.+1.j], dtype=strided.complex64)",
                                                                    device)
    assert repr(xp.zeros(0)) == on_device("tensor([])", device)
    assert repr(xp.zeros(0, dtype=xp.float32)) == on_device("tensor([], dtype=strided.float32)", device)


def test_long_suffix_wraps_to_a_new_line():
    x = xp.arange(18, dtype=xp.int16) * 1000
    r = repr(x.cpu())
    assert r.endswith(",\n       dtype=strided.int16)")
    assert repr(x) == on_device(r, x.device)


def test_format_of_0d_arrays(device):
    assert f"{xp.asarray(2.5):.2f}" == "2.50"
    assert f"{xp.asarray([1.0])}" == on_device("tensor([1.])", device)


RNG = np.random.default_rng(0)
CORPUS = [
    np.arange(2000.0), np.array([1e-5, 1.0]), np.zeros((2, 0)), np.array([], np.int32), np.array(3.5, np.float32),
    np.arange(60.0).reshape(3, 4, 5) / 7, np.array([np.nan, 1.0, np.inf]), np.array([True, False]),
    np.array([1, 2], np.int8), np.ones(2), np.ones(2, np.float16), np.ones(2, np.complex128),
    np.arange(24).reshape(2, 3, 4), RNG.standard_normal((7, 8)), RNG.standard_normal((40, 40, 3)).astype(np.float32),
    np.arange(1200).reshape(30, 40), np.array([-0.0, 0.0]), np.array([123456789.0]), np.array(5), np.array(True),
    RNG.standard_normal(30) * 1e-6, (RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))).astype(np.complex64),
    np.zeros((3, 0, 2)), np.array([[1, -100], [1000, 5]], np.int16), np.arange(5000, dtype=np.uint8),
    np.array([np.nan, np.nan]), np.array([np.inf, -np.inf, 0.0]), RNG.standard_normal((2, 2, 2, 2)),
    np.array([1e-3j, 1 + 0j]), np.ones((3, 400)), np.array(1 + 1j), RNG.integers(-10**6, 10**6, (50, 50)),
    (RNG.standard_normal((20, 70)) * 1e5).astype(np.float32),
]


def test_repr_matches_torch_when_installed():
    torch = pytest.importorskip("torch")
    for a in CORPUS:
        x = xp.asarray(a.copy())
        assert repr(x) == on_device(repr(torch.from_numpy(a.copy())).replace("torch.", "strided."), x.device)
