"""Probability distributions, as torch.distributions: ``Categorical`` and ``Normal``.

Both are built from differentiable engine ops (engine/distributions), so ``log_prob``,
``entropy`` and ``Normal.rsample`` carry gradients of any order to their parameters, in every
autodiff mode. Sampling takes ``generator=`` (a ``spire.random.Generator``; ``None`` uses the
default one), so a seed gives the same draws on every run. See docs/distributions.md.
"""

from ._C._distributions import Categorical, Normal

__all__ = ["Categorical", "Normal"]
