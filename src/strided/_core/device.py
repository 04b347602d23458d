"""Devices and the backend registry.

A ``Device`` names where a storage lives (``cpu``, ``cuda:0``). Each device
type maps to a backend object; CuPy (or a test's simulated device) plugs in
by registering one, without touching the core.
"""

from __future__ import annotations

import os

__all__ = ["Device", "register_backend", "get_backend", "as_device"]


class DeviceMismatchError(ValueError, RuntimeError):
    """Arrays of one call on different devices: a ValueError, and the RuntimeError PyTorch
    raises for the same call."""


class Device:
    """A device: ``Device("cpu")``, ``Device("cuda:0")``, ``Device("cuda", 1)``.

    Instances are interned, so equal devices are the same object. ``cuda``
    without an index is ``cuda:0``: the index is resolved when the Device is
    made (as for the device of any PyTorch tensor).

    A device compares equal to its canonical spelling, ``str(device)``, in
    both orders, and hashes like it: ``Device("cpu") == "cpu"`` (NumPy's
    ``ndarray.device``), ``"cuda:0" == Device("cuda")``. Other spellings do
    not compare equal (``Device("cuda:0") != "cuda"``), as in PyTorch, where
    a tensor's device always carries its index and
    ``torch.device("cuda") != torch.device("cuda:0")``.

    >>> Device("cpu") == "cpu", hash(Device("cpu")) == hash("cpu")
    (True, True)
    >>> Device("cuda") is Device("cuda:0"), Device("cuda:0") == "cuda"
    (True, False)
    """

    # (``backend``: a slot, unset until first read, then read as a plain slot -- no Python
    # frame per ``x.device.backend``, ~15-120 of them per scikit-learn fit; ``_backend`` the
    # same object or None while unresolved, for readers that test it first)
    __slots__ = ("type", "index", "_name", "_backend", "backend", "__weakref__")
    _cache: dict = {}

    def __new__(cls, type_or_spec, index=None):
        if isinstance(type_or_spec, Device):
            if index is not None and index != type_or_spec.index:
                raise ValueError(f"conflicting device index {index} for {type_or_spec}")
            return type_or_spec
        key = (type_or_spec, index)
        dev = cls._cache.get(key)
        if dev is not None:
            return dev
        if not isinstance(type_or_spec, str):
            raise TypeError(f"a device is a string such as 'cpu' or 'cuda:0'; got {type_or_spec!r}")
        spec = type_or_spec.strip()
        dtype_, _, idx = spec.partition(":")
        if idx:
            if index is not None:
                raise ValueError(f"device {spec!r} already has an index; got index={index}")
            try:
                index = int(idx)
            except ValueError:
                raise ValueError(f"invalid device string {spec!r}") from None
        if index is not None and (not isinstance(index, int) or index < 0):
            raise ValueError(f"device index must be a non-negative int; got {index!r}")
        if not dtype_.isidentifier():
            raise ValueError(f"invalid device string {spec!r}")
        if dtype_ == "cpu":
            if index not in (None, 0):
                raise ValueError(f"device 'cpu' has no index {index}")
            index = None
        elif index is None:
            index = 0
        canon = (dtype_, index)
        dev = cls._cache.get(canon)
        if dev is None:
            dev = object.__new__(cls)
            dev.type = dtype_
            dev.index = index
            dev._name = dtype_ if index is None else f"{dtype_}:{index}"
            dev._backend = None
            cls._cache[canon] = dev
        cls._cache[key] = dev
        return dev

    def __repr__(self) -> str:
        return f"device(type='{self.type}')" if self.index is None else (
            f"device(type='{self.type}', index={self.index})")

    def __str__(self) -> str:
        return self._name

    # Note: Python's default for __eq__ is identity, which interning makes right for two
    # Devices; NumPy reports its device as the string "cpu", and scikit-learn (for one)
    # compares devices of mixed inputs with ``!=``, so a string compares by spelling.
    def __eq__(self, other):
        if type(other) is str:
            return other == self._name
        if isinstance(other, Device):
            return other is self
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self._name)

    def __reduce__(self):
        return (Device, (str(self),))

    # ``with device:`` makes it the default device inside the block (PyTorch's ``with
    # torch.device("cuda"):``), restored on the way out, nested blocks too.
    def __enter__(self):
        _ENTERED.append(_default_device[0])
        try:
            set_default_device(self)
        except BaseException:
            _ENTERED.pop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        _default_device[0] = _ENTERED.pop()

    def __getattr__(self, name):
        # Called only where ordinary lookup failed: ``backend`` before it is resolved (or
        # after register_backend reset it).
        if name == "backend":
            b = self._backend
            if b is None:
                b = get_backend(self.type, self)
            self.backend = self._backend = b
            return b
        raise AttributeError(f"'Device' object has no attribute {name!r}")

    def _reset_backend(self) -> None:
        self._backend = None
        try:
            del self.backend
        except AttributeError:
            pass


_BACKENDS: dict = {}
_LOADERS: dict = {}


def register_backend(device_type: str, backend=None, *, loader=None) -> None:
    """Register the backend (or a lazy ``loader()`` returning it) of a device type."""
    if backend is not None:
        _BACKENDS[device_type] = backend
    if loader is not None:
        _LOADERS[device_type] = loader
    for dev in Device._cache.values():
        if dev.type == device_type:
            dev._reset_backend()


def unregister_backend(device_type: str) -> None:
    _BACKENDS.pop(device_type, None)
    _LOADERS.pop(device_type, None)
    for dev in Device._cache.values():
        if dev.type == device_type:
            dev._reset_backend()


def get_backend(device_type: str, device: Device | None = None):
    b = _BACKENDS.get(device_type)
    if b is None:
        loader = _LOADERS.get(device_type)
        if loader is None:
            raise ValueError(f"unknown device type {device_type!r}; known: {sorted(set(_BACKENDS) | set(_LOADERS))}")
        b = loader()  # raises a clear error when unavailable
        _BACKENDS[device_type] = b
    if device is not None:
        b.check_device(device)
    return b


def as_device(device) -> Device:
    """Normalise ``None``/str/Device into a Device (``None`` means the default)."""
    if device is None:
        return _default_device[0]
    if type(device) is Device:
        return device
    if isinstance(device, str):
        return Device(device)
    raise TypeError(f"expected a device such as 'cpu' or strided.Device('cuda:0'); got {device!r}")


CPU = Device("cpu")
_default_device = [CPU]
_ENTERED: list = []  # the defaults that ``with device:`` blocks replaced, innermost last


def get_default_device() -> Device:
    """The device on which creation functions allocate by default.

    >>> import strided as xp
    >>> xp.get_default_device()
    device(type='cpu')
    """
    return _default_device[0]


def set_default_device(device) -> None:
    """Set the device on which creation functions allocate by default."""
    dev = as_device(device)
    dev.backend  # raises when unavailable
    _default_device[0] = dev


def default_device_from_env() -> None:
    """Apply ``STRIDED_DEFAULT_DEVICE`` (e.g. ``cuda``), read once when strided is imported."""
    spec = os.environ.get("STRIDED_DEFAULT_DEVICE", "").strip()
    if not spec:
        return
    try:
        set_default_device(spec)
    except (TypeError, ValueError) as e:
        # Note: a device unusable here (no CuPy, no GPU) must not make `import strided`
        # fail; the default stays cpu, and using cuda explicitly still raises.
        import warnings

        from .caller import stacklevel
        warnings.warn(f"STRIDED_DEFAULT_DEVICE={spec!r} ignored, the default device stays cpu: {e}",
                      RuntimeWarning, stacklevel=stacklevel())
