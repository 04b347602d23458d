"""PyTorch's ``default_collate`` and ``default_convert`` (``torch.utils.data._utils.collate``).

The recursion is PyTorch's: arrays are stacked along a new first dimension; Python floats
become float64, ints int64 and bools bool arrays; NumPy arrays and scalars are converted
(``as_tensor``) and then collated; strings and bytes are kept as lists; mappings, namedtuples
and sequences are collated field by field (a tuple gives a list, as in PyTorch).

>>> import strided.torch as torch
>>> from strided.torch.utils.data import default_collate
>>> default_collate([{"x": torch.ones(2), "y": 1}, {"x": torch.zeros(2), "y": 2}])
{'x': tensor([[1., 1.],
        [0., 0.]]), 'y': tensor([1, 2])}
"""

from __future__ import annotations

import collections.abc
import copy
import re
import sys

import numpy as np

from ...._core.array import Array

__all__ = ["default_collate", "default_convert"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _torch():
    return sys.modules["strided.torch"]


def default_convert(data):
    """Convert NumPy arrays and scalars in ``data`` to strided arrays, recursing into mappings,
    namedtuples and sequences (a tuple gives a list); anything else (arrays, strings, Python
    numbers) is returned as it is. The ``DataLoader``'s collate function without batching.

    >>> import numpy as np
    >>> from strided.torch.utils.data import default_convert
    >>> default_convert((np.arange(2), "a", 3))
    [tensor([0, 1]), 'a', 3]
    """
    elem_type = type(data)
    if isinstance(data, Array):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _torch().as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def _collate_tensor(batch):
    return _torch().stack(batch, 0)


def _collate_numpy_array(batch):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return _collate([_torch().as_tensor(b) for b in batch])


def _collate_numpy_scalar(batch):
    # PyTorch's torch.as_tensor(batch) promotes the scalars' dtypes by its own rules (int32 with
    # float32 is float32, not NumPy's float64), refuses a NumPy bool among other scalars and a
    # uint16/32/64 among other dtypes; strided.result_type promotes as PyTorch does.
    from ...._core import dtypes as _dtypes
    torch = _torch()
    if not all(isinstance(x, (np.bool_, np.number)) for x in batch):
        return torch.as_tensor(batch)
    dts = [_dtypes.from_numpy_dtype(x.dtype) for x in batch]
    kinds = {d.kind == "b" for d in dts}
    if len(kinds) > 1:
        raise TypeError("default_collate: NumPy bool scalars mixed with other NumPy scalars; PyTorch's "
                        "torch.as_tensor refuses them ('numpy.bool' object cannot be interpreted as an integer)")
    dt = dts[0]
    for d in dts[1:]:
        if d != dt and (d.name in ("uint16", "uint32", "uint64") or dt.name in ("uint16", "uint32", "uint64")):
            raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, attempted to "
                               f"promote {dt.name} and {d.name}")
        dt = sys.modules["strided"].result_type(dt, d)
    return torch.as_tensor(np.array(batch, dtype=dt._np))


def _collate_float(batch):
    torch = _torch()
    return torch.tensor(batch, dtype=torch.float64)


def _collate_int(batch):
    return _torch().tensor(batch)


def _collate_str(batch):
    return batch


_COLLATE_FN_MAP = {Array: _collate_tensor, np.ndarray: _collate_numpy_array,
                   (np.bool_, np.number, np.object_): _collate_numpy_scalar,
                   float: _collate_float, int: _collate_int, str: _collate_str, bytes: _collate_str}


def _collate(batch):
    elem = batch[0]
    elem_type = type(elem)
    if elem_type in _COLLATE_FN_MAP:
        return _COLLATE_FN_MAP[elem_type](batch)
    for collate_type, fn in _COLLATE_FN_MAP.items():
        if isinstance(elem, collate_type):
            return fn(batch)
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: _collate([d[key] for d in batch]) for key in elem})
                return clone
            return elem_type({key: _collate([d[key] for d in batch]) for key in elem})
        except TypeError:
            return {key: _collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [_collate(samples) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = _collate(samples)
                return clone
            return elem_type([_collate(samples) for samples in transposed])
        except TypeError:
            return [_collate(samples) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def default_collate(batch):
    """Collate a list of samples into a batch, by PyTorch's rules (see the module): arrays are
    stacked, numbers become arrays of PyTorch's dtypes, containers are collated field by field.

    >>> import strided.torch as torch
    >>> from strided.torch.utils.data import default_collate
    >>> default_collate([(1.0, "a"), (2.0, "b")])
    [tensor([1., 2.], dtype=strided.float64), ('a', 'b')]
    """
    return _collate(batch)
