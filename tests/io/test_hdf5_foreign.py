"""Foreign HDF5 files (written by h5py, as other tools write them) whose datasets hold no
numbers: scalar and array strings, compound records, object and region references, vlen
sequences, opaque bytes. Each read names the dataset and the type in a TypeError; nothing
else in the file is affected (the numeric datasets load by key)."""

from __future__ import annotations

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")

import strided as xp  # noqa: E402
from strided import io as sio  # noqa: E402

pytestmark = pytest.mark.host_pinned  # (no test here touches the default device: not on the stand-in leg)


def _write(path):
    with h5py.File(path, "w") as f:
        f["nums"] = np.arange(6.0).reshape(2, 3)
        f["title"] = "a scalar string"                       # variable-length str, 0-d
        f["fixed"] = np.bytes_("fixed")                      # fixed-length bytes, 0-d
        f.create_dataset("labels", data=np.array(["a", "bc"], dtype=h5py.string_dtype()))
        f["records"] = np.array([(1, 2.5), (3, 4.5)], dtype=[("id", "i4"), ("w", "f8")])
        ref = f.create_dataset("refs", (2,), dtype=h5py.ref_dtype)
        ref[0] = f["nums"].ref
        reg = f.create_dataset("regions", (1,), dtype=h5py.regionref_dtype)
        reg[0] = f["nums"].regionref[0:1, :]
        vl = f.create_dataset("ragged", (2,), dtype=h5py.vlen_dtype(np.int32))
        vl[0], vl[1] = np.arange(3, dtype=np.int32), np.arange(1, dtype=np.int32)
        f["opaque"] = np.void(b"\x01\x02\x03")
        f.create_dataset("subarray", (2,), dtype=np.dtype(("f4", (3,))))


CASES = {
    "title": "text", "fixed": "text", "labels": "text", "records": "compound",
    "refs": "object references", "regions": "region references", "ragged": "vlen",
    "opaque": "opaque", "subarray": "array type",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_dataset_without_numbers_is_a_typeerror_naming_it_and_its_type(tmp_path, name):
    path = tmp_path / "foreign.h5"
    _write(path)
    with h5py.File(path, "r") as f:
        dt = f[name].dtype  # what h5py itself reports: the message names it
    pattern = rf"HDF5 dataset '/{name}' holds .*{CASES[name]}.*\({__import__('re').escape(str(dt))}\)"
    with pytest.raises(TypeError, match=pattern):
        sio.load_hdf5(path, name)
    with sio.open_hdf5(path) as f:
        d = f[name]
        with pytest.raises(TypeError, match=pattern):
            d.read()
        with pytest.raises(TypeError, match=pattern):
            d[...]
        with pytest.raises(TypeError, match=pattern):
            d.dtype
    # the whole file: the first foreign dataset is named
    with pytest.raises(TypeError, match=r"HDF5 dataset '/\w+' holds"):
        sio.load_hdf5(path)


def test_the_numeric_dataset_of_a_foreign_file_still_loads(tmp_path):
    path = tmp_path / "foreign.h5"
    _write(path)
    got = sio.load_hdf5(path, "nums")
    np.testing.assert_array_equal(got.cpu().numpy(), np.arange(6.0).reshape(2, 3))
    assert got.dtype == xp.float64
    with sio.open_hdf5(path) as f:
        np.testing.assert_array_equal(f["nums"][1].cpu().numpy(), [3.0, 4.0, 5.0])
