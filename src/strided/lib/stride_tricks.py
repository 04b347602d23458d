"""``sliding_window_view``, as ``numpy.lib.stride_tricks`` has it: an extension beyond
the standard, built on PyTorch's ``unfold`` (a view)."""

from __future__ import annotations

import operator

from .._core.array import Array
from .._api.manipulation import _axis_of, unfold

__all__ = ["sliding_window_view"]


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False) -> Array:
    """Every window of ``window_shape`` over ``x``: NumPy's
    ``numpy.lib.stride_tricks.sliding_window_view``, as a strided view.

    With ``axis=None`` the windows span every axis (``window_shape`` gives one length
    per axis); otherwise one length per entry of ``axis`` (an axis may repeat). Each
    windowed axis shrinks to ``n - w + 1`` and the window's axes follow the array's,
    in the order of ``axis``. As NumPy's, the view is for reading: windows overlap,
    and a write into a self-overlapping view raises (a RuntimeError, as PyTorch's).
    Gradients flow back to ``x``.

    >>> import strided as xp
    >>> from strided.lib.stride_tricks import sliding_window_view
    >>> sliding_window_view(xp.arange(5), 3).tolist()
    [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
    >>> sliding_window_view(xp.zeros((4, 6)), (2, 3)).shape
    strided.Size([3, 4, 2, 3])
    """
    if type(x) is not Array:
        raise TypeError(f"sliding_window_view(): expected a strided array; got {type(x).__name__}")
    if subok:
        raise TypeError("sliding_window_view(): subok=True is NumPy's (strided has no array subclasses)")
    if writeable:
        raise ValueError("sliding_window_view(): writeable=True is refused: the windows overlap in "
                         "memory, and strided does not write through a self-overlapping view")
    window = tuple(window_shape) if isinstance(window_shape, (tuple, list)) else (window_shape,)
    try:
        window = tuple(operator.index(w) for w in window)
    except TypeError:
        raise TypeError(f"sliding_window_view(): window_shape must be ints; got {window_shape!r}") from None
    if any(w < 0 for w in window):
        raise ValueError(f"sliding_window_view(): window_shape cannot contain negative values; "
                         f"got {window}")
    if axis is None:
        if len(window) != x.ndim:
            raise ValueError(f"sliding_window_view(): window_shape {window} needs one entry per axis "
                             f"of the {x.ndim}-d array when axis is None")
        axes = tuple(range(x.ndim))
    else:
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        if len(axes) != len(window):
            raise ValueError(f"sliding_window_view(): window_shape {window} and axis {axis} must have "
                             f"the same length")
        axes = tuple(_axis_of(x, a, "sliding_window_view") for a in axes)
    for a, w in zip(axes, window):
        if w > x.shape[a]:
            raise ValueError(f"sliding_window_view(): window {w} is larger than axis {a} of size "
                             f"{x.shape[a]}")
        x = unfold(x, a, w, 1)
    return x
