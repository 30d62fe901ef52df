"""FLOP counting and the FLOP-utilisation callback."""

import math
import time

import numpy as np

from .. import _C
from .._grad_mode import no_grad
from .callbacks import Callback

# ----------------------------------------------------------------------------------------------------------------
# FLOPs


def _conv_out(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _layer_flops(mod, shape):
    """(forward FLOPs, output shape) of one layer for an input of ``shape``; FLOPs are 2 per
    multiply-add of the layer's matmul/convolution (bias adds and activations are not counted).
    Returns (None, None) for a layer whose output shape is unknown here."""
    name = type(mod).__name__
    if name == "Linear":
        rows = int(np.prod(shape[:-1], dtype=np.int64))
        return 2 * rows * mod.in_features * mod.out_features, tuple(shape[:-1]) + (mod.out_features,)
    if name in ("Conv1d", "Conv2d", "Conv3d"):
        nd = int(name[-2])
        pad = mod.padding
        if isinstance(pad, str):   # "same" keeps the size, "valid" pads nothing
            pad = tuple((d * (k - 1)) // 2 for k, d in zip(mod.kernel_size, mod.dilation)) if pad == "same" else (0,) * nd
        spatial = tuple(_conv_out(shape[-nd + i], mod.kernel_size[i], mod.stride[i], pad[i], mod.dilation[i])
                        for i in range(nd))
        batch = int(np.prod(shape[:-nd - 1], dtype=np.int64))
        macs = batch * mod.out_channels * int(np.prod(spatial)) * (mod.in_channels // mod.groups) \
            * int(np.prod(mod.kernel_size))
        return 2 * macs, tuple(shape[:-nd - 1]) + (mod.out_channels,) + spatial
    if name in ("ReLU", "Tanh", "Sigmoid", "GELU", "SiLU", "ELU", "LeakyReLU", "Softplus", "Sin", "Dropout",
                "LayerNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "Identity"):
        return 0, tuple(shape)
    return None, None


def count_flops(model, input_shape):
    """Forward FLOPs of ``model``'s matmul and convolution layers for one batch of ``input_shape``.

    Rule: a multiply-add is 2 FLOPs. ``Linear(in, out)`` on input ``(..., in)``: ``2·rows·in·out``
    with ``rows`` the product of the leading dims. ``ConvNd``: ``2·N·C_out·prod(out_spatial)·
    (C_in/groups)·prod(kernel)``. Biases, activations and normalisations are not counted. A
    ``Sequential`` (or a single layer) is walked in order so that each layer sees its true input
    shape; in any other module the Linear layers are counted with ``rows`` = the product of
    ``input_shape[:-1]`` (right for MLP-like models) and a convolution raises, since its input size
    cannot be known without running the model (pass ``flops_per_batch`` to FlopsUtilization)."""
    shape = tuple(int(s) for s in input_shape)
    flops, out = _layer_flops(model, shape)
    if flops is not None:
        return flops
    if type(model).__name__ == "Sequential":
        total = 0
        for child in model.children():
            if type(child).__name__ == "Sequential":
                raise ValueError("count_flops: nested Sequential; pass flops_per_batch explicitly")
            f, shape = _layer_flops(child, shape)
            if f is None:
                raise ValueError(f"count_flops: cannot follow the shape through {type(child).__name__}; "
                                 "pass flops_per_batch explicitly")
            total += f
        return total
    total = 0
    rows = int(np.prod(shape[:-1], dtype=np.int64))
    for _, m in model.named_modules():
        name = type(m).__name__
        if name == "Linear":
            total += 2 * rows * m.in_features * m.out_features
        elif name.startswith("Conv"):
            raise ValueError(f"count_flops: a {name} inside a {type(model).__name__} needs its input shape; "
                             "use a Sequential or pass flops_per_batch")
    return total


_PEAK = {}


def measure_peak_flops(n=2048, dtype=None, device=None, repeats=3):
    """The machine's achievable matmul rate (FLOP/s): the best of ``repeats`` timed ``n×n @ n×n``
    spire matmuls (2·n³ FLOPs each) after a warm-up. Cached per (n, dtype, device)."""
    dtype = dtype if dtype is not None else _C.float32
    key = (n, str(dtype), str(device))
    if key not in _PEAK:
        from .._factories import randn
        a, b = randn(n, n, dtype=dtype), randn(n, n, dtype=dtype)
        if device is not None:
            a, b = a.to(device), b.to(device)

        def sync(c):   # reading the result back waits for an asynchronous device
            return np.asarray(c.cpu() if device is not None else c)

        with no_grad():
            sync(a @ b)   # warm-up
            best = math.inf
            for _ in range(repeats):
                t0 = time.perf_counter()
                sync(a @ b)
                best = min(best, time.perf_counter() - t0)
        _PEAK[key] = 2.0 * n ** 3 / best
    return _PEAK[key]


class FlopsUtilization(Callback):
    """Logs ``flops`` (achieved FLOP/s of the training step) and ``flops_utilization`` (that over
    the machine's peak) each epoch. Per batch the training step does 3× the forward FLOPs
    (forward, plus two matmuls of the same size for the gradients of inputs and weights); forward
    FLOPs come from :func:`count_flops` for the shape of each batch's first input, or from
    ``flops_per_batch`` (forward FLOPs of a full batch; scaled by the batch's size). ``peak`` is
    measured once per process with :func:`measure_peak_flops` unless given."""

    def __init__(self, flops_per_batch=None, peak=None, batch_size=None):
        self.flops_per_batch, self.peak, self.batch_size = flops_per_batch, peak, batch_size
        self._cache = {}

    def on_epoch_begin(self, epoch, logs):
        self.total = 0

    def on_batch_end(self, batch, logs):
        x = logs["inputs"][0]
        shape = tuple(x.shape)
        if self.flops_per_batch is not None:
            full = self.batch_size or shape[0]
            self.total += 3 * self.flops_per_batch * shape[0] / full
            return
        if shape not in self._cache:
            self._cache[shape] = count_flops(self.model, shape)
        self.total += 3 * self._cache[shape]

    def on_epoch_end(self, epoch, logs):
        if self.peak is None:
            self.peak = measure_peak_flops()
        rate = self.total / logs["train_time"] if logs["train_time"] > 0 else 0.0
        logs["flops"] = rate
        logs["flops_utilization"] = rate / self.peak

