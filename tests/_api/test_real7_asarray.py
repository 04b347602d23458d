"""``asarray`` of an array of ours (issue 38, real7): the compiled identity case (``_chot``'s
K_ASARRAY, taken before the hook test, the error state and the Python frame) must give what
the Python definition gives -- the same object exactly where nothing asked changes the array,
a new array otherwise -- and what NumPy's ``asarray`` gives for the same request on an ndarray
(shared memory or a copy, the dtype asked for, the errors). Every keyword the identity case
reads is drawn: absent, None, the array's own value, another value."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import strided as xp

# the Python definition behind the compiled entry point (and behind the Python quiet wrapper)
_definition = xp.asarray.__wrapped__

_ABSENT = object()
_DTYPES = {"float64": np.float64, "float32": np.float32, "int64": np.int64, "bool": np.bool_}


def _host(a):
    return np.asarray(a.cpu())


def _kwargs(data, x):
    kw = {}
    other = xp.float32 if x.dtype != xp.float32 else xp.float64
    for key, choices in (("dtype", [_ABSENT, None, x.dtype, other]),
                         ("device", [_ABSENT, None, x.device]),
                         ("copy", [_ABSENT, None, False, True]),
                         ("requires_grad", [_ABSENT, False]),
                         ("names", [_ABSENT, None])):
        v = data.draw(st.sampled_from(choices), label=key)
        if v is not _ABSENT:
            kw[key] = v
    return kw


@settings(max_examples=200, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(sorted(_DTYPES)),
       shape=st.sampled_from([(), (0,), (5,), (3, 4)]))
def test_asarray_of_an_own_array_matches_the_definition_and_numpy(data, dtype, shape):
    n = (np.arange(int(np.prod(shape))) % 3).astype(_DTYPES[dtype]).reshape(shape)
    x = xp.asarray(n.copy())
    kw = _kwargs(data, x)
    nkw = {k: (v._np if k == "dtype" and v is not None else v) for k, v in kw.items()
           if k in ("dtype", "copy")}
    want = nkw.get("dtype")
    if nkw.get("copy") is False and want is not None and want != n.dtype:
        # a cast without a copy: an error in NumPy, in the compiled front and the definition
        with pytest.raises(ValueError):
            np.asarray(n, **nkw)
        with pytest.raises(ValueError):
            xp.asarray(x, **kw)
        with pytest.raises(ValueError):
            _definition(x, **kw)
        return
    r = xp.asarray(x, **kw)
    ref = _definition(x, **kw)  # the Python definition (no compiled front)
    assert (r is x) == (ref is x)
    assert r.dtype == ref.dtype and r.shape == ref.shape and r.device == ref.device
    np.testing.assert_array_equal(_host(r), _host(ref))
    # NumPy's asarray of the same request: shares memory exactly where ours does
    nr = np.asarray(n, **nkw)
    assert r.dtype == xp.asarray(nr).dtype
    np.testing.assert_array_equal(_host(r), nr)
    shares = np.shares_memory(nr, n) if n.size else nr is n
    assert (r is x) == shares, (kw, nkw)
    if r is not x and x.size:
        # a copy is a copy: writing it leaves x as it was
        r[(0,) * r.ndim] = 7
        np.testing.assert_array_equal(_host(x), n)


def test_asarray_identity_case_declines_what_it_does_not_know():
    x = xp.asarray([1.0, 2.0])
    # extra positional argument, unknown keyword: the definition's own TypeError
    with pytest.raises(TypeError):
        xp.asarray(x, None)
    with pytest.raises(TypeError):
        xp.asarray(x, order="C")
    # a device given by name (not the Device object): the definition decides, same answer
    r = xp.asarray(x, device=str(x.device))
    assert r.device == x.device and (r is x) == (_definition(x, device=str(x.device)) is x)
    # requires_grad=True: the Python definition's answer (the hook's), not the identity case
    y = xp.asarray([1.0, 2.0])
    g = xp.asarray(x, requires_grad=True)
    ref = _definition(y, requires_grad=True)
    assert g.requires_grad and ref.requires_grad and (g is x) == (ref is y)


def test_asarray_of_a_named_array_keeps_it():
    x = xp.asarray(np.ones((2, 3)), names=("a", "b"))
    for kw in ({}, {"names": None}, {"copy": False}, {"dtype": x.dtype}):
        r, ref = xp.asarray(x, **kw), _definition(x, **kw)
        assert (r is x) == (ref is x) and r.names == ref.names == ("a", "b")
