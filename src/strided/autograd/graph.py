"""``torch.autograd.graph``: the graph's ``Node`` type and the saved-tensor hooks.

``saved_tensors_hooks(pack_hook, unpack_hook)``: while the context is active, every array
an operation saves for backward goes through ``pack_hook`` when it is saved, and what
that returned through ``unpack_hook`` when backward needs it (as PyTorch's). Hooks nest,
the innermost in force, per thread; the arrays the hooks themselves save are saved plainly.
``save_on_cpu`` keeps saved arrays as host copies. Inside
``disable_saved_tensors_hooks(msg)`` entering hooks raises ``msg`` (so does entering it
while hooks are in force).

>>> import strided.torch as torch
>>> seen = []
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> with torch.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t.shape) or t * 1,
...                                               lambda t: t):
...     y = (x * x).sum()
>>> y.backward()
>>> x.grad.tolist(), len(seen)
([2.0, 4.0], 2)
"""

from __future__ import annotations

from ._graph import HOOKS, Node, hooks_changed

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


class saved_tensors_hooks:
    """Pack/unpack hooks for the arrays saved for backward while the context is active."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if HOOKS.disabled is not None:
            raise RuntimeError(HOOKS.disabled)
        HOOKS.stack.append((self.pack_hook, self.unpack_hook))
        hooks_changed(+1)
        return self

    def __exit__(self, *exc):
        HOOKS.stack.pop()
        hooks_changed(-1)
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved arrays kept as host copies and moved back to their device when unpacked."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack(t):
            return (t.device, t.detach().to("cpu", copy=True))

        def unpack(packed):
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Entering saved_tensors_hooks inside this context raises ``error_message`` (as does
    entering this context while hooks are in force)."""

    def __init__(self, error_message: str):
        self.error_message = error_message

    def __enter__(self):
        if HOOKS.stack:  # (as PyTorch: not inside hooks either)
            raise RuntimeError(self.error_message)
        self._prev = HOOKS.disabled
        HOOKS.disabled = self.error_message
        return self

    def __exit__(self, *exc):
        HOOKS.disabled = self._prev
        return False
