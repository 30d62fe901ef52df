"""Optimizers over groups of parameter tensors, in the manner of ``torch.optim``.

``SGD`` (momentum, Nesterov), ``Adam``, ``AdamW``, ``RMSprop`` and ``LBFGS`` (with an optional
strong-Wolfe line search) take PyTorch's arguments and follow PyTorch's update formulas. Parameters
are leaf tensors with ``requires_grad=True``::

    opt = spire.optim.Adam(model.parameters(), lr=1e-3)
    sched = spire.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)
    for epoch in range(100):
        opt.zero_grad()
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        spire.optim.clip_grad_norm_([w, b], max_norm=1.0)
        opt.step()
        sched.step()

Parameter groups, as PyTorch's: pass dicts instead of tensors, each with ``"params"`` and any
options of its own; the others come from the constructor's arguments::

    opt = spire.optim.Adam([{"params": backbone.parameters(), "lr": 1e-4},
                            {"params": head.parameters(), "weight_decay": 0.0}], lr=1e-3, weight_decay=1e-2)
    for g in opt.param_groups:        # live views: assignments change the optimizer
        g["lr"] *= 0.1
    opt.add_param_group({"params": extra.parameters(), "lr": 1e-2})

Other keys of a group (``"name"``) are kept with it in Python, as PyTorch keeps them; they are not
part of ``state_dict()``. ``LBFGS`` takes one group only, as PyTorch's.

L-BFGS evaluates the loss several times per step, so it needs a closure::

    opt = spire.optim.LBFGS([w, b], line_search_fn="strong_wolfe")
    def closure():
        opt.zero_grad()
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        return loss
    opt.step(closure)

The updates run in the engine (engine/optim/) without recording gradients and rebind each parameter
to its new values (``Tensor.set_data``), so a model holding the parameters sees them at once.
``opt.lr`` reads group 0's rate and sets every group's.

``opt.state_dict()`` holds the flat entries that checkpoints write (``"lr"``, ``"step_count"``,
``"param_groups.<g>.<option>"``, ``"param_groups.<g>.params"``, ``"state.<i>.<name>"``) and answers
PyTorch's nested layout too: ``sd["state"][i]["exp_avg"]``, ``sd["param_groups"][g]["lr"]`` with
``"params"`` the group's parameter indices. ``load_state_dict`` takes either form (a dict with
``"state"`` and ``"param_groups"`` keys is PyTorch's); a run resumed from it continues bit for bit.

Schedulers (``spire.optim.lr_scheduler``): ``StepLR``, ``ExponentialLR``, ``CosineAnnealingLR``,
``WarmupCosineLR`` (linear warm-up then cosine), ``OneCycleLR`` and ``ReduceLROnPlateau``, with
PyTorch's semantics, each group scheduled on its own: ``step()`` once per epoch (OneCycleLR: per
batch; ReduceLROnPlateau: ``step(metric)``), ``get_last_lr()`` and ``base_lrs`` with one rate per
group; ``OneCycleLR(max_lr=[...])`` and ``ReduceLROnPlateau(min_lr=[...])`` take one value per group.
"""

import functools as _functools
import sys as _sys
import types as _types
from collections.abc import MutableMapping as _MutableMapping

import numpy as _np

from ._C._optim import (  # noqa: F401
    Optimizer, SGD, Adam, AdamW, RMSprop, LBFGS, clip_grad_norm_, clip_grad_value_,
    LRScheduler, StepLR, ExponentialLR, CosineAnnealingLR, WarmupCosineLR, OneCycleLR, ReduceLROnPlateau,
)

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "LBFGS", "ParamGroup", "clip_grad_norm_",
           "clip_grad_value_", "lr_scheduler"]


# ---- parameter groups ------------------------------------------------------------------------------

class ParamGroup(_MutableMapping):
    """One parameter group of an optimizer, as the dict PyTorch keeps in ``param_groups``: ``"params"``
    (its tensors), each option (``"lr"``, ``"weight_decay"``, ``"betas"``, ...), ``"initial_lr"`` once a
    scheduler has set it, and any other keys the group was given. Reads and writes go to the optimizer:
    ``g["lr"] = 0.01`` changes the rate its next step uses (a value out of range is refused there and
    then). A group's parameters are fixed; add more with ``add_param_group``."""

    __slots__ = ("_opt", "_index")

    def __init__(self, optimizer, index):
        self._opt = optimizer
        self._index = index

    def _is_option(self, key):
        return key in type(self._opt)._option_names or (key == "initial_lr" and self._initial_lr() is not None)

    def _initial_lr(self):
        return self._opt._group_get(self._index, "initial_lr")

    def __getitem__(self, key):
        if key == "params":
            return self._opt._group_params(self._index)
        if self._is_option(key):
            return self._opt._group_get(self._index, key)
        return self._opt._group_extras[self._index][key]

    def __setitem__(self, key, value):
        if key == "params":
            raise ValueError(f"{type(self._opt).__name__}: the parameters of a group are fixed; "
                             "add others with add_param_group")
        if key in type(self._opt)._option_names or key == "initial_lr":
            self._opt._group_set(self._index, key, value)
        else:
            self._opt._group_extras[self._index][key] = value

    def __delitem__(self, key):
        if key == "initial_lr" and self._initial_lr() is not None:
            self._opt._group_set(self._index, key, None)
        elif key == "params" or key in type(self._opt)._option_names:
            raise KeyError(f"{key!r} cannot be removed from a parameter group")
        else:
            del self._opt._group_extras[self._index][key]

    def __iter__(self):
        yield "params"
        yield from type(self._opt)._option_names
        if self._initial_lr() is not None:
            yield "initial_lr"
        yield from self._opt._group_extras[self._index]

    def __len__(self):
        return sum(1 for _ in self)

    def __repr__(self):
        return repr(dict(self))


def _split_groups(params, option_names):
    """The constructor's params with each group dict's own keys (not options) set aside: (params for
    the engine, per-group dicts of the other keys, per-group initial_lr or None)."""
    from . import Tensor
    if isinstance(params, (Tensor, dict, str)) or not hasattr(params, "__iter__"):
        return params, None, None  # the engine names the error
    items = list(params)
    if not items or not isinstance(items[0], dict):
        return items, [{}], [None]
    groups, extras, initial = [], [], []
    for item in items:
        if not isinstance(item, dict):
            return items, None, None  # the engine names the error
        keep = {k: v for k, v in item.items() if k == "params" or k in option_names}
        other = {k: v for k, v in item.items() if k not in keep and k != "initial_lr"}
        groups.append(keep)
        extras.append(other)
        initial.append(item.get("initial_lr"))
    return groups, extras, initial


def _wrap_init(cls):
    engine_init = cls.__init__

    @_functools.wraps(engine_init)
    def __init__(self, params, *args, **kwargs):
        groups, extras, initial = _split_groups(params, cls._option_names)
        engine_init(self, groups, *args, **kwargs)
        self._group_extras = extras
        for g, lr in enumerate(initial):
            if lr is not None:
                self._group_set(g, "initial_lr", lr)

    cls.__init__ = __init__


def _param_groups(self):
    """The parameter groups, as PyTorch's list of dicts: live ``ParamGroup`` views."""
    return [ParamGroup(self, g) for g in range(self._num_param_groups)]


def _add_param_group(self, param_group):
    """Appends a group: a dict with ``"params"`` (a tensor or an iterable of them) and any options of its
    own (the others from the constructor's ``defaults``). A parameter already in a group is refused."""
    if not isinstance(param_group, dict):
        raise TypeError(f"{type(self).__name__}.add_param_group: the group must be a dict with 'params', "
                        f"got {type(param_group).__name__}")
    names = type(self)._option_names
    keep = {k: v for k, v in param_group.items() if k == "params" or k in names}
    self._add_param_group(keep)
    self._group_extras.append({k: v for k, v in param_group.items() if k not in keep and k != "initial_lr"})
    if param_group.get("initial_lr") is not None:
        self._group_set(self._num_param_groups - 1, "initial_lr", param_group["initial_lr"])


def _repr(self):
    lines = [type(self).__name__ + " ("]
    for g, group in enumerate(self.param_groups):
        lines.append(f"Parameter Group {g}")
        for k in sorted(k for k in group if k != "params"):
            lines.append(f"    {k}: {group[k]}")
    return "\n".join(lines) + "\n)"


# ---- state_dict in torch's layout ---------------------------------------------------------------------

def _split_index(key):
    """'old_dirs.3' -> ('old_dirs', 3); 'exp_avg' -> ('exp_avg', None)."""
    head, _, tail = key.rpartition(".")
    return (head, int(tail)) if head and tail.isdigit() else (key, None)


def _option_from_flat(kind, value):
    if kind == "bool":
        return bool(value)
    if kind == "line_search":
        return "strong_wolfe" if value else None
    return value


class OptimizerStateDict(dict):
    """An optimizer's ``state_dict()``: the flat entries checkpoints write (iterating it gives those),
    which also answers PyTorch's nested keys: ``sd["state"]`` ({parameter index: {name: value}}) and
    ``sd["param_groups"]`` ([{option: value, "params": [indices]}]). The nested views are copies."""

    def __init__(self, flat, fields):
        super().__init__(flat)
        self._fields = dict(fields)

    def __missing__(self, key):
        if key == "state":
            return self._state()
        if key == "param_groups":
            return self._param_groups()
        raise KeyError(key)

    def __contains__(self, key):
        return key in ("state", "param_groups") or super().__contains__(key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def _state(self):
        state = {}
        for key, value in self.items():
            if not key.startswith("state."):
                continue
            index, _, name = key[len("state."):].partition(".")
            entry = state.setdefault(int(index), {})
            name, k = _split_index(name)
            if k is None:
                entry[name] = value
            else:
                entry.setdefault(name, []).append(value)
        return state

    def _param_groups(self):
        groups = {}
        for key, value in self.items():
            if not key.startswith("param_groups."):
                continue
            g, _, name = key[len("param_groups."):].partition(".")
            group = groups.setdefault(int(g), {})
            if name == "params":
                group["params"] = [int(i) for i in _np.asarray(value).reshape(-1)]
                continue
            base, k = _split_index(name)
            if k is None:
                group[name] = _option_from_flat(self._fields.get(name, "real"), value)
            else:
                group[base] = group.get(base, ()) + (value,)
        return [groups[g] for g in sorted(groups)]

    def __reduce__(self):
        return (OptimizerStateDict, (dict(self), self._fields))


def _flatten_state_dict(d):
    """A state_dict in PyTorch's nested layout ({"state": ..., "param_groups": [...]}) as the flat dict
    the engine reads: "state.<i>.<name>", "param_groups.<g>.<option>" (bools as 0/1, tuples as
    "<option>.<k>", line_search_fn as 0/1), "param_groups.<g>.params" (int64 indices)."""
    flat = {}

    def put(key, value):
        if isinstance(value, (list, tuple)):
            for k, v in enumerate(value):
                put(f"{key}.{k}", v)
        elif isinstance(value, (bool, _np.bool_)):
            flat[key] = int(value)
        else:
            flat[key] = value

    for key, value in dict.items(d):
        if key == "state":
            for index, entry in value.items():
                for name, v in entry.items():
                    put(f"state.{int(index)}.{name}", v)
        elif key == "param_groups":
            for g, group in enumerate(value):
                for name, v in group.items():
                    prefix = f"param_groups.{g}.{name}"
                    if name == "params":
                        flat[prefix] = _np.asarray(list(v), dtype=_np.int64)
                    elif name == "line_search_fn":
                        if v not in (None, "strong_wolfe"):
                            raise ValueError(f"load_state_dict: line_search_fn must be None or 'strong_wolfe', got {v!r}")
                        flat[prefix] = int(v == "strong_wolfe")
                    elif v is None or isinstance(v, str):
                        continue  # PyTorch's foreach=None, fused=None, ...: nothing the engine reads
                    else:
                        put(prefix, v)
        else:
            put(key, value)
    return flat


def _state_dict(self):
    """The state a resumed run needs (see ``OptimizerStateDict``): the groups' options and indices, the
    step count and each parameter's state (absent before its first update)."""
    return OptimizerStateDict(self._state_dict(), type(self)._option_fields)


def _load_state_dict(self, state_dict):
    """Restores a ``state_dict()`` (flat, or in PyTorch's nested layout) into an optimizer with as many
    groups of as many parameters each; the group count, a group's size, a missing entry or a shape
    mismatch is a ValueError naming it, and nothing changes then."""
    self._load_state_dict(state_dict)


for _cls in (SGD, Adam, AdamW, RMSprop, LBFGS):
    if "__init__" in _cls.__dict__:
        _wrap_init(_cls)
Optimizer.param_groups = property(_param_groups)
Optimizer.add_param_group = _add_param_group
Optimizer.state_dict = _state_dict
Optimizer.load_state_dict = _load_state_dict
Optimizer.__repr__ = _repr

# spire.optim.lr_scheduler, importable as a module (``from spire.optim.lr_scheduler import StepLR``).
lr_scheduler = _types.ModuleType(__name__ + ".lr_scheduler", "Learning-rate schedulers, as torch.optim.lr_scheduler.")
for _cls in (LRScheduler, StepLR, ExponentialLR, CosineAnnealingLR, WarmupCosineLR, OneCycleLR, ReduceLROnPlateau):
    setattr(lr_scheduler, _cls.__name__, _cls)
lr_scheduler.__all__ = [c.__name__ for c in (LRScheduler, StepLR, ExponentialLR, CosineAnnealingLR, WarmupCosineLR,
                                             OneCycleLR, ReduceLROnPlateau)]
_sys.modules[lr_scheduler.__name__] = lr_scheduler
del _cls
