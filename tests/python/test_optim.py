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
    assert opt.lr == 0.01 and opt.defaults["lr"] == 0.01 and opt.defaults["momentum"] == 0.9
    assert repr(opt).startswith("SGD(lr=0.01, momentum=0.9")
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
    with pytest.raises(TypeError, match="iterable of tensors"):
        optim.SGD(p)
    with pytest.raises(TypeError, match="parameter groups"):
        optim.SGD([{"params": [p]}])
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
    assert all(isinstance(v, (spire.Tensor, float, int)) for v in state.values())
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
        out.append(sched.get_last_lr()[0] if not track_momentum else opt.defaults.get("momentum", opt.defaults.get("betas", [0])[0]))
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
