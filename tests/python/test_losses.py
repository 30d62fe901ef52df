"""spire.nn losses against torch.nn.functional (values and gradients, float64) where PyTorch is
installed, the FNO relative L2 loss against its definition, and the errors."""

import numpy as np
import pytest
import torch

import spire
from spire.nn import losses as L

TF = torch.nn.functional

rng = np.random.default_rng(0)
X = rng.normal(size=(4, 5))
Y = rng.normal(size=(4, 5))


def both(a, requires_grad=False):
    return (spire.tensor(a, dtype=spire.float64, requires_grad=requires_grad),
            torch.tensor(a, dtype=torch.float64, requires_grad=requires_grad))


def check(spire_fn, torch_fn, x, *args, rtol=1e-13):
    """Same value and same gradient with respect to the first argument."""
    xs, xt = both(x, requires_grad=True)
    ls, lt = spire_fn(xs, *[a[0] for a in args]), torch_fn(xt, *[a[1] for a in args])
    np.testing.assert_allclose(np.asarray(ls), lt.detach().numpy(), rtol=rtol, atol=1e-15)
    ls.sum().backward()
    lt.sum().backward()
    np.testing.assert_allclose(np.asarray(xs.grad), xt.grad.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses_match_pytorch(reduction):
    y = both(Y)
    check(lambda a, b: L.mse_loss(a, b, reduction), lambda a, b: TF.mse_loss(a, b, reduction=reduction), X, y)
    check(lambda a, b: L.l1_loss(a, b, reduction), lambda a, b: TF.l1_loss(a, b, reduction=reduction), X, y)
    for delta in (1.0, 0.3):
        check(lambda a, b: L.huber_loss(a, b, reduction, delta),
              lambda a, b: TF.huber_loss(a, b, reduction=reduction, delta=delta), X, y)


def test_relative_l2_is_the_fno_loss():
    x, y = rng.normal(size=(3, 8, 8, 2)), rng.normal(size=(3, 8, 8, 2))
    per = np.linalg.norm((x - y).reshape(3, -1), axis=1) / np.linalg.norm(y.reshape(3, -1), axis=1)
    xs, ys = both(x)[0], both(y)[0]
    assert float(L.relative_l2_loss(xs, ys)) == pytest.approx(per.mean(), rel=1e-14)
    assert float(L.RelativeL2Loss(reduction="sum")(xs, ys)) == pytest.approx(per.sum(), rel=1e-14)
    np.testing.assert_allclose(np.asarray(L.relative_l2_loss(xs, ys, "none")), per, rtol=1e-14)
    # The gradient against torch's norm.
    check(lambda a, b: L.relative_l2_loss(a, b),
          lambda a, b: (torch.linalg.vector_norm((a - b).reshape(3, -1), dim=1)
                        / torch.linalg.vector_norm(b.reshape(3, -1), dim=1)).mean(), x, both(y))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.15])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_with_indices_matches_pytorch(reduction, label_smoothing, weighted):
    logits = rng.normal(size=(6, 4))
    target = np.array([0, 3, -100, 1, 2, 3])
    w = both(np.array([0.5, 1.0, 2.0, 1.5])) if weighted else (None, None)
    kw = dict(reduction=reduction, label_smoothing=label_smoothing)
    check(lambda a, t: L.cross_entropy(a, t, weight=w[0], **kw),
          lambda a, t: TF.cross_entropy(a, t, weight=w[1], **kw),
          logits, (spire.tensor(target), torch.tensor(target)))


def test_cross_entropy_spatial_and_probabilities_match_pytorch():
    logits = rng.normal(size=(2, 3, 4, 5))
    target = rng.integers(0, 3, size=(2, 4, 5))
    target[0, 0, 0] = 7  # ignored below
    check(lambda a, t: L.cross_entropy(a, t, ignore_index=7, label_smoothing=0.1),
          lambda a, t: TF.cross_entropy(a, t, ignore_index=7, label_smoothing=0.1),
          logits, (spire.tensor(target), torch.tensor(target)))
    probs = rng.dirichlet(np.ones(3), size=(2, 4, 5)).transpose(0, 3, 1, 2).copy()
    w = both(np.array([0.2, 1.0, 3.0]))
    for reduction in ("mean", "sum", "none"):
        check(lambda a, q: L.CrossEntropyLoss(weight=w[0], reduction=reduction, label_smoothing=0.2)(a, q),
              lambda a, q: torch.nn.CrossEntropyLoss(weight=w[1], reduction=reduction, label_smoothing=0.2)(a, q),
              logits, both(probs))
    # Unbatched: logits [C] with a 0-d target.
    check(lambda a, t: L.cross_entropy(a, t), lambda a, t: TF.cross_entropy(a, t), rng.normal(size=4),
          (spire.tensor(np.int64(2)), torch.tensor(2)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_matches_pytorch(reduction):
    logits = np.array([[-3.0, -0.5, 0.0], [0.7, 4.0, 30.0]])
    y = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.2]])
    w, pw = both(np.array([[1.0, 2.0, 0.5], [0.3, 1.0, 1.0]])), both(np.array([2.0, 0.5, 1.0]))
    check(lambda a, t: L.binary_cross_entropy_with_logits(a, t, w[0], reduction=reduction, pos_weight=pw[0]),
          lambda a, t: TF.binary_cross_entropy_with_logits(a, t, w[1], reduction=reduction, pos_weight=pw[1]),
          logits, both(y))
    check(lambda a, t: L.BCEWithLogitsLoss(reduction=reduction)(a, t),
          lambda a, t: torch.nn.BCEWithLogitsLoss(reduction=reduction)(a, t), logits, both(y))
    probs = 1 / (1 + np.exp(-logits[:, :2]))
    w2 = both(np.array([[1.0, 2.0], [0.3, 1.0]]))
    check(lambda a, t: L.BCELoss(weight=w2[0], reduction=reduction)(a, t),
          lambda a, t: torch.nn.BCELoss(weight=w2[1], reduction=reduction)(a, t), probs, both(y[:, :2]))
    # Extreme logits stay finite; a probability of exactly 0 costs 100 (PyTorch's clamp).
    big = L.binary_cross_entropy_with_logits(spire.tensor([800.0, -800.0]), spire.tensor([0.0, 1.0]), reduction="none")
    np.testing.assert_array_equal(np.asarray(big), [800.0, 800.0])
    assert float(L.binary_cross_entropy(spire.tensor([0.0]), spire.tensor([1.0]))) == 100.0


def test_classes_are_callables_with_pytorch_defaults():
    assert repr(L.MSELoss()) == "MSELoss(reduction='mean')"
    assert L.HuberLoss().delta == 1.0 and L.CrossEntropyLoss().ignore_index == -100
    assert spire.nn.CrossEntropyLoss is L.CrossEntropyLoss
    x = spire.tensor(X, dtype=spire.float64)
    assert float(L.L1Loss(reduction="sum")(x, x)) == 0.0


def test_bad_inputs_are_named():
    x = spire.tensor(X, dtype=spire.float64)
    with pytest.raises(Exception, match="shape"):
        L.mse_loss(x, spire.tensor(Y[:2], dtype=spire.float64))
    with pytest.raises(ValueError, match="reduction"):
        L.MSELoss(reduction="avg")
    with pytest.raises(Exception, match="reduction"):
        L.l1_loss(x, x, "avg")
    with pytest.raises(Exception, match="shape"):
        L.cross_entropy(x, spire.tensor(np.array([0, 1])))
    with pytest.raises(ValueError, match="deprecated"):
        L.cross_entropy(x, spire.tensor(np.array([0, 1, 2, 3])), size_average=True)
