"""``cupyx`` of the stand-in: ``scatter_add``, ``errstate``/``seterr``/``geterr`` (linalg only)."""

import contextlib

import numpy as np


def scatter_add(a, slices, value):
    from cupy import _unwrap
    np.add.at(a._a, _unwrap(slices, host_ok=True), _unwrap(value))


def geterr():
    """cupyx/_ufunc_config.py geterr: only ``linalg`` is ever set ('ignore' by default)."""
    from cupy import _cupy_differences as d
    return dict(divide=None, over=None, under=None, invalid=None, linalg=d.linalg_errors())


def seterr(*, divide=None, over=None, under=None, invalid=None, linalg=None):
    """cupyx/_ufunc_config.py seterr: ``linalg='raise'`` makes cupy.linalg check
    cuSOLVER's devInfo and raise LinAlgError; the others raise NotImplementedError."""
    from cupy import _cupy_differences as d
    old = geterr()
    if divide is not None or over is not None or under is not None or invalid is not None:
        raise NotImplementedError()
    if linalg is not None:
        if linalg not in ("ignore", "raise"):
            raise NotImplementedError()
        d.set_linalg_errors(linalg)
    return old


@contextlib.contextmanager
def errstate(*, divide=None, over=None, under=None, invalid=None, linalg=None):
    """cupyx/_ufunc_config.py errstate."""
    old = seterr(divide=divide, over=over, under=under, invalid=invalid, linalg=linalg)
    try:
        yield
    finally:
        seterr(linalg=old["linalg"])
