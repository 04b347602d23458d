"""The optional C extensions, built by ``pip install -e .`` (see setup.py).

- ``_chot/*.c`` -> ``strided._csrc._chot``: the compiled hot path in front of the
  elementwise functions and operators (``_api/elementwise.py``), the views
  (``_core/array.py``, ``_api/views.py``), ``where`` (``_api/searching.py``) and the name
  caches of ``named/``: one extension of several sources, one per concern (module.c
  lists them), sharing ``contract.h`` and ``_chot/chot.h``;
- ``_ckernels.c`` -> ``strided._csrc._ckernels``: reductions, large elementwise
  kernels and the intra-op thread pool, behind ``_core/cfast.py`` and
  ``_core/threads.py``;
- ``_cgrad.c`` -> ``strided._csrc._cgrad``: the backward engine's walk and loop,
  behind ``autograd/_graph.py``'s ``run_backward``, and ReLU's gradient in one pass,
  behind ``autograd/_rules.py``'s maximum and minimum;
- ``_cio.c`` -> ``strided._csrc._cio``: the file format's CRC-32, behind
  ``io/_native.py``.

Each is loaded by ``strided._core.cext.load`` and is optional: without a
compiler, or with ``STRIDED_NO_CEXT=1``, the Python definitions run instead.
"""
