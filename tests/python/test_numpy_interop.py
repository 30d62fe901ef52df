"""Tensors and NumPy arrays share memory both ways; copies are explicit."""
import gc

import numpy as np
import pytest

import spire


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = spire.from_numpy(a)
    assert t.dtype == spire.float64 and t.shape == (2, 3)
    a[0, 1] = 42.0
    assert t[0, 1].item() == 42.0
    t[1, 2] = -1.0  # __setitem__ writes through a NumPy view of the same memory
    assert a[1, 2] == -1.0


def test_asarray_of_tensor_shares_memory():
    t = spire.zeros(3, 4)
    a = np.asarray(t)
    assert a.dtype == np.float32 and a.shape == (3, 4)
    assert a.__array_interface__["data"][0] == t.data_ptr()
    a[2, 3] = 7.0
    assert t[2, 3].item() == 7.0
    assert np.shares_memory(t.numpy(), a)


def test_numpy_view_keeps_tensor_alive():
    t = spire.tensor([1.0, 2.0, 3.0])
    a = np.asarray(t)
    del t
    gc.collect()
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])


def test_tensor_keeps_numpy_alive():
    a = np.linspace(0, 1, 5)
    t = spire.from_numpy(a)
    del a
    gc.collect()
    np.testing.assert_allclose(t.numpy(), np.linspace(0, 1, 5))


def test_tensor_copies():
    a = np.ones(3, dtype=np.float32)
    t = spire.tensor(a)
    a[0] = 5
    assert t[0].item() == 1.0


def test_strided_views_share():
    a = np.arange(24, dtype=np.int64).reshape(4, 6)[::2, 1::2]
    t = spire.from_numpy(a)
    assert t.strides == (12, 2)
    np.testing.assert_array_equal(np.asarray(t), a)
    tt = spire.from_numpy(np.arange(12.0).reshape(3, 4)).T
    b = np.asarray(tt)
    np.testing.assert_array_equal(b, np.arange(12.0).reshape(3, 4).T)


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.int64, np.float32, np.float64, np.complex64,
                                   np.complex128])
def test_dtype_round_trip(dtype):
    a = (np.arange(6) % 3).astype(dtype).reshape(2, 3)
    t = spire.from_numpy(a)
    assert t.dtype == np.dtype(dtype)
    b = np.asarray(t)
    assert b.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(a, b)


def test_python_defaults():
    assert spire.tensor([1.0, 2.0]).dtype == spire.float32
    assert spire.tensor([1, 2]).dtype == spire.int64
    assert spire.tensor([True]).dtype == spire.bool
    assert spire.tensor([1j]).dtype == spire.complex64
    assert spire.tensor(np.array([1.0])).dtype == spire.float64
    assert spire.tensor([1, 2], dtype="float64").dtype == spire.float64
    assert spire.tensor([1, 2], dtype=np.float32).dtype == spire.float32
    assert spire.tensor(3.5).shape == ()


def test_unsupported_dtypes():
    t = spire.tensor(np.arange(4, dtype=np.uint8))  # copies, widening
    assert t.dtype == spire.int32
    with pytest.raises(spire.DTypeError):
        spire.from_numpy(np.arange(4, dtype=np.uint8))
    with pytest.raises(TypeError):  # DTypeError is a TypeError
        spire.from_numpy(np.arange(4, dtype=np.float16))


def test_negative_strides_refused_for_sharing():
    a = np.arange(5.0)[::-1]
    with pytest.raises(ValueError, match="copy"):
        spire.from_numpy(a)
    np.testing.assert_array_equal(spire.tensor(a).numpy(), a)
    np.testing.assert_array_equal(spire.asarray(a).numpy(), a)  # falls back to a copy


def test_array_protocol_dtype_and_copy():
    t = spire.tensor([1.5, 2.5])
    b = np.array(t, dtype=np.float64)
    assert b.dtype == np.float64
    c = np.array(t)  # np.array copies by default
    c[0] = 0
    assert t[0].item() == 1.5


def test_item_tolist_scalars():
    t = spire.tensor([[1, 2], [3, 4]])
    assert t.tolist() == [[1, 2], [3, 4]]
    assert spire.tensor(2.5).item() == 2.5
    assert isinstance(spire.tensor(3).item(), int)
    assert isinstance(spire.tensor(True).item(), bool)
    assert spire.tensor(1 + 2j, dtype=spire.complex128).item() == 1 + 2j
    assert float(spire.tensor([2.0])) == 2.0
    assert int(spire.tensor(7)) == 7
    assert [1, 2, 3][spire.tensor(1)] == 2  # __index__
    with pytest.raises(ValueError):
        spire.ones(2).item()


def test_empty_arrays():
    a = np.zeros((0, 3))
    t = spire.from_numpy(a)
    assert t.shape == (0, 3)
    assert np.asarray(t).shape == (0, 3)


def test_numpy_binary_ops_return_tensors():
    t = spire.tensor([1.0, 2.0])
    r = np.array([1.0, 1.0], dtype=np.float32) + t
    assert isinstance(r, spire.Tensor)
    np.testing.assert_array_equal(r.numpy(), [2.0, 3.0])
    assert isinstance(t * np.float32(2), spire.Tensor)


def test_ufuncs_on_tensors_give_arrays():
    t = spire.tensor([0.0, 1.0])
    np.testing.assert_allclose(np.exp(t), np.exp([0.0, 1.0]), rtol=1e-6)


def test_pickle_and_copy():
    import copy
    import pickle

    t = spire.tensor([[1.0, 2.0]], requires_grad=True)
    u = pickle.loads(pickle.dumps(t))
    assert u.requires_grad and u.tolist() == [[1.0, 2.0]]
    d = copy.deepcopy(t)
    assert d.requires_grad and d.data_ptr() != t.data_ptr()
    c = copy.copy(t)
    assert not c.requires_grad
