"""What an adversarial pass over the public entry points found (issue 17, part 4)."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

import strided as xp
from strided import io as sio


def test_saving_an_object_that_cannot_be_pickled_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="can't save a function"):
        xp.save({"f": lambda: 1}, io.BytesIO())
    with pytest.raises(TypeError, match="can't save a generator"):
        xp.save((i for i in range(3)), io.BytesIO())


@pytest.mark.parametrize("seed", [2 ** 64, 2 ** 100, -(2 ** 63) - 1])
def test_manual_seed_outside_64_bits_raises_as_pytorch(seed):
    g = xp.Generator()
    with pytest.raises(ValueError, match="64 bits"):
        g.manual_seed(seed)
    assert g.manual_seed(2 ** 64 - 1).initial_seed() == 2 ** 64 - 1
    assert g.manual_seed(-1).initial_seed() == 2 ** 64 - 1  # wraps, as PyTorch


def test_storage_item_assignment_takes_numbers_only():
    st = xp.zeros(3).storage()
    with pytest.raises(TypeError, match="expected a number"):
        st[0] = "x"
    st[1] = np.float32(2.5)
    assert st[1] == 2.5


def test_numpy_views_of_overlapping_arrays_are_read_only_as_numpys_broadcasts():
    base = xp.zeros(3, device="cpu")  # numpy() shares host memory: a CPU feature
    v = base[None].expand(2, 3)
    for n in (v.numpy(), np.asarray(v)):
        assert not n.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            n[0, 0] = 1.0
    assert base.numpy().flags.writeable  # plain views stay writable and shared
    base.numpy()[0] = 4.0
    assert v.numpy()[1, 0] == 4.0


def test_inplace_on_real_of_an_array_that_requires_grad_raises_instead_of_a_wrong_gradient():
    w = xp.ones(3, dtype=xp.complex64, requires_grad=True)
    y = w * (1 + 2j)
    with pytest.raises(RuntimeError, match="not supported by strided's autograd"):
        y.real.mul_(2)
    assert np.asarray(y.detach().cpu().numpy()).tolist() == [1 + 2j] * 3  # refused before writing
    # out of place it is right, as in PyTorch
    torch = pytest.importorskip("torch")
    ((y.real * 2) + (y.imag * 1j)).abs().sum().backward()
    tw = torch.ones(3, dtype=torch.complex64, requires_grad=True)
    ty = tw * (1 + 2j)
    ((ty.real * 2) + (ty.imag * 1j)).abs().sum().backward()
    assert np.allclose(np.asarray(w.grad.cpu().numpy()), tw.grad.numpy(), rtol=1e-5)


def test_save_to_a_bytes_path_and_an_empty_path(tmp_path):
    p = os.fsencode(str(tmp_path / "b.strd"))
    xp.save(xp.ones(2), p)
    assert np.asarray(xp.load(p).cpu().numpy()).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="path is empty"):
        xp.save(xp.ones(2), "")


h5py = pytest.importorskip("h5py")


def test_hdf5_labels_that_are_not_names_are_dropped_with_a_warning(tmp_path):
    p = tmp_path / "l.h5"
    with h5py.File(p, "w") as f:
        d = f.create_dataset("x", data=np.zeros((2, 3)))
        d.dims[0].label = "x [m]"  # another tool's label: not an identifier
        d.dims[1].label = "col"
    with pytest.warns(UserWarning, match="dropped"):
        x = sio.load_hdf5(p, "x")
    assert x.names == (None, "col")


def test_save_hdf5_keys_that_clash_or_name_the_group_itself(tmp_path):
    with pytest.raises(ValueError, match="also the group"):
        sio.save_hdf5(tmp_path / "k.h5", {"a": xp.ones(2), "a/b": xp.ones(2)})
    with pytest.raises(ValueError, match="'.' path component"):
        sio.save_hdf5(tmp_path / "k.h5", {"g/./x": xp.ones(2)})
    assert list(tmp_path.iterdir()) == []
