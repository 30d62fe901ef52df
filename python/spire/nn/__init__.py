"""Neural-network modules, in the manner of ``torch.nn``.

A model is a tree of ``Module`` objects; each owns named parameters (leaf tensors that require
grad), buffers (saved, not trained) and child modules. Subclass ``Module`` from Python as in
PyTorch::

    class MLP(spire.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = spire.nn.Parameter(spire.randn(3, 16) * 0.5)   # a parameter
            self.head = spire.nn.Linear(16, 1)                       # a child module
            self.register_buffer("scale", spire.ones(1))             # a buffer

        def forward(self, x):
            return self.head(spire.tanh(x @ self.w)) * self.scale

    model = MLP()
    opt = spire.optim.Adam(model.parameters(), lr=1e-3)

``parameters()``, ``named_parameters()``, ``state_dict()``, ``load_state_dict()``, ``train()``,
``eval()`` and ``zero_grad()`` work across Python and C++ modules alike. A parameter stays the same
tensor for the life of the model: optimizers and ``load_state_dict`` rebind its values.

``Parameter`` is a subclass of ``spire.Tensor``: parameters read from a module (``model.weight``,
``parameters()``, ``named_parameters()``) are ``Parameter`` instances, other tensors are not.
Hooks work as in PyTorch: ``register_forward_pre_hook``, ``register_forward_hook`` and
``register_full_backward_hook`` return a handle whose ``remove()`` unregisters the hook, and a hook
on a child runs whether a Python ``forward`` or a C++ container (``Sequential``) calls it.
"""

from .._C import _nn
from .._C import Tensor as _Tensor

Module = _nn.Module
Parameter = _nn.Parameter
Sequential = _nn.Sequential
ModuleList = _nn.ModuleList



def _parameter_repr(self):
    return "Parameter containing:\n" + _Tensor.__repr__(self)


def _parameter_deepcopy(self, memo):
    if id(self) in memo:
        return memo[id(self)]
    out = Parameter(_Tensor.__deepcopy__(self, {}).detach(), self.requires_grad)
    memo[id(self)] = out
    return out


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


def _parameter_reduce(self):
    # The data as a plain tensor (pickled by Tensor's own protocol), then wrapped again.
    return _rebuild_parameter, (self.detach(), bool(self.requires_grad))


Parameter.__repr__ = _parameter_repr
Parameter.__str__ = _parameter_repr  # print() shows it too, as torch
Parameter.__deepcopy__ = _parameter_deepcopy
Parameter.__reduce__ = _parameter_reduce
Parameter.__module__ = __name__

# Everything public in the compiled submodule (layers and initialisers bound there too), so that
# spire.nn.Linear and friends appear as soon as they are bound.
for _name in dir(_nn):
    if not _name.startswith("_"):
        globals()[_name] = getattr(_nn, _name)
del _name

# The Python-side parts, imported when present (they are written alongside this package): functional
# forms (spire.nn.functional), initialisers (spire.nn.init) and the loss modules (spire.nn.MSELoss...).
from importlib.util import find_spec as _find_spec  # noqa: E402

if _find_spec(__name__ + ".functional") is not None:
    from . import functional  # noqa: F401
if _find_spec(__name__ + ".init") is not None:
    from . import init  # noqa: F401
if _find_spec(__name__ + ".losses") is not None:
    from . import losses  # noqa: F401
    from .losses import *  # noqa: F401,F403
del _find_spec
