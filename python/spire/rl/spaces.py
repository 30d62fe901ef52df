"""Gymnasium's spaces for spire.rl: ``Box`` (float32) and ``Discrete``, backed by C++ (reinforcement/envs/spaces.h),
and ``MultiDiscrete``, the batched ``Discrete`` of vector environments (NumPy only)."""
from __future__ import annotations

import numpy as np

from .._C import _rl


class Space:
    """Base of the spaces; ``sample()`` draws with the space's own generator (``seed()`` it)."""

    def __init__(self, impl):
        self._impl = impl

    def seed(self, seed=None):
        self._impl.seed(seed)
        return [seed]

    def sample(self):
        return self._impl.sample()

    def contains(self, x) -> bool:
        return self._impl.contains(x)

    def __contains__(self, x) -> bool:
        return self.contains(x)

    def __repr__(self):
        return repr(self._impl)


class Box(Space):
    """``Box(low, high, shape=None, dtype=np.float32)``: float32 elements with bounds ``low <= x <= high``.

    Scalar bounds need ``shape``, as in Gymnasium; array bounds give the shape.
    """

    def __init__(self, low, high, shape=None, dtype=np.float32, *, _impl=None):
        if _impl is None:
            if np.dtype(dtype) != np.float32:
                raise TypeError(f"Box: only float32 is supported, got dtype {np.dtype(dtype)}")
            if shape is not None:
                shape = (int(shape),) if np.isscalar(shape) else tuple(int(d) for d in shape)
                low = np.broadcast_to(np.asarray(low, np.float32), shape)
                high = np.broadcast_to(np.asarray(high, np.float32), shape)
            else:
                low, high = np.asarray(low, np.float32), np.asarray(high, np.float32)
                if low.shape != high.shape:
                    low, high = np.broadcast_arrays(low, high)
            _impl = _rl.box(np.ascontiguousarray(low), np.ascontiguousarray(high))
        super().__init__(_impl)
        self.low = _impl.low
        self.high = _impl.high
        self.shape = _impl.shape
        self.dtype = np.dtype(np.float32)

    def is_bounded(self, manner: str = "both") -> bool:
        below, above = bool(np.all(np.isfinite(self.low))), bool(np.all(np.isfinite(self.high)))
        if manner == "both":
            return below and above
        if manner == "below":
            return below
        if manner == "above":
            return above
        raise ValueError(f"manner must be 'both', 'below' or 'above', got {manner!r}")

    def __eq__(self, other):
        return (isinstance(other, Box) and self.shape == other.shape and np.array_equal(self.low, other.low)
                and np.array_equal(self.high, other.high))


class Discrete(Space):
    """``Discrete(n, start=0)``: the integers ``start, ..., start + n - 1``."""

    def __init__(self, n, start=0, *, _impl=None):
        super().__init__(_impl if _impl is not None else _rl.discrete(int(n), int(start)))
        self.n = self._impl.n
        self.start = self._impl.start
        self.shape = ()
        self.dtype = np.dtype(np.int64)

    def __eq__(self, other):
        return isinstance(other, Discrete) and self.n == other.n and self.start == other.start


class MultiDiscrete(Space):
    """The batched form of ``Discrete(n, start)``: one integer in ``[start, start + n)`` per
    environment, as Gymnasium's ``MultiDiscrete`` (``nvec``, ``start``, ``shape``, ``dtype=int64``)."""

    def __init__(self, nvec, start=None, seed=None):
        self.nvec = np.asarray(nvec, dtype=np.int64)
        self.start = np.zeros_like(self.nvec) if start is None else np.asarray(start, dtype=np.int64)
        self.shape = self.nvec.shape
        self.dtype = np.dtype(np.int64)
        self._rng = np.random.default_rng(seed)

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)
        return [seed]

    def sample(self):
        return self.start + self._rng.integers(0, self.nvec, dtype=np.int64)

    def contains(self, x) -> bool:
        x = np.asarray(x)
        return (x.shape == self.shape and np.issubdtype(x.dtype, np.integer)
                and bool(np.all((x >= self.start) & (x < self.start + self.nvec))))

    def __eq__(self, other):
        return (isinstance(other, MultiDiscrete) and np.array_equal(self.nvec, other.nvec)
                and np.array_equal(self.start, other.start))

    def __repr__(self):
        return f"MultiDiscrete({self.nvec})"


def _wrap(impl) -> Space:
    return Box(None, None, _impl=impl) if impl.is_box else Discrete(None, _impl=impl)
