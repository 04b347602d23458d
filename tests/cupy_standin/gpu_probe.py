"""Issue 39's Part B questions, asked of real CuPy and of the stand-in, side by side.

On a machine with an NVIDIA GPU and CuPy, from the project's root:

    PYTHONPATH=src python tests/cupy_standin/gpu_probe.py [--json OUT.json]

Each question runs twice: on the installed ``cupy`` (the GPU) and on a private copy of
the stand-in (``tests/cupy_standin/cupy``, loaded as a module of its own, as
``tests/conftest.py`` loads it for ``sim``). One line per question says what each answered
and whether they AGREE; every DIFFER is an entry of ``cupy/_cupy_differences.py`` to
correct (or a new one to add), citing this run's log. Then the same questions of strided
on cpu and cuda, where the standard fixes the answer. Without a GPU the script runs the
stand-in against itself (``PYTHONPATH=src:tests/cupy_standin``): every line AGREEs,
which checks the script. It needs about 10 s of GPU time (the first call of each kernel
compiles it).
"""

from __future__ import annotations

import importlib.util
import json
import math
import pathlib
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
HERE = pathlib.Path(__file__).resolve().parent


def _load_standin():
    path = HERE / "cupy"
    spec = importlib.util.spec_from_file_location("_probe_standin", path / "__init__.py",
                                                  submodule_search_locations=[str(path)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_probe_standin"] = mod
    spec.loader.exec_module(mod)
    return mod


def _plain(v):
    """A JSON-able, sign- and NaN-exact form of an answer (floats as their repr)."""
    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    if isinstance(v, (list, tuple)):
        return [_plain(e) for e in v]
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (complex, np.complexfloating)):
        return f"({_plain(v.real)}, {_plain(v.imag)})"
    if isinstance(v, (np.integer, np.bool_)):
        return v.item()
    return v


def _ask(fn, cp):
    d = getattr(cp, "_cupy_differences", None)
    if d is not None:  # a stand-in: its random scatter order restarts for every question
        d._scatters[0] = 0
    try:
        return _plain(fn(cp))
    except Exception as e:  # noqa: BLE001 - an error is an answer
        return f"raises {type(e).__name__}: {str(e)[:110]}"


QUESTIONS = []


def q(name):
    def deco(fn):
        QUESTIONS.append((name, fn))
        return fn
    return deco


def h(cp, a):
    return cp.asnumpy(a)


# --- floor_divide / remainder ----------------------------------------------------------

@q("remainder(1., 0.1) (an fma contraction gives -5.551115123125783e-17)")
def _(cp):
    return h(cp, cp.remainder(cp.asarray([1.0]), cp.asarray([0.1])))


@q("floor_divide 1//0.1, inf//2, -1//inf, -0.//inf, -1.//-0.")
def _(cp):
    return h(cp, cp.floor_divide(cp.asarray([1.0, math.inf, -1.0, -0.0, -1.0]),
                                 cp.asarray([0.1, 2.0, math.inf, math.inf, -0.0])))


@q("remainder 1.%-inf, -1.%inf, -0.%-1., 0.%-1.")
def _(cp):
    return h(cp, cp.remainder(cp.asarray([1.0, -1.0, -0.0, 0.0]),
                              cp.asarray([-math.inf, math.inf, -1.0, -1.0])))


def _half_grid():
    g = np.linspace(-8, 8, 65, dtype=np.float16)
    d = np.asarray([0.1, 0.3, -0.7, 3.0, 0.030426025390625, -8.392333984375e-05, 14.53125], np.float16)
    x, y = np.meshgrid(g, d)
    x = np.concatenate([x.ravel(), np.asarray([-85.875, -1.845703125, -2804.0, 16016.0], np.float16)])
    y = np.concatenate([y.ravel(), np.asarray([0.030426025390625, -8.392333984375e-05, 14.53125, 10.328125],
                                              np.float16)])
    return x, y


@q("float16 floor_divide grid: the answers' float16 bits")
def _(cp):
    x, y = _half_grid()
    return h(cp, cp.floor_divide(cp.asarray(x), cp.asarray(y))).view(np.uint16)


@q("float16 remainder grid: the answers' float16 bits")
def _(cp):
    x, y = _half_grid()
    return h(cp, cp.remainder(cp.asarray(x), cp.asarray(y))).view(np.uint16)


# --- signs of zero through writes ---------------------------------------------------------

def _signs(cp, write, dtype="float64", shape=(2,)):
    a = cp.full(shape, -1.0, dtype=dtype)
    write(cp, a)
    r = h(cp, a)
    return np.signbit(r.real).tolist() + (np.signbit(r.imag).tolist() if r.dtype.kind == "c" else [])


for _label, _w in [
        ("fill(-0.0)", lambda cp, a: a.fill(-0.0)),
        ("a[...] = -0.0", lambda cp, a: a.__setitem__(Ellipsis, -0.0)),
        ("a[::2] = -0.0 (a non-contiguous view)", lambda cp, a: a.__setitem__(slice(None, None, 2), -0.0)),
        ("a[[0]] = -0.0", lambda cp, a: a.__setitem__(cp.asarray([0]), -0.0)),
        ("a[[0]] = -0.0 (a list key)", lambda cp, a: a.__setitem__([0], -0.0)),
        ("a[mask] = -0.0", lambda cp, a: a.__setitem__(cp.asarray([True, False]), -0.0)),
        ("a[[0]] = full((), -0.0) (a device value)",
         lambda cp, a: a.__setitem__(cp.asarray([0]), cp.full((), -0.0))),
        ("a[[0, 1]] = np.asarray([-0.0, 5.0]) (a host array)",
         lambda cp, a: a.__setitem__(cp.asarray([0, 1]), np.asarray([-0.0, 5.0])))]:
    q(f"signbit after {_label}")(lambda cp, _w=_w: _signs(cp, _w))
q("signbit after complex a[mask] = -0.0-0.0j")(
    lambda cp: _signs(cp, lambda cp, a: a.__setitem__(cp.asarray([True, False]), complex(-0.0, -0.0)),
                      dtype="complex128"))


@q("duplicate-index scatter a[i] = v, i = arange(10000) % 2, 5 runs (CuPy's docstring: 'undefined')")
def _(cp):
    i = cp.arange(10000) % 2
    v = cp.arange(10000).astype(cp.float64)
    out = []
    for _ in range(5):
        a = cp.zeros(2)
        a[i] = v
        out.append(h(cp, a).tolist())
    return out


@q("duplicate-index scatter a[[0, 0, 0]] = [1, 2, 3], 8 runs")
def _(cp):
    out = []
    for _ in range(8):
        a = cp.zeros(1)
        a[cp.asarray([0, 0, 0])] = cp.asarray([1.0, 2.0, 3.0])
        out.append(float(h(cp, a)[0]))
    return out


# --- -ftz on a float32 subnormal ------------------------------------------------------------

_SUB = np.float32(1e-40)
for _fname, _f in [
        ("copysign(1e-40f, 1)", lambda cp, a: cp.copysign(a, cp.asarray([1.0], np.float32))),
        ("negative(1e-40f)", lambda cp, a: cp.negative(a)),
        ("abs(1e-40f)", lambda cp, a: cp.abs(a)),
        ("equal(1e-40f, 0)", lambda cp, a: cp.equal(a, cp.asarray([0.0], np.float32))),
        ("maximum(1e-40f, 0)", lambda cp, a: cp.maximum(a, cp.asarray([0.0], np.float32))),
        ("nextafter(1e-40f, 1)", lambda cp, a: cp.nextafter(a, cp.asarray([1.0], np.float32))),
        ("1e-40f * 1", lambda cp, a: a * cp.asarray([1.0], np.float32)),
        ("log(1e-40f)", lambda cp, a: cp.log(a)),
        ("astype(float64) of 1e-40f", lambda cp, a: a.astype(np.float64)),
        ("copy() of 1e-40f", lambda cp, a: a.copy()),
        ("sum of [1e-40f, 1e-40f]", lambda cp, a: cp.concatenate([a, a]).sum())]:
    q(f"-ftz: {_fname}")(lambda cp, _f=_f: h(cp, _f(cp, cp.asarray([_SUB], dtype=np.float32))))


@q("fmax(+0,-0), fmax(-0,+0), fmin(+0,-0), fmin(-0,+0): signbits")
def _(cp):
    p, m = cp.asarray([0.0]), cp.asarray([-0.0])
    return [bool(np.signbit(h(cp, f(x, y))[0])) for f in (cp.fmax, cp.fmin) for x, y in ((p, m), (m, p))]


@q("maximum(+0,-0), maximum(-0,+0), minimum(+0,-0), minimum(-0,+0): signbits")
def _(cp):
    p, m = cp.asarray([0.0]), cp.asarray([-0.0])
    return [bool(np.signbit(h(cp, f(x, y))[0])) for f in (cp.maximum, cp.minimum) for x, y in ((p, m), (m, p))]


# --- linalg -----------------------------------------------------------------------------

_S = [[0.0, 1.0], [0.0, 1.0]]
q("inv([[0, 1], [0, 1]]) C order")(lambda cp: h(cp, cp.linalg.inv(cp.asarray(np.asarray(_S, order="C")))))
q("inv([[0, 1], [0, 1]]) F order")(lambda cp: h(cp, cp.linalg.inv(cp.asarray(np.asarray(_S, order="F")))))
q("inv(zeros((2, 2)))")(lambda cp: h(cp, cp.linalg.inv(cp.zeros((2, 2)))))
q("batched inv of [[[0, 1], [0, 1]], eye(2)]")(
    lambda cp: h(cp, cp.linalg.inv(cp.asarray([_S, [[1.0, 0.0], [0.0, 1.0]]]))))
q("batched solve of [[[0, 1], [0, 1]], zeros] @ x = ones")(
    lambda cp: h(cp, cp.linalg.solve(cp.asarray([_S, [[0.0, 0.0], [0.0, 0.0]]]), cp.ones((2, 2, 1)))))
q("solve([[0, 1], [0, 1]], ones(2))")(lambda cp: h(cp, cp.linalg.solve(cp.asarray(_S), cp.ones(2))))
q("cholesky 3x3 non-PD [[1, 2, 3], [2, 1, 4], [3, 4, 1]]")(
    lambda cp: h(cp, cp.linalg.cholesky(cp.asarray([[1.0, 2, 3], [2, 1, 4], [3, 4, 1]]))))
q("cholesky 3x3 PD then non-PD pivot [[4, 2, 0], [2, 2, 3], [0, 3, 1]]")(
    lambda cp: h(cp, cp.linalg.cholesky(cp.asarray([[4.0, 2, 0], [2, 2, 3], [0, 3, 1]]))))


def _raising(cp, fn):
    if cp.__name__ == "_probe_standin":
        d = cp._cupy_differences
        d.set_linalg_errors("raise")
        try:
            return fn(cp)
        finally:
            d.set_linalg_errors("ignore")
    import cupyx
    with cupyx.errstate(linalg="raise"):
        return fn(cp)


q("errstate(linalg='raise'): inv(zeros((2, 2)))")(
    lambda cp: _raising(cp, lambda cp: cp.linalg.inv(cp.zeros((2, 2)))))
q("errstate(linalg='raise'): batched inv(zeros((2, 2, 2)))")(
    lambda cp: _raising(cp, lambda cp: cp.linalg.inv(cp.zeros((2, 2, 2)))))
q("errstate(linalg='raise'): batched solve(zeros((2, 2, 2)), ones((2, 2, 1)))")(
    lambda cp: _raising(cp, lambda cp: cp.linalg.solve(cp.zeros((2, 2, 2)), cp.ones((2, 2, 1)))))
q("errstate(linalg='raise'): cholesky non-PD")(
    lambda cp: _raising(cp, lambda cp: cp.linalg.cholesky(cp.asarray([[1.0, 2.0], [2.0, 1.0]]))))


# --- complex, casts, indices, DLPack -------------------------------------------------------

q("expm1(1e-20+0j) (complex.cuh: exp(z) - 1)")(lambda cp: h(cp, cp.expm1(cp.asarray([complex(1e-20, 0.0)]))))
q("log1p(1e-10+1e-10j) (complex.cuh: log(z + 1))")(
    lambda cp: h(cp, cp.log1p(cp.asarray([complex(1e-10, 1e-10)]))))
q("log1p(-1e-8+1.4142135623730951e-4j) (thrust clog near |w| = 1)")(
    lambda cp: h(cp, cp.log1p(cp.asarray([complex(-1e-8, 1.4142135623730951e-4)]))))
q("expm1(inf+nanj), expm1(-inf+1j)")(lambda cp: h(cp, cp.expm1(cp.asarray([complex(math.inf, math.nan),
                                                                           complex(-math.inf, 1.0)]))))

_CAST_IN = [math.inf, -math.inf, math.nan, -1.0, 300.0, -129.0, 1e10, -2.9]
for _src in ("float32", "float64"):
    for _dst in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"):
        q(f"astype {_src} -> {_dst} of [inf, -inf, nan, -1, 300, -129, 1e10, -2.9]")(
            lambda cp, _s=_src, _d=_dst: h(cp, cp.asarray(np.asarray(_CAST_IN, _s)).astype(_d)))
q("float16 -> int32 of [inf, nan, -1]")(
    lambda cp: h(cp, cp.asarray(np.asarray([math.inf, math.nan, -1.0], np.float16)).astype(np.int32)))

q("arange(3.)[[5, -4]] (out of bounds)")(lambda cp: h(cp, cp.arange(3.0)[cp.asarray([5, -4])]))
q("arange(3.)[[5]] with a list key")(lambda cp: h(cp, cp.arange(3.0)[[5]]))
q("take(arange(3.), [4])")(lambda cp: h(cp, cp.take(cp.arange(3.0), cp.asarray([4]))))
q("arange(6.).reshape(2, 3)[[0], [3]] (two index arrays)")(
    lambda cp: h(cp, cp.arange(6.0).reshape(2, 3)[cp.asarray([0]), cp.asarray([3])]))
q("a = arange(3); a[[1, 3]] = 10")(
    lambda cp: h(cp, (lambda a: (a.__setitem__(cp.asarray([1, 3]), 10), a)[1])(cp.arange(3))))
q("arange(3.)[5] (an int)")(lambda cp: h(cp, cp.arange(3.0)[5]))
q("take_along_axis(arange(3.), [3], 0)")(
    lambda cp: h(cp, cp.take_along_axis(cp.arange(3.0), cp.asarray([3]), 0)))
q("a[:2] = np.asarray([1., 2.]) (a host array, basic key)")(
    lambda cp: h(cp, (lambda a: (a.__setitem__(slice(0, 2), np.asarray([1.0, 2.0])), a)[1])(cp.zeros(3))))
q("__dlpack__(copy=True) on the device")(lambda cp: type(cp.arange(3.0).__dlpack__(copy=True)).__name__)
q("__dlpack__(dl_device=(1, 0), copy=False)")(
    lambda cp: type(cp.arange(3.0).__dlpack__(dl_device=(1, 0), copy=False)).__name__)


# --- strided on cpu and cuda: the standard's answers --------------------------------------------

def _strided_questions(xp):
    out = []

    def ask(name, fn):
        row = {}
        for dev in ("cpu", "cuda"):
            try:
                row[dev] = _plain(fn(lambda v, **k: xp.asarray(v, device=dev, **k)))
            except Exception as e:  # noqa: BLE001
                row[dev] = f"raises {type(e).__name__}: {str(e)[:80]}"
        out.append((name, row))

    def host(a):
        return np.asarray(a.cpu())
    ask("remainder(1., 0.1), 1. // 0.1", lambda a: [host(xp.remainder(a([1.0]), a([0.1]))),
                                                   host(xp.floor_divide(a([1.0]), a([0.1])))])
    x, y = _half_grid()
    ask(f"float16 floor_divide grid: equal to NumPy's (of {x.size})", lambda a: int(np.sum(
        host(xp.floor_divide(a(x), a(y))) == np.floor_divide(x, y))))
    ask("x[[0]] = -0.0; x[mask] = -0.0; x.fill_(-0.0): signbits", lambda a: [
        bool(np.signbit(host((lambda v: (v.__setitem__([0], -0.0), v)[1])(a([-1.0, -1.0])))[0])),
        bool(np.signbit(host((lambda v: (v.__setitem__(a([True, False]), -0.0), v)[1])(a([-1.0, -1.0])))[0])),
        bool(np.signbit(host(a([-1.0]).fill_(-0.0))[0]))])
    ask("expm1(1e-20+0j)", lambda a: host(xp.expm1(a([complex(1e-20, 0.0)], dtype=xp.complex128))))
    ask("inv([[0, 1], [0, 1]])", lambda a: host(xp.linalg.inv(a(_S))))
    ask("astype int32 of [inf, nan, -1] (undefined: each device's own)",
        lambda a: host(a([math.inf, math.nan, -1.0]).astype(xp.int32)))
    ask("x[[5]] on 3 elements (a host index: IndexError)", lambda a: host(a([1.0, 2.0, 3.0])[[5]]))
    ask("x[asarray([5])] (a device index: unchecked off the cpu)",
        lambda a: host(a([1.0, 2.0, 3.0])[a([5])]))
    ask("__dlpack__(copy=True)", lambda a: type(a([1.0]).__dlpack__(copy=True)).__name__)
    return out


def main(argv):
    import cupy as real
    standin = _load_standin()
    on_gpu = not hasattr(real.cuda, "d2h_copies")  # (the stand-in counts host copies)
    print(f"cupy {real.__version__ if on_gpu else '(the stand-in)'}, numpy {np.__version__}, "
          f"{'a GPU' if on_gpu else 'the stand-in against itself (no GPU)'}")
    if on_gpu:
        try:
            props = real.cuda.runtime.getDeviceProperties(0)
            print("device:", props["name"].decode() if isinstance(props["name"], bytes) else props["name"])
        except Exception:  # noqa: BLE001
            pass
    rows, differ = [], 0
    for name, fn in QUESTIONS:
        a, b = _ask(fn, real), _ask(fn, standin)
        same = a == b
        differ += not same
        rows.append({"question": name, "cupy": a, "standin": b, "agree": same})
        if same:
            print(f"AGREE   {name}: {str(a)[:200]}")
        else:
            print(f"DIFFER  {name}:\n    cupy:     {str(a)[:400]}\n    stand-in: {str(b)[:400]}")
    print(f"== {len(QUESTIONS)} questions, {differ} where the stand-in differs from "
          f"{'CuPy' if on_gpu else 'itself'}")
    strided_rows = []
    try:
        import strided as xp
        print("== strided on cpu and cuda")
        strided_rows = _strided_questions(xp)
        for name, row in strided_rows:
            tag = "SAME  " if row["cpu"] == row["cuda"] else "DEVICE"
            print(f"{tag}  {name}: cpu {str(row['cpu'])[:150]} | cuda {str(row['cuda'])[:150]}")
    except Exception as e:  # noqa: BLE001
        print("strided:", type(e).__name__, e)
    if "--json" in argv:
        path = argv[argv.index("--json") + 1]
        with open(path, "w") as f:
            json.dump({"cupy": rows, "strided": strided_rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
