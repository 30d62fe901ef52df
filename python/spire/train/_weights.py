"""save_weights / load_weights: a model's state_dict in one file, written atomically.

``.h5`` / ``.hdf5`` files are spire checkpoints (``engine/nn/checkpoint.h``: ``/model/<key>``, plus
``/optimizer`` and ``/scheduler`` when given, and the default generator's state), written by the
engine; ``spire.load_checkpoint`` reads them too. Any other name is a NumPy ``.npz`` of the
state_dict, written here. Either way the file is written to a temporary name in the same folder
and renamed over the target, so a reader never sees half a file.
"""

import os

import numpy as np

from .. import _C


def _is_hdf5(path):
    return str(path).lower().endswith((".h5", ".hdf5"))


def _np(t):
    return np.asarray(t.detach()) if isinstance(t, _C.Tensor) else np.asarray(t)


def save_weights(model_or_state, path, optimizer=None, epoch=0, scheduler=None):
    """Writes a model's state_dict (or a state_dict) to ``path`` atomically (see the module's doc);
    with an HDF5 name, ``optimizer`` and ``scheduler`` add their state for resuming training."""
    path = os.fspath(path)
    if _is_hdf5(path):
        if isinstance(model_or_state, _C._nn.Module):
            _C._train._save_weights(path, model_or_state, optimizer, scheduler, int(epoch))
        else:
            _C._nn._write_checkpoint(path, dict(model_or_state),
                                     None if optimizer is None else optimizer.state_dict(),
                                     None if scheduler is None else scheduler.state_dict(), [], int(epoch), 0, {}, {})
        return
    state = model_or_state.state_dict() if hasattr(model_or_state, "state_dict") else model_or_state
    arrays = {k: np.array(_np(v)) for k, v in state.items()}
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".{os.path.basename(path)}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:   # a file object, so that np.savez adds no ".npz"
            np.savez(f, **arrays)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_weights(model, path):
    """Loads a file written by :func:`save_weights` (or ModelCheckpoint) into ``model`` (unless it
    is None) and returns the state dict of tensors."""
    path = os.fspath(path)
    if _is_hdf5(path):
        state = _C._nn._read_checkpoint(path)["model"]
        if state is None:
            raise ValueError(f"load_weights: '{path}' holds no model state")
    else:
        with np.load(path) as z:
            state = {k: _C.from_numpy(np.ascontiguousarray(z[k])) for k in z.files}
    if model is not None:
        model.load_state_dict(state)
    return state
