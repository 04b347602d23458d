"""Differential testing: the compiled paths against the Python definitions.

DESIGN.md: "A fast path is the reference, faster -- never different." Hypothesis
writes small programs -- operators and namespace functions nested so that their
temporaries cross the elision threshold (_ELIDE_BYTES), views, in-place operators,
and the calls that hand a temporary over borrowed: ``f(*args)``,
``operator.add(*args)``, ``functools.partial``, ``itertools.starmap``,
``ThreadPool.starmap``, NumPy's object loop (``obj1(t) + 1``, ``np.frompyfunc``) --
and each program runs twice: here (the compiled paths, when built) and in a worker
process started with ``STRIDED_NO_CEXT=1`` (the Python definitions, nothing
compiled). The two runs must agree on every value (bit for bit: NaN payloads,
signed zeros), dtype, shape, name, ``requires_grad``, ``grad_fn`` and error (type
and message), and on the gradients of a final backward pass; and in each run every
array the program holds (its inputs, each value it bound, the items of the tuples,
lists, partials and object arrays it built) must be as it was when made. The
runner is _differential_runner.py.

docs/reliability.md has the figures of a run.
"""

from __future__ import annotations

import collections
import os
import pathlib

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from strided._api import elementwise
from strided._core import dispatch

from . import _differential_runner as runner, _worker

HERE = pathlib.Path(__file__).resolve().parent
# CI runs the same 500 programs each time (derandomized); STRIDED_DIFFERENTIAL_SEED=n
# draws others, STRIDED_DIFFERENTIAL_EXAMPLES=n runs more (or fewer).
EXAMPLES = int(os.environ.get("STRIDED_DIFFERENTIAL_EXAMPLES", "500"))
SEED = os.environ.get("STRIDED_DIFFERENTIAL_SEED") or None

# --- the worker: the same runner under STRIDED_NO_CEXT=1 ------------------------------------


class Worker(_worker.Worker):
    def __init__(self):
        super().__init__(HERE / "_differential_runner.py")

    def run(self, program, spec) -> dict:
        return self.ask((program, spec))


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


# --- programs ------------------------------------------------------------------------------

BIG = (256, 160)  # 327,680 bytes in float64 and int64: above _ELIDE_BYTES (256 KiB)
SMALL = (3, 4)    # the small-array fast path
assert BIG[0] * BIG[1] * 8 > elementwise._ELIDE_BYTES

# (dtype, shape); I0 and I1 get random requires_grad and names
INPUTS = [("float64", BIG), ("float64", BIG), ("float64", BIG), ("float32", BIG),
          ("int64", BIG), ("float64", (1, BIG[1])), ("float64", SMALL), ("bool", BIG),
          ("int64", SMALL)]

# Each statement draws from one "world" of operands and operations that mostly fit
# together (most statements compute; the rest raise, and the errors are compared too):
# big floats, big integers and booleans, the small arrays, or everything mixed.
CMP = ["==", "!=", "<", "<=", ">", ">="]
ARITH = ["+", "-", "*", "/", "//", "%", "**"]
BITS = ["&", "|", "^", "<<", ">>"]
WORLDS = {
    "float": dict(arrays=["I0", "I1", "I2", "I3", "I5"], ops=ARITH + CMP,
                  fn2=["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow",
                       "maximum", "minimum", "atan2", "hypot", "copysign", "logaddexp", "nextafter",
                       "equal", "less", "greater_equal"],
                  fn1=["exp", "log", "sqrt", "sin", "negative", "abs", "floor", "square", "sign",
                       "isnan", "positive"],
                  uops=["-{}", "+{}", "abs({})"], scalars=["2.0", "3", "-1.5", "0.5", "-0.0", "1e308", "0"]),
    "int": dict(arrays=["I4", "I4", "I7"], ops=ARITH + CMP + BITS,
                fn2=["add", "subtract", "multiply", "floor_divide", "remainder", "pow", "maximum",
                     "minimum", "equal", "less", "bitwise_and", "bitwise_or", "bitwise_xor",
                     "bitwise_left_shift", "bitwise_right_shift", "logical_and"],
                fn1=["negative", "abs", "square", "sign", "bitwise_invert", "positive"],
                uops=["-{}", "+{}", "abs({})", "~{}"], scalars=["2", "3", "-1", "True", "0"]),
    "small": dict(arrays=["I6", "I8"], ops=ARITH + CMP + BITS,
                  fn2=["add", "subtract", "multiply", "divide", "pow", "maximum", "bitwise_and"],
                  fn1=["exp", "negative", "abs", "sign"], uops=["-{}", "+{}", "abs({})", "~{}"],
                  scalars=["2.0", "3", "True", "(1+2j)"]),
}
WORLDS["mixed"] = {k: sorted({v for w in WORLDS.values() for v in w[k]}) for k in WORLDS["float"]}
OPMOD = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "xor", "lshift", "lt", "eq"]
IOPS = ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>="]
VIEWS = ["{}[::2]", "{}[1:]", "{}.T", "xp.reshape({}, (-1,))", "{}[0]", "xp.permute_dims({}, (1, 0))",
         "{}.mT", "xp.expand_dims({}, axis=0)"]


@st.composite
def temp(draw, w, held, depth=2):
    """An expression whose value is a fresh temporary (a kernel result nobody holds), from
    world w's operands, or earlier statements' values (held)."""
    kind = draw(st.integers(0, 6))

    def array():
        if held and draw(st.integers(0, 3)) == 0:
            return draw(st.sampled_from(held))
        return draw(st.sampled_from(w["arrays"]))

    def sub(scalar=True):
        if depth > 0 and draw(st.booleans()):
            return draw(temp(w, held, depth - 1))
        if scalar and draw(st.integers(0, 4)) == 0:
            return draw(st.sampled_from(w["scalars"]))
        return array()

    if kind == 0:
        return f"({sub()} {draw(st.sampled_from(w['ops']))} {sub()})"
    if kind == 1:
        return f"xp.{draw(st.sampled_from(w['fn2']))}({sub()}, {sub()})"
    if kind == 2:
        return f"xp.{draw(st.sampled_from(w['fn1']))}({sub(False)})"
    if kind == 3:
        return draw(st.sampled_from(w["uops"])).format(f"({sub(False)})")
    if kind == 4:
        return draw(st.sampled_from(VIEWS)).format(f"({sub(False)})")
    # the shapes of elision: a temporary first, a temporary second, both; reflected
    op = draw(st.sampled_from(w["ops"]))
    a, b = array(), array()
    f = draw(st.sampled_from(w["fn2"]))
    return draw(st.sampled_from([f"(({a} * {b}) {op} {sub()})", f"({sub()} {op} ({a} - {b}))",
                                 f"xp.{f}(xp.multiply({a}, {b}), {sub()})",
                                 f"xp.{f}({sub()}, xp.square({a}))",
                                 f"({draw(st.sampled_from(w['scalars']))} {op} ({a} + {b}))",
                                 f"(({a} + {b}) {op} ({a} * {b}))"]))


@st.composite
def programs(draw):
    prog, held = [], []
    for _ in range(draw(st.integers(1, 6))):
        k = len(prog)
        v, h, r = f"v{k}", f"v{k}", f"v{k + 1}"
        w = WORLDS[draw(st.sampled_from(["float", "float", "int", "small", "mixed"]))]
        form = draw(st.sampled_from(["expr", "expr", "expr", "args", "partial", "starmap",
                                     "threads", "objloop", "frompyfunc", "inplace", "view"]))
        f = draw(st.sampled_from(w["fn2"]))
        t = draw(temp(w, held, 2 if form in ("expr", "inplace") else 1))
        a = draw(st.sampled_from(w["scalars"])) if draw(st.booleans()) else draw(st.sampled_from(w["arrays"]))
        if form == "expr":
            prog.append((v, f"{v} = {t}"))
        elif form == "args":
            pair = draw(st.sampled_from([f"({t}, {a})", f"({a}, {t})"]))
            call = draw(st.sampled_from([f"xp.{f}(*{h})",
                                         f"operator.{draw(st.sampled_from(OPMOD))}(*{h})"]))
            prog += [(h, f"{h} = {pair}"), (r, f"{r} = {call}")]
        elif form == "partial":
            prog += [(h, f"{h} = functools.partial(xp.{f}, {t})"), (r, f"{r} = {h}({a})")]
        elif form in ("starmap", "threads"):
            call = (f"list(itertools.starmap(xp.{f}, {h}))" if form == "starmap"
                    else f"tstarmap(xp.{f}, {h})")
            prog += [(h, f"{h} = [({t}, {a}), ({draw(temp(w, held, 1))}, {a})]"), (r, f"{r} = {call}")]
        elif form == "objloop":
            op = draw(st.sampled_from(w["ops"]))
            s = draw(st.sampled_from(w["scalars"]))
            use = draw(st.sampled_from([f"{h} {op} {s}", f"{s} {op} {h}", f"{h} {op} {h}"]))
            prog += [(h, f"{h} = obj1({t})"), (r, f"{r} = {use}")]
        elif form == "frompyfunc":
            prog += [(h, f"{h} = obj1({t})"), (r, f"{r} = np.frompyfunc(xp.{f}, 2, 1)({h}, obj1({a}))")]
        elif form == "inplace":
            base = draw(st.sampled_from(w["arrays"]))
            # the operand: the temporary, a row or a column of it (``X -= row``: broadcast
            # over the target), or a row of the target itself (a partial overlap)
            operand = draw(st.sampled_from([t, t, f"({t})[0]", f"({t})[:, :1]", f"{v}[0]", f"{v}[1:2]"]))
            prog.append((v, f"{v} = xp.asarray({base}, copy=True); {v} {draw(st.sampled_from(IOPS))} {operand}"))
        else:
            view = draw(st.sampled_from(VIEWS)).format(draw(st.sampled_from(w["arrays"])))
            prog.append((v, f"{v} = {view}"))
        held += [name for name, src in prog[k:] if form in ("expr", "inplace", "view")]
    spec = []
    for i, (dtype, shape) in enumerate(INPUTS):
        rg = i < 2 and draw(st.booleans())
        named = i < 2 and draw(st.booleans())
        spec.append((dtype, shape, draw(st.integers(0, 2**16)), rg, ("r", "c") if named else None))
    return prog, spec


# --- the property --------------------------------------------------------------------------

def _first_difference(a: dict, b: dict) -> str:
    for (name, ra), (_, rb) in zip(a["steps"], b["steps"]):
        if ra != rb:
            return f"{name}: compiled {_short(ra)} != Python {_short(rb)}"
    return f"gradients: compiled {_short(a['grads'])} != Python {_short(b['grads'])}"


def _short(rec) -> str:
    if isinstance(rec, tuple) and rec and rec[0] == "array":
        return f"array({rec[1]}, {rec[2]}, names={rec[4]}, requires_grad={rec[5]}, grad_fn={rec[6]})"
    return repr(rec)[:300]


class _Counting:
    """Counts the elisions _elementwise._elide makes (the compiled paths call it)."""

    def __init__(self, stats):
        self.stats, self.orig = stats, elementwise._elide

    def __call__(self, *args):
        r = self.orig(*args)
        self.stats["elided" if r is not None else "declined"] += 1
        return r


def run_both(worker, strategy, stats) -> None:
    """Every program ``strategy`` draws, here (compiled) and in the worker (the Python
    definitions): the same records, no held array overwritten in either run."""
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=SEED is None, database=None,
              suppress_health_check=list(HealthCheck))
    @seed(int(SEED or 0))
    @given(strategy)
    def agree(case):
        program, spec = case
        here = runner.run(program, spec)
        there = worker.run(program, spec)
        assert "crash" not in there, there
        stats["programs"] += 1
        stats["statements"] += len(program)
        stats["errors"] += sum(rec[0] == "error" for _, rec in here["steps"])
        assert here["changed"] == [], f"the compiled run overwrote {here['changed']}: {program}"
        assert there["changed"] == [], f"the Python run overwrote {there['changed']}: {program}"
        if here != there:
            stats["mismatches"] += 1
            pytest.fail(_first_difference(here, there) + f"\nprogram: {program}\ninputs: {spec}")

    agree()


@pytest.mark.skipif(not elementwise.COMPILED,
                    reason="the compiled path is not built (or STRIDED_NO_CEXT=1): both sides would be the Python definitions")
def test_compiled_and_python_paths_agree(worker, monkeypatch):
    stats = collections.Counter()
    monkeypatch.setattr(elementwise, "_elide", _Counting(stats))
    run_both(worker, programs(), stats)
    print(f"\ndifferential: {dict(stats)}")
    assert stats["mismatches"] == 0
    if elementwise.COMPILED and dispatch.CHOT.elision_state()[0]:
        assert stats["elided"] > 0  # the programs do reach the elision they test


def test_the_worker_runs_the_python_definitions(worker):
    """The reference really is the other path: no compiled Fast in the worker."""
    res = worker.run([("v0", "v0 = type(xp.add).__name__ + ' ' + type(xp.Array.__add__).__name__")], [])
    assert res["steps"][0][1] == ("value", repr("function function"))
