"""PyTorch meanings the fourth round's helpers found missing, each compared with PyTorch 2.13.

- ``@no_grad``, ``@enable_grad`` and ``@inference_mode`` without parentheses decorate the
  function (they returned an instance, or raised);
- a generator function decorated with a grad mode runs its body in that mode at every
  resumption and leaves the caller's mode alone between them (it ran with the caller's);
- ``f"{x}"`` of a 0-d array is its value (``f"loss {loss}"``), as PyTorch's and NumPy's;
- ``Size + tuple`` and ``tuple + Size`` are Sizes;
- ``broadcast_tensors``/``split``/``chunk`` with a single result differentiate (the one
  gradient was iterated element by element).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

from _parity import to_numpy  # noqa: E402


@pytest.mark.parametrize("mode", ["no_grad", "enable_grad", "inference_mode"])
@pytest.mark.parametrize("outer", [True, False])
def test_decorators_without_parentheses(mode, outer):
    def body(lib):
        return lib.is_grad_enabled()

    got_f = getattr(st, mode)(lambda: body(st))
    want_f = getattr(torch, mode)(lambda: body(torch))
    with st.set_grad_enabled(outer), torch.set_grad_enabled(outer):
        assert got_f() == want_f()
        assert st.is_grad_enabled() == torch.is_grad_enabled() == outer


@pytest.mark.parametrize("mode", ["no_grad", "enable_grad", "inference_mode"])
@pytest.mark.parametrize("parens", [True, False])
def test_generators_run_in_the_mode_at_each_resumption(mode, parens):
    def trace(lib):
        def gen(n):
            got = []
            for i in range(n):
                got.append(lib.is_grad_enabled())
                sent = yield i
                got.append(("sent", sent, lib.is_grad_enabled()))
            return got
        deco = getattr(lib, mode)
        g = (deco() if parens else deco)(gen)(3)
        seen = []
        with lib.set_grad_enabled(mode != "enable_grad"):
            v = next(g)
            seen.append((v, lib.is_grad_enabled()))
            try:
                while True:
                    v = g.send(v * 10)
                    seen.append((v, lib.is_grad_enabled()))
            except StopIteration as e:
                seen.append(("return", e.value))
        return seen

    assert trace(st) == trace(torch)


def test_generator_close_and_throw_in_the_mode():
    def trace(lib):
        log = []

        @lib.no_grad()
        def gen():
            try:
                yield 1
            except ValueError:
                log.append(("caught", lib.is_grad_enabled()))
                yield 2
            finally:
                log.append(("finally", lib.is_grad_enabled()))

        g = gen()
        next(g)
        log.append(("thrown", g.throw(ValueError("x")), lib.is_grad_enabled()))
        g.close()
        log.append(("after", lib.is_grad_enabled()))
        return log

    assert trace(st) == trace(torch)


def test_inference_mode_still_takes_mode():
    with st.inference_mode(False), torch.inference_mode(False):
        assert st.is_grad_enabled() == torch.is_grad_enabled()
    with pytest.raises(TypeError):
        st.no_grad(3)


@pytest.mark.parametrize("value", [1.5, -0.0, 3, True, float("nan"), 2.5 + 1j])
@pytest.mark.parametrize("spec", ["", ".3f", ">8", "e"])
def test_format_of_a_0d_array_is_its_value(value, spec):
    if (type(value) is bool and spec in (".3f", "e")) or (type(value) is complex and spec == "e"):
        spec = ""
    want = format(torch.tensor(value), spec)
    assert format(st.tensor(value), spec) == want
    assert format(np.array(value), spec) == want  # (NumPy's 0-d arrays agree)


def test_format_of_other_arrays_is_the_repr():
    x = st.tensor([1.0, 2.0])
    assert f"{x}" == repr(x)


def test_size_plus_tuple():
    for a, b in (((2,), (3, 4)), ((), (1,))):
        got = [st.Size(a) + b, a + st.Size(b), st.Size(a) + st.Size(b)]
        want = [torch.Size(a) + b, a + torch.Size(b), torch.Size(a) + torch.Size(b)]
        for g, w in zip(got, want):
            assert type(g) is st.Size and type(w) is torch.Size and tuple(g) == tuple(w)
    assert st.Size((1,)).__add__([2]) is NotImplemented
    with pytest.raises(TypeError):
        torch.Size((1,)) + [2]
    with pytest.raises(TypeError):
        st.Size((1,)) + [2]


@pytest.mark.parametrize("how", ["broadcast_tensors", "split", "chunk"])
def test_a_single_result_differentiates(how):
    def run(lib):
        x = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
        if how == "broadcast_tensors":
            (y,) = lib.broadcast_tensors(x)
        elif how == "split":
            (y,) = x.split(5)
        else:
            (y,) = lib.chunk(x, 1)
        (y * lib.tensor([2.0, 3.0, 4.0], dtype=lib.float64)).sum().backward()
        return x.grad

    np.testing.assert_array_equal(to_numpy(run(st)), run(torch).numpy())


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_an_inplace_write_into_a_quotient_keeps_its_backward(dtype):
    """Division keeps its operands for the divisor's gradient, as PyTorch's does, not the
    quotient: writing into the quotient (torch.distributions' Gamma.rsample clamps it) leaves the
    backward valid, with PyTorch's gradients."""
    def run(lib):
        dt = getattr(lib, dtype)
        a = lib.tensor([1.0, 4.0, -2.0, 0.3], dtype=dt, requires_grad=True)
        b = lib.tensor([3.0, 0.5, 7.0, -0.7], dtype=dt, requires_grad=True)
        q = a / b
        q.clamp_(min=0.0)
        (q * lib.tensor([1.0, 2.0, 3.0, 5.0], dtype=dt)).sum().backward()
        return a.grad, b.grad

    (ga, gb), (ta, tb) = run(st), run(torch)
    np.testing.assert_array_equal(to_numpy(ga), ta.numpy())
    np.testing.assert_array_equal(to_numpy(gb), tb.numpy())


@pytest.mark.parametrize("how", ["copy", "deepcopy"])
@pytest.mark.parametrize("requires_grad", [True, False])
def test_copies_of_parameters_are_parameters(how, requires_grad):
    import copy

    f = getattr(copy, how)
    got = f(st.nn.Parameter(st.zeros(2), requires_grad=requires_grad))
    want = f(torch.nn.Parameter(torch.zeros(2), requires_grad=requires_grad))
    assert isinstance(got, st.nn.Parameter) == isinstance(want, torch.nn.Parameter) is True
    assert got.requires_grad == want.requires_grad
    assert not isinstance(f(st.zeros(2)), st.nn.Parameter)  # (a plain array's copy is not one)


def test_deepcopy_of_a_module_keeps_its_parameters():
    import copy

    m = st.nn.Linear(3, 2)
    m2 = copy.deepcopy(m)
    t2 = copy.deepcopy(torch.nn.Linear(3, 2))
    assert [isinstance(p, st.nn.Parameter) for p in m2.parameters()] == \
        [isinstance(p, torch.nn.Parameter) for p in t2.parameters()] == [True, True]
    assert m2.weight is not m.weight
    np.testing.assert_array_equal(to_numpy(m2.weight), to_numpy(m.weight))
