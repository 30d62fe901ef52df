"""Custom ops: Python-defined ops (NumPy kernels and rules) in gradients, checked by finite
differences and closed forms; spire-op rules to second order; errors; the C++ example plugin."""

import itertools
import os

import numpy as np
import pytest

import spire

_ids = itertools.count()


def fresh(name):
    # Op names are global to the process: one per test run keeps tests independent.
    return f"test.{name}.{next(_ids)}"


def t64(a):
    return spire.tensor(np.asarray(a, dtype=np.float64))


def numeric_grad(f, x, h=1e-6):
    """Central differences of a scalar NumPy function."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def make_scaled_sin():
    """f(x, w; k) = w * sin(k x), NumPy forward and backward."""
    calls = {"forward": 0}

    def forward(x, w, k):
        calls["forward"] += 1
        return w * np.sin(k * x)

    def backward(x, w, out, dout, k):
        return dout * w * k * np.cos(k * x), (dout * np.sin(k * x)).sum(axis=0)

    op = spire.custom_op(fresh("scaled_sin"), forward, backward)
    return op, calls


def test_numpy_op_values_and_gradients_match_finite_differences():
    op, calls = make_scaled_sin()
    x = np.random.default_rng(0).normal(size=(4, 3))
    w = np.random.default_rng(1).normal(size=(3,))
    y = op(t64(x), t64(w), k=1.5)
    np.testing.assert_allclose(np.asarray(y), w * np.sin(1.5 * x), rtol=1e-15)
    assert calls["forward"] == 1  # infer ran forward, the kernel reused it

    def loss(x, w):
        return spire.sum(op(x, w, k=1.5) ** 2)

    gx, gw = spire.grad(loss, argnums=(0, 1))(t64(x), t64(w))

    def f_np(x_, w_):
        return np.sum((w_ * np.sin(1.5 * x_)) ** 2)

    np.testing.assert_allclose(np.asarray(gx), numeric_grad(lambda v: f_np(v, w), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.asarray(gw), numeric_grad(lambda v: f_np(x, v), w), rtol=1e-6, atol=1e-8)


def test_numpy_op_trains_with_grad():
    # Fit w in w * sin(x) to a target made with w* = [0.5, -2]: gradient descent must converge.
    op, _ = make_scaled_sin()
    x = t64(np.linspace(-2, 2, 12).reshape(6, 2))
    w_true = np.array([0.5, -2.0])
    target = t64(w_true * np.sin(np.asarray(x)))

    def loss(w):
        return spire.mean((op(x, w, k=1.0) - target) ** 2)

    w = t64([0.0, 0.0])
    first = float(loss(w))
    for _ in range(200):
        w = w - 0.5 * spire.grad(loss)(w)
    assert float(loss(w)) < 1e-8 * max(first, 1.0)
    np.testing.assert_allclose(np.asarray(w), w_true, atol=1e-4)


def test_backward_method_and_multi_output():
    @spire.custom_op(fresh("sincos"))
    def sincos(x):
        return np.sin(x), np.cos(x)

    @sincos.def_backward
    def _(x, out, dout):
        (s, c), (ds, dc) = out, dout
        return ds * c - dc * s

    x = np.array([0.3, -1.2, 2.0])
    s, c = sincos(t64(x))
    np.testing.assert_allclose(np.asarray(c), np.cos(x))
    g = spire.grad(lambda v: spire.sum(sincos(v)[0] * sincos(v)[1] ** 2))(t64(x))
    np.testing.assert_allclose(np.asarray(g), numeric_grad(lambda v: np.sum(np.sin(v) * np.cos(v) ** 2), x),
                               rtol=1e-6, atol=1e-9)


def test_infer_function_and_attribute_types():
    seen = {}

    def forward(x, **attrs):
        seen.update(attrs)
        return x.sum(axis=tuple(attrs["axes"]))

    def infer(x, **attrs):
        shape = tuple(n for i, n in enumerate(x.shape) if i not in attrs["axes"])
        return shape, x.dtype

    op = spire.custom_op(fresh("sum_axes"), forward, infer=infer, differentiable=False)
    y = op(t64(np.ones((2, 3, 4))), axes=[0, 2], scale=2.5, flag=True, label="s", dt=spire.float32, n=3)
    assert y.shape == (3,) and y.dtype == spire.float64
    np.testing.assert_array_equal(np.asarray(y), [8.0, 8.0, 8.0])
    assert seen == {"axes": [0, 2], "scale": 2.5, "flag": True, "label": "s", "dt": spire.float32, "n": 3}
    assert type(seen["n"]) is int and type(seen["flag"]) is bool
    with pytest.raises(TypeError, match="attribute 'bad'"):
        op(t64([1.0]), axes=[0], bad={"a": 1})


def test_jvp_numpy_rule():
    op = spire.custom_op(fresh("cube"), lambda x: x ** 3, backward=lambda x, out, dout: 3 * x ** 2 * dout,
                         jvp=lambda x, out, tx: 3 * x ** 2 * tx)
    x = np.array([0.5, -1.0, 2.0])
    v = np.array([1.0, 2.0, -1.0])
    y, ty = spire.jvp(lambda a: op(a), (t64(x),), (t64(v),))
    np.testing.assert_allclose(np.asarray(ty), 3 * x ** 2 * v)
    # vmap runs the op once per entry (no batching rule).
    ys = spire.vmap(lambda a: op(a))(t64(np.stack([x, v])))
    np.testing.assert_allclose(np.asarray(ys), np.stack([x, v]) ** 3)


def test_spire_rules_give_higher_derivatives():
    def backward(x, out, dout):
        return dout * 3 * x ** 2  # spire ops: differentiable again

    op = spire.custom_op(fresh("cube_spire"), lambda x: x ** 3, backward, rules="spire",
                         jvp=lambda x, out, tx: 3 * x ** 2 * tx)
    x = t64([0.5, -1.0, 2.0])
    f = lambda v: spire.sum(op(v))  # noqa: E731
    np.testing.assert_allclose(np.asarray(spire.grad(f)(x)), 3 * np.asarray(x) ** 2)
    h = spire.hessian(f)(x)
    np.testing.assert_allclose(np.asarray(h), np.diag(6 * np.asarray(x)), atol=1e-12)


def _cube_taylor(x, out, series):
    """Normalised coefficients of (x0 + x1 t + x2 t^2 + x3 t^3)^3 up to the order asked."""
    K = len(series[0])
    xs = [x] + [c if c is not None else spire.zeros_like(x) for c in series[0]] + [spire.zeros_like(x)] * 3
    z = [3 * x ** 2 * xs[1], 3 * x ** 2 * xs[2] + 3 * x * xs[1] ** 2,
         3 * x ** 2 * xs[3] + 6 * x * xs[1] * xs[2] + xs[1] ** 3]
    if K > 3:
        raise ValueError("this test rule stops at order 3")
    return z[:K]


def test_spire_rules_taylor_mode_matches_builtin_ops():
    name = fresh("cube_taylor")
    op = spire.custom_op(name, lambda x: x ** 3, lambda x, out, dout: dout * 3 * x ** 2, rules="spire",
                         jvp=lambda x, out, tx: 3 * x ** 2 * tx, taylor=_cube_taylor)
    x, v, w = t64([0.5, -1.0, 2.0]), t64([1.0, 0.3, -2.0]), t64([0.2, 0.0, 1.5])
    _, got = spire.jet(op, (x,), ((v, w, None),))
    _, want = spire.jet(lambda y: y * y * y, (x,), ((v, w, None),))
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-13, atol=1e-13)
    # The Laplacian runs the rule batched over directions: sum_i 6 x_i for sum(x^3).
    pts = t64([[0.5, -1.0, 2.0], [1.0, 2.0, 3.0]])
    lap = spire.laplacian(lambda p: spire.sum(op(p), -1))(pts)
    np.testing.assert_allclose(np.asarray(lap), 6 * np.asarray(pts).sum(-1), rtol=1e-13)
    # And reverse mode through the Taylor rule (a PINN's loss gradient).
    g = spire.grad(lambda p: spire.sum(spire.laplacian(lambda q: spire.sum(op(q), -1))(p)))(pts)
    np.testing.assert_allclose(np.asarray(g), np.full((2, 3), 6.0), rtol=1e-13)


def test_taylor_mode_without_a_rule_names_the_op():
    name = fresh("cube_no_taylor")
    op = spire.custom_op(name, lambda x: x ** 3, lambda x, out, dout: dout * 3 * x ** 2, rules="spire")
    with pytest.raises(spire.AutodiffError, match=f"'{name}' has no Taylor rule.*taylor="):
        spire.jet(op, (t64([1.0]),), ((t64([1.0]),),))
    with pytest.raises(ValueError, match="rules='spire'"):
        spire.custom_op(fresh("np_taylor"), lambda x: x, lambda x, out, dout: dout, taylor=_cube_taylor)
    op.def_taylor(_cube_taylor)
    _, (d1,) = spire.jet(op, (t64([2.0]),), ((t64([1.0]),),))
    np.testing.assert_allclose(np.asarray(d1), [12.0])


def test_numpy_rules_refuse_second_derivatives():
    name = fresh("cube_np")
    op = spire.custom_op(name, lambda x: x ** 3, lambda x, out, dout: 3 * x ** 2 * dout,
                         jvp=lambda x, out, tx: 3 * x ** 2 * tx)
    f = lambda v: spire.sum(op(v))  # noqa: E731
    x = t64([1.0, 2.0])
    np.testing.assert_allclose(np.asarray(spire.grad(f)(x)), [3.0, 12.0])  # first order: fine
    # Reverse over reverse (create_graph) and forward over reverse both need the backward's derivative.
    with pytest.raises(spire.AutodiffError, match=f"'{name}.backward'.*rules='spire'"):
        spire.grad(lambda v: spire.sum(spire.grad(f)(v)))(x)
    with pytest.raises(spire.AutodiffError, match=f"'{name}.backward'.*rules='spire'"):
        spire.hessian(f)(x)


def test_errors_name_the_op_and_keep_python_messages():
    def forward(x):
        raise ValueError("boom from forward")

    op = spire.custom_op(fresh("raises"), forward)
    with pytest.raises(ValueError, match="boom from forward"):
        op(t64([1.0]))

    name = fresh("no_backward")
    nb = spire.custom_op(name, lambda x: 2 * x)
    with pytest.raises(spire.AutodiffError, match=f"custom op '{name}' has no backward"):
        spire.grad(lambda v: spire.sum(nb(v)))(t64([1.0]))
    with pytest.raises(spire.AutodiffError, match=f"custom op '{name}' has no forward-mode rule"):
        spire.jvp(lambda v: nb(v), (t64([1.0]),), (t64([1.0]),))
    with pytest.raises(spire.AutodiffError, match=f"'{name}' has no Taylor rule"):
        spire.laplacian(lambda v: spire.sum(nb(v)))(t64([1.0, 2.0]))

    with pytest.raises(ValueError, match=f"'{name}' is already registered"):
        spire.custom_op(name, lambda x: x)
    with pytest.raises(ValueError, match="'exp' is already registered"):
        spire.custom_op("exp", lambda x: x)
    spire.custom_op(name, lambda x: 5 * x, replace=True)
    np.testing.assert_allclose(np.asarray(nb(t64([1.0]))), [5.0])

    bad = spire.custom_op(fresh("bad_backward"), lambda x: x, lambda x, out, dout: np.ones(7))
    with pytest.raises(spire.ShapeError, match="gradient of input 0"):
        spire.grad(lambda v: spire.sum(bad(v)))(t64([1.0, 2.0]))

    with pytest.raises(ValueError, match="unknown op 'no.such.op'"):
        spire.custom.call("no.such.op", t64([1.0]))


def test_builtin_ops_by_name():
    y = spire.custom.call("exp", t64([0.0, 1.0]))
    np.testing.assert_allclose(np.asarray(y), [1.0, np.e])
    assert "exp" in spire.custom.op_names()


# --- the C++ example plugin (examples/custom_op), built by the test build next to the engine ----


def _engine_dir():
    with open("/proc/self/maps") as maps:
        for line in maps:
            if line.rstrip().endswith("libspire_engine.so"):
                return os.path.dirname(line.split()[-1])
    return None


def _example_plugin():
    d = _engine_dir()
    path = d and os.path.join(d, "libspire_example_ops.so")
    assert path and os.path.exists(path), (
        f"the example plugin libspire_example_ops.so is not built next to libspire_engine.so ({d}): "
        "build the target spire_example_ops (make test does)")
    return path


def test_cpp_plugin_from_python():
    path = _example_plugin()
    assert spire.custom.load_library(path) == ["example.smooth_abs"]
    x = np.array([-1.5, -0.2, 0.4, 2.0])
    y = spire.custom.call("example.smooth_abs", t64(x), eps=0.5)
    np.testing.assert_allclose(np.asarray(y), np.sqrt(x ** 2 + 0.25), rtol=1e-15)
    g = spire.grad(lambda v: spire.sum(spire.custom.call("example.smooth_abs", v, eps=0.5) ** 2))(t64(x))
    np.testing.assert_allclose(np.asarray(g), numeric_grad(lambda v: np.sum(v ** 2 + 0.25), x), rtol=1e-6)
    # A C++ op has a Taylor rule: the Laplacian works, sum eps^2 / y^3.
    lap = spire.laplacian(lambda v: spire.sum(spire.custom.call("example.smooth_abs", v, eps=0.5)))(t64(x))
    np.testing.assert_allclose(float(lap), np.sum(0.25 / (x ** 2 + 0.25) ** 1.5), rtol=1e-12)


def test_load_library_errors():
    with pytest.raises(OSError, match="no such file"):
        spire.custom.load_library("/nonexistent/libnothing.so")


def test_tensor_backward_and_errors_inside_backward():
    calls = []

    def backward(x, out, dout):
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("backward failed on purpose")
        return 2 * x * dout

    op = spire.custom_op(fresh("square"), lambda x: x * x, backward)
    x = spire.tensor(np.array([1.0, -3.0]), requires_grad=True)
    spire.sum(op(x)).backward()
    np.testing.assert_allclose(np.asarray(x.grad), [2.0, -6.0])
    with pytest.raises(RuntimeError, match="backward failed on purpose"):
        spire.sum(op(x)).backward()
