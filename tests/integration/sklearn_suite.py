"""scikit-learn's own array-API tests, run with one namespace plugged in.

scikit-learn parametrizes its array-API tests by namespace name
(``sklearn.utils._array_api.yield_namespace_device_dtype_combinations``) and
imports the namespace by that name (``sklearn.utils._testing._array_api_for_tests``).
This pytest plugin makes those generators yield one namespace, chosen by
``SKLEARN_SUITE_NAMESPACE``, under the settings scikit-learn gives a library it
does not know: the default device (``None``), float64 and float32. Run

    python tests/integration/sklearn_suite.py strided            # or array_api_strict
    python tests/integration/sklearn_suite.py strided -- -x -q  # extra pytest arguments

to compare namespaces under the same settings (docs/ecosystem.md has the counts).
It runs every test module of the installed scikit-learn that uses those
generators (``FILES``), selecting the tests whose id names the namespace.
"""

from __future__ import annotations

import os
import subprocess
import sys

FILES = [
    "decomposition/tests/test_pca.py",
    "metrics/tests/test_classification.py",
    "metrics/tests/test_common.py",
    "metrics/tests/test_pairwise.py",
    "metrics/cluster/tests/test_common.py",
    "metrics/cluster/tests/test_supervised.py",
    "_loss/tests/test_loss.py",
    "_loss/tests/test_link.py",
    "preprocessing/tests/test_polynomial.py",
    "preprocessing/tests/test_data.py",
    "preprocessing/tests/test_label.py",
    "tests/test_pipeline.py",
    "tests/test_calibration.py",
    "tests/test_kernel_approximation.py",
    "tests/test_naive_bayes.py",
    "tests/test_discriminant_analysis.py",
    "tests/test_common.py",
    "mixture/tests/test_gaussian_mixture.py",
    "utils/tests/test_array_api.py",
    "utils/tests/test_validation.py",
    "utils/tests/test_multiclass.py",
    "utils/tests/test_indexing.py",
    "utils/tests/test_extmath.py",
    "utils/tests/test_optimize.py",
    "utils/tests/test_stats.py",
    "linear_model/tests/test_logistic.py",
    "linear_model/tests/test_ridge.py",
    "linear_model/_glm/tests/test_glm.py",
    "model_selection/tests/test_split.py",
    "model_selection/tests/test_search.py",
    "model_selection/tests/test_validation.py",
]


class _Yielded(str):
    """The namespace name as the generators yield it: tests that name a namespace
    themselves (array-api-strict in a few) are left out, so every namespace runs
    the same tests."""


def _namespace() -> _Yielded:
    return _Yielded(os.environ["SKLEARN_SUITE_NAMESPACE"])


def _yielded(item) -> bool:
    params = getattr(getattr(item, "callspec", None), "params", {})
    for v in params.values():
        if type(v) is _Yielded or type(getattr(v, "keywords", {}).get("array_namespace")) is _Yielded:
            return True
    return False


def pytest_collection_modifyitems(config, items):
    keep = [it for it in items if _yielded(it)]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[it for it in items if not _yielded(it)])
        items[:] = keep


def pytest_configure(config):
    from sklearn.utils import _array_api

    ns = _namespace()

    def yield_namespaces(include_numpy_namespaces=True):
        yield ns

    def yield_namespace_device_dtype_combinations(include_numpy_namespaces=True):
        yield ns, None, "float64"
        yield ns, None, "float32"

    def yield_mixed_namespace_input_permutations():
        return iter(())

    _array_api.yield_namespaces = yield_namespaces
    _array_api.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations
    _array_api.yield_mixed_namespace_input_permutations = yield_mixed_namespace_input_permutations
    # Modules that imported the generators before this plugin ran (estimator_checks).
    for mod in list(sys.modules.values()):
        for name, fn in (("yield_namespaces", yield_namespaces),
                         ("yield_namespace_device_dtype_combinations",
                          yield_namespace_device_dtype_combinations),
                         ("yield_mixed_namespace_input_permutations",
                          yield_mixed_namespace_input_permutations)):
            if getattr(mod, "__name__", "").startswith("sklearn") and hasattr(mod, name):
                setattr(mod, name, fn)


def main(argv: list[str]) -> int:
    ns, extra = argv[0], argv[1:]
    if extra[:1] == ["--"]:
        extra = extra[1:]
    import sklearn

    root = os.path.dirname(sklearn.__file__)
    env = dict(os.environ, SKLEARN_SUITE_NAMESPACE=ns, SCIPY_ARRAY_API="1")
    here = os.path.dirname(os.path.abspath(__file__))
    # (absolute: pytest runs in scikit-learn's folder)
    paths = [here] + [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    files = [os.path.join(root, f) for f in FILES if os.path.exists(os.path.join(root, f))]
    import strided

    print(f"== scikit-learn {sklearn.__version__}'s array-API tests on {ns} "
          f"(strided from {os.path.dirname(strided.__file__)})", flush=True)
    cmd = [sys.executable, "-m", "pytest", "-p", "sklearn_suite", "-p", "no:cacheprovider",
           "--rootdir", root, "-k", ns, "-q", "-W", "ignore", *files, *extra]
    return subprocess.call(cmd, env=env, cwd=root)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
