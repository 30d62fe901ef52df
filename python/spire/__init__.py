"""Spire: differentiable scientific computing.

``import spire`` gives tensors that share memory with NumPy (``np.asarray(t)``,
``spire.from_numpy(a)``) and speak DLPack, NumPy-style ops and indexing, reverse and forward mode
autodiff (``t.backward()``, ``spire.autograd.grad``) and JAX-style functional transforms over
pytrees (``spire.grad``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``hvp``), Taylor
mode and batching (``spire.jet``, ``spire.vmap``) and differential operators of point functions
(``spire.laplacian``, ``hessian_diag``, ``input_grad``, ``divergence``, ``curl``, ``derivative``).
"""

from . import _C

# Everything public in the extension (tensor, dtypes, errors, ops) at the top level; its submodules
# (linalg, random) are wrapped by the Python modules of the same names imported below.
for _name in dir(_C):
    if not _name.startswith("_") and not isinstance(getattr(_C, _name), type(_C)):
        globals()[_name] = getattr(_C, _name)
del _name

from . import _tensor  # noqa: E402  (adds the Python-side Tensor protocols)
from ._C import Tensor, Device, dtype  # noqa: E402,F401
from ._C import get_num_threads, set_num_threads  # noqa: E402,F401
from ._C import SpireError, ShapeError, DTypeError, SpireValueError, ConfigError, ParseError  # noqa: E402,F401
from ._C import SpireIOError, AutodiffError, DeviceError  # noqa: E402,F401
from ._C import bool_, int32, int64, float32, float64, complex64, complex128  # noqa: E402,F401
from ._factories import *  # noqa: E402,F401,F403
from ._grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled,  # noqa: E402,F401
                         detect_anomaly, set_detect_anomaly, is_anomaly_enabled)
from ._pytree import tree_flatten, tree_unflatten, tree_map, tree_leaves, tree_structure  # noqa: E402,F401
from ._pytree import register_pytree_node  # noqa: E402,F401
from ._tensor import from_dlpack  # noqa: E402,F401
from ._transforms import grad, value_and_grad, vjp, jvp, jacrev, jacfwd, hessian, hvp  # noqa: E402,F401
from ._taylor import (jet, vmap, laplacian, hessian_diag, input_grad, divergence, curl,  # noqa: E402,F401
                      derivative)
from . import autograd, cuda, distributions, fft, forward_ad, linalg, random  # noqa: E402,F401
from . import optim  # noqa: E402,F401
from . import nn  # noqa: E402,F401
from .custom import custom_op  # noqa: E402,F401  (also binds spire.custom)
from . import data  # noqa: E402,F401
from .checkpoint import save_checkpoint, load_checkpoint  # noqa: E402,F401
from . import train  # noqa: E402,F401
from . import flow  # noqa: E402,F401
from . import sponge  # noqa: E402,F401
from . import elec  # noqa: E402,F401

bool = _C.bool  # noqa: A001  (spire.bool, as torch.bool and np.bool; builtins stay untouched)
newaxis = None
__version__ = _C.__version__
