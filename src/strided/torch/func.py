"""``torch.func``: function transforms (``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``,
``jacfwd``, ``hessian``, ``functional_call``, ``vmap``) over strided's autograd.

Each transform runs ``func`` with grad mode on, on fresh leaves standing for the differentiated
arguments (views of them when they already require grad, so an outer transform or ``backward``
sees through), and differentiates with ``strided.autograd.grad``. The graph is kept
(``create_graph``) whenever grad mode is on, so the transforms nest: ``grad(grad(f))``,
``jacrev(jacrev(f))``, ``hessian``. A result that depends only on the transform's own leaves is
returned detached, as PyTorch's are; one that depends on arrays requiring grad from outside
(an outer transform's inputs, a module's parameters) keeps its history.

Arguments and outputs are PyTorch's pytrees (arrays in nested tuples, lists and dicts).

Known differences from PyTorch: ``jacfwd`` and ``jvp`` are computed by reverse mode
(``jvp`` by the double-backward trick), with the same values; ``vmap`` is strided's loop over
the batch (``strided.torch.vmap``); ``jacrev``'s ``chunk_size`` changes no value (the rows are
computed one at a time whatever it is).

>>> import strided.torch as torch
>>> from strided.torch.func import grad
>>> grad(grad(lambda x: x ** 3))(torch.tensor(2.0))
tensor(12.)
"""

from __future__ import annotations

import functools
import sys
import threading

from .._core.array import Array
from ..autograd import _graph
from ..autograd._mode import enable_grad, is_grad_enabled
from ._more_vmap import vmap
from ._more_vmap import _NoDraws
from . import _random

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian", "functional_call",
           "stack_module_state", "vmap"]

_MISSING = ("functionalize", "replace_all_batch_norm_modules_", "debug_unwrap", "rearrange")


def __getattr__(name: str):
    if name in _MISSING:
        raise AttributeError(f"strided.torch.func has no {name!r}: strided does not support it; it has "
                             f"{', '.join(__all__)}")
    raise AttributeError(f"module 'strided.torch.func' has no attribute {name!r}")


def _torch():
    return sys.modules["strided.torch"]


# --- pytrees ----------------------------------------------------------------------------------

def _flatten(tree):
    """(leaves, spec) of a pytree of tuples, lists and dicts; anything else is a leaf."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for t in tree:
            lv, sp = _flatten(t)
            leaves += lv
            specs.append(sp)
        return leaves, (type(tree), None, tuple(specs))
    if isinstance(tree, dict):
        leaves, specs = [], []
        for k in tree:
            lv, sp = _flatten(tree[k])
            leaves += lv
            specs.append(sp)
        return leaves, (type(tree), tuple(tree), tuple(specs))
    return [tree], None


def _unflatten(spec, leaves):
    it = iter(leaves)

    def build(sp):
        if sp is None:
            return next(it)
        kind, keys, children = sp
        parts = [build(c) for c in children]
        if keys is not None:
            return kind(zip(keys, parts))
        if hasattr(kind, "_fields"):
            return kind(*parts)
        return kind(parts)
    return build(spec)


def _spec_str(spec) -> str:
    if spec is None:
        return "*"
    kind, keys, children = spec
    inner = ", ".join((f"{k!r}: " if keys is not None else "") + _spec_str(c)
                      for k, c in zip(keys or [None] * len(children), children))
    if keys is not None:
        return "{" + inner + "}"
    if kind is list:
        return "[" + inner + "]"
    return "(" + inner + ("," if len(children) == 1 else "") + ")"


# --- argnums ------------------------------------------------------------------------------------

def _check_argnum(argnum, num_args):
    if isinstance(argnum, bool) or not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -num_args <= argnum < num_args:
        return argnum % num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _argnums(argnums, num_args):
    """The argnums as a tuple of non-negative ints (checked as PyTorch checks them)."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return (_check_argnum(argnums, num_args),)
    if isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return tuple(_check_argnum(a, num_args) for a in argnums)
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


# --- differentiable leaves and unwrapping --------------------------------------------------------

def _differentiable(x):
    """A fresh leaf for ``x`` (a view of it when it already requires grad and grad mode is on)."""
    if not isinstance(x, Array):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if not (x.is_floating_point() or x.is_complex()):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_(True)


class _Active(threading.local):
    levels: list

    def __init__(self):
        self.levels = []  # the transforms running now in this thread, outermost first


_ACTIVE = _Active()


class _Level:
    """One application of a transform: its own leaves (and those of the transforms nested in it),
    and the node counter when it started; entered while the transform runs ``func``."""

    def __init__(self):
        self.start = next(_graph._SEQ)
        self.own = set()
        self.keep = []  # (the leaves, alive while their ids are in ``own``)
        self.outer = is_grad_enabled()  # (off: nothing outside records, every result is detached)

    def __enter__(self):
        _ACTIVE.levels.append(self)
        return self

    def __exit__(self, *exc):
        _ACTIVE.levels.remove(self)
        return False

    def wrap_args(self, args, argnums):
        """``args`` with the pytrees at ``argnums`` replaced by fresh leaves; those leaves (flat) and
        the specs to rebuild each argnum's structure."""
        args = list(args)
        flat, specs = [], []
        for a in argnums:
            leaves, spec = _flatten(args[a])
            new = [_differentiable(x) for x in leaves]
            for n in new:
                if n.grad_fn is None:
                    for lv in _ACTIVE.levels if self in _ACTIVE.levels else [self]:
                        lv.own.add(id(n))
                        lv.keep.append(n)
            flat.append(new)
            specs.append(spec)
            args[a] = _unflatten(spec, new)
        return tuple(args), flat, specs

    def depends_outside(self, x) -> bool:
        """True when ``x``'s history reaches an array requiring grad from outside this transform."""
        node = x.grad_fn
        if node is None:
            return bool(x.requires_grad) and id(x) not in self.own
        seen = set()
        todo = [node]
        while todo:
            n = todo.pop()
            if n is None or id(n) in seen:
                continue
            seen.add(id(n))
            if isinstance(n, _graph.AccumulateGrad):
                if id(n.variable) not in self.own:
                    return True
                continue
            if n._seq < self.start:
                return True
            todo.extend(c for c, _ in n.next_functions)
        return False

    def unwrap(self, tree):
        """The arrays of ``tree`` detached where they depend only on this transform's leaves."""
        leaves, spec = _flatten(tree)
        out = [x.detach() if isinstance(x, Array) and x.requires_grad and
               (not self.outer or not self.depends_outside(x)) else x for x in leaves]
        return _unflatten(spec, out)


def _grads(outputs, inputs, grad_outputs, create_graph, retain_graph=None):
    """d(outputs)/d(inputs) seeded with ``grad_outputs``: zeros where an input is unused."""
    from ..autograd import grad as _grad
    torch = _torch()
    outs, gos = [], []
    for o, g in zip(outputs, grad_outputs):
        if o.requires_grad:
            outs.append(o)
            gos.append(g)
    if not outs:
        return [torch.zeros_like(x) for x in inputs]
    res = _grad(outs, list(inputs), gos, retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)
    return [torch.zeros_like(x) if g is None else g for x, g in zip(inputs, res)]


def _pack(argnums_in, specs, flat_grads):
    """The gradients in the structure of the differentiated arguments (one, or a tuple of them)."""
    trees = [_unflatten(sp, g) for sp, g in zip(specs, flat_grads)]
    return trees[0] if isinstance(argnums_in, int) else tuple(trees)


def _split(flat, counts):
    out, at = [], 0
    for n in counts:
        out.append(flat[at:at + n])
        at += n
    return out


# --- grad, grad_and_value -------------------------------------------------------------------------

def grad_and_value(func, argnums=0, has_aux=False):
    """``torch.func.grad_and_value``: a function returning ``(gradient, value)`` of the scalar ``func``
    (``((gradient, (value, aux)))`` with ``has_aux``).

    >>> import strided.torch as torch
    >>> from strided.torch.func import grad_and_value
    >>> grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1.0, 2.0]))
    (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        outer = is_grad_enabled()
        nums = _argnums(argnums, len(args))
        with _Level() as level, enable_grad():
            new_args, flat, specs = level.wrap_args(args, nums)
            output = func(*new_args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, Array):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                                   f"APIs instead?")
            leaves = [x for group in flat for x in group]
            gs = _grads([output], leaves, [None], create_graph=outer)
        gs = level.unwrap(_pack(argnums, specs, _split(gs, [len(f) for f in flat])))
        output = level.unwrap(output)
        if has_aux:
            return gs, (output, level.unwrap(aux))
        return gs, output
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """``torch.func.grad``: a function returning the gradient of the scalar ``func`` with respect to
    the arguments at ``argnums`` (``(gradient, aux)`` with ``has_aux``).

    >>> import strided.torch as torch
    >>> from strided.torch.func import grad
    >>> grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(torch.tensor([1.0]), torch.tensor([3.0]))
    (tensor([3.]), tensor([1.]))
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        if has_aux:
            return g, value[1]
        return g
    return wrapper


# --- vjp, jvp ---------------------------------------------------------------------------------------

def _check_outputs(api, flat_out):
    if not flat_out:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = [])")
    for o in flat_out:
        if not isinstance(o, Array):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")


def _vjp_with_argnums(func, primals, argnums=None, has_aux=False, api="vjp(f, *primals)"):
    nums = tuple(range(len(primals))) if argnums is None else _argnums(argnums, len(primals))
    with _Level() as level, enable_grad():
        new_args, flat, specs = level.wrap_args(primals, nums)
        out = func(*new_args)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) if "
                                   "has_aux is True")
            out, aux = out
        flat_out, out_spec = _flatten(out)
        _check_outputs(api, flat_out)
        for o in flat_out:
            if not (o.is_floating_point() or o.is_complex()):
                raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                                   f"Tensor with dtype {o.dtype}")
    leaves = [x for group in flat for x in group]
    counts = [len(f) for f in flat]

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        if create_graph is None:
            create_graph = is_grad_enabled()
        flat_ct, ct_spec = _flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {_spec_str(ct_spec)}, primal output: "
                               f"{_spec_str(out_spec)}")
        for i, (o, c) in enumerate(zip(flat_out, flat_ct)):
            if not isinstance(c, Array):
                raise RuntimeError(f"vjp_fn: Expected cotangents to only contain Tensors, got {type(c)}")
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and output[{i}] "
                                   f"has a shape of {o.shape}.")
        with enable_grad():
            gs = _grads(flat_out, leaves, flat_ct, create_graph=create_graph, retain_graph=retain_graph)
        trees = [_unflatten(sp, g) for sp, g in zip(specs, _split(gs, counts))]
        if argnums is None or not isinstance(argnums, int):
            trees = tuple(trees)
        else:
            trees = trees[0]
        return level.unwrap(trees)

    return level.unwrap(out), vjp_fn, (level.unwrap(aux) if has_aux else None)


def vjp(func, *primals, has_aux=False):
    """``torch.func.vjp``: ``(func(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` is the tuple of the
    vector-Jacobian products, one per primal (``(output, vjp_fn, aux)`` with ``has_aux``).

    >>> import strided.torch as torch
    >>> from strided.torch.func import vjp
    >>> out, vjp_fn = vjp(lambda x: x ** 2, torch.tensor([1.0, 2.0]))
    >>> vjp_fn(torch.ones(2))
    (tensor([2., 4.]),)
    """
    out, fn, aux = _vjp_with_argnums(func, primals, None, has_aux)
    return (out, fn, aux) if has_aux else (out, fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``torch.func.jvp``: ``(func(*primals), J @ tangents)``, computed by reverse mode (the
    double-backward trick; the same values as PyTorch's forward mode).

    >>> import strided.torch as torch
    >>> from strided.torch.func import jvp
    >>> jvp(lambda x: x ** 2, (torch.tensor([1.0, 2.0]),), (torch.tensor([1.0, 0.0]),))
    (tensor([1., 4.]), tensor([2., 0.]))
    """
    if strict:
        raise RuntimeError("jvp(f, primals, tangents, strict=True): strict mode is not yet implemented")
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    flat_p, p_spec = _flatten(primals)
    flat_t, t_spec = _flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
                           f"Got primals with structure {_spec_str(p_spec)} and tangents with structure "
                           f"{_spec_str(t_spec)}")
    for argname, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"jvp(f, primals, tangents): Expected {argname} to contain at least one Tensor.")
        for x in flat:
            if not isinstance(x, Array):
                raise RuntimeError(f"jvp(f, primals, tangents): Expected {argname} to only contain Tensors, got "
                                   f"{type(x)}")
    for p, t in zip(flat_p, flat_t):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the "
                               f"original Tensor, this is not supported. Tensor is of size {p.shape} while the "
                               f"given forward gradient is of size {t.shape}.")
    torch = _torch()
    outer = is_grad_enabled()
    with _Level() as level, enable_grad():
        new_args, flat, _ = level.wrap_args(primals, tuple(range(len(primals))))
        out = func(*new_args)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError("jvp(f, primals, tangents): output of function f should be a tuple: (output, aux) "
                                   "if has_aux is True")
            out, aux = out
        flat_out, out_spec = _flatten(out)
        for o in flat_out:
            if not isinstance(o, Array):
                raise RuntimeError(f"jvp(f, primals, tangents): expected f(*args) to return only tensors, got "
                                   f"unsupported type {type(o)}")
        leaves = [x for group in flat for x in group]
        # The double-backward trick: u -> J^T u is linear in u; its vjp with the tangents is J t.
        us = [torch.zeros_like(o, requires_grad=True) for o in flat_out]
        gin = _grads(flat_out, leaves, us, create_graph=True)
        jv = _grads(gin, us, flat_t, create_graph=outer)
    tangent_out = _unflatten(out_spec, jv)
    res = (level.unwrap(out), level.unwrap(tangent_out))
    return res + (level.unwrap(aux),) if has_aux else res


def linearize(func, *primals):
    """``torch.func.linearize``: ``(func(*primals), jvp_fn)``; ``jvp_fn(*tangents)`` is the Jacobian at
    ``primals`` times ``tangents`` (``func`` runs once; each ``jvp_fn`` call is a backward pass of the
    kept graph, by the double-backward trick).

    >>> import strided.torch as torch
    >>> from strided.torch.func import linearize
    >>> out, jvp_fn = linearize(lambda x: x ** 2, torch.tensor([1.0, 3.0]))
    >>> jvp_fn(torch.tensor([1.0, 1.0]))
    tensor([2., 6.])
    """
    torch = _torch()
    flat_p, p_spec = _flatten(primals)
    with _Level() as level, enable_grad():
        new_args, flat, _ = level.wrap_args(primals, tuple(range(len(primals))))
        out = func(*new_args)
        flat_out, out_spec = _flatten(out)
        for o in flat_out:
            if not isinstance(o, Array):
                raise RuntimeError(f"linearize(f, *primals): expected f(*primals) to return only tensors, got "
                                   f"unsupported type {type(o)}")
        leaves = [x for group in flat for x in group]
        us = [torch.zeros_like(o, requires_grad=True) for o in flat_out]
        gin = _grads(flat_out, leaves, us, create_graph=True)
    shapes = [(tuple(p.shape), p.device, p.dtype) for p in flat_p]

    def jvp_fn(*tangents):
        flat_t, t_spec = _flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {_spec_str(t_spec)} to have the same argspec as the primals "
                               f"{_spec_str(p_spec)}")
        for idx, (t, (shape, dev, dt)) in enumerate(zip(flat_t, shapes)):
            if tuple(t.shape) != shape:
                raise RuntimeError(f"tangent:{idx} with shape {t.shape} in flattened pytree doesn't match the shape "
                                   f"{_size(shape)} of the corresponding primal.")
            if t.device != dev:
                raise RuntimeError(f"tangent:{idx} with device {t.device} in flattened pytree doesn't match the "
                                   f"device {dev} of the corresponding primal.")
            if t.dtype != dt:
                raise RuntimeError(f"tangent:{idx} with dtype {t.dtype} in flattened pytree doesn't match the dtype "
                                   f"{dt} of the corresponding primal.")
        with enable_grad():
            jv = _grads(gin, us, flat_t, create_graph=False, retain_graph=True)
        return _unflatten(out_spec, [g.detach() for g in jv])

    return level.unwrap(out), jvp_fn


def _size(shape):
    return _torch().Size(shape)


# --- jacobians ------------------------------------------------------------------------------------

def _jacobian(func, argnums, has_aux, api, randomness=None):
    @functools.wraps(func)
    def wrapper(*args):
        outer = is_grad_enabled()
        nums = _argnums(argnums, len(args))
        torch = _torch()
        with _Level() as level, enable_grad(), _random_mode(randomness):
            new_args, flat, specs = level.wrap_args(args, nums)
            out = func(*new_args)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux "
                                       f"is True")
                out, aux = out
            flat_out, out_spec = _flatten(out)
            _check_outputs(api, flat_out)
            leaves = [x for group in flat for x in group]
            counts = [len(f) for f in flat]
            jac_out = []
            for o in flat_out:
                rows = [[] for _ in leaves]
                of = o.reshape(-1)
                for j in range(o.numel()):
                    gs = _grads([of[j]], leaves, [None], create_graph=outer, retain_graph=True)
                    for r, g in zip(rows, gs):
                        r.append(g.reshape(-1))
                jacs = []
                for r, x in zip(rows, leaves):
                    m = torch.stack(r) if r else torch.zeros((0, x.numel()), dtype=x.dtype, device=x.device)
                    jacs.append(m.reshape(tuple(o.shape) + tuple(x.shape)))
                jac_out.append(_pack(argnums, specs, _split(jacs, counts)))
        res = level.unwrap(_unflatten(out_spec, jac_out))
        if has_aux:
            return res, level.unwrap(aux)
        return res
    return wrapper


class _random_mode:
    """PyTorch's randomness flag of jacfwd (its vmap): "error" makes a draw from a default generator raise."""

    def __init__(self, randomness):
        self.randomness = randomness

    def __enter__(self):
        self.saved = None
        if self.randomness == "error":
            gens = [_random.default_generator("cpu")] + list(_random._GENERATORS.values())
            self.gens = list({id(g): g for g in gens}.values())
            self.saved = [g._rng for g in self.gens]
            for g in self.gens:
                g._rng = _NoDraws()
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            for g, r in zip(self.gens, self.saved):
                g._rng = r
        return False


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """``torch.func.jacrev``: a function returning the Jacobian of ``func`` with respect to the arguments
    at ``argnums``, by reverse mode (one row per output element); ``((jacobian, aux))`` with ``has_aux``.

    >>> import strided.torch as torch
    >>> from strided.torch.func import jacrev
    >>> jacrev(lambda x: x ** 2)(torch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(func, argnums, has_aux, "jacrev(f, ...)(*args)")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """``torch.func.jacfwd``: the Jacobian of ``func`` as ``jacrev`` computes it (strided has no forward
    mode; the values are the same as PyTorch's forward mode).

    ``randomness`` is PyTorch's flag: "error" (the default) makes a draw from a default random
    generator inside ``func`` raise; "different" and "same" let it draw.

    >>> import strided.torch as torch
    >>> from strided.torch.func import jacfwd
    >>> jacfwd(lambda x: x.sin())(torch.tensor([0.0]))
    tensor([[1.]])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    return _jacobian(func, argnums, has_aux, "jacfwd(f, ...)(*args)", randomness)


def hessian(func, argnums=0):
    """``torch.func.hessian``: ``jacfwd(jacrev(func, argnums), argnums)``, the Hessian of ``func``.

    >>> import strided.torch as torch
    >>> from strided.torch.func import hessian
    >>> hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


def stack_module_state(models):
    """``torch.func.stack_module_state``: the parameters and buffers of same-class ``models`` stacked
    along a new first dimension, as two dicts (the parameters as new leaves requiring grad).

    >>> import strided.torch as torch
    >>> from strided.torch.func import stack_module_state
    >>> params, buffers = stack_module_state([torch.nn.PReLU() for _ in range(3)])
    >>> params["weight"].shape, params["weight"].requires_grad
    (strided.Size([3, 1]), True)
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    torch = _torch()

    def stacked(tensors, name):
        all_req = all(t.requires_grad for t in tensors)
        if not all_req and any(t.requires_grad for t in tensors):
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        r = torch.stack(tensors)
        return r.detach().requires_grad_() if all_req else r

    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: stacked(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: stacked(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers


# --- functional_call ---------------------------------------------------------------------------------

def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """``torch.func.functional_call``: ``module(*args, **kwargs)`` with its parameters and buffers
    replaced by the arrays of ``parameter_and_buffer_dicts`` (a dict, or a sequence of dicts with
    distinct keys) for the call.

    >>> import strided.torch as torch
    >>> from strided.torch.func import functional_call
    >>> functional_call(torch.nn.PReLU(), {"weight": torch.tensor([0.5])}, (torch.tensor([-2.0, 3.0]),))
    tensor([-1.,  3.])
    """
    from .nn.utils.stateless import _functional_call
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(f"Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        merged = {}
        seen: dict = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                seen[k] = seen.get(k, 0) + 1
        dups = [k for k, n in seen.items() if n > 1]
        if dups:
            raise ValueError(f"{dups} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        for d in parameter_and_buffer_dicts:
            merged.update(d)
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, merged, args, kwargs, tie_weights=tie_weights, strict=strict)
