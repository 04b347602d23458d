"""docs/torch-parity.md from the live code: which of PyTorch's most used names strided has.

``python docs/_tools/torch_parity.py`` rewrites the page from the list in
docs/_data/torch_top150.txt. For each name the page shows what the code says,
nothing typed by hand but the notes below:

- whether ``strided.<name>`` (or the ``Array`` method) exists, and its
  ``inspect.signature`` (what the API reference shows too);
- whether ``strided.torch`` has it (that package is optional here: the column
  says so when it is not importable);
- the status. SPECS holds, per name, a call written exactly as for PyTorch. The
  generator runs it with strided: a name is *supported* when it runs and NOTES
  has nothing to say; *supported with differences* when it raises (the page
  quotes the error) or NOTES names a difference the call cannot show; *missing*
  when strided has no such name.

tests/_torch/test_torch_parity.py regenerates the page and compares, and, with
PyTorch installed, runs every spec with both libraries: a supported name must
give PyTorch's result, and a NOTES entry that a spec can show must still show
(the results differ), so no note outlives the behaviour it describes.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import pathlib
import tempfile

import numpy as np

import strided

DOCS = pathlib.Path(__file__).resolve().parent.parent
DATA = DOCS / "_data" / "torch_top150.txt"
PAGE = DOCS / "torch-parity.md"

_RNG = "same distribution and arguments, different random numbers for the same seed"
_VALUES = ("with `dim`, returns the values only (the standard's function); the method "
           "`x.{0}(dim)` returns PyTorch's `(values, indices)`")
_FORMAT = ("strided's own documented file format ({doc}`format`), not PyTorch's zip/pickle "
           "files; the two libraries can't read each other's files")

# Differences that a call which runs cannot show by raising. One sentence each. Where the
# spec shows it (the results differ from PyTorch's), the tests check that they still do.
NOTES = {
    "torch.std": "population value by default (`correction=0`, the standard's); `x.std()` is unbiased",
    "torch.var": "population value by default (`correction=0`, the standard's); `x.var()` is unbiased",
    "torch.max": _VALUES.format("max"),
    "torch.min": _VALUES.format("min"),
    "torch.sort": _VALUES.format("sort"),
    "torch.nonzero": "returns a tuple of index arrays, the standard's form (PyTorch's `as_tuple=True`)",
    "torch.median": "`strided.median` is NumPy's (the mean of the two middle values, values only), as "
                    "scikit-learn and xarray call it; the method `x.median()` is PyTorch's lower median",
    "torch.rand": _RNG, "torch.randn": _RNG, "torch.randint": _RNG, "torch.randperm": _RNG,
    "Tensor.uniform_": _RNG, "Tensor.normal_": _RNG,
    "torch.save": _FORMAT, "torch.load": _FORMAT,
}
# NOTES that no call compares (random numbers are compared by shape; a file written and
# read back by the same library reads the same)
UNSHOWN = {"torch.save", "torch.load"}

# Where the PyTorch call raises or differs, the strided spelling that gives PyTorch's
# result (the tests run it against PyTorch's call): ``lib is torch`` picks the side.
ALT = {
    "torch.std": "lib.std(A, dim=1) if lib is torch else lib.std(A, axis=1, correction=1)",
    "torch.var": "lib.var(A) if lib is torch else lib.var(A, correction=1)",
    "torch.max": "lib.max(A, dim=1).values if lib is torch else lib.max(A, axis=1)",
    "torch.min": "lib.min(B, dim=0).values if lib is torch else lib.min(B, axis=0)",
    "torch.sort": "lib.sort(B, dim=1).values if lib is torch else lib.sort(B, axis=1)",
    "torch.nonzero": "lib.nonzero(I > 1, as_tuple=True) if lib is torch else lib.nonzero(I > 1)",
    "torch.tril": "lib.tril(M, diagonal=-1) if lib is torch else lib.tril(M, k=-1)",
    "torch.triu": "lib.triu(M, diagonal=1) if lib is torch else lib.triu(M, k=1)",
    "torch.sum": "lib.sum(A, 0, True) if lib is torch else lib.sum(A, dim=0, keepdim=True)",
    "torch.unique": "lib.unique(I, return_inverse=True, return_counts=True)",
    "torch.median": "lib.tensor([1.0, 2.0, 3.0, 4.0]).median()",
}

# A call per name, written exactly as for PyTorch: Python statements, the last an expression
# whose value is compared. They run with ``lib`` bound to torch or strided and the inputs of
# ``inputs``. A leading "shape:" compares shape and dtype only (random numbers).
SPECS = {
    "torch.tensor": "lib.tensor([[1, 2], [3, 4]])",
    "torch.as_tensor": "lib.as_tensor([1.5, 2.5])",
    "torch.from_numpy": "lib.from_numpy(np.arange(6.0).reshape(2, 3))",
    "torch.zeros": "lib.zeros(2, 3)",
    "torch.ones": "lib.ones((2, 3), dtype=lib.int32)",
    "torch.empty": "shape:lib.empty(2, 3)",
    "torch.full": "lib.full((2, 3), 7)",
    "torch.zeros_like": "lib.zeros_like(A)",
    "torch.ones_like": "lib.ones_like(I)",
    "torch.full_like": "lib.full_like(A, 2.5)",
    "torch.arange": "lib.arange(1, 10, 3)",
    "torch.linspace": "lib.linspace(0, 1, 5)",
    "torch.eye": "lib.eye(3)",
    "torch.rand": "shape:lib.rand(2, 3)",
    "torch.randn": "shape:lib.randn(4)",
    "torch.randint": "shape:lib.randint(0, 10, (3,))",
    "torch.randperm": "shape:lib.randperm(5)",
    "torch.manual_seed": "lib.manual_seed(0)\nlib.manual_seed(0)\nx = lib.rand(3)\nlib.manual_seed(0)\n"
                         "bool((lib.rand(3) == x).all())",
    "torch.cat": "lib.cat([A, B], dim=1)",
    "torch.stack": "lib.stack([V, W], 1), lib.stack([V, W], dim=0)",
    "torch.split": "lib.split(S, 2)",
    "torch.chunk": "lib.chunk(A, 3, dim=1)",
    "torch.reshape": "lib.reshape(A, (3, 2))",
    "torch.squeeze": "lib.squeeze(lib.zeros(1, 3, 1), 0)",
    "torch.unsqueeze": "lib.unsqueeze(V, 1)",
    "torch.transpose": "lib.transpose(A, 0, 1)",
    "torch.permute": "lib.permute(A[None], (2, 0, 1))",
    "torch.flatten": "lib.flatten(lib.stack([A, B]), 1)",
    "torch.gather": "lib.gather(A, 1, IX)",
    "torch.index_select": "lib.index_select(A, 1, lib.tensor([2, 0]))",
    "torch.masked_select": "lib.masked_select(A, A > 2.5)",
    "torch.where": "lib.where(A > 2.5, A, B)",
    "torch.nonzero": "lib.nonzero(I > 1)",
    "torch.flip": "lib.flip(A, dims=(1,))",
    "torch.tril": "lib.tril(M, diagonal=-1)",
    "torch.triu": "lib.triu(M, diagonal=1)",
    "torch.diag": "lib.diag(V)",
    "torch.einsum": "lib.einsum('ij,jk->ik', A, M)",
    "torch.matmul": "lib.matmul(A, M)",
    "torch.mm": "lib.mm(A, M)",
    "torch.bmm": "lib.bmm(lib.stack([M, M]), lib.stack([M, 2 * M]))",
    "torch.dot": "lib.dot(V, W)",
    "torch.outer": "lib.outer(V, W)",
    "torch.abs": "lib.abs(B)",
    "torch.exp": "lib.exp(B)",
    "torch.log": "lib.log(A)",
    "torch.sqrt": "lib.sqrt(A)",
    "torch.sin": "lib.sin(B)",
    "torch.cos": "lib.cos(B)",
    "torch.tanh": "lib.tanh(B)",
    "torch.sigmoid": "lib.sigmoid(B)",
    "torch.clamp": "lib.clamp(B, min=-0.5, max=1.0)",
    "torch.pow": "lib.pow(A, 2)",
    "torch.maximum": "lib.maximum(A, B)",
    "torch.minimum": "lib.minimum(A, B)",
    "torch.sum": "lib.sum(A, dim=1), lib.sum(A, 0, True)",
    "torch.mean": "lib.mean(A, dim=0, keepdim=True)",
    "torch.std": "lib.std(A, dim=1)",
    "torch.var": "lib.var(A)",
    "torch.max": "lib.max(A), lib.max(A, dim=1)",
    "torch.min": "lib.min(B), lib.min(B, dim=0)",
    "torch.argmax": "lib.argmax(A, dim=1), lib.argmax(A, 1, True)",
    "torch.argmin": "lib.argmin(B, dim=0)",
    "torch.prod": "lib.prod(A, dim=1)",
    "torch.cumsum": "lib.cumsum(A, dim=1)",
    "torch.sort": "lib.sort(B, dim=1)",
    "torch.argsort": "lib.argsort(S, dim=0)",
    "torch.topk": "lib.topk(S, 2)",
    "torch.unique": "lib.unique(I, return_inverse=True, return_counts=True), lib.unique(A, dim=1)",
    "torch.allclose": "lib.allclose(A, A + 1e-7), lib.allclose(A, B)",
    "torch.isclose": "lib.isclose(A, A + 1e-3, rtol=1e-3)",
    "torch.isnan": "lib.isnan(lib.log(B))",
    "torch.all": "lib.all(A > 0, dim=1)",
    "torch.any": "lib.any(B > 2, dim=0)",
    "torch.norm": "lib.norm(A), lib.norm(A, p=1, dim=1), lib.norm(A, p='nuc')",
    "torch.no_grad": "a = A.clone().requires_grad_()\nwith lib.no_grad():\n    y = a * 2\ny.requires_grad",
    "torch.save": "lib.save({'a': A}, path)\nlib.load(path)['a']",
    "torch.load": "lib.save([A, B], path)\nlib.load(path)[1]",
    "torch.from_dlpack": "lib.from_dlpack(np.arange(3.0))",
    "torch.softmax": "lib.softmax(B, dim=1)",
    "torch.logsumexp": "lib.logsumexp(B, dim=1)",
    "torch.median": "lib.median(lib.tensor([1.0, 2.0, 3.0, 4.0]))",
    "torch.det": "lib.det(M)",
    "torch.inverse": "lib.inverse(M)",
    "torch.addmm": "lib.addmm(M, M, M, beta=0.5, alpha=2)",
    "torch.kron": "lib.kron(A, M)",
    "torch.bincount": "lib.bincount(I)",
    "Tensor.size": "A.size(), A.size(1)",
    "Tensor.shape": "A.shape",
    "Tensor.dim": "A.dim()",
    "Tensor.numel": "A.numel()",
    "Tensor.dtype": "str(A.dtype).replace('torch.', '')",
    "Tensor.device": "str(A.device)",
    "Tensor.item": "A[1, 2].item()",
    "Tensor.tolist": "A.tolist()",
    "Tensor.numpy": "A.numpy()",
    "Tensor.to": "A.to(lib.float64)",
    "Tensor.cpu": "A.cpu()",
    "Tensor.cuda": "callable(A.cuda)",
    "Tensor.float": "I.float()",
    "Tensor.long": "A.long()",
    "Tensor.clone": "A.clone()",
    "Tensor.detach": "A.clone().requires_grad_().detach().requires_grad",
    "Tensor.contiguous": "A.t().contiguous().stride()",
    "Tensor.is_contiguous": "A.is_contiguous(), A.t().is_contiguous()",
    "Tensor.view": "A.view(3, 2), A.view(-1)",
    "Tensor.reshape": "A.t().reshape(6)",
    "Tensor.expand": "V.unsqueeze(0).expand(2, -1)",
    "Tensor.repeat": "V.repeat(2, 1)",
    "Tensor.permute": "A.permute(1, 0)",
    "Tensor.transpose": "A.transpose(0, 1)",
    "Tensor.t": "A.t()",
    "Tensor.squeeze": "lib.zeros(1, 3, 1).squeeze().shape",
    "Tensor.unsqueeze": "V.unsqueeze(-1)",
    "Tensor.flatten": "lib.stack([A, B]).flatten(1)",
    "Tensor.stride": "A.stride(), A.t().stride(), A.stride(1)",
    "Tensor.add": "A.add(B, alpha=2)",
    "Tensor.add_": "A.clone().add_(B, alpha=-1)",
    "Tensor.sub": "A.sub(B, alpha=0.5)",
    "Tensor.mul": "A.mul(B)",
    "Tensor.mul_": "A.clone().mul_(3)",
    "Tensor.div": "A.div(B), A.div(B, rounding_mode='floor'), A.div(B, rounding_mode='trunc')",
    "Tensor.pow": "A.pow(0.5)",
    "Tensor.sum": "A.sum(), A.sum(1, True), A.sum(dim=0, dtype=lib.float64)",
    "Tensor.mean": "A.mean(), A.mean(1), A.mean(dim=(0, 1), keepdim=True)",
    "Tensor.std": "A.std(), A.std(1), A.std(0, False), A.std(dim=1, correction=0, keepdim=True)",
    "Tensor.max": "A.max(), A.max(1), A.max(dim=0, keepdim=True), A.max(B)",
    "Tensor.argmax": "A.argmax(), A.argmax(1), A.argmax(dim=0, keepdim=True)",
    "Tensor.clamp": "B.clamp(-1, 1), B.clamp(min=0)",
    "Tensor.zero_": "A.clone().zero_()",
    "Tensor.fill_": "A.clone().fill_(4)",
    "Tensor.copy_": "A.clone().copy_(V)",
    "Tensor.backward": "a = A.clone().requires_grad_()\n(a * a).sum().backward()\na.grad",
    "Tensor.grad": "a = A.clone().requires_grad_()\na.sin().sum().backward()\na.grad",
    "Tensor.requires_grad_": "A.clone().requires_grad_().requires_grad",
    "Tensor.masked_fill": "A.masked_fill(A > 2.5, -1.0)",
    "Tensor.masked_fill_": "A.clone().masked_fill_(V > 0, 0.0)",
    "Tensor.index_select": "A.index_select(0, lib.tensor([1, 1, 0]))",
    "Tensor.gather": "A.gather(0, lib.tensor([[1, 0, 1]]))",
    "Tensor.scatter_": "lib.zeros(2, 3).scatter_(1, IX, B)",
    "Tensor.scatter_add_": "lib.zeros(2, 3).scatter_add_(1, IX, B)",
    "Tensor.index_add_": "lib.zeros(3, 3).index_add_(0, lib.tensor([0, 2]), A)",
    "Tensor.uniform_": "shape:lib.empty(3).uniform_(-1, 1)",
    "Tensor.normal_": "shape:lib.empty(3).normal_(0, 2)",
    "Tensor.type_as": "I.type_as(A)",
    "Tensor.new_zeros": "I.new_zeros(2, 2)",
    "Tensor.matmul": "A.matmul(M)",
    "Tensor.eq": "A.eq(A.t().t()), A.eq(2.0)",
    "Tensor.topk": "A.topk(2, dim=1, largest=False)",
    "Tensor.softmax": "A.softmax(0)",
}


def names() -> list:
    """The 150 names, in the file's order."""
    out = []
    for line in DATA.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def _owner(name: str, root):
    owner, _, attr = name.partition(".")
    return (root if owner == "torch" else getattr(root, "Tensor", None)
            if root is not strided else strided.Array), attr


def exists(name: str) -> bool:
    obj, attr = _owner(name, strided)
    return hasattr(obj, attr)


def signature(name: str) -> str:
    """``inspect.signature`` of strided's object, as the reference shows it (a method
    without ``self``); "attribute" for a property."""
    obj, attr = _owner(name, strided)
    if isinstance(inspect.getattr_static(obj, attr), property):
        return "attribute"
    f = getattr(obj, attr)
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return "(no signature)"
    params = list(sig.parameters.values())
    if obj is strided.Array and params and params[0].name == "self":
        params = params[1:]
    return str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))


def hidden_keywords(name: str) -> list:
    """Keywords that PyTorch's call (SPECS) passes to the name, that strided accepts (the
    call runs) but its signature doesn't list: what the reference would hide."""
    import ast

    if not exists(name) or raised(name) is not None:
        return []
    obj, attr = _owner(name, strided)
    try:
        sig = inspect.signature(getattr(obj, attr))
    except (TypeError, ValueError):
        return []
    params = sig.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return []
    used = []
    for node in ast.walk(ast.parse(SPECS[name].removeprefix("shape:"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == attr:
            used += [k.arg for k in node.keywords if k.arg and k.arg not in params and k.arg not in used]
    return used


def torch_package():
    """``strided.torch`` when this build has it, else None."""
    try:
        return importlib.import_module("strided.torch")
    except ImportError:
        return None


def in_torch_package(name: str):
    """Whether ``strided.torch`` has the name (None when there is no such package)."""
    pkg = torch_package()
    if pkg is None:
        return None
    owner, _, attr = name.partition(".")
    if owner == "torch":
        return hasattr(pkg, attr)
    return hasattr(getattr(pkg, "Tensor", strided.Array), attr)


def run_spec(spec: str, lib, path: str, torch=None):
    """The value of ``spec`` with ``lib`` (its "shape:" prefix dropped)."""
    env = inputs(lib, np)
    env["torch"] = torch
    env["path"] = path
    *stmts, last = spec.removeprefix("shape:").split("\n")
    exec("\n".join(stmts), env)  # noqa: S102 (our own specs)
    return eval(last, env)  # noqa: S307


@contextlib.contextmanager
def _cpu():
    dev = strided.get_default_device()
    strided.set_default_device("cpu")
    try:
        yield
    finally:
        strided.set_default_device(dev)


def raised(name: str):
    """What PyTorch's call (SPECS) raises in strided, as "Type: message", or None."""
    with tempfile.TemporaryDirectory() as d, _cpu():
        state = strided.get_rng_state()
        try:
            run_spec(SPECS[name], strided, str(pathlib.Path(d) / "f.bin"))
        except Exception as e:  # noqa: BLE001 - quoted on the page
            return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": ")
        finally:
            strided.set_rng_state(state)
    return None


def differences(name: str) -> str:
    parts = []
    err = raised(name) if exists(name) else None
    if err is not None:
        parts.append(f"PyTorch's call `{SPECS[name].splitlines()[-1]}` raises {err}")
    if name in NOTES:
        parts.append(NOTES[name])
    return "; ".join(parts)


def status(name: str) -> str:
    if not exists(name):
        return "missing"
    return "supported with differences" if differences(name) else "supported"


def inputs(lib, np) -> dict:
    """The arrays the specs use, made by ``lib`` (torch or strided) from the same data."""
    T = lib.tensor
    return {
        "lib": lib, "np": np,
        "A": T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]),
        "B": T([[0.5, -1.0, 2.0], [3.0, 2.0, -4.0]]),
        "M": T([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]),
        "V": T([1.0, -2.0, 3.0]),
        "W": T([0.5, 4.0, -1.0]),
        "S": T([5.0, 1.0, 4.0, 2.0, 3.0]),
        "I": T([3, 1, 2, 1]),
        "IX": T([[0, 2], [1, 0]]),
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def page() -> str:
    rows = names()
    st = {n: status(n) for n in rows}
    counts = {s: sum(v == s for v in st.values()) for s in ("supported", "supported with differences", "missing")}
    pkg = torch_package() is not None
    lines = [
        "<!-- Generated by docs/_tools/torch_parity.py from docs/_data/torch_top150.txt and the code; "
        "do not edit. -->",
        "",
        "# PyTorch parity",
        "",
        "Which of 150 of PyTorch's most used functions and `Tensor` methods strided has. The list, its",
        "source (PyTorch's reference pages) and how it was chosen are in {source}`docs/_data/torch_top150.txt`.",
        "Every column comes from the code: *signature* is `inspect.signature` of `strided.<name>` (or of",
        "the method of `strided.Array`, without `self`), as the {doc}`API reference <api/index>` shows it;",
        "*`strided.torch`* says whether that package has the name. A keyword that PyTorch's call passes",
        "and strided accepts without its signature listing it is named after the signature. A name is",
        "*supported* when a call written exactly as for PyTorch runs in strided and gives PyTorch's",
        "result; *supported with",
        "differences* when that call raises (the error is quoted) or differs as the last column says;",
        "*missing* otherwise. The test suite regenerates this page and compares it, and runs each call",
        "with both libraries (when PyTorch is installed). The general rule is on {doc}`torch-differences`.",
        "",
    ]
    if not pkg:
        lines += ["The `strided.torch` package is not part of this build: its column shows \u2014.", ""]
    lines += [
        f"**{counts['supported']} supported, {counts['supported with differences']} supported with "
        f"differences, {counts['missing']} missing** (of {len(rows)}).",
        "",
        "| PyTorch | status | signature | `strided.torch` | differences |",
        "|---|---|---|---|---|",
    ]
    for n in rows:
        has = exists(n)
        sig = f"`{_cell(signature(n))}`" if has else ""
        hidden = hidden_keywords(n)
        if hidden:
            sig += "; also takes " + ", ".join(f"`{k}=`" for k in hidden) + " (not in the signature)"
        t = in_torch_package(n)
        tcol = "\u2014" if t is None else ("yes" if t else "no")
        lines.append(f"| `{n}` | {st[n]} | {sig} | {tcol} | {_cell(differences(n)) if has else ''} |")
    return "\n".join(lines) + "\n"


def counts() -> dict:
    rows = names()
    return {s: sum(status(n) == s for n in rows) for s in ("supported", "supported with differences", "missing")}


if __name__ == "__main__":
    PAGE.write_text(page())
    print(counts())
