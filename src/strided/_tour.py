"""A short tour of strided: storage, views, strides, NumPy sharing, arithmetic.

Run it with ``python -m strided`` (or ``python examples/tour.py`` in a checkout, which
runs this module). Each step prints the code and what it gives, like an interactive
session. It lives inside the package so that an installed wheel has it too.
"""

from __future__ import annotations

import sys

import numpy as np

import strided as xp

SECTIONS = [
    ("An array is a view of a flat storage", """
points = xp.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
points
points.storage()
points.shape, points.stride(), points.storage_offset()
"""),
    ("Indexing makes views: new offset, shape and strides over the same storage", """
second = points[1]
second.storage_offset(), second.stride()
second.storage() is points.storage()
second[0] = 10.0        # writes go through to the base
points
"""),
    ("Transposing swaps strides; contiguous() copies into row-major order", """
pt = points.t()
pt.stride(), pt.is_contiguous(), pt.storage() is points.storage()
c = pt.contiguous()
c.storage().tolist(), c.stride()
xp.ones(3, 4, 5).transpose(0, 2).stride()
"""),
    ("More views: flip (negative strides), broadcast (stride 0), diagonal, view", """
v = xp.arange(12).view(2, 2, -1)
v.shape
xp.flip(v, axis=2).stride()
xp.broadcast_to(xp.arange(3), (2, 3)).stride()
m = xp.arange(9.0).reshape(3, 3)
xp.diagonal(m), xp.diagonal(m).stride()
z = xp.asarray([1 + 2j, 3 + 4j])
z.real[0] = 100.0       # real and imag are views too
z
"""),
    ("NumPy arrays share memory in both directions", """
a = np.arange(6.0).reshape(2, 3)
x = xp.asarray(a, device="cpu")  # no copy: same memory (host memory, whatever the default)
x[0, 0] = -1.0
a[0, 0]
a[1, 2] = 42.0
x[1, 2].item()
n = x.t().numpy()       # a NumPy view of a strided view
n.strides, np.shares_memory(n, a)
"""),
    ("Arithmetic broadcasts, with PyTorch's default dtypes and promotion", """
y = xp.arange(3, dtype=xp.int16) * xp.asarray([0.5, 1.5, 2.5], dtype=xp.float64)
y, y.dtype
xp.ones((2, 1)) + xp.arange(3.0)
(xp.arange(5) ** 2).tolist(), xp.sum(xp.arange(5.0)).item()
xp.asarray([[1.0, 2.0], [3.0, 4.0]]) @ xp.asarray([1.0, 1.0])
"""),
    ("It is an Array API namespace: array-API-aware code takes it as is", """
xp.__array_api_version__, xp.asarray(1.0).__array_namespace__() is xp
xp.linalg.det(xp.asarray([[2.0, 1.0], [1.0, 3.0]]))
"""),
]


def run(out=sys.stdout) -> None:
    """Print every section: each statement, and the value of each expression."""
    ns = {"xp": xp, "np": np}
    for title, code in SECTIONS:
        print(f"\n== {title}", file=out)
        for line in code.strip().splitlines():
            print(f">>> {line}", file=out)
            stmt = line.split("#")[0].strip()
            try:
                value = eval(compile(stmt, "<tour>", "eval"), ns)
            except SyntaxError:
                exec(compile(stmt, "<tour>", "exec"), ns)
                continue
            if value is not None:
                print(repr(value), file=out)


if __name__ == "__main__":
    run()
