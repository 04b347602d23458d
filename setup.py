"""Only the optional C extensions; everything else is in pyproject.toml.

- ``strided._ckernels`` (src/strided/_ckernels.c): kernels NumPy has no fast
  equivalent for and the intra-op thread pool (fallback: strided/_cfast.py and
  strided/_threads.py's Python pool, NumPy's kernels);
- ``strided._chot`` (src/strided/_chot.c): the compiled hot path of calls on
  small arrays (fallback: the Python definitions it stands in front of);
- ``strided._cio`` (src/strided/_cio.c): the file format's CRC-32 (fallback:
  zlib.crc32).

All are optional: when the compiler is missing or fails, the install goes on
and strided runs its Python fallbacks (as with STRIDED_NO_CEXT=1).
"""

from setuptools import Extension, setup

_FLAGS = ["-O3", "-std=c11"]

setup(ext_modules=[
    Extension("strided._ckernels", ["src/strided/_ckernels.c"], optional=True,
              extra_compile_args=_FLAGS + ["-pthread"], extra_link_args=["-pthread"]),
    Extension("strided._chot", ["src/strided/_chot.c"], optional=True, extra_compile_args=_FLAGS),
    Extension("strided._cio", ["src/strided/_cio.c"], optional=True, extra_compile_args=["-O3", "-std=gnu11"]),
])
