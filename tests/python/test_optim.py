"""spire.optim: updates against PyTorch's formulas written out in NumPy, convergence of L-BFGS (to
1e-8) and of the first-order methods, the Python calling conventions (closures, params iterables),
and the errors. Where PyTorch is installed, whole trajectories are also compared with it."""

import math

import numpy as np
import pytest
import torch

import spire
from spire import optim

A = np.array([1.0, 3.0, 0.5])
C = np.array([0.3, -1.0, 2.0])
START = np.array([0.8, -1.5, 0.4])


def loss_of(p):
    """sum(a p^2 / 2 + c p + p^4 / 12): a gradient easy to write by hand, not linear in p."""
    a, c = spire.tensor(A, dtype=spire.float64), spire.tensor(C, dtype=spire.float64)
    return (0.5 * a * p * p + c * p + p ** 4 / 12).sum()


def grad_of(p):
    return A * p + C + p ** 3 / 3


def param(values, dtype=spire.float64):
    return spire.tensor(np.asarray(values, dtype=float), dtype=dtype, requires_grad=True)


def train(opt, p, steps):
    for _ in range(steps):
        opt.zero_grad()
        loss_of(p).backward()
        opt.step()
    return np.asarray(p)


# ---- reference updates (torch.optim's _single_tensor_sgd and _single_tensor_adam) ----------------

def reference_sgd(p, steps, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                  maximize=False):
    p, buf = p.copy(), None
    for _ in range(steps):
        g = grad_of(p) * (-1 if maximize else 1) + weight_decay * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
    return p


def reference_adam(p, steps, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
                   maximize=False, decoupled=False):
    p = p.copy()
    m, v, vmax = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    b1, b2 = betas
    for t in range(1, steps + 1):
        g = grad_of(p) * (-1 if maximize else 1)
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        denom = np.sqrt(vmax if amsgrad else v) / math.sqrt(1 - b2 ** t) + eps
        p = p - lr / (1 - b1 ** t) * m / denom
    return p


@pytest.mark.parametrize("kw", [
    dict(lr=0.1),
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.1),
    dict(lr=0.05, momentum=0.9, weight_decay=0.01, nesterov=True),
    dict(lr=0.01, momentum=0.5, maximize=True),
])
def test_sgd_matches_reference(kw):
    p = param(START)
    got = train(optim.SGD([p], **kw), p, 7)
    np.testing.assert_allclose(got, reference_sgd(START, 7, **kw), rtol=0, atol=1e-14)


@pytest.mark.parametrize("kw", [
    dict(lr=0.1),
    dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1),
    dict(lr=0.1, amsgrad=True),
    dict(lr=0.02, maximize=True),
])
def test_adam_matches_reference(kw):
    p = param(START)
    got = train(optim.Adam([p], **kw), p, 9)
    np.testing.assert_allclose(got, reference_adam(START, 9, **kw), rtol=0, atol=1e-14)


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.1, weight_decay=0.3), dict(lr=0.1, weight_decay=0.2, amsgrad=True)])
def test_adamw_matches_reference(kw):
    p = param(START)
    got = train(optim.AdamW([p], **kw), p, 9)
    ref = reference_adam(START, 9, **{"weight_decay": 1e-2, **kw}, decoupled=True)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-14)


def test_lbfgs_first_iterations_match_hand_written_steps():
    # x1 = x0 - t g0 with t = min(1, 1/|g0|_1) lr; then the two-loop direction from one pair (s, y).
    lr = 0.7
    g0 = grad_of(START)
    x1 = START - min(1.0, 1.0 / np.abs(g0).sum()) * lr * g0
    s, g1 = x1 - START, grad_of(x1)
    y = g1 - g0
    rho, gamma = 1 / (y @ s), (y @ s) / (y @ y)
    q = -g1
    alpha = rho * (s @ q)
    r = gamma * (q - alpha * y)
    beta = rho * (y @ r)
    x2 = x1 + lr * (r + (alpha - beta) * s)

    p = param(START)
    opt = optim.LBFGS([p], lr=lr, max_iter=1)

    def closure():
        opt.zero_grad()
        loss = loss_of(p)
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(np.asarray(p), x1, rtol=0, atol=1e-15)
    opt.step(closure)
    np.testing.assert_allclose(np.asarray(p), x2, rtol=0, atol=1e-14)
    assert opt.iterations == 2 and opt.function_evaluations == 2


# ---- convergence ------------------------------------------------------------------------------

def quadratic(n=12):
    i = np.arange(n)
    a = 1.0 / (1.0 + np.abs(i[:, None] - i[None, :])) + np.diag(i.astype(float))
    b = np.sin(1.0 + i)
    return a, b, np.linalg.solve(a, b)


def rosenbrock(x):
    return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


@pytest.mark.parametrize("line_search_fn", ["strong_wolfe", None])
def test_lbfgs_minimises_a_quadratic_to_1e8(line_search_fn):
    a, b, want = quadratic()
    A_, b_ = spire.tensor(a), spire.tensor(b)
    x = param(np.zeros(len(b)))
    opt = optim.LBFGS([x], max_iter=100, tolerance_grad=1e-11, tolerance_change=0,
                      line_search_fn=line_search_fn)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x @ (A_ @ x)) - b_ @ x
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(np.asarray(x), want, rtol=0, atol=1e-8)


def test_lbfgs_minimises_rosenbrock_to_1e8():
    x = param([-1.2, 1.0, -0.5, 0.8, 1.3])
    opt = optim.LBFGS([x], max_iter=500, tolerance_grad=1e-12, tolerance_change=1e-15,
                      line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = rosenbrock(x)
        loss.backward()
        return loss

    first = opt.step(closure)
    assert float(first) == pytest.approx(325.3, abs=1e-12)
    np.testing.assert_allclose(np.asarray(x), np.ones(5), rtol=0, atol=1e-8)
    assert opt.function_evaluations < 200


def test_first_order_methods_converge():
    a, b, want = quadratic()
    A_, b_ = spire.tensor(a), spire.tensor(b)

    def solve(make, steps):
        x = param(np.zeros(len(b)))
        opt = make([x])
        for _ in range(steps):
            opt.zero_grad()
            (0.5 * (x @ (A_ @ x)) - b_ @ x).backward()
            opt.step()
        return np.asarray(x)

    np.testing.assert_allclose(solve(lambda p: optim.SGD(p, lr=0.1), 2000), want, atol=1e-8)
    np.testing.assert_allclose(solve(lambda p: optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True), 600),
                               want, atol=1e-8)
    np.testing.assert_allclose(solve(lambda p: optim.Adam(p, lr=0.01), 5000), want, atol=1e-5)

    x = param([-1.2, 1.0])
    opt = optim.Adam([x], lr=0.02)
    for _ in range(6000):
        opt.zero_grad()
        rosenbrock(x).backward()
        opt.step()
    np.testing.assert_allclose(np.asarray(x), [1.0, 1.0], atol=1e-3)


def test_a_laplacian_loss_trains():
    # The PINN pattern: a loss on spire.laplacian of a small network, minimised by L-BFGS.
    gen = spire.random.Generator(3)
    w1 = spire.random.normal((2, 8), 0.0, 0.7, spire.float64, gen).requires_grad_()
    b1 = spire.zeros(8, dtype=spire.float64).requires_grad_()
    w2 = spire.random.normal((8, 1), 0.0, 0.4, spire.float64, gen).requires_grad_()
    x = spire.random.uniform((64, 2), 0.0, 1.0, spire.float64, gen)
    lap = spire.laplacian(lambda p: (spire.tanh(p @ w1 + b1) @ w2)[..., 0])
    opt = optim.LBFGS([w1, b1, w2], max_iter=50, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((lap(x) - 1.0) ** 2).mean()  # Laplacian(u) = 1
        loss.backward()
        return loss

    first = float(opt.step(closure))
    assert float(closure()) < 1e-3 * first


@pytest.mark.parametrize("kind,kw,steps", [
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=0.05), 15),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1), 15),
    ("AdamW", dict(lr=0.05), 15),
    ("RMSprop", dict(lr=0.01), 15),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.8, centered=True, weight_decay=0.05), 15),
    ("LBFGS", dict(max_iter=5), 4),
    ("LBFGS", dict(max_iter=10, history_size=3, line_search_fn="strong_wolfe"), 3),
])
def test_trajectories_match_pytorch(kind, kw, steps):
    x0 = np.array([-1.2, 1.0, -0.5, 0.8, 1.3])
    x = param(x0)
    xt = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    opt, topt = getattr(optim, kind)([x], **kw), getattr(torch.optim, kind)([xt], **kw)

    def closure():
        opt.zero_grad()
        loss = rosenbrock(x)
        loss.backward()
        return loss

    def tclosure():
        topt.zero_grad()
        loss = rosenbrock(xt)
        loss.backward()
        return loss

    for _ in range(steps):
        if kind == "LBFGS":
            opt.step(closure)
            topt.step(tclosure)
        else:
            closure()
            opt.step()
            tclosure()
            topt.step()
    np.testing.assert_allclose(np.asarray(x), xt.detach().numpy(), rtol=0, atol=1e-10)
    if kind == "LBFGS":
        assert opt.iterations == topt.state[xt]["n_iter"]
        assert opt.function_evaluations == topt.state[xt]["func_evals"]


# ---- calling conventions ------------------------------------------------------------------------

def test_updates_rebind_leaves_without_history():
    p = param([1.0, 2.0])
    opt = optim.SGD([p], lr=0.5)
    opt.zero_grad()
    (p * p).sum().backward()
    opt.step()
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    np.testing.assert_allclose(np.asarray(p), [0.0, 0.0])
    assert opt.step_count == 1


def test_step_returns_what_the_closure_returned_first():
    p = param([1.0, 2.0])
    opt = optim.SGD([p], lr=0.1)
    returned = []

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        returned.append(loss)
        return loss

    with spire.no_grad():  # the optimizer records the closure anyway
        assert opt.step(closure) is returned[0]
    assert opt.step() is None
    lb = optim.LBFGS([p], max_iter=3)
    assert lb.step(lambda: (closure(), 7.5)[1]) == 7.5  # a number is a loss too
    assert len(returned) >= 2


def test_zero_grad():
    p = param([1.0, 2.0])
    opt = optim.Adam([p])
    (p * p).sum().backward()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(np.asarray(p.grad), [0.0, 0.0])
    opt.zero_grad()
    assert p.grad is None


def test_params_may_be_any_iterable_and_unused_ones_stay():
    p, q = param([1.0]), param([2.0])
    opt = optim.Adam(iter([p, q]), lr=0.1)
    opt.zero_grad()
    (p * p).sum().backward()
    opt.step()
    assert float(q[0]) == 2.0 and float(p[0]) != 1.0
    assert len(opt.params) == 2


def test_lr_defaults_and_repr():
    p = param([1.0])
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    opt.lr = 0.01
    # As PyTorch's: defaults are the constructor's, the group holds the rate in use.
    assert opt.lr == 0.01 and opt.param_groups[0]["lr"] == 0.01
    assert opt.defaults == {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weight_decay": 0.0, "nesterov": False,
                            "maximize": False}
    topt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.01, momentum=0.9, dampening=0.0, weight_decay=0.0)
    want = "\n".join(line for line in repr(topt).splitlines()
                     if not any(k in line for k in ("differentiable", "foreach", "fused")))
    assert repr(opt) == want
    assert optim.AdamW([p]).defaults["weight_decay"] == 0.01
    assert optim.LBFGS([p], max_iter=8).defaults["max_eval"] == 10
    assert isinstance(optim.AdamW([p]), optim.Adam) and isinstance(opt, optim.Optimizer)


def test_float32_parameters():
    p = param([1.0, -1.0], dtype=spire.float32)
    opt = optim.Adam([p], lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()
    assert p.dtype == spire.float32
    np.testing.assert_allclose(np.asarray(p), [0.7015863, -0.7015863], atol=1e-6)  # as in float64


def test_closure_errors_propagate():
    p = param([1.0])
    opt = optim.LBFGS([p])

    def closure():
        raise KeyError("from the closure")

    with pytest.raises(KeyError, match="from the closure"):
        opt.step(closure)
    with pytest.raises(TypeError, match="must return the loss"):
        opt.step(lambda: "loss")


def test_large_models_release_the_gil_around_steps():
    # Above the engine's GIL threshold the update runs without the GIL and the closure retakes it.
    p = param(np.linspace(-1, 1, 100_000))
    opt = optim.LBFGS([p], max_iter=20, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((p - 0.5) ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(np.asarray(p), 0.5, atol=1e-8)
    with pytest.raises(ZeroDivisionError):
        opt.step(lambda: 1 / 0)
    adam = optim.Adam([p])
    closure()
    adam.step()


# ---- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("make,match", [
    (lambda p: optim.SGD(p, lr=-0.1), r"SGD: lr must be >= 0, got -0.1"),
    (lambda p: optim.SGD(p, momentum=-1), r"momentum must be >= 0"),
    (lambda p: optim.SGD(p, nesterov=True), r"nesterov needs momentum > 0 and dampening = 0"),
    (lambda p: optim.Adam(p, betas=(1.0, 0.999)), r"Adam: beta1 \(betas\[0\]\) must be in \[0, 1\), got 1"),
    (lambda p: optim.AdamW(p, betas=(0.9, -0.1)), r"AdamW: beta2 \(betas\[1\]\) must be in \[0, 1\)"),
    (lambda p: optim.Adam(p, betas=(0.9,)), r"betas must be a pair"),
    (lambda p: optim.Adam(p, eps=-1), r"eps must be >= 0"),
    (lambda p: optim.Adam(p, weight_decay=-1), r"weight_decay must be >= 0"),
    (lambda p: optim.LBFGS(p, max_iter=0), r"max_iter must be >= 1"),
    (lambda p: optim.LBFGS(p, history_size=0), r"history_size must be >= 1"),
    (lambda p: optim.LBFGS(p, line_search_fn="armijo"), r"line_search_fn must be None or 'strong_wolfe'"),
])
def test_bad_options(make, match):
    with pytest.raises(ValueError, match=match):
        make([param([1.0])])


def test_bad_parameters():
    p = param([1.0, 2.0])
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([])
    with pytest.raises(TypeError, match="iterable of tensors or of dicts"):
        optim.SGD(p)
    with pytest.raises(TypeError, match=r"params\[1\] must be a dict like params\[0\]"):
        optim.SGD([{"params": [p]}, p])
    with pytest.raises(TypeError, match=r"params\[1\] must be a spire.Tensor"):
        optim.SGD([p, 3.0])
    with pytest.raises(ValueError, match=r"parameter 0 is not a leaf \(it was computed by 'mul'\)"):
        optim.Adam([p * 2])
    with pytest.raises(ValueError, match="does not require grad"):
        optim.Adam([spire.tensor([1.0])])
    with pytest.raises(ValueError, match="same tensor as parameter 0"):
        optim.Adam([p, p])
    with pytest.raises(TypeError, match="float32 or float64"):
        optim.SGD([spire.tensor([1, 2])])
    with pytest.raises(ValueError, match="share one dtype"):
        optim.LBFGS([p, param([1.0], dtype=spire.float32)])
    with pytest.raises(ValueError, match="LBFGS: step needs a closure"):
        optim.LBFGS([p]).step()


# ---- state_dict, clipping, schedulers ----------------------------------------------------------

def _two_params():
    return param(START), param([0.5, -0.25])


def _steps(opt, a, b, n, sched=None):
    for _ in range(n):
        opt.zero_grad()
        (loss_of(a) + (b ** 4).sum()).backward()
        opt.step()
        if sched is not None:
            sched.step()


@pytest.mark.parametrize("make", [
    lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True),
    lambda ps: optim.Adam(ps, lr=0.05, amsgrad=True),
    lambda ps: optim.AdamW(ps, lr=0.05),
    lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.9, centered=True),
])
def test_state_dict_resumes_bit_for_bit(make):
    a, b = _two_params()
    opt = make([a, b])
    sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10)
    _steps(opt, a, b, 10, sched)
    straight = np.concatenate([np.asarray(a), np.asarray(b)])

    a, b = _two_params()
    opt = make([a, b])
    sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10)
    _steps(opt, a, b, 5, sched)
    state, sched_state = opt.state_dict(), sched.state_dict()
    assert list(state)[:2] == ["lr", "step_count"]
    assert all(isinstance(v, (spire.Tensor, float, int)) for v in state.values())  # flat, for checkpoints
    opt = make([a, b])
    sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10)
    opt.load_state_dict(state)
    sched.load_state_dict(sched_state)
    _steps(opt, a, b, 5, sched)
    np.testing.assert_array_equal(np.concatenate([np.asarray(a), np.asarray(b)]), straight)


def test_lbfgs_state_dict_resumes_bit_for_bit():
    def run(resume):
        x = param([-1.2, 1.0, -0.5, 0.8, 1.3])
        opt = optim.LBFGS([x], max_iter=4, history_size=3, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = rosenbrock(x)
            loss.backward()
            return loss
        for i in range(4):
            if resume and i == 2:
                state = opt.state_dict()
                opt = optim.LBFGS([x], max_iter=4, history_size=3, line_search_fn="strong_wolfe")
                opt.load_state_dict(state)
            opt.step(closure)
        return np.asarray(x)
    np.testing.assert_array_equal(run(False), run(True))


def test_load_state_dict_names_the_problem():
    a = param(START)
    opt = optim.Adam([a], lr=0.1)
    opt.zero_grad()
    loss_of(a).backward()
    opt.step()
    state = opt.state_dict()
    with pytest.raises(ValueError, match="state.0.exp_avg"):
        optim.Adam([param([1.0, 2.0])]).load_state_dict(state)
    with pytest.raises(ValueError, match="step_count"):
        opt.load_state_dict({"lr": 0.1})
    with pytest.raises(TypeError):
        opt.load_state_dict([1, 2])


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf"), "inf"])
def test_clip_grad_norm_matches_pytorch(norm_type):
    rng = np.random.default_rng(0)
    g1, g2 = rng.normal(size=(3, 4)), rng.normal(size=5)
    ps = [param(np.zeros_like(g1)), param(np.zeros(5))]
    ts = [torch.zeros(3, 4, dtype=torch.float64, requires_grad=True), torch.zeros(5, dtype=torch.float64, requires_grad=True)]
    for p, t, g in zip(ps, ts, (g1, g2)):
        p.grad = spire.tensor(g, dtype=spire.float64)
        t.grad = torch.tensor(g)
    total = optim.clip_grad_norm_(ps, 0.7, norm_type=norm_type)
    ttotal = torch.nn.utils.clip_grad_norm_(ts, 0.7, norm_type=norm_type)
    assert float(total) == pytest.approx(float(ttotal), rel=1e-14)
    for p, t in zip(ps, ts):
        np.testing.assert_allclose(np.asarray(p.grad), t.grad.numpy(), rtol=1e-14)
    optim.clip_grad_value_(ps[0], 0.1)  # a single tensor is accepted, as in PyTorch
    torch.nn.utils.clip_grad_value_(ts[0], 0.1)
    np.testing.assert_allclose(np.asarray(ps[0].grad), ts[0].grad.numpy(), rtol=1e-14)


def _lr_trajectory(make, n, metric=None, track_momentum=False, opt_kind="SGD", **opt_kw):
    x = param(START)
    opt = getattr(optim, opt_kind)([x], lr=0.1, **opt_kw)
    sched = make(opt, optim.lr_scheduler)
    out = []
    for i in range(n):
        g = opt.param_groups[0]
        out.append(sched.get_last_lr()[0] if not track_momentum else g.get("momentum", g.get("betas", [0])[0]))
        sched.step(metric[i]) if metric else sched.step()
    return out


def _torch_trajectory(make, n, metric=None, track_momentum=False, opt_kind="SGD", **opt_kw):
    x = torch.zeros(3, requires_grad=True)
    opt = getattr(torch.optim, opt_kind)([x], lr=0.1, **opt_kw)
    sched = make(opt, torch.optim.lr_scheduler)
    out = []
    for i in range(n):
        g = opt.param_groups[0]
        out.append(sched.get_last_lr()[0] if not track_momentum else g.get("momentum", g.get("betas", [0])[0]))
        opt.step()
        sched.step(metric[i]) if metric else sched.step()
    return out


PLATEAU_METRICS = [1.0, 0.9, 0.9, 0.95, 0.9, 0.8, 0.8, 0.8, 0.8, 0.8, 0.81, 0.7, 0.7, 0.7, 0.7, 0.7] * 2


@pytest.mark.parametrize("make,n,metric", [
    (lambda o, L: L.StepLR(o, step_size=3, gamma=0.5), 20, None),
    (lambda o, L: L.ExponentialLR(o, gamma=0.9), 20, None),
    (lambda o, L: L.CosineAnnealingLR(o, T_max=7, eta_min=0.001), 40, None),
    (lambda o, L: L.OneCycleLR(o, max_lr=1.0, total_steps=30), 30, None),
    (lambda o, L: L.OneCycleLR(o, max_lr=1.0, epochs=4, steps_per_epoch=7, pct_start=0.25, anneal_strategy="linear",
                               div_factor=10.0, final_div_factor=100.0, three_phase=True), 27, None),
    (lambda o, L: L.ReduceLROnPlateau(o, factor=0.5, patience=2, cooldown=1, min_lr=0.02), 32, PLATEAU_METRICS),
    (lambda o, L: L.ReduceLROnPlateau(o, mode="max", patience=1, threshold=0.05, threshold_mode="abs"), 32,
     [-m for m in PLATEAU_METRICS]),
])
def test_schedulers_match_pytorch(make, n, metric):
    want = _torch_trajectory(make, n, metric)
    np.testing.assert_allclose(_lr_trajectory(make, n, metric), want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("opt_kind,kw", [("SGD", dict(momentum=0.9)), ("Adam", {})])
def test_one_cycle_cycles_momentum_like_pytorch(opt_kind, kw):
    def make(o, L):
        return L.OneCycleLR(o, max_lr=1.0, total_steps=20)
    want = _torch_trajectory(make, 20, track_momentum=True, opt_kind=opt_kind, **kw)
    np.testing.assert_allclose(_lr_trajectory(make, 20, track_momentum=True, opt_kind=opt_kind, **kw), want, rtol=1e-13)


def test_warmup_cosine_matches_its_formula_and_hf_schedule():
    w, T = 5, 25
    got = _lr_trajectory(lambda o, L: L.WarmupCosineLR(o, warmup_epochs=w, T_max=T), T + 1)  # HF rises again past T
    # transformers' get_cosine_schedule_with_warmup, as a LambdaLR.
    def hf(e):
        if e < w:
            return e / w
        return max(0.0, 0.5 * (1 + math.cos(math.pi * (e - w) / (T - w))))
    want = _torch_trajectory(lambda o, L: L.LambdaLR(o, hf), T + 1)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-17)
    got = _lr_trajectory(lambda o, L: L.WarmupCosineLR(o, 4, 10, eta_min=0.01, warmup_start_factor=0.5), 12)
    assert got[0] == pytest.approx(0.05) and got[2] == pytest.approx(0.075) and got[4] == pytest.approx(0.1)
    assert got[10] == pytest.approx(0.01) and got[11] == pytest.approx(0.01)


def test_scheduler_errors_and_state():
    x = param(START)
    opt = optim.SGD([x], lr=0.1)
    with pytest.raises(ValueError, match="total_steps"):
        optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0)
    with pytest.raises(ValueError, match="momentum"):
        optim.lr_scheduler.OneCycleLR(optim.LBFGS([x]), max_lr=1.0, total_steps=5)
    with pytest.raises(ValueError, match="mode"):
        optim.lr_scheduler.ReduceLROnPlateau(opt, mode="lowest")
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    plateau.step(spire.tensor(1.0))  # a one-element tensor is a metric too
    plateau.step(2.0)
    assert opt.lr == pytest.approx(0.01)
    state = plateau.state_dict()
    assert state["best"] == 1.0 and state["last_epoch"] == 2
    sched = optim.lr_scheduler.StepLR(opt, 2)
    assert sched.last_epoch == 0
    del opt  # the scheduler keeps its optimizer alive
    sched.step()
    assert sched.optimizer.lr == sched.get_last_lr()[0]


# ---- parameter groups (against torch.optim) -------------------------------------------------------

def _pair(x0=(0.8, -1.5, 0.4), y0=(0.5, -0.25)):
    """A spire pair of parameters and the same pair in torch."""
    ours = [param(x0), param(y0)]
    theirs = [torch.tensor(x0, dtype=torch.float64, requires_grad=True),
              torch.tensor(y0, dtype=torch.float64, requires_grad=True)]
    return ours, theirs


def _pair_loss(x, y):
    """Couples the two parameters, so each group's gradient depends on the other's values."""
    return ((x[:2] - 1) ** 2).sum() + 2 * ((x[1:] * y - 0.3) ** 2).sum() + (y ** 4).sum() + (x ** 4).sum() / 12


def _step_both(opt, topt, ours, theirs, n, edit=None):
    for i in range(n):
        if edit is not None:
            edit(i, opt.param_groups)
            edit(i, topt.param_groups)
        opt.zero_grad()
        _pair_loss(*ours).backward()
        opt.step()
        topt.zero_grad()
        _pair_loss(*theirs).backward()
        topt.step()


def _close(ours, theirs, atol=1e-12):
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a), b.detach().numpy(), rtol=0, atol=atol)


GROUP_CASES = [
    ("SGD", dict(lr=0.01, momentum=0.9), dict(lr=0.05, weight_decay=0.1), dict(weight_decay=0.0, dampening=0.2)),
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True), dict(lr=0.03), dict(weight_decay=0.05)),
    ("Adam", dict(lr=1e-3, weight_decay=1e-2), dict(lr=0.05), dict(weight_decay=0.0, betas=(0.8, 0.99))),
    ("AdamW", dict(lr=1e-3, weight_decay=1e-2), dict(lr=0.05, amsgrad=True), dict(weight_decay=0.3)),
    ("RMSprop", dict(lr=0.01, momentum=0.5), dict(lr=0.002, centered=True), dict(weight_decay=0.1, alpha=0.9)),
]


@pytest.mark.parametrize("kind,defaults,g0,g1", GROUP_CASES)
def test_param_groups_match_pytorch(kind, defaults, g0, g1):
    (x, y), (tx, ty) = _pair()
    opt = getattr(optim, kind)([{"params": [x], **g0}, {"params": y, **g1}], **defaults)
    topt = getattr(torch.optim, kind)([{"params": [tx], **g0}, {"params": ty, **g1}], **defaults)
    for g, tg in zip(opt.param_groups, topt.param_groups):
        assert {k: g[k] for k in g if k != "params"} == {k: v for k, v in tg.items() if k in g and k != "params"}
    _step_both(opt, topt, [x, y], [tx, ty], 20)
    _close([x, y], [tx, ty])
    # The groups matter: the same run with one set of options ends elsewhere.
    (u, v), _ = _pair()
    same = getattr(optim, kind)([u, v], **defaults)
    for _ in range(20):
        same.zero_grad()
        _pair_loss(u, v).backward()
        same.step()
    assert not np.allclose(np.asarray(v), np.asarray(y), atol=1e-6)


@pytest.mark.parametrize("kind,defaults,g0,g1", GROUP_CASES[::2])
def test_editing_param_groups_matches_pytorch(kind, defaults, g0, g1):
    def edit(i, groups):  # torch users' loop: a manual schedule through param_groups
        for j, g in enumerate(groups):
            g["lr"] = g["lr"] * (0.7 if j == 0 else 1.1)
        if i == 10:
            groups[1]["weight_decay"] = 0.2
    (x, y), (tx, ty) = _pair()
    opt = getattr(optim, kind)([{"params": [x], **g0}, {"params": [y], **g1}], **defaults)
    topt = getattr(torch.optim, kind)([{"params": [tx], **g0}, {"params": [ty], **g1}], **defaults)
    _step_both(opt, topt, [x, y], [tx, ty], 20, edit)
    _close([x, y], [tx, ty])
    assert opt.param_groups[1]["weight_decay"] == 0.2
    assert opt.param_groups[0]["lr"] == pytest.approx(topt.param_groups[0]["lr"], rel=1e-15)


def test_add_param_group_matches_pytorch():
    (x, y), (tx, ty) = _pair()
    opt, topt = optim.Adam([x], lr=0.05), torch.optim.Adam([tx], lr=0.05)
    _step_both(opt, topt, [x, y], [tx, ty], 5)
    opt.add_param_group({"params": [y], "lr": 0.02, "amsgrad": True, "note": "head"})
    topt.add_param_group({"params": [ty], "lr": 0.02, "amsgrad": True, "note": "head"})
    _step_both(opt, topt, [x, y], [tx, ty], 15)
    _close([x, y], [tx, ty])
    assert opt.param_groups[1]["note"] == "head" and opt.param_groups[1]["eps"] == 1e-8
    assert len(opt.param_groups) == 2 and opt.param_groups[1]["params"][0] is not None


def test_param_group_views_behave_as_dicts():
    (x, y), _ = _pair()
    opt = optim.SGD([{"params": [x], "name": "backbone"}, {"params": [y], "lr": 0.5}], lr=0.1, momentum=0.9)
    g0, g1 = opt.param_groups
    assert g0["name"] == "backbone" and "name" not in g1 and g1.get("name") is None
    assert list(g1) == ["params", "lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"]
    assert dict(g1)["lr"] == 0.5 and len(g1) == 7
    g1["tag"] = 3
    assert opt.param_groups[1]["tag"] == 3
    del g1["tag"]
    assert "tag" not in g1
    g1.update(lr=0.25, momentum=0.5)
    assert opt.param_groups[1]["lr"] == 0.25 and opt.param_groups[1]["momentum"] == 0.5
    assert opt.lr == 0.1  # group 0's
    opt.lr = 0.05  # every group's
    assert [g["lr"] for g in opt.param_groups] == [0.05, 0.05]
    with pytest.raises(ValueError, match="SGD param group 1: lr must be >= 0, got -1"):
        g1["lr"] = -1.0
    assert g1["lr"] == 0.05  # a refused value changes nothing
    with pytest.raises(ValueError, match="parameters of a group are fixed"):
        g1["params"] = [x]
    with pytest.raises(KeyError):
        del g1["lr"]
    with pytest.raises(TypeError, match="nesterov must be a bool"):
        g1["nesterov"] = "yes"
    adam = optim.Adam([{"params": [x], "betas": [0.5, 0.6]}])
    assert adam.param_groups[0]["betas"] == (0.5, 0.6)
    with pytest.raises(ValueError, match=r"betas must be a pair \(beta1, beta2\)"):
        adam.param_groups[0]["betas"] = (0.5,)
    lb = optim.LBFGS([x], line_search_fn="strong_wolfe")
    assert lb.param_groups[0]["line_search_fn"] == "strong_wolfe" and lb.param_groups[0]["max_eval"] == 25
    lb.param_groups[0]["line_search_fn"] = None
    assert lb.param_groups[0]["line_search_fn"] is None


def test_param_group_errors():
    (x, y), _ = _pair()
    with pytest.raises(ValueError, match=r"parameter 0 of param group 1 is already in param group 0 \(its parameter 0\)"):
        optim.SGD([{"params": [x]}, {"params": [x, y]}])
    opt = optim.Adam([{"params": [x]}, {"params": [y]}])
    with pytest.raises(ValueError, match=r"Adam: parameter 0 of param group 2 is already in param group 1"):
        opt.add_param_group({"params": [y]})
    assert len(opt.param_groups) == 2
    with pytest.raises(ValueError, match="needs 'params'"):
        opt.add_param_group({"lr": 0.1})
    with pytest.raises(TypeError, match="not a set"):
        optim.SGD([{"params": {x}}])
    with pytest.raises(ValueError, match="Adam param group 1: eps must be >= 0"):
        optim.Adam([{"params": [x]}, {"params": [y], "eps": -1.0}])
    with pytest.raises(ValueError, match=r"LBFGS doesn't support per-parameter options \(parameter groups\)"):
        optim.LBFGS([{"params": [x]}, {"params": [y]}])
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        optim.LBFGS([x]).add_param_group({"params": [y]})


def _lrs_over_groups(make, n, lrs, metric=None, framework="spire"):
    """Each epoch's get_last_lr() and momenta of a schedule over one group per rate in lrs."""
    if framework == "spire":
        ps, O, L = [param([1.0]) for _ in lrs], optim, optim.lr_scheduler
    else:
        ps, O, L = [torch.zeros(1, requires_grad=True) for _ in lrs], torch.optim, torch.optim.lr_scheduler
    opt = O.SGD([{"params": [p], "lr": lr} for p, lr in zip(ps, lrs)], lr=0.1, momentum=0.9)
    sched = make(opt, L)
    out = []
    for i in range(n):
        out.append(list(sched.get_last_lr()) + [g["momentum"] for g in opt.param_groups])
        if framework != "spire":
            opt.step()
        sched.step(metric[i]) if metric else sched.step()
    return out


@pytest.mark.parametrize("make,n,metric", [
    (lambda o, L: L.StepLR(o, step_size=3, gamma=0.5), 15, None),
    (lambda o, L: L.ExponentialLR(o, gamma=0.9), 15, None),
    (lambda o, L: L.CosineAnnealingLR(o, T_max=7, eta_min=0.001), 30, None),
    (lambda o, L: L.OneCycleLR(o, max_lr=[1.0, 0.2], total_steps=25, base_momentum=[0.8, 0.85]), 25, None),
    (lambda o, L: L.OneCycleLR(o, max_lr=(0.5, 0.3), total_steps=25, three_phase=True, anneal_strategy="linear"), 25, None),
    (lambda o, L: L.ReduceLROnPlateau(o, factor=0.5, patience=1, min_lr=[0.02, 0.01]), 32, PLATEAU_METRICS),
])
def test_schedulers_over_two_groups_match_pytorch(make, n, metric):
    want = _lrs_over_groups(make, n, [0.1, 0.03], metric, framework="torch")
    got = _lrs_over_groups(make, n, [0.1, 0.03], metric)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    assert len(got[0]) == 4 and any(row[0] != row[1] for row in got)


def test_scheduler_lists_must_match_the_groups():
    opt = optim.SGD([{"params": [param([1.0])]}, {"params": [param([2.0])]}], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="max_lr must have one value per parameter group; max_lr has 3 values"):
        optim.lr_scheduler.OneCycleLR(opt, max_lr=[1.0, 2.0, 3.0], total_steps=5)
    with pytest.raises(ValueError, match="min_lr has 1 values, the optimizer has 2"):
        optim.lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1])
    sched = optim.lr_scheduler.StepLR(opt, 2)
    assert sched.base_lrs == [0.1, 0.1] and opt.param_groups[1]["initial_lr"] == 0.1
    state = sched.state_dict()
    assert state["base_lrs"] == [0.1, 0.1] and state["last_lr"] == [0.1, 0.1]
    one = optim.lr_scheduler.StepLR(optim.SGD([param([1.0])], lr=0.1), 2)
    with pytest.raises(ValueError, match=r"the state has 2 param groups \('base_lrs.<g>'\), the optimizer has 1"):
        one.load_state_dict(state)


def test_state_dict_has_torchs_layout():
    (x, y), (tx, ty) = _pair()
    kw = dict(lr=0.05, weight_decay=1e-2)
    opt = optim.AdamW([{"params": [x], "amsgrad": True}, {"params": [y], "lr": 0.01}], **kw)
    topt = torch.optim.AdamW([{"params": [tx], "amsgrad": True}, {"params": [ty], "lr": 0.01}], **kw)
    optim.lr_scheduler.StepLR(opt, 2)
    torch.optim.lr_scheduler.StepLR(topt, 2)
    _step_both(opt, topt, [x, y], [tx, ty], 3)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert "state" in sd and "param_groups" in sd
    assert len(sd["param_groups"]) == 2
    for g, tg in zip(sd["param_groups"], tsd["param_groups"]):
        assert g["params"] == tg["params"]
        for k, v in g.items():
            assert v == tg[k], k  # every option we keep, with PyTorch's name and value
    assert sorted(sd["state"]) == sorted(tsd["state"]) == [0, 1]
    for i in (0, 1):
        assert set(sd["state"][i]) == set(tsd["state"][i]), i
        for k, v in sd["state"][i].items():
            np.testing.assert_allclose(np.asarray(v), np.asarray(tsd["state"][i][k]), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("kind,defaults,g0,g1", GROUP_CASES)
@pytest.mark.parametrize("form", ["flat", "nested", "checkpoint"])
def test_groups_resume_bit_for_bit(kind, defaults, g0, g1, form, tmp_path):
    def make(x, y):
        opt = getattr(optim, kind)([{"params": [x], **g0}, {"params": [y], **g1}], **defaults)
        return opt, optim.lr_scheduler.OneCycleLR(opt, max_lr=[0.05, 0.02], total_steps=12)

    def steps(opt, sched, x, y, n):
        for _ in range(n):
            opt.zero_grad()
            _pair_loss(x, y).backward()
            opt.step()
            sched.step()

    (x, y), _ = _pair()
    opt, sched = make(x, y)
    steps(opt, sched, x, y, 12)
    straight = [np.asarray(x).copy(), np.asarray(y).copy()]

    (x, y), _ = _pair()
    opt, sched = make(x, y)
    steps(opt, sched, x, y, 6)
    state, sched_state = opt.state_dict(), sched.state_dict()
    if form == "checkpoint":
        spire.save_checkpoint(tmp_path / "c.h5", optimizer=opt, scheduler=sched, default_generator=False)
    (u, v), _ = _pair((9.0, 9.0, 9.0), (9.0, 9.0))
    opt, sched = make(u, v)
    opt.param_groups[0]["lr"] = 123.0  # overwritten by the load
    if form == "checkpoint":
        spire.load_checkpoint(tmp_path / "c.h5", optimizer=opt, scheduler=sched, default_generator=False)
    else:
        if form == "nested":  # a plain dict in PyTorch's layout
            state = {"state": state["state"], "param_groups": state["param_groups"]}
        opt.load_state_dict(state)
        sched.load_state_dict(sched_state)
    u.set_data(spire.tensor(np.asarray(x))), v.set_data(spire.tensor(np.asarray(y)))
    steps(opt, sched, u, v, 6)
    np.testing.assert_array_equal(np.asarray(u), straight[0])
    np.testing.assert_array_equal(np.asarray(v), straight[1])


def test_load_state_dict_checks_the_groups():
    (x, y), _ = _pair()
    opt = optim.SGD([{"params": [x]}, {"params": [y], "lr": 0.5}], lr=0.1, momentum=0.9)
    opt.zero_grad()
    _pair_loss(x, y).backward()
    opt.step()
    state = opt.state_dict()
    (u, v), _ = _pair()
    one = optim.SGD([u, v], lr=0.3)
    with pytest.raises(ValueError, match="different number of parameter groups: 2 in the state, 1 in this optimizer"):
        one.load_state_dict(state)
    sizes = optim.SGD([{"params": [u, v]}, {"params": [param([1.0])]}], lr=0.3)
    with pytest.raises(ValueError, match="param group 0 has 1 parameters in the state and 2 in this optimizer"):
        sizes.load_state_dict(state)
    assert one.lr == 0.3 and sizes.lr == 0.3
    with pytest.raises(ValueError, match="line_search_fn must be None or 'strong_wolfe'"):
        optim.LBFGS([u]).load_state_dict({"state": {}, "param_groups": [{"params": [0], "line_search_fn": "x"}]})
