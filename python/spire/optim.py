"""Optimizers over a list of parameter tensors, in the manner of ``torch.optim``.

``SGD`` (momentum, Nesterov), ``Adam``, ``AdamW``, ``RMSprop`` and ``LBFGS`` (with an optional
strong-Wolfe line search) take PyTorch's arguments and follow PyTorch's update formulas. Parameters
are leaf tensors with ``requires_grad=True``; all of them share one set of options (no parameter
groups)::

    opt = spire.optim.Adam([w, b], lr=1e-3)
    sched = spire.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)
    for epoch in range(100):
        opt.zero_grad()
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        spire.optim.clip_grad_norm_([w, b], max_norm=1.0)
        opt.step()
        sched.step()

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
``opt.lr`` may be changed between steps. ``state_dict()`` / ``load_state_dict()`` of optimizers and
schedulers are ordered dicts of tensors and numbers; a run resumed from them continues bit for bit.

Schedulers (``spire.optim.lr_scheduler``): ``StepLR``, ``ExponentialLR``, ``CosineAnnealingLR``,
``WarmupCosineLR`` (linear warm-up then cosine), ``OneCycleLR`` and ``ReduceLROnPlateau``, with
PyTorch's semantics: ``step()`` once per epoch (OneCycleLR: per batch; ReduceLROnPlateau:
``step(metric)``), ``get_last_lr()``.
"""

import sys as _sys
import types as _types

from ._C._optim import (  # noqa: F401
    Optimizer, SGD, Adam, AdamW, RMSprop, LBFGS, clip_grad_norm_, clip_grad_value_,
    LRScheduler, StepLR, ExponentialLR, CosineAnnealingLR, WarmupCosineLR, OneCycleLR, ReduceLROnPlateau,
)

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "LBFGS", "clip_grad_norm_", "clip_grad_value_",
           "lr_scheduler"]

# spire.optim.lr_scheduler, importable as a module (``from spire.optim.lr_scheduler import StepLR``).
lr_scheduler = _types.ModuleType(__name__ + ".lr_scheduler", "Learning-rate schedulers, as torch.optim.lr_scheduler.")
for _cls in (LRScheduler, StepLR, ExponentialLR, CosineAnnealingLR, WarmupCosineLR, OneCycleLR, ReduceLROnPlateau):
    setattr(lr_scheduler, _cls.__name__, _cls)
lr_scheduler.__all__ = [c.__name__ for c in (LRScheduler, StepLR, ExponentialLR, CosineAnnealingLR, WarmupCosineLR,
                                             OneCycleLR, ReduceLROnPlateau)]
_sys.modules[lr_scheduler.__name__] = lr_scheduler
del _cls
