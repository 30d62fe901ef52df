"""The training loop: fit, evaluate, History and metrics."""

import math
import sys
import time

import numpy as np

from .. import _C
from .._grad_mode import no_grad

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
    from .callbacks import ProgressBar  # callbacks.py imports this module

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


