"""Only the optional C extensions; everything else is in pyproject.toml.

src/strided/_ckernels.c (kernels; fallback strided/_cfast.py) and
src/strided/_cio.c (the file format's CRC-32; fallback zlib.crc32) are both
optional: when the compiler is missing or fails, the install goes on and
strided runs its Python fallbacks.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("strided._ckernels", ["src/strided/_ckernels.c"], optional=True,
                             extra_compile_args=["-O3", "-std=c11"]),
                   Extension("strided._cio", ["src/strided/_cio.c"], optional=True,
                             extra_compile_args=["-O3", "-std=gnu11"])])
