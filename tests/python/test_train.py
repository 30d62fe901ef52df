"""spire.train.fit and its callbacks against closed forms, scripted curves and PyTorch's rules."""

import csv
import io
import os
import re

import h5py
import numpy as np
import pytest

import spire
from spire import train as T


def _regression(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    w = np.array([[1.5], [-2.0], [0.5]], np.float32)
    y = x @ w + 0.25
    return x, y, w


def test_linear_regression_reaches_least_squares_solution():
    x, y, w = _regression()
    spire.manual_seed(0)
    model = spire.nn.Linear(3, 1)
    opt = spire.optim.SGD(model.parameters(), lr=0.1)
    ds = spire.data.ArrayDataset(spire.from_numpy(x), spire.from_numpy(y))
    loader = spire.data.DataLoader(ds, batch_size=16, shuffle=True, seed=1)
    val = spire.data.DataLoader(ds, batch_size=64)
    hist = T.fit(model, spire.nn.MSELoss(), opt, loader, val, epochs=60, verbose=0)
    # The closed-form least-squares solution of the noiseless data is (w, 0.25).
    np.testing.assert_allclose(np.asarray(model.weight.detach()).T, w, atol=1e-3)
    np.testing.assert_allclose(np.asarray(model.bias.detach()), [0.25], atol=1e-3)
    assert len(hist["loss"]) == 60 and hist["val_loss"][-1] < 1e-6
    assert hist["lr"] == [0.1] * 60 and all(t > 0 for t in hist["time"])
    assert model.training          # evaluation restored train mode
    assert hist["loss"][0] > hist["loss"][-1]


def test_lbfgs_uses_a_closure():
    x, y, w = _regression()
    model = spire.nn.Linear(3, 1)
    opt = spire.optim.LBFGS(model.parameters(), line_search_fn="strong_wolfe")
    data = [(spire.from_numpy(x), spire.from_numpy(y))]
    T.fit(model, spire.nn.MSELoss(), opt, data, epochs=5, verbose=0)
    np.testing.assert_allclose(np.asarray(model.weight.detach()).T, w, atol=1e-3)


class _Scripted(spire.nn.Module):
    """A model whose validation loss follows a script; its weight records the epoch."""

    def __init__(self):
        super().__init__()
        self.w = spire.nn.Parameter(spire.zeros(1))

    def forward(self, x):
        return x * self.w


class _ScriptLoss:
    def __init__(self, model, curve):
        self.model, self.curve, self.epoch = model, curve, 0

    def __call__(self, out, target):
        if not self.model.training:      # validation: the scripted value
            return spire.tensor(self.curve[self.epoch])
        return (out * 0).sum() + self.model.w.sum() * 0


class _Epoch(T.Callback):
    """Sets the model weight to the epoch number before it trains, so weights identify epochs."""

    def __init__(self, loss):
        self.loss = loss

    def on_epoch_begin(self, epoch, logs):
        self.loss.epoch = epoch
        self.model.load_state_dict({"w": spire.tensor([float(epoch)])})


def _scripted_fit(curve, callbacks, epochs=None):
    model = _Scripted()
    loss = _ScriptLoss(model, curve)
    opt = spire.optim.SGD(model.parameters(), lr=0.0)
    data = [(spire.ones(2), spire.ones(2))]
    hist = T.fit(model, loss, opt, data, val=data, epochs=epochs or len(curve),
                 callbacks=[_Epoch(loss)] + callbacks, verbose=0)
    return model, hist


def test_early_stopping_epoch_and_restore():
    curve = [5.0, 4.0, 3.0, 3.5, 3.2, 3.1, 1.0, 0.5]
    es = T.EarlyStopping(monitor="val_loss", patience=3, restore_best_weights=True)
    model, hist = _scripted_fit(curve, [es])
    # Best at epoch 2; epochs 3, 4, 5 do not improve: with patience 3 it stops after epoch 5.
    assert es.best_epoch == 2 and es.stopped_epoch == 5
    assert hist.epoch == [0, 1, 2, 3, 4, 5]
    assert float(model.w.item()) == 2.0    # the best epoch's weights are back


def test_early_stopping_min_delta_and_max_mode():
    es = T.EarlyStopping(monitor="val_loss", patience=1, min_delta=0.5)
    _, hist = _scripted_fit([5.0, 4.8, 4.7, 1.0], [es])
    # 4.8 is not below 5 - 0.5: epoch 1 waits, and with patience 1 training stops there.
    assert es.stopped_epoch == 1 and len(hist.epoch) == 2
    es = T.EarlyStopping(monitor="val_loss", mode="max", patience=2)
    _, hist = _scripted_fit([1.0, 2.0, 1.5, 1.9, 3.0], [es])
    assert es.stopped_epoch == 3 and es.best_epoch == 1


def _torch_plateau_lrs(metrics, **kw):
    import torch
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=1.0)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
    lrs = []
    for m in metrics:
        lrs.append(opt.param_groups[0]["lr"])
        sched.step(m)
    return lrs


def test_reduce_lr_on_plateau_follows_pytorch():
    curve = [1.0, 0.9, 0.95, 0.95, 0.95, 0.89, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95]
    kw = dict(mode="min", factor=0.5, patience=2, threshold=1e-4, cooldown=1, min_lr=0.2)
    cb = T.ReduceLROnPlateau(monitor="val_loss", **kw)
    model = _Scripted()
    loss = _ScriptLoss(model, curve)
    opt = spire.optim.SGD(model.parameters(), lr=1.0)
    data = [(spire.ones(2), spire.ones(2))]
    hist = T.fit(model, loss, opt, data, val=data, epochs=len(curve), callbacks=[_Epoch(loss), cb], verbose=0)
    # Hand-written rule: after > patience bad epochs, lr = max(lr * factor, min_lr), then cooldown.
    expected = [1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25]
    np.testing.assert_allclose(hist["lr"], expected)
    np.testing.assert_allclose(hist["lr"], _torch_plateau_lrs(curve, **kw))


def test_model_checkpoint_best_only_and_atomic(tmp_path, monkeypatch):
    curve = [3.0, 2.0, 2.5, 1.0, 1.5]
    path = tmp_path / "best.npz"
    ck = T.ModelCheckpoint(str(path), save_best_only=True)
    names = []
    real_replace = os.replace

    def spy(src, dst):
        names.append((os.path.basename(src), os.path.basename(dst)))
        assert os.path.exists(src)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    model, _ = _scripted_fit(curve, [ck])
    assert [e for e, _ in ck.saved] == [0, 1, 3]
    assert all(src != dst and src.startswith(".best.npz.tmp") and dst == "best.npz" for src, dst in names)
    assert sorted(os.listdir(tmp_path)) == ["best.npz"]     # no temporary left behind
    state = T.load_weights(None, path)
    assert float(state["w"].item()) == 3.0                 # the weights of epoch 3
    T.load_weights(model, path)
    assert float(model.w.item()) == 3.0


def test_model_checkpoint_every_epoch_hdf5(tmp_path):
    ck = T.ModelCheckpoint(str(tmp_path / "ck-{epoch:02d}.h5"))
    _scripted_fit([1.0, 2.0], [ck])
    assert sorted(os.listdir(tmp_path)) == ["ck-01.h5", "ck-02.h5"]
    assert float(T.load_weights(None, tmp_path / "ck-02.h5")["w"].item()) == 1.0


def test_history_logger_csv(tmp_path):
    path = tmp_path / "log.csv"
    _, hist = _scripted_fit([3.0, 2.0, 1.0], [T.HistoryLogger(str(path))])
    rows = list(csv.reader(open(path)))
    assert rows[0][:1] == ["epoch"] and {"loss", "val_loss", "lr", "time"} <= set(rows[0])
    assert [r[0] for r in rows[1:]] == ["0", "1", "2"]
    col = rows[0].index("val_loss")
    assert [float(r[col]) for r in rows[1:]] == [3.0, 2.0, 1.0] == hist["val_loss"]


def test_history_logger_hdf5(tmp_path):
    path = tmp_path / "log.h5"
    _scripted_fit([3.0, 2.0], [T.HistoryLogger(str(path))])
    with h5py.File(path) as f:
        assert list(f["epoch"][()]) == [0, 1] and list(f["val_loss"][()]) == [3.0, 2.0]


def test_progress_bar_format():
    buf = io.StringIO()
    _scripted_fit([3.0, 2.0], [T.ProgressBar(stream=buf, force=True)])
    lines = buf.getvalue().splitlines()
    assert len(lines) == 2
    pat = r"Epoch (\d)/2 1/1 \[=+\] \d+\.\ds \d+\.\d it/s loss: 0\.0000 - val_loss: (\d\.\d{4}) - lr: 0"
    m = [re.fullmatch(pat, ln) for ln in lines]
    assert all(m), lines
    assert [x.group(2) for x in m] == ["3.0000", "2.0000"]
    # Redrawn progress with rate, ETA and running loss; silent on a non-TTY stream unless forced.
    buf = io.StringIO()
    _scripted_fit([3.0], [T.ProgressBar(stream=buf, force=True, redraw=True)])
    assert re.match(r"\rEpoch 1/1 1/1 \[=+\] \d+\.\d it/s ETA 0:00 loss: 0\.0000", buf.getvalue())
    buf = io.StringIO()
    _scripted_fit([3.0], [T.ProgressBar(stream=buf)])
    assert buf.getvalue() == ""


def test_accuracy_metric():
    out = spire.tensor([[2.0, 1.0], [0.0, 3.0], [1.0, 0.0], [0.0, 1.0]])
    assert T.accuracy(out, spire.tensor([0, 1, 1, 1])) == 0.75
    assert T.accuracy(spire.tensor([1.0, -1.0]), spire.tensor([1.0, 1.0])) == 0.5


def test_fit_classification_accuracy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((128, 2)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    model = spire.nn.Linear(2, 2)
    opt = spire.optim.Adam(model.parameters(), lr=0.1)
    data = spire.data.DataLoader(spire.data.ArrayDataset(spire.from_numpy(x), spire.from_numpy(y)), batch_size=32)
    hist = T.fit(model, spire.nn.CrossEntropyLoss(), opt, data, data, epochs=20, metrics=["accuracy"], verbose=0)
    assert hist["val_accuracy"][-1] > 0.95 and "accuracy" in hist


def test_flop_count_of_linear_models():
    mlp = spire.nn.Sequential(spire.nn.Linear(10, 20), spire.nn.ReLU(), spire.nn.Linear(20, 5))
    assert T.count_flops(mlp, (8, 10)) == 2 * 8 * (10 * 20 + 20 * 5)
    assert T.count_flops(spire.nn.Linear(10, 20), (4, 3, 10)) == 2 * 12 * 10 * 20
    conv = spire.nn.Sequential(spire.nn.Conv2d(3, 4, 3, padding=1), spire.nn.ReLU(),
                               spire.nn.Conv2d(4, 2, 3, stride=2))
    # 8x8 -> 8x8 (padding 1) -> 3x3 (stride 2, no padding).
    assert T.count_flops(conv, (2, 3, 8, 8)) == 2 * (2 * 4 * 64 * 3 * 9 + 2 * 2 * 9 * 4 * 9)


def test_flops_utilization_counts_the_executed_flops():
    x, y, _ = _regression()
    model = spire.nn.Sequential(spire.nn.Linear(3, 1))
    opt = spire.optim.SGD(model.parameters(), lr=0.1)
    data = [(spire.from_numpy(x), spire.from_numpy(y))] * 4
    fu = T.FlopsUtilization(peak=1e9)
    hist = T.fit(model, spire.nn.MSELoss(), opt, data, epochs=2, callbacks=[fu], verbose=0)
    # Per step: the forward matmul (2·64·3·1) and the weight gradient, one product of the same size;
    # the data needs no gradient, so there is no third product.
    assert fu.last_step == 2 * (2 * 64 * 3) and fu.total == 4 * fu.last_step
    assert hist["flops"][0] > 0 and hist["flops_utilization"][0] == hist["flops"][0] / 1e9


def test_flop_counter_agrees_with_torch_flop_counter():
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    tm = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.Tanh(), torch.nn.Linear(7, 3)).double()
    sm = spire.nn.Sequential(spire.nn.Linear(5, 7), spire.nn.Tanh(), spire.nn.Linear(7, 3)).double()
    x = np.random.default_rng(0).standard_normal((9, 5))
    with FlopCounterMode(display=False) as tc:
        tm(torch.from_numpy(x)).square().sum().backward()
    with T.FlopCounter() as sc:
        sm(spire.from_numpy(x)).square().sum().backward()
    assert sc.total == tc.get_total_flops()


def test_measure_peak_flops_cached():
    p = T.measure_peak_flops(n=128, repeats=1)
    assert p > 0 and T.measure_peak_flops(n=128, repeats=1) == p


def test_fit_is_deterministic():
    x, y, _ = _regression()

    def run():
        spire.manual_seed(3)
        model = spire.nn.Sequential(spire.nn.Linear(3, 8), spire.nn.Tanh(), spire.nn.Linear(8, 1))
        opt = spire.optim.Adam(model.parameters(), lr=1e-2)
        loader = spire.data.DataLoader(spire.data.ArrayDataset(spire.from_numpy(x), spire.from_numpy(y)),
                                       batch_size=16, shuffle=True, seed=5)
        hist = T.fit(model, spire.nn.MSELoss(), opt, loader, epochs=3, verbose=0)
        return hist["loss"], [np.asarray(p.detach()).copy() for p in model.parameters()]

    (l1, p1), (l2, p2) = run(), run()
    assert l1 == l2 and all(np.array_equal(a, b) for a, b in zip(p1, p2))


def test_scheduler_steps_per_epoch_and_errors():
    x, y, _ = _regression()
    model = spire.nn.Linear(3, 1)
    opt = spire.optim.SGD(model.parameters(), lr=1.0)
    sched = spire.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    data = [(spire.from_numpy(x) * 0, spire.from_numpy(y) * 0)]
    hist = T.fit(model, spire.nn.MSELoss(), opt, data, epochs=3, scheduler=sched, verbose=0)
    assert hist["lr"] == [1.0, 0.5, 0.25]
    with pytest.raises(TypeError, match="tuple"):
        T.fit(model, spire.nn.MSELoss(), opt, [spire.ones(3)], verbose=0)
    with pytest.raises(KeyError, match="val_loss"):
        T.fit(model, spire.nn.MSELoss(), opt, data, callbacks=[T.EarlyStopping()], verbose=0)


def test_model_checkpoint_hdf5_resumes_with_spire_load_checkpoint(tmp_path):
    x, y, _ = _regression()
    data = spire.data.DataLoader(spire.data.ArrayDataset(spire.from_numpy(x), spire.from_numpy(y)), batch_size=16,
                                 shuffle=True, seed=2)

    def run(seed=0):
        spire.manual_seed(seed)
        model = spire.nn.Sequential(spire.nn.Linear(3, 8), spire.nn.Tanh(), spire.nn.Dropout(0.1), spire.nn.Linear(8, 1))
        return model, spire.optim.Adam(model.parameters(), lr=1e-2)

    model, opt = run()
    straight = T.fit(model, spire.nn.MSELoss(), opt, data, epochs=4, verbose=0)
    first, opt1 = run()
    ck = T.ModelCheckpoint(str(tmp_path / "c.h5"), include_optimizer=True)
    T.fit(first, spire.nn.MSELoss(), opt1, data, epochs=2, callbacks=[ck], verbose=0)
    assert [e for e, _ in ck.saved] == [0, 1] and os.listdir(tmp_path) == ["c.h5"]
    resumed, opt2 = run(seed=5)
    info = spire.load_checkpoint(tmp_path / "c.h5", resumed, opt2)
    assert info["epoch"] == 2
    rest = T.fit(resumed, spire.nn.MSELoss(), opt2, data, epochs=2, initial_epoch=2, verbose=0)
    assert rest.epoch == [2, 3] and rest["loss"] == straight["loss"][2:]
    for (k, a), (_, b) in zip(model.state_dict().items(), resumed.state_dict().items()):
        assert np.array_equal(np.asarray(a), np.asarray(b)), k


# ----------------------------------------------------------------------------------------------------------------
# Python callbacks, models, losses and data through the engine's loop


class _Recorder(T.Callback):
    """Records every hook call; adds a log entry; stops after `stop_after` epochs."""

    def __init__(self, stop_after=None):
        super().__init__()
        self.calls, self.stop_after, self.shapes = [], stop_after, []

    def on_train_begin(self, logs):
        self.calls.append(("train_begin", self.params["epochs"], self.params["steps"], self.model is not None))

    def on_epoch_begin(self, epoch, logs):
        self.calls.append(("epoch_begin", epoch))

    def on_batch_begin(self, batch, logs):
        self.calls.append(("batch_begin", batch))

    def on_batch_end(self, batch, logs):
        self.calls.append(("batch_end", batch, logs["size"]))
        self.shapes.append((tuple(logs["inputs"][0].shape), tuple(logs["target"].shape), tuple(logs["outputs"][0].shape)))
        assert logs["mean_loss"] >= 0

    def on_epoch_end(self, epoch, logs):
        self.calls.append(("epoch_end", epoch))
        logs["doubled_loss"] = 2 * logs["loss"]
        del logs["train_time"]
        if self.stop_after is not None and epoch + 1 >= self.stop_after:
            self.stop_training = True

    def on_train_end(self, logs):
        self.calls.append(("train_end", len(logs["history"].epoch)))


def test_python_callback_hooks_logs_and_stop():
    x, y, _ = _regression(n=10)
    model = spire.nn.Linear(3, 1)
    opt = spire.optim.SGD(model.parameters(), lr=0.01)
    data = spire.data.DataLoader(spire.data.ArrayDataset(spire.from_numpy(x), spire.from_numpy(y)), batch_size=4)
    rec = _Recorder(stop_after=2)
    hist = T.fit(model, spire.nn.MSELoss(), opt, data, epochs=5, callbacks=[rec], verbose=0)
    epoch = [("epoch_begin", 0)] + [c for b, n in ((0, 4), (1, 4), (2, 2)) for c in (("batch_begin", b), ("batch_end", b, n))]
    assert rec.calls == ([("train_begin", 5, 3, True)] + epoch + [("epoch_end", 0)]
                         + [(c[0], 1) + c[2:] if c[0].startswith("epoch") else c for c in epoch] + [("epoch_end", 1)]
                         + [("train_end", 2)])
    assert rec.shapes[2] == ((2, 3), (2, 1), (2, 1))
    # The added entry reached the History; the deleted one is gone.
    assert hist["doubled_loss"] == [2 * v for v in hist["loss"]] and "train_time" not in hist
    assert hist.epoch == [0, 1] and rec.model is model and rec.optimizer is opt


class _SubclassedStopping(T.EarlyStopping):
    def __init__(self):
        super().__init__(monitor="loss", patience=0)
        self.seen = []

    def on_epoch_end(self, epoch, logs):
        logs["loss"] = [3.0, 2.0, 2.5, 1.0][epoch]     # scripted, then the built-in rule
        super().on_epoch_end(epoch, logs)
        self.seen.append((epoch, self.wait, self.stop_training))


def test_subclass_of_a_builtin_callback_extends_it():
    model = spire.nn.Linear(1, 1)
    data = [(spire.ones(2, 1), spire.ones(2, 1))]
    es = _SubclassedStopping()
    hist = T.fit(model, spire.nn.MSELoss(), spire.optim.SGD(model.parameters(), lr=0.0), data, epochs=4,
                 callbacks=[es], verbose=0)
    assert es.seen == [(0, 0, False), (1, 0, False), (2, 1, True)] and es.stopped_epoch == 2
    assert hist["loss"] == [3.0, 2.0, 2.5]


def test_callback_without_super_init_and_errors_from_python_hooks():
    class Plain(T.Callback):
        def __init__(self):      # no super().__init__(): allowed, as in Keras
            self.n = 0

        def on_epoch_end(self, epoch, logs):
            self.n += 1

    class Broken(T.Callback):
        def on_batch_end(self, batch, logs):
            raise RuntimeError("broken callback")

    class NoInit(T.ModelCheckpoint):
        def __init__(self):
            pass

    model = spire.nn.Linear(1, 1)
    opt = spire.optim.SGD(model.parameters(), lr=0.0)
    data = [(spire.ones(2, 1), spire.ones(2, 1))]
    p = Plain()
    T.fit(model, spire.nn.MSELoss(), opt, data, epochs=2, callbacks=[p], verbose=0)
    assert p.n == 2 and p.stop_training is False
    with pytest.raises(RuntimeError, match="broken callback"):
        T.fit(model, spire.nn.MSELoss(), opt, data, callbacks=[Broken()], verbose=0)
    with pytest.raises(TypeError, match="must call super"):
        NoInit()
    with pytest.raises(TypeError, match="Callback"):
        T.fit(model, spire.nn.MSELoss(), opt, data, callbacks=[object()], verbose=0)


class _TwoInputs(spire.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = spire.nn.Linear(3, 1)
        self.b = spire.nn.Linear(2, 1)

    def forward(self, x, z):
        return self.a(x) + self.b(z), z.sum(-1, keepdims=True)


def test_python_model_with_two_inputs_and_outputs_and_a_lambda_loss():
    rng = np.random.default_rng(1)
    x, z = rng.standard_normal((32, 3)).astype(np.float32), rng.standard_normal((32, 2)).astype(np.float32)
    y = (x @ np.array([[1.0], [2.0], [-1.0]], np.float32) - z[:, :1] + 0.5).astype(np.float32)
    spire.manual_seed(0)
    model = _TwoInputs()
    opt = spire.optim.Adam(model.parameters(), lr=0.05)
    seen = []

    def loss(out, target):
        seen.append(type(out).__name__)
        pred, _ = out
        return ((pred - target) ** 2).mean()

    def first_output_mean(out, target):
        return float(np.asarray(out[0]).mean())

    ds = spire.data.ArrayDataset(spire.from_numpy(x), spire.from_numpy(z), spire.from_numpy(y))
    hist = T.fit(model, loss, opt, spire.data.DataLoader(ds, batch_size=8), epochs=150, verbose=0,
                 metrics=[first_output_mean])
    assert set(seen) == {"tuple"} and hist["loss"][-1] < 1e-4 < hist["loss"][0]
    assert "first_output_mean" in hist
    with pytest.raises(TypeError, match="must return a spire.Tensor"):
        T.fit(model, lambda out, t: 1.0, opt, [(x, z, y)], verbose=0)


class _Batches:
    """An iterable that is not a DataLoader: NumPy batches, re-iterable, no len()."""

    def __init__(self, x, y, size):
        self.x, self.y, self.size = x, y, size

    def __iter__(self):
        for i in range(0, len(self.x), self.size):
            yield self.x[i:i + self.size], self.y[i:i + self.size]


class _PyDataset(spire.data.Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def test_iterables_that_are_not_dataloaders_and_python_datasets():
    x, y, w = _regression()

    def train(data, epochs=60):
        spire.manual_seed(0)
        model = spire.nn.Linear(3, 1)
        opt = spire.optim.SGD(model.parameters(), lr=0.1)
        hist = T.fit(model, spire.nn.MSELoss(), opt, data, epochs=epochs, verbose=0)
        return model, hist

    model, hist = train(_Batches(x, y, 16))
    np.testing.assert_allclose(np.asarray(model.weight.detach()).T, w, atol=1e-3)
    # A list of lists of NumPy arrays, and a Python dataset loaded by the Python loader's thread
    # (the loop runs without the GIL, so that thread can work meanwhile).
    _, h_list = train([[x[i:i + 16], y[i:i + 16]] for i in range(0, 64, 16)], epochs=3)
    loader = spire.data.DataLoader(_PyDataset(x, y), batch_size=16, prefetch=2)
    _, h_py = train(loader, epochs=3)
    np.testing.assert_allclose(h_list["loss"], h_py["loss"], rtol=1e-6)
    with pytest.raises(TypeError, match="iterable"):
        train(42)
    assert T.evaluate(model, spire.nn.MSELoss(), _Batches(x, y, 64))["loss"] < 1e-6


def test_monitored_key_error_names_the_keys_and_history_api():
    model = spire.nn.Linear(1, 1)
    data = [(spire.ones(2, 1), spire.ones(2, 1))]
    opt = spire.optim.SGD(model.parameters(), lr=0.0)
    with pytest.raises(KeyError, match=r"'val_loss'.*available: loss, lr, time, train_time"):
        T.fit(model, spire.nn.MSELoss(), opt, data, callbacks=[T.ReduceLROnPlateau()], verbose=0)
    with pytest.raises(ValueError, match="epochs"):
        T.fit(model, spire.nn.MSELoss(), opt, data, epochs=1.5, verbose=0)
    with pytest.raises(ValueError, match="unknown metric 'f1'"):
        T.fit(model, spire.nn.MSELoss(), opt, data, metrics=["f1"], verbose=0)
    h = T.History()
    h.append(0, {"loss": 1.0})
    h.append(1, {"loss": 0.5, "flops": 3})
    assert h.epoch == [0, 1] and len(h) == 2 and "flops" in h and list(h) == ["loss", "flops"]
    assert np.isnan(h["flops"][0]) and h.history["loss"] == [1.0, 0.5]
    with pytest.raises(KeyError):
        h["val_loss"]


def test_verbose_auto_is_quiet_off_a_terminal(capsys):
    model = spire.nn.Linear(1, 1)
    data = [(spire.ones(2, 1), spire.ones(2, 1))]
    opt = spire.optim.SGD(model.parameters(), lr=0.0)
    T.fit(model, spire.nn.MSELoss(), opt, data, epochs=2)
    assert capsys.readouterr().out == ""
    T.fit(model, spire.nn.MSELoss(), opt, data, epochs=2, verbose=1)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[1].startswith("Epoch 2/2 1/1 [")


def test_count_flops_runs_any_model():
    class Net(spire.nn.Module):     # a convolution inside a custom module: counted on a dry run
        def __init__(self):
            super().__init__()
            self.conv = spire.nn.Conv2d(3, 4, 3, padding=1)
            self.head = spire.nn.Linear(4 * 8 * 8, 5)
            self.bn = spire.nn.BatchNorm2d(4)

        def forward(self, x):
            return self.head(self.bn(self.conv(x)).reshape(x.shape[0], -1))

    net = Net()
    stats = np.asarray(net.bn.running_mean).copy()
    assert T.count_flops(net, (2, 3, 8, 8)) == 2 * (2 * 4 * 64 * 3 * 9) + 2 * 2 * 256 * 5
    assert net.training and np.array_equal(np.asarray(net.bn.running_mean), stats)   # a dry run in eval mode
