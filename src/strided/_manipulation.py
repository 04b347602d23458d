"""(to be written)"""

__all__: list = []
