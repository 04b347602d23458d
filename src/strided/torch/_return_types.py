"""PyTorch's named tuples of results (``torch.return_types.max``, ``.sort``, ...), shared by
the namespace's functions (``strided.torch._functions``) and Array's methods (``x.sort()``
returns ``return_types.sort`` as PyTorch's ``Tensor.sort`` does)."""

from __future__ import annotations

import types
from collections import namedtuple


def _return_type(name: str, fields=("values", "indices")):
    # Note: torch.return_types.<name> is a structseq; a namedtuple is indexed, unpacked,
    # compared and has the same fields (its repr names the type as PyTorch's does).
    t = namedtuple(name, fields)
    t.__module__ = "strided.torch.return_types"
    t.__qualname__ = name

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"strided.torch.return_types.{name}(\n{body})"
    t.__repr__ = __repr__
    return t


return_types = types.SimpleNamespace(**{n: _return_type(n) for n in (
    "max", "min", "sort", "topk", "median", "nanmedian", "mode", "kthvalue", "cummax", "cummin")})
return_types.aminmax = _return_type("aminmax", ("min", "max"))
return_types.__name__ = "strided.torch.return_types"
