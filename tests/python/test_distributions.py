"""spire.distributions against torch.distributions: values (log_prob, entropy, probs, moments) on
random inputs with batch shapes and broadcasting, gradients against torch's autograd, the second
derivative of Normal.log_prob, sampling statistics within 5 sigma, determinism per seed, the
reparameterisation gradients, vmap, and the errors."""

import numpy as np
import pytest
import torch
import torch.distributions as TD

import spire
from spire import distributions as D

rng = np.random.default_rng(0)
DTYPES = [(spire.float64, torch.float64, 1e-12), (spire.float32, torch.float32, 1e-6)]


def both(a, dt, tt, requires_grad=False):
    return (spire.tensor(a, dtype=dt, requires_grad=requires_grad),
            torch.tensor(a, dtype=tt, requires_grad=requires_grad))


def close(s, t, tol):
    np.testing.assert_allclose(np.asarray(s), t.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dt,tt,tol", DTYPES)
@pytest.mark.parametrize("from_probs", [False, True])
def test_categorical_matches_torch(dt, tt, tol, from_probs):
    raw = rng.uniform(0.05, 2.0, size=(2, 3, 5)) if from_probs else rng.normal(size=(2, 3, 5)) * 3
    ps, pt = both(raw, dt, tt, requires_grad=True)
    cs = D.Categorical(probs=ps) if from_probs else D.Categorical(logits=ps)
    ct = TD.Categorical(probs=pt) if from_probs else TD.Categorical(logits=pt)
    assert cs.batch_shape == tuple(ct.batch_shape) == (2, 3)
    assert cs.event_shape == () and cs.num_categories == 5
    close(cs.probs, ct.probs, tol)
    close(cs.logits, ct.logits, tol)
    np.testing.assert_array_equal(np.asarray(cs.mode), ct.mode.numpy())
    # value broadcasts against the batch shape: (4, 1, 3) with (2, 3) gives (4, 2, 3).
    v = rng.integers(0, 5, size=(4, 1, 3))
    ls, lt = cs.log_prob(spire.tensor(v)), ct.log_prob(torch.tensor(v))
    assert ls.shape == tuple(lt.shape) == (4, 2, 3)
    close(ls, lt, tol)
    close(cs.entropy(), ct.entropy(), tol)
    # Gradients of log_prob and entropy against torch's autograd.
    w = rng.normal(size=(4, 2, 3))
    gs = spire.autograd.grad((ls * spire.tensor(w, dtype=dt)).sum() + cs.entropy().sum(), ps)[0]
    gt = torch.autograd.grad((lt * torch.tensor(w, dtype=tt)).sum() + ct.entropy().sum(), pt)[0]
    close(gs, gt, tol)


def test_categorical_zero_probability():
    p = [0.5, 0.0, 0.5]
    cs, ct = D.Categorical(probs=spire.tensor(p)), TD.Categorical(probs=torch.tensor(p))
    close(cs.entropy(), ct.entropy(), 1e-6)
    close(cs.log_prob(spire.tensor([0, 1, 2])), ct.log_prob(torch.tensor([0, 1, 2])), 1e-6)
    assert 1 not in np.asarray(cs.sample((10000,), generator=spire.random.Generator(1)))
    z = [0.0, -float("inf"), 1.0]
    cs, ct = D.Categorical(logits=spire.tensor(z)), TD.Categorical(logits=torch.tensor(z))
    close(cs.entropy(), ct.entropy(), 1e-6)


def test_categorical_sampling():
    p = np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]])
    c = D.Categorical(probs=spire.tensor(p, dtype=spire.float64))
    n = 100_000
    s = c.sample((n,), generator=spire.random.Generator(11))
    assert s.shape == (n, 2) and s.dtype == spire.int64
    s = np.asarray(s)
    for b in range(2):
        freq = np.bincount(s[:, b], minlength=4) / n
        assert np.all(np.abs(freq - p[b]) <= 5 * np.sqrt(p[b] * (1 - p[b]) / n))
    a = c.sample((3, 5), generator=spire.random.Generator(4, 2))
    b = c.sample((3, 5), generator=spire.random.Generator(4, 2))
    assert a.shape == (3, 5, 2)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    spire.manual_seed(9)
    a = np.asarray(c.sample(7))
    spire.manual_seed(9)
    np.testing.assert_array_equal(a, np.asarray(c.sample(7)))


def test_categorical_errors():
    c = D.Categorical(logits=spire.tensor([0.0, 1.0, 2.0]))
    for bad in (3, -1):
        with pytest.raises(ValueError, match=r"\[0, 3\)"):
            c.log_prob(spire.tensor(bad))
    with pytest.raises(ValueError, match="whole numbers"):
        c.log_prob(spire.tensor(0.5))
    with pytest.raises(ValueError, match="exactly one"):
        D.Categorical()
    with pytest.raises(ValueError, match="exactly one"):
        D.Categorical(probs=spire.tensor([0.5, 0.5]), logits=spire.tensor([0.0, 0.0]))
    with pytest.raises(ValueError, match="non-negative"):
        D.Categorical(probs=spire.tensor([0.5, -0.5]))


@pytest.mark.parametrize("dt,tt,tol", DTYPES)
def test_normal_matches_torch(dt, tt, tol):
    loc, scale = rng.normal(size=(3, 1)), rng.uniform(0.3, 2.0, size=(4,))
    (ls, lt), (ss, st) = both(loc, dt, tt, True), both(scale, dt, tt, True)
    ds, dtorch = D.Normal(ls, ss), TD.Normal(lt, st)
    assert ds.batch_shape == tuple(dtorch.batch_shape) == (3, 4)
    assert ds.event_shape == ()
    for name in ("mean", "mode", "stddev", "variance"):
        close(getattr(ds, name), getattr(dtorch, name), tol)
    x = rng.normal(size=(2, 1, 4)) * 2
    xs, xt = both(x, dt, tt)
    ps, pt = ds.log_prob(xs), dtorch.log_prob(xt)
    assert ps.shape == tuple(pt.shape) == (2, 3, 4)
    close(ps, pt, tol)
    close(ds.entropy(), dtorch.entropy(), tol)
    close(ds.cdf(xs), dtorch.cdf(xt), tol)
    gs = spire.autograd.grad(ps.sum() + ds.entropy().sum(), [ls, ss])
    gt = torch.autograd.grad(pt.sum() + dtorch.entropy().sum(), [lt, st])
    for a, b in zip(gs, gt):
        close(a, b, tol)


def test_normal_second_derivative_wrt_loc():
    loc = spire.tensor([0.3, -1.0], dtype=spire.float64, requires_grad=True)
    scale = spire.tensor([0.5, 2.0], dtype=spire.float64)
    lp = D.Normal(loc, scale).log_prob(spire.tensor([1.0, 1.0], dtype=spire.float64)).sum()
    g = spire.autograd.grad(lp, loc, create_graph=True)[0]
    h = spire.autograd.grad(g.sum(), loc)[0]
    np.testing.assert_allclose(np.asarray(h), -1 / np.array([0.5, 2.0]) ** 2, rtol=1e-14)


def test_normal_sampling_and_rsample_gradients():
    loc = spire.tensor(1.5, dtype=spire.float64, requires_grad=True)
    scale = spire.tensor(0.5, dtype=spire.float64, requires_grad=True)
    d = D.Normal(loc, scale)
    n = 100_000
    x = d.rsample((n,), generator=spire.random.Generator(5))
    s = d.sample((n,), generator=spire.random.Generator(5))
    assert not s.requires_grad and x.requires_grad
    np.testing.assert_array_equal(np.asarray(s), np.asarray(x.detach()))
    xv = np.asarray(s)
    assert abs(xv.mean() - 1.5) <= 5 * 0.5 / np.sqrt(n)
    assert abs(xv.var() - 0.25) <= 5 * 0.25 * np.sqrt(2 / n)
    # x = loc + scale * eps, elementwise: d x_i / d loc = 1 and d x_i / d scale = eps_i.
    eps = (xv - 1.5) / 0.5
    w = rng.normal(size=n)
    gl, gs = spire.autograd.grad((x * spire.tensor(w, dtype=spire.float64)).sum(), [loc, scale])
    assert float(gl) == pytest.approx(w.sum(), rel=1e-10)
    assert float(gs) == pytest.approx((w * eps).sum(), rel=1e-10)
    a = D.Normal(0.0, 1.0).sample((4,), generator=spire.random.Generator(8))
    assert a.dtype == spire.float32
    np.testing.assert_array_equal(np.asarray(a), np.asarray(D.Normal(0, 1).sample(4, generator=spire.random.Generator(8))))


def test_normal_errors_and_number_arguments():
    with pytest.raises(ValueError, match="scale must be > 0"):
        D.Normal(0.0, spire.tensor([1.0, 0.0]))
    with pytest.raises(ValueError, match="scale must be > 0"):
        D.Normal(0.0, -1.0)
    d = D.Normal(spire.tensor([0.0, 1.0], dtype=spire.float64), 2)
    assert d.scale.dtype == spire.float64
    close(d.log_prob(0.5), TD.Normal(torch.tensor([0.0, 1.0], dtype=torch.float64), 2.0).log_prob(
        torch.tensor(0.5, dtype=torch.float64)), 1e-12)


def test_log_prob_under_vmap():
    z = rng.normal(size=(3, 4))
    v = np.array([0, 3, 1])

    def f(logits, value):
        return D.Categorical(logits=logits).log_prob(value)

    out = spire.vmap(f)(spire.tensor(z, dtype=spire.float64), spire.tensor(v))
    ref = TD.Categorical(logits=torch.tensor(z)).log_prob(torch.tensor(v))
    close(out, ref, 1e-12)
