"""Dispatch helpers shared by every namespace function.

- ``api(name)``: decorator for non-elementwise functions. When no extension
  is active it costs one list lookup; when an input carries extension
  metadata (autograd, names) the installed hook runs the function.
- ``install_hook``: how an extension plugs in.
- ``quiet(fn)``: ``fn`` under NumPy's "ignore" error state, so that strided's
  own arithmetic never reports a RuntimeWarning (the standard specifies IEEE
  results, and PyTorch does not warn), even under a user's
  ``warnings.simplefilter("error")`` or ``pytest -W error``.
- Operand helpers: device checks, Python scalar handling; ``out=`` checks and
  writing into an existing array are the write stage's (``_core/call/write.py``),
  re-exported here.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types

import numpy as np

from . import _npcompat, cext as _cext, dtypes as _dtypes
from .call import bind as _bind
from .array import _LATE, HOOK, Array
from .device import Device, DeviceMismatchError
from .storage import Storage
from .call import adopt as _adopt, write as _write  # noqa: F401  (adopt: registers its hook)


def _load_chot():
    """The compiled hot path (strided/_csrc/_chot.c), or None: not built, or STRIDED_NO_CEXT=1."""
    _chot = _cext.load("_chot")
    if _chot is None:
        return None
    _chot.setup_array(Array, _dtypes.DType, Storage, Device)  # (done by _array already: the same classes)
    return _chot


CHOT = _load_chot()


def _errstate():
    """NumPy's ufunc error-state context variable and its value under
    ``np.errstate(all="ignore")``, or (None, None) for a NumPy without one."""
    var = _npcompat.errstate_var()
    if var is None:
        return None, None
    with np.errstate(all="ignore"):
        return var, var.get()


# Note: a module-level warnings filter (_elementwise) is not enough: a user's
# simplefilter("error") or catch_warnings() puts its own filter in front of it.
ERRSTATE, QUIET = _errstate()


def quiet(fn):
    """``fn`` run under NumPy's "ignore" error state (the outermost call sets it,
    nested calls find it set): no floating-point RuntimeWarning from strided's
    kernels. Compiled, the setting costs ~40 ns a call (``_chot``'s K_QUIET)."""
    if ERRSTATE is None:  # a NumPy without the variable (_npcompat): np.errstate, ~1 us a call
        return _quiet_errstate(fn)
    if CHOT is not None:
        # (kind 7: asarray's identity case in C first, see _chot's fast_asarray_same)
        fast = CHOT.Fast(fn, 7 if getattr(fn, "_fast_identity", False) else 5)
        fast.__dict__.update(getattr(fn, "__dict__", {}))
        return fast
    get, set_, reset = ERRSTATE.get, ERRSTATE.set, ERRSTATE.reset

    @functools.wraps(fn)
    def run(*args, **kwargs):
        if get() is QUIET:
            return fn(*args, **kwargs)
        token = set_(QUIET)
        try:
            return fn(*args, **kwargs)
        finally:
            reset(token)

    return run


def _quiet_errstate(fn):
    """``quiet``'s fallback: ``fn`` under ``np.errstate(all="ignore")``."""
    if getattr(fn, "_quiet_errstate", False):
        return fn

    @functools.wraps(fn)
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)

    run._quiet_errstate = True
    return run


# Entry points with no floating-point arithmetic of their own (metadata, views, the
# autograd and names bookkeeping, buffers of zeros, ones or nothing: no value is cast
# that could overflow, unlike ``full``'s fill): left bare, they are called often (the
# quiet state costs ~1,600 instructions a call: zeros(10) 10.6k -> 9.0k).
_BARE = frozenset("""
    stride storage_offset storage untyped_storage is_contiguous numel dim ndimension
    element_size data_ptr is_floating_point is_complex has_names item tolist numpy
    t transpose swapaxes swapdims view expand expand_as view_as reshape_as squeeze flatten
    unflatten narrow unfold split chunk unbind movedim moveaxis permute_dims diagonal
    to_device cpu cuda requires_grad_ register_hook retain_grad detach detach_
    refine_names rename rename_ align_to align_as broadcast_to broadcast_shapes unsqueeze
    finfo iinfo isdtype can_cast result_type is_grad_enabled memory_stats empty_cache
    get_num_threads set_num_threads get_thread_threshold set_thread_threshold
    get_cache_limit set_cache_limit get_pool_threshold set_pool_threshold
    get_default_device set_default_device get_default_dtype set_default_dtype
    zeros ones empty zeros_like ones_like empty_like eye arange""".split())
# (arange: its short path of Python ints computes nothing in floating point; its general
# path runs quiet itself, _api/creation._arange)
# The object protocol: construction, attribute access, printing, hashing, copying,
# pickling, iteration and indexing (views); none computes.
_STRUCTURAL = frozenset("""
    __new__ __init__ __del__ __getattr__ __getattribute__ __setattr__ __delattr__ __dir__
    __repr__ __str__ __format__ __hash__ __sizeof__ __len__ __iter__ __reversed__ __contains__
    __getitem__ __reduce__ __reduce_ex__ __getstate__ __setstate__ __copy__ __deepcopy__
    __init_subclass__ __subclasshook__ __class_getitem__ __array_namespace__ __dlpack_device__
    __set_name__""".split())
# The operators and functions generated from ``ROWS`` run their kernels under the quiet
# state themselves (a wrapper would add the frame their temporary elision looks at).
_SELF_QUIETED = "strided._api.elementwise"


def quiet_entry_points(namespace: dict, cls: type) -> None:
    """Put ``quiet`` in front of every public function of the namespace and every method
    and operator of ``cls`` that is a plain Python function, except the bare ones above:
    the rule is "every entry point runs quiet" on both paths, with nothing to list when
    a module or a dunder is added. (``api`` functions and compiled ``Fast`` entry points
    are quiet already and are not plain functions; ``quiet`` of a quiet function only
    costs a check.)"""
    quiet_functions(namespace)
    for name, v in list(vars(cls).items()):
        if type(v) is not types.FunctionType or name in _BARE or name in _STRUCTURAL:
            continue
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue  # private helpers
        if name.startswith("__") and v.__module__ == _SELF_QUIETED:
            continue
        setattr(cls, name, quiet(v))


def quiet_functions(namespace: dict, names=None) -> None:
    """Put ``quiet`` in front of each public plain Python function of ``namespace`` (a
    module's globals; only those in ``names`` where given, a module's ``__all__``: not what it
    imported for its own use), except the bare ones above, here and in the module that
    defines it. (``strided.torch.nn.functional``'s functions call NumPy themselves, the
    fused losses and products: quiet like the namespace's.)"""
    for name, v in list(namespace.items()):
        if (not name.startswith("_") and type(v) is types.FunctionType and name not in _BARE
                and (names is None or name in names)
                and v.__module__ != _SELF_QUIETED and not hasattr(v, "_api_name")):
            q = namespace[name] = quiet(v)
            module = sys.modules.get(v.__module__)
            if module is not None and getattr(module, name, None) is v:
                setattr(module, name, q)  # (pickled by reference: found where it's defined)


__all__ = ["api", "quiet", "register_handler", "has_ext", "check_devices", "write_out", "check_out"]

_SCALARS = (bool, int, float, complex)


_HANDLERS: list = []  # (priority, handler), lowest priority runs first (outermost)


def register_handler(handler, priority: int) -> None:
    """Plug an extension into dispatch.

    ``handler(name, impl, args, kwargs, call_next)`` runs for an operation
    whose inputs carry extension metadata (``array._ext is not None``). It
    must call ``call_next(name, impl, args, kwargs)`` (which runs the next
    handler, or finally ``impl(*args, **kwargs)``) and may inspect or
    replace the result. Named dimensions use priority 10, autograd 20.
    The core's hot path pays nothing until the first handler is registered.

    A handler may carry ``handler.entry(call_next)``, a factory of its own link
    (``link(name, impl, args, kwargs)``) that binds ``call_next`` once: its
    common case then runs without the generic link's extra frame.
    """
    if any(h is handler for _, h in _HANDLERS):
        return
    _HANDLERS.append((priority, handler))
    _HANDLERS.sort(key=lambda ph: ph[0])
    # The chain is linked once here: each link calls its handler with the next link
    # as ``call_next`` (no closure built per call).
    chain = _run_impl
    for _, h in reversed(_HANDLERS):
        entry = getattr(h, "entry", None)
        chain = entry(chain) if entry is not None else _link(h, chain)
    HOOK[0] = _standard_keywords(chain)


def _standard_keywords(chain):
    """The chain's head: the binding stage (_core/call/bind.py) for a call that reaches the
    handlers without having been bound (an ``api`` function called by a method with
    PyTorch's keywords): the extensions see the standard's names (``axis=``)."""
    binders = _bind.BINDERS

    def head(name, impl, args, kwargs):
        if kwargs:
            b = binders.get(name)
            if b is not None:
                args, kwargs = b.bind(args, kwargs)
        return chain(name, impl, args, kwargs)
    if CHOT is not None:
        # The same head compiled (_csrc/_chot/fast.c, K_HEAD): no frame of its own per call.
        return CHOT.Fast(chain, 8, binders)
    return head


def _run_impl(name, impl, args, kwargs):
    return impl(*args, **kwargs)


def _link(handler, call_next):
    def link(name, impl, args, kwargs):
        return handler(name, impl, args, kwargs, call_next)
    return link


def has_ext(args, kwargs=None) -> bool:
    for a in args:
        t = type(a)
        if t is Array:
            if a._ext is not None:
                return True
        elif t is list or t is tuple:
            for b in a:
                if type(b) is Array and b._ext is not None:
                    return True
    if kwargs:
        for a in kwargs.values():
            if type(a) is Array and a._ext is not None:
                return True
    return False


def api(name: str, c_case: tuple | None = None):
    """Mark ``fn`` as the namespace function ``name`` (hookable by extensions).

    ``c_case``: ``(kind, table)`` of a compiled fast case in front of it (``_chot.Fast``'s,
    e.g. K_SUM's), which answers the plain case itself and passes every other call on as
    kind 0 does; without the compiled module the wrapper below is all there is."""

    def deco(fn):
        # The binding stage (_core/call/bind.py) of a function that declares PyTorch keywords:
        # taken when a keyword or an extra positional argument is given, before the handlers.
        # (a private definition behind a public function of the same name is bound where
        # the public one is)
        b = _bind.binder(name, fn) if getattr(fn, "__name__", name) == name else None
        bind = b.bind if b is not None and not b.native else None
        npos = b.npos if b is not None and b.npos is not None else 1 << 30

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if bind is not None and (kwargs or len(args) > npos):
                args, kwargs = bind(args, kwargs)
            if ERRSTATE is not None and ERRSTATE.get() is not QUIET:
                token = ERRSTATE.set(QUIET)
                try:
                    return wrapper(*args, **kwargs)
                finally:
                    ERRSTATE.reset(token)
            hook = HOOK[0]
            if hook is not None:
                # has_ext, inlined for the common first argument (one call less per op)
                for a in args:
                    t = type(a)
                    if t is Array:
                        if a._ext is not None:
                            return hook(name, fn, args, kwargs)
                    elif t is tuple or t is list:
                        for b in a:
                            if type(b) is Array and b._ext is not None:
                                return hook(name, fn, args, kwargs)
                if kwargs:
                    for a in kwargs.values():
                        if type(a) is Array and a._ext is not None:
                            return hook(name, fn, args, kwargs)
            return fn(*args, **kwargs)

        wrapper._impl = fn
        wrapper._api_name = name
        if b is not None:
            wrapper._binder = b
            wrapper._torch_keywords = b.keywords
            wrapper.__doc__ = _bind._spelled_doc(wrapper.__doc__, b.keywords)
            if b.native:
                fn.__doc__ = wrapper.__doc__  # (the compiled entry shows its definition's)
        if CHOT is not None:
            # The same wrapper compiled: the hook test in C, the call passed on as it came
            # (under the "ignore" error state, as above); a function that declares PyTorch
            # keywords is entered through its binder (bind.entry) where a call needs binding, else
            # straight (the entry's test in C: Fast's direct and npos).
            target, direct = fn, {}
            if b is not None and not b.native:
                target = _bind.entry(b, fn)
                target.__doc__ = wrapper.__doc__  # (a Fast shows its fallback's docstring)
                if b.npos is not None and b.npos >= 1:
                    # (the entry's test in C: a call it would pass straight on calls fn, and
                    # so does one whose keywords Binder.bind returns as they are)
                    direct = {"direct": fn, "npos": b.npos, "passkw": b.passkw}
            kind, table = c_case if c_case is not None else (0, None)
            fast = CHOT.Fast(target, kind, table, hook=HOOK, name=name, **direct)
            fast.__dict__.update(wrapper.__dict__)
            if b is not None:
                fast.__signature__ = b.signature(fn)
            return fast if ERRSTATE is not None else quiet(fast)
        if b is not None:
            wrapper.__signature__ = b.signature(fn)
        return wrapper if ERRSTATE is not None else quiet(wrapper)

    return deco


# The names extension's check of ``out=`` for a function it has no rule of its own for
# (a composite: its result's names come from the functions it calls): ``fn(name, out,
# result) -> names`` (DimensionNameError on a clash), and ``tag(out, names)``; set by
# strided.named.
OUT_NAMES: list = [None, None]


def with_out(name: str, fn):
    """``fn`` (a function without ``out=``: PyTorch's composites) taking ``out=`` as an
    ordinary parameter: a call with ``out`` and an input (or ``out``) that carries extension
    metadata runs through the handlers with ``out`` in its keywords (autograd refuses it
    when an input requires grad, as PyTorch does: "out=... arguments don't support
    automatic differentiation"); the result's names and ``out``'s are unified (a clash
    raises, before anything is written) and kept on ``out``; the writer writes it. A pair
    result (``topk``) takes a pair ``out``."""
    body = getattr(fn, "_impl", fn)

    def impl(*args, out=None, **kwargs):
        r = body(*args, **kwargs)
        if out is None:
            return r
        return _write_result(name, out, r)

    impl._names_from_body = True  # (strided.named: no rule needed, see OUT_NAMES)
    impl.__name__ = impl.__qualname__ = name

    @functools.wraps(fn)
    def call(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        hook = HOOK[0]
        if hook is not None and (has_ext(args, kwargs) or has_ext((out,))):
            return hook(name, impl, args, dict(kwargs, out=out))
        return impl(*args, out=out, **kwargs)

    call._impl = impl
    return call


def _write_result(name: str, out, r):
    """``r`` (an Array, or a tuple of them) written into ``out`` (a pair where ``r`` is)."""
    func = f"{name}()"
    if isinstance(r, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(r):
            raise TypeError(f"{func}: out must be a tuple of {len(r)} arrays (the result is); "
                            f"got {type(out).__name__}")
        names = [_out_names(name, o, v) for o, v in zip(out, r)]
        for o, v in zip(out, r):
            check_out(func, o, v._shape, v._dtype, v._device)
        written = tuple(_tagged(write_out(func, o, v), n) for o, v, n in zip(out, r, names))
        return type(r)(*written) if hasattr(r, "_fields") else written
    if type(r) is Array and type(out) is Array:
        names = _out_names(name, out, r)
        return _tagged(write_out(func, out, r), names)
    return write_out(func, out, r)


def _out_names(name, out, r):
    rule = OUT_NAMES[0]
    if rule is None or type(out) is not Array or type(r) is not Array:
        return None
    if (out._ext is None or out._ext.names is None) and (r._ext is None or r._ext.names is None):
        return None
    if out._shape != r._shape:
        return None  # (the writer reports the shapes)
    return rule(name, out, r)


def _tagged(out, names):
    if names is not None:
        OUT_NAMES[1](out, names)
    return out


def method_signature(fn, **replace) -> inspect.Signature:
    """``fn``'s signature with its first parameter named ``self``: the signature of a method
    that forwards to namespace function ``fn`` (``x.matmul(y)`` is ``matmul(x, y)``), so that
    a generated method shows its real parameters, not ``(*args, **kwargs)``. ``replace``
    renames more parameters (``x2="other"``)."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    if params and params[0].kind in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        params[0] = params[0].replace(name="self")
    params = [p.replace(name=replace.get(p.name, p.name)) for p in params]
    return sig.replace(parameters=params)


def check_devices(func: str, *arrays) -> Device:
    dev = None
    for a in arrays:
        if type(a) is Array:
            if dev is None:
                dev = a._device
            elif a._device is not dev:
                raise DeviceMismatchError(
                    f"{func}(): arrays are on different devices, {dev} and {a._device}; "
                    f"move one with to_device()")
    return dev


# The out=/in-place writer lives in the call pipeline's write stage (_core/call/write.py),
# the only code that writes into user memory; the old names stay for their callers.
check_out = _write.check_out
out_native = _write.target
write_out = _write.write_out
write_into = _write.write_into

