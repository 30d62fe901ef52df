"""spire.save_checkpoint / load_checkpoint: bit-for-bit resume, the documented HDF5 layout (h5py),
clear errors, atomic writes."""

import os

import h5py
import numpy as np
import pytest

import spire
import spire.nn.functional as F


class Net(spire.nn.Module):
    def __init__(self, seed):
        super().__init__()
        g = spire.random.Generator(seed)
        self.l1 = spire.nn.Linear(4, 8, generator=g)
        self.l2 = spire.nn.Linear(8, 1, generator=g)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class Run:
    def __init__(self, seed):
        self.net = Net(seed)
        self.opt = spire.optim.Adam(self.net.parameters(), lr=0.05)
        self.sched = spire.optim.lr_scheduler.StepLR(self.opt, step_size=2, gamma=0.5)
        self.data = spire.random.Generator(seed + 100, 3)

    def step(self):
        # The batch is drawn from the data generator, label noise from the default generator.
        x = spire.random.uniform((8, 4), -1.0, 1.0, generator=self.data)
        y = (x * x).sum(1, keepdims=True) + spire.random.normal((8, 1), 0.0, 0.1)
        self.opt.zero_grad()
        F.mse_loss(self.net(x), y).backward()
        self.opt.step()
        self.sched.step()

    def save(self, path, **kw):
        spire.save_checkpoint(path, self.net, self.opt, self.sched, {"data": self.data}, **kw)

    def load(self, path):
        return spire.load_checkpoint(path, self.net, self.opt, self.sched, {"data": self.data})


def _state(run):
    params = [np.array(p) for p in run.net.parameters()]
    opt = {k: (np.array(v) if isinstance(v, spire.Tensor) else v) for k, v in run.opt.state_dict().items()}
    return params, opt, run.sched.state_dict(), run.opt.lr


def _assert_same(a, b):
    pa, oa, sa, la = a
    pb, ob, sb, lb = b
    for x, y in zip(pa, pb):
        np.testing.assert_array_equal(x, y)
    assert list(oa) == list(ob)
    for k in oa:
        if isinstance(oa[k], np.ndarray):
            np.testing.assert_array_equal(oa[k], ob[k])
        else:
            assert oa[k] == ob[k] and type(oa[k]) is type(ob[k]), k
    assert sa == sb and la == lb


def test_resume_is_bit_for_bit(tmp_path):
    path = tmp_path / "ckpt.h5"
    spire.manual_seed(7)
    straight = Run(1)
    for _ in range(10):
        straight.step()
    straight_next = np.array(spire.random.uniform((5,), generator=straight.data))
    straight_default = np.array(spire.random.normal((3,)))

    spire.manual_seed(7)
    first = Run(1)
    for _ in range(5):
        first.step()
    first.save(path, epoch=2, step=5, metadata={"note": "halfway"})
    assert not any(".tmp-" in name for name in os.listdir(tmp_path))

    spire.manual_seed(999)
    resumed = Run(42)  # other weights and data stream: all must come from the file
    info = resumed.load(path)
    assert info == {"epoch": 2, "step": 5, "metadata": {"note": "halfway"}}
    for _ in range(5):
        resumed.step()
    _assert_same(_state(straight), _state(resumed))
    np.testing.assert_array_equal(straight_next, np.array(spire.random.uniform((5,), generator=resumed.data)))
    np.testing.assert_array_equal(straight_default, np.array(spire.random.normal((3,))))

    # Without the load, the fresh run differs (the test can fail).
    spire.manual_seed(999)
    fresh = Run(42)
    for _ in range(5):
        fresh.step()
    assert not np.array_equal(np.array(fresh.net.l1.weight), np.array(straight.net.l1.weight))


def test_h5py_reads_documented_layout(tmp_path):
    path = tmp_path / "ckpt.h5"
    spire.manual_seed(3)
    run = Run(1)
    run.step()
    run.save(path, epoch=1, step=1, metadata={"git": "abc123"})
    with h5py.File(path, "r") as f:
        assert f.attrs["format"] in ("spire.checkpoint", b"spire.checkpoint")
        assert f.attrs["version"] == 1 and f.attrs["epoch"] == 1 and f.attrs["step"] == 1
        assert set(f) == {"model", "optimizer", "scheduler", "rng", "meta"}
        assert list(f["model"]) == list(run.net.state_dict())  # insertion order kept
        w = f["model/l1.weight"]
        assert w.dtype == np.float32 and w.shape == (8, 4)
        np.testing.assert_array_equal(w[()], np.array(run.net.l1.weight))
        assert f["optimizer/lr"].attrs["kind"] in ("float", b"float")
        assert f["optimizer/lr"][()] == run.opt.lr
        assert f["optimizer/state.0.step"].dtype == np.int64
        np.testing.assert_array_equal(f["optimizer/state.0.exp_avg"][()], np.array(run.opt.state_dict()["state.0.exp_avg"]))
        assert f["rng/data/seed"][()] == 101 and f["rng/data/stream"][()] == 3
        assert f["rng/data/offset"][()] == run.data.offset
        assert f["rng/default/offset"][()] == spire.random.default_generator().offset
        assert f["meta/git"].asstr()[()] == "abc123"


class Counters:
    """A run's own state beside the model: numbers and a tensor, restored in place."""

    def __init__(self, games=0, scores=None):
        self.games, self.scores = games, scores

    def state_dict(self):
        return {"games": self.games, "scores": self.scores}

    def load_state_dict(self, d):
        self.games, self.scores = d["games"], d["scores"]


def test_named_state_round_trips(tmp_path):
    path = tmp_path / "state.h5"
    saved = Counters(7, spire.tensor([0.5, -1.0]))
    spire.save_checkpoint(path, state={"counters": saved}, default_generator=False)
    with h5py.File(path, "r") as f:
        assert f["state/counters/games"][()] == 7 and f["state/counters/games"].dtype == np.int64
        np.testing.assert_array_equal(f["state/counters/scores"][()], [0.5, -1.0])
    restored = Counters()
    spire.load_checkpoint(path, state={"counters": restored}, default_generator=False)
    assert restored.games == 7
    np.testing.assert_array_equal(np.array(restored.scores), [0.5, -1.0])
    with pytest.raises(ValueError, match="holds no state 'buffer'; it holds: counters"):
        spire.load_checkpoint(path, state={"buffer": Counters()}, default_generator=False)


def test_complex_and_bool_layout(tmp_path):

    class Holder(spire.nn.Module):
        def __init__(self, c, b):
            super().__init__()
            self.register_buffer("c", spire.tensor(np.array(c, dtype=np.complex64)))
            self.register_buffer("b", spire.tensor(np.array(b)))

    path = tmp_path / "c.h5"
    m = Holder([1 + 2j, 3 - 4j], [True, False])
    spire.save_checkpoint(path, m, default_generator=False)
    with h5py.File(path, "r") as f:
        c = f["model/c"]
        assert c.shape == (2, 2) and c.dtype == np.float32 and c.attrs["dtype"] in ("complex64", b"complex64")
        np.testing.assert_array_equal(c[..., 0] + 1j * c[..., 1], [1 + 2j, 3 - 4j])
        assert f["model/b"].dtype == np.uint8
    m2 = Holder([0, 0], [False, True])
    spire.load_checkpoint(path, m2, default_generator=False)
    np.testing.assert_array_equal(np.array(m2.c), [1 + 2j, 3 - 4j])
    np.testing.assert_array_equal(np.array(m2.b), [True, False])


def test_errors(tmp_path):
    run = Run(1)
    with pytest.raises(OSError, match="no such file"):
        run.load(tmp_path / "missing.h5")
    bad = tmp_path / "bad.h5"
    bad.write_bytes(b"not an hdf5 file")
    with pytest.raises(OSError, match="not an HDF5 file"):
        run.load(bad)
    good = tmp_path / "good.h5"
    run.save(good)
    data = good.read_bytes()
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(OSError):
        run.load(bad)
    spire.save_checkpoint(good, run.net)  # model only
    with pytest.raises(ValueError, match="no optimizer state"):
        run.load(good)
    with pytest.raises(ValueError, match="no generator 'data'"):
        spire.load_checkpoint(good, run.net, generators={"data": run.data})
    with pytest.raises(ValueError):  # shape mismatch, named by load_state_dict
        spire.load_checkpoint(good, spire.nn.Linear(3, 2))


def test_overwrite_is_atomic(tmp_path):
    path = tmp_path / "ckpt.h5"
    run = Run(1)
    run.save(path, step=1)
    class Bad:  # fails mid-write: the second key cannot name an HDF5 dataset
        def state_dict(self):
            return {"a": spire.zeros((2,)), "b/c": spire.zeros((2,))}

    with pytest.raises(ValueError, match="b/c"):  # the old file stays, the temp file goes
        spire.save_checkpoint(path, Bad())
    assert spire.load_checkpoint(path, run.net)["step"] == 1
    run.save(path, step=2)
    assert spire.load_checkpoint(path, run.net)["step"] == 2
    assert os.listdir(tmp_path) == ["ckpt.h5"]
