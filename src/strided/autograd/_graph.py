"""The backward graph and the engine that runs it.

A recorded operation creates a ``Node`` (PyTorch's ``grad_fn``). Its
``next_functions`` are edges ``(node, output_nr)`` to the nodes that produced
its inputs; a leaf that requires grad is reached through its
``AccumulateGrad`` node. ``run_backward`` walks the graph from the roots in
reverse creation order (a node runs once every gradient flowing into it has
arrived), sums the contributions to each node's outputs with ``+``, and frees
the saved values of each node it ran unless asked to keep the graph.
"""

from __future__ import annotations

import heapq
import itertools
import sys
import threading
import weakref

import numpy as np

from .._api import elementwise as ew
from .._core.array import Array, Ext
from .._core import cext as _cext
from .._core.dispatch import quiet
from .._core.pool import _Block as _PoolBlock
from .._api.views import clone
from ._mode import STATE
from .anomaly_mode import ANOMALY, check_nan as _check_nan

__all__ = ["Node", "AccumulateGrad", "SavedVar", "run_backward", "ext_of", "requires_grad",
           "edge_of", "alias"]

_SEQ = itertools.count()
# The owners of a fresh kernel result's buffer other than NumPy: the pool's block, and the
# compiled path's aligned buffer (16 KiB to the pool threshold; _chot/views.c).
_OWNERS = (_PoolBlock,) + tuple(t for t in (getattr(_cext.load("_chot"), "AlignedBuffer", None),)
                                if t is not None)
_getrefcount = sys.getrefcount
_object_new = object.__new__

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after "
         "they have already been freed). Saved intermediate values of the graph are freed when you "
         "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
         "through the graph a second time or if you need to access saved tensors after calling backward.")


# --- per-array metadata ---------------------------------------------------------

def ext_of(x: Array) -> Ext:
    """``x._ext``, created on demand (shared with the names extension)."""
    e = x._ext
    if e is None:
        e = x._ext = Ext()
    return e


def requires_grad(x) -> bool:
    return type(x) is Array and x._ext is not None and x._ext.requires_grad


def alias(x: Array) -> Array:
    """A new Array object viewing ``x``'s memory with no autograd metadata."""
    st, off, shape, strides = x._layout()
    return Array._new(x._np, st, off, shape, strides, x._dtype, x._device)


def accumulator(x: Array) -> "AccumulateGrad":
    """The (shared) ``AccumulateGrad`` node of leaf ``x``: alive while a graph refers to
    it (``x._ext.acc`` is a weak reference, as PyTorch's leaves hold theirs)."""
    e = x._ext
    ref = e.acc
    acc = ref() if ref is not None else None
    if acc is None:
        with _ACCUMULATE:  # one node per leaf, even when two threads record at once
            ref = e.acc
            acc = ref() if ref is not None else None
            if acc is None:
                acc = _object_new(AccumulateGrad)  # AccumulateGrad(x), without two __init__ frames
                acc._seq = next(_SEQ)
                acc.variable = x
                e.acc = weakref.ref(acc)
    return acc


class ViewInfo:
    """``ext.is_view`` of a recorded view: its root ``base`` and the storage version at
    which its history was last set (a later in-place write elsewhere makes it stale)."""

    __slots__ = ("base", "version")

    def __init__(self, base: Array, version: int):
        self.base = base
        self.version = version


def refresh_view(x: Array, e) -> None:
    """Regenerate the history of view ``x`` when its storage was written since it was set.

    As in PyTorch, a view's history is re-derived from its base's current
    history (an as_strided view of it) after an in-place write through the
    base or another view of it.
    """
    vi = e.is_view
    st = x._st
    if st is None or st.version() == vi.version:
        return
    base = vi.base
    bst, boff, bshape, bstr = base._layout()
    if bst is not st:
        return
    vi.version = st.version()
    be = edge_of(base)
    if be[0] is None:
        return
    from ._record import AsStridedBackward0
    _, voff, vshape, vstr = x._layout()
    e.grad_fn = AsStridedBackward0(be, len(st), (boff, bshape, bstr), (voff, vshape, vstr))
    e.output_nr = 0


def edge_of(x) -> tuple:
    """The graph edge a gradient for ``x`` flows along: ``(node, output_nr)`` or ``(None, 0)``."""
    if type(x) is not Array:
        return (None, 0)
    e = x._ext
    if e is None or not e.requires_grad:
        return (None, 0)
    if type(e.is_view) is ViewInfo:
        refresh_view(x, e)
    if e.grad_fn is not None:
        return (e.grad_fn, e.output_nr)
    return (accumulator(x), 0)


# --- nodes ----------------------------------------------------------------------------

class _Handle:
    """Returned by ``register_hook``: ``handle.remove()`` unregisters the hook."""

    def __init__(self, lst, fn):
        self._lst = lst
        self._fn = fn

    def remove(self):
        try:
            self._lst.remove(self._fn)
        except ValueError:
            pass


class _NodeFields:
    """The fields every node has, with their defaults: Node's base without the compiled module.

    Where ``_csrc/_cgrad.c`` is built, Node derives from its ``NodeBase`` instead, which
    holds these fields and the others the engine and the recorders read on every node
    (``_seq``, ``_rule``, ``_slots``, ``_metas``, ``_needs``, ``_out_metas``, ``_vals``,
    ``variable``) at fixed offsets, with these same defaults (the others: none until set).
    """

    _nout = 1
    # Hooks are rare: class-level None until a node gets its own (one store per node saved).
    _pre = None  # {output_nr: [hook]}: tensor hooks of non-leaf outputs
    _hooks = None  # [hook(grad_inputs, grad_outputs)]
    _prehooks = None  # [hook(grad_outputs)]
    _retains = None  # {output_nr: fn}: retain_grad() of non-leaf outputs (run after hooks)
    next_functions = ()


# Note: the compiled base (NodeBase) is _NodeFields with the fields in C: a node's field
# read by the engine's C loop is a load at an offset instead of an attribute lookup
# (~200 instructions, 25-40 a node per backward); STRIDED_NO_CEXT=1 runs _NodeFields.
_NodeBase = getattr(_cext.load("_cgrad"), "NodeBase", None) or _NodeFields


class Node(_NodeBase):
    """A node of the backward graph; ``type(node).__name__`` is PyTorch's name (``MulBackward0``)."""

    def __init__(self):
        self._seq = next(_SEQ)

    def name(self) -> str:
        return type(self).__name__

    def __reduce_ex__(self, protocol):
        # Note: a node is neither copied nor pickled, as PyTorch's are not (the same error);
        # the compiled NodeBase's fields could not be rebuilt by pickle either.
        raise TypeError(f"cannot pickle {type(self).__name__!r} object")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    @property
    def metadata(self) -> dict:
        m = self.__dict__.get("_metadata")
        if m is None:
            m = self.__dict__["_metadata"] = {}
        return m

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; a non-None result replaces grad_inputs."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return _Handle(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; a non-None result replaces grad_outputs."""
        if self._prehooks is None:
            self._prehooks = []
        self._prehooks.append(fn)
        return _Handle(self._prehooks, fn)

    def _tensor_hook(self, nr, fn):
        if self._pre is None:
            self._pre = {}
        lst = self._pre.setdefault(nr, [])
        lst.append(fn)
        return _Handle(lst, fn)

    def apply(self, grads: list) -> list:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def release(self) -> None:
        """Free the values saved for backward."""

    def __call__(self, *grads):
        """Run this node's backward on ``grads`` (one per output); returns a tuple."""
        return tuple(self.apply(list(grads)))


class AccumulateGrad(Node):
    """The node that adds a leaf's gradient into ``leaf.grad``."""

    def __init__(self, variable: Array):
        super().__init__()
        self.variable = variable

    def apply(self, grads):
        g = grads[0]
        x = self.variable
        e = x._ext
        if g is None:
            return []
        post = None
        if e.hooks:
            for h in list(e.hooks):
                if type(h) is PostAccumulateHook:
                    post = [h] if post is None else post + [h]
                    continue
                r = h(g)
                if r is not None:
                    g = checked_hook_result(h, r, g)
        # The engine hands over its only list of gradients (``grads``): when that list and
        # this frame are all that refer to g, .grad may take g itself instead of a copy.
        _accumulate_into(x, g, grads if type(grads) is _Handoff else None)
        if post is not None:
            for h in post:
                h.fn(x)
        return []


class PostAccumulateHook:
    """``register_post_accumulate_grad_hook``'s entry in a leaf's hooks: ``fn(leaf)`` runs
    after the leaf's ``.grad`` was updated (its result is ignored), as PyTorch's."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


def checked_hook_result(hook, r, g):
    """A hook's replacement for gradient ``g``: an array of g's shape, dtype and device."""
    name = getattr(hook, "__name__", repr(hook))
    if type(r) is not Array:
        raise TypeError(f"hook '{name}' returned a {type(r).__name__}; expected an array or None")
    if r._shape != g._shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value: it returned an array of "
                           f"shape {r._shape} for a gradient of shape {g._shape}")
    if r._dtype is not g._dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {g._dtype.name}, got "
                           f"{r._dtype.name})")
    if r._device is not g._device:
        raise RuntimeError(f"hook '{name}' has changed the device of value (was {g._device}, got "
                           f"{r._device})")
    return r


def checked_hook_results(hook, r, grads) -> list:
    """A node hook's replacement for ``grads`` (a sequence, one per slot, None allowed)."""
    name = getattr(hook, "__name__", repr(hook))
    if type(r) is Array or not isinstance(r, (tuple, list)):
        raise TypeError(f"hook '{name}' returned a {type(r).__name__}; expected a tuple of arrays or None")
    if len(r) != len(grads):
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got {len(r)}, "
                           f"but expected {len(grads)})")
    return [v if v is None or g is None else checked_hook_result(hook, v, g) for v, g in zip(r, grads)]


# Gradients of leaves shared by graphs that run backward on several threads
# are summed under this lock, so no thread's contribution is lost.
_ACCUMULATE = threading.RLock()


class _Handoff(list):
    """The gradients the engine passes to a node, holding the engine's only references."""

    __slots__ = ()


# sys.getrefcount of a gradient that nothing but the hand-off refers to, seen in
# _stealable: the hand-off list, AccumulateGrad.apply's ``g``, _accumulate_into's and
# _stealable's parameters and getrefcount's argument.
_SOLE_GRAD_REFS = 5


def _stealable(g: Array, handoff) -> bool:
    """Whether ``g`` can become a leaf's .grad as is (PyTorch steals such gradients too):
    a fresh, contiguous kernel result without metadata or storage (so without views) that
    no one but the engine's hand-off refers to, owning its memory."""
    if handoff is None or len(handoff) != 1 or handoff[0] is not g or g._ext is not None \
            or g._st is not None or _getrefcount(g) != _SOLE_GRAD_REFS:
        return False
    a = g._np
    if type(a) is not np.ndarray or _getrefcount(a) != 3:
        return False  # (host memory only) 3: g._np, ``a`` and getrefcount's argument
    f = a.flags  # (one flags object: each ``a.flags`` makes one; it refers to ``a``)
    if not f.c_contiguous or not f.writeable:
        return False
    base = a.base
    # 3: a.base, ``base`` and getrefcount's argument: only ``a`` reaches that memory
    return base is None or ((type(base) in _OWNERS or (isinstance(base, np.ndarray) and base.base is None))
                            and _getrefcount(base) == 3)


def _accumulate_into(x: Array, g: Array, handoff=None) -> None:
    """``x.grad += g`` (first time: g itself when only the engine holds it, else a fresh
    copy of g, so .grad never aliases another array)."""
    e = ext_of(x)
    create = STATE.enabled
    with _ACCUMULATE:
        old = e.grad
        if old is None:
            if not create and _stealable(g, handoff):
                e.grad = g
            else:
                e.grad = clone(g) if create else _fresh(g)
        elif create or requires_grad(old) or requires_grad(g):
            e.grad = ew.add(old, g)
        else:
            ew.FUNCTIONS["add"]._impl(old, g, old)


def _fresh(g: Array) -> Array:
    """A contiguous copy of ``g`` with its own memory and no metadata."""
    c = clone(alias(g)) if g._ext is not None else clone(g)
    return c


# --- saved values -----------------------------------------------------------------------

# The saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks), per thread as
# PyTorch's: ``HOOKS.stack`` the (pack, unpack) pairs in force, the innermost last;
# ``HOOKS.off`` > 0 while a hook runs; ``HOOKS.disabled`` disable_saved_tensors_hooks'
# message inside it (entering hooks raises it). ACTIVE[0] counts the hook contexts open in
# all threads: while it is 0 (the usual case) saving reads nothing else, and the compiled
# recorders make SavedVars themselves; otherwise through the class (__init__ packs).
class _HookState(threading.local):
    def __init__(self):
        self.stack = []
        self.off = 0
        self.disabled = None


HOOKS = _HookState()
ACTIVE = [0]
_ACTIVE_LOCK = threading.Lock()


def hooks_changed(delta: int) -> None:
    """A hook context opened (+1) or closed (-1): tell the compiled recorders whether
    SavedVars must be made by the class."""
    with _ACTIVE_LOCK:
        ACTIVE[0] += delta
        if _cgrad is not None and hasattr(_cgrad, "set_saved_hooks"):
            _cgrad.set_saved_hooks(ACTIVE[0] > 0)


class _Packed:
    """What a pack hook returned, with the unpack hook that reads it back."""

    __slots__ = ("packed", "unpack_hook")

    def __init__(self, packed, unpack_hook):
        self.packed = packed
        self.unpack_hook = unpack_hook


class SavedVar:
    """An array saved for backward, with the version of its storage at save time.

    Inputs are kept as the original array (so a ``create_graph`` backward
    records through their history); outputs are kept as a bare alias (no
    reference cycle with their node) and re-attached to the node on unpack.

    Under saved-tensor hooks (PyTorch's ``saved_tensors_hooks``) ``_x`` is a ``_Packed``
    (the pack hook's result), ``_st`` is None and ``_producer`` is the array's edge; as
    PyTorch, no version check is made then (the hooks own the value).
    """

    __slots__ = ("_x", "_st", "_ver", "_nr", "_producer")

    def __init__(self, x: Array, output_nr=None):
        if ACTIVE[0]:
            h = HOOKS
            if h.stack and not h.off:
                self._pack(x, output_nr)
                return
        st = x._st
        if st is None:
            if output_nr is None and x._ext is not None:
                # A lazy input with autograd metadata (a recorded result, the usual case):
                # no Storage yet, so no view of it and no write to it so far; every later
                # write gives it one first (``_dispatch.out_native``), starting at version
                # 0. Saved as is: unpack checks the version of the Storage it has by then.
                self._st = None
                self._ver = 0
                self._nr = None
                self._x = x
                self._producer = x._ext.grad_fn
                return
            x._materialize()
            st = x._st
        self._st = st
        self._ver = st._version if st._family is None else st.version()
        self._nr = output_nr
        if output_nr is None:
            self._x = x
            e = x._ext
            self._producer = e.grad_fn if e is not None else None
        else:
            # alias(x), inlined: x has its storage now
            a = _object_new(Array)
            a._np = x._np
            a._st = st
            a._off = x._off
            a._shape = x._shape
            a._str = x._str
            a._dtype = x._dtype
            a._device = x._device
            a._ext = None
            self._x = a
            self._producer = None

    def _pack(self, x: Array, output_nr) -> None:
        h = HOOKS
        pack, unpack_hook = h.stack[-1]
        self._st = None
        self._ver = 0
        self._nr = output_nr
        self._producer = edge_of(x) if output_nr is None else None
        h.off += 1  # (what the hook itself saves is saved plainly)
        try:
            packed = pack(x)
        finally:
            h.off -= 1
        self._x = _Packed(packed, unpack_hook)

    def _unpack_hooked(self, node, create_graph: bool) -> Array:
        p = self._x
        h = HOOKS
        h.off += 1
        try:
            data = p.unpack_hook(p.packed)
        finally:
            h.off -= 1
        if type(data) is not Array:
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                            f"type {type(data).__name__}")
        edge = (node, self._nr) if self._nr is not None else self._producer
        if create_graph and edge[0] is not None:
            # the value re-attached to the history it was saved with, as PyTorch does
            a = alias(data)
            e = ext_of(a)
            e.requires_grad = True
            if type(edge[0]) is AccumulateGrad:
                e.acc = weakref.ref(edge[0])  # (a leaf: its gradient reaches the same .grad)
            else:
                e.grad_fn = edge[0]
                e.output_nr = edge[1]
            return a
        return data if data._ext is None else alias(data)

    def unpack(self, node, create_graph: bool) -> Array:
        st = self._st
        if st is None:  # saved lazy (see __init__): the array itself, held here
            x = self._x
            if type(x) is _Packed:
                return self._unpack_hooked(node, create_graph)
            st = x._st
            if st is None:  # still lazy: never viewed, never written
                if create_graph:
                    return x
                return Array._new(x._np, None, 0, x._shape, None, x._dtype, x._device)
        ver = st.version()
        if ver != self._ver:
            x = self._x
            if self._nr is not None:
                what = f"output {self._nr} of {type(node).__name__}"
            elif self._producer is not None:
                what = f"output of {type(self._producer).__name__}"
            else:
                what = "a leaf or an input"
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [{x._dtype.name} {list(x._shape)}], which is {what}, is at version "
                f"{ver}; expected version {self._ver} instead (needed by "
                f"{type(node).__name__}). Hint: the operation that modified it ran after this value "
                "was saved; use an out-of-place operation or clone() it before modifying it.")
        x = self._x
        if self._nr is not None:
            if create_graph:
                a = alias(x)
                e = ext_of(a)
                e.requires_grad = True
                e.grad_fn = node
                e.output_nr = self._nr
                return a
            return x
        if create_graph or x._ext is None:
            return x
        return alias(x)


def unpack(v, node, create_graph):
    """Unpack a saved value (SavedVar, list of them, or a plain value)."""
    t = type(v)
    if t is SavedVar:
        return v.unpack(node, create_graph)
    if (t is list or t is tuple) and v and any(type(a) is SavedVar for a in v):
        return t(a.unpack(node, create_graph) if type(a) is SavedVar else a for a in v)
    return v


def save(v):
    """Wrap the arrays of an argument (array, list/tuple of arrays, other) as SavedVars."""
    t = type(v)
    if t is Array:
        return SavedVar(v)
    if (t is list or t is tuple) and any(type(a) is Array for a in v):
        return t(SavedVar(a) if type(a) is Array else a for a in v)
    return v


# --- the engine -------------------------------------------------------------------------------

def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return ew.add(a, b)


def _pre_hooks(node, grads_in):
    """Run ``node``'s tensor hooks, retain_grad() callbacks and pre-hooks on its gradients."""
    if node._pre:
        for nr, hooks in node._pre.items():
            if nr < len(grads_in) and grads_in[nr] is not None:
                for h in list(hooks):
                    r = h(grads_in[nr])
                    if r is not None:
                        grads_in[nr] = checked_hook_result(h, r, grads_in[nr])
    if node._retains:
        for nr, fn in node._retains.items():
            if nr < len(grads_in) and grads_in[nr] is not None:
                fn(grads_in[nr])
    if node._prehooks:
        for h in list(node._prehooks):
            r = h(tuple(grads_in))
            if r is not None:
                grads_in = checked_hook_results(h, r, grads_in)  # (no longer the engine's own list)
    return grads_in


def _post_hooks(node, outs, grads_in):
    """Run ``node``'s hooks on the gradients it computed (``outs``) from ``grads_in``."""
    for h in list(node._hooks):
        r = h(tuple(outs), tuple(grads_in))
        if r is not None:
            outs = checked_hook_results(h, r, outs)
    return outs


def _distribute(nf, outs, buffers, deps, heap):
    """Hand the gradients ``outs`` of a node that ran to the nodes its edges ``nf`` lead to
    (summed into their buffers), and push each node whose last gradient has arrived."""
    for (child, nr), g in zip(nf, outs):
        if child is None:
            continue
        d = deps.get(child)
        if d is None:
            continue
        if g is not None:
            cb = buffers.get(child)
            if cb is None:
                cb = buffers[child] = _Handoff([None] * child._nout)
                cb[nr] = g
            else:
                cb[nr] = _add(cb[nr], g)
        if d == 1:
            deps[child] = 0
            heapq.heappush(heap, (-child._seq, child))
        else:
            deps[child] = d - 1
    # (this frame's references to the gradients go with it: the buffers hold them now)


def _discover(roots):
    """``deps`` (for each node reached from ``roots``, the number of edges feeding it) and
    the nodes in the order the walk met them."""
    deps: dict = {}
    seen = set()
    order = []
    stack = []
    for node, _ in roots:
        if node is not None and node not in seen:
            seen.add(node)
            stack.append(node)
    while stack:
        node = stack.pop()
        order.append(node)
        for child, _ in node.next_functions:
            if child is None:
                continue
            deps[child] = deps.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return deps, order


def run_backward(roots, grads, keep_graph, create_graph, inputs=None, capture=False,
                 allow_unused=False):
    """Run the graph from ``roots`` (edges) with ``grads``.

    ``inputs`` (arrays) restricts the run to what reaches them; with
    ``capture=True`` their gradients are returned instead of accumulated.
    """
    # Targets: where the gradients of ``inputs`` appear.
    targets = None
    if inputs is not None:
        targets = {}
        for i, x in enumerate(inputs):
            node, nr = edge_of(x)
            if node is None:
                raise RuntimeError(f"One of the differentiated arrays (input {i}) does not require grad")
            targets.setdefault(node, []).append((nr, i, x))

    # Discover the graph and count, for each node, the edges that feed it.
    deps = _cgrad.discover(roots) if targets is None and _cgrad is not None else None
    if deps is None:
        deps, order = _discover(roots)

    needed = None
    if targets is not None:
        # Only nodes that lead to a target run: the targets and their ancestors.
        parents: dict = {}
        for node in order:
            for child, _ in node.next_functions:
                if child is not None:
                    parents.setdefault(child, []).append(node)
        seen = set(order)
        needed = set(n for n in targets if n in seen)
        todo = list(needed)
        while todo:
            for p in parents.get(todo.pop(), ()):
                if p not in needed:
                    needed.add(p)
                    todo.append(p)
        deps = {}
        for node in needed:
            for child, _ in node.next_functions:
                if child in needed:
                    deps[child] = deps.get(child, 0) + 1

    # buffers[node]: the gradients arrived so far, one slot per output of node (a
    # _Handoff, passed to node.apply as is).
    buffers: dict = {}
    for (node, nr), g in zip(roots, grads):
        if node is None or (needed is not None and node not in needed):
            continue
        b = buffers.get(node)
        if b is None:
            b = buffers[node] = _Handoff([None] * node._nout)
        b[nr] = _add(b[nr], g)
    # Ready nodes run latest-created first (the order PyTorch's engine uses); _seq is
    # unique per node, so the heap never compares two nodes.
    heap = [(-node._seq, node) for node in buffers if deps.get(node, 0) == 0]
    heapq.heapify(heap)
    heappop = heapq.heappop
    plain = targets is None

    captured = [None] * len(inputs) if capture else None
    prev = STATE.enabled
    STATE.enabled = create_graph
    anomaly = ANOMALY[0] and ANOMALY[1]
    try:
        if plain and _cgrad is not None and not anomaly:
            # The same loop in C (_csrc/_cgrad.c); it leaves the heap as it is and returns
            # at any node it does not expect, and the loop below runs the rest.
            _cgrad.drain(heap, buffers, deps, keep_graph)
        while heap:
            node = heappop(heap)[1]
            grads_in = buffers.pop(node, None)
            if grads_in is None:
                grads_in = _Handoff([None] * node._nout)
            if node._pre or node._retains or node._prehooks:
                grads_in = _pre_hooks(node, grads_in)
            skip = False
            if not plain and node in targets:
                for nr, i, x in targets[node]:
                    g = grads_in[nr]
                    if capture:
                        captured[i] = g
                    elif type(node) is not AccumulateGrad and g is not None:
                        _accumulate_into(x, g)
                g = None
                skip = type(node) is AccumulateGrad and capture
            nf = node.next_functions
            if skip or (grads_in[0] is None if len(grads_in) == 1 else all(g is None for g in grads_in)):
                outs = [None] * len(nf)
            else:
                outs = node.apply(grads_in)
                if anomaly:
                    _check_nan(node, outs)
                if node._hooks:
                    outs = _post_hooks(node, outs, grads_in)
                if not keep_graph:
                    node.release()
            grads_in = None
            if nf:
                _distribute(nf, outs, buffers, deps, heap)
            # Drop this frame's references to the gradients (the buffers hold them), so the
            # node that receives one can tell that nothing else does (see _stealable).
            outs = None
    finally:
        STATE.enabled = prev
    if capture:
        for i, g in enumerate(captured):
            if g is None and not allow_unused:
                raise RuntimeError(
                    f"One of the differentiated arrays (input {i}) appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior.")
    return captured


# The engine is a door as the operations are: every backward (``Array.backward``,
# ``autograd.backward``/``grad``, ``torch.autograd``'s, ``autograd.functional``'s) runs the
# derivative rules under NumPy's quiet error state, so a user's ``np.errstate(all="raise")``
# or ``simplefilter("error")`` sees no underflow from a rule's own NumPy call (``_fused``'s
# ``matmul``), as PyTorch's backward sees none. ``ENGINE_CODE``: the engine's frame, for
# checkpoint's look up the stack.
ENGINE_CODE = run_backward.__code__
run_backward = quiet(run_backward)


def _load_cgrad():
    """The engine's loop in C (``_csrc/_cgrad.c``), told once what it calls back; None
    when it is not built or STRIDED_NO_CEXT=1 (the loop above runs everything)."""
    from .._core import cext
    mod = cext.load("_cgrad")
    if mod is not None:
        mod.setup(_Handoff, _add, _pre_hooks, _post_hooks, _distribute)
    return mod


_cgrad = _load_cgrad()
