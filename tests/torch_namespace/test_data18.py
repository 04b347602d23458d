"""``strided.torch.utils.data`` against PyTorch 2.13's ``torch.utils.data``.

The same dataset through both DataLoaders (shuffle off) gives the same batches, structures and
dtypes; collation of nested samples gives PyTorch's structure and dtypes; the deterministic
samplers and datasets give PyTorch's indices and items; bad arguments raise PyTorch's errors.
The random parts (shuffles, random samplers, random_split) are checked by properties:
permutations, ranges, reproducibility under manual_seed and a seeded generator. The emulated
workers (num_workers > 0) give the batches of num_workers=0 and describe the worker PyTorch
would use. Last, a small training script gives PyTorch's losses.
"""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import strided  # noqa: E402
import strided.torch as st  # noqa: E402
from strided.torch.utils import data as sdata  # noqa: E402
from torch.utils import data as tdata  # noqa: E402

from _parity import to_numpy  # noqa: E402

Point = collections.namedtuple("Point", "x y")


def same(s, t, path="batch"):
    """``s`` (strided's result) has ``t``'s (PyTorch's) structure, types, dtypes and values."""
    if isinstance(t, torch.Tensor):
        assert isinstance(s, strided.Array), f"{path}: {type(s).__name__} is not an array"
        assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], f"{path}: {s.dtype} vs {t.dtype}"
        assert tuple(s.shape) == tuple(t.shape), path
        np.testing.assert_array_equal(to_numpy(s), to_numpy(t), err_msg=path)
    elif isinstance(t, dict):
        assert type(s) is type(t) and list(s) == list(t), path
        for k in t:
            same(s[k], t[k], f"{path}[{k!r}]")
    elif isinstance(t, (list, tuple)):
        assert type(s).__name__ == type(t).__name__ and len(s) == len(t), f"{path}: {type(s)} vs {type(t)}"
        for i, (a, b) in enumerate(zip(s, t)):
            same(a, b, f"{path}[{i}]")
    else:
        assert type(s) is type(t) and (s == t or (s != s and t != t)), f"{path}: {s!r} vs {t!r}"


def both(fn):
    """Run ``fn(lib, data)`` with PyTorch and with strided.torch; the pair of results or errors."""
    out = []
    for lib, data in ((torch, tdata), (st, sdata)):
        try:
            out.append(("ok", fn(lib, data)))
        except Exception as e:  # noqa: BLE001 (the error itself is compared)
            out.append((type(e), str(e)))
    return out


def arrays(lib, n=7, dtype="float32"):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((n, 3)).astype(dtype)
    y = np.arange(n) % 3
    conv = torch.from_numpy if lib is torch else strided.asarray
    return conv(x.copy()), conv(y.copy())


# --- DataLoader: the same batches ------------------------------------------------------------

@pytest.mark.parametrize("batch_size", [1, 3, 7, 10, None])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tensor_dataset_batches_equal_pytorch(batch_size, drop_last, dtype):
    if batch_size is None and drop_last:
        return
    res = []
    for lib, data in ((torch, tdata), (st, sdata)):
        x, y = arrays(lib, dtype=dtype)
        loader = data.DataLoader(data.TensorDataset(x, y), batch_size=batch_size, shuffle=False,
                                 drop_last=drop_last)
        res.append((len(loader), list(loader)))
    assert res[1][0] == res[0][0]
    assert len(res[1][1]) == len(res[0][1])
    same(res[1][1], res[0][1])


SAMPLES = [
    [{"a": 1.5, "b": [1, 2], "c": "s"}, {"a": 2.0, "b": [3, 4], "c": "t"}, {"a": -1.0, "b": [5, 6], "c": "u"}],
    [(np.float32(1.5), np.int32(2), True), (np.float32(2.5), np.int32(3), False)],
    [Point(np.arange(3), 1.0), Point(np.arange(3) * 2, 2.0), Point(np.ones(3, dtype=np.float32), 3.0)],
    [[np.array([[1.0, 2.0]]), b"x"], [np.array([[3.0, 4.0]]), b"y"]],
    [np.float64(1.0), np.float64(2.0), np.float64(3.0)],
    [np.bool_(True), np.bool_(False)],
    [1, 2, 3, 4],
]


@pytest.mark.parametrize("samples", SAMPLES, ids=range(len(SAMPLES)))
@pytest.mark.parametrize("batch_size", [2, None])
def test_list_dataset_batches_equal_pytorch(samples, batch_size):
    t, s = both(lambda lib, data: list(data.DataLoader(samples, batch_size=batch_size)))
    assert t[0] == "ok" and s[0] == "ok", (t, s)
    same(s[1], t[1])


@pytest.mark.parametrize("samples", SAMPLES, ids=range(len(SAMPLES)))
def test_default_collate_and_convert_structure_and_dtypes(samples):
    t, s = both(lambda lib, data: data.default_collate(samples))
    same(s[1], t[1])
    t, s = both(lambda lib, data: [data.default_convert(x) for x in samples])
    same(s[1], t[1])


def test_collate_tensors_of_each_dtype_and_nested_containers():
    for dt in ("float32", "float64", "int64", "int32", "uint8", "bool", "complex64"):
        a = np.arange(6).reshape(2, 3).astype(dt)
        t, s = both(lambda lib, data: data.default_collate(
            [{"k": (lib.asarray(a.copy()) if lib is st else torch.from_numpy(a.copy()), [a[0], 1])}] * 3))
        same(s[1], t[1])


NP_SCALARS = [[np.int32(1), np.float32(2)], [np.int64(1), np.float16(2)], [np.uint8(1), np.int8(2)],
              [np.float32(1), np.float64(2)], [np.complex64(1), np.float64(2)], [np.float16(1), np.int64(7)],
              [np.bool_(True), np.bool_(False)], [np.float32(1), np.int64(2**40 + 1)],
              [np.uint16(4), np.uint16(5)], [np.int8(3), np.bool_(True)], [np.int16(1), np.uint16(3)], [np.uint64(3), np.int64(2)]]


@pytest.mark.parametrize("batch", NP_SCALARS, ids=range(len(NP_SCALARS)))
def test_collate_of_mixed_numpy_scalars_promotes_as_pytorch(batch):
    t, s = both(lambda lib, data: data.default_collate(batch))
    if t[0] == "ok":
        same(s[1], t[1])
    else:
        assert s[0] is t[0]


@pytest.mark.parametrize("bad", [
    [[1, 2], [3]],                                  # unequal lengths
    [np.array(["a", "b"]), np.array(["c", "d"])],   # string arrays
    [object(), object()],                           # unknown type
    [{"a": 1}, {"b": 2}],                           # missing key
])
def test_collate_errors_are_pytorchs(bad):
    t, s = both(lambda lib, data: data.default_collate(bad))
    assert s[0] == t[0], (s, t)
    if t[0] is not KeyError:
        assert s[1].split("found")[0] == t[1].split("found")[0]


class Squares(tdata.Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"i": i, "sq": float(i * i)}


class SSquares(sdata.Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"i": i, "sq": float(i * i)}


class Stream(tdata.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(np.arange(self.n, dtype=np.float32) / 2)

    def __len__(self):
        return self.n


class SStream(sdata.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(np.arange(self.n, dtype=np.float32) / 2)

    def __len__(self):
        return self.n


@pytest.mark.parametrize("kw", [dict(batch_size=2), dict(batch_size=2, drop_last=True), dict(batch_size=None),
                                dict(batch_size=3, collate_fn=lambda b: b)])
def test_map_and_iterable_subclasses(kw):
    t, s = both(lambda lib, data: [len(data.DataLoader((Squares if lib is torch else SSquares)(), **kw)),
                                   list(data.DataLoader((Squares if lib is torch else SSquares)(), **kw))])
    same(s[1], t[1])
    t, s = both(lambda lib, data: [len(data.DataLoader((Stream if lib is torch else SStream)(5), **kw)),
                                   list(data.DataLoader((Stream if lib is torch else SStream)(5), **kw))])
    same(s[1], t[1])


def test_sampler_and_batch_sampler_arguments():
    t, s = both(lambda lib, data: list(data.DataLoader(
        list(range(10)), sampler=data.SequentialSampler(range(10)), batch_size=4, drop_last=True)))
    same(s[1], t[1])
    t, s = both(lambda lib, data: list(data.DataLoader(
        list(range(10)), batch_sampler=[[0, 5], [9], [1, 2, 3]])))
    same(s[1], t[1])
    t, s = both(lambda lib, data: list(data.DataLoader(list(range(10)), sampler=[3, 1, 4, 1, 5], batch_size=2)))
    same(s[1], t[1])


@pytest.mark.parametrize("kw", [
    dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(persistent_workers=True),
    dict(shuffle=True, sampler=[0, 1]), dict(batch_sampler=[[0]], batch_size=2),
    dict(batch_sampler=[[0]], drop_last=True), dict(batch_size=None, drop_last=True),
    dict(batch_size=0), dict(batch_size=True), dict(drop_last=1), dict(multiprocessing_context="fork"),
    dict(num_workers=1, prefetch_factor=-1), dict(num_workers=1, multiprocessing_context="nope"),
])
def test_dataloader_argument_errors_are_pytorchs(kw):
    t, s = both(lambda lib, data: data.DataLoader(list(range(4)), **kw))
    assert t[0] is not None and s[0] == t[0], (s, t)
    assert s[1] == t[1] or t[0] == "ok"


def test_iterable_dataset_argument_errors():
    for kw in (dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])):
        t, s = both(lambda lib, data: data.DataLoader((Stream if lib is torch else SStream)(3), **kw))
        assert s[0] == t[0] is ValueError
        assert s[1].split("but got")[0] == t[1].split("but got")[0]
    with pytest.raises(NotImplementedError, match="IterableDataset is not supported"):
        sdata.DataLoader(SStream(3), num_workers=2)


def test_attributes_are_frozen_and_timeout_needs_workers():
    loader = sdata.DataLoader(list(range(3)))
    with pytest.raises(ValueError, match="batch_size attribute should not be set"):
        loader.batch_size = 2
    with pytest.raises(AssertionError, match="requires timeout == 0"):
        iter(sdata.DataLoader(list(range(3)), timeout=1))


# --- shuffling and random samplers: properties -------------------------------------------------

def test_shuffle_is_a_permutation_reproducible_under_manual_seed():
    ds = sdata.TensorDataset(st.arange(23))
    st.manual_seed(5)
    a = [b[0].tolist() for b in sdata.DataLoader(ds, batch_size=5, shuffle=True)]
    b = [b[0].tolist() for b in sdata.DataLoader(ds, batch_size=5, shuffle=True)]
    st.manual_seed(5)
    c = [b[0].tolist() for b in sdata.DataLoader(ds, batch_size=5, shuffle=True)]
    flat = sum(a, [])
    assert sorted(flat) == list(range(23)) and [len(x) for x in a] == [5, 5, 5, 5, 3]
    assert a == c and a != b  # (two different epochs: 1 / 23! chance to agree)
    g1, g2 = st.Generator().manual_seed(9), st.Generator().manual_seed(9)
    d = [x[0].tolist() for x in sdata.DataLoader(ds, batch_size=5, shuffle=True, generator=g1)]
    e = [x[0].tolist() for x in sdata.DataLoader(ds, batch_size=5, shuffle=True, generator=g2)]
    assert d == e and sorted(sum(d, [])) == list(range(23))


@pytest.mark.parametrize("n,num", [(5, None), (5, 12), (7, 3), (1, 4)])
def test_random_sampler_without_replacement(n, num):
    smp = sdata.RandomSampler(range(n), num_samples=num, generator=st.Generator().manual_seed(1))
    idx = list(smp)
    num = n if num is None else num
    assert len(smp) == len(idx) == num == len(tdata.RandomSampler(range(n), num_samples=num))
    for k in range(0, num - num % n, n):
        assert sorted(idx[k:k + n]) == list(range(n))   # each full pass a permutation
    assert len(set(idx[num - num % n:])) == num % n


def test_random_sampler_with_replacement_and_errors():
    smp = sdata.RandomSampler(range(4), replacement=True, num_samples=70)
    idx = list(smp)
    assert len(idx) == 70 and set(idx) <= set(range(4)) and len(set(idx)) == 4
    for kw in (dict(replacement=1), dict(num_samples=0), dict(num_samples=2.0)):
        t, s = both(lambda lib, data: data.RandomSampler(range(3), **kw))
        assert s == t


def test_subset_random_and_weighted_samplers():
    st.manual_seed(2)
    idx = list(sdata.SubsetRandomSampler([10, 20, 30, 40]))
    assert sorted(idx) == [10, 20, 30, 40]
    w = sdata.WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=st.Generator().manual_seed(0))
    draws = np.array(list(w))
    assert len(w) == 4000 and not (draws == 0).any()
    assert abs((draws == 2).mean() - 0.75) < 0.04
    nr = list(sdata.WeightedRandomSampler([1.0, 1.0, 5.0, 0.0], 3, replacement=False))
    assert sorted(nr) == [0, 1, 2]
    for args in (([1.0], 0), ([1.0], True), ([[1.0, 2.0]], 1), ([1.0], 1, 1)):
        t, s = both(lambda lib, data: data.WeightedRandomSampler(*args))
        assert s == t
    for args in (([1.0, 1.0], 3, False), ([1.0, -1.0], 1), ([0.0, 0.0], 1), ([np.nan, 1.0], 1),
                 ([np.inf, 1.0], 1), ([], 1)):
        t, s = both(lambda lib, data: list(data.WeightedRandomSampler(*args)))
        assert s == t


def test_batch_sampler_equals_pytorch():
    for bs in (1, 2, 3, 5):
        for dl in (False, True):
            t, s = both(lambda lib, data: (list(data.BatchSampler(range(7), bs, dl)),
                                           len(data.BatchSampler(range(7), bs, dl))))
            assert s == t
    for args in ((0, False), (2.0, False), (2, None)):
        t, s = both(lambda lib, data: data.BatchSampler(range(3), *args))
        assert s == t


# --- datasets ------------------------------------------------------------------------------------

def test_datasets_equal_pytorch():
    def build(lib, data):
        x, y = arrays(lib)
        td = data.TensorDataset(x, y)
        cat = data.ConcatDataset([td, data.Subset(td, [6, 0, 2]), [("z", 1)]]) if False else \
            data.ConcatDataset([td, data.Subset(td, [6, 0, 2])])
        stack = data.StackDataset(td, list(range(7)))
        kw = data.StackDataset(a=td, b=list(range(7)))
        return [len(cat), [cat[i] for i in (0, 6, 7, 9, -1, -10)], cat.cumulative_sizes, len(stack), stack[3],
                kw[2], stack.__getitems__([1, 4]), kw.__getitems__([0]), td[2:4],
                data.Subset(td, [1, 3]).__getitems__([1, 0])]
    t, s = both(build)
    same(s[1], t[1])
    for fn in (lambda lib, data: data.ConcatDataset([]), lambda lib, data: data.ConcatDataset([[1]])[-3],
               lambda lib, data: data.StackDataset([1], [1, 2]), lambda lib, data: data.StackDataset(),
               lambda lib, data: data.StackDataset([1], a=[1]),
               lambda lib, data: data.TensorDataset(*(lib.zeros(2), lib.zeros(3)))):
        t, s = both(fn)
        assert s == t


def test_chain_and_add():
    t, s = both(lambda lib, data: list(data.DataLoader(
        (Stream if lib is torch else SStream)(3) + (Stream if lib is torch else SStream)(2), batch_size=2)))
    same(s[1], t[1])
    assert isinstance(SSquares() + SSquares(), sdata.ConcatDataset)
    assert len(sdata.ChainDataset([SStream(2), SStream(4)])) == 6


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.5, 0.25, 0.25], [1 / 3] * 3, [0.1] * 10, [10]])
def test_random_split_lengths_and_disjointness(lengths):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parts_t = tdata.random_split(range(10), lengths)
        parts = sdata.random_split(range(10), lengths, generator=st.Generator().manual_seed(4))
        again = sdata.random_split(range(10), lengths, generator=st.Generator().manual_seed(4))
    assert [len(p) for p in parts] == [len(p) for p in parts_t]
    items = [i for p in parts for i in p]
    assert sorted(items) == list(range(10))
    assert [list(p) for p in parts] == [list(p) for p in again]


def test_random_split_errors():
    for lengths in ([3, 4], [1.5, -0.5], [0.6, 0.6]):
        t, s = both(lambda lib, data: data.random_split(range(6), lengths))
        assert s == t


# --- emulated workers ---------------------------------------------------------------------------

class Noisy(sdata.Dataset):
    def __len__(self):
        return 9

    def __getitem__(self, i):
        info = sdata.get_worker_info()
        return {"i": i, "worker": -1 if info is None else info.id, "noise": st.rand(()).item()}


@pytest.mark.filterwarnings("ignore:This DataLoader will create")
@pytest.mark.parametrize("persistent", [False, True])
def test_workers_give_the_same_batches_and_describe_pytorchs_worker(persistent):
    ds = sdata.TensorDataset(st.arange(11.0))
    plain = [b[0].tolist() for b in sdata.DataLoader(ds, batch_size=3)]
    inits = []
    loader = sdata.DataLoader(Noisy(), batch_size=2, num_workers=3, persistent_workers=persistent,
                              worker_init_fn=lambda w: inits.append((w, sdata.get_worker_info().seed)),
                              prefetch_factor=4, timeout=30)
    assert [b[0].tolist() for b in sdata.DataLoader(ds, batch_size=3, num_workers=2)] == plain
    st.manual_seed(11)
    epoch1 = list(loader)
    after = st.rand(3)
    st.manual_seed(11)
    _ = list(sdata.DataLoader(list(range(9)), batch_size=2))  # (draws the base seed only)
    assert st.rand(3).tolist() == after.tolist()  # the caller's random stream is untouched by the workers
    ref = list(sdata.DataLoader(Noisy(), batch_size=2))
    assert [b["i"].tolist() for b in epoch1] == [b["i"].tolist() for b in ref]
    assert [b["worker"].tolist() for b in epoch1] == [[k % 3] * len(b["i"]) for k, b in enumerate(epoch1)]
    assert [w for w, _ in inits] == [0, 1, 2]
    seeds = [s for _, s in inits]
    assert seeds == [seeds[0], seeds[0] + 1, seeds[0] + 2]
    assert sdata.get_worker_info() is None
    st.manual_seed(11)
    again = list(loader)
    # new workers are seeded again from the same base seed; persistent ones go on with their streams
    assert ([b["noise"].tolist() for b in again] == [b["noise"].tolist() for b in epoch1]) is (not persistent)
    epoch2 = list(loader)
    assert len(inits) == (3 if persistent else 9)
    assert [b["worker"].tolist() for b in epoch2] == [b["worker"].tolist() for b in epoch1]


@pytest.mark.filterwarnings("ignore:This DataLoader will create")
def test_workers_seed_numpy_and_python_random_apart():
    import random

    class R(sdata.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return (random.random(), float(np.random.random()))

    st.manual_seed(3)
    a = list(sdata.DataLoader(R(), batch_size=1, num_workers=2))
    st.manual_seed(3)
    b = list(sdata.DataLoader(R(), batch_size=1, num_workers=2))
    assert [[x[0].item(), x[1].item()] for x in a] == [[x[0].item(), x[1].item()] for x in b]
    vals = [x[0].item() for x in a]
    assert len(set(vals)) == 4  # worker 0's and 1's streams differ, and each goes on


# --- end to end -------------------------------------------------------------------------------

def _train(lib, data, w):
    """A small PyTorch training script, written once for both libraries."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((20, 4))
    ys = (xs @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.1)[:, None]
    conv = torch.from_numpy if lib is torch else strided.asarray
    ds = data.TensorDataset(conv(xs.copy()), conv(ys.copy()))
    loader = data.DataLoader(ds, batch_size=6, shuffle=False)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1)).double()
    with lib.no_grad():
        for p, v in zip(model.parameters(), w):
            p.copy_(conv(v.copy()))
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses, norms = [], []
    for _ in range(3):
        for x, y in loader:
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(model(x), y)
            loss.backward()
            norms.append(float(lib.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)))
            opt.step()
            losses.append(loss.item())
    return losses, norms, [to_numpy(p) for p in model.parameters()]


def test_training_script_gives_pytorchs_losses():
    rng = np.random.default_rng(1)
    w = [rng.standard_normal(s) * 0.5 for s in ((8, 4), (8,), (1, 8), (1,))]
    (tl, tn, tp), (sl, sn, sp) = _train(torch, tdata, w), _train(st, sdata, w)
    assert len(sl) == len(tl) == 12
    np.testing.assert_allclose(sl, tl, rtol=1e-10)
    np.testing.assert_allclose(sn, tn, rtol=1e-10)
    assert max(tn) > 1.0  # clipping happened
    for a, b in zip(sp, tp):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.filterwarnings("ignore:This DataLoader will create")
def test_pin_memory_timeout_and_worker_info_fields():
    ds = sdata.TensorDataset(st.arange(5.0))
    with pytest.warns(UserWarning, match="pin_memory"):
        pinned = [b[0].tolist() for b in sdata.DataLoader(ds, batch_size=2, pin_memory=True)]
    assert pinned == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    import time

    class Slow(sdata.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            time.sleep(0.05)
            return i

    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.01 seconds"):
        list(sdata.DataLoader(Slow(), num_workers=1, timeout=0.01))
    assert [b.tolist() for b in sdata.DataLoader(Slow(), num_workers=1, timeout=5)] == [[0], [1]]
    seen = []
    loader = sdata.DataLoader(Slow(), num_workers=2, worker_init_fn=lambda w: seen.append(sdata.get_worker_info()))
    list(loader)
    assert [(i.id, i.num_workers) for i in seen] == [(0, 2), (1, 2)] and seen[0].dataset is loader.dataset
    with pytest.raises(Exception, match="cannot assign"):
        seen[0].id = 3


def test_missing_names_say_so():
    with pytest.raises(AttributeError, match="does not support distributed training"):
        sdata.DistributedSampler
    with pytest.raises(AttributeError, match="supports only the data package"):
        st.utils.tensorboard
