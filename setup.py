"""Only the optional C extensions; everything else is in pyproject.toml.

- ``strided._csrc._ckernels`` (src/strided/_csrc/_ckernels.c): kernels NumPy has no fast
  equivalent for and the intra-op thread pool (fallback: strided/_core/cfast.py and
  strided/_core/threads.py's Python pool, NumPy's kernels);
- ``strided._csrc._chot`` (src/strided/_csrc/_chot/: one extension of several sources by
  concern -- module.c, call.c, loops.c, fast.c, names.c, elide.c, views.c, setitem.c --
  sharing contract.h and _chot/chot.h): the compiled hot path of calls on small arrays
  (fallback: the Python definitions it stands in front of);
- ``strided._csrc._cgrad`` (src/strided/_csrc/_cgrad.c): the backward engine's loop
  (fallback: the loop of strided/autograd/_graph.py's ``run_backward``);
- ``strided._csrc._cio`` (src/strided/_csrc/_cio.c): the file format's CRC-32 (fallback:
  zlib.crc32);
- ``strided._csrc._cpool`` (src/strided/_csrc/_cpool.c): the buffer pool of large CPU results
  (fallback: strided/_core/pool.py).

All are optional: when the compiler is missing or fails, the install goes on
and strided runs its Python fallbacks (as with STRIDED_NO_CEXT=1).
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, CompileError, ExecError, LinkError

_FLAGS = ["-O3", "-std=c11"]


class _BuildExt(build_ext):
    """``build_ext`` that builds an extension again without link-time optimisation where
    the -flto build fails: a compiler whose ``lto-wrapper`` cannot run (seen on a GPU
    machine's GCC) would otherwise leave ``_chot`` unbuilt. Its objects are compiled with
    -ffat-lto-objects, so the plain link needs no second compile."""

    def build_extension(self, ext):
        if "-flto" not in ext.extra_link_args:
            return super().build_extension(ext)
        try:
            return super().build_extension(ext)
        except (CCompilerError, CompileError, ExecError, LinkError) as e:
            self.warn(f"{ext.name}: the link-time-optimised build failed ({e}); building it without -flto")
        ext.extra_compile_args = [a for a in ext.extra_compile_args if a not in ("-flto", "-ffat-lto-objects")]
        ext.extra_link_args = [a for a in ext.extra_link_args if a != "-flto"]
        return super().build_extension(ext)

# _chot's sources, one per concern (each file's head says which Python module it stands in
# front of); module.c defines the shared state the others declare (chot.h).
_CHOT = "src/strided/_csrc/_chot"
_CHOT_SOURCES = ["module", "call", "loops", "fast", "names", "elide", "views", "setitem", "storage", "keywords"]

setup(cmdclass={"build_ext": _BuildExt}, ext_modules=[
    Extension("strided._csrc._ckernels", ["src/strided/_csrc/_ckernels.c"], optional=True,
              extra_compile_args=_FLAGS + ["-pthread"], extra_link_args=["-pthread"]),
    # (-flto: the per-call path crosses sources -- fast.c, loops.c, call.c -- and link-time
    # optimisation inlines across them as one file did)
    Extension("strided._csrc._chot", [f"{_CHOT}/{s}.c" for s in _CHOT_SOURCES], optional=True,
              extra_compile_args=_FLAGS + ["-flto", "-ffat-lto-objects"], extra_link_args=["-flto", "-O3"],
              depends=["src/strided/_csrc/contract.h", f"{_CHOT}/chot.h"]),
    Extension("strided._csrc._cgrad", ["src/strided/_csrc/_cgrad.c"], optional=True, extra_compile_args=_FLAGS,
              depends=["src/strided/_csrc/contract.h"]),
    Extension("strided._csrc._cpool", ["src/strided/_csrc/_cpool.c"], optional=True,
              extra_compile_args=_FLAGS + ["-pthread"], extra_link_args=["-pthread"],
              depends=["src/strided/_csrc/contract.h"]),
    Extension("strided._csrc._cio", ["src/strided/_csrc/_cio.c"], optional=True, extra_compile_args=["-O3", "-std=gnu11"]),
])
