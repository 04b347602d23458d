"""The layout of the PyTorch surface (DESIGN, fourth round): ``strided/torch/`` holds the
``strided.torch`` namespace, ``nn``, ``optim`` and, as private modules, what ``strided``
itself imports (``_methods``, ``_composites``, ``_random``, ``_repr``, ``_inplace_views``).

``strided`` imports those half-way through its own initialisation, so ``strided.torch``
reads strided's namespace lazily. Each check runs in a fresh interpreter (the import
order is the point): every way in gives the same namespace, PyTorch's meanings win over
the standard's, star-import and ``dir`` see every name, pickles of arrays, functions and
modules round-trip, and pickles that name the old ``strided._torch.*`` modules load.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import strided
import strided.torch as storch

SRC = str(Path(strided.__file__).resolve().parents[1])


def _run(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_no_private_torch_folder_and_the_modules_live_under_torch():
    pkg = Path(strided.__file__).parent
    assert not (pkg / "_torch").exists()
    for m in ("_methods", "_composites", "_random", "_repr", "_inplace_views", "_functions"):
        assert (pkg / "torch" / f"{m}.py").exists(), m
    assert strided.clamp.__module__ == "strided.torch._composites"
    assert strided.manual_seed.__module__ == "strided.torch._random"


@pytest.mark.parametrize("code", [
    "import strided; print(strided.Array.relu_.__name__, strided.zeros(2).median().item())",
    "import strided.torch as t; print(t.nn.Linear.__name__, t.optim.SGD.__name__, t.cuda.device_count() >= 0)",
    "import strided.torch.nn as nn; import strided.torch as t; print(nn.ReLU()(t.tensor([-1.0, 2.0])).tolist())",
    "import strided.torch.optim as o; print(o.Adam.__name__)",
    "from strided.torch import *; print(max(tensor([[1, 5], [7, 2]]), 1).indices.tolist(), nn.Linear.__name__, "
    "std(tensor([1.0, 2.0, 3.0])).item(), Tensor.__name__, float32)",
    "from strided.torch.nn import functional as F; import strided as s; print(F.gelu(s.asarray([0.0])).tolist())",
])
def test_every_way_in(code):
    out = _run(code)
    assert out and "Error" not in out


def test_pytorch_meanings_win_and_everything_else_is_strideds():
    out = _run("import strided as s, strided.torch as t\n"
               "print(t.max is not s.max, t.std is not s.std, t.sum is not s.sum, t.Tensor is not s.Tensor,\n"
               "      t._keyword_names.unnamed(t.isnan) is s.isnan, t.float32 is s.float32, t.linalg is not s.linalg,\n"
               "      t.is_tensor(s.ones(1)))\n"
               "print(t.std(t.tensor([1.0, 2.0, 3.0])).item(), t.max(t.tensor([[1, 5]]), 1).values.tolist(),\n"
               "      t.exp(t.tensor([0])).dtype is t.float32)")
    # (t.isnan: strided's, behind the door that takes PyTorch's ``input=``: _keyword_names)
    first, second = out.splitlines()
    assert first == "True True True True True True True True"
    assert second == "1.0 [5] True"  # (torch.exp of an integer tensor: PyTorch's float32)


def test_all_and_dir_list_the_whole_namespace():
    names = set(storch.__all__)
    assert {"nn", "optim", "cuda", "Tensor", "mode", "max", "std", "zeros", "float32", "linalg",
            "set_printoptions", "return_types", "gelu"} <= names
    assert not any(n.startswith("_") for n in names) and "torch" not in names and "annotations" not in names
    assert names <= set(dir(storch))
    for n in sorted(names):
        getattr(storch, n)  # every listed name resolves
    with pytest.raises(AttributeError):
        storch.no_such_name
    with pytest.raises(AttributeError):
        storch._no_such_private


def test_pickles_round_trip():
    x = storch.arange(12.0).reshape(3, 4)[:, 1::2]
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == x.tolist()
    net = storch.nn.Sequential(storch.nn.Linear(2, 3), storch.nn.LeakyReLU(0.2), storch.nn.GELU("tanh"))
    net2 = pickle.loads(pickle.dumps(net))
    assert repr(net2) == repr(net)
    inp = storch.ones(1, 2)
    assert net2(inp).tolist() == net(inp).tolist()
    for f in (storch.max, storch.clamp, strided.leaky_relu, storch.nn.functional.gelu, storch.add, storch.where):
        assert pickle.loads(pickle.dumps(f)) is f


def test_pickles_naming_the_old_modules_load():
    # (written before _torch/ moved: GLOBAL opcodes naming strided._torch.<module>)
    for old, name, new in (("functions", "clamp", strided.clamp), ("random", "manual_seed", strided.manual_seed)):
        data = b"\x80\x04c" + f"strided._torch.{old}\n{name}\n".encode() + b"."
        assert pickle.loads(data) is new
    out = _run("import pickle; print(pickle.loads(b'\\x80\\x04cstrided._torch.functions\\nclamp\\n.').__name__)")
    assert out == "clamp"
