"""The Array API ``fft`` extension (to be written)."""

__all__: list = []
