"""``__array_namespace_info__().dtypes`` answered from a cache (issue 38, real7: scikit-learn's
lbfgs loop asks for ``kind="real floating"`` on every loss call): the same answer as the
standard's reference namespace (array-api-strict) for every kind, a new dict each call, and
the same errors for an unknown kind or device."""

from __future__ import annotations

import pytest

import strided as xp

strict = pytest.importorskip("array_api_strict")

_KINDS = [None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
          "complex floating", "numeric", ("bool", "real floating"), ("integral", "complex floating")]


@pytest.mark.parametrize("kind", _KINDS)
@pytest.mark.parametrize("device", ["absent", None, "own"])
def test_dtypes_by_kind_match_the_reference(kind, device):
    info = xp.__array_namespace_info__()
    kw = {} if device == "absent" else {"device": None if device is None else xp.asarray(1.0).device}
    for _ in range(2):  # the second answer comes from the cache
        got = info.dtypes(kind=kind, **kw)
        ref = strict.__array_namespace_info__().dtypes(kind=kind)
        assert sorted(got) == sorted(ref)
        assert all(got[k] == getattr(xp, k) for k in got)
        got.clear()  # the caller's dict: the next call's answer is whole again


def test_dtypes_errors():
    info = xp.__array_namespace_info__()
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="floating")
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind=("bool", "nope"))
    with pytest.raises(ValueError, match="device"):
        info.dtypes(device="tpu")
