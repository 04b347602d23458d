"""The standard's chapters: one module per category of the Array API standard.

``creation``, ``elementwise`` (the registry ``ROWS`` that generates the elementwise
functions, operators, in-place forms and ``out=``), ``views``, ``indexing``,
``manipulation``, ``searching``, ``sets``, ``sorting``, ``statistics``, ``utility``,
``data_type_functions``, ``info``, ``linalg_functions`` (the standard's ``matmul``,
``tensordot``, ``vecdot``, ...) and ``interop`` (DLPack and the buffer protocol).
They are built on ``strided._core`` only; ``strided/__init__.py`` re-exports them.
"""
