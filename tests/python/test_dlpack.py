"""DLPack exchange with NumPy (the only DLPack producer/consumer installed for tests)."""
import numpy as np
import pytest

import spire


def test_numpy_from_spire_shares():
    t = spire.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=spire.float64)
    a = np.from_dlpack(t)
    assert a.dtype == np.float64 and a.shape == (2, 2)
    a[0, 0] = 10.0
    assert t[0, 0].item() == 10.0


def test_spire_from_numpy_shares():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = spire.from_dlpack(a)
    assert t.dtype == spire.float32 and t.shape == (2, 3)
    a[1, 1] = -5
    assert t[1, 1].item() == -5


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64", "complex64", "complex128"])
def test_round_trip_dtypes(dtype):
    a = (np.arange(12) % 4).astype(dtype).reshape(3, 4)
    t = spire.from_dlpack(a)
    assert t.dtype == dtype
    b = np.from_dlpack(t)
    np.testing.assert_array_equal(a, b)
    assert np.shares_memory(a, b)


def test_strided_round_trip():
    a = np.arange(20.0).reshape(4, 5)[:, ::2]
    t = spire.from_dlpack(a)
    assert t.shape == (4, 3)
    np.testing.assert_array_equal(np.from_dlpack(t), a)
    tt = spire.tensor(np.arange(6.0).reshape(2, 3)).T
    np.testing.assert_array_equal(np.from_dlpack(tt), np.arange(6.0).reshape(2, 3).T)


def test_device_and_legacy_capsule():
    t = spire.ones(3)
    assert t.__dlpack_device__() == (1, 0)
    capsule = t.__dlpack__()  # no max_version: the legacy unversioned capsule
    u = spire.from_dlpack(capsule)
    assert u.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError):  # a capsule is consumed once
        spire.from_dlpack(capsule)


def test_versioned_capsule_unconsumed_is_freed():
    t = spire.ones(4)
    for _ in range(100):
        c = t.__dlpack__(max_version=(1, 0))
        del c  # the capsule destructor calls the deleter


def test_copy_flag():
    t = spire.zeros(2)
    a = np.from_dlpack(t, copy=True)
    a[0] = 1
    assert t[0].item() == 0


def test_lifetime():
    a = np.arange(5.0)
    t = spire.from_dlpack(a)
    del a
    import gc
    gc.collect()
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    b = np.from_dlpack(spire.arange(3))
    gc.collect()
    assert b.tolist() == [0, 1, 2]
