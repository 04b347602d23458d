"""The benchmark cases, in the groups (a)-(i) of issue 10.

A case is one operation at one size: a key naming its NumPy inputs, and the
statement to time, written once against the Array API namespace ``xp``
(strided, NumPy, array-api-strict, CuPy) and, where PyTorch spells it
differently, once for ``torch``. Inputs are bound by name in the statement's
globals. Cases that need real code (autograd, save/load) give
``build(lib, inputs, ctx)`` returning ``(statement, globals)`` instead.

A library that lacks what a case needs is skipped with a reason: for strided
that is how features still being built (``std``, ``matmul``, in-place
methods, ``strided.autograd``, ``save/load``) light up automatically later.
This module imports NumPy only when it makes inputs.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Callable


class Skip(Exception):
    """The case does not apply to a library; the message says why."""


@dataclass(eq=False)
class Case:
    """One operation at one size."""

    group: str
    op: str
    params: dict
    inputs: tuple  # key for make_inputs
    api: str | None = None  # statement for Array API namespaces
    torch: str | None = None  # statement for PyTorch when it differs from ``api``
    per_lib: dict = field(default_factory=dict)  # library name -> statement override
    skip: dict = field(default_factory=dict)  # library name or kind -> reason
    needs: tuple = ()  # strided features beyond ``xp.NAME``: "Array.add_", "autograd"
    prep: str = ""  # run once in the globals before timing
    build: Callable | None = None
    check: bool = True  # compare the result with NumPy's
    mutates: bool = False  # writes into its inputs (fresh inputs for every library)
    alloc: bool = False  # also measure bytes allocated per call
    note: str = ""
    # a pause before each timed batch, for the other library's idle worker threads to stop
    # spinning (strided's pool spins 2 ms after a parallel call, PyTorch's OpenMP threads
    # too): on 2 cores they otherwise take the core the library being timed splits onto
    settle_ms: float = 0.0

    @property
    def label(self) -> str:
        ps = ", ".join(_fmt_param(k, v) for k, v in self.params.items())
        return f"{self.op} [{ps}]" if ps else self.op


def _fmt_param(k, v):
    if k == "n" and v >= 10_000 and math.log10(v) == int(math.log10(v)):
        return f"n=1e{int(math.log10(v))}"
    if k == "dtype":
        return v
    if k == "shape":
        return "x".join(map(str, v))
    return f"{k}={v}"


def statement(case: Case, lib) -> str:
    """The statement ``lib`` runs for ``case``; raises Skip when it cannot."""
    reason = case.skip.get(lib.name) or case.skip.get(lib.kind)
    if reason:
        raise Skip(reason)
    stmt = case.per_lib.get(lib.name)
    if stmt is None:
        stmt = case.torch if (lib.kind == "torch" and case.torch is not None) else case.api
    if stmt is None:
        raise Skip("no equivalent")
    check_available(lib, stmt + "\n" + case.prep, case.needs)
    return stmt


def check_available(lib, code: str, needs=()) -> None:
    """Raise Skip naming the first ``xp.NAME`` or strided feature ``lib`` lacks."""
    if lib.kind == "api":
        for name in re.findall(r"\bxp\.(\w+)", code):
            if not hasattr(lib.xp, name):
                what = "not implemented yet" if lib.is_strided else "no such function"
                raise Skip(f"{lib.name} has no {name}() ({what})")
    if lib.is_strided:
        for need in needs:
            owner, _, attr = need.rpartition(".")
            obj = lib.xp.Array if owner == "Array" else lib.xp
            if not hasattr(obj, attr):
                kind = "arrays have no method" if owner == "Array" else "has no"
                raise Skip(f"strided {kind} {attr} (not implemented yet)")


def names_in(code: str) -> set:
    return set(re.findall(r"\b[A-Za-z_]\w*\b", code))


# --- inputs -----------------------------------------------------------------

def make_inputs(key: tuple) -> dict:
    """NumPy inputs for a key; the same key always gives the same data."""
    import numpy as np  # not at module level: run.py pins the thread counts before NumPy loads

    rng = np.random.default_rng(12345)
    kind = key[0]
    if kind == "tiny":
        a = rng.uniform(0.5, 2.0, 10).astype(np.float32)
        b = rng.uniform(0.5, 2.0, 10).astype(np.float32)
        return {"a": a, "b": b, "c": a > b, "m": rng.standard_normal((4, 4)).astype(np.float32),
                "idx": np.array([1, 3, 5, 7], dtype=np.int64)}
    if kind == "vec":
        _, n, dt = key
        a = rng.uniform(0.5, 2.0, n).astype(dt)
        return {"a": a, "b": rng.uniform(0.5, 2.0, n).astype(dt), "c": rng.uniform(0.5, 2.0, n).astype(dt),
                "cond": a > 1.25, "one": np.ones(n, dt), "o": np.zeros(n, dt)}
    if kind == "mat":
        _, shape, dt = key
        return {"a": rng.standard_normal(shape).astype(dt)}
    if kind == "square":
        _, n, dt = key
        return {"a": rng.standard_normal((n, n)).astype(dt), "b": rng.standard_normal((n, n)).astype(dt)}
    if kind == "views":
        a = rng.standard_normal((1000, 1000)).astype(np.float32)
        return {"a": a, "a3": a.reshape(100, 100, 100).copy()}
    if kind == "mlp":
        _, batch, d_in, d_hidden, d_out = key
        y = rng.integers(0, d_out, batch)
        return {"x": rng.standard_normal((batch, d_in)).astype(np.float32),
                "onehot": np.eye(d_out, dtype=np.float32)[y],
                "W1": (rng.standard_normal((d_in, d_hidden)) * math.sqrt(2 / d_in)).astype(np.float32),
                "b1": np.zeros(d_hidden, np.float32),
                "W2": (rng.standard_normal((d_hidden, d_out)) * math.sqrt(2 / d_hidden)).astype(np.float32),
                "b2": np.zeros(d_out, np.float32)}
    if kind == "fit":
        _, shape = key
        X = rng.standard_normal(shape)
        labels = rng.integers(0, 3, shape[0])
        X[:, 0] += labels  # separable enough for LDA
        return {"X": X, "y": X @ rng.standard_normal(shape[1]) + rng.standard_normal(shape[0]),
                "labels": labels}
    if kind == "io":
        return {"a": rng.standard_normal(key[1] // 4, dtype=np.float32)}
    if kind == "mid":
        _, n, dt = key
        a = rng.uniform(0.5, 2.0, n).astype(dt)
        return {"a": a, "b": rng.uniform(0.5, 2.0, n).astype(dt), "cond": a > 1.25,
                "x": rng.standard_normal(n).astype(dt),
                "idx": rng.permutation(n)[: max(1, n // 2)].astype(np.int64)}
    if kind == "named":
        a = rng.uniform(0.5, 2.0, 10).astype(np.float32)
        return {"a": a, "b": rng.uniform(0.5, 2.0, 10).astype(np.float32),
                "m": rng.standard_normal((4, 4)).astype(np.float32),
                "v": rng.standard_normal(4).astype(np.float32),
                "m1": rng.standard_normal((1, 4)).astype(np.float32),
                "a3": rng.standard_normal((2, 3, 4)).astype(np.float32)}
    raise KeyError(key)


# --- (a) tiny-op overhead ---------------------------------------------------------

def tiny(quick: bool) -> list[Case]:
    rows = [
        ("add", "a + b", None, ()),
        ("add scalar", "a + 1.5", None, ()),
        ("multiply", "a * b", None, ()),
        ("exp", "xp.exp(a)", None, ()),
        ("sum", "xp.sum(a)", None, ()),
        ("mean", "xp.mean(a)", None, ()),
        ("less (comparison)", "a < b", None, ()),
        ("where", "xp.where(c, a, b)", None, ()),
        ("astype float64", "xp.astype(a, xp.float64)", "a.to(torch.float64)", ()),
        ("matmul 4x4", "m @ m", None, ("Array.__matmul__",)),
        ("reshape", "xp.reshape(a, (2, 5))", None, ()),
        ("slice view", "a[2:8]", None, ()),
        ("slice views, then add", "a[2:8] + b[2:8]", None, ()),
        ("transpose view", "m.T", None, ()),
        ("integer-array index", "a[idx]", None, ()),
        ("boolean index", "a[c]", None, ()),
    ]
    cases = [Case("tiny", op, {"n": 10, "dtype": "float32"}, ("tiny",), api, torch, needs=needs)
             for op, api, torch, needs in rows]
    cases.append(Case("tiny", "__setitem__ slice", {"n": 10, "dtype": "float32"}, ("tiny",),
                      "a[2:5] = 0.5", check=False, mutates=True))
    # the unnamed twins of the named cases below (issue 15: named <= 1.3x unnamed strided)
    cases.append(Case("tiny", "sum over an axis", {"n": 10, "dtype": "float32"}, ("tiny",),
                      "xp.sum(m, axis=1)", "torch.sum(m, dim=1)"))
    for op, named, plain in (("add, named dims", "an + bn", "a + b"),
                             ("sum over a named axis", "xp.sum(mn, axis='C')", "xp.sum(m, axis=1)")):
        cases.append(Case("tiny", op, {"n": 10, "dtype": "float32"}, ("tiny",),
                          build=_build_named(named, plain),
                          note="strided on named arrays; the peers on plain ones"))
    return cases


def _build_named(named: str, plain: str):
    """strided times ``named`` on named copies of the inputs (strided.named); peers time ``plain``."""
    def build(lib, inp, ctx):
        if lib.name != "strided":
            return plain, inp
        check_available(lib, "xp.named")
        return named, inp | {"an": inp["a"].rename("N"), "bn": inp["b"].rename("N"),
                             "mn": inp["m"].rename("R", "C")}
    return build


# --- (m) named dimensions over plain strided ------------------------------------------

# (label, the statement on named arrays, its unnamed twin, the twin is PyTorch-style only[,
# PyTorch's spelling of the twin]).
# Inputs (make_inputs(("named",))): a, b of 10 elements; m 4x4; v 4; m1 1x4; a3 2x3x4, all
# float32. The named copies (named_inputs): an, bn ("N"); mn ("R", "C"); vn ("C");
# m1n ("O", "C"); a3n ("N", "H", "W"); pn (None, "C"). A named-only view (rename,
# refine_names) has the cheapest plain view, m[:], as its twin; align_to has permute_dims.
NAMED_CASES = [
    ("add, same names", "an + bn", "a + b", False),
    ("add, broadcast (R, C) + (C)", "mn + vn", "m + v", False),
    ("multiply by a Python scalar", "mn * 2.0", "m * 2.0", False),
    ("exp", "xp.exp(mn)", "xp.exp(m)", False),
    ("sum over a named axis", "xp.sum(mn, axis='C')", "xp.sum(m, axis=1)", False),
    ("sum over an int axis of a named array", "xp.sum(mn, axis=1)", "xp.sum(m, axis=1)", False),
    ("sum, keepdims=True", "xp.sum(mn, axis='C', keepdims=True)", "xp.sum(m, axis=1, keepdims=True)",
     False),
    ("sum, dtype=float64", "xp.sum(mn, axis='C', dtype=xp.float64)",
     "xp.sum(m, axis=1, dtype=xp.float64)", False),
    ("sum over two named axes", "xp.sum(a3n, axis=('H', 'W'))", "xp.sum(a3, axis=(1, 2))", False),
    ("sum of everything", "xp.sum(mn)", "xp.sum(m)", False),
    ("sum method, x.sum('C')", "mn.sum('C')", "m.sum(1)", True),
    ("mean over a named axis", "xp.mean(mn, axis='C')", "xp.mean(m, axis=1)", False),
    ("max over a named axis", "xp.max(mn, axis='C')", "xp.max(m, axis=1)", False, "torch.amax(m, dim=1)"),
    ("var, correction=1", "xp.var(mn, axis='C', correction=1)", "xp.var(m, axis=1, correction=1)",
     False),
    ("view: .T", "mn.T", "m.T", False),
    ("view: .mT (3-D)", "a3n.mT", "a3.mT", False),
    ("view: permute_dims", "xp.permute_dims(a3n, (2, 0, 1))", "xp.permute_dims(a3, (2, 0, 1))", False,
     "a3.permute(2, 0, 1)"),
    ("view: permute method", "a3n.permute(2, 0, 1)", "a3.permute(2, 0, 1)", True),
    ("view: permute by names", "a3n.permute('W', 'N', 'H')", "a3.permute(2, 0, 1)", True),
    ("view: transpose method", "mn.transpose(0, 1)", "m.transpose(0, 1)", True),
    ("view: reshape (names dropped)", "xp.reshape(mn, (16,))", "xp.reshape(m, (16,))", False),
    ("view: flatten(1, 2)", "a3n.flatten(1, 2)", "a3.flatten(1, 2)", True),
    ("view: flatten by names", "xp.named.flatten(a3n, ['H', 'W'], 'HW')", "a3.flatten(1, 2)", True),
    ("view: unflatten by names", "a3n.unflatten('W', (('P', 2), ('Q', 2)))", "a3.unflatten(2, (2, 2))",
     True),
    ("view: expand_dims", "xp.expand_dims(mn, axis=0)", "xp.expand_dims(m, axis=0)", False, "m.unsqueeze(0)"),
    ("view: unsqueeze", "mn.unsqueeze(0)", "m.unsqueeze(0)", True),
    ("view: squeeze", "xp.squeeze(m1n, axis=0)", "xp.squeeze(m1, axis=0)", False),
    ("view: x[1:3]", "mn[1:3]", "m[1:3]", False),
    ("view: x[1]", "mn[1]", "m[1]", False),
    ("view: x[1:3, 0]", "mn[1:3, 0]", "m[1:3, 0]", False),
    ("view: rename", "mn.rename('A', 'B')", "m[:]", False),
    ("view: refine_names", "pn.refine_names('R', 'C')", "m[:]", False),
    ("view: align_to", "mn.align_to('C', 'R')", "xp.permute_dims(m, (1, 0))", False, "m.permute(1, 0)"),
]


def named_inputs(xp, inp=None) -> dict:
    """The inputs of NAMED_CASES for strided (``xp``): plain arrays and their named copies."""
    if inp is None:
        inp = {k: xp.asarray(v) for k, v in make_inputs(("named",)).items()}
    return {"xp": xp, **inp, "an": inp["a"].rename("N"), "bn": inp["b"].rename("N"),
            "mn": inp["m"].rename("R", "C"), "vn": inp["v"].rename("C"),
            "m1n": inp["m1"].rename("O", "C"), "a3n": inp["a3"].rename("N", "H", "W"),
            "pn": inp["m"].rename(None, "C")}


def named(quick: bool) -> list[Case]:
    """Each case twice: the unnamed twin (every library), then strided on named arrays
    (the peers time the twin again). ``benchmarks/named_overhead.py`` prints the ratio."""
    p = {"dtype": "float32"}
    torch_only = {n: "a PyTorch-style method" for n in ("numpy", "array-api-strict", "cupy")}
    cases = []
    for label, named_stmt, plain, torch_style, *torch_stmt in NAMED_CASES:
        skip = torch_only if torch_style else {}
        torch_stmt = torch_stmt[0] if torch_stmt else None
        # (array-api-strict wants every axis indexed)
        per_lib = {"array-api-strict": plain[:-1] + ", ...]"} if plain.startswith("m[") else {}
        cases.append(Case("named", label, p, ("named",), plain, torch_stmt, per_lib=per_lib, skip=skip))

        def build(lib, inp, ctx, named_stmt=named_stmt, plain=plain, skip=skip, torch_stmt=torch_stmt,
                  per_lib=per_lib):
            if lib.name in skip:
                raise Skip(skip[lib.name])
            if lib.name != "strided":
                return per_lib.get(lib.name, torch_stmt if lib.kind == "torch" and torch_stmt else plain), inp
            check_available(lib, "xp.named")
            return named_stmt, named_inputs(lib.xp, inp)
        cases.append(Case("named", label + ", named", p, ("named",), build=build,
                          note="strided on named arrays; the peers on plain ones"))
    return cases


# --- (b) large elementwise -----------------------------------------------------------

def elementwise(quick: bool) -> list[Case]:
    ops = [("add", "a + b"), ("multiply", "a * b"), ("exp", "xp.exp(a)"), ("sqrt", "xp.sqrt(a)"),
           ("where", "xp.where(cond, a, b)"), ("clip", "xp.clip(a, 0.75, 1.5)"), ("a*b+c", "a * b + c")]
    sizes = (10**4, 10**6) if quick else (10**4, 10**6, 10**7)
    return [Case("elementwise", op, {"n": n, "dtype": dt}, ("vec", n, dt), stmt)
            for n in sizes for dt in ("float32", "float64") for op, stmt in ops]


# --- (c) reductions -------------------------------------------------------------------

def reductions(quick: bool) -> list[Case]:
    shapes = ((1000, 1000),) if quick else ((1000, 1000), (1000, 10000))
    torch_name = {"sum": "sum", "mean": "mean", "max": "amax", "std": "std"}
    cases = []
    for shape in shapes:
        for dt in ("float32", "float64"):
            for op in ("sum", "mean", "max", "std"):
                for axis in (None, 0, 1):
                    ax = "" if axis is None else f", axis={axis}"
                    tax = "" if axis is None else f", dim={axis}"
                    corr = ", correction=0" if op == "std" else ""
                    cases.append(Case("reductions", op, {"shape": shape, "dtype": dt, "axis": axis},
                                      ("mat", shape, dt), f"xp.{op}(a{ax})",
                                      f"torch.{torch_name[op]}(a{tax}{corr})"))
    # short rows (issue 38: rows of 8-128 elements, one leaf each, four at a time)
    for dt in ("float32", "float64"):
        for op, corr in (("sum", ""), ("std", ", correction=0")):
            cases.append(Case("reductions", op, {"shape": (100000, 32), "dtype": dt, "axis": 1},
                              ("mat", (100000, 32), dt), f"xp.{op}(a, axis=1)",
                              f"torch.{torch_name[op]}(a, dim=1{corr})"))
    # over the leading axis with the input coming from memory (issue 38: scikit-learn's
    # column statistics of a fresh array; the cases above time one array in cache)
    shapes = ((5000, 200),) if quick else ((5000, 200), (1000, 1000), (200, 5000))
    for shape in shapes:
        for dt in ("float32", "float64"):
            for op in ("sum", "max", "std"):
                corr = ", correction=0" if op == "std" else ""
                cases.append(Case("reductions", op, {"shape": shape, "dtype": dt, "axis": 0,
                                                     "input": "from memory"},
                                  ("mat", shape, dt),
                                  build=_build_from_memory(f"xp.{op}(_next(), axis=0)",
                                                           f"torch.{torch_name[op]}(_next(), dim=0{corr})"),
                                  note="from memory: each call takes the next of 16 copies of the "
                                       "input (together larger than the caches)"))
    return cases


def _build_from_memory(stmt: str, torch_stmt: str, copies: int = 16):
    """The statement on ``copies`` copies of ``a`` in turn (together larger than the last-level
    cache), so that each call reads its input from memory, not from the cache the previous call
    left it in."""
    def build(lib, inp, ctx):
        import itertools
        xs = [lib.xp.asarray(inp["a"], copy=True) for _ in range(copies)]
        return (torch_stmt if lib.kind == "torch" else stmt), inp | {"_next": itertools.cycle(xs).__next__}
    return build


# --- (d) matmul -----------------------------------------------------------------------

def matmul(quick: bool) -> list[Case]:
    sizes = (64, 256) if quick else (64, 128, 256, 512, 1024, 2048)
    return [Case("matmul", "matmul", {"n": n, "dtype": dt}, ("square", n, dt), "a @ b",
                 needs=("Array.__matmul__",))
            for dt in ("float32", "float64") for n in sizes]


# --- (e) views vs copies ------------------------------------------------------------------

def views(quick: bool) -> list[Case]:
    p = {"shape": (1000, 1000), "dtype": "float32"}
    contig = {"strided": "{x}.contiguous()", "strided-cuda": "{x}.contiguous()"}
    K = ("views",)
    return [
        Case("views", "reshape, contiguous (view)", p, K, "xp.reshape(a, (500, 2000))"),
        Case("views", "reshape, transposed (copy)", p, K, "xp.reshape(at, (500, 2000))", prep="at = a.T"),
        Case("views", "contiguous(), contiguous (no-op)", p, K, "xp.ascontiguousarray(a)", "a.contiguous()",
             per_lib={k: v.format(x="a") for k, v in contig.items()}),
        Case("views", "contiguous(), transposed (copy)", p, K, "xp.ascontiguousarray(at)", "at.contiguous()",
             per_lib={k: v.format(x="at") for k, v in contig.items()}, prep="at = a.T"),
        Case("views", "copy (asarray copy=True)", p, K, "xp.asarray(a, copy=True)", "a.clone()"),
        Case("views", "slice view a[::2, 1:-1]", p, K, "a[::2, 1:-1]"),
        Case("views", "transpose view", p, K, "a.T"),
        Case("views", "permute_dims view (3-D)", {"shape": (100, 100, 100), "dtype": "float32"}, K,
             "xp.permute_dims(a3, (2, 0, 1))", "a3.permute(2, 0, 1)"),
        Case("views", "expand_dims view", p, K, "xp.expand_dims(a, axis=0)", "a.unsqueeze(0)"),
        Case("views", "unsqueeze view (method)", p, K, "xp.expand_dims(a, axis=0)", "a.unsqueeze(0)",
             per_lib={"strided": "a.unsqueeze(0)", "strided-cuda": "a.unsqueeze(0)"}),
        Case("views", "expand view (broadcast_to)", {"shape": (100, 100, 100), "dtype": "float32"}, K,
             "xp.broadcast_to(a1, (100, 100, 100))", "a1.expand(100, 100, 100)", prep="a1 = a3[:1, ...]"),
        Case("views", "slice view a[2:8]", p, K, "a[2:8]", per_lib={"array-api-strict": "a[2:8, ...]"}),
        Case("views", "mT view (3-D)", {"shape": (100, 100, 100), "dtype": "float32"}, K, "a3.mT"),
    ]


# --- (f) in-place and out= ----------------------------------------------------------------

def inplace(quick: bool) -> list[Case]:
    no_inplace = {"array-api-strict": "the standard has no in-place methods"}
    no_out = {"array-api-strict": "the standard has no out="}
    method = {"strided": "{m}", "strided-cuda": "{m}"}
    cases = []
    for n in (10, 10**6):
        K = ("vec", n, "float32")
        p = {"n": n, "dtype": "float32"}
        rows = [
            Case("inplace", "a + b (allocates)", p, K, "a + b"),
            Case("inplace", "a += b", p, K, "a += b", check=False, mutates=True),
            Case("inplace", "add_ (in-place method)", p, K, "xp.add(a, b, out=a)", "a.add_(b)",
                 per_lib={k: v.format(m="a.add_(b)") for k, v in method.items()},
                 skip=no_inplace, needs=("Array.add_",), check=False, mutates=True),
            Case("inplace", "mul_ (in-place method)", p, K, "xp.multiply(a, one, out=a)", "a.mul_(one)",
                 per_lib={k: v.format(m="a.mul_(one)") for k, v in method.items()},
                 skip=no_inplace, needs=("Array.mul_",), check=False, mutates=True),
            Case("inplace", "add out=", p, K, "xp.add(a, b, out=o)", "torch.add(a, b, out=o)",
                 skip=no_out, check=False, mutates=True),
            Case("inplace", "exp out=", p, K, "xp.exp(a, out=o)", "torch.exp(a, out=o)",
                 skip=no_out, check=False, mutates=True),
            Case("inplace", "copy_ (copy into)", p, K, "xp.copyto(a, b)", "a.copy_(b)",
                 per_lib={k: v.format(m="a.copy_(b)") for k, v in method.items()},
                 skip={"array-api-strict": "the standard has no copy_"}, needs=("Array.copy_",),
                 check=False, mutates=True),
            Case("inplace", "__setitem__ a[...] = b", p, K, "a[...] = b", check=False, mutates=True),
        ]
        for c in rows:
            c.alloc = True
        cases += rows
    return cases


# --- (g) autograd: an MLP training step ---------------------------------------------------

MLP = ("mlp", 128, 784, 256, 10)
LR = 0.01


def _mlp_manual(xp, amax, inp):
    """One SGD step with a hand-written backward pass (libraries without autograd)."""
    x, onehot, W1, b1, W2, b2 = (inp[k] for k in ("x", "onehot", "W1", "b1", "W2", "b2"))
    B = x.shape[0]

    def step():
        nonlocal W1, b1, W2, b2  # ``-=`` rebinds the names (to the same arrays)
        h = x @ W1 + b1
        r = xp.where(h > 0, h, 0.0)
        z = r @ W2 + b2
        m = amax(z)
        e = xp.exp(z - m)
        s = xp.sum(e, axis=1, keepdims=True)
        loss = xp.sum(onehot * (xp.log(s) + m - z)) / B
        dz = (e / s - onehot) / B
        dW2 = r.T @ dz
        db2 = xp.sum(dz, axis=0)
        dh = xp.where(h > 0, dz @ W2.T, 0.0)
        dW1 = x.T @ dh
        db1 = xp.sum(dh, axis=0)
        W1 -= LR * dW1
        b1 -= LR * db1
        W2 -= LR * dW2
        b2 -= LR * db2
        return loss

    return step


def _mlp_autograd(xp, amax, relu, no_grad, inp):
    """One SGD step through the library's autograd (PyTorch's API)."""
    x, onehot = inp["x"], inp["onehot"]
    params = [inp[k].requires_grad_() for k in ("W1", "b1", "W2", "b2")]
    W1, b1, W2, b2 = params
    B = x.shape[0]

    def step():
        z = relu(x @ W1 + b1) @ W2 + b2
        m = amax(z)
        loss = xp.sum(onehot * (xp.log(xp.sum(xp.exp(z - m), axis=1, keepdims=True)) + m - z)) / B
        loss.backward()
        with no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
        return loss.detach()  # (the check reads it on the host: a tensor that requires grad refuses)

    return step


def _amax(lib):
    """The row-wise max with kept dims (PyTorch's ``max`` returns indices too)."""
    f = lib.xp.amax if lib.kind == "torch" else lib.xp.max
    return lambda z: f(z, axis=1, keepdims=True)


def _build_mlp(autograd: bool):
    def build(lib, inp, ctx):
        xp = lib.xp
        if lib.kind == "torch":
            if autograd:
                step = _mlp_autograd(xp, _amax(lib), xp.relu, xp.no_grad, inp)
            else:
                step = _mlp_manual(xp, _amax(lib), inp)
        elif autograd and lib.is_strided:
            check_available(lib, "xp.max xp.sum xp.exp xp.log xp.maximum",
                            ("autograd", "Array.requires_grad_", "Array.backward", "Array.__matmul__"))
            no_grad = getattr(xp, "no_grad", None) or xp.autograd.no_grad
            step = _mlp_autograd(xp, _amax(lib), lambda h: xp.maximum(h, 0.0), no_grad, inp)
        else:
            check_available(lib, "xp.max xp.sum xp.exp xp.log xp.where", ("Array.__matmul__",))
            step = _mlp_manual(xp, _amax(lib), inp)
        return "step()", {"step": step}
    return build


def autograd(quick: bool) -> list[Case]:
    p = {"layers": "784-256-10", "batch": 128, "dtype": "float32"}
    return [
        Case("autograd", "MLP SGD step, autograd", p, MLP, build=_build_mlp(True), mutates=True,
             note="strided and torch use autograd; NumPy and array-api-strict (no autograd) run the "
                  "hand-written backward"),
        Case("autograd", "MLP SGD step, hand-written backward", p, MLP, build=_build_mlp(False), mutates=True),
    ]


# --- (h) save/load ---------------------------------------------------------------------

def _fsync_path(path):
    """What strided's ``save(fsync=True)`` does after writing: fsync the file, then its directory."""
    for p, flags in ((path, os.O_RDONLY), (os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)):
        fd = os.open(p, flags)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _build_io(load: bool, strided_kw: str = "", durable: bool = False):
    """Save or load ``a`` at a path; ``strided_kw`` adds strided's options (``fsync=False``,
    ``verify=False``); NumPy and PyTorch neither fsync nor verify checksums, so with
    ``durable=True`` their save is followed by the fsyncs strided's default save does."""
    def build(lib, inp, ctx):
        a = inp["a"]
        path = os.path.join(ctx["tmpdir"], f"{lib.name}.{'npy' if lib.name == 'numpy' else 'bin'}")
        sync = "; fsync_path(path)" if durable else ""
        if lib.name == "numpy":
            save, ld = "np.save(path, a)" + sync, "np.load(path)"
        elif lib.kind == "torch" and lib.device == "cpu":
            save, ld = "torch.save(a, path)" + sync, "torch.load(path)"
        elif lib.name == "strided":
            check_available(lib, "xp.save xp.load")
            kw = ", " + strided_kw if strided_kw else ""
            save, ld = f"xp.save(a, path{kw if not load else ''})", f"xp.load(path{kw if load else ''})"
        else:
            raise Skip(f"{lib.name} has no save/load of its own")
        ns = {"a": a, "path": path, "fsync_path": _fsync_path}
        if load:
            exec(save, lib.namespace() | ns)
        return (ld if load else save), ns
    return build


def io(quick: bool) -> list[Case]:
    cases = []
    for nbytes in ((2**20, 10 * 2**20) if quick else (2**20, 100 * 2**20)):
        p = {"MB": nbytes // 2**20, "dtype": "float32"}
        K = ("io", nbytes)
        cases += [
            Case("io", "save", p, K, build=_build_io(False, durable=True), check=False, mutates=True,
                 note="the same durability everywhere: strided's default save fsyncs the file and its "
                      "directory, and NumPy's and PyTorch's save are followed by the same two fsyncs"),
            Case("io", "save, fsync=False", p, K, build=_build_io(False, "fsync=False"), check=False,
                 mutates=True, note="the same durability everywhere: no fsync (strided still renames atomically)"),
            Case("io", "load", p, K, build=_build_io(True), mutates=True,
                 note="strided's default load verifies every record's CRC-32; NumPy and PyTorch verify nothing"),
            Case("io", "load, verify=False", p, K, build=_build_io(True, "verify=False"), mutates=True,
                 note="no checksums anywhere"),
        ]
    return cases


# --- (i) cost growth ---------------------------------------------------------------------

def growth_sizes(quick: bool) -> list[int]:
    top = 6 if quick else 7
    step = 1 if quick else 0.5
    return sorted({int(round(10 ** (k * step))) for k in range(int(top / step) + 1)})


def growth(quick: bool) -> list[Case]:
    return [Case("growth", op, {"n": n, "dtype": "float32"}, ("vec", n, "float32"), stmt)
            for op, stmt in (("add", "a + b"), ("sum", "xp.sum(a)")) for n in growth_sizes(quick)]


# --- issue 16 (kernels and memory): temporaries, default threads, a real workload ------------
# The "kernels" block: the buffer pool's effect on chains with temporaries, the thread pool
# at its default against PyTorch at its default, and array-API code users actually run.

def temporaries(quick: bool) -> list[Case]:
    """Expressions whose temporaries are multi-MB buffers (the pool reuses their memory)."""
    rows = [("a*b+c", "a * b + c", None),
            ("add(multiply(a, b), c)", "xp.add(xp.multiply(a, b), c)", "torch.add(torch.mul(a, b), c)"),
            # the elementwise chain of the MLP step: bias, ReLU, its mask, scaled update
            ("MLP chain", "xp.maximum(a * b + c, o) * (a > one) - 0.01 * c",
             "torch.maximum(a * b + c, o) * (a > one) - 0.01 * c")]
    sizes = (10**6,) if quick else (10**6, 10**7)
    # (The MLP chain multiplies by a bool mask, PyTorch's and NumPy's idiom; the standard has
    # no arithmetic on bool and array-api-strict refuses it: not run there, said so.)
    strict = {"array-api-strict": "multiplies by a bool mask, which the standard does not allow"}
    return [Case("temporaries", op, {"n": n, "dtype": dt}, ("vec", n, dt), stmt, torch,
                 skip=strict if op == "MLP chain" else {})
            for n in sizes for dt in ("float32", "float64") for op, stmt, torch in rows]


def _build_default_threads(stmt: str, torch_stmt: str | None = None):
    """Each library at its default thread count for the call (strided: the cores available,
    as ``set_num_threads`` defaults; PyTorch: its own default), then back to the pinned one."""
    def build(lib, inp, ctx):
        if lib.is_strided:
            check_available(lib, "xp.set_num_threads")
        code = torch_stmt if (lib.kind == "torch" and torch_stmt) else stmt
        at = _AtDefault(lib)
        if lib.is_strided:
            build.after = at.summary  # (run.py appends it to the case's note after timing)
        return f"_at_default(lambda: {code})", inp | {"_at_default": at}
    build.after = None
    return build


def _perf_ns():
    import time
    return time.perf_counter_ns()


def _thread_ns():
    import time
    return time.thread_time_ns()


class _AtDefault:
    """Calls a thunk with the library at its default thread count, then restores the pin.

    For strided it also counts what the C thread pool did over the calls (``pool_config()``'s
    counters): the calls made, the chunks its workers ran, the stalls it saw (a worker that
    lost its core mid-chunk) and the calls that started inside a back-off (run on the caller
    alone); ``summary()`` says it in words for the case's note."""

    def __init__(self, lib):
        import os
        self.set = None
        self.pool = None
        if lib.kind == "torch" or lib.is_strided:
            self.set, self.get = lib.xp.set_num_threads, lib.xp.get_num_threads
            # PyTorch's default is the physical cores available to it; strided's the cores available.
            self.default = len(os.sched_getaffinity(0))
        if lib.is_strided:
            try:
                from strided._core import cfast
                self.pool = cfast._ckernels.pool_config if cfast.AVAILABLE else None
            except ImportError:
                self.pool = None
        self.calls = self.chunks = self.stalls = self.in_backoff = 0
        self.alone, self.shared = [], []  # each call's (ns, caller's CPU ns): no worker chunk / some

    def __call__(self, thunk):
        if self.set is None:
            return thunk()
        pinned = self.get()
        self.set(self.default)
        pool = self.pool
        if pool is not None:
            before = pool()
            c0, t0 = _thread_ns(), _perf_ns()
        try:
            return thunk()
        finally:
            if pool is not None:
                t, c = _perf_ns() - t0, _thread_ns() - c0
                after = pool()
                self.calls += 1
                self.chunks += after[3] - before[3]
                self.stalls += after[5] - before[5]
                self.in_backoff += before[6] > 0
                (self.shared if after[3] > before[3] else self.alone).append((t, c))
            self.set(pinned)

    def summary(self) -> str:
        if self.pool is None or not self.calls:
            return ""
        def med(ts):  # the median call's time and the caller's CPU time in it
            if not ts:
                return "-"
            t, c = sorted(ts)[len(ts) // 2]
            return f"{t / 1e3:.0f} us, caller's CPU {c / 1e3:.0f} us"
        return (f"strided's C thread pool over {self.calls} calls: {self.chunks / self.calls:.1f} "
                f"worker chunks/call, {self.stalls} stalls, {self.in_backoff} calls in a back-off; "
                f"{len(self.shared)} calls with a worker's chunks (median {med(self.shared)}), "
                f"{len(self.alone)} on the caller alone (median {med(self.alone)})")


def threads(quick: bool) -> list[Case]:
    """Large elementwise ops and reductions with strided and PyTorch at their default threads."""
    rows = [("add", "a + b", None), ("exp", "xp.exp(a)", None), ("a*b+c", "a * b + c", None),
            ("sum", "xp.sum(a)", None), ("max", "xp.max(a)", "torch.amax(a)")]
    sizes = (10**6,) if quick else (10**6, 10**7)
    return [Case("threads", op, {"n": n, "dtype": "float32", "threads": "default"},
                 ("vec", n, "float32"), build=_build_default_threads(stmt, torch), settle_ms=20.0,
                 note="strided and torch at their default thread counts; NumPy has one; "
                      "20 ms pause before each batch (the other library's threads stop spinning)")
            for n in sizes for op, stmt, torch in rows]


_WORKLOADS = {
    "PCA fit": ("from sklearn.decomposition import PCA", "PCA(n_components=5, svd_solver='full').fit(X)"),
    # solver='svd' for all: scikit-learn picks 'svd' for every non-NumPy namespace under 'auto'
    "Ridge fit": ("from sklearn.linear_model import Ridge", "Ridge(alpha=1.0, solver='svd').fit(X, y)"),
    "LDA fit": ("from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as LDA",
                "LDA().fit(X, labels)"),
    "special.logsumexp": ("from scipy.special import logsumexp", "logsumexp(X, axis=1)"),
    "special.softmax": ("from scipy.special import softmax", "softmax(X, axis=1)"),
    "fft.rfft": ("from scipy import fft", "fft.rfft(X, axis=0)"),
    "stats.zscore": ("from scipy import stats", "stats.zscore(X, axis=0)"),
    "stats.skew": ("from scipy import stats", "stats.skew(X, axis=0)"),
}


def _build_workload(imp: str, stmt: str, sklearn: bool):
    def build(lib, inp, ctx):
        if lib.device != "cpu" or lib.name == "array-api-strict":
            raise Skip("CPU libraries with an array-api-compat namespace only")
        ns = lib.namespace() | inp
        try:
            exec(imp, ns)
        except ImportError as e:
            raise Skip(str(e)) from None
        if not sklearn:
            return stmt, ns
        ns["_dispatch"] = _with_array_api_dispatch
        return f"_dispatch(lambda: {stmt})", ns
    return build


def _with_array_api_dispatch(thunk):
    import sklearn
    with sklearn.config_context(array_api_dispatch=True):
        return thunk()


def workload(quick: bool) -> list[Case]:
    """scikit-learn and SciPy calls, array-API code users run, on each library's arrays."""
    shapes = ((100, 10), (5000, 200))
    return [Case("workload", op, {"shape": shape, "dtype": "float64"}, ("fit", shape),
                 build=_build_workload(imp, stmt, op.endswith("fit")), check=False,
                 note="array_api_dispatch=True for scikit-learn; results not compared")
            for shape in shapes for op, (imp, stmt) in _WORKLOADS.items()]


# --- issue 38: the mid-size sweep ------------------------------------------------------------
# Every size from 1 to 1e7, so that a threshold of the pool, the threads or the compiled hot
# path shows up as a step. glibc's malloc regime is fixed at process start: run the group once
# as is and once under MALLOC_MMAP_THRESHOLD_=131072 (``benchmarks/midsize.py`` does both);
# the regime is a parameter of every case so that the two runs' tables say which is which.

def midsize_sizes(quick: bool) -> list[int]:
    if quick:
        return [1000, 65536]
    return [1, 10, 100, 1000, 10**4, 30000, 60000, 65536, 10**5, 2 * 10**5, 5 * 10**5, 10**6, 10**7]


def malloc_regime() -> str:
    v = os.environ.get("MALLOC_MMAP_THRESHOLD_")
    return f"mmap>={v}" if v else "glibc default"


_MIDSIZE = [("add", "a + b", None), ("multiply", "a * b", None), ("less", "a < b", None),
            ("where", "xp.where(cond, a, b)", "torch.where(cond, a, b)"),
            ("sum", "xp.sum(a)", "torch.sum(a)"), ("max", "xp.max(a)", "torch.amax(a)"),
            ("exp", "xp.exp(a)", "torch.exp(a)"),
            ("relu", "xp.maximum(x, 0.0)", "torch.relu(x)"),
            ("take", "a[idx]", None)]


def midsize(quick: bool) -> list[Case]:
    """add, multiply, less, where, sum, max, exp, relu (NumPy: maximum(x, 0)) and integer indexing
    at every size from 1 to 1e7, float32 and float64 (ratios: strided / each peer and
    strided / min(NumPy, PyTorch))."""
    reg = malloc_regime()
    cases = []
    for dt in (("float32",) if quick else ("float32", "float64")):
        for op, stmt, torch in _MIDSIZE:
            for n in midsize_sizes(quick):
                p = {"n": n, "dtype": dt}
                if n * 4 > 65536:
                    p["malloc"] = reg
                per_lib = {"strided": "xp.relu(x)"} if op == "relu" else {}
                cases.append(Case("midsize", op, p, ("mid", n, dt), stmt, torch, per_lib=per_lib,
                                  note="relu: NumPy maximum(x, 0.0), PyTorch torch.relu, strided relu"
                                  if op == "relu" else ""))
    return cases


# --- issue 38: real work through the peers' array-API code paths -----------------------------
# The same scikit-learn / SciPy code on strided arrays and on NumPy's (and PyTorch's): what
# strided's namespace costs inside code written for any array library.

_REALWORK = dict(_WORKLOADS)
_REALWORK.update({
    "StandardScaler fit_transform": ("from sklearn.preprocessing import StandardScaler",
                                     "StandardScaler().fit_transform(X)"),
    "MinMaxScaler fit_transform": ("from sklearn.preprocessing import MinMaxScaler",
                                   "MinMaxScaler().fit_transform(X)"),
    # lbfgs is the solver scikit-learn 1.9 takes array-API inputs with
    "LogisticRegression fit": ("from sklearn.linear_model import LogisticRegression",
                               "LogisticRegression(max_iter=20, tol=0.0).fit(X, labels)"),
    "signal.detrend": ("from scipy import signal", "signal.detrend(X, axis=0)"),
})


def realwork(quick: bool) -> list[Case]:
    """scikit-learn estimators and SciPy functions with array-API dispatch on, each on every
    library's own arrays through the same code path (ratios: strided's arrays vs NumPy's)."""
    shapes = ((200, 10),) if quick else ((1000, 20), (5000, 200))
    # (--quick, the CI smoke run: the calls group (l) does not already make)
    ops = {k: v for k, v in _REALWORK.items() if not quick or k not in _WORKLOADS}
    return [Case("realwork", op, {"shape": shape, "dtype": "float64"}, ("fit", shape),
                 build=_build_workload(imp, stmt, op.split()[0][0].isupper()), check=False,
                 note="array_api_dispatch=True for scikit-learn, SCIPY_ARRAY_API=1; results not compared")
            for shape in shapes for op, (imp, stmt) in ops.items()]


GROUPS = {
    "tiny": ("(a) per-op overhead on tiny (10-element) arrays", tiny),
    "elementwise": ("(b) large elementwise", elementwise),
    "reductions": ("(c) reductions over a 2-D array", reductions),
    "matmul": ("(d) matmul, square n x n", matmul),
    "views": ("(e) views vs copies", views),
    "inplace": ("(f) in-place and out= (bytes allocated per call from tracemalloc)", inplace),
    "autograd": ("(g) autograd: MLP 784-256-10, batch 128, float32, one SGD step", autograd),
    "io": ("(h) save/load (page cache warm: serialisation and copies, not the disk)", io),
    "growth": ("(i) cost growth: time vs size, float32", growth),
    # issue 16 (kernels and memory)
    "temporaries": ("(j) expressions with multi-MB temporaries (the buffer pool)", temporaries),
    "threads": ("(k) large ops at default threads (strided, PyTorch) vs NumPy", threads),
    "workload": ("(l) scikit-learn and SciPy on each library's arrays (array-api-compat)", workload),
    # issue 31
    "named": ("(m) named dimensions: each case on plain, then on named strided arrays", named),
    # issue 38
    "midsize": ("(n) the size sweep 1 .. 1e7 (thresholds show as steps; see malloc)", midsize),
    "realwork": ("(o) scikit-learn estimators and SciPy functions, array-API dispatch on", realwork),
}
