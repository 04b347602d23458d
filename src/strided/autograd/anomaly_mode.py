"""``torch.autograd.detect_anomaly`` / ``set_detect_anomaly``: with anomaly detection on
(and ``check_nan``, the default), backward raises as soon as a node returns a gradient
holding NaN, naming the node and the output, as PyTorch's engine does. The mode is
process-wide, as PyTorch's.

>>> import strided.torch as torch
>>> x = torch.tensor([0.0, 1.0], requires_grad=True)
>>> with torch.autograd.set_detect_anomaly(True):
...     y = (x.sqrt() * 0).sum()
...     try:
...         y.backward()
...     except RuntimeError as e:
...         print(e)
Function 'SqrtBackward0' returned nan values in its 0th output.
"""

from __future__ import annotations

import warnings

from .._core.caller import stacklevel

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

# [enabled, check_nan]: read by the engine (_graph.run_backward) at each backward
ANOMALY = [False, True]


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return ANOMALY[0]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks the gradients for NaN."""
    return ANOMALY[1]


class detect_anomaly:
    """Context manager that turns anomaly detection on inside it (warning that it is on)."""

    def __init__(self, check_nan: bool = True):
        self.prev = tuple(ANOMALY)
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should "
                      "only be enabled for debugging.", UserWarning, stacklevel=stacklevel())

    def __enter__(self):
        self.prev = tuple(ANOMALY)
        ANOMALY[:] = [True, self.check_nan]
        return self

    def __exit__(self, *exc):
        ANOMALY[:] = list(self.prev)
        return False


class set_detect_anomaly:
    """Turn anomaly detection on or off now; as a context manager, restore it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = tuple(ANOMALY)
        ANOMALY[:] = [bool(mode), bool(check_nan)]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        ANOMALY[:] = list(self.prev)
        return False


def check_nan(node, outs) -> None:
    """The engine's check under anomaly detection: no gradient a node returns holds NaN."""
    from .._core.array import Array
    for i, g in enumerate(outs):
        if type(g) is Array and g._dtype.kind in "fc":
            xp = g._device.backend.xp
            if bool(xp.isnan(g._get_native()).any()):
                raise RuntimeError(f"Function '{type(node).__name__}' returned nan values in its {i}th output.")
