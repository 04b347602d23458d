"""``torch.__future__``: how ``nn.Module.to()`` / ``_apply`` converts parameters.

strided's ``Module._apply`` always keeps each parameter object and assigns the converted
value to its ``.data`` -- PyTorch's default, with both flags False. The getters say so; the
setters accept False and raise NotImplementedError for True (new parameter objects, or
``torch.utils.swap_tensors``, which strided does not do).

>>> import strided.torch.__future__ as fut
>>> fut.get_overwrite_module_params_on_conversion(), fut.get_swap_module_params_on_conversion()
(False, False)
"""

from __future__ import annotations

__all__ = ["get_overwrite_module_params_on_conversion", "get_swap_module_params_on_conversion",
           "set_overwrite_module_params_on_conversion", "set_swap_module_params_on_conversion"]


def _refuse(fn: str, value) -> None:
    if value:
        raise NotImplementedError(f"{fn}(True): strided.torch.nn.Module._apply always keeps each "
                                  f"parameter and assigns to its .data (the False behaviour)")


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Only False (strided keeps the parameter objects); True raises NotImplementedError."""
    _refuse("set_overwrite_module_params_on_conversion", value)


def get_overwrite_module_params_on_conversion() -> bool:
    """False: ``Module.to()`` keeps each parameter object."""
    return False


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Only False (strided has no ``swap_tensors``); True raises NotImplementedError."""
    _refuse("set_swap_module_params_on_conversion", value)


def get_swap_module_params_on_conversion() -> bool:
    """False: ``Module.to()`` assigns to ``.data``, it does not swap tensors."""
    return False
