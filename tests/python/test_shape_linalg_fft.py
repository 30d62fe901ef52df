"""Shape ops, linear algebra and FFTs against NumPy."""
import numpy as np
import pytest

import spire

rng = np.random.default_rng(1)


def T(a):
    return spire.tensor(np.asarray(a))


def test_shape_ops():
    a = rng.normal(size=(2, 3, 4))
    t = T(a)
    np.testing.assert_array_equal(t.reshape(6, 4).numpy(), a.reshape(6, 4))
    np.testing.assert_array_equal(t.reshape((4, -1)).numpy(), a.reshape(4, -1))
    np.testing.assert_array_equal(spire.reshape(t, (24,)).numpy(), a.reshape(24))
    np.testing.assert_array_equal(t.permute(2, 0, 1).numpy(), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(t.transpose(0, 2).numpy(), a.swapaxes(0, 2))
    np.testing.assert_array_equal(spire.transpose(t, (1, 2, 0)).numpy(), a.transpose(1, 2, 0))
    np.testing.assert_array_equal(t.T.numpy(), a.T)
    np.testing.assert_array_equal(t.mT.numpy(), a.swapaxes(-1, -2))
    np.testing.assert_array_equal(spire.moveaxis(t, 0, -1).numpy(), np.moveaxis(a, 0, -1))
    np.testing.assert_array_equal(t.flatten().numpy(), a.flatten())
    np.testing.assert_array_equal(t.flatten(1).numpy(), a.reshape(2, 12))
    np.testing.assert_array_equal(T(a[:, :1]).squeeze(1).numpy(), a[:, 0])
    np.testing.assert_array_equal(t.unsqueeze(1).numpy(), a[:, None])
    np.testing.assert_array_equal(spire.broadcast_to(T([1.0, 2.0]), (3, 2)).numpy(), np.broadcast_to([1.0, 2.0], (3, 2)))
    np.testing.assert_array_equal(T(a[:, :1]).expand(2, 3, 4).numpy(), np.broadcast_to(a[:, :1], (2, 3, 4)))


def test_join_split():
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    np.testing.assert_array_equal(spire.concat([T(a), T(b)], axis=1).numpy(), np.concatenate([a, b], 1))
    np.testing.assert_array_equal(spire.stack([T(a), T(b)]).numpy(), np.stack([a, b]))
    np.testing.assert_array_equal(spire.stack([T(a), T(b)], axis=-1).numpy(), np.stack([a, b], -1))
    parts = spire.split(T(np.arange(7.0)), [2, 5])
    assert [p.tolist() for p in parts] == [[0.0, 1.0], [2.0, 3.0, 4.0, 5.0, 6.0]]
    parts = spire.split(T(np.arange(7.0)), 3)
    assert [p.shape for p in parts] == [(3,), (3,), (1,)]
    assert len(spire.chunk(T(np.arange(6.0)), 3)) == 3


def test_flip_roll_pad_tri_diag():
    a = rng.normal(size=(3, 4))
    t = T(a)
    np.testing.assert_array_equal(spire.flip(t, 1).numpy(), np.flip(a, 1))
    np.testing.assert_array_equal(spire.flip(t).numpy(), np.flip(a))
    np.testing.assert_array_equal(spire.roll(t, 1, 0).numpy(), np.roll(a, 1, 0))
    np.testing.assert_array_equal(spire.roll(t, -2).numpy(), np.roll(a, -2))
    np.testing.assert_array_equal(spire.pad(t, [(1, 2)]).numpy(), np.pad(a, [(0, 0), (1, 2)]))
    np.testing.assert_array_equal(spire.pad(t, 1).numpy(), np.pad(a, 1))
    np.testing.assert_array_equal(spire.pad(t, [(1, 1)], mode="wrap").numpy(), np.pad(a, [(0, 0), (1, 1)], mode="wrap"))
    np.testing.assert_array_equal(spire.pad(t, [(2, 1)], mode="reflect").numpy(), np.pad(a, [(0, 0), (2, 1)], mode="reflect"))
    np.testing.assert_array_equal(spire.tril(t).numpy(), np.tril(a))
    np.testing.assert_array_equal(spire.triu(t, 1).numpy(), np.triu(a, 1))
    np.testing.assert_array_equal(spire.diagonal(t).numpy(), np.diagonal(a))
    np.testing.assert_array_equal(spire.diagonal(t, 1).numpy(), np.diagonal(a, 1))


def test_gather_scatter():
    a = rng.normal(size=(3, 4))
    idx = np.array([[0, 3], [1, 1], [2, 0]])
    np.testing.assert_array_equal(spire.take_along_axis(T(a), T(idx), 1).numpy(), np.take_along_axis(a, idx, 1))
    np.testing.assert_array_equal(spire.index_select(T(a), 1, T([3, 0])).numpy(), a[:, [3, 0]])
    out = spire.index_add(spire.zeros(4, dtype=spire.float64), 0, T([0, 2, 0]), T([1.0, 2.0, 3.0]))
    assert out.tolist() == [4.0, 0.0, 2.0, 0.0]
    oh = spire.one_hot(T([0, 2]), 3)
    np.testing.assert_array_equal(oh.numpy(), [[1, 0, 0], [0, 0, 1]])
    np.testing.assert_array_equal(spire.nonzero(T([[0, 1], [1, 0]])).numpy(), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(spire.masked_select(T(a), T(a > 0)).numpy(), a[a > 0])


def test_linalg():
    a = rng.normal(size=(4, 4)) + 4 * np.eye(4)
    b = rng.normal(size=(4, 2))
    spd = a @ a.T
    np.testing.assert_allclose(spire.linalg.solve(T(a), T(b)).numpy(), np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(spire.linalg.inv(T(a)).numpy(), np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(spire.linalg.det(T(a)).item(), np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(spire.linalg.cholesky(T(spd)).numpy(), np.linalg.cholesky(spd), rtol=1e-10)
    np.testing.assert_allclose(spire.linalg.norm(T(a)).item(), np.linalg.norm(a), rtol=1e-12)
    v = rng.normal(size=5)
    np.testing.assert_allclose(spire.linalg.norm(T(v)).item(), np.linalg.norm(v), rtol=1e-12)
    np.testing.assert_allclose(spire.linalg.vector_norm(T(v), 1.0).item(), np.abs(v).sum(), rtol=1e-12)
    np.testing.assert_allclose(spire.outer(T(v), T(v)).numpy(), np.outer(v, v))
    np.testing.assert_allclose(spire.dot(T(v), T(v)).item(), v @ v)
    np.testing.assert_allclose(spire.einsum("ij,jk->ik", T(a), T(b)).numpy(), a @ b, rtol=1e-12)
    np.testing.assert_allclose(spire.einsum("ii", T(a)).item(), np.trace(a), rtol=1e-12)
    batch = rng.normal(size=(3, 4, 4))
    np.testing.assert_allclose(spire.matmul(T(batch), T(a)).numpy(), batch @ a, rtol=1e-12)
    low = np.tril(a)
    np.testing.assert_allclose(spire.linalg.solve_triangular(T(low), T(b), lower=True).numpy(),
                               np.linalg.solve(low, b), rtol=1e-10)


def test_fft():
    x = rng.normal(size=(4, 8))
    np.testing.assert_allclose(spire.fft.fft(T(x)).numpy(), np.fft.fft(x), atol=1e-12)
    np.testing.assert_allclose(spire.fft.ifft(T(x), axis=0).numpy(), np.fft.ifft(x, axis=0), atol=1e-12)
    np.testing.assert_allclose(spire.fft.rfft(T(x)).numpy(), np.fft.rfft(x), atol=1e-12)
    np.testing.assert_allclose(spire.fft.fft(T(x), n=12).numpy(), np.fft.fft(x, n=12), atol=1e-12)
    np.testing.assert_allclose(spire.fft.fft(T(x), n=5).numpy(), np.fft.fft(x, n=5), atol=1e-12)
    np.testing.assert_allclose(spire.fft.fftn(T(x)).numpy(), np.fft.fftn(x), atol=1e-12)
    np.testing.assert_allclose(spire.fft.fftn(T(x), norm="ortho").numpy(), np.fft.fftn(x, norm="ortho"), atol=1e-12)
    r = np.fft.rfftn(x)
    np.testing.assert_allclose(spire.fft.rfftn(T(x)).numpy(), r, atol=1e-12)
    np.testing.assert_allclose(spire.fft.irfftn(T(r)).numpy(), x, atol=1e-12)
    np.testing.assert_allclose(spire.fft.irfft(T(np.fft.rfft(x[0]))).numpy(), x[0], atol=1e-12)
    np.testing.assert_allclose(spire.fft.irfft(T(np.fft.rfft(x[0, :7])), n=7).numpy(), x[0, :7], atol=1e-12)
    np.testing.assert_allclose(spire.fft.fftfreq(8, 0.1).numpy(), np.fft.fftfreq(8, 0.1), rtol=1e-6)
    np.testing.assert_allclose(spire.fft.rfftfreq(9).numpy(), np.fft.rfftfreq(9), rtol=1e-6)
    np.testing.assert_array_equal(spire.fft.fftshift(T(x)).numpy(), np.fft.fftshift(x))


def test_dct_matches_definition():
    x = rng.normal(size=6)
    n = np.arange(6)
    ref = np.array([2 * np.sum(x * np.cos(np.pi * k * (2 * n + 1) / 12)) for k in range(6)])  # scipy DCT-II
    np.testing.assert_allclose(spire.fft.dct(T(x)).numpy(), ref, atol=1e-12)
    np.testing.assert_allclose(spire.fft.idct(spire.fft.dct(T(x))).numpy(), x, atol=1e-12)


def test_conv_matches_direct_sum():
    x = rng.normal(size=(1, 2, 7))
    w = rng.normal(size=(3, 2, 3))
    ref = np.zeros((1, 3, 5))
    for o in range(3):
        for i in range(5):
            ref[0, o, i] = np.sum(x[0, :, i:i + 3] * w[o])
    np.testing.assert_allclose(spire.conv1d(T(x), T(w)).numpy(), ref, rtol=1e-10)
    padded = spire.conv1d(T(x), T(w), padding=1)
    assert padded.shape == (1, 3, 7)


def test_take():
    a = rng.normal(size=(3, 4, 5))
    np.testing.assert_array_equal(spire.take(T(a), [2, 0], axis=1).numpy(), np.take(a, [2, 0], axis=1))
    i, j = np.array([0, 2]), np.array([[1], [3]])
    np.testing.assert_array_equal(spire.take(T(a), (i, j), axis=1).numpy(), a[:, i, j])
    out = spire.take_add(spire.zeros(4, dtype=spire.float64), [T([1, 1, 3])], T([1.0, 2.0, 3.0]))
    assert out.tolist() == [0.0, 3.0, 0.0, 3.0]
