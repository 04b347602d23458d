"""A scikit-learn pipeline on strided arrays: StandardScaler + PCA + LinearDiscriminantAnalysis.

scikit-learn finds our namespace through ``array_api_compat.array_namespace(X)``
once array API dispatch is on, runs every step with ``strided`` functions, and
hands back strided arrays (fitted attributes included) on the input's device.
The same pipeline on NumPy arrays gives the same predictions.

Run it with ``python examples/sklearn_pipeline.py``.
"""

from __future__ import annotations

import os

# SciPy and scikit-learn read this once, when SciPy is first imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import strided as xp  # noqa: E402


def pipeline():
    return make_pipeline(StandardScaler(), PCA(n_components=5, svd_solver="full"),
                         LinearDiscriminantAnalysis())


def main() -> None:
    X_np, y_np = make_classification(n_samples=400, n_features=12, n_informative=6,
                                     n_redundant=4, n_classes=3, class_sep=1.5, random_state=0)
    X = xp.asarray(X_np, dtype=xp.float32)   # shares memory with a float32 copy of X_np
    y = xp.asarray(y_np)

    with sklearn.config_context(array_api_dispatch=True):
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
        model = pipeline().fit(X_train, y_train)
        predicted = model.predict(X_test)
        proba = model.predict_proba(X_test)
        accuracy = model.score(X_test, y_test)
        components = model.named_steps["pca"].components_

    print("input      :", type(X_train).__name__, X_train.dtype, X_train.device, tuple(X_train.shape))
    print("predict    :", type(predicted).__name__, predicted.dtype, tuple(predicted.shape))
    print("proba      :", type(proba).__name__, proba.dtype, tuple(proba.shape))
    print("PCA.components_:", type(components).__name__, components.dtype, tuple(components.shape))
    print(f"accuracy   : {accuracy:.3f}")

    # The same pipeline on NumPy, for comparison.
    Xn_train, Xn_test, yn_train, yn_test = train_test_split(
        X_np.astype(np.float32), y_np, test_size=0.25, random_state=0)
    reference = pipeline().fit(Xn_train, yn_train)
    same = np.array_equal(reference.predict(Xn_test), np.asarray(predicted))
    gap = float(np.max(np.abs(reference.predict_proba(Xn_test) - np.asarray(proba))))
    print(f"same predictions as NumPy: {same}; largest probability difference: {gap:.1e}")


if __name__ == "__main__":
    main()
