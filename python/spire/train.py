"""Training loops with callbacks, in the manner of Keras's ``Model.fit``.

``fit(model, loss, optimizer, train, val)`` runs epochs over ``spire.data`` loaders (or any iterable
of tuples ``(inputs..., target)``) for ``spire.nn`` modules and ``spire.optim`` optimizers::

    history = spire.train.fit(model, spire.nn.MSELoss(), opt, train_loader, val_loader, epochs=50,
                              callbacks=[spire.train.EarlyStopping(patience=5, restore_best_weights=True),
                                         spire.train.ModelCheckpoint("best.h5", save_best_only=True)],
                              scheduler=spire.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=50),
                              metrics=["accuracy"])
    history["val_loss"]   # one value per epoch

See docs/training.md for the callbacks and the FLOP counting rule.
"""

import csv
import math
import os
import sys
import time

import numpy as np

from . import _C
from ._grad_mode import no_grad

__all__ = ["fit", "evaluate", "History", "Callback", "EarlyStopping", "ReduceLROnPlateau", "ModelCheckpoint",
           "ProgressBar", "HistoryLogger", "FlopsUtilization", "accuracy", "count_flops", "measure_peak_flops",
           "save_weights", "load_weights"]


# ----------------------------------------------------------------------------------------------------------------
# History and metrics


class History:
    """Per-epoch logs of one ``fit``: ``history[key]`` is a list with one value per epoch
    (``loss``, ``val_loss``, ``lr``, metrics and ``val_`` metrics, ``time``); ``epoch`` lists the
    epoch numbers (0-based)."""

    def __init__(self):
        self.epoch = []
        self.history = {}

    def append(self, epoch, logs):
        self.epoch.append(epoch)
        for k, v in logs.items():
            # A key first seen late (a callback's log) is padded with NaN so that every list has one
            # entry per epoch.
            self.history.setdefault(k, [math.nan] * (len(self.epoch) - 1)).append(v)
        for k, v in self.history.items():
            if len(v) < len(self.epoch):
                v.append(math.nan)

    def __getitem__(self, key):
        return self.history[key]

    def __contains__(self, key):
        return key in self.history

    def keys(self):
        return self.history.keys()

    def __repr__(self):
        return f"History(epochs={len(self.epoch)}, keys={list(self.history)})"


def _np(t):
    return np.asarray(t.detach()) if isinstance(t, _C.Tensor) else np.asarray(t)


def accuracy(output, target):
    """Fraction of correct predictions. Class scores ``(N, C)`` with ``C > 1`` are compared by argmax
    with integer labels ``(N,)`` (or one-hot/probability targets ``(N, C)``, by their argmax); a
    single score per sample (``(N,)`` or ``(N, 1)``) is a binary logit, predicted positive when > 0,
    against targets in {0, 1}."""
    out, tgt = _np(output), _np(target)
    if out.ndim >= 2 and out.shape[-1] > 1:
        pred = out.argmax(-1)
        if tgt.shape == out.shape:
            tgt = tgt.argmax(-1)
        return float(np.mean(pred == tgt.astype(np.int64).reshape(pred.shape)))
    pred = out.reshape(-1) > 0
    return float(np.mean(pred == (tgt.reshape(-1) > 0.5)))


_METRICS = {"accuracy": accuracy, "acc": accuracy}


def _resolve_metrics(metrics):
    out = []
    for m in metrics or ():
        if isinstance(m, str):
            if m not in _METRICS:
                raise ValueError(f"fit: unknown metric {m!r}; known: {sorted(_METRICS)} or a callable "
                                 "(output, target) -> float")
            out.append(("accuracy" if m == "acc" else m, _METRICS[m]))
        elif callable(m):
            out.append((getattr(m, "__name__", "metric"), m))
        else:
            raise TypeError(f"fit: a metric is a name or a callable (output, target) -> float, got {m!r}")
    return out


# ----------------------------------------------------------------------------------------------------------------
# The loop


def _split(batch):
    if not isinstance(batch, (tuple, list)) or len(batch) < 2:
        raise TypeError("fit: each batch must be a tuple (inputs..., target) of at least two items, got "
                        f"{type(batch).__name__}")
    return tuple(batch[:-1]), batch[-1]


def _batch_size(target):
    shape = getattr(target, "shape", None)
    return int(shape[0]) if shape else 1


def _lr(optimizer):
    return float(optimizer.lr)


def _is(obj, name):
    cls = getattr(_C._optim, name, None)
    return cls is not None and isinstance(obj, cls)


def evaluate(model, loss, data, metrics=None):
    """Sample-weighted mean loss (and metrics) of ``model`` over ``data`` under ``no_grad`` in eval
    mode; returns a dict ``{"loss": ..., name: ...}``. The model's train/eval mode is restored."""
    metric_fns = _resolve_metrics(metrics)
    was_training = bool(model.training)
    model.eval()
    sums, n = {}, 0
    try:
        with no_grad():
            for batch in data:
                inputs, target = _split(batch)
                out = model(*inputs)
                b = _batch_size(target)
                sums["loss"] = sums.get("loss", 0.0) + float(loss(out, target).item()) * b
                for name, fn in metric_fns:
                    sums[name] = sums.get(name, 0.0) + float(fn(out, target)) * b
                n += b
    finally:
        model.train(was_training)
    if n == 0:
        raise ValueError("evaluate: the data yielded no batches")
    return {k: v / n for k, v in sums.items()}


def fit(model, loss, optimizer, train, val=None, epochs=1, callbacks=(), scheduler=None, metrics=None,
        verbose="auto", initial_epoch=0):
    """Trains ``model`` for ``epochs`` passes over ``train`` and returns a :class:`History`.

    Each batch of ``train`` is a tuple ``(inputs..., target)``; the step is ``model.train()``,
    ``optimizer.zero_grad()``, ``loss(model(*inputs), target).backward()``, ``optimizer.step()``
    (L-BFGS gets a closure doing the same). ``loss`` is reported as the sample-weighted mean of the
    batch losses of the epoch. After each epoch, ``val`` (if given) is evaluated under
    ``spire.no_grad()`` with ``model.eval()`` (``val_loss``, ``val_<metric>``), then ``scheduler``
    steps (``ReduceLROnPlateau`` with ``val_loss``, else ``loss``; ``OneCycleLR`` steps per batch),
    then callbacks see the epoch's logs. ``lr`` is the learning rate the epoch trained with.

    ``verbose``: ``"auto"`` shows a :class:`ProgressBar` on stdout when it is a terminal, ``1``/``True``
    always, ``0``/``False`` never (a ProgressBar among ``callbacks`` replaces the default one).
    Training stops early when a callback sets ``stop_training``."""
    if epochs < 0 or int(epochs) != epochs:
        raise ValueError(f"fit: epochs must be a non-negative integer, got {epochs!r}")
    callbacks = list(callbacks)
    if verbose and not any(isinstance(c, ProgressBar) for c in callbacks):
        callbacks.append(ProgressBar(stream=sys.stdout, force=(verbose != "auto")))
    metric_fns = _resolve_metrics(metrics)
    lbfgs = _is(optimizer, "LBFGS")
    per_batch_sched = scheduler is not None and _is(scheduler, "OneCycleLR")
    plateau_sched = scheduler is not None and _is(scheduler, "ReduceLROnPlateau")
    try:
        steps = len(train)
    except TypeError:
        steps = None
    history = History()
    params = {"epochs": epochs, "steps": steps, "initial_epoch": initial_epoch}
    for cb in callbacks:
        cb.stop_training = False
        cb._attach(model, optimizer, params)
    for cb in callbacks:
        cb.on_train_begin({})

    for epoch in range(initial_epoch, initial_epoch + epochs):
        if hasattr(train, "set_epoch") and getattr(train, "sampler", None) is not None \
                and hasattr(train.sampler, "set_epoch"):
            train.set_epoch(epoch)   # the shuffled order of (seed, epoch): reproducible per epoch
        for cb in callbacks:
            cb.on_epoch_begin(epoch, {})
        lr = _lr(optimizer)
        t0 = time.perf_counter()
        model.train()
        sums, n = {}, 0
        for i, batch in enumerate(train):
            inputs, target = _split(batch)
            holder = {}

            def closure():
                optimizer.zero_grad()
                out = model(*inputs)
                value = loss(out, target)
                value.backward()
                holder["out"], holder["loss"] = out, value
                return value

            if lbfgs:
                optimizer.step(closure)
            else:
                closure()
                optimizer.step()
            if per_batch_sched:
                scheduler.step()
            b = _batch_size(target)
            batch_loss = float(holder["loss"].item())
            sums["loss"] = sums.get("loss", 0.0) + batch_loss * b
            for name, fn in metric_fns:
                sums[name] = sums.get(name, 0.0) + float(fn(holder["out"], target)) * b
            n += b
            blogs = {"loss": batch_loss, "size": b, "mean_loss": sums["loss"] / n, "inputs": inputs}
            for cb in callbacks:
                cb.on_batch_end(i, blogs)
        if n == 0:
            raise ValueError("fit: the training data yielded no batches")
        train_time = time.perf_counter() - t0
        logs = {k: v / n for k, v in sums.items()}
        if val is not None:
            logs.update({"val_" + k: v for k, v in evaluate(model, loss, val, metrics).items()})
        logs["lr"] = lr
        if scheduler is not None and not per_batch_sched:
            if plateau_sched:
                scheduler.step(logs["val_loss"] if "val_loss" in logs else logs["loss"])
            else:
                scheduler.step()
        logs["train_time"] = train_time
        logs["time"] = time.perf_counter() - t0
        for cb in callbacks:
            cb.on_epoch_end(epoch, logs)
        history.append(epoch, logs)
        if any(cb.stop_training for cb in callbacks):
            break
    for cb in callbacks:
        cb.on_train_end({"history": history})
    return history


# ----------------------------------------------------------------------------------------------------------------
# Callbacks


class Callback:
    """Base of fit's callbacks; override the hooks you need. ``self.model``, ``self.optimizer`` and
    ``self.params`` (``epochs``, ``steps``) are set when training begins; setting
    ``self.stop_training = True`` ends training after the current epoch."""

    stop_training = False

    def _attach(self, model, optimizer, params):
        self.model, self.optimizer, self.params = model, optimizer, params

    def on_train_begin(self, logs):
        pass

    def on_train_end(self, logs):
        pass

    def on_epoch_begin(self, epoch, logs):
        pass

    def on_epoch_end(self, epoch, logs):
        pass

    def on_batch_end(self, batch, logs):
        pass


def _monitor_op(mode, monitor, who):
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"{who}: mode must be 'auto', 'min' or 'max', got {mode!r}")
    if mode == "auto":
        mode = "max" if ("acc" in monitor or monitor.endswith("utilization")) else "min"
    return mode


def _current(logs, monitor, who):
    if monitor not in logs:
        raise KeyError(f"{who}: the monitored quantity {monitor!r} is not in the logs; available: "
                       f"{sorted(k for k in logs if k != 'inputs')} (val_* needs fit(val=...))")
    return float(logs[monitor])


def _copy_state(model):
    with no_grad():
        return {k: v.clone() for k, v in model.state_dict().items()}


class EarlyStopping(Callback):
    """Stops when ``monitor`` has not improved for ``patience`` epochs (Keras's rule): an epoch
    improves when ``current < best - min_delta`` (mode ``min``; ``current > best + min_delta`` for
    ``max``; ``auto`` is ``max`` for accuracies). With ``restore_best_weights`` the model gets back
    the state_dict of the best epoch when training stops early (and at the end of training if the
    last epoch was not the best). ``stopped_epoch`` and ``best_epoch`` record what happened."""

    def __init__(self, monitor="val_loss", min_delta=0.0, patience=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        self.monitor, self.min_delta, self.patience = monitor, abs(float(min_delta)), int(patience)
        self.mode = _monitor_op(mode, monitor, "EarlyStopping")
        self.baseline, self.restore_best_weights, self.start_from_epoch = baseline, restore_best_weights, start_from_epoch

    def _better(self, current, reference):
        if self.mode == "min":
            return current < reference - self.min_delta
        return current > reference + self.min_delta

    def on_train_begin(self, logs):
        self.wait, self.stopped_epoch, self.best_epoch = 0, None, None
        self.best = math.inf if self.mode == "min" else -math.inf
        self.best_weights = None

    def on_epoch_end(self, epoch, logs):
        if epoch < self.start_from_epoch:
            return
        current = _current(logs, self.monitor, "EarlyStopping")
        self.wait += 1
        if self._better(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = _copy_state(self.model)
            if self.baseline is None or self._better(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stop_training, self.stopped_epoch = True, epoch
            self._restore()

    def _restore(self):
        if self.restore_best_weights and self.best_weights is not None:
            self.model.load_state_dict(self.best_weights)
            self.best_weights = None

    def on_train_end(self, logs):
        self._restore()


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` when ``monitor`` stops improving, with PyTorch's
    rule and arguments (``spire.optim.lr_scheduler.ReduceLROnPlateau`` does the bookkeeping):
    after more than ``patience`` epochs without an improvement beyond ``threshold`` (relative or
    absolute), lr becomes ``max(lr * factor, min_lr)`` (changes smaller than ``eps`` are skipped),
    then ``cooldown`` epochs pass before counting again."""

    def __init__(self, monitor="val_loss", mode="auto", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0.0, eps=1e-8):
        self.monitor = monitor
        self.kwargs = dict(mode=_monitor_op(mode, monitor, "ReduceLROnPlateau"), factor=factor, patience=patience,
                           threshold=threshold, threshold_mode=threshold_mode, cooldown=cooldown, min_lr=min_lr,
                           eps=eps)

    def on_train_begin(self, logs):
        self.scheduler = _C._optim.ReduceLROnPlateau(self.optimizer, **self.kwargs)

    def on_epoch_end(self, epoch, logs):
        self.scheduler.step(_current(logs, self.monitor, "ReduceLROnPlateau"))


# --- weights files ---------------------------------------------------------------------------------------------


def _is_hdf5(path):
    return str(path).lower().endswith((".h5", ".hdf5"))


def _spire_checkpoint():
    """spire.save_checkpoint / load_checkpoint when this build has them (the engine's HDF5 writer)."""
    try:
        from . import checkpoint
    except ImportError:
        return None
    return checkpoint if hasattr(getattr(_C, "_nn", None), "_write_checkpoint") else None


def save_weights(model_or_state, path, optimizer=None, epoch=0):
    """Writes a state_dict (or a model's) to ``path`` atomically: to a temporary name in the same
    folder, then renamed over ``path``, so a reader never sees a half-written file. ``.h5``/``.hdf5``
    is HDF5: ``spire.save_checkpoint``'s format (``/model/<key>``, plus ``/optimizer`` when given)
    when the build has it, else one dataset per entry at the root (h5py). Anything else is a NumPy
    ``.npz`` (model state only)."""
    ckpt = _spire_checkpoint()
    if _is_hdf5(path) and ckpt is not None and hasattr(model_or_state, "state_dict"):
        ckpt.save_checkpoint(path, model_or_state, optimizer, epoch=epoch)   # atomic itself
        return
    state = model_or_state.state_dict() if hasattr(model_or_state, "state_dict") else model_or_state
    arrays = {k: np.array(_np(v)) for k, v in state.items()}
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".{os.path.basename(path)}.tmp-{os.getpid()}")
    try:
        if _is_hdf5(path):
            import h5py
            with h5py.File(tmp, "w") as f:
                for k, a in arrays.items():
                    f.create_dataset(k, data=a)
        else:
            with open(tmp, "wb") as f:   # a file object, so that np.savez adds no ".npz"
                np.savez(f, **arrays)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_weights(model, path):
    """Loads a file written by :func:`save_weights` (or ModelCheckpoint) into ``model`` and returns
    the state dict of tensors."""
    path = os.fspath(path)
    if _is_hdf5(path):
        import h5py
        with h5py.File(path, "r") as f:
            if f.attrs.get("format") == "spire.checkpoint":   # spire.save_checkpoint's layout
                ckpt = _spire_checkpoint()
                if model is not None and ckpt is not None:
                    ckpt.load_checkpoint(path, model, default_generator=False)
                    return model.state_dict()
                f = f["model"]
            arrays = {}
            f.visititems(lambda k, d: arrays.__setitem__(k, d[()]) if isinstance(d, h5py.Dataset) else None)
    else:
        with np.load(path) as z:
            arrays = {k: z[k] for k in z.files}
    state = {k: _C.from_numpy(np.ascontiguousarray(a)) for k, a in arrays.items()}
    if model is not None:
        model.load_state_dict(state)
    return state


class ModelCheckpoint(Callback):
    """Saves the model's state_dict after each epoch to ``filepath`` (which may hold ``{epoch}`` and
    log keys, e.g. ``"ckpt-{epoch:03d}-{val_loss:.3f}.h5"``; epochs are numbered from 1 there, as in
    Keras). With ``save_best_only`` only epochs that improve ``monitor`` are saved. Files are written
    to a temporary name and renamed (see :func:`save_weights`); an HDF5 file is a
    ``spire.save_checkpoint`` file where the build has it (``include_optimizer`` adds the
    optimizer's state, for ``spire.load_checkpoint``)."""

    def __init__(self, filepath, monitor="val_loss", save_best_only=False, mode="auto", save_freq="epoch",
                 include_optimizer=False):
        if save_freq != "epoch":
            raise ValueError("ModelCheckpoint: only save_freq='epoch' is supported")
        self.filepath, self.monitor, self.save_best_only = os.fspath(filepath), monitor, save_best_only
        self.include_optimizer = include_optimizer
        self.mode = _monitor_op(mode, monitor, "ModelCheckpoint")
        self.best = math.inf if self.mode == "min" else -math.inf
        self.saved = []   # (epoch, path) of each file written

    def on_epoch_end(self, epoch, logs):
        if self.save_best_only:
            current = _current(logs, self.monitor, "ModelCheckpoint")
            if not (current < self.best if self.mode == "min" else current > self.best):
                return
            self.best = current
        path = self.filepath.format(epoch=epoch + 1, **{k: v for k, v in logs.items() if k != "inputs"})
        save_weights(self.model, path, optimizer=self.optimizer if self.include_optimizer else None, epoch=epoch + 1)
        self.saved.append((epoch, path))


class ProgressBar(Callback):
    """A one-line progress bar per epoch on ``stream`` (stderr by default): batches done, rate
    (it/s), ETA and the running mean loss, redrawn with ``\\r``; each finished epoch leaves a line
    ``Epoch 3/10 50/50 [==============================] 1.2s 41.0 it/s loss: 0.1234 - val_loss: 0.2000 - lr: 0.001``.
    Quiet when ``stream`` is not a terminal unless ``force=True``; then only the end-of-epoch lines
    are written (no redraws) unless ``redraw=True``."""

    def __init__(self, stream=None, force=False, width=30, redraw=None):
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", lambda: False)()
        self.enabled = bool(force or isatty)
        self.redraw = isatty if redraw is None else redraw
        self.width = width

    def _bar(self, done, total):
        if not total:
            return f"{done}"
        filled = int(self.width * done / total)
        arrow = ">" if filled < self.width else ""
        return f"{done}/{total} [" + "=" * filled + arrow + "." * (self.width - filled - len(arrow)) + "]"

    @staticmethod
    def _fmt_time(s):
        s = int(round(s))
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"

    def on_epoch_begin(self, epoch, logs):
        self.epoch, self.t0, self.seen = epoch, time.perf_counter(), 0

    def _head(self):
        return f"Epoch {self.epoch + 1}/{self.params['initial_epoch'] + self.params['epochs']}"

    def on_batch_end(self, batch, logs):
        self.seen = batch + 1
        if not (self.enabled and self.redraw):
            return
        dt = time.perf_counter() - self.t0
        rate = self.seen / dt if dt > 0 else 0.0
        total = self.params.get("steps")
        eta = f" ETA {self._fmt_time((total - self.seen) / rate)}" if total and rate > 0 else ""
        self.stream.write(f"\r{self._head()} {self._bar(self.seen, total)} {rate:.1f} it/s{eta} "
                          f"loss: {logs['mean_loss']:.4f}")
        self.stream.flush()

    def on_epoch_end(self, epoch, logs):
        if not self.enabled:
            return
        dt = logs.get("train_time", time.perf_counter() - self.t0)
        rate = self.seen / dt if dt > 0 else 0.0
        parts = [f"{k}: {v:.4g}" if k in ("lr", "flops") else f"{k}: {v:.4f}" for k, v in logs.items()
                 if k not in ("time", "train_time", "inputs") and isinstance(v, (int, float))]
        self.stream.write(f"{chr(13) if self.redraw else ''}{self._head()} {self._bar(self.seen, self.seen)} "
                          f"{logs.get('time', dt):.1f}s {rate:.1f} it/s " + " - ".join(parts) + "\n")
        self.stream.flush()


class HistoryLogger(Callback):
    """Writes each epoch's logs to ``path``: CSV (a header ``epoch,<keys...>`` then one row per
    epoch, flushed at once) or, for ``.h5``/``.hdf5``, an HDF5 file with one 1-D dataset per key
    (rewritten atomically each epoch; needs h5py). ``append=True`` continues an existing CSV."""

    def __init__(self, path, append=False, separator=","):
        self.path, self.append, self.separator = os.fspath(path), append, separator
        self.rows = []

    def on_train_begin(self, logs):
        self.keys = None
        if not _is_hdf5(self.path):
            exists = self.append and os.path.exists(self.path) and os.path.getsize(self.path) > 0
            if exists:
                with open(self.path, newline="") as f:
                    header = next(csv.reader(f, delimiter=self.separator), None)
                self.keys = header[1:] if header else None
            self.file = open(self.path, "a" if self.append else "w", newline="")
            self.writer = csv.writer(self.file, delimiter=self.separator)

    def on_epoch_end(self, epoch, logs):
        row = {k: float(v) for k, v in logs.items() if isinstance(v, (int, float))}
        self.rows.append((epoch, row))
        if _is_hdf5(self.path):
            import h5py
            keys = sorted({k for _, r in self.rows for k in r})
            tmp = self.path + f".tmp-{os.getpid()}"
            with h5py.File(tmp, "w") as f:
                f.create_dataset("epoch", data=np.array([e for e, _ in self.rows], np.int64))
                for k in keys:
                    f.create_dataset(k, data=np.array([r.get(k, np.nan) for _, r in self.rows], np.float64))
            os.replace(tmp, self.path)
            return
        if self.keys is None:
            self.keys = list(row)
            self.writer.writerow(["epoch"] + self.keys)
        self.writer.writerow([epoch] + [repr(row[k]) if k in row else "" for k in self.keys])
        self.file.flush()

    def on_train_end(self, logs):
        if getattr(self, "file", None) is not None:
            self.file.close()
            self.file = None


# ----------------------------------------------------------------------------------------------------------------
# FLOPs


def _conv_out(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _layer_flops(mod, shape):
    """(forward FLOPs, output shape) of one layer for an input of ``shape``; FLOPs are 2 per
    multiply-add of the layer's matmul/convolution (bias adds and activations are not counted).
    Returns (None, None) for a layer whose output shape is unknown here."""
    name = type(mod).__name__
    if name == "Linear":
        rows = int(np.prod(shape[:-1], dtype=np.int64))
        return 2 * rows * mod.in_features * mod.out_features, tuple(shape[:-1]) + (mod.out_features,)
    if name in ("Conv1d", "Conv2d", "Conv3d"):
        nd = int(name[-2])
        pad = mod.padding
        if isinstance(pad, str):   # "same" keeps the size, "valid" pads nothing
            pad = tuple((d * (k - 1)) // 2 for k, d in zip(mod.kernel_size, mod.dilation)) if pad == "same" else (0,) * nd
        spatial = tuple(_conv_out(shape[-nd + i], mod.kernel_size[i], mod.stride[i], pad[i], mod.dilation[i])
                        for i in range(nd))
        batch = int(np.prod(shape[:-nd - 1], dtype=np.int64))
        macs = batch * mod.out_channels * int(np.prod(spatial)) * (mod.in_channels // mod.groups) \
            * int(np.prod(mod.kernel_size))
        return 2 * macs, tuple(shape[:-nd - 1]) + (mod.out_channels,) + spatial
    if name in ("ReLU", "Tanh", "Sigmoid", "GELU", "SiLU", "ELU", "LeakyReLU", "Softplus", "Sin", "Dropout",
                "LayerNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "Identity"):
        return 0, tuple(shape)
    return None, None


def count_flops(model, input_shape):
    """Forward FLOPs of ``model``'s matmul and convolution layers for one batch of ``input_shape``.

    Rule: a multiply-add is 2 FLOPs. ``Linear(in, out)`` on input ``(..., in)``: ``2·rows·in·out``
    with ``rows`` the product of the leading dims. ``ConvNd``: ``2·N·C_out·prod(out_spatial)·
    (C_in/groups)·prod(kernel)``. Biases, activations and normalisations are not counted. A
    ``Sequential`` (or a single layer) is walked in order so that each layer sees its true input
    shape; in any other module the Linear layers are counted with ``rows`` = the product of
    ``input_shape[:-1]`` (right for MLP-like models) and a convolution raises, since its input size
    cannot be known without running the model (pass ``flops_per_batch`` to FlopsUtilization)."""
    shape = tuple(int(s) for s in input_shape)
    flops, out = _layer_flops(model, shape)
    if flops is not None:
        return flops
    if type(model).__name__ == "Sequential":
        total = 0
        for child in model.children():
            if type(child).__name__ == "Sequential":
                raise ValueError("count_flops: nested Sequential; pass flops_per_batch explicitly")
            f, shape = _layer_flops(child, shape)
            if f is None:
                raise ValueError(f"count_flops: cannot follow the shape through {type(child).__name__}; "
                                 "pass flops_per_batch explicitly")
            total += f
        return total
    total = 0
    rows = int(np.prod(shape[:-1], dtype=np.int64))
    for _, m in model.named_modules():
        name = type(m).__name__
        if name == "Linear":
            total += 2 * rows * m.in_features * m.out_features
        elif name.startswith("Conv"):
            raise ValueError(f"count_flops: a {name} inside a {type(model).__name__} needs its input shape; "
                             "use a Sequential or pass flops_per_batch")
    return total


_PEAK = {}


def measure_peak_flops(n=2048, dtype=None, device=None, repeats=3):
    """The machine's achievable matmul rate (FLOP/s): the best of ``repeats`` timed ``n×n @ n×n``
    spire matmuls (2·n³ FLOPs each) after a warm-up. Cached per (n, dtype, device)."""
    dtype = dtype if dtype is not None else _C.float32
    key = (n, str(dtype), str(device))
    if key not in _PEAK:
        from ._factories import randn
        a, b = randn(n, n, dtype=dtype), randn(n, n, dtype=dtype)
        if device is not None:
            a, b = a.to(device), b.to(device)

        def sync(c):   # reading the result back waits for an asynchronous device
            return np.asarray(c.cpu() if device is not None else c)

        with no_grad():
            sync(a @ b)   # warm-up
            best = math.inf
            for _ in range(repeats):
                t0 = time.perf_counter()
                sync(a @ b)
                best = min(best, time.perf_counter() - t0)
        _PEAK[key] = 2.0 * n ** 3 / best
    return _PEAK[key]


class FlopsUtilization(Callback):
    """Logs ``flops`` (achieved FLOP/s of the training step) and ``flops_utilization`` (that over
    the machine's peak) each epoch. Per batch the training step does 3× the forward FLOPs
    (forward, plus two matmuls of the same size for the gradients of inputs and weights); forward
    FLOPs come from :func:`count_flops` for the shape of each batch's first input, or from
    ``flops_per_batch`` (forward FLOPs of a full batch; scaled by the batch's size). ``peak`` is
    measured once per process with :func:`measure_peak_flops` unless given."""

    def __init__(self, flops_per_batch=None, peak=None, batch_size=None):
        self.flops_per_batch, self.peak, self.batch_size = flops_per_batch, peak, batch_size
        self._cache = {}

    def on_epoch_begin(self, epoch, logs):
        self.total = 0

    def on_batch_end(self, batch, logs):
        x = logs["inputs"][0]
        shape = tuple(x.shape)
        if self.flops_per_batch is not None:
            full = self.batch_size or shape[0]
            self.total += 3 * self.flops_per_batch * shape[0] / full
            return
        if shape not in self._cache:
            self._cache[shape] = count_flops(self.model, shape)
        self.total += 3 * self._cache[shape]

    def on_epoch_end(self, epoch, logs):
        if self.peak is None:
            self.peak = measure_peak_flops()
        rate = self.total / logs["train_time"] if logs["train_time"] > 0 else 0.0
        logs["flops"] = rate
        logs["flops_utilization"] = rate / self.peak
