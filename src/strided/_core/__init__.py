"""The core: the memory model and the one hot path.

``dtypes`` (DType and promotion), ``device`` (Device and the backend registry),
``layout`` (shape/stride arithmetic: views never copy), ``storage`` (flat typed
buffers), ``array`` (Array = storage, offset, shape, strides, dtype), ``pool``
(the caching buffer pool), ``dispatch`` (the per-call path and the extension
hooks), ``threads`` and ``cfast`` (intra-op threads and the C kernels' NumPy-shaped
front), ``cext`` (the loader of the optional C extensions in ``strided/_csrc``) and
``backends/`` (NumPy on cpu, CuPy on cuda: the only code that calls their kernels).

Nothing here imports a layer above it (``_api``, ``torch``, ``_numpy``, ``io``,
``autograd``, ``named``): those plug in through the hooks ``dispatch`` offers.
"""
