"""``strided.torch.nn.utils.rnn``: PyTorch 2.13's ``PackedSequence`` and the functions that
make, unmake and pad variable-length batches.

A ``PackedSequence`` is PyTorch's namedtuple ``(data, batch_sizes, sorted_indices,
unsorted_indices)``: ``data`` holds the real time steps of every sequence, time-major
(step 0 of every sequence, then step 1 of those at least 2 long, ...), ``batch_sizes[t]`` how
many sequences have a step ``t`` (an int64 array on the CPU, as PyTorch keeps it), and the two
permutations the order the batch was sorted in (longest first) and its inverse (``None`` when
the batch came sorted). Packing and padding are compositions of strided's recorded slicing,
``index_select``, ``cat`` and ``stack``, so gradients flow through them to the inputs.

# Note: where ``pack_padded_sequence`` is given a length beyond the input's time dimension,
# PyTorch 2.13 reads past the end of the input (values from other memory); strided raises a
# RuntimeError instead. With ``enforce_sorted=False`` equal lengths keep their input order
# (strided's sort is stable); PyTorch's unstable CPU sort may order ties otherwise, which changes
# ``sorted_indices`` but no padded value, no unpacked sequence and no RNN result in input order.

>>> import strided.torch as torch
>>> from strided.torch.nn.utils.rnn import pack_sequence, pad_sequence
>>> pad_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])], batch_first=True)
tensor([[1, 2, 3],
        [4, 0, 0]])
>>> pack_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])]).batch_sizes
tensor([2, 1, 1])
"""

from __future__ import annotations

import collections.abc
import sys
from typing import NamedTuple

from ...._core import dtypes as _dtypes
from ...._core.array import Array

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]


def _torch():
    return sys.modules["strided.torch"]


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence_(NamedTuple):
    """The four fields of a ``PackedSequence`` (PyTorch's ``PackedSequence_``)."""

    data: Array
    batch_sizes: Array
    sorted_indices: Array | None
    unsorted_indices: Array | None


class PackedSequence(PackedSequence_):
    """PyTorch's ``PackedSequence``: a batch of variable-length sequences packed time-major.

    Made by ``pack_padded_sequence`` and ``pack_sequence`` (not by hand), read by ``nn.RNN``,
    ``nn.LSTM``, ``nn.GRU`` and ``pad_packed_sequence``. ``PackedSequence(data, batch_sizes,
    sorted_indices=None, unsorted_indices=None)`` or ``PackedSequence((data, batch_sizes))``;
    ``unsorted_indices`` defaults to the inverse of ``sorted_indices``. ``to``, ``cpu``,
    ``cuda``, ``double`` ... convert ``data`` (and move the index arrays with it);
    ``batch_sizes`` stays an int64 array on the CPU.

    >>> import strided.torch as torch
    >>> p = torch.nn.utils.rnn.PackedSequence(torch.ones(3), torch.tensor([2, 1]))
    >>> p.batch_sizes, p.is_cuda
    (tensor([2, 1]), False)
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices,
                                                                 unsorted_indices))

    def pin_memory(self):
        """Not supported: strided has no pinned (page-locked) host memory."""
        raise NotImplementedError("PackedSequence.pin_memory(): strided has no pinned memory")

    def to(self, *args, **kwargs):
        """``data.to(*args, **kwargs)`` (dtype and/or device), the index arrays moved to its
        device; ``self`` where ``data`` is unchanged (PyTorch's rule).

        >>> import strided.torch as torch
        >>> p = torch.nn.utils.rnn.pack_sequence([torch.ones(2), torch.ones(1)])
        >>> p.to(torch.float64).data.dtype, p.to(torch.float32) is p
        (strided.float64, True)
        """
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def call_to(t):
            return t.to(data.device)

        return type(self)(data, self.batch_sizes, _bind(self.sorted_indices, call_to),
                          _bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        """The packed sequence with ``data`` on a CUDA device (PyTorch's ``cuda``)."""
        torch = _torch()
        ex = torch.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        """The packed sequence with ``data`` on the CPU (PyTorch's ``cpu``)."""
        torch = _torch()
        ex = torch.tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        """``data`` as float64."""
        return self.to(dtype=_dtypes.float64)

    def float(self):
        """``data`` as float32."""
        return self.to(dtype=_dtypes.float32)

    def half(self):
        """``data`` as float16."""
        return self.to(dtype=_dtypes.float16)

    def long(self):
        """``data`` as int64."""
        return self.to(dtype=_dtypes.int64)

    def int(self):
        """``data`` as int32."""
        return self.to(dtype=_dtypes.int32)

    def short(self):
        """``data`` as int16."""
        return self.to(dtype=_dtypes.int16)

    def char(self):
        """``data`` as int8."""
        return self.to(dtype=_dtypes.int8)

    def byte(self):
        """``data`` as uint8."""
        return self.to(dtype=_dtypes.uint8)

    @property
    def is_cuda(self) -> bool:
        """Whether ``data`` is on a CUDA device."""
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        """Not supported: strided has no pinned (page-locked) host memory."""
        raise NotImplementedError("PackedSequence.is_pinned(): strided has no pinned memory")


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                "created manually. They should be instantiated by functions like pack_sequence and "
                "pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The inverse of the 1-D index array ``permutation`` (``None`` for ``None``).

    >>> import strided.torch as torch
    >>> torch.nn.utils.rnn.invert_permutation(torch.tensor([2, 0, 1]))
    tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    torch = _torch()
    output = torch.empty_like(permutation)
    output.scatter_(0, permutation, torch.arange(0, permutation.numel(), device=permutation.device))
    return output


def _lengths_array(lengths) -> Array:
    """``lengths`` (an array or a sequence) as a 1-D int64 array on the CPU (PyTorch's checks)."""
    torch = _torch()
    if not isinstance(lengths, Array):
        lengths = torch.as_tensor(lengths, dtype=_dtypes.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=_dtypes.int64)
    if lengths.ndim != 1 or lengths.device.type != "cpu":
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.ndim}D {lengths.device.type} Long tensor")
    return lengths


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack the padded batch ``input`` (``T x B x *``, or ``B x T x *`` with ``batch_first``)
    of sequences of ``lengths`` (an array or a list, on the CPU) into a ``PackedSequence``.

    With ``enforce_sorted`` (default) ``lengths`` must be decreasing (PyTorch's RuntimeError
    otherwise); ``enforce_sorted=False`` sorts the batch and records the permutation.
    Differentiable in ``input``.

    >>> import strided.torch as torch
    >>> x = torch.tensor([[1, 2, 3], [4, 5, 0]])
    >>> torch.nn.utils.rnn.pack_padded_sequence(x, [3, 2], batch_first=True)
    PackedSequence(data=tensor([1, 4, 2, 5, 3]), batch_sizes=tensor([2, 2, 1]), sorted_indices=None, unsorted_indices=None)
    """
    torch = _torch()
    if not isinstance(input, Array):
        raise TypeError(f"pack_padded_sequence(): argument 'input' must be a tensor (a strided array); "
                        f"got {type(input).__name__}")
    lengths = _lengths_array(lengths)
    if enforce_sorted:
        sorted_indices = None
    else:
        if input.ndim < 2:
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
        lengths, sorted_indices = torch.sort(lengths, descending=True, stable=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if input.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    ls = [int(v) for v in lengths.tolist()]
    if len(ls) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(ls)} "
                           f"(batch_size={batch})")
    if ls[-1] <= 0 or min(ls) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in "
                           "'lengths' that is <= 0")
    if any(a < b for a, b in zip(ls, ls[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
            "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
            "requirement if you do not need ONNX exportability.")
    if ls[0] > steps:
        raise RuntimeError(f"pack_padded_sequence(): a length ({ls[0]}) exceeds the input's time "
                           f"dimension ({steps}); strided does not read past it (PyTorch reads "
                           f"unrelated memory there)")
    batch_sizes = [sum(1 for n in ls if n > t) for t in range(ls[0])]
    data = torch.cat([input[t, :b] for t, b in enumerate(batch_sizes)])
    return PackedSequence(data, torch.tensor(batch_sizes, dtype=_dtypes.int64, device="cpu"),
                          sorted_indices, None)


def _batch_sizes_list(sequence) -> list:
    bs = sequence.batch_sizes
    if not isinstance(bs, Array) or bs.ndim != 1 or bs.dtype != _dtypes.int64 or bs.device.type != "cpu":
        kind = f"{bs.ndim}D {bs.dtype.name}" if isinstance(bs, Array) else type(bs).__name__
        raise RuntimeError(f"pad_packed_sequence(): batch_sizes should be a 1D CPU int64 tensor, but "
                           f"got {kind}")
    sizes = [int(v) for v in bs.tolist()]
    data = sequence.data
    if (any(b <= 0 for b in sizes) or any(a < b for a, b in zip(sizes, sizes[1:]))
            or not sizes or data.ndim == 0 or sum(sizes) != data.shape[0]):
        raise RuntimeError(f"pad_packed_sequence(): batch_sizes {sizes} do not describe the packed data "
                           f"of {data.shape[0] if data.ndim else 0} rows (they must be positive, "
                           f"non-increasing and sum to the rows)")
    return sizes


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Unpack ``sequence`` (a ``PackedSequence``) into ``(padded, lengths)``: ``padded`` is
    ``T x B x *`` (``B x T x *`` with ``batch_first``), padded with ``padding_value`` to the
    longest sequence or to ``total_length``; ``lengths`` an int64 array on the CPU. The batch
    comes back in its original order. Differentiable in ``sequence.data``.

    >>> import strided.torch as torch
    >>> p = torch.nn.utils.rnn.pack_sequence([torch.tensor([1, 2]), torch.tensor([3])])
    >>> torch.nn.utils.rnn.pad_packed_sequence(p, batch_first=True, padding_value=-1)
    (tensor([[ 1,  2],
            [ 3, -1]]), tensor([2, 1]))
    """
    torch = _torch()
    sizes = _batch_sizes_list(sequence)
    max_seq_length = len(sizes)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence "
                             f"in input, but got total_length={total_length} and max sequence length "
                             f"being {max_seq_length}")
        max_seq_length = total_length
    data = sequence.data
    batch = sizes[0]
    trailing = tuple(data.shape[1:])
    kw = {"dtype": data.dtype, "device": data.device}
    rows, off = [], 0
    for b in sizes:
        step = data[off:off + b]
        off += b
        if b < batch:
            step = torch.cat([step, torch.full((batch - b,) + trailing, padding_value, **kw)])
        rows.append(step)
    if max_seq_length > len(sizes):
        rows.append(torch.full((max_seq_length - len(sizes), batch) + trailing, padding_value, **kw))
        padded = torch.cat([torch.stack(rows[:-1]), rows[-1]])
    else:
        padded = torch.stack(rows)
    lengths = torch.tensor([sum(1 for s in sizes if s > i) for i in range(batch)], dtype=_dtypes.int64,
                           device="cpu")
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        return (padded.index_select(0 if batch_first else 1, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices.cpu()])
    return padded, lengths


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
    # (the mask moved to the data's device: PyTorch indexes a cuda array with the CPU mask its
    # CPU lengths make, as unpack_sequence does; strided's indexing wants one device)
    return [seq[(idx < length).to(seq.device)] for seq, length in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of variable-length sequences (``L_i x *``): ``pad_sequence`` then
    ``pack_padded_sequence`` (PyTorch's). With ``enforce_sorted`` (default) the sequences must
    come longest first.

    >>> import strided.torch as torch
    >>> torch.nn.utils.rnn.pack_sequence([torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])])
    PackedSequence(data=tensor([1, 4, 6, 2, 5, 3]), batch_sizes=tensor([3, 2, 1]), sorted_indices=None, unsorted_indices=None)
    """
    torch = _torch()
    sequences = list(sequences)
    for i, s in enumerate(sequences):
        if not isinstance(s, Array):
            raise TypeError(f"pack_sequence(): expected Tensor as element {i} in argument 0, but got "
                            f"{type(s).__name__}")
    lengths = torch.as_tensor([v.size(0) for v in sequences], dtype=_dtypes.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences packed in ``packed_sequences``, in their original order.

    >>> import strided.torch as torch
    >>> p = torch.nn.utils.rnn.pack_sequence([torch.tensor([1]), torch.tensor([2, 3])], enforce_sorted=False)
    >>> torch.nn.utils.rnn.unpack_sequence(p)
    [tensor([1]), tensor([2, 3])]
    """
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
