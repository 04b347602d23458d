"""``strided.torch.utils.data``: PyTorch's datasets, samplers, collation and ``DataLoader``.

Datasets (``Dataset``, ``IterableDataset``, ``TensorDataset``, ``ConcatDataset``,
``ChainDataset``, ``Subset``, ``StackDataset``, ``random_split``), samplers (``Sampler``,
``SequentialSampler``, ``RandomSampler``, ``SubsetRandomSampler``, ``WeightedRandomSampler``,
``BatchSampler``), ``default_collate`` / ``default_convert`` with PyTorch's recursive rules, and
``DataLoader`` with ``get_worker_info``: PyTorch 2.13's classes line for line over strided's
arrays and random generators. The shuffles draw from strided's generators (permutations, and
reproducible under ``strided.torch.manual_seed``, but not PyTorch's numbers).

Loading always happens in the calling process. With ``num_workers > 0`` and a map-style dataset
the ``DataLoader`` gives PyTorch's batches in PyTorch's order, and emulates each worker: batch
``i`` is fetched as worker ``i % num_workers`` would fetch it (``get_worker_info()`` describes
that worker; its own Python, NumPy and strided random streams, seeded as PyTorch seeds a worker;
``worker_init_fn`` run once per worker). With an ``IterableDataset`` it raises: each worker's
replica would yield its own items and the batches would differ.

>>> import strided.torch as torch
>>> from strided.torch.utils.data import DataLoader, TensorDataset
>>> ds = TensorDataset(torch.arange(6.0).reshape(3, 2), torch.tensor([0, 1, 0]))
>>> x, y = next(iter(DataLoader(ds, batch_size=2)))
>>> x.shape, y
(strided.Size([2, 2]), tensor([0, 1]))
"""

from __future__ import annotations

from ._collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,
                      TensorDataset, random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "default_collate", "default_convert",
           "get_worker_info", "random_split"]

_MISSING = {"DistributedSampler": "distributed training", "DFIterDataPipe": "DataPipes",
            "DataChunk": "DataPipes", "IterDataPipe": "DataPipes", "MapDataPipe": "DataPipes",
            "functional_datapipe": "DataPipes", "argument_validation": "DataPipes",
            "guaranteed_datapipes_determinism": "DataPipes", "non_deterministic": "DataPipes",
            "runtime_validation": "DataPipes", "runtime_validation_disabled": "DataPipes"}


def __getattr__(name: str):
    if name in _MISSING:
        raise AttributeError(f"strided.torch.utils.data has no {name!r}: strided does not support "
                             f"{_MISSING[name]}; it has {', '.join(__all__)}")
    raise AttributeError(f"module 'strided.torch.utils.data' has no attribute {name!r}")
