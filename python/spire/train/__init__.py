"""Training loops with callbacks, in the manner of Keras's ``Model.fit``.

``fit(model, loss, optimizer, train, val)`` runs epochs over ``spire.data`` loaders (or any iterable
of tuples ``(inputs..., target)``) for ``spire.nn`` modules and ``spire.optim`` optimizers::

    history = spire.train.fit(model, spire.nn.MSELoss(), opt, train_loader, val_loader, epochs=50,
                              callbacks=[spire.train.EarlyStopping(patience=5, restore_best_weights=True),
                                         spire.train.ModelCheckpoint("best.h5", save_best_only=True)],
                              scheduler=spire.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=50),
                              metrics=["accuracy"])
    history["val_loss"]   # one value per epoch

The loop and every callback are the engine's (``engine/train/``, ``spire::train`` in C++), so C++
and Python train alike; Python subclasses of :class:`Callback` override any hook. See
docs/training.md for the callbacks and the FLOP counting rule.
"""

from .._C._train import (Callback, EarlyStopping, FlopCounter, FlopsUtilization, History,  # noqa: F401
                         HistoryLogger, MissingKeyError, ModelCheckpoint, ProgressBar, ReduceLROnPlateau, accuracy,
                         count_flops, evaluate, fit, measure_peak_flops)
from ._weights import load_weights, save_weights  # noqa: F401

__all__ = ["fit", "evaluate", "History", "Callback", "EarlyStopping", "ReduceLROnPlateau", "ModelCheckpoint",
           "ProgressBar", "HistoryLogger", "FlopsUtilization", "FlopCounter", "MissingKeyError", "accuracy",
           "count_flops", "measure_peak_flops", "save_weights", "load_weights"]
