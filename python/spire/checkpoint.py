"""Training checkpoints in one HDF5 file (``engine/nn/checkpoint.h`` has the C++ side).

``save_checkpoint(path, model, optimizer, scheduler, generators={"data": g}, epoch=, step=,
metadata={...}, state={"buffer": obj})`` writes the objects' ``state_dict()``, the state (seed,
stream, offset) of the named generators and of the default generator, the epoch and step, user
metadata strings, and the ``state_dict()`` of any other named object a run needs to resume (a
replay buffer, counters: a dict of tensors and numbers).
``load_checkpoint`` restores them into existing objects (``load_state_dict``) and returns
``{"epoch", "step", "metadata"}``, so training resumed from the file continues bit for bit.

The file is written to ``<path>.tmp-<pid>`` and renamed over ``path`` once complete: a crash
mid-write leaves the previous checkpoint intact.

Layout (read it with h5py; each group keeps its entries in insertion order)::

    /                 attrs: format="spire.checkpoint", version=1, epoch, step (int64)
    /model/<key>      one dataset per state_dict entry, in the tensor's dtype
    /optimizer/<key>  tensors as datasets; numbers ("lr") as scalar float64 / int64 datasets;
    /scheduler/<key>  each dataset has attr kind = "tensor" | "float" | "int"
    /rng/<name>       scalar uint64 datasets seed, stream, offset ("default": the default generator)
    /meta/<key>       scalar UTF-8 string datasets (h5py: ``f["meta/k"].asstr()[()]``)
    /state/<name>/<key>  the named objects' state_dicts, stored as the optimizer's entries

Tensor datasets carry attr ``dtype`` (Spire's dtype name). bool is stored as uint8; complex64 /
complex128 as float32 / float64 with a trailing axis of 2 (real, imaginary).
"""

import os

from . import _C
from . import random as _random

__all__ = ["save_checkpoint", "load_checkpoint"]


def _generators(generators, default_generator):
    gens = dict(generators or {})
    if default_generator:
        if "default" in gens:
            raise ValueError("save_checkpoint: the generator name 'default' is reserved for the default generator")
        gens["default"] = _random.default_generator()
    return gens


def save_checkpoint(path, model=None, optimizer=None, scheduler=None, generators=None, *, epoch=0, step=0,
                    metadata=None, default_generator=True, state=None):
    """Writes a checkpoint atomically. ``generators``: a dict of name -> spire.random.Generator;
    the default generator is saved as "default" unless ``default_generator=False``. ``metadata``:
    a dict of str -> str. ``state``: a dict of name -> object with ``state_dict()`` (a dict of
    str -> tensor, float or int)."""
    gens = _generators(generators, default_generator)
    rng = [(name, g.seed, g.stream, g.offset) for name, g in gens.items()]
    _C._nn._write_checkpoint(
        os.fspath(path),
        None if model is None else model.state_dict(),
        None if optimizer is None else optimizer.state_dict(),
        None if scheduler is None else scheduler.state_dict(),
        rng, int(epoch), int(step), dict(metadata or {}),
        {name: obj.state_dict() for name, obj in (state or {}).items()})


def load_checkpoint(path, model=None, optimizer=None, scheduler=None, generators=None, *, strict=True,
                    default_generator=True, state=None):
    """Restores a checkpoint into existing objects and returns ``{"epoch", "step", "metadata"}``.

    Raises OSError (spire.SpireIOError) for a missing, corrupt or non-checkpoint file and
    ValueError naming the part (model, optimizer, scheduler, generator) the file lacks; mismatched
    keys and shapes are reported by the objects' ``load_state_dict``. Every part is checked to be
    present before any object is changed. ``state``: name -> object whose ``load_state_dict``
    receives the saved dict of that name."""
    path = os.fspath(path)
    data = _C._nn._read_checkpoint(path)
    for part, obj in (("model", model), ("optimizer", optimizer), ("scheduler", scheduler)):
        if obj is not None and data[part] is None:
            raise ValueError(f"load_checkpoint: '{path}' holds no {part} state, but one was given to restore")
    gens = _generators(generators, default_generator)
    for name in gens:
        if name not in data["rng"]:
            held = ", ".join(data["rng"]) or "(none)"
            raise ValueError(f"load_checkpoint: '{path}' holds no generator '{name}'; it holds: {held}")
    for name in state or {}:
        if name not in data["state"]:
            held = ", ".join(data["state"]) or "(none)"
            raise ValueError(f"load_checkpoint: '{path}' holds no state '{name}'; it holds: {held}")
    if model is not None:
        model.load_state_dict(data["model"], strict=strict)
    if optimizer is not None:
        optimizer.load_state_dict(data["optimizer"])
    if scheduler is not None:
        scheduler.load_state_dict(data["scheduler"])
    for name, g in gens.items():
        _C._nn._set_generator_state(g, *data["rng"][name])
    for name, obj in (state or {}).items():
        obj.load_state_dict(data["state"][name])
    return {"epoch": data["epoch"], "step": data["step"], "metadata": data["metadata"]}
