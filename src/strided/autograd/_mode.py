"""Grad modes: whether operations are recorded, per thread."""

from __future__ import annotations

import functools
import inspect
import threading

from .._core import cext as _cext

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode"]


class _State(threading.local):
    enabled = True


_cgrad = _cext.load("_cgrad")
# Note: where the extension is built, STATE is _cgrad.GradState(): ``enabled`` the same
# per-thread value (True in a new thread) in a C thread-local flag, which the compiled
# recorders and engine read without an attribute lookup (a threading.local's costs ~370
# instructions; ~80 reads a training step). STRIDED_NO_CEXT=1 runs _State, the definition.
STATE = _cgrad.GradState() if _cgrad is not None and hasattr(_cgrad, "GradState") else _State()


def is_grad_enabled() -> bool:
    """True when operations on arrays that require grad are being recorded (this thread)."""
    return STATE.enabled


def _with_mode(fn, flag: bool):
    """``fn`` run with grad mode ``flag`` (restored afterwards): the decorator form. A
    generator function's body runs in the mode at each resumption, and the caller's mode
    between them (PyTorch's ``_wrap_generator``)."""
    if inspect.isgeneratorfunction(fn):
        return _gen_with_mode(fn, flag)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        prev = STATE.enabled
        STATE.enabled = flag
        try:
            return fn(*args, **kwargs)
        finally:
            STATE.enabled = prev
    return wrapper


def _gen_with_mode(fn, flag: bool):
    def step(call, *args):
        prev = STATE.enabled
        STATE.enabled = flag
        try:
            return call(*args)
        finally:
            STATE.enabled = prev

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            response = step(gen.send, None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    step(gen.close)
                    raise
                except BaseException as e:
                    response = step(gen.throw, e)
                else:
                    response = step(gen.send, request)
        except StopIteration as e:
            return e.value
    return wrapper


def _new_or_decorate(cls, orig_func):
    """``cls()`` (no argument), or ``cls()(orig_func)``: ``@no_grad`` and ``@enable_grad``
    without parentheses decorate the function, as PyTorch's do."""
    if orig_func is None:
        return object.__new__(cls)
    if not callable(orig_func):
        raise TypeError(f"{cls.__name__}() takes no arguments; got {type(orig_func).__name__} "
                        f"(as a decorator: @{cls.__name__} or @{cls.__name__}())")
    return cls()(orig_func)


class _Mode:
    """Base of the grad-mode context managers; instances also work as decorators."""

    _flag = True

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = self._flag
        return None

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False

    def __call__(self, fn):
        return _with_mode(fn, self._flag)


class no_grad(_Mode):
    """Disable recording: ``with no_grad(): ...`` or ``@no_grad()``.

    >>> import strided as xp
    >>> x = xp.ones(2, requires_grad=True)
    >>> with xp.autograd.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    _flag = False

    def __new__(cls, orig_func=None):
        return _new_or_decorate(cls, orig_func)


class enable_grad(_Mode):
    """Enable recording inside a ``no_grad`` block: ``with enable_grad(): ...`` or ``@enable_grad()``."""

    _flag = True

    def __new__(cls, orig_func=None):
        return _new_or_decorate(cls, orig_func)


class inference_mode(no_grad):
    """PyTorch's ``inference_mode``: here the same as ``no_grad`` (``mode=False``: recording
    on). ``@inference_mode`` without parentheses decorates a function, as PyTorch's does."""

    def __new__(cls, mode=True):
        if type(mode) is bool:
            return object.__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True):
        self._flag = not mode

    def __call__(self, fn):
        return _with_mode(fn, self._flag)


class set_grad_enabled(_Mode):
    """Set grad mode: as a function call, a context manager or a decorator.

    ``set_grad_enabled(False)`` takes effect at once (and is undone by
    leaving the ``with`` block when used as a context manager).
    """

    def __init__(self, mode: bool):
        self._flag = bool(mode)
        self._prev = STATE.enabled
        STATE.enabled = self._flag

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False

    def __call__(self, fn):
        STATE.enabled = self._prev  # used as a decorator: no effect until called
        return _with_mode(fn, self._flag)
