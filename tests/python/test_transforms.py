"""Functional transforms on Python functions of pytrees, checked against analytic derivatives."""
import numpy as np
import pytest

import spire

x0 = np.array([0.5, -1.2, 2.0])


def T(a, **kw):
    return spire.tensor(np.asarray(a, dtype=np.float64), **kw)


def test_grad_simple():
    g = spire.grad(lambda x: (spire.sin(x) * x).sum())(T(x0))
    np.testing.assert_allclose(g.numpy(), np.cos(x0) * x0 + np.sin(x0), rtol=1e-12)


def test_grad_of_grad_scalar():
    d2 = spire.grad(spire.grad(spire.sin))(T(0.3))
    assert d2.item() == pytest.approx(-np.sin(0.3))
    d3 = spire.grad(spire.grad(spire.grad(lambda x: x ** 4)))(T(1.5))
    assert d3.item() == pytest.approx(24 * 1.5)


def test_argnums_and_value_and_grad():
    def f(x, y, scale):
        return (x * y).sum() * scale

    x, y = T(x0), T([1.0, 2.0, 3.0])
    gx, gy = spire.grad(f, argnums=(0, 1))(x, y, 2.0)
    np.testing.assert_allclose(gx.numpy(), 2 * np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(gy.numpy(), 2 * x0)
    gy_only = spire.grad(f, argnums=1)(x, y, 2.0)
    np.testing.assert_allclose(gy_only.numpy(), 2 * x0)
    v, g = spire.value_and_grad(f)(x, y, 3.0)
    assert v.item() == pytest.approx(3 * (x0 * [1, 2, 3]).sum())
    np.testing.assert_allclose(g.numpy(), 3 * np.array([1.0, 2.0, 3.0]))


def test_has_aux():
    def f(x):
        y = x * x
        return y.sum(), {"y": y, "note": "anything"}

    g, aux = spire.grad(f, has_aux=True)(T(x0))
    np.testing.assert_allclose(g.numpy(), 2 * x0)
    np.testing.assert_allclose(aux["y"].numpy(), x0 ** 2)
    assert aux["note"] == "anything"
    (v, aux2), g2 = spire.value_and_grad(f, has_aux=True)(T(x0))
    assert v.item() == pytest.approx((x0 ** 2).sum())
    np.testing.assert_allclose(g2.numpy(), 2 * x0)


def test_pytree_arguments():
    params = {"w": T([[1.0, 2.0], [3.0, 4.0]]), "b": [T([0.5, -0.5]), T(2.0)]}
    inp = T([1.0, -1.0])

    def loss(p, x):
        h = p["w"] @ x + p["b"][0]
        return (h * h).sum() * p["b"][1]

    g = spire.grad(loss)(params, inp)
    assert set(g) == {"w", "b"} and isinstance(g["b"], list) and len(g["b"]) == 2
    w = np.array([[1.0, 2.0], [3.0, 4.0]])
    h = w @ [1.0, -1.0] + [0.5, -0.5]
    np.testing.assert_allclose(g["w"].numpy(), 2 * 2.0 * np.outer(h, [1.0, -1.0]))
    np.testing.assert_allclose(g["b"][0].numpy(), 2 * 2.0 * h)
    assert g["b"][1].item() == pytest.approx((h * h).sum())


def test_unused_input_gets_zeros():
    g = spire.grad(lambda x, y: (x * 2.0).sum(), argnums=(0, 1))(T([1.0]), T([3.0, 4.0]))
    np.testing.assert_allclose(g[1].numpy(), [0.0, 0.0])


def test_vjp():
    def f(x, y):
        return {"p": x * y, "s": spire.sin(x)}

    x, y = T(x0), T([2.0, 3.0, 4.0])
    out, vjp_fn = spire.vjp(f, x, y)
    np.testing.assert_allclose(out["p"].numpy(), x0 * [2, 3, 4])
    ct = {"p": T([1.0, 1.0, 1.0]), "s": T([1.0, 0.0, 2.0])}
    gx, gy = vjp_fn(ct)
    np.testing.assert_allclose(gx.numpy(), np.array([2, 3, 4]) + np.cos(x0) * [1, 0, 2])
    np.testing.assert_allclose(gy.numpy(), x0)


def test_jvp():
    def f(x):
        return spire.exp(x) * x

    out, tan = spire.jvp(f, (T(x0),), (T([1.0, 0.5, -1.0]),))
    np.testing.assert_allclose(out.numpy(), np.exp(x0) * x0)
    np.testing.assert_allclose(tan.numpy(), np.exp(x0) * (1 + x0) * [1.0, 0.5, -1.0], rtol=1e-12)


def test_jvp_pytree():
    def f(p):
        return (p["a"] * p["b"], p["a"].sum())

    p = {"a": T([1.0, 2.0]), "b": T([3.0, 4.0])}
    v = {"a": T([1.0, 0.0]), "b": T([0.0, 1.0])}
    (prod, s), (tprod, ts) = spire.jvp(f, (p,), (v,))
    np.testing.assert_allclose(tprod.numpy(), [3.0, 2.0])
    assert ts.item() == pytest.approx(1.0)


@pytest.mark.parametrize("jac", [spire.jacrev, spire.jacfwd])
def test_jacobians(jac):
    A = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]])

    def f(x):
        return T(A) @ spire.sin(x)

    J = jac(f)(T(x0))
    assert J.shape == (2, 3)
    np.testing.assert_allclose(J.numpy(), A * np.cos(x0)[None, :], rtol=1e-12)


@pytest.mark.parametrize("jac", [spire.jacrev, spire.jacfwd])
def test_jacobian_pytree_output_and_argnums(jac):
    def f(x, y):
        return {"u": x * y, "v": (x * x).sum()}

    x, y = T([1.0, 2.0]), T([3.0, 5.0])
    J = jac(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(J["u"][0].numpy(), np.diag([3.0, 5.0]))
    np.testing.assert_allclose(J["u"][1].numpy(), np.diag([1.0, 2.0]))
    np.testing.assert_allclose(J["v"][0].numpy(), [2.0, 4.0])
    np.testing.assert_allclose(J["v"][1].numpy(), [0.0, 0.0])


def test_hessian_of_cubic_is_diag_6x():
    H = spire.hessian(lambda x: (x ** 3).sum())(T(x0))
    np.testing.assert_allclose(H.numpy(), np.diag(6 * x0), rtol=1e-12, atol=1e-12)


def test_hessian_quadratic_form_and_blocks():
    A = np.array([[2.0, 1.0], [1.0, 3.0]])
    H = spire.hessian(lambda x: 0.5 * (x * (T(A) @ x)).sum())(T([0.3, 0.7]))
    np.testing.assert_allclose(H.numpy(), A, atol=1e-12)

    def f(x, y):
        return (x * x * y).sum()

    Hb = spire.hessian(f, argnums=(0, 1))(T([1.0, 2.0]), T([3.0, 4.0]))
    np.testing.assert_allclose(Hb[0][0].numpy(), np.diag([6.0, 8.0]))
    np.testing.assert_allclose(Hb[0][1].numpy(), np.diag([2.0, 4.0]))
    np.testing.assert_allclose(Hb[1][1].numpy(), np.zeros((2, 2)))


def test_hvp():
    def f(x):
        return (spire.sin(x) * x).sum()

    v = np.array([1.0, -2.0, 0.5])
    (hv,) = spire.hvp(f, (T(x0),), (T(v),))
    diag = 2 * np.cos(x0) - x0 * np.sin(x0)
    np.testing.assert_allclose(hv.numpy(), diag * v, rtol=1e-12)


def test_jacfwd_of_jacrev_matches_hessian():
    f = lambda x: (spire.exp(x[0]) * x[1] ** 2)  # noqa: E731
    x = T([0.2, 1.5])
    H1 = spire.jacfwd(spire.jacrev(f))(x).numpy()
    H2 = spire.hessian(f)(x).numpy()
    e, y = np.exp(0.2), 1.5
    np.testing.assert_allclose(H1, [[e * y * y, 2 * e * y], [2 * e * y, 2 * e]], rtol=1e-12)
    np.testing.assert_allclose(H2, H1, rtol=1e-12)


def test_grad_errors():
    with pytest.raises(TypeError, match="scalar"):
        spire.grad(lambda x: 3.0)(T(1.0))
    with pytest.raises(ValueError, match="argnums"):
        spire.grad(lambda x: x.sum(), argnums=2)(T([1.0]))
    with pytest.raises(ZeroDivisionError):  # Python errors raised inside f propagate unchanged
        spire.grad(lambda x: x.sum() * (1 / 0))(T([1.0]))


def test_python_numbers_as_primals():
    g = spire.grad(lambda x: x * x)(3.0)
    assert g.item() == pytest.approx(6.0)
