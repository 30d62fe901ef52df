"""Weight initialisers, as ``torch.nn.init``.

Each fills a tensor in place (its values are rebound without history) and returns it:
``uniform_``, ``normal_``, ``constant_``, ``zeros_``, ``ones_``, ``eye_``, ``xavier_uniform_``,
``xavier_normal_``, ``kaiming_uniform_``, ``kaiming_normal_``, ``orthogonal_`` and SIREN's
``siren_uniform_``; ``calculate_gain`` gives PyTorch's gain table. Random ones take an optional
``generator`` (a ``spire.random.Generator``); the default generator (``spire.manual_seed``) is used
otherwise.
"""

from .._C import _nn as _nn_C

_I = _nn_C._init

calculate_gain = _I.calculate_gain
uniform_ = _I.uniform_
normal_ = _I.normal_
constant_ = _I.constant_
zeros_ = _I.zeros_
ones_ = _I.ones_
eye_ = _I.eye_
xavier_uniform_ = _I.xavier_uniform_
xavier_normal_ = _I.xavier_normal_
kaiming_uniform_ = _I.kaiming_uniform_
kaiming_normal_ = _I.kaiming_normal_
orthogonal_ = _I.orthogonal_
siren_uniform_ = _I.siren_uniform_

__all__ = [n for n in dir(_I) if not n.startswith("_")]
