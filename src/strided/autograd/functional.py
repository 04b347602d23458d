# Adapted from PyTorch 2.13's torch/autograd/functional.py (BSD-3-Clause; Copyright (c) 2016- Facebook,
# Inc and the PyTorch contributors): the argument checks, their messages, the tuple nesting of the
# results and the double-backward trick of jvp/hvp are PyTorch's, step for step.
"""``torch.autograd.functional``: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``hvp`` and ``vhp``.

Every function takes ``func`` and its ``inputs`` (an array or a tuple of arrays) and returns
results nested as PyTorch's: a tuple where ``inputs`` (or ``func``'s output) was a tuple, a
bare array where it was one. They are composed from ``strided.autograd.grad`` (with
``create_graph=True`` where a second derivative is needed); ``jvp`` and ``hvp`` use PyTorch's
double-backward trick (a backward pass differentiated with respect to its seed).

Known differences from PyTorch: ``vectorize=True`` computes the same values by a loop over the
rows of the Jacobian (strided's ``grad`` has no ``is_grads_batched``); ``strategy="forward-mode"``
(and ``outer_jacobian_strategy="forward-mode"``) raise NotImplementedError (strided has no
forward-mode AD).

>>> import strided.torch as torch
>>> from strided.autograd.functional import jacobian
>>> jacobian(lambda x: x ** 2, torch.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
"""

from __future__ import annotations

import sys

from .._core.array import Array
from ._mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _torch():
    return sys.modules["strided.torch"] if "strided.torch" in sys.modules else __import__(
        "strided.torch", fromlist=["_"])


def _as_tuple_nocheck(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp, arg_name=None, fn_name=None):
    """(was it a tuple, the arrays as a tuple), checking that every entry is an array."""
    if arg_name is None and fn_name is None:
        return _as_tuple_nocheck(inp)
    is_inp_tuple = True
    if not isinstance(inp, tuple):
        inp = (inp,)
        is_inp_tuple = False
    for i, el in enumerate(inp):
        if not isinstance(el, Array):
            if is_inp_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                                f"but the value at index {i} has type {type(el)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the given {arg_name} has type {type(el)}.")
    return is_inp_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Unwrap the one-element tuples of ``res`` where the user gave a bare array."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Inputs cut from their history (or, with create_graph, views that keep it)."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Array):
        if not create_graph:
            return tuple(inp.detach() for inp in inputs)
        return inputs
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is "
                               f"not allowed in strict mode.")
        if not inp.requires_grad:
            if input_type == "hessian":
                raise RuntimeError(f"The hessian of the user-provided function with respect to input {i} is "
                                   f"independent of the input. This is not allowed in strict mode. You should "
                                   f"ensure that your function is thrice differentiable and that the hessian "
                                   f"depends on the inputs.")
            if input_type == "jacobian":
                raise RuntimeError(f"While computing the hessian, found that the jacobian of the user-provided "
                                   f"function with respect to input {i} is independent of the input. This is not "
                                   f"allowed in strict mode. You should ensure that your function is twice "
                                   f"differentiable and that the jacobian depends on the inputs (this would be "
                                   f"violated by a linear function for example).")
            if input_type == "grad_inputs":
                raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of the "
                                   f"user-provided function. This is not allowed in strict mode.")
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                               f"must be computed in a differentiable manner from the input when running in strict "
                               f"mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``grad`` over the outputs that require grad (None for every input when none does)."""
    from . import grad
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs, new_grad_outputs = [], []
    for out, grad_out in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs.append(out)
            new_grad_outputs.append(grad_out)
    if not new_outputs:
        return (None,) * len(inputs)
    return grad(new_outputs, list(inputs), new_grad_outputs, allow_unused=True, create_graph=create_graph,
                retain_graph=retain_graph)


_STRICT_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in "
            "strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                  "using the double backward trick to compute forward mode gradients. This is not allowed in "
                  "strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed "
                   "in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = []
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise RuntimeError(_STRICT_MESSAGES[stage].format(i=i))
            grads_i = _torch().zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is "
                               f"not allowed in strict mode when create_graph=True.")
        res.append(grads_i)
    return tuple(res)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T J)``: the dot product of ``v`` with the Jacobian of ``func`` at ``inputs``.

    >>> import strided.torch as torch
    >>> from strided.autograd.functional import vjp
    >>> vjp(lambda x: x * 3, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))[1]
    tensor([3., 3.])
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                               "Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), J v)``: the Jacobian of ``func`` at ``inputs`` times ``v`` (by the double-backward trick).

    >>> import strided.torch as torch
    >>> from strided.autograd.functional import jvp
    >>> jvp(lambda x: x ** 2, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))[1]
    tensor([2., 4.])
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                               "single Tensor with a single element.")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(_torch().zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_outputs_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` of shape ``outputs[i].shape + inputs[j].shape``.

    ``vectorize=True`` gives the same values (strided computes them by the same loop);
    ``strategy="forward-mode"`` raises NotImplementedError (strided has no forward-mode AD).

    >>> import strided.torch as torch
    >>> from strided.autograd.functional import jacobian
    >>> jacobian(lambda x, y: x * y, (torch.tensor([2.0]), torch.tensor([3.0])))
    (tensor([[3.]]), tensor([[2.]]))
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either '
                                      'set `create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
                               'are not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
        raise NotImplementedError('jacobian(strategy="forward-mode"): strided has no forward-mode automatic '
                                  'differentiation; use strategy="reverse-mode" (the same values)')
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        torch = _torch()
        jac = []
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in range(len(inputs)))
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise RuntimeError(f"The jacobian of the user-provided function is independent of "
                                               f"input {i}. This is not allowed in strict mode when "
                                               f"create_graph=True.")
                        jac_i_el.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{el_idx}. This is not allowed in strict mode.")
                        jac_i_el.append(torch.zeros_like(inp_el))
            jac.append(tuple(_stack_rows(torch, jac_i_el, inputs[el_idx]).view(tuple(out.size()) +
                                                                            tuple(inputs[el_idx].size()))
                             for el_idx, jac_i_el in enumerate(jac_i)))
        jac = _grad_postprocess(tuple(jac), create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _stack_rows(torch, rows, inp):
    """The rows (one per output element) stacked (an output without elements: PyTorch's error)."""
    if not rows:
        raise RuntimeError("stack expects a non-empty TensorList")
    return torch.stack(rows, dim=0)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of the scalar function ``func`` at ``inputs``: ``H[i][j]`` of shape ``inputs[i].shape + inputs[j].shape``.

    >>> import strided.torch as torch
    >>> from strided.autograd.functional import hessian
    >>> hessian(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Array):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_function_checks(fn_name, outputs, is_outputs_tuple):
    if is_outputs_tuple or not isinstance(outputs[0], Array):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


def _first_derivative(name, func, inputs, v, create_graph, strict):
    """vhp's and hvp's common first half (PyTorch's, under enable_grad): the inputs and ``v``
    checked and prepared, the scalar output, and its gradient with a graph."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                           "single Tensor with a single element.")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    _scalar_function_checks(name, outputs, is_outputs_tuple)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T H)``: ``v`` times the Hessian of the scalar function ``func`` at ``inputs``.

    >>> import strided.torch as torch
    >>> from strided.autograd.functional import vhp
    >>> vhp(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))[1]
    tensor([ 6., 12.])
    """
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _first_derivative(
            "vhp", func, inputs, v, create_graph, strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), H v)``: the Hessian of the scalar function ``func`` at ``inputs`` times ``v``.

    >>> import strided.torch as torch
    >>> from strided.autograd.functional import hvp
    >>> hvp(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))[1]
    tensor([6., 0.])
    """
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _first_derivative(
            "hvp", func, inputs, v, create_graph, strict)
        grad_jac = tuple(_torch().zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)
