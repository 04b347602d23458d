"""``strided.torch.distributed``: what a program asks ``torch.distributed`` first, answered
truthfully: strided has no process-group backend (no gloo, NCCL or MPI), so
``is_available()`` and ``is_initialized()`` are False, ``init_process_group`` raises PyTorch's
RuntimeError for a backend it was built without, and the calls that need the default process
group (``get_rank``, ``get_world_size``, ``barrier``, the collectives) raise PyTorch's ValueError
for a process group that is not initialized.

>>> import strided.torch as torch
>>> torch.distributed.is_available() and torch.distributed.is_initialized()
False
>>> rank = torch.distributed.get_rank() if torch.distributed.is_initialized() else 0
>>> rank
0
"""

from __future__ import annotations

import os

__all__ = ["all_gather", "all_reduce", "barrier", "broadcast", "get_backend", "get_rank", "get_world_size",
           "init_process_group", "is_available", "is_gloo_available", "is_initialized", "is_mpi_available",
           "is_nccl_available", "is_torchelastic_launched"]

# (PyTorch's message, then why it is always so here)
_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call init_process_group. "
                    "(strided has no process-group backend: torch.distributed.is_available() is False)")


def is_available() -> bool:
    """False: strided has no process-group backend (PyTorch: whether it was built with one)."""
    return False


def is_initialized() -> bool:
    """False: no default process group can be initialized in strided."""
    return False


def is_nccl_available() -> bool:
    """False: strided has no NCCL backend."""
    return False


def is_gloo_available() -> bool:
    """False: strided has no gloo backend."""
    return False


def is_mpi_available() -> bool:
    """False: strided has no MPI backend."""
    return False


def is_torchelastic_launched() -> bool:
    """Whether this process was started by ``torchrun`` (TORCHELASTIC_RUN_ID is set), as PyTorch."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None) -> None:
    """RuntimeError, as PyTorch's for a backend it was built without: strided has none."""
    if backend is not None:
        raise RuntimeError(f"Distributed package doesn't have {str(backend).upper()} built in (strided has no "
                           f"process-group backend: torch.distributed.is_available() is False)")
    raise RuntimeError("init_process_group(): strided has no process-group backend "
                       "(torch.distributed.is_available() is False); run the program as a single process")


def get_rank(group=None) -> int:
    """ValueError, as PyTorch's without an initialized process group (never one in strided)."""
    raise ValueError(_NOT_INITIALIZED)


def get_world_size(group=None) -> int:
    """ValueError, as PyTorch's without an initialized process group (never one in strided)."""
    raise ValueError(_NOT_INITIALIZED)


def get_backend(group=None) -> str:
    """ValueError, as PyTorch's without an initialized process group (never one in strided)."""
    raise ValueError(_NOT_INITIALIZED)


def barrier(group=None, async_op=False, device_ids=None):
    """ValueError, as PyTorch's without an initialized process group (never one in strided)."""
    raise ValueError(_NOT_INITIALIZED)


def all_reduce(tensor, op=None, group=None, async_op=False):
    """ValueError, as PyTorch's without an initialized process group (never one in strided)."""
    raise ValueError(_NOT_INITIALIZED)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """ValueError, as PyTorch's without an initialized process group (never one in strided)."""
    raise ValueError(_NOT_INITIALIZED)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """ValueError, as PyTorch's without an initialized process group (never one in strided)."""
    raise ValueError(_NOT_INITIALIZED)


def __getattr__(name: str):
    raise AttributeError(f"module 'strided.torch.distributed' has no attribute {name!r}: strided has no "
                         f"process-group backend (torch.distributed.is_available() is False)")
