"""CuPy's answers where they differ from NumPy's, as measured on a GPU.

The values are those of shared/gpu-runs/2026-11-26-h100 (probe.txt, probe2.txt,
cuda-tests-failures.log, CuPy 14.2 on an H100) or read in CuPy's source; the
CuPy stand-in gives them too (../cupy/_cupy_differences.py lists its entries). With
the stand-in on PYTHONPATH these tests check the stand-in; on a machine with a
GPU and the real CuPy they check that the stand-in's entries still hold for the
installed CuPy. Without either they are skipped.
"""

import os

import numpy as np
import pytest

cp = pytest.importorskip("cupy")

NAN, INF = float("nan"), float("inf")


def host(a):
    return cp.asnumpy(a)


def signbit(a) -> bool:
    return bool(np.signbit(host(a)).all())


@pytest.mark.parametrize("make", [
    lambda: cp.asarray(-0.0), lambda: cp.asarray(-0.0, dtype=np.float32),
    lambda: cp.array(-0.0, dtype=np.float32), lambda: cp.asarray(np.float32(-0.0)),
    lambda: cp.asarray(np.array(-0.0)), lambda: cp.asarray(complex(-0.0, -0.0)).real,
], ids=["float", "float32", "array", "numpy-scalar", "numpy-0d", "complex"])
def test_a_0d_array_from_a_host_zero_loses_its_sign(make):
    assert not signbit(make())


def test_full_lists_and_device_arrays_keep_the_sign_of_zero():
    z = cp.full((), -0.0)
    assert signbit(z) and signbit(cp.asarray([-0.0])) and signbit(cp.asarray(z))
    assert signbit(cp.array(z, copy=True)) and signbit(cp.sin(cp.asarray([-0.0])))


def test_fill_and_scalar_assignment_of_zero_lose_its_sign():
    a = cp.full(3, -1.0)
    a.fill(-0.0)
    assert not np.signbit(host(a)).any()
    a[...] = -0.0
    assert not np.signbit(host(a)).any()
    a[1:] = cp.full(2, -0.0)  # a device value is copied by a kernel: the sign stays
    assert np.signbit(host(a)).tolist() == [False, True, True]


@pytest.mark.parametrize("x, y, want", [
    (1.0, -INF, NAN), (-1.0, INF, NAN), (3.0, INF, NAN), (-0.0, -1.0, 0.0), (0.0, -1.0, 0.0),
    (2.0, -1.0, 0.0), (1.0, 0.1, -5.551115123125783e-17), (7.0, 2.0, 1.0), (-7.0, 2.0, 1.0),
])
def test_remainder_is_x_minus_floor_of_x_over_y_times_y(x, y, want):
    got = float(host(cp.remainder(cp.asarray([x]), cp.asarray([y])))[0])
    assert (np.isnan(got) and np.isnan(want)) or (got == want and np.signbit(got) == np.signbit(want))


@pytest.mark.parametrize("x, y, want", [(-1.0, INF, -0.0), (1.0, 0.1, 10.0), (-0.0, INF, -0.0),
                                        (-1.0, -0.0, INF), (INF, 2.0, INF)])
def test_floor_divide_is_the_floor_of_x_over_y(x, y, want):
    got = float(host(cp.floor_divide(cp.asarray([x]), cp.asarray([y])))[0])
    assert got == want and np.signbit(got) == np.signbit(want)


def test_integer_power_with_a_negative_exponent_is_zero_not_an_error():
    assert host(cp.asarray([2, -1, 1, 0]) ** cp.asarray([-1, -3, -2, 2])).tolist() == [0, -1, 1, 0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_maximum_minimum_of_signed_zeros_and_nan(dtype):
    a, b = cp.asarray([-0.0, 0.0], dtype=dtype), cp.asarray([0.0, -0.0], dtype=dtype)
    assert np.signbit(host(cp.maximum(a, b))).tolist() == [False, False]
    assert np.signbit(host(cp.minimum(a, b))).tolist() == [True, True]
    assert np.isnan(host(cp.maximum(cp.asarray([NAN], dtype=dtype), 1.0))).all()


def test_clip_ignores_a_nan_bound_but_keeps_a_nan_value():
    assert host(cp.clip(cp.asarray([1.0]), NAN, None)).tolist() == [1.0]
    assert np.isnan(host(cp.clip(cp.asarray([NAN]), 0, 1))).all()


@pytest.mark.parametrize("func, z, want", [
    ("tanh", complex(0, INF), complex(NAN, NAN)), ("tanh", complex(0, NAN), complex(NAN, NAN)),
    ("log", complex(INF, NAN), complex(NAN, NAN)), ("log", complex(NAN, INF), complex(NAN, NAN)),
    ("log", complex(-0.0, 0.0), complex(-INF, np.pi)),
    ("log1p", complex(-INF, NAN), complex(NAN, NAN)), ("log1p", complex(1e-20, 0), 0j),
    ("arccosh", complex(0, NAN), complex(NAN, NAN)),
])
def test_complex_special_values_are_thrusts(func, z, want):
    got = complex(host(getattr(cp, func)(cp.asarray([z])))[0])
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        assert (np.isnan(g) and np.isnan(w)) or g == w


def test_float32_subnormal_results_flush_to_zero():
    assert host(cp.reciprocal(cp.asarray([1e38, -1e38], dtype=np.float32))).tolist() == [0.0, -0.0]


def test_kernel_results_are_c_contiguous():
    x = cp.asarray(np.arange(24.0).reshape(2, 3, 4))
    assert (x.swapaxes(-1, -2) + 0).flags.c_contiguous


def test_singular_and_non_positive_definite_matrices_give_nan_inf_not_an_error():
    x = host(cp.linalg.solve(cp.zeros((2, 2)), cp.ones(2)))
    assert np.isnan(x[0]) and x[1] == INF
    inv = host(cp.linalg.inv(cp.zeros((2, 2))))
    assert np.isnan(inv[0]).all() and np.isnan(inv[1, 0]) and inv[1, 1] == INF
    ch = host(cp.linalg.cholesky(cp.asarray([[1.0, 2.0], [2.0, 1.0]])))
    assert ch[0].tolist() == [1.0, 0.0] and ch[1, 0] == 2.0 and np.isnan(ch[1, 1])


def test_may_share_memory_takes_no_max_work():
    x = cp.zeros((3, 4))
    with pytest.raises(NotImplementedError):
        cp.may_share_memory(x, x.T, max_work=0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_cuda_fails_in_a_child_forked_after_the_parent_used_it():
    x = cp.zeros(3)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            host(x + 1)
        except Exception as e:
            code = 3 if "cudaErrorInitializationError" in str(e) else 4
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3
    assert host(x + 1).tolist() == [1.0, 1.0, 1.0]  # the parent goes on


def test_errstate_linalg_raise_turns_them_into_linalg_errors():
    cupyx = pytest.importorskip("cupyx")
    with cupyx.errstate(linalg="raise"):
        with pytest.raises(np.linalg.LinAlgError):
            cp.linalg.inv(cp.zeros((2, 2)))
        with pytest.raises(np.linalg.LinAlgError):
            cp.linalg.cholesky(cp.asarray([[1.0, 2.0], [2.0, 1.0]]))
    assert cupyx.geterr()["linalg"] == "ignore"


def test_solve_does_not_broadcast_batch_axes():
    with pytest.raises(ValueError):
        cp.linalg.solve(cp.ones((3, 2, 2)), cp.ones((2, 2)))
    assert cp.linalg.solve(cp.asarray(np.stack([np.eye(2)] * 3)), cp.ones(2)).shape == (3, 2)
