"""The libraries under test: strided and its peers, one small adapter each.

Every case's statement is run with the library's namespace bound to ``xp``
(and ``torch``/``np`` where that library is PyTorch/NumPy), and its inputs
converted from NumPy by ``Lib.asarray``. Peers that are not installed, or
need a GPU that is absent, are left out with a printed reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(eq=False)
class Lib:
    """One library on one device, as the harness sees it."""

    name: str  # column name in the tables
    kind: str  # "api": statements use the Array API namespace; "torch": PyTorch spellings
    device: str  # "cpu" or "cuda"
    xp: object  # bound to ``xp`` in statements
    version: str
    asarray: Callable  # NumPy array -> a fresh array of this library (own memory)
    to_numpy: Callable  # result -> NumPy array, for the result checks
    sync: Callable | None = None  # waits for queued device work (GPU libraries)

    @property
    def is_strided(self) -> bool:
        return self.name.startswith("strided")

    def namespace(self) -> dict:
        """The globals a statement starts from."""
        ns = {"xp": self.xp, "np": np}
        if self.kind == "torch":
            ns["torch"] = self.xp
        if self.sync is not None:
            ns["_sync"] = self.sync
        return ns


def subject_for(lib: Lib) -> str:
    """The strided column a peer is compared with (same device)."""
    return "strided-cuda" if lib.device == "cuda" else "strided"


def _copy(a):
    """A copy of a NumPy array in 64-byte aligned memory, in its order, for every library alike.
    malloc aligns a buffer to 16 bytes, so each library's inputs would land at a random
    offset in a cache line: a mid-size elementwise call moves by up to ~20% with it (60000
    float32 ``a * b``: 4.1 us aligned, 4.8 us 16 bytes off, for NumPy, strided and PyTorch
    alike), which made the mid-size ratios swing between runs (README, "Mid sizes")."""
    if not isinstance(a, np.ndarray):
        return a
    order = "C" if a.flags.c_contiguous else "F" if a.flags.f_contiguous else None
    if order is None or a.nbytes == 0:
        return np.array(a, copy=True)
    buf = np.empty(a.nbytes + 64, np.uint8)
    off = -buf.ctypes.data % 64
    out = buf[off:off + a.nbytes].view(a.dtype).reshape(a.shape, order=order)
    out[...] = a
    return out


def _host(r):
    if isinstance(r, (bool, int, float, complex)):
        return np.asarray(r)
    try:
        return np.asarray(r)
    except Exception:  # noqa: BLE001 - array-api-strict may refuse __array__; DLPack works
        return np.from_dlpack(r)


def discover(gpu: bool = True) -> tuple[list[Lib], list[tuple[str, str]]]:
    """The libraries that can run here, and (name, reason) for those that cannot."""
    libs: list[Lib] = []
    missing: list[tuple[str, str]] = []

    import strided
    libs.append(Lib("strided", "api", "cpu", strided, strided.__version__,
                    lambda a: strided.asarray(_copy(a)), _host))
    libs.append(Lib("numpy", "api", "cpu", np, np.__version__, _copy, _host))
    try:
        import array_api_strict as aas
        libs.append(Lib("array-api-strict", "api", "cpu", aas, aas.__version__,
                        lambda a: aas.asarray(_copy(a)), _host))
    except ImportError as e:
        missing.append(("array-api-strict", f"not installed ({e})"))
    torch = None
    try:
        import torch
        libs.append(Lib("torch", "torch", "cpu", torch, torch.__version__,
                        lambda a: torch.from_numpy(_copy(a)) if isinstance(a, np.ndarray) else a,
                        lambda r: r.detach().numpy() if isinstance(r, torch.Tensor) else np.asarray(r)))
    except ImportError as e:
        missing.append(("torch", f"not installed ({e}); pip install torch"))
    if not gpu:
        missing.append(("GPU libraries", "--no-gpu given"))
        return libs, missing
    libs_gpu, missing_gpu = _discover_gpu(strided, torch)
    return libs + libs_gpu, missing + missing_gpu


def _discover_gpu(strided, torch):
    libs, missing = [], []
    cp = None
    try:
        import cupy as cp
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
    except ImportError:  # (said plainly: the smoke run's output has no error text when all is well)
        missing.append(("cupy", "not installed (pip install cupy-cuda12x; needs an NVIDIA GPU)"))
        cp = None
    except Exception as e:  # noqa: BLE001 - a CUDA runtime error without a GPU
        missing.append(("cupy", f"unavailable ({type(e).__name__}: {e})"))
        cp = None
    if cp is not None:
        def cp_sync():
            cp.cuda.Device().synchronize()

        def cp_host(r):
            return cp.asnumpy(r) if isinstance(r, cp.ndarray) else _host(r)

        try:
            strided.asarray(np.zeros(2, np.float32), device="cuda")
            libs.append(Lib("strided-cuda", "api", "cuda", strided, strided.__version__,
                            lambda a: strided.asarray(_copy(a), device="cuda"),
                            lambda r: cp_host(r._get_native()) if isinstance(r, strided.Array) else _host(r),
                            cp_sync))
        except Exception as e:  # noqa: BLE001 - the CuPy backend may not be there yet
            missing.append(("strided-cuda", f"unavailable ({type(e).__name__}: {e})"))
        libs.append(Lib("cupy", "api", "cuda", cp, cp.__version__,
                        lambda a: cp.asarray(a) if isinstance(a, np.ndarray) else a, cp_host, cp_sync))
    if torch is not None and torch.cuda.is_available():
        libs.append(Lib("torch-cuda", "torch", "cuda", torch, torch.__version__,
                        lambda a: torch.from_numpy(_copy(a)).cuda() if isinstance(a, np.ndarray) else a,
                        lambda r: r.detach().cpu().numpy() if isinstance(r, torch.Tensor) else np.asarray(r),
                        torch.cuda.synchronize))
    elif torch is not None:
        missing.append(("torch-cuda", "no CUDA device visible to PyTorch"))
    return libs, missing
