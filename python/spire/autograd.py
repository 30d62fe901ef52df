"""Reverse mode on tensors: ``spire.autograd.grad`` and ``backward`` (as in PyTorch), plus the
grad-mode switches."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

from . import _C
from ._C import Tensor
from ._grad_mode import (detect_anomaly, enable_grad, is_anomaly_enabled, is_grad_enabled, no_grad,
                         set_detect_anomaly, set_grad_enabled)

__all__ = ["grad", "backward", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]

Tensors = Union[Tensor, Sequence[Tensor]]


def _as_list(x, what: str) -> list:
    if x is None:
        return None
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return list(x)
    raise TypeError(f"{what} must be a tensor or a sequence of tensors, got {type(x).__name__}")


def grad(outputs: Tensors, inputs: Tensors, grad_outputs: Optional[Tensors] = None,
         retain_graph: Optional[bool] = None, create_graph: bool = False,
         allow_unused: bool = False) -> Tuple[Optional[Tensor], ...]:
    """Gradients of ``outputs`` (weighted by ``grad_outputs``; omitted means ones, for scalar
    outputs) with respect to ``inputs``, as a tuple. ``create_graph`` makes them differentiable
    again (higher derivatives); ``retain_graph`` defaults to ``create_graph``. An input the outputs
    do not depend on is an error, or None with ``allow_unused``."""
    outs = _as_list(outputs, "outputs")
    ins = _as_list(inputs, "inputs")
    gos = _as_list(grad_outputs, "grad_outputs")
    if retain_graph is None:
        retain_graph = create_graph
    return tuple(_C._autograd.grad(outs, ins, gos, retain_graph, create_graph, allow_unused))


def backward(tensors: Tensors, grad_tensors: Optional[Tensors] = None,
             retain_graph: Optional[bool] = None, create_graph: bool = False) -> None:
    """Accumulates gradients into ``.grad`` of every leaf the ``tensors`` depend on."""
    if retain_graph is None:
        retain_graph = create_graph
    _C._autograd.backward(_as_list(tensors, "tensors"), _as_list(grad_tensors, "grad_tensors"),
                          retain_graph, create_graph)
