"""Reverse and forward mode on tensors: backward, .grad, autograd.grad, grad modes, anomalies."""
import numpy as np
import pytest

import spire


def test_backward_accumulates_into_leaves():
    x = spire.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert x.is_leaf and x.requires_grad and x.grad is None and x.grad_fn is None
    y = (x * x).sum()
    assert not y.is_leaf and y.grad_fn is not None and y.requires_grad
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
    (3.0 * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 7.0, 9.0])
    x.grad = None
    assert x.grad is None


def test_backward_with_gradient_argument():
    x = spire.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3.0
    y.backward(spire.tensor([1.0, 10.0]))
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 30.0])


def test_retain_graph():
    x = spire.tensor(2.0, requires_grad=True)
    y = x * x * x
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == pytest.approx(24.0)


def test_autograd_grad_higher_order():
    x = spire.tensor(0.7, dtype=spire.float64, requires_grad=True)
    y = spire.sin(x) * x
    (g,) = spire.autograd.grad(y, x, create_graph=True)
    assert g.item() == pytest.approx(np.cos(0.7) * 0.7 + np.sin(0.7))
    (g2,) = spire.autograd.grad(g, x)
    assert g2.item() == pytest.approx(-np.sin(0.7) * 0.7 + 2 * np.cos(0.7))


def test_autograd_grad_multiple_and_unused():
    a = spire.tensor([1.0, 2.0], requires_grad=True)
    b = spire.tensor([3.0, 4.0], requires_grad=True)
    c = spire.tensor([5.0], requires_grad=True)
    y = (a * b).sum()
    ga, gb, gc = spire.autograd.grad(y, [a, b, c], allow_unused=True)
    np.testing.assert_allclose(ga.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(gb.numpy(), [1.0, 2.0])
    assert gc is None
    y = (a * b).sum()
    with pytest.raises(spire.SpireError):
        spire.autograd.grad(y, [a, c])


def test_no_grad_and_enable_grad():
    x = spire.ones(2, requires_grad=True)
    with spire.no_grad():
        y = x * 2
        assert not spire.is_grad_enabled()
        with spire.enable_grad():
            z = x * 2
    assert spire.is_grad_enabled()
    assert not y.requires_grad and z.requires_grad

    @spire.no_grad()
    def f(t):
        return t * 3

    assert not f(x).requires_grad
    with spire.set_grad_enabled(False):
        assert not (x * 1).requires_grad
    assert spire.is_grad_enabled()


def test_detach_and_requires_grad_rules():
    x = spire.ones(2, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf
    with pytest.raises(spire.AutodiffError):
        y.requires_grad = False
    with pytest.raises(spire.DTypeError):
        spire.tensor([1, 2]).requires_grad = True
    t = spire.zeros(2).requires_grad_()
    assert t.requires_grad


def test_detect_anomaly_names_the_op():
    x = spire.tensor([-1.0, 1.0])
    with spire.detect_anomaly():
        assert spire.is_anomaly_enabled()
        with pytest.raises(spire.SpireError, match="log"):
            spire.log(x)
    assert not spire.is_anomaly_enabled()
    spire.log(x)  # outside: no check


def test_forward_ad():
    import spire.forward_ad as fwAD

    x = spire.tensor([0.3, 0.5], dtype=spire.float64)
    v = spire.tensor([1.0, 2.0], dtype=spire.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        y = spire.exp(d) * 2.0
        _, t = fwAD.unpack_dual(y)
    np.testing.assert_allclose(t.numpy(), 2.0 * np.exp([0.3, 0.5]) * [1.0, 2.0])


def test_grad_through_numpy_interop_ops():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    w = spire.tensor(a, requires_grad=True)
    loss = (w @ w).sum()
    loss.backward()
    ones = np.ones((2, 2))
    np.testing.assert_allclose(w.grad.numpy(), ones @ a.T + a.T @ ones)


def test_post_accumulate_grad_hooks_run_after_accumulation_in_backward_order():
    w1 = spire.ones(3, 3, dtype=spire.float64).requires_grad_()
    w2 = spire.full((3, 1), 2.0, dtype=spire.float64).requires_grad_()
    x = spire.ones(4, 3, dtype=spire.float64)
    seen = []
    h1 = w1.register_post_accumulate_grad_hook(lambda t: seen.append(("w1", float(t.grad.sum()))))
    with w2.register_post_accumulate_grad_hook(lambda t: seen.append(("w2", float(t.grad.sum())))):
        ((x @ w1) @ w2).sum().backward()
    assert seen == [("w2", 36.0), ("w1", 72.0)]   # the last layer's gradient is ready first
    ((x @ w1) @ w2).sum().backward()               # w2's hook was removed by the with block
    assert seen[2:] == [("w1", 144.0)]
    h1.remove()
    ((x @ w1) @ w2).sum().backward()
    assert len(seen) == 3
    with pytest.raises(ValueError, match="leaf tensor that requires grad"):
        spire.ones(2).register_post_accumulate_grad_hook(print)
