"""Callbacks for fit: early stopping, plateaus, checkpoints, progress and history."""

import csv
import math
import os
import sys
import time

import numpy as np

from .. import _C
from .._grad_mode import no_grad
from .loop import _np

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
        from .. import checkpoint
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


