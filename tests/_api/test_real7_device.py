"""``Device.backend`` as a slot filled on first read (issue 38, real7: no Python frame per
``x.device.backend``): the backend a device type has registered, resolved once, reset by
``register_backend``/``unregister_backend``, the same error as before for a device type with
none, and AttributeError (naming the attribute) for anything else."""

from __future__ import annotations

import pickle

import pytest

import strided as xp
from strided._core import device as _device
from strided._core.device import Device, get_backend, register_backend, unregister_backend

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def test_cpu_backend_is_the_registered_one_and_stays_put():
    d = Device("cpu")
    assert d.backend is get_backend("cpu", d)
    assert d.backend is d.backend and d._backend is d.backend
    assert xp.asarray([1.0], device="cpu").device.backend is d.backend
    assert pickle.loads(pickle.dumps(d)) is d


def test_register_and_unregister_reset_a_resolved_backend():
    calls = []

    class Fake:
        def __init__(self, tag):
            self.tag = tag

        def check_device(self, device):
            pass

    def loader():
        calls.append(1)
        return Fake("loaded")

    try:
        register_backend("fake7", loader=loader)
        d = Device("fake7")
        assert d.backend.tag == "loaded" and d.backend.tag == "loaded"
        assert len(calls) == 1
        other = Fake("given")
        register_backend("fake7", other)
        assert d.backend is other and d._backend is other
        unregister_backend("fake7")
        assert d._backend is None
        with pytest.raises(Exception) as e:
            d.backend
        assert not isinstance(e.value, AttributeError)
        assert "fake7" in str(e.value)
    finally:
        _device._BACKENDS.pop("fake7", None)
        _device._LOADERS.pop("fake7", None)


def test_unknown_attribute_is_an_attribute_error():
    d = Device("cpu")
    with pytest.raises(AttributeError, match="no_such_thing"):
        d.no_such_thing
    assert not hasattr(d, "no_such_thing")
    with pytest.raises(AttributeError):
        d.colour = "red"  # (slots: no new attributes, as before)
