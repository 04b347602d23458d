"""``torch.utils.checkpoint``: ``checkpoint`` and ``checkpoint_sequential`` (activation checkpointing).

``checkpoint(function, *args, use_reentrant=None, ...)`` returns ``function(*args)`` without keeping
the intermediate arrays of the call for backward: the call's graph is dropped once its outputs are
computed, and backward runs ``function`` again (under grad mode, with the random generators set
back to their state before the forward when ``preserve_rng_state``), then differentiates that
recomputation. Values and gradients are those of the plain call.

As PyTorch 2.13: not passing ``use_reentrant`` warns and means ``use_reentrant=True``; with
``use_reentrant=True`` no keyword arguments are passed on, and when no input requires grad it
warns and returns outputs that do not require grad (parameters used inside get no gradient); with
``use_reentrant=False`` keyword arguments reach ``function`` and the arrays requiring grad that
``function`` reads from outside (a module's parameters) get their gradients even when no input
requires grad.

Known differences from PyTorch: strided finds the arrays requiring grad that ``function`` reads
from outside by running the forward with grad mode on (its graph is dropped at once, so peak
memory during that forward is a plain call's); where ``function`` reads an array computed outside
it that requires grad and is not a leaf, the call is not checkpointed (its graph is kept: values
and gradients are the same). A backward with ``create_graph=True`` (a higher-order gradient)
works through a ``use_reentrant=False`` checkpoint, as PyTorch's; through a ``use_reentrant=True``
one strided raises NotImplementedError. ``context_fn`` and ``debug=True`` raise
NotImplementedError; ``determinism_check`` is accepted ("default" or "none") but strided does not
compare the recomputation's saved arrays with the forward's.

>>> import strided.torch as torch
>>> from strided.torch.utils.checkpoint import checkpoint
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> checkpoint(lambda t: (t ** 2).sin(), x, use_reentrant=False).sum().backward()
>>> x.grad
tensor([ 1.0806, -2.6146])
"""

from __future__ import annotations

import contextlib
import sys
import warnings

from ..._core.array import Array
from ..._core.caller import stacklevel
from ...autograd import _graph
from ...autograd._function import Function
from ...autograd._mode import enable_grad, is_grad_enabled, no_grad
from .. import _random

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn"]

_MISSING = ("CheckpointError", "CheckpointFunction", "check_backward_validity", "detach_variable",
            "get_device_states", "set_device_states", "set_checkpoint_early_stop", "DefaultDeviceType",
            "set_checkpoint_debug_enabled", "CheckpointPolicy", "SelectiveCheckpointContext",
            "create_selective_checkpoint_contexts", "SAC_IGNORED_OPS", "GraphExecGroup")


def __getattr__(name: str):
    if name in _MISSING:
        raise AttributeError(f"strided.torch.utils.checkpoint has no {name!r}: strided does not support it; it "
                             f"has {', '.join(__all__)}")
    raise AttributeError(f"module 'strided.torch.utils.checkpoint' has no attribute {name!r}")


def noop_context_fn():
    """The default ``context_fn`` of ``checkpoint``: two null context managers."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def _generators(args=()):
    """The default generators: the CPU's, the inputs' devices' and every one made so far."""
    gens = [_random.default_generator("cpu")] + [_random.default_generator(a.device) for a in args
                                                 if isinstance(a, Array)] + list(_random._GENERATORS.values())
    return list({id(g): g for g in gens}.values())


@contextlib.contextmanager
def _forked_rng(states):
    """The default generators set to ``states`` for the block, then back to where they were."""
    if states is None:
        yield
        return
    gens = [g for g, _ in states]
    now = [g.get_state() for g in gens]
    try:
        for g, st in states:
            g.set_state(st)
        yield
    finally:
        for g, st in zip(gens, now):
            g.set_state(st)


def _detached(args):
    return [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Array) else a for a in args]


def _flat_outputs(out):
    """(the arrays and other values of ``out`` as a flat list, a function rebuilding ``out``)."""
    from ..func import _flatten, _unflatten
    leaves, spec = _flatten(out)
    return leaves, lambda new: _unflatten(spec, new)


def _outside_leaves(outs, own, start):
    """The leaves requiring grad outside ``own`` that the graph of ``outs`` reaches, or None when it
    reaches a node made before ``start`` (an array computed outside that is not a leaf)."""
    found, seen = {}, set()
    todo = [o.grad_fn for o in outs if isinstance(o, Array) and o.grad_fn is not None]
    for o in outs:
        if isinstance(o, Array) and o.grad_fn is None and o.requires_grad and id(o) not in own:
            found[id(o)] = o
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, _graph.AccumulateGrad):
            if id(n.variable) not in own:
                found[id(n.variable)] = n.variable
            continue
        if n._seq < start:
            return None
        todo.extend(c for c, _ in n.next_functions)
    return list(found.values())


def _engine_has_inputs() -> bool:
    """True when the backward pass running now was asked for ``inputs`` (``grad()`` or
    ``backward(inputs=...)``): read from the engine's frame (run_backward's ``inputs``)."""
    code = _graph.ENGINE_CODE
    f = sys._getframe(1)
    while f is not None:
        if f.f_code is code:
            return f.f_locals.get("inputs") is not None
        f = f.f_back
    return False


class _Run:
    """What backward needs to run the function again."""

    def __init__(self, function, kwargs, states, n_args, n_out, rebuild, reentrant):
        self.reentrant = reentrant
        self.function = function
        self.kwargs = kwargs
        self.states = states
        self.n_args = n_args
        self.n_out = n_out
        self.rebuild = rebuild


class _CheckpointFunction(Function):
    """Forward: the outputs computed already (no graph kept). Backward: the function run again and
    differentiated with respect to the inputs and the outside leaves it reads."""

    @staticmethod
    def forward(ctx, run, values, *inputs_and_leaves):
        ctx.run = run
        args = inputs_and_leaves[:run.n_args]
        ctx.save_for_backward(*[a if isinstance(a, Array) else None for a in args])
        ctx.others = [None if isinstance(a, Array) else a for a in args]
        ctx.req = [isinstance(a, Array) and a.requires_grad for a in args]
        ctx.leaves = inputs_and_leaves[run.n_args:]
        out = tuple(v.detach() if isinstance(v, Array) else v for v in values)
        return out

    @staticmethod
    def backward(ctx, *grads):
        run = ctx.run
        higher = is_grad_enabled()  # (a backward with create_graph=True)
        if higher and run.reentrant:
            raise NotImplementedError("checkpoint(use_reentrant=True): strided does not support a backward with "
                                      "create_graph=True (a higher-order gradient) through it; use "
                                      "use_reentrant=False")
        if run.reentrant and _engine_has_inputs():
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                               "passing an `inputs` parameter to .backward(). To resolve this error, you can either "
                               "set use_reentrant=False, or call .backward() without passing the `inputs` argument.")
        saved = ctx.saved_tensors
        args = [s if s is not None else o for s, o in zip(saved, ctx.others)]
        with _forked_rng(run.states):
            if higher:  # (the recompute on the inputs themselves: its gradients keep their history)
                detached = [a if isinstance(a, Array) and r else a.detach() if isinstance(a, Array) else a
                            for a, r in zip(args, ctx.req)]
            else:
                detached = [a.detach().requires_grad_(r) if isinstance(a, Array) else a
                            for a, r in zip(args, ctx.req)]
            with enable_grad():
                out = run.function(*detached, **run.kwargs)
        flat, _ = _flat_outputs(out)
        outs, gs = [], []
        for o, g in zip(flat, grads):
            if isinstance(o, Array) and o.requires_grad and g is not None:
                outs.append(o)
                gs.append(g)
        targets = [d for d in detached if isinstance(d, Array) and d.requires_grad] + list(ctx.leaves)
        res = [None] * len(targets)
        if outs and targets:
            from ...autograd import grad as _grad
            res = list(_grad(outs, targets, gs, allow_unused=True, create_graph=higher))
        it = iter(res)
        arg_grads = [next(it) if isinstance(d, Array) and d.requires_grad else None for d in detached]
        return (None, None) + tuple(arg_grads) + tuple(it)


def _checkpointed(function, args, kwargs, preserve, reentrant):
    if reentrant and not any(isinstance(a, Array) and a.requires_grad for a in args):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning,
                      stacklevel=stacklevel())
        with no_grad():
            return function(*args, **kwargs)
    if not is_grad_enabled():
        return function(*args, **kwargs)
    states = [(g, g.get_state()) for g in _generators(args)] if preserve else None
    start = next(_graph._SEQ)
    detached = _detached(args)
    with enable_grad():
        out = function(*detached, **kwargs)
    flat, rebuild = _flat_outputs(out)
    own = {id(d) for d in detached if isinstance(d, Array)}
    leaves = _outside_leaves(flat, own, start)
    if leaves is None:
        # (an array computed outside, not a leaf, requiring grad: no checkpoint, the plain call)
        return function(*args, **kwargs)
    run = _Run(function, kwargs, states, len(args), len(flat), rebuild, reentrant)
    values = [v.detach() if isinstance(v, Array) else v for v in flat]
    del out, flat
    res = _CheckpointFunction.apply(run, values, *args, *leaves)
    return rebuild(list(res))


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)``, its intermediates recomputed in backward instead of kept
    (PyTorch's ``torch.utils.checkpoint.checkpoint``; ``preserve_rng_state=True`` is a keyword).

    >>> import strided.torch as torch
    >>> from strided.torch.utils.checkpoint import checkpoint
    >>> checkpoint(torch.sin, torch.zeros(2), use_reentrant=False)
    tensor([0., 0.])
    """
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", UserWarning, stacklevel=stacklevel())
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    else:
        if context_fn is not noop_context_fn:
            raise NotImplementedError("checkpoint(context_fn=...): strided does not support context_fn")
        if debug is not False:
            raise NotImplementedError("checkpoint(debug=True): strided does not support debug")
        if determinism_check not in ("default", "none"):
            raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    return _checkpointed(function, args, kwargs, preserve, use_reentrant)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a list or an ``nn.Sequential``) on ``input`` in ``segments`` pieces, all
    but the last checkpointed (PyTorch's ``torch.utils.checkpoint.checkpoint_sequential``).

    >>> import strided.torch as torch
    >>> from strided.torch.utils.checkpoint import checkpoint_sequential
    >>> m = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh())
    >>> checkpoint_sequential(m, 2, torch.zeros(1), use_reentrant=False)
    tensor([0.])
    """
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default "
                      "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", UserWarning, stacklevel=stacklevel())
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, sys.modules["strided.torch"].nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
