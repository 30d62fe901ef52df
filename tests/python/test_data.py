"""spire.data: HDF5 files written with h5py (the reference) and read back exactly, errors naming
what is allowed, sampler permutations and the distributed split, and both loaders (the C++ one for
built-in datasets, the Python one for Python datasets): order, len, prefetch errors and shutdown."""

import gc
import threading
import time

import h5py
import numpy as np
import pytest
import torch

import spire
from spire import data


N = 37


@pytest.fixture(scope="module")
def h5file(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("data") / "set.h5")
    rng = np.random.default_rng(0)
    arrays = {
        "x": rng.standard_normal((N, 3, 2)).astype(np.float32),
        "y": rng.integers(-2**40, 2**40, N).astype(np.int64),
        "w": rng.standard_normal(N),
        "k": rng.integers(-100, 100, N).astype(np.int32),
        "mask": rng.random(N) < 0.5,
        "small": rng.integers(0, 255, (N, 4)).astype(np.uint8),
    }
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=arrays["x"], chunks=(5, 3, 2), compression="gzip")
        f.create_dataset("y", data=arrays["y"], chunks=(8,))
        f.create_dataset("w", data=arrays["w"])  # contiguous
        f.create_dataset("grp/k", data=arrays["k"])
        f.create_dataset("mask", data=arrays["mask"])
        f.create_dataset("small", data=arrays["small"])
        f.create_dataset("other", data=np.zeros(N + 1))
    return path, arrays


def test_hdf5_reads_exact_values(h5file):
    path, a = h5file
    keys = ["x", "y", "w", "grp/k", "mask", "small"]
    ds = data.HDF5Dataset(path, keys)
    assert len(ds) == N and ds.keys == keys
    assert ds.dtypes == (spire.float32, spire.int64, spire.float64, spire.int32, spire.bool, spire.int32)
    assert ds.shapes[0] == (N, 3, 2)
    for i in [0, 4, 5, 36, -1]:
        sample = ds[i]
        assert isinstance(sample, tuple) and len(sample) == len(keys)
        for t, k in zip(sample, keys):
            want = a["k" if k == "grp/k" else k][i]
            np.testing.assert_array_equal(np.asarray(t), want)
    with pytest.raises(IndexError):
        ds[N]
    assert data.HDF5Dataset.keys_in(path) == ["grp/k", "mask", "other", "small", "w", "x", "y"]


@pytest.mark.parametrize("cache_bytes,block_rows", [(0, 0), (64, 5), (1 << 20, 0), (1 << 20, 7)])
def test_hdf5_batches_across_chunk_boundaries(h5file, cache_bytes, block_rows):
    path, a = h5file
    ds = data.HDF5Dataset(path, ["x", "y"], cache_bytes=cache_bytes, block_rows=block_rows)
    for idx in ([4, 5], [9, 10, 11], [36, 0, 5, 5, 4], list(range(N)), [-1, 20, 19, 18]):
        x, y = ds.get_batch(idx)
        np.testing.assert_array_equal(np.asarray(x), a["x"][idx])
        np.testing.assert_array_equal(np.asarray(y), a["y"][idx])
    assert ds.cache_stats()["bytes"] <= cache_bytes


def test_hdf5_errors_name_what_is_there(h5file, tmp_path):
    path, _ = h5file
    with pytest.raises(ValueError, match=r"key 'labels' is not in .*grp/k, mask, other"):
        data.HDF5Dataset(path, ["x", "labels"])
    with pytest.raises(ValueError, match=r"x: 37, other: 38"):
        data.HDF5Dataset(path, ["x", "other"])
    with pytest.raises(OSError, match="no such file"):
        data.HDF5Dataset(str(tmp_path / "missing.h5"), ["x"])
    (tmp_path / "text.h5").write_text("not hdf5")
    with pytest.raises(OSError, match="not an HDF5 file"):
        data.HDF5Dataset(str(tmp_path / "text.h5"), ["x"])
    with pytest.raises(ValueError, match="same size along axis 0"):
        data.ArrayDataset(spire.zeros((3, 2)), spire.zeros((4,)))


def test_hdf5_loader_matches_h5py_reading(h5file):
    path, a = h5file
    ds = data.HDF5Dataset(path, ["x", "mask"])
    loader = data.DataLoader(ds, batch_size=8, shuffle=True, seed=4)
    assert len(loader) == 5
    for epoch in range(2):
        loader.set_epoch(epoch)
        order = data.seeded_permutation(N, 4, epoch)
        seen = 0
        with h5py.File(path, "r") as f:
            for x, m in loader:
                idx = order[seen:seen + x.shape[0]]
                np.testing.assert_array_equal(np.asarray(x), f["x"][sorted(idx)][np.argsort(np.argsort(idx))])
                np.testing.assert_array_equal(np.asarray(m), a["mask"][idx])
                seen += x.shape[0]
        assert seen == N


def test_array_dataset_and_loader_order():
    x = np.arange(20, dtype=np.float64).reshape(10, 2)
    y = np.arange(10)
    ds = data.ArrayDataset(spire.from_numpy(x), y)
    assert len(ds) == 10
    xi, yi = ds[3]
    np.testing.assert_array_equal(np.asarray(xi), x[3])
    assert int(yi.item()) == 3
    loader = data.DataLoader(ds, batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    np.testing.assert_array_equal(np.asarray(batches[2][0]), x[8:])
    assert len(data.DataLoader(ds, batch_size=4, drop_last=True)) == 2
    assert len(list(data.DataLoader(ds, batch_size=4, drop_last=True))) == 2
    # Shuffled: every pass a fresh (seed, epoch) permutation, the same for the same seed.
    a = data.DataLoader(ds, batch_size=3, shuffle=True, seed=9, prefetch=0)
    b = data.DataLoader(ds, batch_size=3, shuffle=True, seed=9, prefetch=3)
    pa0 = np.concatenate([np.asarray(yb) for _, yb in a])
    pa1 = np.concatenate([np.asarray(yb) for _, yb in a])
    assert sorted(pa0) == list(range(10)) and not np.array_equal(pa0, pa1)
    np.testing.assert_array_equal(pa0, data.seeded_permutation(10, 9, 0))
    np.testing.assert_array_equal(np.concatenate([np.asarray(yb) for _, yb in b]), pa0)
    b.set_epoch(1)
    np.testing.assert_array_equal(np.concatenate([np.asarray(yb) for _, yb in b]), pa1)
    with pytest.raises(ValueError, match="batch_size"):
        data.DataLoader(ds, batch_size=0)
    with pytest.raises(ValueError, match="mutually exclusive"):
        data.DataLoader(ds, shuffle=True, sampler=data.SequentialSampler(ds))


def test_samplers():
    assert list(data.SequentialSampler(4)) == [0, 1, 2, 3]
    r = data.RandomSampler(range(30), seed=2)
    e0, e1 = list(r), list(r)
    assert sorted(e0) == sorted(e1) == list(range(30)) and e0 != e1
    r.set_epoch(0)
    assert list(r) == e0 == r.indices(0)
    assert data.RandomSampler(30, seed=3).indices(0) != e0


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (12, 4, False), (2, 4, False)])
def test_distributed_sampler_splits_like_pytorch(n, replicas, drop_last):
    parts = []
    for rank in range(replicas):
        s = data.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        parts.append(list(s))
        assert len(s) == len(parts[-1])
    # PyTorch's rule written out.
    ids = list(range(n))
    if drop_last and n % replicas:
        num = -(-(n - replicas) // replicas)
    else:
        num = -(-n // replicas)
    total = num * replicas
    if not drop_last:
        pad = total - n
        ids += ids[:pad] if pad <= n else (ids * -(-pad // n))[:pad]
    else:
        ids = ids[:total]
    assert parts == [ids[r:total:replicas] for r in range(replicas)]
    # Shuffled: the ranks cover one permutation exactly once.
    if n % replicas == 0:
        joined = []
        for rank in range(replicas):
            s = data.DistributedSampler(range(n), replicas, rank, seed=6)
            s.set_epoch(2)
            joined += list(s)
        assert sorted(joined) == list(range(n))
    for rank in range(replicas):
        ref = torch.utils.data.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ref) == parts[rank]


class Squares(data.Dataset):
    def __init__(self, n, fail_at=None, delay=0.0):
        self.n, self.fail_at, self.delay, self.loads = n, fail_at, delay, 0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.loads += 1
        if self.delay:
            time.sleep(self.delay)
        if i == self.fail_at:
            raise RuntimeError(f"sample {i} is broken")
        return spire.tensor([float(i)]), i * i, {"half": i / 2}


@pytest.mark.parametrize("prefetch", [0, 2])
def test_python_dataset_loader(prefetch):
    loader = data.DataLoader(Squares(7), batch_size=3, prefetch=prefetch)
    batches = list(loader)
    assert len(batches) == len(loader) == 3
    x, sq, d = batches[1]
    np.testing.assert_array_equal(np.asarray(x), [[3.0], [4.0], [5.0]])
    assert sq.dtype == spire.int64 and np.asarray(sq).tolist() == [9, 16, 25]
    assert d["half"].dtype == spire.float64 and np.asarray(d["half"]).tolist() == [1.5, 2.0, 2.5]
    shuffled = data.DataLoader(Squares(7), batch_size=7, shuffle=True, seed=1, prefetch=prefetch)
    np.testing.assert_array_equal(np.asarray(next(iter(shuffled))[1]),
                                  np.asarray(data.seeded_permutation(7, 1, 0)) ** 2)


@pytest.mark.parametrize("prefetch", [0, 2])
def test_errors_reach_the_loop_in_order(prefetch):
    loader = data.DataLoader(Squares(10, fail_at=5), batch_size=2, prefetch=prefetch)
    it = iter(loader)
    next(it), next(it)
    with pytest.raises(RuntimeError, match="sample 5 is broken"):
        next(it)
    with pytest.raises(StopIteration):
        next(it)
    # The C++ loader: an index error raised in its worker arrives the same way.
    ds = data.ArrayDataset(spire.arange(6))
    native = data.DataLoader(ds, batch_size=2, sampler=[0, 1, 2, 9, 4], prefetch=prefetch)
    it = iter(native)
    np.testing.assert_array_equal(np.asarray(next(it)[0]), [0, 1])
    with pytest.raises(ValueError, match="index 9 is out of range"):
        next(it)


def test_early_exit_stops_the_threads():
    before = threading.active_count()
    slow = Squares(1000, delay=0.002)
    for _ in data.DataLoader(slow, batch_size=1, prefetch=2):
        break
    gc.collect()
    assert slow.loads <= 5
    x = spire.from_numpy(np.zeros((5000, 10)))
    for _ in data.DataLoader(data.ArrayDataset(x), batch_size=1, prefetch=2):
        break
    it = iter(data.DataLoader(data.ArrayDataset(x), batch_size=1, prefetch=4))
    next(it)
    it.close()
    del it
    gc.collect()
    time.sleep(0.05)
    assert threading.active_count() == before
