"""``cupy.cuda`` of the stand-in: one device, streams and synchronisation as no-ops."""

from ._cupy_differences import CUDARuntimeError, device_used

d2h_copies = 0  # device-to-host copies; tests read and reset it


class Device:
    """``cupy.cuda.Device(i)``: a context manager selecting GPU ``i``; ``.id``."""

    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)
        if not 0 <= self.id < runtime.getDeviceCount():
            raise RuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {self.id}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        pass

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return self.id


class _Stream:
    def synchronize(self):
        pass


def get_current_stream(device=None):
    return _Stream()


class runtime:
    CUDARuntimeError = CUDARuntimeError

    @staticmethod
    def getDeviceCount():
        device_used()  # initialises CUDA: a child forked after this can't use it
        return 1
