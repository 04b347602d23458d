"""The learning-rate schedulers of ``strided.torch.optim.lr_scheduler`` against PyTorch
2.13: the learning rates (and the cycled momenta) at every step over 40+ steps, float for
float (the recursive ``step()`` forms and the closed forms of ``step(epoch)``, fractional
epochs included), ReduceLROnPlateau in every mode, SequentialLR and ChainedScheduler,
state-dict round trips, PyTorch's warnings and its errors for bad arguments."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

import strided.torch as storch


def L(lib):
    return lib.optim.lr_scheduler


def _opt(lib, name="SGD", **kw):
    kw = kw or dict(lr=0.1, momentum=0.9)
    p = lib.nn.Parameter(lib.ones(1))
    q = lib.nn.Parameter(lib.ones(1))
    return getattr(lib.optim, name)([{"params": [p]}, {"params": [q], "lr": 0.3}], **kw)


def _snapshot(sched, opt):
    return (list(sched.get_last_lr()), [g["lr"] for g in opt.param_groups],
            [g.get("momentum") for g in opt.param_groups],
            [tuple(g["betas"]) if "betas" in g else None for g in opt.param_groups])


def sequence(lib, make, steps=40, opt=("SGD", {}), metrics=None, epochs=None):
    """Every step's (get_last_lr, the groups' lr, momentum and betas) from construction on."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o = _opt(lib, opt[0], **opt[1])
        sched = make(lib, o)
        seq = [_snapshot(sched, o)]
        for i in range(steps):
            o.step()
            if metrics is not None:
                sched.step(metrics[i])
            elif epochs is not None:
                sched.step(epochs[i])
            else:
                sched.step()
            seq.append(_snapshot(sched, o))
    return seq


def assert_same(make, **kw):
    s, t = sequence(storch, make, **kw), sequence(torch, make, **kw)
    for i, (a, b) in enumerate(zip(s, t)):
        assert a == b, f"step {i}: strided {a} != PyTorch {b}"  # float for float


CASES = {
    "ConstantLR": lambda lib, o: L(lib).ConstantLR(o, factor=0.3, total_iters=7),
    "ConstantLR-default": lambda lib, o: L(lib).ConstantLR(o),
    "LinearLR": lambda lib, o: L(lib).LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=11),
    "LinearLR-down": lambda lib, o: L(lib).LinearLR(o, start_factor=1.0, end_factor=0.05, total_iters=30),
    "MultiplicativeLR": lambda lib, o: L(lib).MultiplicativeLR(o, lambda e: 0.95 + 0.001 * e),
    "MultiplicativeLR-list": lambda lib, o: L(lib).MultiplicativeLR(o, [lambda e: 0.9, lambda e: 1.01]),
    "PolynomialLR": lambda lib, o: L(lib).PolynomialLR(o, total_iters=13, power=1.7),
    "PolynomialLR-default": lambda lib, o: L(lib).PolynomialLR(o),
    "OneCycleLR-cos": lambda lib, o: L(lib).OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=41),
    "OneCycleLR-linear-3phase": lambda lib, o: L(lib).OneCycleLR(
        o, max_lr=1.0, epochs=4, steps_per_epoch=11, three_phase=True, anneal_strategy="linear",
        pct_start=0.25, div_factor=10.0, final_div_factor=100.0),
    "OneCycleLR-3phase-cos": lambda lib, o: L(lib).OneCycleLR(
        o, max_lr=0.8, total_steps=45, three_phase=True, base_momentum=[0.7, 0.8], max_momentum=0.99),
    "OneCycleLR-no-momentum": lambda lib, o: L(lib).OneCycleLR(o, max_lr=1.0, total_steps=50,
                                                                cycle_momentum=False),
    "CyclicLR": lambda lib, o: L(lib).CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4,
                                               step_size_down=3),
    "CyclicLR-triangular2": lambda lib, o: L(lib).CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3,
                                                           mode="triangular2"),
    "CyclicLR-exp_range": lambda lib, o: L(lib).CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1,
                                                         step_size_up=5, mode="exp_range", gamma=0.97,
                                                         base_momentum=0.7, max_momentum=0.95),
    "CyclicLR-scale_fn": lambda lib, o: L(lib).CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2,
                                                        scale_fn=lambda x: 0.9 ** x,
                                                        scale_mode="iterations"),
    "CyclicLR-no-momentum": lambda lib, o: L(lib).CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=6,
                                                           cycle_momentum=False),
    "CosineAnnealingWarmRestarts": lambda lib, o: L(lib).CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                                   eta_min=0.001),
    "CosineAnnealingWarmRestarts-1": lambda lib, o: L(lib).CosineAnnealingWarmRestarts(o, T_0=7),
    "SequentialLR": lambda lib, o: L(lib).SequentialLR(
        o, [L(lib).LinearLR(o, start_factor=0.1, total_iters=5), L(lib).ExponentialLR(o, gamma=0.9),
            L(lib).CosineAnnealingLR(o, T_max=6)], milestones=[5, 15]),
    "SequentialLR-constant-step": lambda lib, o: L(lib).SequentialLR(
        o, [L(lib).ConstantLR(o, factor=0.5, total_iters=3), L(lib).StepLR(o, 4, 0.5),
            L(lib).MultiStepLR(o, [2, 6, 6], 0.5)], milestones=[3, 20]),
    "ChainedScheduler": lambda lib, o: L(lib).ChainedScheduler(
        [L(lib).ConstantLR(o, factor=0.5, total_iters=4), L(lib).ExponentialLR(o, gamma=0.9),
         L(lib).StepLR(o, 5, 0.5)]),
    "ChainedScheduler-in-SequentialLR": lambda lib, o: L(lib).SequentialLR(
        o, [L(lib).ChainedScheduler([L(lib).LinearLR(o, start_factor=0.5, total_iters=4),
                                     L(lib).ExponentialLR(o, gamma=0.95)]),
            L(lib).PolynomialLR(o, total_iters=10, power=2.0)], milestones=[8]),
    "MultiStepLR": lambda lib, o: L(lib).MultiStepLR(o, [3, 8, 8, 20], 0.5),
    "StepLR": lambda lib, o: L(lib).StepLR(o, 4, 0.7),
    "ExponentialLR": lambda lib, o: L(lib).ExponentialLR(o, 0.93),
    "CosineAnnealingLR": lambda lib, o: L(lib).CosineAnnealingLR(o, T_max=9, eta_min=0.01),
    "LambdaLR": lambda lib, o: L(lib).LambdaLR(o, lambda e: 1 / (1 + e)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_learning_rates_at_every_step_equal_pytorchs(case):
    steps = 44 if case.startswith("OneCycleLR-linear") else 40
    assert_same(CASES[case], steps=steps)


@pytest.mark.parametrize("case", [c for c in CASES if c.startswith(("OneCycleLR", "CyclicLR"))])
def test_betas_cycle_with_adam(case):
    steps = 44 if case.startswith("OneCycleLR-linear") else 40
    assert_same(CASES[case], steps=steps, opt=("Adam", dict(lr=0.1, betas=(0.8, 0.99))))


EPOCH_CASES = ["ConstantLR", "LinearLR", "PolynomialLR", "MultiStepLR", "StepLR", "ExponentialLR",
               "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CosineAnnealingWarmRestarts-1",
               "MultiplicativeLR", "LambdaLR", "CyclicLR"]


@pytest.mark.parametrize("case", EPOCH_CASES)
def test_step_with_epoch_uses_the_closed_form_as_pytorch(case):
    """``step(epoch)``: PyTorch's closed forms (or get_lr where there is none), with
    fractional, repeated and backward epochs."""
    epochs = [0.5 * i for i in range(20)] + [3, 3, 1, 17.25, 30, 2.75, 40, 0]
    assert_same(CASES[case], steps=len(epochs), epochs=epochs)


def test_warm_restarts_fractional_epochs_within_an_epoch():
    """PyTorch's documented use: ``scheduler.step(epoch + i / iters)`` inside each epoch."""
    epochs = [e + i / 5 for e in range(12) for i in range(5)]
    for kw in [dict(T_0=2, T_mult=3, eta_min=0.01), dict(T_0=3), dict(T_0=1, T_mult=2)]:
        assert_same(lambda lib, o: L(lib).CosineAnnealingWarmRestarts(o, **kw),
                    steps=len(epochs), epochs=epochs)


METRICS = [1.0, 0.9, 0.95, 0.95, 0.95, 0.96, 0.97, 0.5, 0.5, 0.5, 0.5, 0.5, 0.49999, 0.5] * 3 + \
          [2.0, 3.0, 4.0, 4.0, 4.0, 4.0001, 4.0, 4.0]


@pytest.mark.parametrize("kw", [
    dict(), dict(mode="max"), dict(threshold_mode="abs", threshold=0.01),
    dict(mode="max", threshold_mode="abs", cooldown=2, patience=1, min_lr=[0.05, 0.01], factor=0.5),
    dict(patience=0, eps=0.05, factor=0.5), dict(patience=1, min_lr=0.02, cooldown=3, factor=0.3),
    dict(mode="max", threshold=0.5, patience=0),
], ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()) or "default")
def test_reduce_lr_on_plateau_equals_pytorchs(kw):
    def make(lib, o):
        return L(lib).ReduceLROnPlateau(o, **{"patience": 2, **kw})
    assert_same(make, steps=len(METRICS), metrics=METRICS)


def test_reduce_lr_on_plateau_takes_a_0d_array_and_a_new_group():
    for lib in (storch, torch):
        o = _opt(lib)
        s = L(lib).ReduceLROnPlateau(o, patience=0, factor=0.5)
        s.step(lib.tensor(1.0))
        s.step(lib.tensor(2.0))
        assert s.get_last_lr() == [0.05, 0.15]
        o.add_param_group({"params": [lib.nn.Parameter(lib.ones(1))], "lr": 1.0})
        s.step(3.0)  # a scalar min_lr follows the new group
        assert s.get_last_lr() == [0.025, 0.075, 0.5]
        o2 = _opt(lib)
        s2 = L(lib).ReduceLROnPlateau(o2, patience=0, min_lr=[0.0, 0.0])
        o2.add_param_group({"params": [lib.nn.Parameter(lib.ones(1))]})
        s2.step(1.0)
        with pytest.raises(RuntimeError, match="differs from when `ReduceLROnPlateau` was initialized"):
            s2.step(2.0)


ROUND_TRIP = ["ConstantLR", "LinearLR", "PolynomialLR", "OneCycleLR-cos", "CyclicLR",
              "CyclicLR-exp_range", "CosineAnnealingWarmRestarts", "SequentialLR", "ChainedScheduler",
              "MultiStepLR", "MultiplicativeLR"]


@pytest.mark.parametrize("case", ROUND_TRIP)
def test_state_dict_round_trip_continues_as_pytorch(case):
    """Save at step 13, load into a new scheduler (over a new optimizer given the saved
    learning rates), continue: the same learning rates as the uninterrupted PyTorch run;
    the state dict has PyTorch's keys."""
    make = CASES[case]
    expected = sequence(torch, make, steps=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o = _opt(storch)
        s = make(storch, o)
        for _ in range(13):
            o.step()
            s.step()
        sd = s.state_dict()
        keys = sorted(sd)
        nested = [sorted(d) for d in sd.get("_schedulers", [])]
        osd = o.state_dict()
        o2 = _opt(storch)
        s2 = make(storch, o2)
        o2.load_state_dict(osd)
        s2.load_state_dict(sd)
        got = []
        for _ in range(17):
            o2.step()
            s2.step()
            got.append(_snapshot(s2, o2))
        to = _opt(torch)
        ts = make(torch, to)
        tsd = ts.state_dict()
    assert got == expected[14:]
    assert keys == sorted(tsd)
    assert nested == [sorted(d) for d in tsd.get("_schedulers", [])]


def test_plateau_state_dict_round_trip():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o = _opt(storch)
        s = L(storch).ReduceLROnPlateau(o, mode="max", patience=1, cooldown=1)
        for m in METRICS[:9]:
            s.step(m)
        sd = s.state_dict()
        o2 = _opt(storch)
        o2.load_state_dict(o.state_dict())
        s2 = L(storch).ReduceLROnPlateau(o2)
        s2.load_state_dict(sd)
        assert s2.mode == "max" and s2.mode_worse == float("-inf")
        t = L(torch).ReduceLROnPlateau(_opt(torch), mode="max", patience=1, cooldown=1)
    assert sorted(sd) == sorted(t.state_dict())
    tail = METRICS[9:30]
    exp = sequence(torch, lambda lib, o: L(lib).ReduceLROnPlateau(o, mode="max", patience=1, cooldown=1),
                   steps=30, metrics=METRICS)
    for i, m in enumerate(tail):
        s2.step(m)
        assert s2.get_last_lr() == exp[10 + i][0]


def test_lambda_state_dict_keeps_callable_objects_state():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate ** epoch

    for lib in (storch, torch):
        o = _opt(lib)
        f = Decay()
        s = L(lib).LambdaLR(o, [f, lambda e: 1.0])
        f.rate = 0.25
        sd = s.state_dict()
        assert sd["lr_lambdas"] == [{"rate": 0.25}, None]
        g = Decay()
        s2 = L(lib).LambdaLR(_opt(lib), [g, lambda e: 1.0])
        s2.load_state_dict(sd)
        assert g.rate == 0.25


def test_warnings_as_pytorchs():
    for lib in (storch, torch):
        o = _opt(lib)
        s = L(lib).StepLR(o, 2)
        with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
            s.step()
        o = _opt(lib)
        s = L(lib).ExponentialLR(o, 0.5)
        o.step()
        with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step\\(\\)`"):
            s.step(3)
        assert s.get_last_lr() == [0.1 * 0.5 ** 3, 0.3 * 0.5 ** 3]
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            s.get_lr()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            o.step()
            s.step()  # in the right order: no warning


BAD = [
    (lambda lib, o: L(lib).ConstantLR(o, factor=1.5), ValueError, "between 0 and 1"),
    (lambda lib, o: L(lib).LinearLR(o, start_factor=0), ValueError, "Starting multiplicative factor"),
    (lambda lib, o: L(lib).LinearLR(o, end_factor=1.5), ValueError, "Ending multiplicative factor"),
    (lambda lib, o: L(lib).MultiplicativeLR(o, 0.5), TypeError, "lr_lambda should be a function"),
    (lambda lib, o: L(lib).LambdaLR(o, [lambda e: 1.0]), ValueError, "Expected 2 lr_lambdas, but got 1"),
    (lambda lib, o: L(lib).OneCycleLR(o, max_lr=1.0), ValueError, "You must define either total_steps"),
    (lambda lib, o: L(lib).OneCycleLR(o, max_lr=1.0, total_steps=0), ValueError, "positive integer total_steps"),
    (lambda lib, o: L(lib).OneCycleLR(o, max_lr=1.0, epochs=0, steps_per_epoch=3), ValueError, "integer epochs"),
    (lambda lib, o: L(lib).OneCycleLR(o, max_lr=1.0, total_steps=5, pct_start=1), ValueError, "pct_start"),
    (lambda lib, o: L(lib).OneCycleLR(o, max_lr=1.0, total_steps=5, anneal_strategy="exp"), ValueError,
     "anneal_strategy must be one of"),
    (lambda lib, o: L(lib).OneCycleLR(o, max_lr=[1.0], total_steps=5), ValueError,
     "max_lr must have the same length as optimizer.param_groups"),
    (lambda lib, o: L(lib).CyclicLR(o, 0.1, 1.0, mode="square"), ValueError, "mode is invalid"),
    (lambda lib, o: L(lib).CosineAnnealingWarmRestarts(o, T_0=0), ValueError, "positive integer T_0"),
    (lambda lib, o: L(lib).CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5), ValueError, "integer T_mult"),
    (lambda lib, o: L(lib).CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0"), ValueError, "eta_min"),
    (lambda lib, o: L(lib).ReduceLROnPlateau(o, factor=1.0), ValueError, "Factor should be < 1.0"),
    (lambda lib, o: L(lib).ReduceLROnPlateau(o, mode="avg"), ValueError, "mode avg is unknown"),
    (lambda lib, o: L(lib).ReduceLROnPlateau(o, threshold_mode="pct"), ValueError, "threshold mode pct is unknown"),
    (lambda lib, o: L(lib).ReduceLROnPlateau(o, min_lr=[0.1]), ValueError, "expected 2 min_lrs, got 1"),
    (lambda lib, o: L(lib).SequentialLR(o, [L(lib).StepLR(o, 2)], milestones=[3]), ValueError,
     "one more than the number of milestone points"),
    (lambda lib, o: L(lib).SequentialLR(o, [], milestones=[]), ValueError, "at least one scheduler"),
    (lambda lib, o: L(lib).SequentialLR(o, [L(lib).ReduceLROnPlateau(o)], milestones=[]), ValueError,
     "does not support `ReduceLROnPlateau`"),
    (lambda lib, o: L(lib).ChainedScheduler([]), ValueError, "at least one scheduler to be chained"),
    (lambda lib, o: L(lib).ChainedScheduler([L(lib).StepLR(o, 2), L(lib).StepLR(_opt(lib), 2)]), ValueError,
     "expects all schedulers to belong to the same optimizer"),
    (lambda lib, o: L(lib).ChainedScheduler([L(lib).StepLR(o, 2), 3]), TypeError,
     "should have `optimizer` as its attribute"),
    (lambda lib, o: L(lib).StepLR(o, 2, last_epoch=4), KeyError, "initial_lr"),
    (lambda lib, o: L(lib).StepLR([], 2), TypeError, "is not an Optimizer"),
]


@pytest.mark.parametrize("make,exc,msg", BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_bad_arguments_raise_as_pytorch(make, exc, msg):
    for lib in (storch, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(exc, match=msg.replace("(", r"\(").replace(")", r"\)")):
                make(lib, _opt(lib))


def test_cycle_momentum_needs_momentum_or_betas():
    for lib in (storch, torch):
        o = lib.optim.Adagrad([lib.nn.Parameter(lib.ones(1))])
        for make in (lambda: L(lib).CyclicLR(o, 0.1, 1.0),
                     lambda: L(lib).OneCycleLR(o, max_lr=1.0, total_steps=5)):
            with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
                make()
        L(lib).CyclicLR(o, 0.1, 1.0, cycle_momentum=False)


def test_one_cycle_refuses_steps_past_total_steps():
    for lib in (storch, torch):
        o = _opt(lib)
        s = L(lib).OneCycleLR(o, max_lr=1.0, total_steps=3)
        o.step()
        for _ in range(3):
            s.step()
        with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 3"):
            s.step()


def test_resuming_with_last_epoch():
    """A scheduler made with ``last_epoch=k`` over groups that have ``initial_lr`` resumes
    where PyTorch's does (the recursive forms' ``_step_count == 1`` branch included)."""
    for make in [lambda lib, o: L(lib).CosineAnnealingLR(o, T_max=10, last_epoch=4),
                 lambda lib, o: L(lib).StepLR(o, 3, 0.5, last_epoch=4),
                 lambda lib, o: L(lib).CosineAnnealingWarmRestarts(o, T_0=4, last_epoch=5),
                 lambda lib, o: L(lib).CyclicLR(o, 0.01, 0.1, step_size_up=3, last_epoch=4),
                 lambda lib, o: L(lib).OneCycleLR(o, max_lr=1.0, total_steps=30, last_epoch=4)]:
        def seeded(lib, o, make=make):
            for g in o.param_groups:
                g["initial_lr"] = g["lr"] * 2
                g.setdefault("max_lr", 1.0)
                g.setdefault("min_lr", 1e-4)
                g.setdefault("max_momentum", 0.95)
                g.setdefault("base_momentum", 0.85)
            return make(lib, o)
        assert_same(seeded, steps=20)


# --- swa_utils.SWALR --------------------------------------------------------------------------

SWALR_CASES = {
    "cos": lambda lib, o: lib.optim.swa_utils.SWALR(o, swa_lr=0.05),
    "linear-3": lambda lib, o: lib.optim.swa_utils.SWALR(o, swa_lr=[0.05, 0.5], anneal_epochs=3,
                                                         anneal_strategy="linear"),
    "cos-0": lambda lib, o: lib.optim.swa_utils.SWALR(o, swa_lr=0.01, anneal_epochs=0),
    "linear-1": lambda lib, o: lib.optim.swa_utils.SWALR(o, swa_lr=0.2, anneal_epochs=1,
                                                         anneal_strategy="linear"),
}


@pytest.mark.parametrize("case", list(SWALR_CASES))
def test_swalr_equals_pytorchs(case):
    assert_same(SWALR_CASES[case], steps=30)


def test_swalr_after_another_scheduler_as_pytorch():
    """PyTorch's recipe: a schedule first, SWALR from a given epoch on (both on one optimizer)."""
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o = _opt(lib)
            first = L(lib).CosineAnnealingLR(o, T_max=20)
            swa = lib.optim.swa_utils.SWALR(o, swa_lr=0.02, anneal_epochs=4)
            lrs = []
            for epoch in range(30):
                o.step()
                (first if epoch < 12 else swa).step()
                lrs.append([g["lr"] for g in o.param_groups])
        return lrs
    assert run(storch) == run(torch)


def test_swalr_state_dict_and_errors_as_pytorchs():
    for lib in (storch, torch):
        with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
            lib.optim.swa_utils.SWALR(_opt(lib), swa_lr=0.1, anneal_strategy="exp")
        with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
            lib.optim.swa_utils.SWALR(_opt(lib), swa_lr=0.1, anneal_epochs=-1)
        with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got 2.5"):
            lib.optim.swa_utils.SWALR(_opt(lib), swa_lr=0.1, anneal_epochs=2.5)
        with pytest.raises(ValueError, match="swa_lr must have the same length"):
            lib.optim.swa_utils.SWALR(_opt(lib), swa_lr=[0.1])
    expected = sequence(torch, SWALR_CASES["linear-3"], steps=12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o = _opt(storch)
        s = SWALR_CASES["linear-3"](storch, o)
        for _ in range(2):
            o.step()
            s.step()
        sd = s.state_dict()
        assert "anneal_func" not in sd and sd["_anneal_strategy"] == "linear"
        o2 = _opt(storch)
        s2 = storch.optim.swa_utils.SWALR(o2, swa_lr=1.0)  # cos: the state dict's strategy wins
        o2.load_state_dict(o.state_dict())
        s2.load_state_dict(sd)
        for i in range(10):
            o2.step()
            s2.step()
            assert _snapshot(s2, o2) == expected[3 + i]
        tsd = torch.optim.swa_utils.SWALR(_opt(torch), swa_lr=0.1).state_dict()
    assert sorted(sd) == sorted(tsd)


def test_signatures_equal_pytorchs():
    """Every scheduler's constructor and methods, and swa_utils' names: the same argument
    names, order, kinds and defaults as PyTorch's."""
    import inspect
    assert sorted(storch.optim.lr_scheduler.__all__) == sorted(torch.optim.lr_scheduler.__all__)
    assert sorted(storch.optim.swa_utils.__all__) == sorted(torch.optim.swa_utils.__all__)
    pairs = []
    for name in torch.optim.lr_scheduler.__all__:
        s, t = getattr(storch.optim.lr_scheduler, name), getattr(torch.optim.lr_scheduler, name)
        pairs += [(getattr(s, m), getattr(t, m)) for m in
                  ("__init__", "step", "get_lr", "get_last_lr", "state_dict", "load_state_dict")]
    for name in torch.optim.swa_utils.__all__:
        s, t = getattr(storch.optim.swa_utils, name), getattr(torch.optim.swa_utils, name)
        pairs.append((s.__init__, t.__init__) if isinstance(t, type) else (s, t))
    for s, t in pairs:
        sp, tp = inspect.signature(s).parameters, inspect.signature(t).parameters
        assert list(sp) == list(tp), (s, t)
        for k in tp:
            assert sp[k].kind == tp[k].kind and sp[k].default == tp[k].default, (s, k)


def test_a_group_added_after_the_scheduler_is_refused_as_pytorch():
    for lib in (storch, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o = _opt(lib)
            s = L(lib).LambdaLR(o, lambda e: 0.5)
            o.add_param_group({"params": [lib.nn.Parameter(lib.ones(1))], "lr": 1.0})
            with pytest.raises(ValueError, match="zip()"):
                s.step()
