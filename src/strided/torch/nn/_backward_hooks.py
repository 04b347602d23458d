# Adapted from PyTorch 2.13's torch/utils/hooks.py (BackwardHook) and
# torch/nn/modules/_functions.py (BackwardHookFunction) (BSD-3-Clause; Copyright (c) 2016- Facebook,
# Inc and the PyTorch contributors; see LICENSES/PyTorch.txt).
"""The machinery of ``Module.register_full_backward_hook`` / ``register_full_backward_pre_hook``.

As PyTorch's: when a module has full backward hooks or backward pre-hooks, its call passes the
positional array inputs through an identity ``Function`` (``BackwardHookFunction``, whose node
is ``BackwardHookFunctionBackward``) and does the same with the outputs; a hook on the outputs'
node captures ``grad_output`` (and runs the pre-hooks, which may replace it), and a hook on the
inputs' node gets ``grad_input`` and runs the full backward hooks (which may replace it). So
``forward`` sees views of its inputs and the caller gets views of the outputs. Built on
strided's autograd ``Function`` and its nodes' ``register_hook``; nothing in the core changes.
"""

from __future__ import annotations

import warnings

import strided as _st
from strided import Array
from strided.autograd import Function
from strided._core.caller import stacklevel

__all__ = ["BackwardHook", "BackwardHookFunction"]


class BackwardHookFunction(Function):
    """The identity on its array arguments, as a node the module's backward hooks attach to."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        ctx.arg_metas = tuple((a.shape, a.dtype, a.device) for a in args)
        return args

    @staticmethod
    def backward(ctx, *args):
        # (PyTorch materializes every missing gradient as zeros, those of the outputs marked
        # non-differentiable too: the hooks see zeros there, not None)
        return tuple(_st.zeros(m[0], dtype=m[1], device=m[2]) if g is None else g
                     for g, m in zip(args, ctx.arg_metas))


class BackwardHook:
    """One module call's backward hooks (PyTorch's ``torch.utils.hooks.BackwardHook``): it
    wraps the inputs (``setup_input_hook``) and the outputs (``setup_output_hook``) and calls
    the user hooks once the gradients of both are known; non-array inputs and outputs are
    None in ``grad_input`` / ``grad_output``."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _set_user_hook(self, grad_fn) -> None:
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # (the gradient reached the inputs without passing through the outputs)
                return None
            res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, res)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        tensors_idx = []
        tensors = []
        requires_grad = False
        for i, arg in enumerate(args):
            if type(arg) is Array:
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and _st.is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input "
                               "Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors if t.grad_fn is not None
                    and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if len(grad_fns) == 0:
            raise RuntimeError("Error while setting up backward hooks: no "
                               "BackwardHookFunctionBackward node was recorded.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        if type(args) is tuple:
            out = tuple(arg_list)
        else:
            out = type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args):
        """Wrap the positional array inputs; returns the new args."""
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        """Wrap the array outputs (an array or a tuple); returns the new result."""
        def fn(grad_fn) -> None:
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                         self.n_outputs)
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                        if hook_grad_outputs is None:
                            continue
                        actual_len = len(hook_grad_outputs)
                        if actual_len != expected_len:
                            raise RuntimeError("Backward pre hook returned an invalid number of "
                                               f"grad_output, got {actual_len}, but expected "
                                               f"{expected_len}")
                        self.grad_outputs = hook_grad_outputs
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    warnings.warn("Full backward hook is firing when gradients are computed with "
                                  "respect to module outputs since no inputs require gradients. "
                                  "See https://docs.pytorch.org/docs/main/generated/torch.nn."
                                  "Module.html#torch.nn.Module.register_full_backward_hook for "
                                  "more details.", stacklevel=stacklevel())
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple)
                                                    and all(el is None for el in res)):
                            raise RuntimeError("Backward hook for Modules where no input requires "
                                               "gradient should always return None or None for "
                                               "all gradients.")
                    self.grad_outputs = None
                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
                return None

            grad_fn.register_hook(hook)

        is_tuple = True
        if not isinstance(args, tuple):
            args = (args,)
            is_tuple = False
        res, output_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        if not is_tuple:
            res = res[0]
        return res
