"""PyTorch's ``DataLoader`` and ``get_worker_info`` (``torch.utils.data.dataloader``).

Every batch is loaded in the calling process. For a map-style dataset ``num_workers > 0`` is
honoured by emulating the workers: PyTorch (``in_order``) sends batch ``i`` of an epoch to worker
``i % num_workers`` and yields the batches in order, so the batches are the same; while strided
fetches batch ``i``, ``get_worker_info()`` describes that worker, and the Python ``random``,
NumPy global and strided default random streams are that worker's own, seeded as PyTorch seeds a
worker (``base_seed + id``; NumPy from PyTorch's ``_generate_state``) and kept from batch to
batch (and across epochs with ``persistent_workers``); ``worker_init_fn(id)`` runs once per
worker when iteration starts. The caller's random state is restored after each fetch. What
differs from processes: the dataset is the same object in every "worker" (``WorkerInfo.dataset``
is not a copy, and a dataset that changes itself in ``__getitem__`` is seen changed), and nothing
runs in parallel. ``prefetch_factor``, ``multiprocessing_context`` and ``in_order`` are checked
as PyTorch checks them and change no batch; ``timeout`` raises PyTorch's RuntimeError when one
fetch took longer. An ``IterableDataset`` with ``num_workers > 0`` is refused: each worker
iterates its own replica, so the batches would differ.

>>> import strided.torch as torch
>>> from strided.torch.utils.data import DataLoader
>>> loader = DataLoader(list(range(7)), batch_size=3, drop_last=True)
>>> len(loader), [b.tolist() for b in loader]
(2, [[0, 1, 2], [3, 4, 5]])
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing as _mp
import os
import random as _pyrandom
import sys
import time
import warnings

import numpy as np

from ._collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, _device
from ...._core.caller import stacklevel

__all__ = ["DataLoader", "get_worker_info"]


def _torch():
    return sys.modules["strided.torch"]


@dataclasses.dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside an (emulated) worker: ``id``, ``num_workers``,
    ``seed`` and ``dataset`` (the loader's dataset itself, not a copy)."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: object = None


_worker_info = None


def get_worker_info():
    """The current worker's ``WorkerInfo`` while a ``DataLoader`` with ``num_workers > 0`` fetches
    a batch or runs ``worker_init_fn``; None elsewhere (PyTorch's main process).

    >>> from strided.torch.utils.data import get_worker_info
    >>> get_worker_info() is None
    True
    """
    return _worker_info


def _generate_state(base_seed, worker_id):
    """PyTorch's seed for NumPy's global generator in a worker (four uint32 words)."""
    INIT_A, MULT_A, INIT_B, MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
    MIX_MULT_L, MIX_MULT_R, XSHIFT, MASK32 = 0xCA01F9DD, 0x4973F715, 16, 0xFFFFFFFF
    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    pool = [0] * 4
    hash_const_a = INIT_A

    def hash_(value):
        nonlocal hash_const_a
        value = (value ^ hash_const_a) & MASK32
        hash_const_a = (hash_const_a * MULT_A) & MASK32
        value = (value * hash_const_a) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x, y):
        result = ((MIX_MULT_L * x) & MASK32) - ((MIX_MULT_R * y) & MASK32)
        result &= MASK32
        return (result ^ (result >> XSHIFT)) & MASK32

    for i in range(4):
        pool[i] = hash_(entropy[i])
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash_(pool[i_src]))
    hash_const_b = INIT_B
    state = []
    for i_dst in range(4):
        v = (pool[i_dst] ^ hash_const_b) & MASK32
        hash_const_b = (hash_const_b * MULT_B) & MASK32
        v = (v * hash_const_b) & MASK32
        state.append((v ^ (v >> XSHIFT)) & MASK32)
    return state


def _capture_rng():
    from ... import _random
    return (_pyrandom.getstate(), np.random.get_state(),
            [(g, g.get_state()) for g in list(_random._GENERATORS.values())])


def _restore_rng(state) -> None:
    py, npst, gens = state
    _pyrandom.setstate(py)
    np.random.set_state(npst)
    for g, s in gens:
        g.set_state(s)


class _Worker:
    """An emulated worker: its id, seed and random streams (kept between its fetches)."""

    def __init__(self, worker_id, num_workers, base_seed, dataset, init_fn):
        global _worker_info
        self.info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=base_seed + worker_id,
                               dataset=dataset)
        main = _capture_rng()
        try:
            _pyrandom.seed(self.info.seed)
            _torch().manual_seed(self.info.seed)
            np.random.seed(_generate_state(base_seed, worker_id))
            _worker_info = self.info
            if init_fn is not None:
                init_fn(worker_id)
        finally:
            self.rng = _capture_rng()
            _worker_info = None
            _restore_rng(main)

    def run(self, fn, *args):
        global _worker_info
        main = _capture_rng()
        _restore_rng(self.rng)
        _worker_info = self.info
        try:
            return fn(*args)
        finally:
            self.rng = _capture_rng()
            _worker_info = None
            _restore_rng(main)


class _InfiniteConstantSampler(Sampler):
    """None forever: the sampler of an ``IterableDataset``."""

    def __iter__(self):
        while True:
            yield None


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index):
        if self.auto_collation:
            if hasattr(self.dataset, "__getitems__") and self.dataset.__getitems__:
                data = self.dataset.__getitems__(index)
            else:
                data = [self.dataset[idx] for idx in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


class DataLoader:
    """PyTorch's ``DataLoader``: batches of a dataset, by a sampler, collated.

    ``batch_size`` (None: no batching, samples go through ``default_convert``), ``shuffle``
    (a ``RandomSampler`` with ``generator``), ``sampler`` / ``batch_sampler`` (mutually
    exclusive with the options they replace, PyTorch's ValueErrors), ``drop_last`` (drop the
    last partial batch), ``collate_fn`` (``default_collate`` by default). ``len()`` is the number
    of batches. ``num_workers``, ``worker_init_fn``, ``persistent_workers``, ``prefetch_factor``,
    ``timeout``, ``pin_memory``: see the module (loading happens in this process; workers are
    emulated for map-style datasets).

    >>> import strided.torch as torch
    >>> from strided.torch.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(torch.arange(10))
    >>> _ = torch.manual_seed(0)
    >>> batches = [b[0] for b in DataLoader(ds, batch_size=4, shuffle=True)]
    >>> [len(b) for b in batches], sorted(torch.cat(batches).tolist()) == list(range(10))
    ([4, 4, 2], True)
    """

    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let "
                             "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        elif num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        if isinstance(dataset, IterableDataset):
            self._dataset_kind = "iterable"
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, "
                                 f"but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, "
                                 f"but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler "
                                 f"option, but got batch_sampler={batch_sampler}")
            if num_workers > 0:
                raise NotImplementedError(
                    "DataLoader: num_workers > 0 with an IterableDataset is not supported by strided: it "
                    "loads in this process, and PyTorch's workers would each iterate their own replica "
                    "of the dataset (different batches); use num_workers=0")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = "map"
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None:
            if drop_last:
                raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive "
                                 "with drop_last")
        if sampler is None:
            if self._dataset_kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        """The start method PyTorch would use for workers (checked, unused: no processes start)."""
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx) -> None:
        if ctx is not None:
            if self.num_workers > 0:
                if isinstance(ctx, str):
                    valid = _mp.get_all_start_methods()
                    if ctx not in valid:
                        raise ValueError(f"multiprocessing_context option should specify a valid start method "
                                         f"in {valid!r}, but got multiprocessing_context={ctx!r}")
                    ctx = _mp.get_context(ctx)
                if not isinstance(ctx, _mp.context.BaseContext):
                    raise TypeError(f"multiprocessing_context option should be a valid context object or a "
                                    f"string specifying the start method, but got multiprocessing_context={ctx}")
            else:
                raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
        object.__setattr__(self, "_multiprocessing_context", ctx)

    def __setattr__(self, attr, val) -> None:
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                          "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(attr, val)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = _DataLoaderIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _DataLoaderIter(self)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._dataset_kind == "iterable":
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self) -> None:
        """PyTorch's warning when ``num_workers`` exceeds the CPUs this process may use."""
        if not self.num_workers:
            return
        try:
            suggest = len(os.sched_getaffinity(0))
            checked = True
        except AttributeError:
            suggest, checked = os.cpu_count(), False
        if suggest is None or self.num_workers > suggest:
            msg = (f"Our suggested max number of worker in current system is {suggest}"
                   f"{'' if checked else ' (`cpuset` is not taken into account)'}, which is smaller than what "
                   f"this DataLoader is going to create." if suggest is not None else
                   "DataLoader is not able to compute a suggested max number of worker in current system.")
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. {msg} "
                          f"Please be aware that excessive worker creation might get DataLoader running slow "
                          f"or even freeze, lower the worker number to avoid potential slowness/freeze if "
                          f"necessary.", stacklevel=stacklevel())


class _DataLoaderIter:
    """One pass over a ``DataLoader`` (reused across passes with ``persistent_workers``)."""

    def __init__(self, loader: DataLoader) -> None:
        torch = _torch()
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(f"pin_memory_device is deprecated, the current accelerator will be used as the "
                          f"device,ignore pin_memory_device='{loader.pin_memory_device}'.", stacklevel=stacklevel())
        if loader.pin_memory:
            if torch.cuda.is_available():
                warnings.warn("'pin_memory' argument is set as true, but strided does not pin host memory; "
                              "the batches are the same, only host-to-device copies are not sped up.",
                              stacklevel=stacklevel())
            else:
                warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device "
                              "pinned memory won't be used.", stacklevel=stacklevel())
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = int(torch.empty((), dtype=torch.int64, device=_device(loader.generator))
                              .random_(generator=loader.generator).item())
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0
        if self._num_workers == 0:
            if self._timeout != 0:
                raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
            self._workers = None
        else:
            self._workers = [_Worker(w, self._num_workers, self._base_seed, self._dataset, loader.worker_init_fn)
                             for w in range(self._num_workers)]
        fetcher = _IterableFetcher if self._dataset_kind == "iterable" else _MapFetcher
        self._fetcher = fetcher(self._dataset, self._auto_collation, self._collate_fn, self._drop_last)

    def _reset(self, loader) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def __iter__(self):
        return self

    def __next__(self):
        index = next(self._sampler_iter)  # may raise StopIteration
        if self._workers is None:
            data = self._fetcher.fetch(index)  # may raise StopIteration
        else:
            worker = self._workers[self._num_yielded % self._num_workers]
            start = time.monotonic()
            data = worker.run(self._fetcher.fetch, index)
            if self._timeout > 0 and time.monotonic() - start > self._timeout:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        self._num_yielded += 1
        if (self._dataset_kind == "iterable" and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            warnings.warn(f"Length of IterableDataset {self._dataset} was reported to be "
                          f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                          f"{self._num_yielded} samples have been fetched. ", stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{type(self).__name__} cannot be pickled")
