"""``strided.torch.nn.utils.rnn``: PyTorch's ``pad_sequence`` and ``unpad_sequence``.

``PackedSequence``, ``pack_padded_sequence``, ``pad_packed_sequence`` and ``pack_sequence`` are
not here (strided has no recurrent layers that would read them): asking for one is an
AttributeError that says so.

>>> import strided.torch as torch
>>> from strided.torch.nn.utils.rnn import pad_sequence
>>> pad_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])], batch_first=True)
tensor([[1, 2, 3],
        [4, 0, 0]])
"""

from __future__ import annotations

import collections.abc
import sys

from ...._core.array import Array

__all__ = ["pad_sequence", "unpad_sequence"]

_MISSING = ("PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence",
            "unpack_sequence", "invert_permutation")


def __getattr__(name: str):
    if name in _MISSING:
        raise AttributeError(f"strided.torch.nn.utils.rnn has no {name!r}: strided does not support "
                             f"packed sequences; it has pad_sequence and unpad_sequence")
    raise AttributeError(f"module 'strided.torch.nn.utils.rnn' has no attribute {name!r}")


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack variable-length sequences (arrays of shape ``(L_i, *)``) into one array, padded
    with ``padding_value`` to the longest: ``(L, B, *)``, or ``(B, L, *)`` with ``batch_first``.

    ``padding_side`` ``"right"`` (default) or ``"left"``; the result has the first sequence's
    dtype (PyTorch's). Differentiable in every sequence.

    >>> import strided.torch as torch
    >>> torch.nn.utils.rnn.pad_sequence([torch.ones(2), torch.ones(1)], padding_side="left")
    tensor([[1., 0.],
            [1., 1.]])
    """
    torch = sys.modules["strided.torch"]
    if not isinstance(sequences, collections.abc.Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    for i, s in enumerate(sequences):
        if not isinstance(s, Array):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(s).__name__}")
        if s.ndim == 0:
            raise RuntimeError(f"pad_sequence: sequence {i} is 0-d; each sequence needs a length (dim 0)")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    first = sequences[0]
    trailing = tuple(first.shape[1:])
    for i, s in enumerate(sequences):
        if tuple(s.shape[1:]) != trailing:
            raise RuntimeError(f"pad_sequence: sequence {i} has trailing shape {tuple(s.shape[1:])}, "
                               f"sequence 0 has {trailing}; they must be equal")
    max_len = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        s = s.to(first.dtype)
        n = max_len - s.shape[0]
        if n:
            pad = torch.full((n,) + trailing, padding_value, dtype=first.dtype, device=s.device)
            s = torch.cat([s, pad] if padding_side == "right" else [pad, s])
        rows.append(s)
    return torch.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences ``pad_sequence`` padded, cut back to ``lengths``.

    As in PyTorch, without ``batch_first`` the input is transposed in place
    (``padded_sequences.transpose_(0, 1)``) first.

    >>> import strided.torch as torch
    >>> p = torch.tensor([[1, 2], [3, 0]])
    >>> torch.nn.utils.rnn.unpad_sequence(p, torch.tensor([2, 1]), batch_first=True)
    [tensor([1, 2]), tensor([3])]
    """
    torch = sys.modules["strided.torch"]
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    idx = torch.arange(padded_sequences.shape[1], device=lengths.device)
    if len(padded_sequences) != len(lengths):
        raise ValueError(f"unpad_sequence(): {len(padded_sequences)} padded sequences but "
                         f"{len(lengths)} lengths")
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths)]
