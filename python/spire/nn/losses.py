"""Loss functions, in the manner of ``torch.nn.functional`` and ``torch.nn``.

Functions: ``mse_loss``, ``l1_loss``, ``huber_loss``, ``relative_l2_loss`` (the neural-operator
loss), ``cross_entropy``, ``binary_cross_entropy`` and ``binary_cross_entropy_with_logits``, with
PyTorch's arguments and formulas. Each reduces with ``reduction='mean'`` (the default), ``'sum'``
or ``'none'``. The classes (``MSELoss``, ``CrossEntropyLoss``, ...) hold the options and are called
like the functions::

    loss_fn = spire.nn.CrossEntropyLoss(label_smoothing=0.1)
    loss = loss_fn(model(x), labels)        # logits [N, C], labels int64 [N]

The losses are compositions of differentiable engine ops (engine/nn/functional/loss.h), so they
work under every transform (``grad``, ``vmap``, ``jvp``).
"""

from .._C import _losses

__all__ = [
    "MSELoss", "L1Loss", "HuberLoss", "RelativeL2Loss", "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss",
]


def mse_loss(input, target, reduction="mean"):
    """Mean squared error: ``(input - target) ** 2``, reduced. Shapes must match."""
    return _losses.mse_loss(input, target, reduction)


def l1_loss(input, target, reduction="mean"):
    """Mean absolute error: ``|input - target|``, reduced. Shapes must match."""
    return _losses.l1_loss(input, target, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """Huber loss: ``d**2 / 2`` where ``|d| < delta``, else ``delta * (|d| - delta / 2)``."""
    return _losses.huber_loss(input, target, reduction, delta)


def relative_l2_loss(input, target, reduction="mean", p=2.0):
    """The neural-operator loss (``LpLoss.rel`` of the FNO code): per sample (first axis),
    ``||input - target||_p / ||target||_p`` over the other axes; ``'mean'`` averages over the batch,
    ``'sum'`` adds, ``'none'`` returns the per-sample ratios."""
    return _losses.relative_l2_loss(input, target, reduction, p)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross-entropy of logits ``input`` ([N, C, d1, ...] or [C]) against class indices (an integer
    tensor [N, d1, ...]) or class probabilities (input's shape), as ``torch.nn.functional.cross_entropy``:
    per-class ``weight``, targets equal to ``ignore_index`` skipped, ``label_smoothing`` mixing in the
    uniform distribution. The deprecated ``size_average`` and ``reduce`` must be left as None."""
    _no_legacy(size_average, reduce, "cross_entropy")
    return _losses.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """``-weight * (target * log(input) + (1 - target) * log(1 - input))`` for probabilities ``input``;
    each log is clamped at -100, as in PyTorch."""
    _no_legacy(size_average, reduce, "binary_cross_entropy")
    return _losses.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross-entropy of logits, stable for every logit: ``weight * ((1 - target) * input +
    (1 + (pos_weight - 1) * target) * softplus(-input))``."""
    _no_legacy(size_average, reduce, "binary_cross_entropy_with_logits")
    return _losses.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)


def _no_legacy(size_average, reduce, name):
    if size_average is not None or reduce is not None:
        raise ValueError(f"{name}: size_average and reduce are deprecated in PyTorch and not supported; "
                         "use reduction='mean', 'sum' or 'none'")


class _Loss:
    """A loss function with its options bound; call it as ``loss(input, target)``."""

    def __init__(self, reduction="mean"):
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"{type(self).__name__}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self.reduction = reduction

    def __call__(self, input, target):
        return self.forward(input, target)

    def _extra(self):
        return ""

    def __repr__(self):
        extra = self._extra()
        return f"{type(self).__name__}(reduction={self.reduction!r}{', ' + extra if extra else ''})"


class MSELoss(_Loss):
    """Mean squared error; see ``mse_loss``."""

    def forward(self, input, target):
        return mse_loss(input, target, self.reduction)


class L1Loss(_Loss):
    """Mean absolute error; see ``l1_loss``."""

    def forward(self, input, target):
        return l1_loss(input, target, self.reduction)


class HuberLoss(_Loss):
    """Huber loss; see ``huber_loss``."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input, target):
        return huber_loss(input, target, self.reduction, self.delta)

    def _extra(self):
        return f"delta={self.delta}"


class RelativeL2Loss(_Loss):
    """The neural-operator relative L2 (Lp) loss; see ``relative_l2_loss``."""

    def __init__(self, reduction="mean", p=2.0):
        super().__init__(reduction)
        self.p = p

    def forward(self, input, target):
        return relative_l2_loss(input, target, self.reduction, self.p)

    def _extra(self):
        return f"p={self.p}"


class CrossEntropyLoss(_Loss):
    """Cross-entropy of logits; see ``cross_entropy``."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        _no_legacy(size_average, reduce, "CrossEntropyLoss")
        super().__init__(reduction)
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, label_smoothing

    def forward(self, input, target):
        return cross_entropy(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction,
                             label_smoothing=self.label_smoothing)

    def _extra(self):
        return f"ignore_index={self.ignore_index}, label_smoothing={self.label_smoothing}"


class BCELoss(_Loss):
    """Binary cross-entropy of probabilities; see ``binary_cross_entropy``."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        _no_legacy(size_average, reduce, "BCELoss")
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, target):
        return binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of logits; see ``binary_cross_entropy_with_logits``."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        _no_legacy(size_average, reduce, "BCEWithLogitsLoss")
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, input, target):
        return binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                pos_weight=self.pos_weight)
