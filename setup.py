"""Only the optional C kernels (src/strided/_ckernels.c); everything else is in pyproject.toml.

The extension is optional: when the compiler is missing or fails, the install
goes on and strided runs its NumPy fallback (strided/_cfast.py).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("strided._ckernels", ["src/strided/_ckernels.c"], optional=True,
                             extra_compile_args=["-O3", "-std=c11", "-pthread"],
                             extra_link_args=["-pthread"])])
