"""Taylor mode from Python: jet against closed forms, the differential operators of point functions
against analytic fields, the randomised Laplacians against their documented means and variances,
and gradients through a Laplacian against finite differences."""
import math

import numpy as np
import pytest

import spire

rng = np.random.default_rng(7)


def T(a):
    return spire.tensor(np.asarray(a, dtype=np.float64))


def close(a, b, **kw):
    kw.setdefault("rtol", 1e-10)
    kw.setdefault("atol", 1e-10)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), **kw)


# --- jet ---------------------------------------------------------------------------------------

def test_jet_sin_closed_form():
    x0 = 0.4
    y, s = spire.jet(spire.sin, (T(x0),), ([T(1.0)] + [T(0.0)] * 4,))
    close(y, math.sin(x0))
    # d^k/dt^k sin(x0 + t) = sin(x0 + k pi/2)
    close([float(t) for t in s], [math.sin(x0 + k * math.pi / 2) for k in range(1, 6)])


def test_jet_exp_faa_di_bruno():
    x0, x1, x2, x3 = 0.3, 0.7, -1.1, 0.5
    _, s = spire.jet(spire.exp, (T(x0),), ([T(x1), T(x2), T(x3)],))
    e = math.exp(x0)
    close([float(t) for t in s], [e * x1, e * (x1 ** 2 + x2), e * (x1 ** 3 + 3 * x1 * x2 + x3)])


def test_jet_polynomial_terminates():
    # x(t) = 2 + t: (x^3)'' = 6 x, (x^3)''' = 6, the fourth derivative vanishes.
    y, s = spire.jet(lambda x: x * x * x, (T(2.0),), ([T(1.0), None, None, None],))
    close(y, 8.0)
    close([float(t) for t in s], [12.0, 12.0, 6.0, 0.0])
    y, s = spire.jet(lambda x: x * x, (T([1.0, 2.0]),), ([[1.0, 2.0], [0.0, 1.0]],))  # array-like terms
    close(s[0], [2.0, 8.0])
    close(s[1], [2.0, 12.0])


def test_jet_pytrees_in_and_out():
    a0, b0 = rng.standard_normal(3), rng.standard_normal(3)
    a1, b1, a2, b2 = (rng.standard_normal(3) for _ in range(4))

    def f(p, c):
        return {"prod": p["a"] * p["b"] * c, "sin": (spire.sin(p["a"]),)}

    primals = ({"a": T(a0), "b": T(b0)}, 2.0)
    series = ([{"a": T(a1), "b": T(b1)}, {"a": T(a2), "b": T(b2)}], [0.0, 0.0])
    y, s = spire.jet(f, primals, series)
    assert set(y) == {"prod", "sin"} and isinstance(s["sin"], tuple)
    close(y["prod"], 2 * a0 * b0)
    close(s["prod"][0], 2 * (a1 * b0 + a0 * b1))
    close(s["prod"][1], 2 * (a2 * b0 + 2 * a1 * b1 + a0 * b2))
    close(s["sin"][0][0], np.cos(a0) * a1)
    close(s["sin"][0][1], -np.sin(a0) * a1 ** 2 + np.cos(a0) * a2)


def test_jet_of_matmul_network_matches_directional_derivatives():
    w = rng.standard_normal((4, 3))
    x0, v = rng.standard_normal(3), rng.standard_normal(3)
    f = lambda x: spire.tanh(T(w) @ x)  # noqa: E731
    _, s = spire.jet(f, (T(x0),), ([T(v), T(np.zeros(3))],))
    z, dz = w @ x0, w @ v
    t = np.tanh(z)
    close(s[0], (1 - t ** 2) * dz)
    close(s[1], -2 * t * (1 - t ** 2) * dz ** 2)


def test_jet_errors():
    with pytest.raises(TypeError, match="callable"):
        spire.jet(3, (T(1.0),), ([T(1.0)],))
    with pytest.raises(ValueError, match="different numbers of terms"):
        spire.jet(lambda x, y: x * y, (T(1.0), T(2.0)), ([T(1.0)], [T(1.0), T(0.0)]))
    with pytest.raises(ValueError, match="2 series for 1 primals"):
        spire.jet(spire.sin, (T(1.0),), ([T(1.0)], [T(1.0)]))
    with pytest.raises(ValueError, match="shape"):
        spire.jet(spire.sin, (T([1.0, 2.0]),), ([T([1.0, 2.0, 3.0])],))
    with pytest.raises(ValueError, match="structure"):
        spire.jet(lambda p: p["a"], ({"a": T(1.0)},), ([{"b": T(1.0)}],))
    with pytest.raises(ValueError, match="at least one"):
        spire.jet(spire.sin, (T(1.0),), ([],))


# --- differential operators --------------------------------------------------------------------

X3 = rng.standard_normal((7, 3))


def test_laplacian_of_harmonic_functions_is_zero():
    def poly(x):  # x^2 - y^2 + 3xz - 2yz
        a, b, c = x[..., 0], x[..., 1], x[..., 2]
        return a * a - b * b + 3 * a * c - 2 * b * c

    close(spire.laplacian(poly)(T(X3)), np.zeros(7), atol=1e-12)
    excos = lambda x: spire.exp(x[..., 0]) * spire.cos(x[..., 1])  # noqa: E731
    close(spire.laplacian(excos)(T(X3[:, :2])), np.zeros(7), atol=1e-12)
    newton = lambda x: (x * x).sum(-1) ** -0.5  # noqa: E731  (1/|x| in 3D)
    close(spire.laplacian(newton)(T(X3 + 3.0)), np.zeros(7), atol=1e-12)


@pytest.mark.parametrize("d", [1, 3, 6])
def test_laplacian_of_gaussian(d):
    a = 0.7
    x = rng.standard_normal((5, 2, d))
    r2 = (x * x).sum(-1)
    lap = spire.laplacian(lambda x: spire.exp(-a * (x * x).sum(-1)))(T(x))
    assert lap.shape == (5, 2)
    close(lap, (4 * a * a * r2 - 2 * a * d) * np.exp(-a * r2))


def test_laplacian_vector_output_and_mlp():
    w1, b1, w2 = rng.standard_normal((8, 3)), rng.standard_normal(8), rng.standard_normal((2, 8))

    def mlp(x):
        return spire.tanh(x @ T(w1.T) + T(b1)) @ T(w2.T)

    lap = spire.laplacian(mlp)(T(X3))
    t = np.tanh(X3 @ w1.T + b1)
    # d2/dx_i2 of tanh(z_j) = tanh''(z_j) w1_ji^2, tanh'' = -2 t (1 - t^2)
    close(lap, (-2 * t * (1 - t ** 2) * (w1 ** 2).sum(1)) @ w2.T)


def test_hessian_diag_and_input_grad():
    c = np.array([1.5, -0.5, 2.0])

    def f(x):
        return (spire.sin(x) * T(c)).sum(-1) + x[..., 0] * x[..., 1] ** 2

    x, y = X3, X3[:, 1]
    g = spire.input_grad(f)(T(X3))
    assert g.shape == (7, 3)
    close(g, np.cos(x) * c + np.stack([y ** 2, 2 * x[:, 0] * y, 0 * y], -1))
    h = spire.hessian_diag(f)(T(X3))
    close(h, -np.sin(x) * c + np.stack([0 * y, 2 * x[:, 0], 0 * y], -1))
    # a vector f: the Jacobian, [..., out, d]
    jac = spire.input_grad(lambda x: spire.sin(x) * 2.0)(T(X3))
    close(jac, 2 * np.cos(x)[:, :, None] * np.eye(3))


def test_hessian_diag_and_laplacian_match_hessian_vector_products():
    w1, w2 = rng.standard_normal((4, 16)) / 2, rng.standard_normal((16, 1)) / 4
    f = lambda x: (spire.tanh(spire.tanh(x @ T(w1)) * 1.5) @ T(w2)).sum(-1)  # noqa: E731
    x = T(rng.standard_normal((9, 4)))
    # nested reverse mode: one Hessian-vector product of sum_points f per coordinate
    diag = np.stack([spire.hvp(lambda y: f(y).sum(), (x,), (T(np.eye(4)[[i] * 9]),))[0].numpy()[:, i]
                     for i in range(4)], -1)
    close(spire.hessian_diag(f)(x), diag, rtol=1e-12, atol=1e-14)
    close(spire.laplacian(f)(x), diag.sum(-1), rtol=1e-12, atol=1e-14)


def _field(x):  # (xy, yz, zx)
    a, b, c = x[..., 0], x[..., 1], x[..., 2]
    return spire.stack([a * b, b * c, c * a], -1)


def test_divergence_and_curl_of_known_fields():
    x = X3
    close(spire.divergence(_field)(T(x)), x.sum(-1))
    close(spire.curl(_field)(T(x)), -x[:, [1, 2, 0]])
    omega = np.array([0.3, -1.0, 2.0])
    wx, wy, wz = omega

    def rotation(x):  # omega x r: curl 2 omega, divergence 0
        a, b, c = x[..., 0], x[..., 1], x[..., 2]
        return spire.stack([wy * c - wz * b, wz * a - wx * c, wx * b - wy * a], -1)

    close(spire.curl(rotation)(T(x)), np.broadcast_to(2 * omega, x.shape))
    close(spire.divergence(rotation)(T(x)), np.zeros(7), atol=1e-12)
    wave = lambda x: spire.sin(x[..., [1, 2, 0]])  # noqa: E731  (sin y, sin z, sin x)
    close(spire.curl(wave)(T(x)), -np.cos(x[:, [2, 0, 1]]))
    close(spire.divergence(wave)(T(x)), np.zeros(7), atol=1e-12)


def test_divergence_in_other_dimensions():
    x = rng.standard_normal((4, 5))
    close(spire.divergence(lambda x: x * x)(T(x)), 2 * x.sum(-1))


@pytest.mark.parametrize("shared", [True, False])
def test_derivative_of_sin_to_order_5(shared):
    w = np.array([0.5, -1.0, 2.0])
    v = np.array([1.0, 0.5, -0.25]) if shared else rng.standard_normal(X3.shape)
    vw = (v * w).sum(-1)
    f = lambda x: spire.sin((x * T(w)).sum(-1))  # noqa: E731
    s = X3 @ w
    for k in range(1, 6):
        dk = spire.derivative(f, k, T(v))(T(X3))
        close(dk, np.sin(s + k * np.pi / 2) * vw ** k, rtol=1e-9)


def test_operators_pass_extra_arguments_to_f():
    f = lambda x, scale, shift=0.0: ((x * x).sum(-1) + shift) * scale  # noqa: E731
    close(spire.laplacian(f)(T(X3), 3.0, shift=1.0), np.full(7, 18.0))
    close(spire.input_grad(f)(T(X3), 0.5), X3)


def test_float32_points():
    x = spire.tensor(X3.astype(np.float32))
    lap = spire.laplacian(lambda x: (x * x * x).sum(-1))(x)
    assert lap.dtype == spire.float32
    close(lap, 6 * X3.sum(-1), rtol=1e-5, atol=1e-5)


# --- randomised Laplacians ---------------------------------------------------------------------

D = 6
A = rng.standard_normal((D, D))
A = A + A.T  # the Hessian of the quadratic below, at every point


def quadratic(x):
    return 0.5 * ((x @ T(A)) * x).sum(-1)


def test_estimators_are_deterministic_per_seed():
    x = T(rng.standard_normal((50, D)))
    for est in ("hutchinson", "sparse"):
        a = spire.laplacian(quadratic, estimator=est, samples=3, seed=11)(x).numpy()
        b = spire.laplacian(quadratic, estimator=est, samples=3, seed=11)(x).numpy()
        c = spire.laplacian(quadratic, estimator=est, samples=3, seed=12)(x).numpy()
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)


@pytest.mark.parametrize("est", ["hutchinson", "sparse"])
def test_estimators_are_unbiased_with_documented_variance(est):
    n, samples = 4000, 2
    x = T(rng.standard_normal((n, D)))
    e = spire.laplacian(quadratic, estimator=est, samples=samples, seed=3)(x).numpy()
    diag = np.diag(A)
    if est == "hutchinson":
        var = 2 * ((A ** 2).sum() - (diag ** 2).sum()) / samples
    else:
        var = (D * (diag ** 2).sum() - diag.sum() ** 2) / samples
    # every point draws its own directions: n independent estimates of tr A
    assert abs(e.mean() - np.trace(A)) < 5 * math.sqrt(var / n)
    assert 0.8 < e.var() / var < 1.2


def test_estimators_exact_when_their_variance_vanishes():
    x = T(rng.standard_normal((9, D)))
    c = rng.standard_normal(D)
    diagonal = lambda x: ((x * x) * T(c)).sum(-1)  # noqa: E731  (diagonal Hessian 2c)
    close(spire.laplacian(diagonal, estimator="hutchinson", samples=1)(x), np.full(9, 2 * c.sum()))
    iso = lambda x: (x * x).sum(-1) + x[..., 0] * x[..., 1]  # noqa: E731  (equal H_ii)
    close(spire.laplacian(iso, estimator="sparse", samples=1, seed=5)(x), np.full(9, 2.0 * D))


# --- composition -------------------------------------------------------------------------------

def _mlp(params, x):
    h = spire.tanh(x @ params["w1"] + params["b1"])
    return (h @ params["w2"]).sum(-1)


def test_grad_of_laplacian_loss_matches_finite_differences():
    params = {"w1": T(rng.standard_normal((3, 5)) * 0.8), "b1": T(rng.standard_normal(5) * 0.3),
              "w2": T(rng.standard_normal((5, 1)))}
    x = T(rng.standard_normal((6, 3)))

    def loss(p):
        lap = spire.laplacian(lambda y: _mlp(p, y))(x)
        return (lap * lap).mean()

    g = spire.grad(loss)(params)
    h = 1e-6
    for name, p in params.items():
        base = p.numpy()
        fd = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            plus, minus = base.copy(), base.copy()
            plus[idx] += h
            minus[idx] -= h
            up, down = loss({**params, name: T(plus)}), loss({**params, name: T(minus)})
            fd[idx] = (float(up) - float(down)) / (2 * h)
        close(g[name], fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["jet", "hessian_diag", "curl", "derivative", "hutchinson"])
def test_grad_through_other_operators_matches_finite_differences(name):
    x, w0 = T(rng.standard_normal((5, 3))), rng.standard_normal(3)
    losses = {
        "jet": lambda w: spire.jet(lambda y: spire.sin(y * w).sum(), (x,), ([x, x, x],))[1][2],
        "hessian_diag": lambda w: (spire.hessian_diag(lambda y: spire.tanh(y * w).sum(-1))(x) ** 2).sum(),
        "curl": lambda w: (spire.curl(lambda y: spire.sin(y[..., [1, 2, 0]] * w))(x) ** 2).sum(),
        "derivative": lambda w: (spire.derivative(lambda y: spire.sin((y * w).sum(-1)), 4, [1.0, 2.0, 3.0])(x)
                                 ** 2).sum(),
        "hutchinson": lambda w: (spire.laplacian(lambda y: spire.tanh((y * w).sum(-1)) ** 2,
                                                 estimator="hutchinson", samples=3)(x) ** 2).sum(),
    }
    loss, h = losses[name], 1e-6
    fd = [(float(loss(T(w0 + h * e))) - float(loss(T(w0 - h * e)))) / (2 * h) for e in np.eye(3)]
    close(spire.grad(loss)(T(w0)), fd, rtol=1e-7, atol=1e-7 * np.abs(fd).max())


def test_jvp_of_laplacian_and_laplacian_of_vmap():
    gauss = spire.laplacian(lambda x: spire.exp(-(x * x).sum(-1)))
    x, v = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    _, tangent = spire.jvp(gauss, (T(x),), (T(v),))
    h = 1e-5
    fd = (gauss(T(x + h * v)).numpy() - gauss(T(x - h * v)).numpy()) / (2 * h)
    close(tangent, fd, rtol=1e-6, atol=1e-8)
    # a point function written for one point, mapped over the batch by vmap
    one_point = spire.vmap(lambda p: spire.exp(-(p * p).sum()))
    close(spire.laplacian(one_point)(T(x)), gauss(T(x)))


def test_jet_of_vmap():
    x = rng.standard_normal((5, 2))
    _, s = spire.jet(spire.vmap(lambda r: spire.sin(r).sum()), (T(x),), ([T(np.ones_like(x)), None],))
    close(s[0], np.cos(x).sum(-1))
    close(s[1], -np.sin(x).sum(-1))


def test_inside_vmap():
    # Taylor passes inside vmap: jets attached to mapped tensors are carried by the batching rules.
    x = rng.standard_normal((4, 3))
    lap = spire.vmap(spire.laplacian(lambda p: (p * p * p).sum(-1)))(T(x))
    close(lap, 6 * x.sum(-1))
    _, s = spire.vmap(lambda p: spire.jet(spire.sin, (p,), ([spire.ones_like(p)],)))(T(x))
    close(s[0], np.cos(x))
    w = rng.standard_normal((2, 3))
    g = spire.vmap(lambda wi: spire.input_grad(lambda p: (p * wi).sum(-1))(T(x)))(T(w))
    close(g, np.broadcast_to(w[:, None, :], (2, 4, 3)))

def test_operator_errors():
    f = lambda x: (x * x).sum(-1)  # noqa: E731
    with pytest.raises(TypeError, match="laplacian: f must be callable, got int"):
        spire.laplacian(3)
    with pytest.raises(TypeError, match="must be callable"):
        spire.curl("f")
    with pytest.raises(ValueError, match="'hutchinson', 'sparse'.*'exact'"):
        spire.laplacian(f, estimator="exact", samples=4)
    with pytest.raises(ValueError, match="needs samples"):
        spire.laplacian(f, estimator="hutchinson")
    with pytest.raises(ValueError, match="positive int"):
        spire.laplacian(f, estimator="sparse", samples=0)
    with pytest.raises(ValueError, match="samples applies to an estimator"):
        spire.laplacian(f, samples=8)
    with pytest.raises(ValueError, match="seed"):
        spire.laplacian(f, estimator="sparse", samples=2, seed=-1)
    with pytest.raises(ValueError, match="order must be a positive int"):
        spire.derivative(f, 0, [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"coordinates on its last axis"):
        spire.laplacian(f)(T(1.0))
    with pytest.raises(TypeError, match="float32 or float64"):
        spire.laplacian(f)(spire.tensor([[1, 2, 3]]))
    with pytest.raises(ValueError, match="curl: x must have 3 coordinates, got 2"):
        spire.curl(lambda x: x)(T(np.ones((4, 2))))
    with pytest.raises(ValueError, match=r"divergence: f must map \[..., d\] to \[..., d\]"):
        spire.divergence(lambda x: x.sum(-1))(T(X3))
    with pytest.raises(ValueError, match="direction of shape"):
        spire.derivative(f, 2, [1.0, 0.0])(T(X3))
    with pytest.raises(TypeError, match="f must return a Tensor, got float"):
        spire.laplacian(lambda x: 1.0)(T(X3))
