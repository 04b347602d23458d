"""The call pipeline: every way into an operation goes through the same stages.

bind (``bind.py``: the user's spelling to the definition's canonical call) -> resolve
(promotion, ``alpha`` in the compute dtype: the registry's tables) -> handlers (names,
autograd: ``dispatch.register_handler``) -> write (``write.py``: the one writer into user
memory) -> adopt (``adopt.py``: a returned native as an Array over the Storage that owns
its memory). docs/design.md draws it.
"""
