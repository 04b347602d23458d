"""``strided.torch.random``: PyTorch's ``torch.random`` over strided's generators.

``manual_seed``, ``seed`` and ``initial_seed`` are ``strided.torch``'s own (one seed for every
device's default generator). ``get_rng_state`` returns the CPU default generator's state as a
uint8 array (PyTorch's ByteTensor; strided's 48 bytes: the seed, then NumPy PCG64's state,
increment and buffered word, little-endian, not PyTorch's 5056 Mersenne-Twister bytes), and
``set_rng_state`` takes it back (or the dict ``strided.torch.get_rng_state`` returns).
``fork_rng`` restores the generators' states when its block ends. ``default_generator`` is the
CPU default ``Generator``.

>>> import strided.torch as torch
>>> state = torch.random.get_rng_state()
>>> a = torch.rand(3)
>>> torch.random.set_rng_state(state)
>>> bool((torch.rand(3) == a).all()), state.dtype
(True, strided.uint8)
"""

from __future__ import annotations

import contextlib
import sys

from .._core import dtypes as _dtypes
from .._core.array import Array
from . import _random
from ._random import initial_seed, manual_seed, seed  # noqa: F401

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]

default_generator = _random.default_generator("cpu")

_FIELDS = ((8, "seed"), (16, "state"), (16, "inc"), (4, "has_uint32"), (4, "uinteger"))
_STATE_BYTES = sum(n for n, _ in _FIELDS)


def _encode(state: dict) -> bytes:
    bg = state["bit_generator"]
    if bg.get("bit_generator") != "PCG64":
        raise NotImplementedError(f"get_rng_state(): the CPU generator is {bg.get('bit_generator')}, "
                                  f"not the PCG64 strided encodes")
    values = {"seed": state["seed"], "state": bg["state"]["state"], "inc": bg["state"]["inc"],
              "has_uint32": bg["has_uint32"], "uinteger": bg["uinteger"]}
    return b"".join(int(values[k]).to_bytes(n, "little") for n, k in _FIELDS)


def _decode(raw: bytes) -> dict:
    values, i = {}, 0
    for n, k in _FIELDS:
        values[k] = int.from_bytes(raw[i:i + n], "little")
        i += n
    return {"seed": values["seed"],
            "bit_generator": {"bit_generator": "PCG64",
                              "state": {"state": values["state"], "inc": values["inc"]},
                              "has_uint32": values["has_uint32"], "uinteger": values["uinteger"]}}


def get_rng_state() -> Array:
    """The CPU default generator's state as a uint8 array (pass it to ``set_rng_state``).

    >>> import strided.torch as torch
    >>> torch.random.get_rng_state().shape
    strided.Size([48])
    """
    import numpy as np
    raw = _encode(_random.get_rng_state())
    return sys.modules["strided"].asarray(np.frombuffer(raw, dtype=np.uint8).copy())


def set_rng_state(new_state) -> None:
    """Restore the CPU default generator from ``get_rng_state``'s uint8 array (or strided's dict).

    >>> import strided.torch as torch
    >>> s = torch.random.get_rng_state(); x = torch.randn(2)
    >>> torch.random.set_rng_state(s); bool((torch.randn(2) == x).all())
    True
    """
    if isinstance(new_state, dict):
        _random.set_rng_state(new_state)
        return
    if not isinstance(new_state, Array):
        raise TypeError(f"expected a torch.ByteTensor (a uint8 strided array), but got "
                        f"{type(new_state).__name__}")
    if new_state.dtype != _dtypes.uint8:
        raise TypeError(f"RNG state must be a torch.ByteTensor (uint8); got {new_state.dtype.name}")
    if new_state.numel() != _STATE_BYTES:
        raise RuntimeError(f"Expected a CPU generator state of size {_STATE_BYTES} (strided's PCG64 "
                           f"state) but found the input RNG state size to be {new_state.numel()}")
    import numpy as np
    raw = np.asarray(new_state.detach().to_device("cpu")).reshape(-1).tobytes()
    _random.set_rng_state(_decode(raw))


def _device_generators(devices):
    gens = [g for dev, g in _random._GENERATORS.items() if dev.type != "cpu"]
    if devices is None:
        return gens
    from .._core.device import as_device
    wanted = set()
    for d in devices:
        wanted.add(as_device(f"cuda:{d}" if isinstance(d, int) else d))
    return [g for g in gens if g.device in wanted]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Within the ``with`` block the random generators may be reseeded or drawn from; on exit
    the CPU default generator's state, and that of the default generators of ``devices`` (all
    of strided's non-CPU default generators when None), are restored. ``enabled=False`` does nothing.

    >>> import strided.torch as torch
    >>> before, state = torch.random.initial_seed(), torch.random.get_rng_state()
    >>> with torch.random.fork_rng():
    ...     _ = torch.manual_seed(before + 1); _ = torch.rand(5)
    >>> torch.random.initial_seed() == before, bool((torch.random.get_rng_state() == state).all())
    (True, True)
    """
    if not enabled:
        yield
        return
    cpu = _random.default_generator("cpu")
    saved = [(g, g.get_state()) for g in [cpu, *_device_generators(devices)]]
    try:
        yield
    finally:
        for g, state in saved:
            g.set_state(state)
