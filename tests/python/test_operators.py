"""Operators, broadcasting, promotion, weak scalars and elementwise functions against NumPy."""
import math

import numpy as np
import pytest

import spire

rng = np.random.default_rng(0)


def T(a):
    return spire.tensor(np.asarray(a))


SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 4)), ((4, 1, 3), (2, 1)), ((), (2, 2))]


@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
def test_binary_broadcasting(sa, sb, op):
    a = rng.normal(size=sa)
    b = rng.normal(size=sb) + 3.0
    expected = eval(f"a {op} b")
    got = eval(f"T(a) {op} T(b)")
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)


def test_pow_and_matmul():
    a = rng.uniform(0.5, 2.0, size=(3, 4))
    b = rng.normal(size=(4, 2))
    np.testing.assert_allclose((T(a) ** 3).numpy(), a ** 3, rtol=1e-12)
    np.testing.assert_allclose((T(a) ** 0.5).numpy(), a ** 0.5, rtol=1e-12)
    np.testing.assert_allclose((2.0 ** T(a)).numpy(), 2.0 ** a, rtol=1e-12)
    np.testing.assert_allclose((T(a) ** T(a)).numpy(), a ** a, rtol=1e-12)
    np.testing.assert_allclose((T(a) @ T(b)).numpy(), a @ b, rtol=1e-12)
    np.testing.assert_allclose((a @ T(b)).numpy(), a @ b, rtol=1e-12)  # __rmatmul__ via NumPy deferral
    v = rng.normal(size=4)
    np.testing.assert_allclose((T(a) @ T(v)).numpy(), a @ v, rtol=1e-12)


def test_reflected_and_unary():
    a = rng.normal(size=(2, 3))
    np.testing.assert_allclose((1.0 - T(a)).numpy(), 1.0 - a)
    np.testing.assert_allclose((2.0 / (T(a) + 5)).numpy(), 2.0 / (a + 5))
    np.testing.assert_allclose((3 + T(a)).numpy(), 3 + a)
    np.testing.assert_allclose((-T(a)).numpy(), -a)
    np.testing.assert_allclose(abs(T(a)).numpy(), abs(a))
    np.testing.assert_allclose((+T(a)).numpy(), a)


def test_floor_divide_and_mod_follow_python():
    a = np.array([7.0, -7.0, 7.5, -7.5])
    b = np.array([2.0, 2.0, -2.0, -2.0])
    np.testing.assert_allclose((T(a) // T(b)).numpy(), a // b)
    np.testing.assert_allclose((T(a) % T(b)).numpy(), a % b)
    ai = np.array([7, -7, 9])
    bi = np.array([2, 2, -4])
    r = T(ai) // T(bi)
    assert r.dtype == spire.int64
    np.testing.assert_array_equal(r.numpy(), ai // bi)
    np.testing.assert_array_equal((T(ai) % T(bi)).numpy(), ai % bi)


def test_weak_python_scalars_keep_dtype():
    x = spire.ones(3, dtype=spire.float32)
    for y in (x * 2.0, 2.0 * x, x + 1, x - 1.5, x / 3, 1 / x, x ** 2, x ** 2.5):
        assert y.dtype == spire.float32
    i = spire.tensor([1, 2, 3], dtype=spire.int32)
    assert (i * 2).dtype == spire.int32
    assert (i * 2.5).dtype == spire.float32  # a float next to ints gives float32
    assert (x * 1j).dtype == spire.complex64
    d = spire.ones(2, dtype=spire.float64)
    assert (d * 2.0).dtype == spire.float64


def test_promotion_between_tensors():
    f32 = spire.ones(2, dtype=spire.float32)
    f64 = spire.ones(2, dtype=spire.float64)
    i32 = spire.ones(2, dtype=spire.int32)
    i64 = spire.ones(2, dtype=spire.int64)
    assert (f32 + f64).dtype == spire.float64
    assert (i32 + i64).dtype == spire.int64
    assert (i32 + f32).dtype == spire.float32
    assert (i64 / i64).dtype == spire.float32
    assert (f32 + spire.ones(2, dtype=spire.complex64)).dtype == spire.complex64


def test_comparisons_return_tensors():
    a = np.array([1.0, 2.0, 3.0])
    b = np.array([3.0, 2.0, 1.0])
    for op in ["==", "!=", "<", "<=", ">", ">="]:
        got = eval(f"T(a) {op} T(b)")
        assert isinstance(got, spire.Tensor) and got.dtype == spire.bool
        np.testing.assert_array_equal(got.numpy(), eval(f"a {op} b"))
    np.testing.assert_array_equal((T(a) > 1.5).numpy(), a > 1.5)
    np.testing.assert_array_equal((2 < T(a)).numpy(), 2 < a)


def test_logical_operators_on_bool():
    p = T(np.array([True, True, False, False]))
    q = T(np.array([True, False, True, False]))
    np.testing.assert_array_equal((p & q).numpy(), [True, False, False, False])
    np.testing.assert_array_equal((p | q).numpy(), [True, True, True, False])
    np.testing.assert_array_equal((p ^ q).numpy(), [False, True, True, False])
    np.testing.assert_array_equal((~p).numpy(), [False, False, True, True])
    with pytest.raises(TypeError):
        T(np.array([1, 2])) & T(np.array([1, 0]))


def test_bool_of_tensors():
    assert bool(spire.tensor(1.0))
    assert not bool(spire.tensor([0.0]))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(spire.ones(2))
    if spire.tensor(3) > 2:
        pass


UNARY = {
    "exp": (np.exp, (-2, 2)), "expm1": (np.expm1, (-2, 2)), "log": (np.log, (0.1, 3)),
    "log1p": (np.log1p, (-0.5, 3)), "sqrt": (np.sqrt, (0.1, 3)), "sin": (np.sin, (-3, 3)),
    "cos": (np.cos, (-3, 3)), "tan": (np.tan, (-1, 1)), "arcsin": (np.arcsin, (-0.9, 0.9)),
    "arccos": (np.arccos, (-0.9, 0.9)), "arctan": (np.arctan, (-3, 3)), "sinh": (np.sinh, (-2, 2)),
    "cosh": (np.cosh, (-2, 2)), "tanh": (np.tanh, (-2, 2)), "abs": (np.abs, (-2, 2)),
    "sign": (np.sign, (-2, 2)), "square": (np.square, (-2, 2)), "reciprocal": (np.reciprocal, (0.5, 2)),
    "rsqrt": (lambda a: 1 / np.sqrt(a), (0.5, 2)), "floor": (np.floor, (-3, 3)), "ceil": (np.ceil, (-3, 3)),
    "round": (np.round, (-3, 3)), "sigmoid": (lambda a: 1 / (1 + np.exp(-a)), (-3, 3)),
    "softplus": (lambda a: np.log1p(np.exp(a)), (-3, 3)),
    "erf": (np.vectorize(math.erf), (-2, 2)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_functions(name):
    ref, (lo, hi) = UNARY[name]
    a = rng.uniform(lo, hi, size=(3, 5))
    np.testing.assert_allclose(getattr(spire, name)(T(a)).numpy(), ref(a), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(getattr(T(a), name)().numpy(), ref(a), rtol=1e-10, atol=1e-12)


def test_binary_functions():
    a = rng.normal(size=(3, 4))
    b = rng.normal(size=(4,))
    np.testing.assert_allclose(spire.maximum(T(a), T(b)).numpy(), np.maximum(a, b))
    np.testing.assert_allclose(spire.minimum(T(a), 0.0).numpy(), np.minimum(a, 0.0))
    np.testing.assert_allclose(spire.arctan2(T(a), T(b)).numpy(), np.arctan2(a, b))
    np.testing.assert_allclose(spire.where(T(a) > 0, T(a), 0.0).numpy(), np.where(a > 0, a, 0.0))
    np.testing.assert_allclose(spire.clip(T(a), -0.5, 0.5).numpy(), np.clip(a, -0.5, 0.5))
    np.testing.assert_allclose(T(a).clamp(min=0).numpy(), np.maximum(a, 0))
    np.testing.assert_allclose(spire.add(a, 1.0).numpy(), a + 1.0)  # array-likes accepted


def test_complex_parts():
    z = rng.normal(size=4) + 1j * rng.normal(size=4)
    t = spire.tensor(z)
    assert t.dtype == spire.complex128
    np.testing.assert_allclose(t.real.numpy(), z.real)
    np.testing.assert_allclose(t.imag.numpy(), z.imag)
    np.testing.assert_allclose(t.conj().numpy(), z.conj())
    np.testing.assert_allclose(spire.angle(t).numpy(), np.angle(z))
    np.testing.assert_allclose(spire.complex(T(z.real), T(z.imag)).numpy(), z)
    np.testing.assert_allclose(abs(t).numpy(), abs(z))


def test_isnan_isfinite_cast():
    a = np.array([1.0, np.nan, np.inf, -2.0])
    np.testing.assert_array_equal(spire.isnan(T(a)).numpy(), np.isnan(a))
    np.testing.assert_array_equal(spire.isfinite(T(a)).numpy(), np.isfinite(a))
    t = T(np.array([1.7, -2.2]))
    assert t.astype(spire.int32).tolist() == [1, -2]
    assert t.astype("float32").dtype == spire.float32
    assert t.to(np.float32).dtype == spire.float32
    assert t.float().dtype == spire.float32 and t.double().dtype == spire.float64


REDUCTIONS = ["sum", "mean", "prod", "max", "min", "amax", "amin"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(name, axis, keepdims):
    a = rng.uniform(0.5, 1.5, size=(2, 3, 4))
    ref = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    got = getattr(spire, name)(T(a), axis=axis, keepdims=keepdims)
    assert got.shape == np.shape(ref)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(getattr(T(a), name)(axis, keepdims).numpy(), ref, rtol=1e-12)


def test_var_std_logsumexp_arg_cum():
    a = rng.normal(size=(3, 5))
    np.testing.assert_allclose(spire.var(T(a), axis=1).numpy(), a.var(axis=1))
    np.testing.assert_allclose(T(a).std(axis=0, ddof=1).numpy(), a.std(axis=0, ddof=1))
    np.testing.assert_allclose(spire.logsumexp(T(a), axis=1).numpy(), np.log(np.exp(a).sum(axis=1)))
    np.testing.assert_array_equal(spire.argmax(T(a), axis=1).numpy(), a.argmax(axis=1))
    np.testing.assert_array_equal(T(a).argmin().item(), a.argmin())
    np.testing.assert_allclose(spire.cumsum(T(a), axis=1).numpy(), np.cumsum(a, axis=1))
    np.testing.assert_allclose(T(a).cumprod(axis=0).numpy(), np.cumprod(a, axis=0))
    np.testing.assert_allclose(spire.cumsum(T(a)).numpy(), np.cumsum(a))
    b = a > 0
    assert bool(spire.any(T(b))) == b.any()
    np.testing.assert_array_equal(spire.all(T(b), axis=0).numpy(), b.all(axis=0))


def test_operator_with_unsupported_type():
    with pytest.raises(TypeError):
        spire.ones(2) + "a"
    with pytest.raises(TypeError):
        spire.ones(2) + object()
