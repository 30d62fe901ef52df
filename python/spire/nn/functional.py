"""Functional forms of the layers, as ``torch.nn.functional``.

Activations (``relu``, ``gelu`` with ``approximate="none"|"tanh"``, ``silu``, ``softplus`` with
``beta`` and ``threshold``, ``leaky_relu``, ``elu``, ``sigmoid``, ``tanh``, ``sin``, ``softmax``,
``log_softmax``), ``linear``, ``conv1d/2d/3d`` (numeric padding or ``"same"``/``"valid"``),
``conv_transpose1d/2d/3d``, ``spectral_conv`` (the
FNO layer), ``layer_norm``, ``batch_norm``, ``group_norm``, ``embedding``, ``dropout``,
``scaled_dot_product_attention`` and ``multi_head_attention``. Every one is composed of engine ops,
so reverse and forward mode, Taylor mode and vmap all see through it.
"""

from .._C import _nn as _nn_C

_F = _nn_C._functional

relu = _F.relu
gelu = _F.gelu
silu = _F.silu
softplus = _F.softplus
leaky_relu = _F.leaky_relu
elu = _F.elu
sigmoid = _F.sigmoid
tanh = _F.tanh
sin = _F.sin
softmax = _F.softmax
log_softmax = _F.log_softmax
linear = _F.linear
conv1d = _F.conv1d
conv2d = _F.conv2d
conv3d = _F.conv3d
conv_transpose1d = _F.conv_transpose1d
conv_transpose2d = _F.conv_transpose2d
conv_transpose3d = _F.conv_transpose3d
spectral_conv = _F.spectral_conv
layer_norm = _F.layer_norm
batch_norm = _F.batch_norm
group_norm = _F.group_norm
embedding = _F.embedding
dropout = _F.dropout
scaled_dot_product_attention = _F.scaled_dot_product_attention
multi_head_attention = _F.multi_head_attention

# Pooling and resampling (python/src/nn_pooling.cpp): max_pool1d/2d/3d (and *_with_indices),
# avg_pool1d/2d/3d, adaptive_avg_pool1d/2d/3d, adaptive_max_pool1d/2d/3d (and *_with_indices),
# max_unpool1d/2d/3d, interpolate.
for _d in ("1d", "2d", "3d"):
    for _n in ("max_pool", "avg_pool", "adaptive_avg_pool", "adaptive_max_pool", "max_unpool"):
        globals()[_n + _d] = getattr(_F, _n + _d)
    for _n in ("max_pool", "adaptive_max_pool"):
        globals()[_n + _d + "_with_indices"] = getattr(_F, _n + _d + "_with_indices")
del _d, _n
interpolate = _F.interpolate

__all__ = [n for n in dir(_F) if not n.startswith("_")]

# Losses (python/spire/nn/losses.py), as torch.nn.functional has them.
from .losses import (binary_cross_entropy, binary_cross_entropy_with_logits,  # noqa: E402,F401
                     cross_entropy, huber_loss, l1_loss, mse_loss, relative_l2_loss)
