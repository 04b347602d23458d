"""Devices compare like their neighbours' (src/strided/_core/device.py): a Device equals
its canonical spelling ``str(device)`` in both orders and hashes like it, as NumPy
reports its device (``ndarray.device == "cpu"``); other spellings and other types are
not equal, as in PyTorch (``torch.device("cuda") != torch.device("cuda:0")``)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import strided as xp

D = xp.Device


def test_cpu_equals_numpys_device_in_both_orders_with_the_same_hash():
    cpu = D("cpu")
    assert cpu == "cpu" and "cpu" == cpu
    assert not (cpu != "cpu") and not ("cpu" != cpu)
    assert hash(cpu) == hash("cpu")
    assert cpu == np.zeros(1).device
    assert {cpu: 1}["cpu"] == 1 and {"cpu": 1}[cpu] == 1
    assert len({cpu, "cpu"}) == 1


def test_cuda_compares_by_its_canonical_spelling():
    cuda0 = D("cuda")  # the index is resolved when the Device is made
    assert cuda0 is D("cuda:0") is D("cuda", 0)
    assert cuda0 == "cuda:0" and "cuda:0" == cuda0 and hash(cuda0) == hash("cuda:0")
    # As PyTorch: a tensor's device carries its index, and device("cuda") != device("cuda:0").
    assert cuda0 != "cuda" and "cuda" != cuda0
    assert D("cuda:1") != "cuda:0" and D("cuda:1") != cuda0


def test_other_spellings_and_types_are_not_equal():
    cpu = D("cpu")
    assert cpu != "CPU" and cpu != " cpu" and cpu != "cpu:0"
    assert cpu != 0 and cpu is not None and cpu != D("cuda:0")
    assert (cpu == 1.5) is False


def test_torch_devices_compare_as_torch_compares_them():
    torch = pytest.importorskip("torch")
    # torch.device == str is False in PyTorch 2.13 (both orders), and strided's Device is
    # not a torch.device: equality with one is identity (False), not a spelling match.
    assert (torch.device("cpu") == "cpu") is False
    assert (D("cpu") == torch.device("cpu")) is False
    assert (torch.device("cuda") == torch.device("cuda:0")) is False


def test_arrays_report_a_device_equal_to_the_string_and_pickles_keep_identity():
    x = xp.zeros(2, device="cpu")
    assert x.device == "cpu" and x.device == xp.Device("cpu")
    assert str(xp.zeros(2).device) == xp.zeros(2).device  # any default device
    assert pickle.loads(pickle.dumps(D("cuda:1"))) is D("cuda:1")
