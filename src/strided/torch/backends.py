"""``strided.torch.backends``: the backend flags PyTorch scripts set and read, answered for strided.

strided runs on NumPy (CPU) and CuPy (CUDA) and uses none of cuDNN, oneDNN (MKLDNN), MPS or
OpenMP itself, so each flag holds what is true of strided:

- ``cudnn.is_available()`` is False and ``cudnn.version()`` None. ``cudnn.enabled``,
  ``.benchmark``, ``.benchmark_limit``, ``.deterministic`` and ``.allow_tf32`` only steer cuDNN's
  kernels; with none in use each holds trivially whatever it is set to, so they read PyTorch's
  defaults (True, False, None, False, True) and may be set (the four switches to a bool: anything
  else is PyTorch's RuntimeError). Setting ``deterministic = True`` is true of strided:
  no cuDNN algorithm is ever chosen.
- ``cuda.matmul.allow_tf32`` is PyTorch's default False: strided's float32 matrix products are
  computed in float32, never TF32. Setting it True gives a permission strided does not use (the
  products stay as precise as before), so it may be set and reads back what was set. The one
  exception is CuPy's own switch: with ``CUPY_TF32=1`` in the environment CuPy does use TF32,
  so the flag reads True and setting it False raises.
- ``mps.is_available()`` / ``mps.is_built()``, ``mkldnn.is_available()`` and
  ``openmp.is_available()`` are False; ``mkldnn.enabled`` (PyTorch's default True) may be set,
  holding trivially.

Setting a name these modules do not have is an AttributeError (a misspelt flag would otherwise
change nothing silently). ``import strided.torch.backends.cudnn as cudnn`` works as in PyTorch.

>>> import strided.torch as torch
>>> torch.backends.cudnn.benchmark = True
>>> torch.backends.cudnn.benchmark, torch.backends.cudnn.is_available()
(True, False)
>>> torch.backends.cudnn.benchmark = False
>>> torch.backends.mps.is_available(), torch.backends.cuda.matmul.allow_tf32
(False, False)
"""

from __future__ import annotations

import contextlib
import os
import sys
import types

__all__ = ["cuda", "cudnn", "mkldnn", "mps", "openmp"]


def _expect_bool(setter: str, value) -> bool:
    if type(value) is not bool:
        raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")
    return value


class _FlagModule(types.ModuleType):
    """A module whose flags are properties: an unknown name is an AttributeError on assignment."""

    _flags: tuple = ()

    def __setattr__(self, name, value):
        if name.startswith("_") or name in type(self)._flags or name in ("__doc__",):
            return super().__setattr__(name, value)
        raise AttributeError(f"{self.__name__} has no flag {name!r}; its flags are "
                             f"{', '.join(type(self)._flags) or '(none)'}")


def _flag(name: str, setter: str, check=_expect_bool, doc: str = ""):
    attr = "_" + name

    def get(self):
        return getattr(self, attr)

    def set_(self, value):
        object.__setattr__(self, attr, check(setter, value))

    return property(get, set_, doc=doc)


class _CudnnModule(_FlagModule):
    """PyTorch's ``torch.backends.cudnn``: cuDNN is not used by strided; its flags hold trivially."""

    _flags = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    enabled = _flag("enabled", "set_enabled_cudnn", doc="Use cuDNN where available (never, in strided).")
    benchmark = _flag("benchmark", "set_benchmark_cudnn", doc="Let cuDNN time its algorithms (none are used).")
    benchmark_limit = _flag("benchmark_limit", "", lambda _setter, v: v,
                            doc="How many cuDNN algorithms benchmark tries: None, any value may be set "
                                "(PyTorch's plain attribute where cuDNN is not available).")
    deterministic = _flag("deterministic", "set_deterministic_cudnn",
                          doc="Restrict cuDNN to deterministic algorithms (strided chooses none).")
    allow_tf32 = _flag("allow_tf32", "set_allow_tf32_cublas",  # (PyTorch's message names cublas)
                       doc="Permit TF32 in cuDNN's convolutions (strided runs none).")

    def __init__(self, name):
        super().__init__(name, "PyTorch's torch.backends.cudnn: strided uses no cuDNN; the flags hold trivially.")
        self._enabled, self._benchmark, self._benchmark_limit = True, False, None
        self._deterministic, self._allow_tf32 = False, True

    def is_available(self) -> bool:
        """False: strided uses no cuDNN (its CUDA arrays run on CuPy's kernels)."""
        return False

    def version(self):
        """None, PyTorch's answer where cuDNN is not available."""
        return None

    @contextlib.contextmanager
    def flags(self, enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
              allow_tf32=True):
        """Set the cuDNN flags for a ``with`` block and restore them after (PyTorch's defaults;
        ``benchmark_limit`` is left alone, as PyTorch leaves it where cuDNN is not available)."""
        old = (self.enabled, self.benchmark, self.deterministic, self.allow_tf32)
        self.enabled, self.benchmark = enabled, benchmark
        self.deterministic, self.allow_tf32 = deterministic, allow_tf32
        try:
            yield
        finally:
            self.enabled, self.benchmark, self.deterministic, self.allow_tf32 = old


def _cupy_tf32() -> bool:
    """Whether CuPy computes float32 matrix products in TF32 (its ``CUPY_TF32=1`` switch)."""
    return os.environ.get("CUPY_TF32", "0") not in ("", "0")


class _CudaMatmul:
    """PyTorch's ``torch.backends.cuda.matmul``: strided's float32 products are float32, not TF32."""

    __slots__ = ("_allow_tf32",)

    def __init__(self):
        self._allow_tf32 = False

    @property
    def allow_tf32(self) -> bool:
        """Whether TF32 may be used in float32 matrix products (False unless set, or CUPY_TF32=1)."""
        return self._allow_tf32 or _cupy_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value) -> None:
        value = _expect_bool("set_allow_tf32_cublas", value)
        if not value and _cupy_tf32():
            raise RuntimeError("allow_tf32 = False cannot be honoured: CUPY_TF32=1 is set, so CuPy "
                               "computes float32 matrix products in TF32 (unset it before importing CuPy)")
        self._allow_tf32 = value

    def __setattr__(self, name, value):
        if name not in ("_allow_tf32", "allow_tf32"):
            raise AttributeError(f"Unknown attribute {name} (strided's torch.backends.cuda.matmul has allow_tf32)")
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        raise AttributeError(f"Unknown attribute {name} (strided's torch.backends.cuda.matmul has allow_tf32)")


class _CudaModule(_FlagModule):
    """PyTorch's ``torch.backends.cuda``: ``matmul.allow_tf32``."""

    def __init__(self, name):
        super().__init__(name, "PyTorch's torch.backends.cuda: the matmul flags (matmul.allow_tf32).")
        object.__setattr__(self, "matmul", _CudaMatmul())


class _MpsModule(_FlagModule):
    """PyTorch's ``torch.backends.mps``: strided has no Metal backend."""

    def __init__(self, name):
        super().__init__(name, "PyTorch's torch.backends.mps: strided has no Metal (MPS) backend.")

    def is_available(self) -> bool:
        """False: strided has no Metal (MPS) backend."""
        return False

    def is_built(self) -> bool:
        """False: strided has no Metal (MPS) backend."""
        return False


class _MkldnnModule(_FlagModule):
    """PyTorch's ``torch.backends.mkldnn``: strided uses no oneDNN; ``enabled`` holds trivially."""

    _flags = ("enabled",)
    enabled = _flag("enabled", "set_enabled_mkldnn", doc="Use oneDNN where available (never, in strided).")

    def __init__(self, name):
        super().__init__(name, "PyTorch's torch.backends.mkldnn: strided uses no oneDNN (MKLDNN).")
        self._enabled = True

    def is_available(self) -> bool:
        """False: strided's CPU kernels are NumPy's and its own, not oneDNN's."""
        return False


class _OpenmpModule(_FlagModule):
    """PyTorch's ``torch.backends.openmp``: strided is not built with OpenMP."""

    def __init__(self, name):
        super().__init__(name, "PyTorch's torch.backends.openmp: strided is not built with OpenMP.")

    def is_available(self) -> bool:
        """False: strided's own C kernels are single-threaded, without OpenMP."""
        return False


def _install(attr: str, cls):
    name = f"{__name__}.{attr}"
    mod = sys.modules.get(name)
    if not isinstance(mod, cls):
        mod = cls(name)
        sys.modules[name] = mod  # (so ``import strided.torch.backends.cudnn as cudnn`` works)
    return mod


cudnn = _install("cudnn", _CudnnModule)
cuda = _install("cuda", _CudaModule)
mps = _install("mps", _MpsModule)
mkldnn = _install("mkldnn", _MkldnnModule)
openmp = _install("openmp", _OpenmpModule)
