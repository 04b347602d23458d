"""Fused operations for ``strided.torch.nn.functional``'s hot paths, one graph node each.

``linear(x, weight, bias)`` is ``x @ weight.mT + bias`` recorded as one node
(PyTorch's ``AddmmBackward0``, ``MmBackward0`` without a bias) instead of three
(a transpose, a product and a broadcast add); its backward computes the weight's
gradient as ``g.mT @ x``, in the weight's own layout (as PyTorch does), so the
leaf's ``.grad`` is that product itself and not a transposing copy.

``log_softmax_nll(x, target, reduction)`` is ``nll_loss(log_softmax(x, 1), target)``
for class indices without weights, ignore_index or label smoothing, recorded as one
node (PyTorch records two: ``LogSoftmaxBackward0`` and ``NllLossBackward0``); its
backward is theirs composed: ``exp(logp) * s - onehot * s`` with ``s`` the loss's
gradient per sample (``g / N`` for ``mean``); recorded directly, the node keeps the
forward's ``logp`` (as PyTorch's LogSoftmaxBackward0 keeps its result) instead of
computing it again.

Invariants:
- the values are those of the composites they stand for, computed the same way in the
  forward pass (``linear``: the same product and add, bit for bit; the loss: PyTorch's
  log-softmax, ``x - max - log(sum(exp(x - max)))``);
- each is taken only for real floating inputs of one dtype, on one device, without
  dimension names (``nn.functional`` falls back to the composites otherwise);
- the backward formulas are strided's own namespace functions when a graph is being
  built (``create_graph=True``: double backward records through them), and NumPy's on
  the host otherwise (the same products and sums, fewer calls).
"""

from __future__ import annotations

import numpy as np

import strided as xp

from .._core.array import Array, Ext
from .._api.linalg_functions import host_product as _host_product
from .._core.dispatch import _HANDLERS, api
from ._function import sum_to
from ._graph import _SEQ, SavedVar, ViewInfo, _cgrad, edge_of
from ._mode import STATE
from ._record import node_by_none, node_class, rule

__all__ = ["linear", "log_softmax_nll", "fusable"]  # (and their ops, recorded through dispatch)

_new = Array._new


def fusable(*arrays) -> bool:
    """Whether arrays (None skipped) are real floating, of one dtype and device, unnamed."""
    dt = dev = None
    for a in arrays:
        if a is None:
            continue
        if type(a) is not Array or a._dtype.kind != "f":
            return False
        e = a._ext
        if e is not None and e.names is not None:
            return False
        if dt is None:
            dt, dev = a._dtype, a._device
        elif a._dtype is not dt or a._device is not dev:
            return False
    return True


def _host(*arrays) -> bool:
    """Whether every array's native is a host NumPy array (on the cpu device)."""
    if arrays[0]._device.type != "cpu":
        return False
    for a in arrays:
        n = a._np
        if type(n) is not np.ndarray and type(a._get_native()) is not np.ndarray:
            return False
    return True


_max, _sum = np.maximum.reduce, np.add.reduce  # (np.max and np.sum without their Python wrappers)
_ADD_REDUCE = np.add.reduce
_ND = np.ndarray


def _rg(a) -> bool:
    return a is not None and a._ext is not None and a._ext.requires_grad


_NO_EDGE = (None, 0)
_object_new = object.__new__
_next_seq = _SEQ.__next__


def _record(r, cls, inputs, saved, result):
    """The node of rule ``r`` for ``result``, computed by a fused op from ``inputs``
    ((parameter, array or None) pairs): what ``_record._record`` builds for a call of the
    op through dispatch (the same slots, edges, metadata, saved values), without the
    binding, the handler chain and the recording switch (the fused ops' kernels are NumPy
    calls: nothing in them records). ``saved``: (parameter, value) pairs, saved as
    ``_record`` saves them, before the result is attached. Taken only while the handler
    chain is strided's own two (names, autograd): the callers check ``_HANDLERS``, so an
    extension registered with ``register_handler`` sees every call through dispatch."""
    slots, edges, metas, needs = [], [], [], set()
    for p, a in inputs:
        if a is None:
            continue
        e = a._ext
        if e is None or not e.requires_grad:
            edge = _NO_EDGE
        elif e.grad_fn is not None and type(e.is_view) is not ViewInfo:
            edge = (e.grad_fn, e.output_nr)
        else:
            edge = edge_of(a)
        slots.append((p, None))
        edges.append(edge)
        metas.append((a._shape, a._dtype, a._device))
        if edge[0] is not None:
            needs.add(p)
    vals = {}
    for p, v in saved:
        vals[p] = SavedVar(v) if type(v) is Array else v
    node = _object_new(cls)  # Node.__init__, inlined (as _record does)
    node._seq = _next_seq()
    node._rule = r
    node._slots = slots
    node._metas = metas
    node._needs = needs
    node._nout = 1
    node.next_functions = tuple(edges)
    node._out_metas = [(result._shape, result._dtype, result._device)]
    e = result._ext = Ext()
    e.requires_grad = True
    e.grad_fn = node
    e.output_nr = 0
    node._vals = vals
    return result


# The Python definition stays reachable (the differential tests compare the two).
_record_py = _record
if _cgrad is not None and hasattr(_cgrad, "record_node"):
    # Note: the compiled recorder (_csrc/_cgrad.c, record_node) is _record above step for
    # step; STRIDED_NO_CEXT=1 runs the definition. (_record.py calls setup_record first.)
    _record = _cgrad.record_node


def linear(x, weight, bias=None):
    """``x @ weight.mT + bias``, one node when recorded (``fusable`` arrays; bias (out,))."""
    if STATE.enabled and (_rg(x) or _rg(weight) or _rg(bias)) and len(_HANDLERS) <= 2 and _host(x, weight) \
            and (bias is None or type(bias._get_native()) is np.ndarray):
        r = _linear_host(x, weight, bias)  # (the definition's host branch: no handler to pass)
        return _record(_LINEAR, _ADDMM if bias is not None else _MM,
                       (("x", x), ("weight", weight), ("bias", bias)),
                       (("x", x), ("weight", weight)), r)
    return _linear_op(x, weight, bias)


@api("nn.functional.linear")
def _linear_op(x, weight, bias=None):
    """``x @ weight.mT + bias`` (x: (..., in), weight: (out, in), bias: (out,) or None)."""
    if _host(x, weight) and (bias is None or type(bias._get_native()) is np.ndarray):
        return _linear_host(x, weight, bias)
    out = xp.matmul(x, xp.matrix_transpose(weight))
    return out if bias is None else out + bias


def _linear_host(x, weight, bias):
    """``_linear_op``'s host branch (``_host(x, weight)``; bias None or a host array)."""
    a, w = x._get_native(), weight._get_native()
    # (the same calls as matmul(x, weight.mT): host_product for matrices, matmul for stacks)
    r = _host_product(a, w.T) if a.ndim == 2 else np.matmul(a, w.T)
    if bias is not None:
        np.add(r, bias._get_native(), out=r)  # (r is this call's own product)
    return _new(r, None, 0, r.shape, None, x._dtype, x._device)


def _linear_grads(g, x, weight, ctx):
    needs = ctx._needs  # (ctx.needs(p) is ``p in ctx._needs``)
    need_x, need_w, need_b = "x" in needs, "weight" in needs, "bias" in needs
    gx = gw = gb = None
    out_f = weight._shape[0]
    dt, dev = g._dtype, g._device
    host = False
    if not STATE.enabled and dt is x._dtype and dev is x._device and dev.type == "cpu":
        # (_host(g, x, weight) with the natives kept: each read once)
        gn, an, wn = g._np, x._np, weight._np
        gn = gn if gn is not None else g._get_native()
        an = an if an is not None else x._get_native()
        wn = wn if wn is not None else weight._get_native()
        host = type(gn) is _ND and type(an) is _ND and type(wn) is _ND
    if host:
        if need_x:
            r = _host_product(gn, wn) if gn.ndim == 2 else np.matmul(gn, wn)
            gx = _new(r, None, 0, r.shape, None, dt, dev)
        if need_w:
            g2 = gn if gn.ndim == 2 else gn.reshape(-1, out_f)
            a2 = an if an.ndim == 2 else an.reshape(-1, an.shape[-1])
            r = _host_product(g2.T, a2)  # (out, in): the weight's layout
            gw = _new(r, None, 0, r.shape, None, dt, dev)
        if need_b and gn.ndim == 2 and type(gn) is np.ndarray and g._ext is None:
            # sum_to(g, (out,)) without recording (STATE.enabled is off): _SumTo.forward's
            # host call for a (N, out) gradient, np.add.reduce over axis 0, the same bits
            r = _ADD_REDUCE(gn, (0,))
            if r.dtype is dt._np:
                gb = _new(r, None, 0, r.shape, None, dt, dev)
    else:
        if need_x:
            gx = xp.matmul(g, weight)
        if need_w:
            g2 = g if g.ndim == 2 else xp.reshape(g, (-1, out_f))
            a2 = x if x.ndim == 2 else xp.reshape(x, (-1, x.shape[-1]))
            gw = xp.matmul(xp.matrix_transpose(g2), a2)
    if need_b and gb is None:
        gb = sum_to(g, (out_f,))
    return gx, gw, gb


_LINEAR = rule("nn.functional.linear", "x, weight, bias=None",
                node_by_none("bias", "MmBackward0", "AddmmBackward0"),
                diff=("x", "weight", "bias"), joint=_linear_grads)
_MM, _ADDMM = node_class("MmBackward0"), node_class("AddmmBackward0")

# Note: linear's recorded host case for a 2-D x in one compiled call (_cgrad.linear_host:
# linear's, fusable's, _host's and host_product's checks, the same NumPy calls, the node
# record_node makes); NotImplemented for what it does not take (the definitions above run).
# None without the C extension (STRIDED_NO_CEXT=1 runs the definitions).
linear_host = None
if _cgrad is not None and hasattr(_cgrad, "setup_linear") and hasattr(_cgrad, "record_node"):
    from .._api import linalg_functions as _lf
    _cgrad.setup_linear(_LINEAR, _ADDMM, _MM, np.matmul, np.add, _HANDLERS, _lf.NO_FILL_BYTES)
    linear_host = _cgrad.linear_host


def log_softmax_nll(x, target, reduction="mean"):
    """``nll_loss(log_softmax(x, 1), target)``, one node when recorded."""
    if STATE.enabled and _rg(x) and len(_HANDLERS) <= 2 and _host(x, target):
        r, logp, flat = _nll_host(x, target, reduction)
        # (logp, the forward's own log-softmax, saved as PyTorch saves it: the backward's
        # softmax is exp(logp), the same bits as computing it again from x; flat, the
        # targets' positions in it, row * C + target)
        return _record(_NLL, _NLL.cls, (("x", x),),
                       (("x", x), ("target", target), ("reduction", reduction), ("_logp", logp),
                        ("_flat", flat)), r)
    return _log_softmax_nll_op(x, target, reduction)


_ROWS: dict = {}  # (n, c) -> arange(0, n * c, c), read-only (made once per shape)


def _flat_targets(t, c):
    """The positions ``row * c + t[row]`` of the targets in a C-ordered (N, c) array."""
    n = t.shape[0]
    rows = _ROWS.get((n, c))
    if rows is None:
        if len(_ROWS) > 64:
            _ROWS.clear()
        rows = _ROWS[n, c] = np.arange(0, n * c, c)
        rows.flags.writeable = False
    return np.add(rows, t, dtype=np.intp, casting="unsafe")  # (t in [0, c): checked by the caller)


def _nll_host(x, target, reduction):
    """The host path of ``_log_softmax_nll_op``: (the loss, log_softmax(x) as a NumPy array,
    the targets' positions in it)."""
    a = x._get_native()
    m = _max(a, axis=1, keepdims=True)
    z = a - m
    lse = np.log(_sum(np.exp(z), axis=1, keepdims=True))
    z -= lse  # logp = x - max - log(sum(exp(x - max)))
    flat = _flat_targets(target._get_native(), a.shape[1])
    picked = np.negative(z.reshape(-1).take(flat))  # (take_along_axis's elements, by position)
    if reduction == "none":
        r = picked
    elif reduction == "sum":
        r = np.asarray(_sum(picked), dtype=a.dtype)
    else:
        r = np.asarray(_sum(picked) / a.dtype.type(a.shape[0]), dtype=a.dtype)
    return _new(r, None, 0, r.shape, None, x._dtype, x._device), z, flat


@api("nn.functional.log_softmax_nll")
def _log_softmax_nll_op(x, target, reduction="mean"):
    """``nll_loss(log_softmax(x, 1), target, reduction=...)`` for x (N, C) and class
    indices ``target`` (N,) in range (the caller checks them)."""
    if _host(x, target):
        return _nll_host(x, target, reduction)[0]
    m = xp.max(x, axis=1, keepdims=True)
    z = x - m
    logp = z - xp.log(xp.sum(xp.exp(z), axis=1, keepdims=True))
    picked = -xp.take_along_axis(logp, xp.expand_dims(target, axis=1), axis=1)[:, 0]
    if reduction == "none":
        return picked
    s = xp.sum(picked)
    return s if reduction == "sum" else s / x.shape[0]


def _log_softmax_nll_grad(g, x, target, reduction, ctx):
    if not STATE.enabled and type(g) is Array and g._device is x._device and _host(g, x, target):
        a = x._get_native()
        gn = g._get_native()
        n = a.shape[0]
        s = gn if reduction != "mean" else np.true_divide(gn, a.dtype.type(n))
        if s.dtype != a.dtype:
            s = s.astype(a.dtype)
        if reduction == "none":
            s = s[:, None]
        vals = ctx._vals
        logp = vals.get("_logp") if type(vals) is dict else None
        if type(logp) is np.ndarray and logp.shape == a.shape and logp.dtype == a.dtype:
            p = np.exp(logp)  # (not in place: a retained graph runs this again)
        else:  # (recorded through dispatch: log_softmax again, as the forward made it)
            m = _max(a, axis=1, keepdims=True)
            z = a - m
            lse = np.log(_sum(np.exp(z), axis=1, keepdims=True))
            z -= lse
            p = np.exp(z, out=z)
        r = np.multiply(p, s, out=p)  # exp(logp) * s ...
        sv = s[:, 0] if s.ndim == 2 else s
        if r.flags.c_contiguous:  # (r is this call's own array: its flat view)
            flat = vals.get("_flat") if type(vals) is dict else None
            if type(flat) is not np.ndarray:
                flat = _flat_targets(target._get_native(), a.shape[1])
            rf = r.reshape(-1)
            rf.put(flat, rf.take(flat) - sv)  # ... - onehot * s
        else:
            r[np.arange(n), target._get_native()] -= sv
        return _new(r, None, 0, r.shape, None, x._dtype, x._device)
    n = x.shape[0]
    if reduction == "none":
        s = xp.expand_dims(g, axis=1)
    elif reduction == "sum":
        s = g
    else:
        s = g / n
    logp = x - xp.max(x, axis=1, keepdims=True)
    logp = logp - xp.log(xp.sum(xp.exp(logp), axis=1, keepdims=True))
    onehot = xp.astype(xp.expand_dims(target, axis=1) == xp.arange(x.shape[1], device=x.device),
                       x.dtype)
    return xp.exp(logp) * s - onehot * s


_NLL = rule("nn.functional.log_softmax_nll", "x, target, reduction='mean'", "NllLossBackward0",
            x=_log_softmax_nll_grad)
