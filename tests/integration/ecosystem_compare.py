"""Compare a library call made on strided arrays with the same call on NumPy arrays.

Shared by the scikit-learn and SciPy integration tests. The NumPy run is the
reference for values and (with the exceptions below) dtypes; the strided run
must return strided arrays wherever NumPy returned arrays ("array type in
equals array type out"), on the input's device.
"""

from __future__ import annotations

import numbers

import numpy as np

import strided as xp

# Tolerances for a float64 result that strided computed in float32, its default
# float (PyTorch's; NumPy's is float64): the library allocated with the
# namespace's default dtype, e.g. ``xp.asarray(0.0)`` or ``xp.zeros(n)``.
DEFAULT_FLOAT_TOL = (2e-5, 1e-6)


def host(a):
    """A NumPy copy of a strided array on any device (or of a NumPy/scalar value)."""
    if type(a) is xp.Array:
        return np.array(a.to_device("cpu").numpy(), copy=True)
    return np.asarray(a)


class Compare:
    """Compare a strided run with the NumPy run: type, device, dtype, shape, values.

    Dtypes are NumPy's, with two exceptions where NumPy gives float64 and we
    give float32:

    - the floating inputs are float32 (``input_float``): the array API code of
      scikit-learn and SciPy keeps the input's precision where their NumPy code
      upcasts (compiled kernels, ``np.bincount`` weights), for every array API
      namespace;
    - otherwise, float32 is strided's default float and the library allocated
      with the namespace's default dtype. That case is accepted with float32
      tolerances and remembered in ``default_float``; ``check_strided_run`` then
      runs again with ``set_default_dtype(float64)`` (``strict_dtype``), where
      the dtype must be NumPy's. A float64 result that only has float32
      accuracy (an intermediate in the default float) is handled the same way.

    ``sign_free`` outputs have columns of arbitrary sign (an SVD or an
    eigendecomposition: LAPACK builds differ); their columns are aligned first.
    """

    def __init__(self, device, rtol, atol, strict_dtype=False, input_float=None, allowed=(),
                 unordered=False):
        self.device, self.rtol, self.atol, self.strict = device, rtol, atol, strict_dtype
        self.input_float = input_float
        self.allowed = set(allowed)  # (ours, NumPy's) dtype-name pairs accepted for this call
        self.unordered = unordered  # 1-D results in no specified order (polynomial roots)
        self.default_float = []

    def _loosen(self, what):
        self.default_float.append(what)
        return max(self.rtol, DEFAULT_FLOAT_TOL[0]), max(self.atol, DEFAULT_FLOAT_TOL[1])

    def __call__(self, out, ref, what, sign_free=False):
        if isinstance(ref, (tuple, list)):
            assert isinstance(out, (tuple, list)) and len(out) == len(ref), \
                f"{what}: {type(out).__name__} of {len(out) if hasattr(out, '__len__') else '?'}, NumPy gives {len(ref)}"
            for i, (o, r) in enumerate(zip(out, ref)):
                self(o, r, f"{what}[{i}]", sign_free)
            return
        if isinstance(ref, dict):
            assert isinstance(out, dict) and out.keys() == ref.keys(), what
            for k in ref:
                self(out[k], ref[k], f"{what}[{k!r}]", sign_free)
            return
        if isinstance(ref, np.ndarray) and ref.dtype != object:
            self._array(out, ref, what, sign_free)
            return
        if isinstance(ref, np.generic):
            # NumPy code hands back a NumPy scalar where array API code keeps a 0-d array.
            if type(out) is xp.Array:
                assert out.ndim == 0, f"{what}: shape {tuple(out.shape)} for a NumPy scalar"
                self._array(out, np.asarray(ref), what, sign_free)
                return
            ref = ref.item()
        if ref is None or isinstance(ref, (str, bool, slice, range)):
            assert out == ref, f"{what}: {out!r}, NumPy gives {ref!r}"
            return
        if isinstance(ref, numbers.Number):
            self._scalar(out, ref, what)
            return
        self._object(out, ref, what)

    def _array(self, out, ref, what, sign_free):
        rtol, atol = self.rtol, self.atol
        assert type(out) is xp.Array, f"{what}: expected a strided array, got {type(out).__name__}"
        assert out.device == self.device, f"{what}: on {out.device}, input on {self.device}"
        got = host(out)
        pair = (got.dtype, ref.dtype)
        if pair in ((np.float32, np.float64), (np.complex64, np.complex128)) \
                and self.input_float in (np.float32, np.complex64):
            pass  # the array API path keeps float32 inputs in float32
        elif pair in ((np.float32, np.float64), (np.complex64, np.complex128)) and not self.strict:
            rtol, atol = self._loosen(what)
        elif got.dtype != ref.dtype and (got.dtype.name, ref.dtype.name) in self.allowed:
            pass  # a documented dtype difference of this call (the case says why)
        else:
            assert got.dtype == ref.dtype, f"{what}: dtype {got.dtype}, NumPy gives {ref.dtype}"
        assert got.shape == ref.shape, f"{what}: shape {got.shape}, NumPy gives {ref.shape}"
        if sign_free and got.ndim:
            got = got * np.where(np.sum(got * ref, axis=0) < 0, -1, 1)
        if self.unordered and got.ndim == 1:
            got, ref = np.sort(got), np.sort(ref)
        try:
            np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
        except AssertionError:
            if self.strict:
                raise
            # A float64 result with float32 accuracy: an intermediate was made in our
            # default float. Accept float32 accuracy here; the strict re-run decides.
            rtol, atol = self._loosen(what)
            np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)

    def _scalar(self, out, ref, what):
        rtol, atol = self.rtol, self.atol
        if type(out) is xp.Array:
            # e.g. scikit-learn's hamming_loss(multilabel, sample_weight=...) divides a
            # float by a 0-d array and returns that 0-d array, for every namespace.
            assert out.ndim == 0 and out.device == self.device, f"{what}: {out!r}"
            if out.dtype in (xp.float32, xp.complex64) and not self.strict \
                    and self.input_float not in (np.float32, np.complex64):
                rtol, atol = self._loosen(what)
            out = out.to_device("cpu").item()
        assert isinstance(out, numbers.Number), f"{what}: {type(out).__name__}, NumPy gives a number"
        try:
            np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
        except AssertionError:
            if self.strict:
                raise
            # A Python float hides its dtype: it may have been computed in our default float.
            rtol, atol = self._loosen(what)
            np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)

    def _object(self, out, ref, what):
        """A result object (SciPy's result classes, interpolators): its public data."""
        assert type(out) is type(ref), f"{what}: {type(out).__name__}, NumPy gives {type(ref).__name__}"
        fields = getattr(ref, "_asdict", None)
        items = fields() if fields else {k: v for k, v in vars(ref).items() if not k.startswith("_")}
        compared = 0
        for k, v in items.items():
            if isinstance(v, (np.ndarray, np.generic, numbers.Number, tuple, list)):
                self(getattr(out, k), v, f"{what}.{k}")
                compared += 1
        assert compared, f"{what}: nothing to compare in a {type(ref).__name__}"


class default_float64:
    """Run a block with float64 as strided's default float (NumPy's default)."""

    def __enter__(self):
        xp.set_default_dtype(xp.float64)

    def __exit__(self, *exc):
        xp.set_default_dtype(xp.float32)


def check_strided_run(run, refs, device, rtol, atol, sign_free=(), input_float=None, allowed=(),
                      unordered=False):
    """Run ``run()`` -> {what: output}; compare with ``refs`` (the NumPy run), and
    again with float64 as strided's default float if that made any difference.

    Returns the outputs that needed the second run (empty when none did)."""
    cmp = Compare(device, rtol, atol, input_float=input_float, allowed=allowed, unordered=unordered)
    outs = run()
    assert outs.keys() == refs.keys()
    for what, ref in refs.items():
        cmp(outs[what], ref, what, what.rsplit(".", 1)[-1] in sign_free)
    if cmp.default_float:
        strict = Compare(device, rtol, atol, strict_dtype=True, input_float=input_float, allowed=allowed,
                         unordered=unordered)
        with default_float64():
            outs = run()
        for what, ref in refs.items():
            strict(outs[what], ref, what, what.rsplit(".", 1)[-1] in sign_free)
    return cmp.default_float
