"""``torch.vmap``: ``func`` mapped over a dimension of its inputs, as a loop over the batch
whose per-sample results are stacked (strided has no batching rules; the loop gives the same
values, gradients and dtypes, one call of ``func`` a sample).

Inputs and outputs are PyTorch's pytrees (arrays in nested tuples, lists and dicts); ``in_dims``
and ``out_dims`` are an int or None for every leaf, or a structure matching the inputs' (the
outputs'). Randomness follows PyTorch's flag for the default generators (the functions called
without ``generator=``): "error" makes a draw raise, "different" draws anew for each sample,
"same" gives every sample the same draws. A generator passed explicitly is not watched (its
draws are "different").
"""

from __future__ import annotations

import functools
import sys

from .._core.array import Array
from . import _random

__all__ = ["vmap"]


def _ns():
    return sys.modules["strided"]


_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' "
                 "or 'different' randomness flags on vmap or perform the randomness operation out of vmap")


class _NoDraws:
    """A generator's ``_rng`` under randomness="error": any use raises PyTorch's error."""

    def __getattr__(self, name):
        raise RuntimeError(_RANDOM_ERROR)


def _flatten(value, dims, name, path="inputs"):
    """[(leaf, dim)] of ``value`` with ``dims`` (an int/None for every leaf, or a structure
    matching ``value``'s), and a function rebuilding ``value``'s structure from new leaves."""
    if isinstance(dims, (tuple, list, dict)):
        if isinstance(dims, dict) != isinstance(value, dict) or not isinstance(value, (tuple, list, dict)) or \
                len(dims) != len(value) or (isinstance(dims, dict) and set(dims) != set(value)):
            raise ValueError(f"vmap({name}, in_dims={dims!r}, ...)(<inputs>): in_dims is not compatible with the "
                             f"structure of `{path}`")
        keys = list(value) if isinstance(value, dict) else range(len(value))
        parts = [_flatten(value[k], dims[k], name, f"{path}[{k!r}]") for k in keys]
    elif isinstance(value, (tuple, list, dict)):
        keys = list(value) if isinstance(value, dict) else range(len(value))
        parts = [_flatten(value[k], dims, name, f"{path}[{k!r}]") for k in keys]
    else:
        if dims is not None and (isinstance(dims, bool) or not isinstance(dims, int)):
            raise ValueError(f"vmap({name}, in_dims={dims!r}, ...)(<inputs>): in_dims must be an int, None or a "
                             f"structure of them; got {type(dims).__name__}")
        if dims is not None and type(value) is not Array:
            raise ValueError(f"vmap({name}, ...)(<inputs>): Got in_dim={dims} for an input but the input is of "
                             f"type {type(value)}. We cannot vmap over non-Tensor arguments, please use None as "
                             f"the respective in_dim")
        return [(value, dims)], lambda leaves: leaves[0]
    leaves = [lf for p in parts for lf in p[0]]
    counts = [len(p[0]) for p in parts]

    def rebuild(new):
        out, at = [], 0
        for (_, r), n in zip(parts, counts):
            out.append(r(new[at:at + n]))
            at += n
        if isinstance(value, dict):
            return dict(zip(keys, out))
        return type(value)(out) if not hasattr(value, "_fields") else type(value)(*out)
    return leaves, rebuild


def _stack(name, outs, dims):
    """The per-sample outputs ``outs`` stacked at ``dims`` (matching the outputs' structure)."""
    first = outs[0]
    if isinstance(first, (tuple, list)):
        if isinstance(dims, (tuple, list)):
            if len(dims) != len(first):
                raise ValueError(f"vmap({name}, ..., out_dims={dims!r})(<inputs>): out_dims is not compatible with "
                                 f"the structure of `outputs`")
            ds = dims
        else:
            ds = [dims] * len(first)
        r = [_stack(name, [o[i] for o in outs], d) for i, d in enumerate(ds)]
        return type(first)(r) if not hasattr(first, "_fields") else type(first)(*r)
    if isinstance(first, dict):
        ds = dims if isinstance(dims, dict) else {k: dims for k in first}
        return {k: _stack(name, [o[k] for o in outs], ds[k]) for k in first}
    if dims is None:
        return first
    if type(first) is not Array:
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(first)}. Did you "
                         f"mean to set out_dims= to None for output?")
    nd = first.ndim + 1
    if not -nd <= dims < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dims})")
    return _ns().stack(outs, axis=dims)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``torch.vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None)``:
    ``func`` mapped over dimension ``in_dims`` of its inputs, the results stacked at
    ``out_dims``; computed as a loop over the batch (one call of ``func`` a sample).

    >>> import strided.torch as torch
    >>> torch.vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2))
    tensor([2., 2., 2.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    if not callable(func):
        raise RuntimeError(f"vmap(f, ...): f must be a python function, got type {type(func)}")
    name = getattr(func, "__name__", type(func).__name__)

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        if isinstance(in_dims, tuple):
            if len(in_dims) != len(args):
                raise ValueError(f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): in_dims is not compatible "
                                 f"with the structure of `inputs`. in_dims has {len(in_dims)} elements but inputs "
                                 f"has {len(args)}")
            dims = in_dims
        elif in_dims is None or (isinstance(in_dims, int) and not isinstance(in_dims, bool)):
            dims = (in_dims,) * len(args)
        else:
            raise ValueError(f"vmap({name}, in_dims={in_dims!r}, ...): expected `in_dims` to be int or a (potentially "
                             f"nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
        leaves, rebuild = _flatten(tuple(args), tuple(dims), name)
        size = None
        sizes = []
        norm = []
        for v, d in leaves:
            if d is None:
                norm.append(None)
                continue
            if not -v.ndim <= d < v.ndim or v.ndim == 0:
                raise ValueError(f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>): Got in_dim={d} for some input, "
                                 f"but that input is a Tensor of dimensionality {v.ndim} so expected in_dim to "
                                 f"satisfy -{v.ndim} <= in_dim < {v.ndim}.")
            d %= v.ndim
            norm.append(d)
            sizes.append(v.shape[d])
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if any(s != sizes[0] for s in sizes):
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sizes} for the mapped dimension")
        size = sizes[0]

        def sample(i, zeros=False):
            new = []
            for (v, _), d in zip(leaves, norm):
                if d is None:
                    new.append(v)
                elif zeros:  # (an empty batch: one sample of zeros gives the outputs' shapes)
                    shape = tuple(v.shape[:d]) + tuple(v.shape[d + 1:])
                    new.append(_ns().zeros(shape, dtype=v.dtype, device=v.device))
                else:
                    new.append(v[(slice(None),) * d + (i,)])
            return rebuild(new)

        gens = [_random.default_generator("cpu"), _random.default_generator()]
        gens = list({id(g): g for g in gens + list(_random._GENERATORS.values())}.values())
        saved = [g._rng for g in gens]
        states = [g.get_state() for g in gens] if randomness == "same" else None
        outs = []
        try:
            if randomness == "error":
                for g in gens:
                    g._rng = _NoDraws()
            for i in range(max(size, 1)):
                if randomness == "same" and i:
                    for g, st in zip(gens, states):
                        g.set_state(st)
                outs.append(func(*sample(i, zeros=size == 0), **kwargs))
        finally:
            if randomness == "error":
                for g, r in zip(gens, saved):
                    g._rng = r
        r = _stack(name, outs, out_dims)
        if size == 0:
            r = _empty_batch(r, out_dims)
        return r
    return wrapped


def _empty_batch(r, dims):
    """The stacked outputs of one zero sample cut to an empty batch."""
    if isinstance(r, (tuple, list)):
        ds = dims if isinstance(dims, (tuple, list)) else [dims] * len(r)
        out = [_empty_batch(x, d) for x, d in zip(r, ds)]
        return type(r)(out) if not hasattr(r, "_fields") else type(r)(*out)
    if isinstance(r, dict):
        ds = dims if isinstance(dims, dict) else {k: dims for k in r}
        return {k: _empty_batch(v, ds[k]) for k, v in r.items()}
    if dims is None or type(r) is not Array:
        return r
    d = dims % r.ndim
    return r[(slice(None),) * d + (slice(0, 0),)]
