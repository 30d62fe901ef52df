"""Forward mode on tensors (as torch.autograd.forward_ad): inside ``with dual_level():``,
``make_dual(x, v)`` gives a tensor carrying tangent v; every op propagates it; ``unpack_dual(y)``
reads the tangent of a result (None means zero)."""

from __future__ import annotations

from collections import namedtuple

from . import _C

__all__ = ["dual_level", "make_dual", "unpack_dual", "UnpackedDual"]

_levels = []  # live levels of this process, innermost last

UnpackedDual = namedtuple("UnpackedDual", ["primal", "tangent"])


class dual_level:
    """A forward-mode level; tangents made inside belong to it and vanish on exit."""

    def __enter__(self):
        self.level = _C._forward_ad.enter_level()
        _levels.append(self.level)
        return self.level

    def __exit__(self, *exc):
        _levels.remove(self.level)
        _C._forward_ad.exit_level(self.level)
        return False


def _level(level):
    if level is not None:
        return level
    if not _levels:
        raise RuntimeError("make_dual/unpack_dual need an active level: use `with dual_level():`")
    return _levels[-1]


def make_dual(tensor, tangent, *, level=None):
    """A tensor with the value (and reverse-mode history) of ``tensor`` carrying ``tangent``."""
    return _C._forward_ad.make_dual(tensor, tangent, _level(level))


def unpack_dual(tensor, *, level=None) -> UnpackedDual:
    """``(primal, tangent)`` of a tensor at the level; the primal is the tensor itself."""
    return UnpackedDual(tensor, _C._forward_ad.tangent(tensor, _level(level)))
