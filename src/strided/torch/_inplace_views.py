"""PyTorch's in-place methods that strided's rows do not generate.

In-place view methods (``unsqueeze_``, ``squeeze_``, ``t_``, ``transpose_``,
``swapdims_``, ``swapaxes_``) change ``self``'s metadata (offset, shape,
strides) and never its data: ``self`` is the same object afterwards, with the
layout of the out-of-place view. As in PyTorch:

- the storage's version counter is bumped (``x._version`` goes up by one;
  a value saved for backward from this storage then refuses to unpack);
- a leaf that requires grad refuses them while grad mode is on; under
  ``no_grad`` they only change the metadata;
- on an array with history, ``self`` takes the history of the view (its
  ``grad_fn`` becomes the view's backward node), so gradients flow back
  through the old layout.

The arithmetic ones (``addcmul_``, ``addcdiv_``, ``clamp_min_``,
``clamp_max_``) are compositions of strided's own in-place methods (so they
record for autograd and bump the version counter as those do), evaluated in
the order of PyTorch's CPU kernels (``value * t1 * t2``, ``value * t1 / t2``);
PyTorch's vectorised kernels may fuse the multiply-add, so results can differ
from PyTorch's in the last bit.
"""

from __future__ import annotations

from .._core.array import Array, Ext

__all__: list = []


def _leaf_check(self: Array, func: str) -> None:
    e = self._ext
    if e is not None and e.requires_grad and e.grad_fn is None:
        # Only an array that requires grad has loaded autograd: import it lazily.
        from ..autograd._mode import is_grad_enabled
        if is_grad_enabled():
            raise RuntimeError(
                f"{func}(): a leaf array that requires grad is being used in an in-place "
                "operation (PyTorch refuses it too); use the out-of-place view, or run it "
                "under no_grad()")


def _become(self: Array, v: Array) -> Array:
    """Give ``self`` the layout (and history, names) of its view ``v``; bump the version."""
    if v._st is None:
        v._materialize()
    self._st = v._st
    self._np = v._np
    self._off = v._off
    self._shape = v._shape
    self._str = v._str
    ve, e = v._ext, self._ext
    if ve is not None or e is not None:
        if e is None:
            e = self._ext = Ext()
        if ve is not None and ve.grad_fn is not None:
            e.grad_fn = ve.grad_fn
            e.output_nr = ve.output_nr
            e.requires_grad = True
        e.names = None if ve is None else ve.names
    self._st._version += 1
    return self


def unsqueeze_(self, dim) -> Array:
    """In-place ``unsqueeze``: insert a size-1 dimension at ``dim`` into ``self``'s shape.

    >>> import strided as xp
    >>> x = xp.zeros(3)
    >>> x.unsqueeze_(0).shape
    strided.Size([1, 3])
    """
    _leaf_check(self, "unsqueeze_")
    return _become(self, self.unsqueeze(dim))


def squeeze_(self, *dims, dim=None) -> Array:
    """In-place ``squeeze``: drop size-1 dimensions (all, or those of ``dim``) from ``self``.

    >>> import strided as xp
    >>> x = xp.zeros(1, 3, 1)
    >>> x.squeeze_().shape
    strided.Size([3])
    """
    _leaf_check(self, "squeeze_")
    return _become(self, self.squeeze(*dims, dim=dim))


def t_(self) -> Array:
    """In-place ``t``: transpose a 0-D, 1-D or 2-D ``self``.

    >>> import strided as xp
    >>> x = xp.zeros(2, 3)
    >>> x.t_().shape
    strided.Size([3, 2])
    """
    _leaf_check(self, "t_")
    return _become(self, self.t())


def transpose_(self, dim0, dim1) -> Array:
    """In-place ``transpose``: swap dimensions ``dim0`` and ``dim1`` of ``self``.

    >>> import strided as xp
    >>> x = xp.zeros(2, 3, 4)
    >>> x.transpose_(0, 2).shape
    strided.Size([4, 3, 2])
    """
    _leaf_check(self, "transpose_")
    return _become(self, self.transpose(dim0, dim1))


def swapdims_(self, dim0, dim1) -> Array:
    """In-place ``swapdims`` (PyTorch's alias of ``transpose_``).

    >>> import strided as xp
    >>> xp.zeros(2, 3).swapdims_(0, 1).shape
    strided.Size([3, 2])
    """
    _leaf_check(self, "swapdims_")
    return _become(self, self.transpose(dim0, dim1))


def addcmul_(self, tensor1, tensor2, *, value=1) -> Array:
    """In place, ``self += value * tensor1 * tensor2`` (PyTorch's ``addcmul_``).

    >>> import strided as xp
    >>> x = xp.ones(2)
    >>> x.addcmul_(xp.asarray([1.0, 2.0]), xp.asarray([3.0, 4.0]), value=0.5)
    tensor([2.5000, 5.0000])
    """
    t = tensor1 * value if value != 1 else tensor1
    return self.add_(t * tensor2)


def addcdiv_(self, tensor1, tensor2, *, value=1) -> Array:
    """In place, ``self += value * tensor1 / tensor2`` (PyTorch's ``addcdiv_``).

    >>> import strided as xp
    >>> x = xp.ones(2)
    >>> x.addcdiv_(xp.asarray([1.0, 2.0]), xp.asarray([4.0, 4.0]), value=2)
    tensor([1.5000, 2.0000])
    """
    t = tensor1 * value if value != 1 else tensor1
    return self.add_(t / tensor2)


def clamp_min_(self, min) -> Array:  # noqa: A002 - PyTorch's parameter name
    """In place, ``self = max(self, min)`` (PyTorch's ``clamp_min_``).

    >>> import strided as xp
    >>> xp.asarray([-1.0, 2.0]).clamp_min_(0.0)
    tensor([0., 2.])
    """
    return self.clamp_(min=min)


def clamp_max_(self, max) -> Array:  # noqa: A002 - PyTorch's parameter name
    """In place, ``self = min(self, max)`` (PyTorch's ``clamp_max_``).

    >>> import strided as xp
    >>> xp.asarray([-1.0, 2.0]).clamp_max_(0.0)
    tensor([-1.,  0.])
    """
    return self.clamp_(max=max)


for _f in (unsqueeze_, squeeze_, t_, transpose_, swapdims_, addcmul_, addcdiv_,
           clamp_min_, clamp_max_):
    if not hasattr(Array, _f.__name__):  # strided's own rows win where they exist
        setattr(Array, _f.__name__, _f)
if not hasattr(Array, "swapaxes_"):
    Array.swapaxes_ = swapdims_
del _f
