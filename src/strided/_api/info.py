"""``__array_namespace_info__``: the standard's inspection API."""

from __future__ import annotations

from .._core import dtypes as _dtypes
from .._core.device import CPU, _BACKENDS, _LOADERS, Device, as_device, get_backend, get_default_device

__all__ = ["__array_namespace_info__"]

_KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
    "real floating": "f", "complex floating": "c", "numeric": "iufc",
}
# Note: float16 is a strided dtype (PyTorch's half) but not one of the
# standard's, so the inspection API, which lists the standard's dtypes, leaves it out.
_STANDARD_DTYPES = tuple(d for d in _dtypes.ALL_DTYPES if d is not _dtypes.float16)
# dtypes(kind=...)'s answer by kind letters, built on first use
_BY_KINDS: dict = {}


class __array_namespace_info__:
    """Inspection of what this namespace supports.

    >>> import strided as xp
    >>> xp.__array_namespace_info__().default_dtypes()["real floating"]
    strided.float32
    """

    def capabilities(self) -> dict:
        """Optional features: boolean indexing, data-dependent shapes, max dimensions."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        """The device creation functions use when none is given."""
        return get_default_device()

    def devices(self) -> tuple:
        """Every device strided can use now: cpu, plus the GPUs of an installed backend."""
        out = [CPU]
        for dev_type in sorted(set(_BACKENDS) | set(_LOADERS)):
            if dev_type == "cpu":
                continue
            try:
                backend = get_backend(dev_type)
            except Exception:  # the backend is not installed or finds no device
                continue
            out.extend(backend.devices())
        return tuple(out)

    def default_dtypes(self, *, device=None) -> dict:
        """The default dtypes for floats, complex numbers, integers and indices."""
        self._check_device(device)
        return {
            "real floating": _dtypes.get_default_dtype(),
            "complex floating": _dtypes.default_complex(),
            "integral": _dtypes.int64,
            "indexing": _dtypes.int64,
        }

    def dtypes(self, *, device=None, kind=None) -> dict:
        """The standard's dtypes of ``kind`` (a kind name, a tuple of them, or None for all)."""
        if device is not None and (type(device) is not Device or device.type != "cpu"):
            self._check_device(device)
        if kind is None:
            kinds = "biufc"
        elif type(kind) is str and kind in _KINDS:
            kinds = _KINDS[kind]
        elif isinstance(kind, tuple):
            kinds = "".join(self._kind(k) for k in kind)
        else:
            kinds = self._kind(kind)
        found = _BY_KINDS.get(kinds)
        if found is None:
            found = _BY_KINDS[kinds] = {d.name: d for d in _STANDARD_DTYPES if d.kind in kinds}
        # (a new dict each call, the caller may change it; scikit-learn asks for
        # kind="real floating" in every loss and gradient call of its lbfgs loop)
        return dict(found)

    @staticmethod
    def _kind(kind) -> str:
        try:
            return _KINDS[kind]
        except (KeyError, TypeError):
            raise ValueError(f"unknown dtype kind {kind!r}; expected one of {list(_KINDS)}") from None

    @staticmethod
    def _check_device(device) -> None:
        if device is None:
            return
        try:
            as_device(device).backend
        except (TypeError, ValueError) as e:
            raise ValueError(f"unknown device {device!r}: {e}") from None
