"""PyTorch's tensor layouts (``torch.layout``: ``torch.strided`` and the sparse ones) and the
flags programs read off a tensor before they use it.

Every strided array has the strided layout: ``x.layout`` is ``torch.strided``, and the
factories take ``layout=torch.strided`` (or None) as PyTorch's do; a sparse layout, which
strided has none of, is refused by name. ``x.is_sparse``, ``is_quantized``, ``is_meta``,
``is_nested``, ``is_mkldnn`` and the other backends' flags are False, ``x.is_pinned()`` and
``x.is_shared()`` False, ``x.to_dense()`` is ``x`` itself (PyTorch's of a strided tensor), and
``pin_memory=True`` raises PyTorch's error for a machine without a pinned allocator (strided
allocates no page-locked memory).

>>> import strided.torch as torch
>>> x = torch.zeros(2, 3, layout=torch.strided)
>>> x.layout, x.is_sparse, x.to_dense() is x
(torch.strided, False, True)
"""

from __future__ import annotations

from .._core.array import Array
from ._memory_format import TorchConstant

__all__ = ["layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
           "jagged"]


class layout(TorchConstant):
    """PyTorch's ``torch.layout``: the type of ``torch.strided``, ``torch.sparse_coo``, ..."""

    __slots__ = ()


strided = layout._make("strided")
sparse_coo = layout._make("sparse_coo")
sparse_csr = layout._make("sparse_csr")
sparse_csc = layout._make("sparse_csc")
sparse_bsr = layout._make("sparse_bsr")
sparse_bsc = layout._make("sparse_bsc")
jagged = layout._make("jagged")


def check_factory(func: str, layout_, pin_memory) -> None:
    """A factory's ``layout=`` and ``pin_memory=``: the strided layout (or None) and no pinning."""
    if layout_ is not None and layout_ is not strided:
        if type(layout_) is not layout:
            raise TypeError(f"{func}(): argument 'layout' must be torch.layout, not {type(layout_).__name__}")
        raise RuntimeError(f"{func}(): layout={layout_!r} is not supported: strided arrays have the "
                           f"strided layout only (no sparse or nested tensors)")
    if pin_memory:
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no pinned "
                           "memory allocator is available on this system.")


def _false(self) -> bool:
    return False


def _to_dense(self, dtype=None, *, masked_grad=None):
    """PyTorch's ``x.to_dense()``: ``x`` itself for a strided tensor (a copy cast to ``dtype``
    when one is given)."""
    return self if dtype is None or dtype is self._dtype else self.to(dtype)


def _is_pinned(self, device=None) -> bool:
    """PyTorch's ``x.is_pinned()``: False (strided allocates no page-locked memory)."""
    return False


def _is_shared(self) -> bool:
    """PyTorch's ``x.is_shared()``: False (strided's storage is never in shared memory)."""
    return False


Array.layout = property(lambda self: strided, doc="PyTorch's ``x.layout``: ``torch.strided``.")
for _flag in ("is_sparse", "is_sparse_csr", "is_quantized", "is_meta", "is_nested", "is_mkldnn",
              "is_xpu", "is_mps", "is_ipu", "is_xla", "is_vulkan", "is_maia", "is_mtia"):
    setattr(Array, _flag, property(_false, doc=f"PyTorch's ``x.{_flag}``: False for a strided array."))
Array.to_dense = _to_dense
Array.is_pinned = _is_pinned
Array.is_shared = _is_shared
