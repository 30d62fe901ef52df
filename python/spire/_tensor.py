"""Tensor protocols written in Python: iteration, item assignment through a NumPy view, copying,
pickling, formatting, and DLPack import."""

from __future__ import annotations

import numpy as np

from . import _C
from ._C import Tensor

__all__ = ["from_dlpack"]


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    for i in range(self.shape[0]):
        yield self[i]


def _numpy_key(key):
    if isinstance(key, tuple):
        return tuple(_numpy_key(k) for k in key)
    if isinstance(key, Tensor):
        return key.numpy()
    return key


def _setitem(self, key, value):
    """NumPy assignment into this tensor's memory. Refused for tensors that require grad: the
    engine records no in-place ops, so a gradient through the old values would be silently wrong.
    Note that tensors sharing this memory (views, from_numpy arrays) see the change."""
    if self.requires_grad:
        raise _C.AutodiffError("item assignment into a tensor that requires grad would corrupt its "
                               "gradient; assign to t.detach() or build a new tensor (e.g. with where)")
    if self.device.type != "cpu":
        raise _C.DeviceError(f"item assignment needs a CPU tensor, this one is on {self.device}")
    target = self.numpy()
    if isinstance(value, Tensor):
        value = value.numpy()
    target[_numpy_key(key)] = value


def _contains(self, value):
    return bool((self == value).any())


def _copy(self):
    return _C.copy(self.detach())


def _deepcopy(self, memo):
    out = _C.copy(self.detach())
    if self.requires_grad and self.is_leaf:
        out.requires_grad = True
    memo[id(self)] = out
    return out


def _rebuild(array, requires_grad):
    return _C.tensor(array, requires_grad=requires_grad)


def _reduce(self):
    return _rebuild, (np.array(self.numpy(), copy=True), bool(self.requires_grad and self.is_leaf))


def _format(self, spec):
    if spec and self.size == 1:
        return format(self.item(), spec)
    return str(self)


class _GradHookHandle:
    """What register_post_accumulate_grad_hook returns: remove() unregisters the hook."""

    def __init__(self, tensor, hook_id):
        self._tensor, self.id = tensor, hook_id

    def remove(self):
        _C._autograd._remove_post_accumulate_grad_hook(self._tensor, self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _register_post_accumulate_grad_hook(self, hook):
    """Calls ``hook(tensor)`` each time ``backward()`` has accumulated a gradient into this leaf's
    ``.grad`` (torch's ``register_post_accumulate_grad_hook``), in the order the backward pass reaches
    the leaves; ``spire.grad`` runs none. Returns a handle whose ``remove()`` unregisters it."""
    if not callable(hook):
        raise TypeError(f"register_post_accumulate_grad_hook: hook must be callable, got {type(hook).__name__}")
    return _GradHookHandle(self, _C._autograd._add_post_accumulate_grad_hook(self, hook))


def _array_wrap(self):
    return self


for _name, _fn in [("__iter__", _iter), ("__setitem__", _setitem), ("__contains__", _contains),
                   ("__copy__", _copy), ("__deepcopy__", _deepcopy), ("__reduce__", _reduce),
                   ("__format__", _format),
                   ("register_post_accumulate_grad_hook", _register_post_accumulate_grad_hook)]:
    setattr(Tensor, _name, _fn)


def from_dlpack(x) -> Tensor:
    """A tensor sharing the memory of any DLPack producer (a NumPy array, a PyTorch or JAX array,
    a CuPy array, or a DLPack capsule)."""
    if hasattr(x, "__dlpack__"):
        try:
            capsule = x.__dlpack__(max_version=(1, 0))
        except TypeError:  # producers older than DLPack 1.0
            capsule = x.__dlpack__()
        return _C._from_dlpack_capsule(capsule)
    return _C._from_dlpack_capsule(x)
