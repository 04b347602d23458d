"""PyTorch's datasets (``torch.utils.data.dataset``) over strided's arrays.

>>> import strided.torch as torch
>>> from strided.torch.utils.data import TensorDataset, ConcatDataset
>>> ds = ConcatDataset([TensorDataset(torch.arange(3)), TensorDataset(torch.arange(10, 12))])
>>> len(ds), ds[3]
(5, (tensor(10),))
"""

from __future__ import annotations

import bisect
import itertools
import math
import sys
import warnings
from typing import Generic, TypeVar

from ...random import default_generator
from ...._core.caller import stacklevel

__all__ = ["ChainDataset", "ConcatDataset", "Dataset", "IterableDataset", "StackDataset", "Subset",
           "TensorDataset", "random_split"]

_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """A map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``);
    ``a + b`` is ``ConcatDataset([a, b])``."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co]):
    """An iterable-style dataset: subclasses define ``__iter__``; ``a + b`` is ``ChainDataset([a, b])``."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the tuples ``(t[i] for t in tensors)``; every array needs the same first size.

    >>> import strided.torch as torch
    >>> from strided.torch.utils.data import TensorDataset
    >>> TensorDataset(torch.zeros(4, 2), torch.arange(4))[1]
    (tensor([0., 0.]), tensor(1))
    """

    def __init__(self, *tensors) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Datasets of one length zipped: samples are tuples (positional) or dicts (keywords).

    >>> import strided.torch as torch
    >>> from strided.torch.utils.data import StackDataset, TensorDataset
    >>> StackDataset(x=[1, 2], y=["a", "b"])[1]
    {'x': 2, 'y': 'b'}
    """

    def __init__(self, *args, **kwargs) -> None:
        if args:
            if kwargs:
                raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) "
                                 "like input/output, but both types are given.")
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            tmp = list(kwargs.values())
            self._length = len(tmp[0])
            if any(self._length != len(dataset) for dataset in tmp):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list):
        """The samples at ``indices`` (a nested dataset's ``__getitems__`` used where it has one)."""
        def items(dataset):
            if callable(getattr(dataset, "__getitems__", None)):
                got = dataset.__getitems__(indices)
                if len(got) != len(indices):
                    raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, "
                                     f"got {len(got)}")
                return got
            return [dataset[idx] for idx in indices]

        if isinstance(self.datasets, dict):
            batch = [{} for _ in indices]
            for k, dataset in self.datasets.items():
                for data, sample in zip(items(dataset), batch):
                    sample[k] = data
            return batch
        batch = [[] for _ in indices]
        for dataset in self.datasets:
            for data, sample in zip(items(dataset), batch):
                sample.append(data)
        return [tuple(sample) for sample in batch]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after another (``cumulative_sizes`` holds the running lengths)."""

    @staticmethod
    def cumsum(sequence):
        """The running totals of the lengths of ``sequence``'s datasets."""
        r, s = [], 0
        for e in sequence:
            n = len(e)
            r.append(n + s)
            s += n
        return r

    def __init__(self, datasets) -> None:
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


class ChainDataset(IterableDataset):
    """Iterable datasets chained: their items one dataset after another."""

    def __init__(self, datasets) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices) -> None:
        self.dataset = dataset
        self.indices = indices
        if type(self).__getitem__ is not Subset.__getitem__ and type(self).__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. When subclassing Subset "
                f"and overriding __getitem__, you must also override __getitems__ to ensure DataLoader works "
                f"correctly with your custom logic. A simple implementation:\n\n"
                f"def __getitems__(self, indices):\n    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        """The samples at ``indices`` (the dataset's own ``__getitems__`` where it has one)."""
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset, lengths, generator=default_generator):
    """Split ``dataset`` into non-overlapping ``Subset``s of the given lengths (or fractions that
    sum to 1: floors, the remainder handed out one by one from the first), by a random
    permutation drawn from ``generator`` (strided's default CPU generator unless given).

    >>> import strided.torch as torch
    >>> from strided.torch.utils.data import random_split
    >>> a, b = random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(0))
    >>> len(a), len(b), sorted(list(a) + list(b)) == list(range(10))
    (7, 3, True)
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=stacklevel())
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    from .sampler import _device
    indices = sys.modules["strided.torch"].randperm(sum(lengths), generator=generator,
                                                    device=_device(generator)).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
