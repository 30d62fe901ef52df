"""NumPy indexing semantics for every index form, and gradients through indexing."""
import numpy as np
import pytest

import spire

A = np.arange(4 * 5 * 6, dtype=np.float64).reshape(4, 5, 6)
s_ = np.s_

KEYS = [
    s_[0], s_[-1], s_[2, 3], s_[1, -2, 4], s_[1:3], s_[::2], s_[::-1], s_[3:0:-2], s_[-3:],
    s_[:, 1], s_[..., 2], s_[1, ..., 3], s_[..., None], s_[None], s_[:, None, 2:4], s_[None, ..., None],
    s_[1:100], s_[5:2], s_[:, ::-2, 1:5:3], s_[[0, 2]], s_[[3, 0, 0]], s_[[-1, 1]], s_[:, [1, 4]],
    s_[..., [0, 5, 2]], s_[[0, 1], [2, 3]], s_[[0, 1], :, [2, 3]], s_[:, [0, 1], [2, 3]],
    s_[[[0, 1], [2, 3]]], s_[[[0], [1]], [1, 2]], s_[1, [0, 2], 1:3], s_[[0, 2], 1], s_[:, 2, [1, 3]],
    s_[[0, 2], ..., [1, 3]], s_[np.array([1, 3])], s_[np.array([[0, 1]]), 2], s_[True], s_[False],
    s_[1, None, [0, 1]], s_[[]], s_[0, 0, 0],
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_getitem_matches_numpy(key):
    t = spire.tensor(A)
    expected = A[key]
    got = t[key]
    assert got.shape == np.shape(expected)
    np.testing.assert_array_equal(got.numpy(), expected)


MASKS = [
    lambda a: a > 50,
    lambda a: (a % 2 == 0)[:, :, 0],
    lambda a: (a > 30)[:, 0, 0],
    lambda a: np.array([True, False, True, False]),
]


@pytest.mark.parametrize("mask_fn", MASKS)
def test_boolean_masks(mask_fn):
    mask = mask_fn(A)
    t = spire.tensor(A)
    np.testing.assert_array_equal(t[mask].numpy(), A[mask])
    np.testing.assert_array_equal(t[spire.tensor(mask)].numpy(), A[mask])


def test_mask_combined_with_others():
    m = np.array([True, False, True, True, False])
    t = spire.tensor(A)
    np.testing.assert_array_equal(t[:, m].numpy(), A[:, m])
    np.testing.assert_array_equal(t[1, m, ::2].numpy(), A[1, m, ::2])


def test_tensor_indices():
    t = spire.tensor(A)
    idx = spire.tensor([2, 0], dtype=spire.int32)
    np.testing.assert_array_equal(t[idx].numpy(), A[[2, 0]])
    np.testing.assert_array_equal(t[:, spire.tensor(3)].numpy(), A[:, 3])  # 0-d tensor acts as an int


def test_basic_indexing_gives_views():
    t = spire.tensor(A)
    v = t[1, :, ::2]
    assert np.shares_memory(np.asarray(v), np.asarray(t))


def test_index_errors():
    t = spire.tensor(A)
    with pytest.raises(IndexError, match="out of bounds"):
        t[4]
    with pytest.raises(IndexError, match="out of bounds"):
        t[:, [0, 5]]
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0, 0]
    with pytest.raises(IndexError):
        t[1.5]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., ...]
    with pytest.raises(IndexError, match="boolean index did not match"):
        t[np.array([True, False])]
    with pytest.raises(IndexError):
        spire.tensor(1.0)[0]


def test_gradient_through_indexing():
    x = spire.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = (x[1, [0, 2, 0]] * 2.0).sum() + x[:, 1].sum() + x[x > 4.5].sum()
    y.backward()
    expected = np.zeros((2, 3))
    expected[1, 0] += 4.0
    expected[1, 2] += 2.0
    expected[:, 1] += 1.0
    expected[1, 2] += 1.0
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_setitem():
    t = spire.zeros(3, 4)
    t[1] = 5.0
    t[:, 0] = spire.tensor([1.0, 2.0, 3.0])
    t[t > 4.5] = -1.0
    t[[0, 2], [3, 3]] = 9.0
    expected = np.zeros((3, 4))
    expected[1] = 5.0
    expected[:, 0] = [1.0, 2.0, 3.0]
    expected[expected > 4.5] = -1.0
    expected[[0, 2], [3, 3]] = 9.0
    np.testing.assert_array_equal(t.numpy(), expected)
    w = spire.zeros(2, requires_grad=True)
    with pytest.raises(spire.AutodiffError):
        w[0] = 1.0


def test_iteration_and_len():
    t = spire.tensor(A)
    assert len(t) == 4
    rows = list(t)
    assert len(rows) == 4 and rows[2].shape == (5, 6)
    np.testing.assert_array_equal(rows[3].numpy(), A[3])
    with pytest.raises(TypeError):
        len(spire.tensor(1.0))
    assert 7.0 in t
