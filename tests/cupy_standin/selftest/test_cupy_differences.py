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
    ("log1p", complex(-INF, NAN), complex(NAN, NAN)),
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


STANDIN = hasattr(cp.cuda, "d2h_copies")  # the stand-in counts host copies; CuPy doesn't


def test_complex_log1p_and_expm1_are_log_of_1_plus_z_and_exp_minus_1():
    # complex.cuh: log1p(x) is 'x += 1; return log(x)', expm1(x) is 'exp(x) - 1': near 0
    # they lose what log1p/expm1 exist for. 1 + 1e-10 rounds (float64) to 1.00000000010000000827,
    # so log(1 + z) is 1.0000000827e-10 where log1p(1e-10) is 1e-10 - 5e-21 (its series).
    # (NumPy 2's complex log1p is log(hypot(1 + x, y)): it loses the same digits here, so
    # this case pins CuPy's inaccuracy, not a difference from NumPy; expm1 is one: NumPy's
    # nc_expm1 is accurate.)
    z = complex(1e-10, 0.0)
    got = complex(host(cp.log1p(cp.asarray([z])))[0])
    rounded = float(np.log(np.float64(1.0) + np.float64(1e-10)))
    assert abs(got.real - rounded) <= 2 * np.spacing(rounded) and got.imag == 0.0
    assert abs(got.real - (1e-10 - 5e-21)) > 1e-18  # relative error ~8e-9, not ulps
    assert complex(host(cp.expm1(cp.asarray([complex(1e-20, 0.0)])))[0]) == 0j
    assert np.expm1(np.complex128(complex(1e-20, 0.0))).real == 1e-20


@pytest.mark.parametrize("how", ["[[0]]", "mask", "list"])
def test_advanced_and_mask_assignment_of_a_host_zero_lose_its_sign(how):
    # _scatter_op_single / _scatter_op_mask_single: core.array(value) of a 0-d host value
    # is written with ndarray.fill, a memset for 0
    key = {"[[0]]": cp.asarray([0]), "mask": cp.asarray([True, False]), "list": [0]}[how]
    a = cp.full(2, -1.0)
    a[key] = -0.0
    assert np.signbit(host(a)).tolist() == [False, True] and host(a)[0] == 0.0
    a[key] = cp.full((), -0.0)  # a device value goes through a kernel: the sign stays
    assert np.signbit(host(a)).tolist() == [True, True]
    a[key] = np.asarray([-0.0])  # a non-scalar host value is copied as it is
    assert np.signbit(host(a)).tolist() == [True, True]


def test_advanced_assignment_takes_host_arrays_basic_assignment_refuses_them():
    a = cp.zeros(3)
    a[cp.asarray([0, 2])] = np.asarray([5.0, 6.0])
    assert host(a).tolist() == [5.0, 0.0, 6.0]
    with pytest.raises(ValueError, match="non-scalar numpy.ndarray cannot be used for fill"):
        a[:2] = np.asarray([1.0, 2.0])


def test_out_of_bounds_index_arrays_wrap_around():
    # the example of ndarray.__setitem__'s docstring, and _take_kernel's 'indices % range'
    x = cp.arange(3)
    x[[1, 3]] = 10
    assert host(x).tolist() == [10, 10, 2]
    y = cp.arange(3.0)
    assert host(y[cp.asarray([5, -4])]).tolist() == [2.0, 2.0]
    assert host(cp.take(y, cp.asarray([4]))).tolist() == [1.0]
    assert host(cp.arange(6.0).reshape(2, 3)[cp.asarray([0]), cp.asarray([3])]).tolist() == [0.0]
    with pytest.raises(IndexError):
        y[5]  # an int is basic indexing: checked


def test_duplicate_indices_store_one_of_the_values():
    seen = set()
    for _ in range(40):
        a = cp.zeros(2)
        a[cp.asarray([0, 0, 0, 1])] = cp.asarray([1.0, 2.0, 3.0, 4.0])
        r = host(a).tolist()
        assert r[0] in (1.0, 2.0, 3.0) and r[1] == 4.0
        seen.add(r[0])
    if STANDIN:  # the stand-in draws the winner: neither first nor last is a rule
        assert len(seen) > 1


def _float16_in_float32(x, y):
    """CuPy's float16 floor_divide and remainder: float32 arithmetic, one rounding to half
    (the fma x - q*y is exact in float64 for these operands, then rounded to float32)."""
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    q = np.floor(xf / yf)
    r = (xf.astype(np.float64) - q.astype(np.float64) * yf.astype(np.float64)).astype(np.float32)
    return q.astype(np.float16), r.astype(np.float16)


def test_float16_floor_divide_and_remainder_run_in_float32():
    x = np.asarray([-85.875, -7.78125, 16016.0, -2804.0, -14.4453125], np.float16)
    y = np.asarray([0.030426025390625, 0.0003421306610107422, 10.328125, 14.53125, 2.744140625],
                   np.float16)
    q, r = _float16_in_float32(x, y)
    assert q.tolist() != np.floor(x / y).tolist()  # (flooring the half quotient differs)
    assert host(cp.floor_divide(cp.asarray(x), cp.asarray(y))).tolist() == q.tolist()
    assert host(cp.remainder(cp.asarray(x), cp.asarray(y))).tolist() == r.tolist()


@pytest.mark.parametrize("order, want", [
    ("C", [[-INF, INF], [NAN, NAN]]),  # LU of the transpose (lapack.gesv(a.T, b.T))
    ("F", [[INF, -INF], [0.0, 1.0]]),  # LU of the matrix
])
def test_inv_of_a_c_ordered_matrix_factorises_its_transpose(order, want):
    a = cp.asarray(np.asarray([[0.0, 1.0], [0.0, 1.0]], order=order))
    got = host(cp.linalg.inv(a))
    np.testing.assert_array_equal(got, np.asarray(want))


def test_batched_inv_and_solve_report_through_cublas():
    cupyx = pytest.importorskip("cupyx")
    with cupyx.errstate(linalg="raise"):
        with pytest.raises(np.linalg.LinAlgError, match="getrfBatched in cuBLAS"):
            cp.linalg.inv(cp.zeros((2, 2, 2)))
        with pytest.raises(np.linalg.LinAlgError, match="getrfBatched in cuBLAS"):
            cp.linalg.solve(cp.zeros((2, 2, 2)), cp.ones((2, 2, 1)))
        with pytest.raises(np.linalg.LinAlgError, match="getrf in cuSOLVER"):
            cp.linalg.inv(cp.zeros((2, 2)))


def test_float_to_int_casts_saturate_and_nan_is_zero():
    # elementwise_copy's C++ conversion: PTX cvt.rzi clamps to the target's range, NaN -> 0
    got = host(cp.asarray([INF, -INF, NAN, -1.0, 3.7, -3.7]).astype(np.int32)).tolist()
    assert got == [2**31 - 1, -2**31, 0, -1, 3, -3]
    assert host(cp.asarray([-1.0, 300.0]).astype(np.uint8)).tolist() == [0, 255]
    assert host(cp.asarray([INF, NAN], np.float32).astype(np.int64)).tolist() == [2**63 - 1, 0]


def test_float32_subnormal_inputs_flush_in_kernels_and_casts():
    sub = cp.asarray([1e-40, -1e-40], dtype=np.float32)
    assert host(cp.log(sub[:1])).tolist() == [-INF]
    r = host(sub.astype(np.float64))
    assert r.tolist() == [0.0, 0.0] and np.signbit(r).tolist() == [False, True]
    assert host(cp.equal(sub, 0.0)).tolist() == [True, True]


def test_dlpack_copy_true_on_the_device_raises_buffer_error():
    with pytest.raises(BufferError, match="copy=True only supported for copy to CPU"):
        cp.arange(3.0).__dlpack__(copy=True)


# --- layouts: the strides of CuPy's results (strided adopts a result's strides) ----------

def _x():
    return cp.asarray(np.arange(24.0).reshape(2, 3, 4))


def test_ufunc_results_are_c_contiguous_whatever_the_inputs_layout():
    # _kernel.pyx ufunc.__call__ -> _get_out_args_from_optionals -> _ndarray_init (C)
    x = _x()
    t = x.transpose(2, 0, 1)
    f = cp.asarray(np.asfortranarray(np.arange(12.0).reshape(3, 4)))
    for r in (t + 1, cp.abs(t), cp.add(t, t.copy()), f * 2, f + cp.ones((3, 4)), x.T - 0):
        assert r.flags.c_contiguous
    assert (t + 1).strides == (48, 24, 8)


def test_reduction_results_are_c_contiguous_keepdims_or_not():
    # _reduction.pyx _AbstractReductionKernel._call -> _get_out_args_from_optionals
    x = _x()
    p = x.transpose(1, 0, 2)
    assert cp.sum(p, axis=2).strides == (16, 8)  # NumPy (8, 24)
    assert p.sum(axis=2).strides == (16, 8)
    assert x.transpose(2, 0, 1).sum(axis=1, keepdims=True).strides == (24, 24, 8)
    assert cp.max(p, axis=2).flags.c_contiguous and cp.argmax(p, axis=2).flags.c_contiguous


def test_astype_copy_and_like_functions_of_order_k_sort_axes_by_stride():
    # core.pyx _astype / internal.pyx _get_strides_for_order_K; _creation/basic.py
    # _new_like_order_and_strides
    t = _x().transpose(2, 0, 1)  # strides (8, 96, 32)
    assert t.astype(np.float32).strides == (4, 48, 16)
    assert t.astype(np.int32).strides == (4, 48, 16)  # (the saturating cast too)
    assert t.astype(np.float32, order="C").strides == (24, 12, 4)
    assert t.copy().strides == (48, 24, 8)  # ndarray.copy: order 'C'
    assert t.copy(order="K").strides == (8, 96, 32) and cp.copy(t).strides == (8, 96, 32)
    assert cp.empty_like(t).strides == (8, 96, 32) and cp.zeros_like(t).strides == (8, 96, 32)
    assert cp.full_like(t, 1.0, shape=(2, 12)).strides == (96, 8)  # another ndim: C
    b = cp.broadcast_to(cp.arange(4.0), (3, 4))  # strides (0, 8): the stride-0 axis is fastest
    assert b.astype(np.float32).strides == (4, 12) and cp.zeros_like(b).strides == (8, 24)


def test_cumsum_along_an_inner_axis_is_a_rolled_view_of_a_c_array():
    # _routines_math.pyx scan_core / _proc_as_batch
    x = _x()
    assert cp.cumsum(x, axis=1).strides == (96, 8, 24)  # NumPy (96, 32, 8)
    assert x.cumsum(axis=1).strides == (96, 8, 24) and cp.cumprod(x, axis=1).strides == (96, 8, 24)
    assert cp.cumsum(x, axis=0).strides == (96, 32, 8)  # (2, 3) merge: scanned in place, C
    assert cp.cumsum(x, axis=2).strides == (96, 32, 8)
    assert host(cp.cumsum(x, axis=1)).tolist() == np.cumsum(host(x), axis=1).tolist()


def test_argsort_along_an_inner_axis_is_a_rolled_view_and_sort_is_c_contiguous():
    # _routines_sorting.pyx _ndarray_argsort: rollaxis(idx_array, -1, axis); sort.py: a.copy()
    x = _x()
    assert cp.argsort(x, axis=0).strides == (8, 64, 16)  # NumPy (96, 32, 8)
    assert x.argsort(axis=1).strides == (96, 8, 24)
    assert cp.argsort(x, axis=-1).strides == (96, 32, 8)
    assert host(cp.argsort(x, axis=0)).tolist() == np.argsort(host(x), axis=0).tolist()
    assert cp.sort(x.transpose(2, 0, 1), axis=0).flags.c_contiguous  # NumPy: order 'K'


def test_where_round_diff_and_concatenate_results_are_c_contiguous():
    t = _x().transpose(2, 0, 1)
    assert cp.where(t > 1, t, 0.0).flags.c_contiguous and t.round().flags.c_contiguous
    assert cp.round(t).flags.c_contiguous and cp.diff(t, axis=0).flags.c_contiguous
    f = cp.asarray(np.asfortranarray(np.ones((3, 4))))
    assert cp.concatenate([f, f], axis=1).flags.c_contiguous  # NumPy: F
    assert cp.stack([t, t]).flags.c_contiguous


def test_advanced_indexing_results_are_c_contiguous():
    # _routines_indexing.pyx _take: core.ndarray(out_shape) (NumPy: (32, 64, 8))
    x = _x()
    assert x[:, cp.asarray([0, 1])].strides == (64, 32, 8)
    assert x[:, [0, 1]].strides == (64, 32, 8)


def test_linalg_results_are_column_major():
    # _solve.py solve (b.astype(order='F')), cublas.py batched_gesv, inv's order, _syevd
    m = cp.asarray(np.eye(3) * 2 + 1)
    assert cp.linalg.solve(m, cp.ones((3, 2))).strides == (8, 24)
    assert cp.linalg.solve(cp.stack([m, m]), cp.ones((2, 3, 2))).strides == (48, 8, 24)
    assert cp.linalg.solve(m, cp.ones(3)).strides == (8,)
    assert cp.linalg.inv(cp.asarray(np.asfortranarray(host(m) + np.triu(np.ones((3, 3)))))).flags.f_contiguous
    assert cp.linalg.inv(m + cp.asarray(np.triu(np.ones((3, 3))))).flags.c_contiguous
    r = cp.linalg.eigh(m)
    assert type(r) is tuple and r[1].strides == (8, 24)
    assert cp.linalg.eigh(cp.stack([m, m]))[1].strides == (72, 8, 24)


def test_sorts_are_always_stable_and_take_no_other_kind():
    # core.pyx _check_kind_sort; thrust's stable sort: equal keys keep their order
    keys = np.asarray([1, 0] * 300)  # (NumPy's quicksort of 600 keys is not stable)
    want = np.argsort(keys, kind="stable").tolist()
    assert host(cp.argsort(cp.asarray(keys))).tolist() == want
    assert host(cp.asarray(keys).argsort()).tolist() == want
    v = np.asarray([1.0, -0.0, 0.0, -0.0] * 200)
    s = cp.asarray(v)
    s.sort()
    assert np.signbit(host(s)).tolist() == np.signbit(np.sort(v, kind="stable")).tolist()
    assert np.signbit(host(cp.sort(cp.asarray(v)))).tolist() == np.signbit(np.sort(v, kind="stable")).tolist()
    with pytest.raises(ValueError, match="kind can only be None or 'stable'"):
        cp.sort(cp.asarray([2, 1]), kind="quicksort")


def test_complex_sign_of_an_infinity_is_z_over_abs_z():
    # _math/misc.py _complex_sign: in0 / abs(in0): inf / inf is NaN (NumPy: 1+0j, -1+0j)
    got = host(cp.sign(cp.asarray([complex(INF, 0.0), complex(-INF, 1.0), complex(3.0, 4.0)])))
    assert np.isnan(got[0].real) and got[0].imag == 0.0 and np.isnan(got[1].real)
    assert got[2] == complex(0.6, 0.8)
    assert host(cp.sign(cp.asarray([NAN, -0.0, 2.0]))).tolist()[1:] == [0.0, 1.0]


def test_fft_of_float16_to_a_real_result_is_float32():
    # fft/_fft.py _output_dtype: C2R converts float16 input to complex64
    x = cp.asarray(np.ones(4, np.float16))
    assert cp.fft.irfft(x).dtype == np.float32 and cp.fft.hfft(x).dtype == np.float32
    assert cp.fft.rfft(x).dtype == np.complex64 and cp.fft.fft(x).dtype == np.complex64


def test_linalg_eig_is_always_complex():
    # linalg/_eigenvalue.py _geev: w and v of the complex dtype (NumPy: real when it can)
    a = cp.asarray(np.diag([1.0, 2.0]))
    r = cp.linalg.eig(a)
    assert type(r) is tuple and r[0].dtype == np.complex128 and r[1].dtype == np.complex128
    assert cp.linalg.eigvals(a).dtype == np.complex128
    assert cp.linalg.eigvals(a.astype(np.float32)).dtype == np.complex64


def test_linspace_of_scalars_is_an_fma_of_i_step_start():
    # _creation/ranges.py _linspace_scalar / _linspace_ufunc 'out0 = in0 + i * in1' (fma)
    from fractions import Fraction
    start, stop, num = -3.3, 7.1, 2001
    step = float(stop - start) / (num - 1)
    want = [float(Fraction(start) + i * Fraction(step)) for i in range(num - 1)] + [stop]
    got = host(cp.linspace(start, stop, num)).tolist()
    assert got == want and got != np.linspace(start, stop, num).tolist()
    assert host(cp.linspace(0, 10, 4, dtype=np.int64)).tolist() == [0, 3, 6, 10]
    with pytest.raises(TypeError):
        cp.linspace(0, 1 + 1j, 3)  # float(stop - start)


def test_ufuncs_take_out_dtype_casting_and_private_where_only():
    # _kernel.pyx ufunc.__call__: 'Wrong arguments' for any other keyword
    x = cp.arange(3.0)
    for kw in ({"order": "C"}, {"where": cp.asarray([True, False, True])}, {"subok": True}):
        with pytest.raises(TypeError, match="Wrong arguments"):
            cp.add(x, 1.0, **kw)
    out = cp.zeros(3)
    cp.add(x, 1.0, out=out, _where=cp.asarray([True, False, True]))
    assert host(out).tolist() == [1.0, 0.0, 3.0]
    assert host(cp.add(x, 1.0, casting="same_kind")).tolist() == [1.0, 2.0, 3.0]


def test_add_reduce_and_accumulate_are_sum_and_cumsum():
    # _kernel.pyx ufunc.reduce -> array.sum, ufunc.accumulate -> array.cumsum
    x = _x()
    assert cp.add.accumulate(x, axis=1).strides == (96, 8, 24)
    assert cp.add.reduce(x.transpose(1, 0, 2), axis=2).strides == (16, 8)


def test_qr_and_svd_factors_are_views_of_the_solver_buffers():
    # _decomposition.py qr (q[:mc].transpose(), x[:, :mc].transpose()) and svd (vt = x[:, :n];
    # 'return u.transpose(), s, vt.transpose()' / 'return vt, s, u')
    tall = cp.asarray(np.arange(15.0).reshape(5, 3) ** 1.5)
    q, r = cp.linalg.qr(tall)
    assert q.strides == (8, 40) and r.strides == (8, 40)  # R: a transposed slice of x
    assert type(cp.linalg.qr(tall)) is tuple
    u, s, vh = cp.linalg.svd(tall)
    assert u.strides == (8, 40) and vh.strides == (8, 40)
    wide = cp.asarray(np.arange(15.0).reshape(3, 5) ** 1.5)
    u, s, vh = cp.linalg.svd(wide)
    assert u.strides == (40, 8) and not u.flags.c_contiguous and vh.strides == (40, 8)
    np.testing.assert_allclose(host(u * s) @ host(vh)[:3], host(wide), atol=1e-9)
