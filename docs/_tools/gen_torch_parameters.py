"""Write ``src/strided/torch/_torch_parameters.py``: PyTorch's parameter names of every
public ``torch.<name>`` function (and of ``torch.nn.functional``, ``torch.linalg``,
``torch.special`` and ``torch.fft``) and ``Tensor.<name>`` method, as PyTorch 2.13's Python
bindings spell them.

Run offline, with PyTorch installed (strided never imports torch at run time)::

    python docs/_tools/gen_torch_parameters.py

Sources, in order: a function written in Python (``torch.functional.split``,
``Tensor.unique``) by ``inspect.signature``; every other name by the overloads its
generated binding parses (torchgen's ``signature(native_function)`` over the
``native_functions.yaml`` torch ships: the ``PythonArgParser`` signatures, the ones
PyTorch's own "got an unexpected keyword argument" message lists). Each overload is kept
as (its positional names, its keyword-only names).
"""

from __future__ import annotations

import collections
import inspect
import os
import pprint
import sys

import torch
import torchgen
from torchgen.api.python import signature
from torchgen.gen import parse_native_yaml
from torchgen.model import Variant

_OUT = os.path.join(os.path.dirname(__file__), "..", "..", "src", "strided", "torch", "_torch_parameters.py")


def _name(a, method: bool) -> str:
    """The name the Python binding gives the argument (``self`` is ``input`` in a function)."""
    return a.argument_str(method=method).split(" ")[-1].split("=")[0]


_SUBMODULES = ("linalg", "special", "fft")


def _native() -> tuple:
    d = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native")
    parsed = parse_native_yaml(os.path.join(d, "native_functions.yaml"), os.path.join(d, "tags.yaml"))
    funcs, meths, nn = (collections.defaultdict(list) for _ in range(3))
    sub = {m: collections.defaultdict(list) for m in _SUBMODULES}
    for f in parsed.native_functions:
        for method, table in ((False, funcs), (True, meths)):
            if (Variant.method if method else Variant.function) not in f.variants:
                continue
            if not method and f.python_module not in (None, "nn") + _SUBMODULES:
                continue
            try:
                s = signature(f, method=method)
            except ValueError:  # (a schema the Python bindings do not expose)
                continue
            ov = (tuple(_name(a, method) for a in s.input_args), tuple(_name(a, method) for a in s.input_kwargs)
                  + (("out",) if s.output_args is not None else ()))
            name = s.name
            if not method and f.python_module == "nn":
                target = nn
            elif not method and f.python_module in _SUBMODULES:
                # (``linalg_cholesky`` is bound as ``torch.linalg.cholesky``)
                target, name = sub[f.python_module], name.removeprefix(f.python_module + "_")
            else:
                target = table
            if ov not in target[name]:
                target[name].append(ov)
    return funcs, meths, nn, sub


def _python(f):
    """The overload of a function written in Python, or None (a builtin)."""
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return None
    if not (inspect.isfunction(f) or inspect.ismethod(f)):
        return None
    ps = [p for p in sig.parameters.values() if p.name != "self"]
    if any(p.kind is p.VAR_KEYWORD for p in ps):
        # (a dispatching wrapper, ``torch.unique(*args, **kwargs)``: its documented signature)
        return _documented(f)
    pos = tuple(p.name for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    kw = tuple(p.name for p in ps if p.kind is p.KEYWORD_ONLY)
    return [(pos, kw)]


def _documented(f):
    """The overload the first line of ``f``'s docstring spells (``numel(input: Tensor) -> int``), or
    None."""
    first = (getattr(f, "__doc__", None) or "").strip().split("\n")[0]
    name = getattr(f, "__name__", "")
    if not name or not first.startswith(name + "(") or ")" not in first:
        return None
    pos, kw, into = [], [], None
    into = pos
    for part in first[len(name) + 1:first.index(")")].split(","):
        n = part.split("=")[0].split(":")[0].strip()
        if n == "*":
            into = kw
            continue
        if not n.isidentifier():  # (``*tensors``: no names to give)
            return None
        into.append(n)
    return [(tuple(pos), tuple(kw))]


def _table(names, owner, native) -> dict:
    out = {}
    for n in sorted(names):
        if n.startswith("_"):
            continue
        obj = getattr(owner, n, None)
        if obj is None or isinstance(obj, type) or not callable(obj):
            continue
        ovs = _python(obj) or native.get(n) or _documented(obj)
        if ovs:
            merged = {}  # (overloads with the same positional names, one: their keywords joined)
            for pos, kw in ovs:
                merged[pos] = tuple(dict.fromkeys(merged.get(pos, ()) + kw))
            out[n] = tuple(merged.items())
    return out


def main() -> None:
    funcs, meths, nn, sub = _native()
    functions = _table(dir(torch), torch, funcs)
    import torch.nn.functional as F
    functional = _table(dir(F), F, nn)
    methods = _table(dir(torch.Tensor), torch.Tensor, meths)
    tables = [("FUNCTIONS", functions), ("FUNCTIONAL", functional), ("METHODS", methods)]
    for m in _SUBMODULES:
        mod = getattr(torch, m)
        tables.append((m.upper(), _table(dir(mod), mod, sub[m])))
    with open(_OUT, "w") as fh:
        fh.write(f'"""PyTorch {torch.__version__.split("+")[0]}\'s parameter names: generated by '
                 f'docs/_tools/gen_torch_parameters.py; do not edit.\n\n'
                 f"name -> its overloads, each (its positional names, its keyword-only names): "
                 f"``FUNCTIONS`` of ``torch.<name>``,\n``FUNCTIONAL`` of ``torch.nn.functional.<name>``, "
                 f"``METHODS`` of ``Tensor.<name>`` (without ``self``),\n``LINALG``, ``SPECIAL`` and "
                 f"``FFT`` of ``torch.linalg.<name>``, ``torch.special.<name>``, ``torch.fft.<name>``.\n\"\"\"\n\n")
        for title, t in tables:
            fh.write(f"{title} = {pprint.pformat(t, width=110, compact=True)}\n\n")
    print(", ".join(f"{len(t)} {title.lower()}" for title, t in tables), file=sys.stderr)


if __name__ == "__main__":
    main()
