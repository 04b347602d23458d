"""scikit-learn with ``array_api_dispatch=True`` on strided arrays, against NumPy.

Every estimator, meta-estimator, metric, pairwise function and tool that
scikit-learn's "Array API support" page lists (and its own common tests mark as
supporting the array API) is run on strided inputs, in float32 and float64, on
the host (``cpu``) and on a simulated non-host device (``far``), and compared
with the same call on NumPy inputs: the outputs and fitted attributes must be
strided arrays on the input's device, with NumPy's dtype and values within the
dtype's tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest

import strided as xp

sklearn = pytest.importorskip("sklearn")
pytest.importorskip("scipy")

from sklearn import config_context  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.calibration import CalibratedClassifierCV  # noqa: E402
from sklearn.datasets import make_classification, make_regression  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.kernel_approximation import Nystroem  # noqa: E402
from sklearn.linear_model import (  # noqa: E402
    LogisticRegression, PoissonRegressor, Ridge, RidgeClassifier, RidgeClassifierCV, RidgeCV)
from sklearn.mixture import GaussianMixture  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.preprocessing import (  # noqa: E402
    Binarizer, KernelCenterer, LabelEncoder, MaxAbsScaler, MinMaxScaler, Normalizer,
    PolynomialFeatures, StandardScaler)
from sklearn import metrics  # noqa: E402
from sklearn.metrics import pairwise  # noqa: E402
from sklearn import model_selection  # noqa: E402
from sklearn.experimental import enable_halving_search_cv  # noqa: E402,F401

from .ecosystem_compare import Compare, check_strided_run, default_float64, host as _host  # noqa: E402


# --- data -----------------------------------------------------------------------------

def _classification(n_classes=3):
    X, y = make_classification(n_samples=60, n_features=8, n_informative=5, n_redundant=0,
                               n_classes=n_classes, random_state=0)
    return X, y


def _data(kind, dtype_name):
    """(X, y) in NumPy for a task; X in the dtype under test, y as scikit-learn takes it."""
    if kind == "kernel":
        X, _ = _classification()
        X = X.astype(dtype_name)
        return X @ X.T, None
    if kind == "labels":
        return np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3]), None
    if kind in ("reg", "poisson"):
        X, y, coef = make_regression(n_samples=60, n_features=8, n_informative=5, noise=0.5,
                                     coef=True, random_state=0)
        X = X.astype(dtype_name)
        if kind == "poisson":
            rng = np.random.default_rng(0)
            y = rng.poisson(np.exp(X @ (coef / np.abs(coef).max() * 0.3))).astype(dtype_name)
        return X, y.astype(dtype_name)
    X, y = _classification(2 if kind == "binary" else 3)
    return X.astype(dtype_name), y


# --- estimators ---------------------------------------------------------------------

TIGHT = dict(tol=1e-12, max_iter=2000)

# id -> (estimator, task, (rtol float32, rtol float64))
ESTIMATORS = {
    "PCA-full": (PCA(3, svd_solver="full"), "multi", (1e-4, 1e-9)),
    "PCA-covariance_eigh": (PCA(3, svd_solver="covariance_eigh"), "multi", (1e-4, 1e-8)),
    "PCA-randomized": (PCA(3, svd_solver="randomized", power_iteration_normalizer="QR",
                           random_state=0), "multi", (1e-4, 1e-9)),
    "LinearDiscriminantAnalysis": (LinearDiscriminantAnalysis(), "multi", (1e-4, 1e-9)),
    "Ridge": (Ridge(alpha=0.5, solver="svd"), "reg", (1e-4, 1e-9)),
    "RidgeCV": (RidgeCV(alphas=(0.1, 1.0, 10.0)), "reg", (1e-4, 1e-9)),
    "RidgeClassifier": (RidgeClassifier(solver="svd"), "multi", (1e-4, 1e-9)),
    "RidgeClassifierCV": (RidgeClassifierCV(alphas=(0.1, 1.0, 10.0)), "multi", (1e-4, 1e-9)),
    "GaussianNB": (GaussianNB(), "multi", (1e-4, 1e-9)),
    "LogisticRegression-lbfgs": (LogisticRegression(solver="lbfgs", **TIGHT), "multi", (2e-3, 1e-6)),
    "LogisticRegression-binary": (LogisticRegression(solver="lbfgs", C=0.5, **TIGHT), "binary", (2e-3, 1e-6)),
    "PoissonRegressor-lbfgs": (PoissonRegressor(solver="lbfgs", alpha=0.1, **TIGHT), "poisson", (2e-3, 1e-6)),
    "GaussianMixture-random": (GaussianMixture(2, init_params="random", tol=1e-10, max_iter=50,
                                               random_state=0), "multi", (2e-3, 1e-6)),
    "GaussianMixture-random_from_data": (GaussianMixture(3, init_params="random_from_data",
                                                         covariance_type="diag", tol=1e-10,
                                                         max_iter=50, random_state=0),
                                         "multi", (2e-3, 1e-6)),
    "Nystroem": (Nystroem(n_components=10, random_state=0), "multi", (1e-4, 1e-9)),
    "MinMaxScaler": (MinMaxScaler(), "multi", (1e-5, 1e-12)),
    "MaxAbsScaler": (MaxAbsScaler(), "multi", (1e-5, 1e-12)),
    "StandardScaler": (StandardScaler(), "multi", (1e-5, 1e-12)),
    "Normalizer": (Normalizer(), "multi", (1e-5, 1e-12)),
    "Binarizer": (Binarizer(threshold=0.1), "multi", (1e-5, 1e-12)),
    "KernelCenterer": (KernelCenterer(), "kernel", (1e-4, 1e-10)),
    "LabelEncoder": (LabelEncoder(), "labels", (0, 0)),
    "PolynomialFeatures": (PolynomialFeatures(degree=2), "multi", (1e-5, 1e-12)),
    "CalibratedClassifierCV-temperature": (
        CalibratedClassifierCV(LogisticRegression(tol=1e-10), method="temperature", cv=2),
        "multi", (2e-3, 1e-6)),
    "GridSearchCV-Ridge": (model_selection.GridSearchCV(Ridge(solver="svd"), {"alpha": [0.1, 1.0]}),
                           "reg", (1e-4, 1e-9)),
    "RandomizedSearchCV-Ridge": (model_selection.RandomizedSearchCV(
        Ridge(solver="svd"), {"alpha": [0.1, 1.0, 3.0]}, n_iter=2, random_state=0), "reg", (1e-4, 1e-9)),
    "HalvingGridSearchCV-Ridge": (model_selection.HalvingGridSearchCV(
        Ridge(solver="svd"), {"alpha": [0.1, 1.0, 3.0]}), "reg", (1e-4, 1e-9)),
    "HalvingRandomSearchCV-Ridge": (model_selection.HalvingRandomSearchCV(
        Ridge(solver="svd"), {"alpha": [0.1, 1.0, 3.0]}, n_candidates=3, random_state=0), "reg", (1e-4, 1e-9)),
}

METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "transform",
           "score_samples", "score")
# Fitted attributes that legitimately differ between the NumPy and the array-API code paths.
NOT_COMPARED = {"n_iter_", "cv_results_", "refit_time_"}
# Outputs whose columns have an arbitrary sign (an SVD without scikit-learn's svd_flip).
SIGN_FREE = {"LinearDiscriminantAnalysis": {"scalings_", "transform"}}


def _fit_and_apply(name, X, y, attributes=None):
    """Fit a clone of estimator ``name``; {"name.attr": fitted array, "name.method": output}."""
    est, kind, _ = ESTIMATORS[name]
    est = clone(est)
    est.fit(X) if kind == "labels" else est.fit(X, y)
    if attributes is None:
        attributes = [k for k, v in vars(est).items()
                      if isinstance(v, np.ndarray) and v.dtype != object and k not in NOT_COMPARED]
    outs = {f"{name}.{k}": getattr(est, k) for k in attributes}
    for method in METHODS:
        if hasattr(est, method):
            out = outs[f"{name}.{method}"] = getattr(est, method)(*((X, y) if method == "score" else (X,)))
            if method == "transform" and hasattr(est, "inverse_transform"):
                outs[f"{name}.inverse_transform"] = est.inverse_transform(out)
    assert any(k.rsplit(".", 1)[1] in METHODS for k in outs), f"{name}: no method to compare"
    return outs, attributes


@pytest.mark.filterwarnings("ignore:Best performing initialization did not converge")
@pytest.mark.parametrize("name", ESTIMATORS)
def test_estimator_matches_numpy(name, dtype_name, device):
    _, kind, tols = ESTIMATORS[name]
    X, y = _data(kind, dtype_name)
    refs, attributes = _fit_and_apply(name, X, y)
    X_xp = xp.asarray(X, device=device)
    y_xp = None if y is None else xp.asarray(y, device=device)

    def run():
        with config_context(array_api_dispatch=True):
            return _fit_and_apply(name, X_xp, y_xp, attributes)[0]

    rtol = tols[dtype_name == "float64"]
    check_strided_run(run, refs, device, rtol, rtol * 10, SIGN_FREE.get(name, ()), X.dtype)


@pytest.mark.filterwarnings("ignore:Best performing initialization did not converge")
@pytest.mark.parametrize("name", [n for n in ESTIMATORS if n != "LabelEncoder"])
def test_estimator_passes_sklearns_own_array_api_check(name, dtype_name):
    # scikit-learn's common check, given our namespace by name: attributes and
    # outputs in the namespace of X, on its device, with NumPy's shapes and
    # dtypes; it also fits once without dispatch (np.asarray conversion path).
    from sklearn.utils.estimator_checks import check_array_api_input

    # Note: the check wants NumPy's dtypes, so it runs with NumPy's default float
    # (float64); test_estimator_matches_numpy covers our float32 default.
    with default_float64():
        check_array_api_input(name, ESTIMATORS[name][0], "strided", dtype_name=dtype_name)


def _raised_in(e: BaseException) -> str:
    """The module whose code raised ``e`` (its innermost frame's)."""
    tb = e.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_globals.get("__name__", "")


@pytest.mark.parametrize("cls", ["GammaRegressor", "TweedieRegressor"])
def test_glms_other_than_poisson_fit_as_numpy_or_fail_inside_scikit_learn(cls):
    """scikit-learn 1.9 tags only PoissonRegressor's lbfgs path as array-API; its other GLMs
    hand the arrays to a Cython loss (sklearn/_loss/loss.py) that takes buffers. Whether a
    namespace's arrays get through is scikit-learn's and Python's business: strided's CPU
    arrays serve the buffer protocol from Python 3.12 on (PEP 688), and then these fit (the
    H100 run's Python 3.12.3); on 3.11 they fail in the Cython loss ("ambiguous argument
    types"), as array-api-strict's fail in scikit-learn. strided's business: a fit gives
    NumPy's answer, and a refusal is not strided's own error."""
    import sklearn.linear_model as lm

    X, y = _data("poisson", "float64")
    strict = pytest.importorskip("array_api_strict")
    ref = getattr(lm, cls)().fit(X, y + 1.0)
    for m in (xp, strict):
        with config_context(array_api_dispatch=True):
            try:
                est = getattr(lm, cls)().fit(m.asarray(X), m.asarray(y + 1.0))
            except TypeError as e:
                assert not _raised_in(e).startswith("strided"), (m.__name__, e)
                continue
        if m is xp:
            np.testing.assert_allclose(_host(est.coef_), ref.coef_, rtol=1e-9)
            np.testing.assert_allclose(_host(est.intercept_), ref.intercept_, rtol=1e-9)


def test_label_encoder_round_trip(device):
    y = xp.asarray([10, 30, 20, 30, 10], device=device)
    with config_context(array_api_dispatch=True):
        enc = LabelEncoder().fit(y)
        codes = enc.transform(y)
        back = enc.inverse_transform(codes)
    assert type(codes) is xp.Array and codes.device == device
    assert _host(codes).tolist() == [0, 2, 1, 2, 0]
    assert _host(back).tolist() == [10, 30, 20, 30, 10] and back.device == device
    assert _host(enc.classes_).tolist() == [10, 20, 30]


# --- metrics ------------------------------------------------------------------------

RNG = np.random.default_rng(42)
N = 40
Y_BIN_TRUE = RNG.integers(0, 2, N)
Y_BIN_PRED = np.where(RNG.random(N) < 0.8, Y_BIN_TRUE, 1 - Y_BIN_TRUE)
Y_MC_TRUE = RNG.integers(0, 3, N)
Y_MC_PRED = np.where(RNG.random(N) < 0.7, Y_MC_TRUE, RNG.integers(0, 3, N))
Y_ML_TRUE = RNG.integers(0, 2, (N, 3))
Y_ML_PRED = np.where(RNG.random((N, 3)) < 0.8, Y_ML_TRUE, 1 - Y_ML_TRUE)
P_BIN = np.clip(0.7 * Y_BIN_TRUE + 0.3 * RNG.random(N), 0.02, 0.98)
_P = RNG.random((N, 3)) + 2.0 * np.eye(3)[Y_MC_TRUE]
P_MC = _P / _P.sum(axis=1, keepdims=True)
P_ML = np.clip(0.6 * Y_ML_TRUE + 0.4 * RNG.random((N, 3)), 0.02, 0.98)
Y_REG_TRUE = RNG.random(N) * 3 + 0.5
Y_REG_PRED = Y_REG_TRUE + RNG.normal(0, 0.3, N).clip(-0.4, 0.4)
Y_MO_TRUE = RNG.random((N, 2)) * 3 + 0.5
Y_MO_PRED = Y_MO_TRUE + RNG.normal(0, 0.3, (N, 2)).clip(-0.4, 0.4)
SW = RNG.random(N) + 0.5

# The first group of each name is the data; labels stay int64, floats take the dtype under test.
LABEL_DATA = {
    "binary": (Y_BIN_TRUE, Y_BIN_PRED),
    "multiclass": (Y_MC_TRUE, Y_MC_PRED),
    "multilabel": (Y_ML_TRUE, Y_ML_PRED),
}
PROBA_DATA = {
    "binary": (Y_BIN_TRUE, P_BIN),
    "multiclass": (Y_MC_TRUE, P_MC),
    "multilabel": (Y_ML_TRUE, P_ML),
}

avg = {"average": "macro"}
# metric id -> (function, data kinds, keyword arguments)
LABEL_METRICS = {
    "accuracy_score": (metrics.accuracy_score, ("binary", "multiclass", "multilabel"), {}),
    "balanced_accuracy_score": (metrics.balanced_accuracy_score, ("binary", "multiclass"), {}),
    "cohen_kappa_score": (metrics.cohen_kappa_score, ("binary", "multiclass"), {}),
    "confusion_matrix": (metrics.confusion_matrix, ("binary", "multiclass"), {}),
    "multilabel_confusion_matrix": (metrics.multilabel_confusion_matrix,
                                    ("binary", "multiclass", "multilabel"), {}),
    "f1_score": (metrics.f1_score, ("binary", "multiclass", "multilabel"), avg),
    "fbeta_score": (metrics.fbeta_score, ("binary", "multiclass", "multilabel"), dict(beta=0.5, average="macro")),
    "precision_score": (metrics.precision_score, ("binary", "multiclass", "multilabel"), avg),
    "recall_score": (metrics.recall_score, ("binary", "multiclass", "multilabel"), avg),
    "precision_recall_fscore_support": (metrics.precision_recall_fscore_support,
                                        ("binary", "multiclass", "multilabel"), {}),
    "jaccard_score": (metrics.jaccard_score, ("binary", "multiclass", "multilabel"), avg),
    "hamming_loss": (metrics.hamming_loss, ("binary", "multiclass", "multilabel"), {}),
    "zero_one_loss": (metrics.zero_one_loss, ("binary", "multiclass", "multilabel"), {}),
}
PROBA_METRICS = {
    "brier_score_loss": (metrics.brier_score_loss, ("binary", "multiclass"), {}),
    "log_loss": (metrics.log_loss, ("binary", "multiclass", "multilabel"), {}),
    "d2_brier_score": (metrics.d2_brier_score, ("binary", "multiclass"), {}),
    "d2_log_loss_score": (metrics.d2_log_loss_score, ("binary", "multiclass"), {}),
    # Note: drop_intermediate=True (the default) fails on any namespace that follows the
    # standard; see test_roc_curve_drop_intermediate_peer_bug below.
    "roc_curve": (metrics.roc_curve, ("binary",), dict(drop_intermediate=False)),
    "precision_recall_curve": (metrics.precision_recall_curve, ("binary",), {}),
    "det_curve": (metrics.det_curve, ("binary",), {}),
    "average_precision_score": (metrics.average_precision_score, ("binary", "multilabel"), {}),
}
REGRESSION_METRICS = {
    "explained_variance_score": (metrics.explained_variance_score, True, {}),
    "max_error": (metrics.max_error, False, {}),
    "mean_absolute_error": (metrics.mean_absolute_error, True, {}),
    "mean_absolute_percentage_error": (metrics.mean_absolute_percentage_error, True, {}),
    "mean_gamma_deviance": (metrics.mean_gamma_deviance, False, {}),
    "mean_pinball_loss": (metrics.mean_pinball_loss, True, dict(alpha=0.3)),
    "mean_poisson_deviance": (metrics.mean_poisson_deviance, False, {}),
    "mean_squared_error": (metrics.mean_squared_error, True, {}),
    "mean_squared_log_error": (metrics.mean_squared_log_error, True, {}),
    "mean_tweedie_deviance": (metrics.mean_tweedie_deviance, False, dict(power=1.5)),
    "mean_tweedie_deviance-negative_power": (metrics.mean_tweedie_deviance, False, dict(power=-0.5)),
    "median_absolute_error": (metrics.median_absolute_error, True, {}),
    "r2_score": (metrics.r2_score, True, {}),
    "root_mean_squared_error": (metrics.root_mean_squared_error, True, {}),
    "root_mean_squared_log_error": (metrics.root_mean_squared_log_error, True, {}),
    "d2_tweedie_score": (metrics.d2_tweedie_score, False, dict(power=1.5)),
    "d2_absolute_error_score": (metrics.d2_absolute_error_score, True, {}),
    "d2_pinball_score": (metrics.d2_pinball_score, True, dict(alpha=0.9)),
}


def _metric_tol(dtype_name):
    return (2e-5, 1e-6) if dtype_name == "float32" else (1e-9, 1e-12)


def _run_metric(func, args_np, kwargs, device, dtype_name, what):
    args_xp = tuple(xp.asarray(a, device=device) for a in args_np)
    kw_xp = {k: xp.asarray(v, device=device) if isinstance(v, np.ndarray) else v
             for k, v in kwargs.items()}
    refs = {what: func(*args_np, **kwargs)}

    def run():
        with config_context(array_api_dispatch=True):
            return {what: func(*args_xp, **kw_xp)}

    floats = [a.dtype for a in (*args_np, *kwargs.values()) if getattr(getattr(a, "dtype", None), "kind", "") == "f"]
    rtol, atol = (2e-5, 1e-6) if dtype_name == "float32" else (1e-9, 1e-12)
    check_strided_run(run, refs, device, rtol, atol, input_float=np.result_type(*floats) if floats else None)


def _label_cases():
    for name, (f, kinds, kw) in LABEL_METRICS.items():
        for k in kinds:
            yield pytest.param(name, k, id=f"{name}-{k}")


def _proba_cases():
    for name, (f, kinds, kw) in PROBA_METRICS.items():
        for k in kinds:
            yield pytest.param(name, k, id=f"{name}-{k}")


@pytest.mark.parametrize("name,kind", list(_label_cases()))
def test_label_metric_matches_numpy(name, kind, dtype_name, device):
    func, _, kwargs = LABEL_METRICS[name]
    y_true, y_pred = LABEL_DATA[kind]
    if kind == "binary" and "average" in kwargs:
        kwargs = {**kwargs, "average": "binary"}
    _run_metric(func, (y_true, y_pred), kwargs, device, dtype_name, name)
    _run_metric(func, (y_true, y_pred), {**kwargs, "sample_weight": SW.astype(dtype_name)},
                device, dtype_name, f"{name}(sample_weight)")


@pytest.mark.filterwarnings("ignore:The y_prob values do not sum to one")  # multilabel
@pytest.mark.parametrize("name,kind", list(_proba_cases()))
def test_probability_metric_matches_numpy(name, kind, dtype_name, device):
    func, _, kwargs = PROBA_METRICS[name]
    y_true, proba = PROBA_DATA[kind]
    _run_metric(func, (y_true, proba.astype(dtype_name)), kwargs, device, dtype_name, name)
    _run_metric(func, (y_true, proba.astype(dtype_name)),
                {**kwargs, "sample_weight": SW.astype(dtype_name)}, device, dtype_name,
                f"{name}(sample_weight)")


# Calls that scikit-learn 1.9 makes outside the standard, so they fail on every
# namespace that follows it (array-api-strict fails the same way); recorded in
# docs/ecosystem.md. These tests tell us when scikit-learn changes them.
PEER_BUGS = {
    # sklearn/metrics/_ranking.py: xp.diff(fps, 2); the standard's n is keyword-only
    "roc_curve-drop_intermediate": (
        lambda a, b: metrics.roc_curve(a, b), "diff\\(\\) takes 1 positional argument"),
    # sklearn/metrics/_ranking.py: xp.logical_or on float arrays; the standard's is boolean
    "precision_recall_curve-drop_intermediate": (
        lambda a, b: metrics.precision_recall_curve(a, b, drop_intermediate=True),
        "logical_or\\(\\) accepts only boolean"),
}


@pytest.mark.parametrize("name", PEER_BUGS)
def test_known_scikit_learn_calls_outside_the_standard(name):
    call, message = PEER_BUGS[name]
    y_true, proba = PROBA_DATA["binary"]
    with config_context(array_api_dispatch=True):
        with pytest.raises(TypeError, match=message):
            call(xp.asarray(y_true), xp.asarray(proba))
        strict = pytest.importorskip("array_api_strict")
        with pytest.raises(TypeError):
            call(strict.asarray(y_true), strict.asarray(proba))


def test_contingency_matrix_is_numpy_only_in_this_scikit_learn():
    # Listed on scikit-learn's Array API page (dev docs) but 1.9 computes it with
    # np.unique (sklearn/metrics/cluster/_supervised.py) and returns NumPy for any namespace.
    y_true, y_pred = LABEL_DATA["multiclass"]
    strict = pytest.importorskip("array_api_strict")
    with config_context(array_api_dispatch=True):
        ours = metrics.cluster.contingency_matrix(xp.asarray(y_true), xp.asarray(y_pred))
        theirs = metrics.cluster.contingency_matrix(strict.asarray(y_true), strict.asarray(y_pred))
    assert type(ours) is np.ndarray and type(theirs) is np.ndarray
    np.testing.assert_array_equal(ours, metrics.cluster.contingency_matrix(y_true, y_pred))


@pytest.mark.parametrize("name", REGRESSION_METRICS)
def test_regression_metric_matches_numpy(name, dtype_name, device):
    func, multioutput, kwargs = REGRESSION_METRICS[name]
    dt = dtype_name
    _run_metric(func, (Y_REG_TRUE.astype(dt), Y_REG_PRED.astype(dt)), kwargs, device, dt, name)
    if name != "max_error":
        _run_metric(func, (Y_REG_TRUE.astype(dt), Y_REG_PRED.astype(dt)),
                    {**kwargs, "sample_weight": SW.astype(dt)}, device, dt, f"{name}(sample_weight)")
    if multioutput:
        for mo in ("raw_values", "uniform_average", np.array([0.3, 0.7])):
            _run_metric(func, (Y_MO_TRUE.astype(dt), Y_MO_PRED.astype(dt)),
                        {**kwargs, "multioutput": mo.astype(dt) if isinstance(mo, np.ndarray) else mo},
                        device, dt, f"{name}(multioutput={mo})")


# --- pairwise -------------------------------------------------------------------------

PX = RNG.random((10, 4)) + 0.1
PY = RNG.random((7, 4)) + 0.1
PAIRWISE = {
    "additive_chi2_kernel": (pairwise.additive_chi2_kernel, {}),
    "chi2_kernel": (pairwise.chi2_kernel, dict(gamma=0.5)),
    "cosine_similarity": (pairwise.cosine_similarity, {}),
    "cosine_distances": (pairwise.cosine_distances, {}),
    "euclidean_distances": (pairwise.euclidean_distances, {}),
    "euclidean_distances-squared": (pairwise.euclidean_distances, dict(squared=True)),
    "manhattan_distances": (pairwise.manhattan_distances, {}),
    "linear_kernel": (pairwise.linear_kernel, {}),
    "laplacian_kernel": (pairwise.laplacian_kernel, dict(gamma=0.3)),
    "polynomial_kernel": (pairwise.polynomial_kernel, dict(degree=2, coef0=0.5)),
    "rbf_kernel": (pairwise.rbf_kernel, dict(gamma=0.7)),
    "sigmoid_kernel": (pairwise.sigmoid_kernel, dict(gamma=0.2)),
    "pairwise_distances_argmin": (pairwise.pairwise_distances_argmin, {}),
    "paired_cosine_distances": (pairwise.paired_cosine_distances, {}),
    "paired_euclidean_distances": (pairwise.paired_euclidean_distances, {}),
    "paired_manhattan_distances": (pairwise.paired_manhattan_distances, {}),
}
for _m in ("cosine", "euclidean", "l2", "manhattan", "l1", "cityblock"):
    PAIRWISE[f"pairwise_distances-{_m}"] = (pairwise.pairwise_distances, dict(metric=_m))
for _m in ("linear", "poly", "polynomial", "rbf", "sigmoid", "cosine", "chi2", "additive_chi2"):
    PAIRWISE[f"pairwise_kernels-{_m}"] = (pairwise.pairwise_kernels, dict(metric=_m))


@pytest.mark.parametrize("name", PAIRWISE)
def test_pairwise_matches_numpy(name, dtype_name, device):
    func, kwargs = PAIRWISE[name]
    Y = PX[::-1][:, ::-1] if name.startswith("paired") else PY
    _run_metric(func, (PX.astype(dtype_name), Y.astype(dtype_name)), kwargs, device, dtype_name, name)
    if not name.startswith(("paired", "pairwise_distances_argmin")):
        _run_metric(func, (PX.astype(dtype_name),), kwargs, device, dtype_name, f"{name}(X)")


# --- tools ----------------------------------------------------------------------------

def test_train_test_split_keeps_arrays_on_device(dtype_name, device):
    X, y = _classification()
    X_xp, y_xp = xp.asarray(X.astype(dtype_name), device=device), xp.asarray(y, device=device)
    ref = model_selection.train_test_split(X.astype(dtype_name), y, test_size=0.25, random_state=0)
    with config_context(array_api_dispatch=True):
        out = model_selection.train_test_split(X_xp, y_xp, test_size=0.25, random_state=0)
    cmp = Compare(device, 0, 0, strict_dtype=True)
    for o, r in zip(out, ref):
        cmp(o, r, "train_test_split")


def test_cross_val_predict_matches_numpy(dtype_name, device):
    X, y = _data("reg", dtype_name)
    ref = model_selection.cross_val_predict(Ridge(solver="svd"), X, y, cv=3)
    with config_context(array_api_dispatch=True):
        out = model_selection.cross_val_predict(Ridge(solver="svd"), xp.asarray(X, device=device),
                                                xp.asarray(y, device=device), cv=3)
    rtol = 1e-4 if dtype_name == "float32" else 1e-9
    Compare(device, rtol, rtol, strict_dtype=True)(out, ref, "cross_val_predict")


def test_check_consistent_length(device):
    from sklearn.utils import check_consistent_length

    a, b = xp.zeros(5, device=device), xp.ones((5, 2), device=device)
    with config_context(array_api_dispatch=True):
        check_consistent_length(a, b)
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            check_consistent_length(a, xp.ones(4, device=device))


# --- mixed inputs: scikit-learn moves the others to X's / y_pred's namespace ---------------
# (sklearn/utils/_array_api.py move_to: xp.from_dlpack(x, device=...) both ways)

def test_mixed_namespaces_follow_x_and_y_pred(device):
    X, y = _data("reg", "float64")
    with config_context(array_api_dispatch=True):
        est = Ridge(solver="svd").fit(xp.asarray(X, device=device), y)  # y stays NumPy
        pred = est.predict(xp.asarray(X, device=device))
        score = metrics.r2_score(y, pred)                               # y_true NumPy, y_pred ours
        errors = metrics.mean_absolute_error(y, pred, multioutput="raw_values")
        back_np = metrics.mean_squared_error(_host(pred), xp.asarray(y, device=device))
    ref = Ridge(solver="svd").fit(X, y)
    assert type(est.coef_) is xp.Array and est.coef_.device == device
    np.testing.assert_allclose(_host(pred), ref.predict(X), rtol=1e-9)
    assert score == pytest.approx(metrics.r2_score(y, ref.predict(X)), rel=1e-9)
    assert type(errors) is xp.Array and errors.device == device
    assert back_np == pytest.approx(metrics.mean_squared_error(ref.predict(X), y), rel=1e-9)


# --- devices: NumPy's "cpu" and strided's Device("cpu") are one device -----------------------

def test_sklearn_device_check_accepts_numpy_and_strided_on_the_cpu():
    from sklearn.utils._array_api import device as sk_device

    with config_context(array_api_dispatch=True):
        d = sk_device(np.zeros(2), xp.zeros(2), xp.ones(3))
    assert d == "cpu" and d == xp.Device("cpu")


def test_kmeans_fits_strided_input():
    # KMeans is not on scikit-learn 1.9's array-API list: without dispatch it converts
    # strided input with np.asarray (zero-copy) and fits as on NumPy.
    from sklearn.cluster import KMeans

    X, _ = _classification()
    ref = KMeans(3, n_init=2, random_state=0).fit(X)
    ours = KMeans(3, n_init=2, random_state=0).fit(xp.asarray(X))
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-12)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-12)


@pytest.mark.filterwarnings("ignore:You are comparing a array_api_strict dtype")
def test_kmeans_with_dispatch_gets_past_the_device_check_then_fails_in_scikit_learn():
    # With array_api_dispatch=True, 1.9's KMeans keeps X in its namespace but builds
    # its centres with NumPy (sklearn/cluster/_kmeans.py, _kmeans_plusplus) and passes both
    # to one array-API function: "Multiple namespaces". The device check before it
    # ("Input arrays use different devices: cpu, cpu") no longer fails. array-api-strict
    # and PyTorch fail earlier (np.float64 given as a dtype to their asarray/isdtype).
    from sklearn.cluster import KMeans

    X, _ = _classification()
    with config_context(array_api_dispatch=True):
        with pytest.raises(TypeError, match="Multiple namespaces"):
            KMeans(3, n_init=2, random_state=0).fit(xp.asarray(X))
        strict = pytest.importorskip("array_api_strict")
        with pytest.raises(TypeError):
            KMeans(3, n_init=2, random_state=0).fit(strict.asarray(X))
