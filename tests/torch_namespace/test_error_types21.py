"""Shape and device errors are ValueErrors (NumPy's type, the standard's tests') and the
RuntimeErrors PyTorch raises for the same calls: a PyTorch program's ``except RuntimeError``
and a NumPy program's ``except ValueError`` both catch them. Each call is made on PyTorch 2.13
too, which must raise RuntimeError (not ValueError) for the test to mean anything."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided.torch as st  # noqa: E402

CASES = {
    "add": lambda L: L.ones(2) + L.ones(3),
    "multiply, 2-d": lambda L: L.ones(2, 3) * L.ones(2, 4),
    "less": lambda L: L.ones(2) < L.ones(3),
    "in-place add": lambda L: L.ones(2).add_(L.ones(3)),
    "where": lambda L: L.where(L.ones(2) > 0, L.ones(3), L.ones(2)),
    "expand": lambda L: L.ones(2).expand(3),
    "broadcast_to": lambda L: L.broadcast_to(L.ones(2), (3,)),
    "reshape": lambda L: L.ones(6).reshape(4),
    "view": lambda L: L.ones(6).view(4),
    "cat": lambda L: L.cat([L.ones(2, 2), L.ones(2, 3)]),
    "stack": lambda L: L.stack([L.ones(2), L.ones(3)]),
    "matmul": lambda L: L.ones(2, 3) @ L.ones(2, 3),
    "batched matmul": lambda L: L.matmul(L.ones(2, 2, 3), L.ones(3, 3, 2)),
    "item": lambda L: L.ones(2).item(),
    "setitem": lambda L: L.ones(2).__setitem__(slice(None), L.ones(3)),
    "copy_": lambda L: L.ones(2).copy_(L.ones(3)),
    "clamp": lambda L: L.clamp(L.ones(2), L.ones(3)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_shape_errors_are_runtime_errors_as_in_pytorch(case):
    f = CASES[case]
    with pytest.raises(RuntimeError) as want:
        f(torch)
    assert not isinstance(want.value, ValueError)  # (PyTorch's own type: no ValueError)
    with pytest.raises(RuntimeError) as got:
        f(st)
    assert isinstance(got.value, ValueError), type(got.value)  # (and NumPy's)


def test_a_device_mismatch_is_a_runtime_error_as_in_pytorch():
    """Two devices in one call: PyTorch's RuntimeError ("Expected all tensors to be on the
    same device"), on the CuPy stand-in's or a GPU's cuda device, else the conftest's sim."""
    import strided
    other = next((d for d in ("cuda", "sim") if _has(strided, d)), None)
    if other is None:
        pytest.skip("no second device")
    here = "cpu" if other != "cpu" else "cuda"
    a = strided.ones(2, device=here)
    b = strided.ones(2, device=other)
    for f in (lambda: a + b, lambda: strided.where(a > 0, b, 0.0), lambda: strided.matmul(a, b)):
        with pytest.raises(RuntimeError, match="different devices") as got:
            f()
        assert isinstance(got.value, ValueError)


def _has(strided, dev) -> bool:
    try:
        strided.ones(1, device=dev)
        return True
    except Exception:  # (no such device here)
        return False


def test_the_messages_still_name_the_shapes():
    with pytest.raises(ValueError, match=r"\(2,\) and \(3,\)"):
        np.asarray(st.ones(2) + st.ones(3))
