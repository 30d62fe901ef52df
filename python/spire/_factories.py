"""Tensor factories with NumPy/PyTorch-style signatures: ``zeros(2, 3)`` and ``zeros((2, 3))`` both
work; dtype defaults to float32 (or follows the fill value); ``requires_grad`` makes a leaf."""

from __future__ import annotations

import builtins

from . import _C
from ._C import Tensor

__all__ = ["empty", "zeros", "ones", "full", "arange", "linspace", "eye", "empty_like", "zeros_like",
           "ones_like", "full_like", "rand", "randn", "is_tensor"]

_raw = _C._factories


def _shape(shape) -> tuple:
    if len(shape) == 1 and not isinstance(shape[0], int):
        return tuple(shape[0])
    return tuple(shape)


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        t.requires_grad = True
    return t


def _default_dtype(value):
    if isinstance(value, builtins.bool):
        return _C.bool
    if isinstance(value, builtins.int):
        return _C.int64
    if isinstance(value, builtins.complex):
        return _C.complex64
    return _C.float32


def empty(*shape, dtype=None, device="cpu", requires_grad=False) -> Tensor:
    """Uninitialised memory."""
    return _finish(_raw.empty(_shape(shape), (_C.float32 if dtype is None else dtype), device), requires_grad)


def zeros(*shape, dtype=None, device="cpu", requires_grad=False) -> Tensor:
    return _finish(_raw.full(_shape(shape), 0, (_C.float32 if dtype is None else dtype), device), requires_grad)


def ones(*shape, dtype=None, device="cpu", requires_grad=False) -> Tensor:
    return _finish(_raw.full(_shape(shape), 1, (_C.float32 if dtype is None else dtype), device), requires_grad)


def full(shape, fill_value, dtype=None, device="cpu", requires_grad=False) -> Tensor:
    """``shape`` filled with ``fill_value``; dtype follows the value when omitted (float32 for
    floats, int64 for ints, bool, complex64)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    dtype = _default_dtype(fill_value) if dtype is None else dtype
    return _finish(_raw.full(shape, fill_value, dtype, device), requires_grad)


def arange(start, stop=None, step=1, dtype=None, requires_grad=False) -> Tensor:
    """Values from start (default 0) up to, not including, stop; int64 for integer arguments,
    float32 otherwise."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        ints = all(isinstance(v, builtins.int) for v in (start, stop, step))
        dtype = _C.int64 if ints else _C.float32
    return _finish(_raw.arange(float(start), float(stop), float(step), dtype),
                   requires_grad)


def linspace(start, stop, num=50, dtype=None, requires_grad=False) -> Tensor:
    """``num`` evenly spaced values from start to stop, both included."""
    return _finish(_raw.linspace(float(start), float(stop), int(num), (_C.float32 if dtype is None else dtype)), requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False) -> Tensor:
    """Identity matrix n x n (or n x m)."""
    dtype = (_C.float32 if dtype is None else dtype)
    if m is None or m == n:
        return _finish(_raw.eye(int(n), dtype), requires_grad)
    rows = _raw.arange(0.0, float(n), 1.0, _C.int64).reshape(n, 1)
    cols = _raw.arange(0.0, float(m), 1.0, _C.int64).reshape(1, m)
    return _finish(_C.cast(_C.eq(rows, cols), dtype), requires_grad)


def _like(x, dtype):
    x = _C.asarray(x)
    return x.shape, (x.dtype if dtype is None else dtype), x.device


def empty_like(x, dtype=None, requires_grad=False) -> Tensor:
    shape, dtype, device = _like(x, dtype)
    return _finish(_raw.empty(shape, dtype, device), requires_grad)


def zeros_like(x, dtype=None, requires_grad=False) -> Tensor:
    shape, dtype, device = _like(x, dtype)
    return _finish(_raw.full(shape, 0, dtype, device), requires_grad)


def ones_like(x, dtype=None, requires_grad=False) -> Tensor:
    shape, dtype, device = _like(x, dtype)
    return _finish(_raw.full(shape, 1, dtype, device), requires_grad)


def full_like(x, fill_value, dtype=None, requires_grad=False) -> Tensor:
    shape, dtype, device = _like(x, dtype)
    return _finish(_raw.full(shape, fill_value, dtype, device), requires_grad)


def rand(*shape, dtype=None, generator=None, device="cpu", requires_grad=False) -> Tensor:
    """Uniform on [0, 1); the same bits on every device."""
    return _finish(_C.random.uniform(_shape(shape), 0.0, 1.0, (_C.float32 if dtype is None else dtype), generator,
                                     device), requires_grad)


def randn(*shape, dtype=None, generator=None, device="cpu", requires_grad=False) -> Tensor:
    """Standard normal; the same bits on every device."""
    return _finish(_C.random.normal(_shape(shape), 0.0, 1.0, (_C.float32 if dtype is None else dtype), generator,
                                    device), requires_grad)


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)
