"""The Array API ``linalg`` extension (to be written)."""

__all__: list = []
