"""Import paths of PyTorch programs under strided.torch: ``import torch.autograd``,
``from torch.autograd import Variable``, ``import torch.functional as F``,
``from torch.nn.modules.loss import _Loss``, ... Each imports, is the same object as the
attribute spelling, and offers the names a PyTorch program imports from it (checked against
PyTorch 2.13 when installed); the paths strided lacks raise ImportError saying so."""

from __future__ import annotations

import importlib
import io
import warnings

import pytest

import strided
import strided.torch as storch

PATHS = {  # path -> names a program imports from it (all in PyTorch's module too)
    "autograd": ["Variable", "Function", "grad", "backward", "no_grad", "enable_grad", "set_grad_enabled",
                 "inference_mode", "gradcheck", "gradgradcheck", "detect_anomaly", "set_detect_anomaly",
                 "functional", "graph", "function", "grad_mode", "variable"],
    "autograd.functional": ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"],
    "autograd.graph": ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"],
    "autograd.function": ["Function", "FunctionCtx", "InplaceFunction", "once_differentiable"],
    "autograd.grad_mode": ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"],
    "autograd.anomaly_mode": ["detect_anomaly", "set_detect_anomaly"],
    "autograd.variable": ["Variable"],
    "autograd.profiler": ["record_function"],
    "functional": ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
                   "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm",
                   "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot", "unique",
                   "unique_consecutive", "unravel_index"],
    "serialization": ["save", "load"],
    "types": ["Number", "Device", "FileLike", "Storage"],
    "__future__": ["get_overwrite_module_params_on_conversion", "get_swap_module_params_on_conversion",
                   "set_overwrite_module_params_on_conversion", "set_swap_module_params_on_conversion"],
    "utils.hooks": ["RemovableHandle"],
    "nn.modules": ["Module", "Linear", "Conv2d", "LSTM", "CrossEntropyLoss", "Sequential"],
    "nn.modules.module": ["Module"],
    "nn.modules.loss": ["_Loss", "_WeightedLoss", "MSELoss", "CrossEntropyLoss", "NLLLoss"],
    "nn.modules.linear": ["Linear", "Identity", "Bilinear"],
    "nn.modules.conv": ["Conv1d", "Conv2d", "ConvTranspose2d", "_ConvNd"],
    "nn.modules.activation": ["ReLU", "Softmax", "MultiheadAttention"],
    "nn.modules.container": ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"],
    "nn.modules.batchnorm": ["BatchNorm1d", "BatchNorm2d", "_BatchNorm", "_NormBase"],
    "nn.modules.dropout": ["Dropout", "_DropoutNd"],
    "nn.modules.pooling": ["MaxPool2d", "AvgPool2d", "_MaxPoolNd"],
    "nn.modules.rnn": ["RNNBase", "LSTM", "GRU", "RNNCellBase"],
    "nn.modules.sparse": ["Embedding", "EmbeddingBag"],
    "nn.modules.normalization": ["LayerNorm", "GroupNorm"],
    "nn.modules.transformer": ["Transformer", "TransformerEncoderLayer"],
    "nn.modules.flatten": ["Flatten", "Unflatten"],
    "nn.modules.padding": ["ZeroPad2d", "ConstantPad1d"],
    "nn.modules.pixelshuffle": ["PixelShuffle", "PixelUnshuffle"],
    "nn.modules.upsampling": ["Upsample"],
    "nn.modules.distance": ["PairwiseDistance", "CosineSimilarity"],
    "nn.modules.utils": ["_single", "_pair", "_triple", "_ntuple"],
    "nn.modules.lazy": ["LazyModuleMixin"],
}


def _attr(path):
    obj = storch
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("path", sorted(PATHS))
def test_imports_and_is_the_attribute(path):
    mod = importlib.import_module("strided.torch." + path)
    assert _attr(path) is mod
    for name in PATHS[path]:
        assert hasattr(mod, name), (path, name)


@pytest.mark.parametrize("path", sorted(PATHS))
def test_names_exist_in_pytorch(path):
    torch = pytest.importorskip("torch")
    ref = importlib.import_module("torch." + path)
    missing = [n for n in PATHS[path] if not hasattr(ref, n)]
    assert not missing, (path, missing)
    # every name of PyTorch's __all__ strided has is the strided.torch object of that name
    for name in getattr(importlib.import_module("strided.torch." + path), "__all__", ()):
        assert hasattr(ref, name), (path, name)


def test_same_objects_as_strided_torch():
    import strided.torch.functional as F
    import strided.torch.nn.modules.loss as L
    from strided.torch.autograd import grad, functional
    assert grad is storch.autograd.grad is strided.autograd.grad
    assert functional.jacobian is strided.autograd.functional.jacobian
    assert F.einsum is storch.einsum and F.split is storch.split and F.norm is storch.norm
    assert L.MSELoss is storch.nn.MSELoss and L._Loss is storch.nn.modules._Loss
    assert issubclass(storch.nn.MSELoss, L._Loss)
    assert storch.nn.modules.Conv2d is storch.nn.Conv2d
    from strided.torch.serialization import load, save
    f = io.BytesIO()
    save({"w": storch.ones(2)}, f)
    f.seek(0)
    assert load(f)["w"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("path, name", [("serialization", "add_safe_globals"), ("autograd", "forward_ad"),
                                        ("autograd.profiler", "profile"), ("nn.modules", "NoSuchLayer"),
                                        ("utils", "bottleneck")])
def test_missing_names_say_so(path, name):
    with pytest.raises(AttributeError, match="strided.torch has no|strided supports only"):
        getattr(_attr(path), name)
    with pytest.raises(ImportError):
        exec(f"from strided.torch.{path} import {name}", {})  # noqa: S102


def test_forward_ad_import_raises():
    with pytest.raises(ImportError, match="strided.torch.autograd.forward_ad"):
        importlib.import_module("strided.torch.autograd.forward_ad")


def _variable_cases(lib):
    V = lib.autograd.Variable
    t = lib.ones(3)
    out = {}
    v = V(t, requires_grad=True)
    out["rg"] = (v.requires_grad, v.is_leaf, v.grad_fn is None, v is t, t.requires_grad)
    t.add_(1)  # shares the memory and version counter
    out["shared"] = (v.tolist(), v._version == t._version)
    out["pos"] = V(t, True).requires_grad
    y = (t * 2).requires_grad_() * 3
    out["nonleaf"] = (V(y).requires_grad, V(y).grad_fn is None, V(y).is_leaf)
    out["empty"] = (tuple(V().shape), V().dtype == lib.float32)
    out["isinstance"] = (isinstance(t, V), isinstance(y, V), isinstance([1.0], V))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out["volatile"] = (V(t, volatile=True).requires_grad, [str(x.message) for x in w],
                           [x.category for x in w])
    for bad in ([1.0], lib.ones(2, dtype=lib.int64)):
        try:
            V(bad, requires_grad=True)
        except (TypeError, RuntimeError) as e:
            out.setdefault("errors", []).append(type(e))
    (V(lib.ones(2), requires_grad=True) * 2).sum().backward()
    return out


def test_variable_against_pytorch():
    torch = pytest.importorskip("torch")
    assert _variable_cases(storch) == _variable_cases(torch)


def test_future_flags_and_swap_tensors():
    fut = importlib.import_module("strided.torch.__future__")
    assert fut.get_overwrite_module_params_on_conversion() is False
    assert fut.get_swap_module_params_on_conversion() is False
    fut.set_overwrite_module_params_on_conversion(False)
    fut.set_swap_module_params_on_conversion(False)
    for setter in (fut.set_overwrite_module_params_on_conversion, fut.set_swap_module_params_on_conversion):
        with pytest.raises(NotImplementedError, match="keeps each parameter"):
            setter(True)
    with pytest.raises(NotImplementedError, match="no torch.utils.swap_tensors"):
        storch.utils.swap_tensors(storch.ones(2), storch.zeros(2))


def test_removable_handle_and_record_function():
    from strided.torch.autograd.profiler import record_function
    from strided.torch.utils.hooks import RemovableHandle
    m = storch.nn.Linear(2, 2)
    seen = []
    h = m.register_forward_hook(lambda mod, i, o: seen.append(1))
    assert isinstance(h, RemovableHandle)
    with record_function("fwd"):
        m(storch.ones(2))
    h.remove()
    m(storch.ones(2))
    assert seen == [1]


def test_star_import_does_not_shadow_python_modules():
    ns = {}
    exec("from strided.torch import *", ns)  # noqa: S102
    assert "types" not in ns and "functional" not in ns and "autograd" in ns


@pytest.mark.parametrize("path", ["cuda.amp", "cpu.amp"])
def test_the_deprecated_amp_modules_import(path):
    mod = importlib.import_module("strided.torch." + path)
    parent, _, leaf = path.partition(".")
    assert mod is getattr(getattr(storch, parent), leaf)
    for name in ("autocast", "GradScaler"):
        assert hasattr(mod, name)
    pytest.importorskip("torch")
    want = importlib.import_module("torch." + path)
    for name in ("autocast", "GradScaler"):
        assert hasattr(want, name)
