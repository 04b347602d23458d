# Adapted from PyTorch 2.13's torch/nn/modules/lazy.py (and the lazy classes of linear.py, conv.py, batchnorm.py, instancenorm.py) (BSD-3-Clause; Copyright (c) 2016- Facebook, Inc and the
# PyTorch contributors; see LICENSES/PyTorch.txt).
"""The lazy modules of ``torch.nn``: ``UninitializedParameter``, ``UninitializedBuffer``,
``LazyModuleMixin`` and ``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyConvTranspose1d/2d/3d``,
``LazyBatchNorm1d/2d/3d``, ``LazyInstanceNorm1d/2d/3d``.

Ports of ``torch/nn/modules/lazy.py`` and of the lazy classes of ``linear.py``, ``conv.py``,
``batchnorm.py`` and ``instancenorm.py``: a lazy module holds uninitialized parameters until its
first call; a forward pre-hook then reads the input's shape, materializes the parameters and
buffers (the same objects: an optimizer built before the first call holds the live ones),
runs the non-lazy module's ``reset_parameters`` and turns the module into its ``cls_to_become``
(``LazyLinear`` becomes ``Linear``).

strided's ``Array`` is one final type, so an uninitialized parameter is not a subclass
instance: ``UninitializedParameter(...)`` returns a ``Parameter`` holding an empty ``(0,)``
array, remembered (weakly) as uninitialized until ``materialize(shape)`` gives it its shape
in place (``isinstance(p, nn.UninitializedParameter)`` is then False, as PyTorch's class
change makes it). Its ``shape`` raises PyTorch's RuntimeError (the array's ``_shape`` is an
``UninitializedShape``, which the C paths decline). Note: PyTorch also refuses every operation
on an uninitialized tensor (ValueError); strided's computes as on an empty ``(0,)`` array.
``load_state_dict`` into a module that still has uninitialized parameters materializes them
to the stored shapes first (a load-state-dict pre-hook, PyTorch's ``_lazy_load_hook``), also
when the lazy module is a descendant of the module loaded.

Invariant: ``is_lazy(x)`` is true exactly for the arrays ``UninitializedParameter(...)`` /
``UninitializedBuffer(...)`` returned that are alive and not yet materialized.

>>> import strided.torch as torch
>>> m = torch.nn.LazyLinear(3)
>>> m.has_uninitialized_params()
True
>>> m(torch.ones(2, 5)).shape, type(m).__name__, m.weight.shape
(strided.Size([2, 3]), 'Linear', strided.Size([3, 5]))
"""

from __future__ import annotations

import itertools
import weakref

import strided as _st
from strided import Array

from ._conv_modules import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                            ConvTranspose3d)
from ._loss_extra_modules import _BUFFERS, _PERSISTENT, take_buffer_marker
from ._norm_modules import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d,
                            InstanceNorm2d, InstanceNorm3d, _BatchNorm, _InstanceNorm, _NormBase)
from .modules import Linear
from .parameter import Parameter

__all__ = ["UninitializedParameter", "UninitializedBuffer", "LazyModuleMixin", "LazyLinear",
           "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]

# id -> the uninitialized array, and id -> "param" / "buffer"
_UNINIT: "weakref.WeakValueDictionary[int, Array]" = weakref.WeakValueDictionary()
_KIND: dict = {}


def is_lazy(param) -> bool:
    """Whether ``param`` is an ``UninitializedParameter`` or ``UninitializedBuffer`` not yet
    materialized (PyTorch's ``torch.nn.parameter.is_lazy``).

    >>> import strided.torch as torch
    >>> torch.nn.parameter.is_lazy(torch.nn.UninitializedParameter()), torch.nn.parameter.is_lazy(torch.ones(1))
    (True, False)
    """
    return type(param) is Array and _UNINIT.get(id(param)) is param


def _kind(x):
    return _KIND.get(id(x)) if is_lazy(x) else None


def _mark(x, kind: str):
    from strided._core.array import UninitializedShape
    x._shape = UninitializedShape(x._shape)  # (x.shape raises, as PyTorch's)
    _UNINIT[id(x)] = x
    _KIND[id(x)] = kind
    weakref.finalize(x, _KIND.pop, id(x), None)
    return x


SHAPE_ERROR = ("Can't access the shape of an uninitialized parameter or buffer. This error usually "
               "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
               "initialized one. Call `forward` to initialize the parameters before accessing their "
               "attributes.")


def uninitialized_error(x, func: str) -> ValueError:
    """PyTorch's error for using the uninitialized ``x`` in ``func`` (its
    ``UninitializedTensorMixin.__torch_function__``)."""
    cls = "UninitializedParameter" if _kind(x) == "param" else "UninitializedBuffer"
    return ValueError(
        f"Attempted to use an uninitialized parameter in {func}. This error happens when you are "
        f"using a `LazyModule` or explicitly manipulating `torch.nn.parameter.{cls}` objects. "
        f"When using LazyModules Call `forward` with a dummy batch to initialize the parameters "
        f"before calling torch functions")


def _lazy_repr(x):
    """PyTorch's repr of an uninitialized parameter or buffer: ``<UninitializedParameter>``."""
    kind = _kind(x)
    if kind is None:
        return None
    return "<UninitializedParameter>" if kind == "param" else "<UninitializedBuffer>"


def _register_repr():
    from strided.torch._repr import REPR_OVERRIDES
    if _lazy_repr not in REPR_OVERRIDES:
        REPR_OVERRIDES.insert(0, _lazy_repr)  # (before the parameter's heading)


_register_repr()


def _materialize(self, shape, device=None, dtype=None) -> None:
    """Give the uninitialized ``self`` the shape ``shape`` (uninitialized values), in place, on
    ``device`` / in ``dtype`` (default: its own); it becomes a ``Parameter`` (or a plain array
    for a buffer), as PyTorch's ``UninitializedTensorMixin.materialize``."""
    if device is None:
        device = self.device
    if dtype is None:
        dtype = self.dtype
    if isinstance(shape, int):
        shape = (shape,)
    with _st.no_grad():
        self.data = _st.empty(tuple(shape), device=device, dtype=dtype)
    _UNINIT.pop(id(self), None)
    _KIND.pop(id(self), None)


class _MaterializeMethod:
    """``x.materialize``: found only on an uninitialized array (an AttributeError on any
    other, as PyTorch's ``Tensor`` has no such method)."""

    __doc__ = _materialize.__doc__

    def __get__(self, obj, cls=None):
        if obj is None:
            return _materialize  # (the class's attribute: the function, as a method's is)
        if not is_lazy(obj):
            raise AttributeError("'Tensor' object has no attribute 'materialize' (only an "
                                 "uninitialized parameter or buffer has one)")
        return _materialize.__get__(obj, cls)


if not hasattr(Array, "materialize"):
    Array.materialize = _MaterializeMethod()


class _UninitializedType(type):
    _kind = ""

    def __instancecheck__(cls, obj) -> bool:
        return _kind(obj) == cls._kind

    def __call__(cls, *args, **kwargs):
        return cls.__new__(cls, *args, **kwargs)


class UninitializedParameter(metaclass=_UninitializedType):
    """A parameter whose shape is not known yet (PyTorch's ``nn.UninitializedParameter``).

    ``UninitializedParameter(requires_grad=True, device=None, dtype=None)`` returns a
    ``Parameter`` (an empty array, see the module's note) that ``materialize(shape)`` shapes in
    place; the lazy modules do that on their first call.

    >>> import strided.torch as torch
    >>> p = torch.nn.UninitializedParameter(dtype=torch.float64)
    >>> isinstance(p, torch.nn.UninitializedParameter), isinstance(p, torch.nn.Parameter)
    (True, True)
    >>> p.materialize((2, 3)); p.shape, p.dtype, isinstance(p, torch.nn.UninitializedParameter)
    (strided.Size([2, 3]), strided.float64, False)
    """

    _kind = "param"
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = _st.empty((0,), device=device, dtype=dtype if dtype is not None
                         else _st.get_default_dtype())
        return _mark(Parameter(data, requires_grad), "param")


class UninitializedBuffer(metaclass=_UninitializedType):
    """A buffer whose shape is not known yet (PyTorch's ``nn.UninitializedBuffer``).

    ``UninitializedBuffer(requires_grad=False, device=None, dtype=None, persistent=True)``
    returns an empty array that ``materialize(shape)`` shapes in place; assigned as a module
    attribute it is registered as a buffer (``persistent=False``: not in ``state_dict``), as
    an ``nn.Buffer``.

    >>> import strided.torch as torch
    >>> b = torch.nn.UninitializedBuffer()
    >>> isinstance(b, torch.nn.UninitializedBuffer), isinstance(b, torch.nn.Parameter)
    (True, False)
    """

    _kind = "buffer"
    cls_to_become = Array

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = _st.empty((0,), device=device, dtype=dtype if dtype is not None
                         else _st.get_default_dtype())
        if requires_grad:
            data.requires_grad_(True)
        _BUFFERS[id(data)] = data  # (an nn.Buffer mark: setattr registers it)
        _PERSISTENT[id(data)] = persistent
        weakref.finalize(data, _PERSISTENT.pop, id(data), None)
        return _mark(data, "buffer")


class LazyModuleMixin:
    """A mixin for modules that initialize their parameters on their first call (PyTorch's
    ``nn.modules.lazy.LazyModuleMixin``).

    A subclass defines ``initialize_parameters(*args)`` (materialize the parameters from the
    input and initialize them) and may set ``cls_to_become``: the first call runs it through a
    forward pre-hook, raises RuntimeError if parameters are still uninitialized, removes the
    hook and sets the module's class to ``cls_to_become``.

    >>> import strided.torch as torch
    >>> torch.nn.LazyConv1d(4, 3).has_uninitialized_params()
    True
    """

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def initialize_parameters(self, *args, **kwargs):
        """Initialize the parameters from the input (subclasses define it)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module is still uninitialized."""
        for param in itertools.chain(self._parameters.values(), self._buffers.values()):
            if is_lazy(param):
                return True
        return False

    def _infer_parameters(self, module, args, kwargs=None):
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        delattr(module, "_initialize_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        """``Module._save_to_state_dict``, with the uninitialized parameters and buffers
        themselves (not detached copies), as PyTorch's lazy ``_save_to_state_dict``."""
        for name, param in self._parameters.items():
            if param is not None:
                if not (is_lazy(param) or keep_vars):
                    param = param.detach()
                destination[prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                if not (is_lazy(buf) or keep_vars):
                    buf = buf.detach()
                destination[prefix + name] = buf

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs) -> None:
        """The load-state-dict pre-hook: materialize each uninitialized parameter or buffer
        that the state dict holds an initialized entry for, to that entry's shape (PyTorch's
        ``_lazy_load_hook``), so the load then copies into it."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with _st.no_grad():
                        param.materialize(tuple(input_param.shape))

    def __deepcopy__(self, memo):
        """A deep copy whose uninitialized parameters and buffers are uninitialized ones too
        (PyTorch's ``UninitializedParameter.__deepcopy__``)."""
        import copy
        replica = object.__new__(type(self))
        memo[id(self)] = replica
        object.__setattr__(replica, "__dict__", copy.deepcopy(self.__dict__, memo))
        for reg in ("_parameters", "_buffers"):
            for name, p in self.__dict__[reg].items():
                kind = _kind(p)
                if kind is not None:
                    q = replica.__dict__[reg][name]
                    if kind == "param":
                        q = Parameter(q, p.requires_grad)
                        replica.__dict__[reg][name] = q
                    _mark(q, kind)
        return replica

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize the "
                           "modules")


# --- Linear ------------------------------------------------------------------------------

class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` whose ``in_features`` is the last size of the first input (PyTorch's
    ``nn.LazyLinear(out_features, bias=True, device=None, dtype=None)``); it becomes a
    ``Linear``.

    >>> import strided.torch as torch
    >>> torch.nn.LazyLinear(4)
    LazyLinear(in_features=0, out_features=4, bias=True)
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self) -> None:
        """``Linear.reset_parameters`` once the parameters are materialized."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        """Materialize ``weight`` ``(out_features, input.shape[-1])`` and ``bias``, then
        initialize them."""
        if self.has_uninitialized_params():
            with _st.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is "
                                     f"not equal to in_features from self.weight: "
                                     f"{self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


# --- convolutions ------------------------------------------------------------------------

class _LazyConvXdMixin(LazyModuleMixin):
    _n = 0

    def reset_parameters(self) -> None:
        """The convolution's ``reset_parameters`` once the parameters are materialized."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        """Materialize ``weight`` from the input's channels and ``bias``, then initialize them."""
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if not isinstance(self.weight, UninitializedParameter):
                raise AssertionError("self.weight must be an UninitializedParameter")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups,
                                         *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups,
                                         *self.kernel_size))
            if self.bias is not None:
                if not isinstance(self.bias, UninitializedParameter):
                    raise AssertionError("self.bias must be an UninitializedParameter")
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        num_dims_no_batch = self._n + 1
        num_dims_batch = num_dims_no_batch + 1
        if input.ndim not in (num_dims_no_batch, num_dims_batch):
            raise RuntimeError(f"Expected {num_dims_no_batch}D (unbatched) or {num_dims_batch}D "
                               f"(batched) input to {self.__class__.__name__}, but got input of "
                               f"size: {input.shape}")
        return input.shape[1] if input.ndim == num_dims_batch else input.shape[0]


def _lazy_conv(base, n: int, doc: str):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups,
                                 False, padding_mode, **factory_kwargs)
        _finish_conv(self, out_channels, bias, factory_kwargs)

    def __init_t__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                   groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                   dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        LazyModuleMixin.__init__(self, 0, 0, kernel_size, stride, padding, output_padding,
                                 groups, False, dilation, padding_mode, **factory_kwargs)
        _finish_conv(self, out_channels, bias, factory_kwargs)

    transposed = base.__name__.startswith("ConvTranspose")
    init = __init_t__ if transposed else __init__
    init.__name__ = init.__qualname__ = "__init__"
    name = "Lazy" + base.__name__
    cls = type(name, (_LazyConvXdMixin, base), {
        "__init__": init, "cls_to_become": base, "_n": n, "__doc__": doc, "__module__": __name__,
        "__qualname__": name})
    return cls


def _finish_conv(self, out_channels, bias, factory_kwargs):
    self.weight = UninitializedParameter(**factory_kwargs)
    self.out_channels = out_channels
    if bias:
        self.bias = UninitializedParameter(**factory_kwargs)


def _conv_doc(kind: str, n: int) -> str:
    return (f"``{kind}{n}d`` whose ``in_channels`` is read from the first input (PyTorch's "
            f"``nn.Lazy{kind}{n}d``); it becomes a ``{kind}{n}d``.\n\n"
            f"    >>> import strided.torch as torch\n"
            f"    >>> type(torch.nn.Lazy{kind}{n}d(2, 3)).__name__\n"
            f"    'Lazy{kind}{n}d'\n    ")


LazyConv1d = _lazy_conv(Conv1d, 1, _conv_doc("Conv", 1))
LazyConv2d = _lazy_conv(Conv2d, 2, _conv_doc("Conv", 2))
LazyConv3d = _lazy_conv(Conv3d, 3, _conv_doc("Conv", 3))
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d, 1, _conv_doc("ConvTranspose", 1))
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d, 2, _conv_doc("ConvTranspose", 2))
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d, 3, _conv_doc("ConvTranspose", 3))


# --- normalization -----------------------------------------------------------------------

class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, eps, momentum, False, False, **factory_kwargs, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(**factory_kwargs)
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
        if self.track_running_stats:
            # (register_buffer keeps the names' places, as PyTorch's setattr does)
            for name in ("running_mean", "running_var"):
                b = UninitializedBuffer(**factory_kwargs)
                take_buffer_marker(b)
                self.register_buffer(name, b)
            self.register_buffer("num_batches_tracked",
                                 _st.zeros((), dtype=_st.int64, device=device))

    def reset_parameters(self) -> None:
        """The norm's ``reset_parameters`` once the parameters are materialized."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        """``num_features = input.shape[1]``; materialize the parameters and running
        statistics, then initialize them."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                if not isinstance(self.weight, UninitializedParameter):
                    raise AssertionError("self.weight must be an UninitializedParameter")
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    if not isinstance(self.bias, UninitializedParameter):
                        raise AssertionError("self.bias must be an UninitializedParameter")
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(base, kind, doc):
    name = "Lazy" + base.__name__
    return type(name, (_LazyNormBase, kind), {
        "cls_to_become": base, "__doc__": doc, "__module__": __name__, "__qualname__": name,
        "_dims": getattr(base, "_dims", ()), "_no_batch_dim": getattr(base, "_no_batch_dim", 0)})


def _norm_doc(name: str) -> str:
    return (f"``{name}`` whose ``num_features`` is the first input's ``shape[1]`` (PyTorch's "
            f"``nn.Lazy{name}(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, "
            f"device=None, dtype=None)``); it becomes a ``{name}``.\n\n"
            f"    >>> import strided.torch as torch\n"
            f"    >>> torch.nn.Lazy{name}().has_uninitialized_params()\n"
            f"    True\n    ")


LazyBatchNorm1d = _lazy_norm(BatchNorm1d, _BatchNorm, _norm_doc("BatchNorm1d"))
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, _BatchNorm, _norm_doc("BatchNorm2d"))
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, _BatchNorm, _norm_doc("BatchNorm3d"))
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, _InstanceNorm, _norm_doc("InstanceNorm1d"))
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, _InstanceNorm, _norm_doc("InstanceNorm2d"))
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, _InstanceNorm, _norm_doc("InstanceNorm3d"))
