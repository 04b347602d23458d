"""``__array_namespace_info__``: the standard's inspection API."""

from __future__ import annotations

from . import _dtypes
from ._device import CPU, _BACKENDS, _LOADERS, Device, get_default_device

__all__ = ["__array_namespace_info__"]

_KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
    "real floating": "f", "complex floating": "c", "numeric": "iufc",
}


class __array_namespace_info__:
    """Inspection of what this namespace supports."""

    def capabilities(self) -> dict:
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        return get_default_device()

    def devices(self) -> list:
        out = [CPU]
        for dtype in sorted(set(_BACKENDS) | set(_LOADERS)):
            if dtype == "cpu":
                continue
            try:
                from ._device import get_backend
                b = get_backend(dtype)
            except Exception:
                continue
            out.extend(b.devices())
        return out

    def default_dtypes(self, *, device=None) -> dict:
        self._check_device(device)
        return {
            "real floating": _dtypes.get_default_dtype(),
            "complex floating": _dtypes.default_complex(),
            "integral": _dtypes.int64,
            "indexing": _dtypes.int64,
        }

    def dtypes(self, *, device=None, kind=None) -> dict:
        self._check_device(device)
        if kind is None:
            kinds = "biufc"
        elif isinstance(kind, tuple):
            kinds = "".join(self._kind(k) for k in kind)
        else:
            kinds = self._kind(kind)
        return {d.name: d for d in _dtypes.ALL_DTYPES if d.kind in kinds}

    @staticmethod
    def _kind(kind) -> str:
        try:
            return _KINDS[kind]
        except (KeyError, TypeError):
            raise ValueError(f"unknown dtype kind {kind!r}; expected one of {list(_KINDS)}") from None

    @staticmethod
    def _check_device(device) -> None:
        if device is not None and not isinstance(device, Device):
            raise ValueError(f"expected a strided Device; got {device!r}")
