"""Only the optional C extensions; everything else is in pyproject.toml.

``strided._ckernels`` (src/strided/_ckernels.c): kernels NumPy has no fast
equivalent for. ``strided._chot`` (src/strided/_chot.c): the compiled hot path
of plain elementwise calls. Both are optional: when the compiler is missing or
fails, the install goes on and strided runs its pure-Python fallback
(strided/_cfast.py, strided/_elementwise.py).
"""

from setuptools import Extension, setup

_FLAGS = ["-O3", "-std=c11"]

setup(ext_modules=[
    Extension("strided._ckernels", ["src/strided/_ckernels.c"], optional=True, extra_compile_args=_FLAGS),
    Extension("strided._chot", ["src/strided/_chot.c"], optional=True, extra_compile_args=_FLAGS),
])
