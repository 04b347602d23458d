"""Hypothesis: overlap refusals and version counters agree with PyTorch's behaviour.

Random chains of views (slices with steps, transposes, expands of size-1
dimensions, dtype and complex-part reinterpretations, detach) are built the
same way in strided and in torch; then a write through the last view must be
refused by both or by neither (and write the same values), and every write
must be seen by the base's version counter and by autograd in both.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strided as xp

torch = pytest.importorskip("torch")

EXAMPLES = 150
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def view_chains(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(ndim))
    steps = []
    cur = list(shape)
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["slice", "transpose", "expand", "index"]))
        if op == "slice" and cur:
            ax = draw(st.integers(0, len(cur) - 1))
            start = draw(st.integers(0, cur[ax] - 1))
            step = draw(st.integers(1, 3))
            steps.append(("slice", ax, start, step))
            cur[ax] = len(range(start, cur[ax], step))
        elif op == "transpose" and len(cur) >= 2:
            a, b = draw(st.permutations(range(len(cur))))[:2]
            steps.append(("transpose", a, b))
            cur[a], cur[b] = cur[b], cur[a]
        elif op == "expand":
            n = draw(st.integers(1, 3))
            steps.append(("expand", n))
            cur = [n] + cur
        elif op == "index" and len(cur) >= 2:
            i = draw(st.integers(0, cur[0] - 1))
            steps.append(("index", i))
            cur = cur[1:]
    return shape, steps


def _apply(x, steps, lib):
    for s in steps:
        if s[0] == "slice":
            _, ax, start, step = s
            key = (slice(None),) * ax + (slice(start, None, step),)
            x = x[key]
        elif s[0] == "transpose":
            x = x.transpose(s[1], s[2])
        elif s[0] == "expand":
            x = x.unsqueeze(0).expand(s[1], *x.shape)
        else:
            x = x[s[1]]
    return x


def _outcome(fn):
    try:
        fn()
        return "ok"
    except RuntimeError as e:
        return "overlap" if "single memory location" in str(e) else f"other: {e}"


WRITES = {
    "add_": lambda v, lib: v.add_(1),
    "mul_": lambda v, lib: v.mul_(2),
    "copy_": lambda v, lib: v.copy_(v * 0 + 5) if lib is xp else v.copy_(v * 0 + 5),
    "setitem": lambda v, lib: v.__setitem__(Ellipsis, 7.0),
    "fill_": lambda v, lib: v.fill_(3.0),
}


@SETTINGS
@given(chain=view_chains(), write=st.sampled_from(sorted(WRITES)))
def test_overlap_refusals_match_torch(chain, write):
    shape, steps = chain
    n = int(np.prod(shape))
    ours_base = xp.reshape(xp.arange(n, dtype=xp.float64), shape)
    theirs_base = torch.arange(n, dtype=torch.float64).reshape(shape)
    ours = _outcome(lambda: WRITES[write](_apply(ours_base, steps, xp), xp))
    theirs = _outcome(lambda: WRITES[write](_apply(theirs_base, steps, torch), torch))
    assert ours == theirs, (steps, write)
    assert np.asarray(ours_base.cpu().numpy()).tolist() == theirs_base.numpy().tolist()


REINTERPRET = {
    "real": (lambda x: x.real, lambda t: t.real),
    "imag": (lambda x: x.imag, lambda t: t.imag),
    "view(float64)": (lambda x: x.view(xp.float64), lambda t: t.view(torch.float64)),
    "view(int64)": (lambda x: x.view(xp.int64), lambda t: t.view(torch.int64)),
    "detach": (lambda x: x.detach(), lambda t: t.detach()),
    "slice": (lambda x: x[1:], lambda t: t[1:]),
    "none": (lambda x: x, lambda t: t),
}


@SETTINGS
@given(first=st.sampled_from(sorted(REINTERPRET)), second=st.sampled_from(sorted(REINTERPRET)),
       write=st.sampled_from(["setitem", "add_", "zero_"]))
def test_version_counters_and_autograd_see_writes_through_any_view_as_torch(first, second, write):
    def chain(x, which):
        v = REINTERPRET[first][which](x)
        if v.dtype in (xp.complex64, torch.complex64) or first in ("detach", "slice", "none"):
            v = REINTERPRET[second][which](v)
        return v

    def run(lib, which):
        w = (xp if lib == "xp" else torch).ones(4, dtype=xp.complex64 if lib == "xp" else torch.complex64,
                                                 requires_grad=True)
        y = w * 1
        z = (y * y).sum().abs()  # y is saved for backward
        base_version = y._version
        ctx = xp.autograd.no_grad() if lib == "xp" else torch.no_grad()
        with ctx:
            v = chain(y, which)
            if write == "setitem":
                v[0] = 1
            elif write == "add_":
                v.add_(1)
            else:
                v.zero_()
        bumped = y._version != base_version
        try:
            z.backward()
            refused = False
        except RuntimeError as e:
            assert "modified by an inplace operation" in str(e)
            refused = True
        return bumped, refused

    assert run("xp", 0) == run("torch", 1) == (True, True)
