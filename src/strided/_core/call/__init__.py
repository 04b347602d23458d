"""The call pipeline: every door into an operation (namespace function, method,
operator, in-place form, ``out=``, PyTorch spelling, NumPy protocol) is a call of
one op through five stages:

1. bind (``bind.py``): the op's declared signature (PyTorch keywords, ``alpha``, ``out``);
2. resolve: the standard's promotion (``alpha`` in the compute dtype);
3. handlers (``_core/dispatch.py``): names and autograd, which see ``out`` and in-place
   targets as ordinary parameters;
4. write (``write.py``): the only code that writes into user memory;
5. adopt (``adopt.py``): a returned native becomes an Array over the Storage that owns
   its bytes, never a second Storage over the same memory.
"""
