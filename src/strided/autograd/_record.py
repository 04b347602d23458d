"""Recording: the dispatch handler that turns namespace calls into graph nodes.

``handler`` is registered with ``strided._core.dispatch.register_handler`` the first
time an array requires grad. For an operation with an input that requires
grad it looks up the operation's ``Rule`` (``RULES``, keyed by the namespace
name), runs the operation with recording off, and attaches a ``RuleNode`` to
the outputs. In-place operations (``out=`` is an input, ``__setitem__``)
rebase the history of the array they modify; on a view they also rebase the
view's base through a ``CopySlices`` node, as PyTorch does.

``_record_ew`` and ``_record`` (for a call without an in-place target or ``out=``, one
output) have compiled twins in ``_csrc/_cgrad.c`` (``record_ew``, ``record_call``) that
the link calls when the extension is built; the Python functions here are the
definitions (STRIDED_NO_CEXT=1 runs them) and the differential tests compare the two.
"""

from __future__ import annotations

import gc
import inspect
import operator
import sys

import strided as _S

from .._core.array import Array, Ext
from .._core.dispatch import _run_impl
from .._api.views import clone
from ._function import fit_grad, strided
from ._graph import _SEQ, FREED, _cgrad, Node, SavedVar, ViewInfo, alias, edge_of, ext_of, save, unpack
from ._mode import STATE

__all__ = ["Rule", "RULES", "NONDIFF", "rule", "handler", "ZERO", "lookup"]

RULES: dict = {}
# name -> why it has no derivative (outputs never require grad).
NONDIFF: dict = {}


class _Zero:
    """A formula whose gradient is zero everywhere it is defined (floor, sign, ...)."""

    def __repr__(self):
        return "ZERO"


ZERO = _Zero()
_SPECIAL = ("g", "ctx")


def _params(fn) -> tuple:
    return tuple(inspect.signature(fn).parameters)


def _getter(names):
    """``env -> tuple of env[n] for n in names`` (operator.itemgetter, a tuple for any length)."""
    if len(names) >= 2:
        return operator.itemgetter(*names)
    if len(names) == 1:
        n = names[0]
        return lambda env: (env[n],)
    return lambda env: ()


class Rule:
    """The derivative of one namespace function.

    ``diff`` names the parameters gradients flow to; ``formulas[p]`` computes
    the gradient for parameter ``p`` from the keyword arguments it names:
    ``g`` (the output's gradient, a tuple for several outputs), ``result``
    (the output), ``ctx`` (the node) and the forward call's parameters. A
    ``joint`` formula returns the gradients of every ``diff`` parameter at once.
    Only the values a needed formula names are saved for backward.
    """

    # (slots: the compiled recorders and apply read a rule's attributes by offset,
    # _cgrad.setup_rule_slots)
    __slots__ = ("name", "node", "multi", "diff", "formulas", "joint", "argnames", "sig", "_binder", "unwrap",
                 "saves", "plans", "cls", "joint_uses", "uses", "positional", "getters", "layout")

    def __init__(self, name, sig, node, diff, formulas, joint, multi):
        self.name = name
        self.node = node
        self.multi = multi
        self.diff = diff
        self.formulas = formulas
        self.joint = joint
        self.argnames = None
        self.sig = inspect.signature(eval(f"lambda {sig}: None"))  # noqa: S307 - our own strings
        names = ", ".join(f"{n!r}: {n}" for n in self.sig.parameters)
        # Python binds the call's arguments to the rule's signature (defaults included).
        self._binder = eval(f"lambda {sig}: {{{names}}}")  # noqa: S307 - our own strings
        # The binder's binding as data for the compiled recorder (_cgrad.c, layout_bind):
        # (names, defaults, the ** parameter's name or None, the no-default marker) for a
        # signature of plain parameters and perhaps a ** one; None for any other.
        ps = list(inspect.signature(self._binder).parameters.values())  # (its default objects)
        plain = [p for p in ps if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
        varkw = [p.name for p in ps if p.kind is inspect.Parameter.VAR_KEYWORD]
        self.layout = ((tuple(p.name for p in plain), tuple(p.default for p in plain),
                        varkw[0] if varkw else None, inspect.Parameter.empty)
                       if len(plain) + len(varkw) == len(ps) else None)
        first = next(iter(self.sig.parameters.values()), None)
        # f(*arrays) also accepts f([a, b]) (broadcast_arrays, meshgrid)
        self.unwrap = first is not None and first.kind is inspect.Parameter.VAR_POSITIONAL
        self.saves = {}
        self.plans = {}  # _ew_plan's cache
        self.cls = None  # the node class, when the name does not depend on the arguments
        if joint is not None:
            self.joint_uses = _params(joint)
            self.uses = {p: self.joint_uses for p in diff}
        else:
            self.joint_uses = None
            self.uses = {p: (() if f is ZERO else _params(f)) for p, f in formulas.items()}
        # Formulas whose parameters can all be passed by position (every rule of ours):
        # RuleNode.apply calls them with the values ``getters[p](env)`` picks (a tuple),
        # in the parameters' order, no keyword dict per call.
        fs = [joint] if joint is not None else [f for f in formulas.values() if f is not ZERO]
        self.positional = all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
                              for f in fs for p in inspect.signature(f).parameters.values())
        self.getters = {p: _getter(u) for p, u in self.uses.items()}

    def bind(self, args, kwargs) -> dict:
        if self.argnames is not None:
            return dict(zip(self.argnames, args))
        if self.unwrap and len(args) == 1 and type(args[0]) in (list, tuple):
            args = tuple(args[0])
        return self._binder(*args, **kwargs)

    def node_name(self, params) -> str:
        n = self.node
        if type(n) is str:
            return n
        if type(n) is tuple:  # (a node_by_none or node_by_ndim choice)
            if n[0] == "none":
                return n[2] if params.get(n[1]) is None else n[3]
            a, b = params[n[1]], params[n[2]]
            return n[3] if a.ndim == 2 and b.ndim == 2 else n[4] if a.ndim == 1 and b.ndim == 1 else n[5]
        return n(params)

    def __repr__(self):
        return f"<Rule {self.name} -> {self.node if type(self.node) is str else '...'}>"


def rule(names, sig=None, node=None, *, diff=None, joint=None, multi=False, **formulas):
    """Register the derivative of the namespace function(s) ``names`` (see ``Rule``)."""
    if isinstance(names, str):
        names = (names,)
    if joint is not None:
        if diff is None:
            raise ValueError("a joint rule names its differentiable parameters in diff=")
        diff = tuple(diff)
    else:
        diff = tuple(formulas)
    if node is None:
        node = "".join(p.capitalize() for p in names[0].split(".")[-1].split("_")) + "Backward0"
    r = Rule(names[0], sig, node, diff, formulas, joint, multi)
    if type(node) is str:
        r.cls = node_class(node)
    for n in names:
        if n in RULES:
            raise ValueError(f"duplicate derivative rule for {n}")
        RULES[n] = r
    return r


def node_by_none(param, if_none, otherwise):
    """A rule's node name chosen by whether parameter ``param`` is None (``sum``'s
    SumBackward0 without an axis, SumBackward1 with one): a choice the compiled recorder
    makes without a Python call (_cgrad.c, record_call)."""
    return ("none", param, if_none, otherwise)


def node_by_ndim(p1, p2, both2, both1, other):
    """A rule's node name chosen by the dimensions of arrays ``p1`` and ``p2``: ``both2``
    for two matrices, ``both1`` for two vectors, ``other`` otherwise (matmul's MmBackward0,
    DotBackward0, MatmulBackward0); made in C as node_by_none's."""
    return ("ndim", p1, p2, both2, both1, other)


def ew_rule(name, node=None, **formulas):
    """A rule for an elementwise registry row (arguments ``x`` or ``x1, x2``)."""
    from .._api.elementwise import REGISTRY
    row = REGISTRY[name]
    # (a parametric row's parameters come between the array and out: (x, *params, out))
    params = "".join(f"{k}={d!r}, " for k, d in row.params)
    r = rule(name, "x1, x2, out=None" if row.nargs == 2 else f"x, {params}out=None", node, **formulas)
    r.argnames = ("x1", "x2", "out") if row.nargs == 2 else ("x",) + tuple(k for k, _ in row.params) + ("out",)
    return r


def nondiff(reason, *names):
    """Declare ``names`` as having no derivative, with the reason."""
    for n in names:
        NONDIFF[n] = reason


def lookup(name):
    r = RULES.get(name)
    if r is None and "." in name:
        r = RULES.get(name.rsplit(".", 1)[1])
    return r


def _nondiff(name):
    return name in NONDIFF or ("." in name and name.rsplit(".", 1)[1] in NONDIFF)


# --- nodes ------------------------------------------------------------------------------

_CLASSES: dict = {}


def node_class(name: str, base=None):
    c = _CLASSES.get(name)
    if c is None:
        c = _CLASSES[name] = type(name, (base or RuleNode,), {})
    return c


class RuleNode(Node):
    """A node whose backward is a ``Rule``'s formulas."""

    grad_defined = (True,)  # (set per call for several outputs)

    def apply(self, grads):
        vals = self._vals
        if vals is None:
            raise RuntimeError(FREED)
        if self._nout == 1:
            env = {"g": grads[0], "ctx": self}
        else:
            env = {"g": tuple(_zeros_if_none(gi, m) for gi, m in zip(grads, self._out_metas)),
                   "ctx": self}
            self.grad_defined = tuple(gi is not None for gi in grads)
        if vals:
            cg = STATE.enabled
            for k, v in vals.items():
                t = type(v)
                if t is SavedVar:
                    st = v._st
                    if cg or st is None or st._family is not None or st._version != v._ver:
                        env[k] = v.unpack(self, cg)  # (lazy, reinterpreted, stale or recording)
                        continue
                    # SavedVar.unpack's common case, inlined: an unchanged value on a plain
                    # backward is the saved array itself (a saved output: a bare alias
                    # already) or, for an input with metadata, a bare alias of it
                    x = v._x
                    if v._nr is None and x._ext is not None:
                        a = _object_new(Array)  # alias(x), x having its Storage
                        a._np = x._np
                        a._st = st
                        a._off = x._off
                        a._shape = x._shape
                        a._str = x._str
                        a._dtype = x._dtype
                        a._device = x._device
                        a._ext = None
                        x = a
                    env[k] = x
                elif t is list or t is tuple:
                    env[k] = unpack(v, self, cg)
                else:
                    env[k] = v
        rule = self._rule
        pos = rule.positional
        if rule.joint is not None:
            uses = rule.joint_uses
            res = rule.joint(*rule.getters[rule.diff[0]](env)) if pos else \
                rule.joint(**{n: env[n] for n in uses})
            if not isinstance(res, (tuple, list)):
                res = (res,)
            results = dict(zip(rule.diff, res))
        else:
            results = {}
            formulas, getters = rule.formulas, rule.getters
            for p in self._needs:
                f = formulas[p]
                if f is ZERO:
                    results[p] = ZERO
                elif pos:
                    results[p] = f(*getters[p](env))
                else:
                    results[p] = f(**{n: env[n] for n in rule.uses[p]})
        env = None
        out = []
        for (p, i), m, (node, _) in zip(self._slots, self._metas, self.next_functions):
            r = results.get(p) if node is not None else None
            if r is None:
                out.append(None)
                continue
            if r is ZERO:
                r = _zeros_if_none(None, m)
            elif i is not None:
                r = r[i]
            if type(r) is not Array or r._shape != m[0] or r._dtype is not m[1] or r._device is not m[2]:
                r = fit_grad(r, m, type(self).__name__)  # (the common case needs none of it)
            out.append(r)
        return out

    def shape(self, param: str):
        """The shape of forward argument ``param`` (a list of shapes for a list of arrays)."""
        found = [(i, m[0]) for (p, i), m in zip(self._slots, self._metas) if p == param]
        if not found:
            raise KeyError(f"{type(self).__name__}: no array argument {param!r}")
        if found[0][0] is None:
            return found[0][1]
        return [s for _, s in found]

    def needs(self, param: str) -> bool:
        """Whether the gradient of forward parameter ``param`` is needed."""
        return param in self._needs

    def release(self):
        self._vals = None

    @property
    def saved_values(self) -> dict:
        """The values saved for backward (PyTorch exposes them as ``_saved_*``)."""
        if self._vals is None:
            raise RuntimeError(FREED)
        return {k: unpack(v, self, False) for k, v in self._vals.items()}


def _zeros_if_none(g, meta):
    if g is not None or meta is None:
        return g
    return _S.zeros(meta[0], dtype=meta[1], device=meta[2])


class CopySlices(Node):
    """In-place operation ``fn`` applied to a view of a base: the base's new history."""

    def __init__(self, fn, t, n, bl, vl, base_edge):
        super().__init__()
        self._fn = fn
        self._t = t
        self._lay = (n, bl, vl)
        nf = list(fn.next_functions)
        nf[t] = base_edge
        self.next_functions = tuple(nf)

    def apply(self, grads):
        g = grads[0]
        n, bl, vl = self._lay
        res = list(self._fn.apply([strided("gather", g, None, n, bl, vl)]))
        res[self._t] = strided("replace", g, res[self._t], n, bl, vl)
        return res

    def release(self):
        self._fn.release()


class AsStridedBackward0(Node):
    """The history of a view after an in-place operation rebased its base."""

    def __init__(self, base_edge, n, bl, vl):
        super().__init__()
        self.next_functions = (base_edge,)
        self._lay = (n, bl, vl)

    def apply(self, grads):
        n, bl, vl = self._lay
        return [strided("embed", grads[0], None, n, bl, vl)]


# --- the handler -----------------------------------------------------------------------

def _rg(x) -> bool:
    return type(x) is Array and x._ext is not None and x._ext.requires_grad


def _any_rg(args, kwargs) -> bool:
    for a in args:
        t = type(a)
        if t is Array:
            if a._ext is not None and a._ext.requires_grad:
                return True
        elif t is list or t is tuple:
            for b in a:
                if type(b) is Array and b._ext is not None and b._ext.requires_grad:
                    return True
    for a in kwargs.values():
        if type(a) is Array and a._ext is not None and a._ext.requires_grad:
            return True
    return False


_EW: frozenset = frozenset()
# In-place operations whose first argument is the array they modify.
_INPLACE = frozenset(("setitem", "zero_", "fill_", "copy_"))


def init_elementwise_names():
    global _EW
    from .._api.elementwise import REGISTRY
    _EW = frozenset(REGISTRY)


def _out_error(name):
    return RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                        "differentiation, but one of the arguments requires grad")


def _make_link(call_next):
    """The autograd link of the dispatch chain (priority 20) with ``call_next`` bound:
    ``register_handler`` links it through ``handler.entry``, one frame less per call."""

    def link(name, impl, args, kwargs):
        if not STATE.enabled:
            return call_next(name, impl, args, kwargs)
        target = None
        if name in _EW:
            out = args[-1]
            if out is not None:
                if out is args[0] or (len(args) == 3 and out is args[1]):
                    target = out
                elif _rg(out) or _rg(args[0]) or (len(args) == 3 and _rg(args[1])):
                    raise _out_error(name)
            # (_rg(args[0]) or (len(args) == 3 and _rg(args[1])), inlined: once per call)
            a = args[0]
            e = a._ext if type(a) is Array else None
            if e is None or not e.requires_grad:
                a = args[1] if len(args) == 3 else None
                e = a._ext if type(a) is Array else None
                if e is None or not e.requires_grad:
                    return call_next(name, impl, args, kwargs)
            if out is None and call_next is _run_impl:
                r = RULES.get(name)
                if r is not None and r.cls is not None:
                    return _record_ew(r, impl, args)
        elif name in _INPLACE:
            target = args[0]
            if not _any_rg(args, kwargs):
                return call_next(name, impl, args, kwargs)
        else:
            out = kwargs.get("out")
            if out is not None:
                if any(out is a for a in args):
                    target = out
                elif _any_rg(args, kwargs):
                    raise _out_error(name)
            if not _any_rg(args, kwargs):
                return call_next(name, impl, args, kwargs)
        if target is not None:
            check_inplace(target, name, recording=True)
            if target._dtype.kind not in "fc":  # an integer or boolean array can't carry a gradient
                return _run_off(name, impl, args, kwargs, call_next)
        r = lookup(name)
        if r is None:
            return _no_rule(name, impl, args, kwargs, call_next)
        if target is None and _record_call is not None and not r.multi and name not in _EW \
                and "out" not in kwargs:
            return _record_call(name, r, impl, args, kwargs, call_next)  # (_record, compiled)
        return _record(name, r, impl, args, kwargs, call_next, target)

    return link


def handler(name, impl, args, kwargs, call_next):
    """The autograd link of the dispatch chain (priority 20)."""
    return _make_link(call_next)(name, impl, args, kwargs)


def _entry(call_next):
    """``handler.entry``: the link bound to ``call_next``; the innermost one (``_run_impl``)
    compiled where the extension is built (``_cgrad.link_ew``: recording off, and an
    elementwise row's recorded call, without the Python frame; anything else runs this
    link, the definition, which STRIDED_NO_CEXT=1 runs alone)."""
    link = _make_link(call_next)
    if call_next is _run_impl and _LINK_C:
        _cgrad.setup_link(link, globals(), RULES, _run_impl, _run_off)
        return _cgrad.link_ew
    return link


handler.entry = _entry

def _cut_from_another(t: Array) -> bool:
    """Whether another live array views ``t``'s memory (``t`` an array autograd does not
    track as a view): another reference to its Storage is alive (the array it was cut from,
    a sibling view, or a view cut from ``t`` itself, whole or part), or its Storage
    reinterprets memory a live array of another dtype holds (``z.real`` of a complex ``z``).
    A recorded write into ``t`` would give ``t`` the new history and leave those arrays
    without it, their gradient lost: PyTorch replays the write into every view of the base,
    which strided, not tracking views of plain arrays, can't."""
    st = t._st
    if st is None:  # (a lazy result: nothing was cut from it yet)
        return False
    fam = st._family
    if fam is not None and any((m := r()) is not None and m is not st for r in list(fam.members.values())):
        return True
    # (the references: t's own, this frame's st and getrefcount's argument)
    others = sys.getrefcount(st) - 3
    if others > 0:  # (rare: only then the slow count) a value saved for backward is no view
        others -= sum(type(r) is SavedVar for r in gc.get_referrers(st))
    return others > 0


def check_inplace(t: Array, name: str, recording: bool = False) -> None:
    """In-place writes into a leaf that requires grad (or a view of one) are errors. So is
    a write autograd records (``recording``: an operand requires grad) into an array
    autograd does not track while another live array views the same memory
    (``x[:2].copy_(a)`` or ``x.view(3).copy_(a)`` with a plain ``x``; ``x.add_(a)`` while
    ``v = x[:2]`` is alive): PyTorch gives ``x`` (or ``v``) the new history, which strided,
    not knowing the views of a plain array, can't; refused before writing rather than give
    them no gradient."""
    e = t._ext
    if e is None or type(e.is_view) is not ViewInfo:
        if recording and (e is None or not e.requires_grad) and _cut_from_another(t):
            raise RuntimeError(
                f"{name}(): an in-place operation that autograd records, into an array autograd does "
                f"not track while another live array views the same memory (the array it was cut "
                f"from, or a view of it): that array would not get the new history (its gradient "
                f"would be lost). Write through the array itself (x[:2] = value) with no other view "
                f"of it alive, or build the result out of place")
        if e is None:
            return
    vi = e.is_view
    if type(vi) is ViewInfo:
        be = vi.base._ext
        if be is not None and be.requires_grad and be.grad_fn is None:
            raise RuntimeError(f"{name}(): a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        if be is not None and be.requires_grad and vi.base._st is not t._st:
            # Note: PyTorch rebases the complex base here; strided can't express the base's
            # history through a reinterpreted view, and refuses (before writing) rather than
            # give a wrong gradient.
            raise RuntimeError(
                f"{name}(): an in-place operation on a {t._dtype.name} view (.real, .imag or "
                f"view(dtype)) of a {vi.base._dtype.name} array that requires grad is not supported by "
                f"strided's autograd; build the new value out of place (x.real * 2 + x.imag * 1j)")
    elif e.requires_grad and e.grad_fn is None:
        raise RuntimeError(f"{name}(): a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _run_off(name, impl, args, kwargs, call_next):
    prev = STATE.enabled
    STATE.enabled = False
    try:
        return call_next(name, impl, args, kwargs)
    finally:
        STATE.enabled = prev


def _differentiable_outputs(result) -> bool:
    items = result if isinstance(result, (tuple, list)) else (result,)
    return any(type(o) is Array and o._dtype.kind in "fc" for o in items)


def _no_rule(name, impl, args, kwargs, call_next):
    result = _run_off(name, impl, args, kwargs, call_next)
    if _nondiff(name) or not _differentiable_outputs(result):
        return result
    raise RuntimeError(f"the derivative for '{name}' is not implemented: strided.autograd has no rule "
                       "for it (compute it under no_grad() or detach() the inputs)")


def _meta(a):
    return (a._shape, a._dtype, a._device)


def _saves(r, needs):
    """(names of saved arguments, whether the result is saved) for the needed parameters."""
    key = frozenset(needs)
    hit = r.saves.get(key)
    if hit is None:
        names = set(r.joint_uses) if r.joint is not None else set().union(*(r.uses[p] for p in needs))
        hit = r.saves[key] = (tuple(n for n in names if n not in _SPECIAL and n != "result"),
                              "result" in names)
    return hit


def _record(name, r, impl, args, kwargs, call_next, target):
    try:
        params = r.bind(args, {k: v for k, v in kwargs.items() if k != "out"} if "out" in kwargs else kwargs)
    except TypeError as e:
        _run_off(name, impl, args, kwargs, call_next)  # the function reports the caller's mistake
        raise RuntimeError(f"autograd can't match the arguments of {name}() to its derivative rule: "
                           f"{e}") from None
    slots, edges, metas, arrays, slot_arrays = [], [], [], [], []
    needs = set()
    for p in r.diff:
        v = params.get(p)
        t = type(v)
        if t is Array:
            items = ((None, v),)
        elif (t is list or t is tuple) and v:
            items = tuple((i, a) for i, a in enumerate(v) if type(a) is Array)
        else:
            continue
        for i, a in items:
            arrays.append(a)
            if a._dtype.kind not in "fc":
                continue
            e = a._ext
            if e is None or not e.requires_grad:
                e = _NO_EDGE
            elif e.grad_fn is not None and type(e.is_view) is not ViewInfo:
                e = (e.grad_fn, e.output_nr)  # edge_of, inlined for a recorded non-view
            else:
                e = edge_of(a)
            slots.append((p, i))
            slot_arrays.append(a)
            edges.append(e)
            metas.append((a._shape, a._dtype, a._device))
            if e[0] is not None:
                needs.add(p)
    if not needs:
        return _run_off(name, impl, args, kwargs, call_next)
    names, keep_result = _saves(r, needs)
    vals = {}
    for n in names:
        v = params[n]
        if target is not None and (v is target or (type(v) in (list, tuple) and any(a is target for a in v))):
            v = clone(v) if v is target else type(v)(clone(a) if a is target else a for a in v)
        vals[n] = SavedVar(v) if type(v) is Array else save(v)

    if target is None and call_next is _run_impl and name in _EW:
        # An elementwise row's kernel path (not in place: no out= check) calls no
        # namespace function, so it runs as is, without switching recording off and on.
        result = impl(*args)
    else:
        result = _run_off(name, impl, args, kwargs, call_next)

    if target is not None:
        outs = [target]
    elif r.multi:
        outs = list(result)
    else:
        outs = [result]
    if target is None:
        same = None
        for i, o in enumerate(outs):
            for a in arrays:
                if o is a:
                    if not r.multi:
                        return result  # the function returned its input: the history is already there
                    if same is None:
                        same = []
                    same.append(i)
                    break
        if same:
            for i in same:
                outs[i] = alias(outs[i])
            result = type(result)(outs) if type(result) in (list, tuple) else type(result)(*outs)

    node = _object_new(r.cls or node_class(r.node_name(params)))  # Node.__init__, inlined
    node._seq = _next_seq()
    node._rule = r
    node._slots = slots
    node._metas = metas
    node._needs = needs
    node._nout = len(outs)
    node.next_functions = tuple(edges)
    out_metas = []
    for i, o in enumerate(outs):
        if type(o) is not Array or o._dtype.kind not in "fc":
            out_metas.append(None)
            continue
        out_metas.append((o._shape, o._dtype, o._device))
        if target is not None:
            continue
        e = o._ext
        if e is None:
            e = o._ext = Ext()
        e.requires_grad = True
        e.grad_fn = node
        e.output_nr = i
        st = o._st
        if st is not None:
            for a in arrays:
                if a._st is st or (st._family is not None and a._st is not None
                                   and a._st._family is st._family):
                    ae = a._ext
                    root = ae.is_view.base if ae is not None and type(ae.is_view) is ViewInfo else a
                    e.is_view = ViewInfo(root, st.version())
                    break
    node._out_metas = out_metas
    if target is not None:
        _rebase(target, node, slot_arrays)
    if keep_result:
        if r.multi:
            vals["result"] = tuple(SavedVar(o, i) if m is not None else o
                                   for i, (o, m) in enumerate(zip(outs, out_metas)))
        else:
            vals["result"] = SavedVar(outs[0], 0)
    node._vals = vals
    return result


def _ew_plan(r, slot_bits, need_bits):
    """What recording an elementwise row needs, for the arguments that are float arrays
    (``slot_bits``) and those whose gradient is needed (``need_bits``): the slots, the
    needed parameters, the saved arguments (name, position) and whether the result is saved."""
    key = (slot_bits, need_bits)
    plan = r.plans.get(key)
    if plan is None:
        names = r.argnames
        slots = tuple((names[i], None) for i in range(len(names) - 1) if slot_bits >> i & 1)
        needs = frozenset(names[i] for i in range(len(names) - 1) if need_bits >> i & 1)
        saved, keep_result = _saves(r, needs)
        plan = r.plans[key] = (slots, needs, tuple((n, names.index(n)) for n in saved), keep_result)
    return plan


def _record_ew(r, impl, args):
    """``_record`` for an elementwise row called out of place (arguments ``(x, None)`` or
    ``(x1, x2, None)``), with the generic path's steps specialised to them and the
    per-call bookkeeping looked up once per argument pattern (``_ew_plan``)."""
    edges, metas = [], []
    slot_bits = need_bits = 0
    for i in range(len(args) - 1):
        a = args[i]
        if type(a) is not Array or a._dtype.kind not in "fc":
            continue
        e = a._ext
        if e is None or not e.requires_grad:
            edge = _NO_EDGE
        elif e.grad_fn is not None and type(e.is_view) is not ViewInfo:
            edge = (e.grad_fn, e.output_nr)  # edge_of, inlined for a recorded non-view
        else:
            edge = edge_of(a)
        edges.append(edge)
        metas.append((a._shape, a._dtype, a._device))
        slot_bits |= 1 << i
        if edge[0] is not None:
            need_bits |= 1 << i
    if not need_bits:
        return _run_off(r.name, impl, args, {}, _run_impl)
    plan = r.plans.get((slot_bits, need_bits))
    if plan is None:
        plan = _ew_plan(r, slot_bits, need_bits)
    slots, needs, saved, keep_result = plan
    vals = {}
    for n, i in saved:
        v = args[i]
        vals[n] = SavedVar(v) if type(v) is Array else v
    # The kernel path calls no namespace function and checks no grad mode (no out=).
    result = impl(*args)
    for a in args:
        if result is a:
            return result  # the function returned its input: the history is already there
    node = _object_new(r.cls)  # Node.__init__, inlined
    node._seq = _next_seq()
    node._rule = r
    node._slots = slots
    node._metas = metas
    node._needs = needs
    node.next_functions = tuple(edges)
    if type(result) is Array and result._dtype.kind in "fc":
        node._out_metas = [(result._shape, result._dtype, result._device)]
        e = result._ext
        if e is None:
            e = result._ext = Ext()
        e.requires_grad = True
        e.grad_fn = node
        e.output_nr = 0
        st = result._st
        if st is not None:  # a result that views an input's memory is a view of its root
            for a in args:
                if type(a) is Array and (a._st is st or (st._family is not None and a._st is not None
                                                         and a._st._family is st._family)):
                    ae = a._ext
                    root = ae.is_view.base if ae is not None and type(ae.is_view) is ViewInfo else a
                    e.is_view = ViewInfo(root, st.version())
                    break
    else:
        node._out_metas = [None]
    if keep_result:
        vals["result"] = SavedVar(result, 0)
    node._vals = vals
    return result


_NO_EDGE = (None, 0)
_object_new = object.__new__
_next_seq = _SEQ.__next__


def _ew_off(r, impl, args):
    """``_record_ew`` when no gradient is needed: the call without recording."""
    return _run_off(r.name, impl, args, {}, _run_impl)


def _ew_view(result, e, args):
    """``_record_ew``'s last step for a result that has a Storage: a result that views an
    input's memory is a view of that input's root."""
    st = result._st
    for a in args:
        if type(a) is Array and (a._st is st or (st._family is not None and a._st is not None
                                                 and a._st._family is st._family)):
            ae = a._ext
            root = ae.is_view.base if ae is not None and type(ae.is_view) is ViewInfo else a
            e.is_view = ViewInfo(root, st.version())
            break


# The Python definition stays reachable (the differential tests compare the two).
_record_ew_py = _record_ew
if _cgrad is not None and hasattr(_cgrad, "record_ew"):
    # Note: the compiled recorder (_csrc/_cgrad.c, record_ew) is this module's _record_ew
    # step for step (the same Python calls where it calls Python); STRIDED_NO_CEXT=1 runs
    # the definition above.
    _cgrad.setup_record(Array, Ext, ViewInfo, SavedVar, edge_of, _ew_off, _ew_plan, _ew_view, _SEQ,
                        _NO_EDGE)
    _record_ew = _cgrad.record_ew
    if hasattr(_cgrad, "setup_saved"):
        # Note: the compiled recorders make their SavedVars in C (_cgrad.c, saved_new:
        # SavedVar.__init__ step for step for a plain array, else the class itself).
        from .._core import array as _array_mod
        _cgrad.setup_saved(SavedVar, _array_mod._c_materialize if _array_mod._CVIEWS is not None else None)
    if hasattr(_cgrad, "setup_leaf"):
        # Note: and a leaf's edge (edge_of's accumulator case) in C (_cgrad.c, leaf_edge).
        from ._graph import AccumulateGrad as _AccumulateGrad
        _cgrad.setup_leaf(_AccumulateGrad)
_LINK_C = False
_record_call = None
if _cgrad is not None and hasattr(_cgrad, "record_call"):
    # Note: _record for a call with no in-place target, no out= and one output (matmul,
    # the reductions, the views, ...), compiled step for step; a
    # differentiable list of arrays or arguments the rule refuses go to _record.
    _cgrad.setup_call(_record, _saves, save, _run_off,
                      lambda r, params: r.cls or node_class(r.node_name(params)))
    _record_call = _cgrad.record_call
    if hasattr(_cgrad, "setup_call_rule"):
        # Note: with Rule's own steps inlined where they are cache hits (Rule.bind's binder
        # call, _saves' r.saves, node_class's _CLASSES, save() of a non-array value).
        _cgrad.setup_call_rule(Rule, node_class, _CLASSES)
    if hasattr(_cgrad, "setup_rule_slots"):
        # Note: and a rule's attributes read from its slots (while Rule is as it is now).
        _cgrad.setup_rule_slots(Rule)
if _cgrad is not None and hasattr(_cgrad, "setup_apply") and hasattr(_cgrad, "record_ew"):
    # Note: the engine's compiled loop (drain) runs RuleNode.apply compiled
    # (_csrc/_cgrad.c, rule_apply: the definition above step for step, the same Python
    # calls where it calls Python); STRIDED_NO_CEXT=1 runs the definition.
    _cgrad.setup_apply(RuleNode.apply, ZERO, STATE, FREED, unpack, fit_grad, _zeros_if_none,
                       _object_new)
    if hasattr(_cgrad, "setup_accumulate"):
        # Note: and AccumulateGrad.apply's common case (a leaf's first gradient that only
        # the engine holds becomes its .grad: _graph._stealable's conditions, read in C).
        import numpy as _np

        from . import _graph as _g
        # (_chot.free_held: a gradient whose array the small-result free list also holds is
        # stolen too, the list's reference discounted)
        _held = getattr(_g._cext.load("_chot"), "free_held", None)
        _cgrad.setup_accumulate(_g.AccumulateGrad.apply, _np.ndarray, _g._PoolBlock, _g._ACCUMULATE, _held)
    if hasattr(_cgrad, "setup_release"):
        # Note: the engine's node.release() of a RuleNode (``_vals = None``) and of a Node
        # (nothing to free: AccumulateGrad's) done in C; any other release() is called.
        _cgrad.setup_release(RuleNode.release, Node.release)
    if hasattr(_cgrad, "setup_sum_to"):
        # Note: and fit_grad's broadcast case (a plain backward's host gradient summed down to
        # its input's shape, _SumTo.forward's NumPy case: _function._SUM_AXES's axes, the
        # ufunc's reduce), read in C; anything else runs fit_grad.
        import numpy as _np

        from . import _function as _fn
        _cgrad.setup_sum_to(_fn._SUM_AXES, _np.add.reduce, _np.asarray)
    # Note: the link's compiled twin (link_ew) calls record_ew itself, so it needs both.
    _LINK_C = hasattr(_cgrad, "link_ew")


def _rebase(target, node, slot_arrays):
    """Give ``target`` (modified in place) the history ``node``; views also rebase their base."""
    e = ext_of(target)
    old = e.grad_fn
    vi = e.is_view
    fn = node
    if type(vi) is ViewInfo:
        base = vi.base
        t = next(k for k, a in enumerate(slot_arrays) if a is target)
        bst, boff, bshape, bstr = base._layout()
        vst, voff, vshape, vstr = target._layout()
        if bst is vst:
            n = len(bst)
            bl, vl = (boff, bshape, bstr), (voff, vshape, vstr)
            cs = CopySlices(node, t, n, bl, vl, edge_of(base))
            be = ext_of(base)
            be.requires_grad = True
            be.grad_fn = cs
            be.output_nr = 0
            fn = AsStridedBackward0((cs, 0), n, bl, vl)
            vi.version = vst.version()
    if e.retains_grad and old is not None and old._retains:
        # retain_grad() follows the array: its .grad is the gradient of the new value
        hook = old._retains.pop(e.output_nr, None)
        if hook is not None:
            fn._retains = {0: hook}
    e.requires_grad = True
    e.grad_fn = fn
    e.output_nr = 0
