"""Optimizers over a list of parameter tensors, in the manner of ``torch.optim``.

``SGD`` (momentum, Nesterov), ``Adam``, ``AdamW`` and ``LBFGS`` (with an optional strong-Wolfe line
search) take PyTorch's arguments and follow PyTorch's update formulas. Parameters are leaf tensors
with ``requires_grad=True``; all of them share one set of options (no parameter groups)::

    opt = spire.optim.Adam([w, b], lr=1e-3)
    for _ in range(1000):
        opt.zero_grad()
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        opt.step()

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
``opt.lr`` may be changed between steps.
"""

from ._C._optim import Optimizer, SGD, Adam, AdamW, LBFGS  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "LBFGS"]
