"""vmap from Python: results against Python loops over the batch, axes and pytrees, nesting,
composition with grad and jet, and error messages."""
import numpy as np
import pytest

import spire

rng = np.random.default_rng(3)


def T(a):
    return spire.tensor(np.asarray(a, dtype=np.float64))


def close(a, b, **kw):
    kw.setdefault("rtol", 1e-12)
    kw.setdefault("atol", 1e-12)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), **kw)


def loop(f, n, *args):
    """f applied entry by entry (args given as per-entry callables), stacked on axis 0."""
    return np.stack([np.asarray(f(*[a(i) for a in args])) for i in range(n)])


def layer(x, w, b):
    return spire.tanh(w @ x + b)


def test_matches_python_loop():
    xs, w, b = rng.standard_normal((6, 3)), rng.standard_normal((4, 3)), rng.standard_normal(4)
    out = spire.vmap(layer, in_axes=(0, None, None))(T(xs), T(w), T(b))
    assert out.shape == (6, 4)
    close(out, loop(layer, 6, lambda i: T(xs[i]), lambda i: T(w), lambda i: T(b)))
    close(out, np.tanh(xs @ w.T + b))


def test_several_ops_against_loop():
    def f(x, y):
        z = spire.exp(x) * y.sum() - x @ spire.ones((3, 2), dtype=spire.float64)[:, 0]
        return spire.stack([z.max(), spire.sqrt((x * x).sum()), (x[1:] * y[:2]).sum()])

    xs, ys = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    close(spire.vmap(f)(T(xs), T(ys)), loop(f, 5, lambda i: T(xs[i]), lambda i: T(ys[i])))


def test_in_axes_out_axes_and_negative_axes():
    a = rng.standard_normal((3, 5, 2))
    f = lambda x: x * 2.0 + 1.0  # noqa: E731
    out = spire.vmap(f, in_axes=1)(T(a))          # mapped axis of size 5, first in the output
    close(out, np.moveaxis(a, 1, 0) * 2 + 1)
    out = spire.vmap(f, in_axes=1, out_axes=1)(T(a))
    close(out, a * 2 + 1)
    out = spire.vmap(lambda x: x.sum(0), in_axes=-1, out_axes=-1)(T(a))  # [3, 5] per entry... summed
    close(out, a.sum(0))
    mat, vecs = rng.standard_normal((4, 4)), rng.standard_normal((4, 7))
    close(spire.vmap(lambda m, v: m @ v, in_axes=(None, 1), out_axes=1)(T(mat), T(vecs)), mat @ vecs)


def test_pytrees_with_prefix_axes():
    params = {"w": T(rng.standard_normal((3, 2))), "scale": T(rng.standard_normal(4))}
    xs = rng.standard_normal((4, 3))

    def f(p, x, tag):
        assert tag == "anything"  # unmapped leaves are passed through untouched
        y = (x @ p["w"]) * p["scale"]
        return {"y": y, "pair": (y.sum(), x)}

    out = spire.vmap(f, in_axes=({"w": None, "scale": 0}, 0, None))(params, T(xs), "anything")
    w, s = params["w"].numpy(), params["scale"].numpy()
    y = (xs @ w) * s[:, None]
    close(out["y"], y)
    close(out["pair"][0], y.sum(1))
    close(out["pair"][1], xs)
    out = spire.vmap(f, in_axes=({"w": None, "scale": 0}, 0, None),
                     out_axes={"y": 1, "pair": (0, -1)})(params, T(xs), "anything")
    close(out["y"], y.T)
    close(out["pair"][1], xs.T)


def test_keyword_arguments_are_mapped_over_axis_0():
    xs, ys = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    out = spire.vmap(lambda x, y=None: x * y, in_axes=(0,))(T(xs), y=T(ys))
    close(out, xs * ys)


def test_nested_vmap_outer_product_and_matmul():
    a, b = rng.standard_normal(4), rng.standard_normal(5)
    outer = spire.vmap(spire.vmap(lambda x, y: x * y, in_axes=(None, 0)), in_axes=(0, None))
    close(outer(T(a), T(b)), np.outer(a, b))
    m, n = rng.standard_normal((3, 6)), rng.standard_normal((6, 2))
    dot = lambda r, c: (r * c).sum()  # noqa: E731
    mm = spire.vmap(spire.vmap(dot, in_axes=(None, 1)), in_axes=(0, None))
    close(mm(T(m), T(n)), m @ n)


def test_unmapped_output_is_broadcast():
    out = spire.vmap(lambda x, c: c * 2.0, in_axes=(0, None))(T(np.ones((3, 2))), T([1.0, 2.0]))
    close(out, np.tile([2.0, 4.0], (3, 1)))


def test_grad_of_vmapped_loss_matches_loop():
    xs, w = rng.standard_normal((5, 3)), rng.standard_normal(3)

    def per_example(wv, x):
        return spire.sin(x @ wv) ** 2

    batched = lambda wv: spire.vmap(per_example, in_axes=(None, 0))(wv, T(xs)).sum()  # noqa: E731
    looped = lambda wv: sum(per_example(wv, T(x)) for x in xs)  # noqa: E731
    close(spire.grad(batched)(T(w)), spire.grad(looped)(T(w)))
    z = xs @ w
    close(spire.grad(batched)(T(w)), (2 * np.sin(z) * np.cos(z)) @ xs)


def test_jet_of_vmapped_function():
    # jet of a vmapped function: the series of every entry at once
    xs, vs = rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    _, s = spire.jet(spire.vmap(lambda x: spire.exp(x).sum()), (T(xs),), ([T(vs), None],))
    close(s[0], (np.exp(xs) * vs).sum(1))
    close(s[1], (np.exp(xs) * vs * vs).sum(1))


def test_data_of_a_mapped_tensor_cannot_be_read():
    with pytest.raises(ValueError, match="inside vmap has no data"):
        spire.vmap(lambda x: spire.tensor(x.numpy()))(T(np.ones((2, 3))))


def test_errors():
    x3, x4 = T(np.ones((3, 2))), T(np.ones((4, 2)))
    add = lambda a, b: a + b  # noqa: E731
    with pytest.raises(TypeError, match="vmap: f must be callable"):
        spire.vmap(None)
    with pytest.raises(ValueError, match="different sizes: axis 0 of argument 0 has size 3, axis 0 of "
                                         "argument 1 has size 4"):
        spire.vmap(add)(x3, x4)
    with pytest.raises(ValueError, match="no argument is mapped"):
        spire.vmap(add, in_axes=None)(x3, x3)
    with pytest.raises(ValueError, match="in_axes has 1 entries for 2 positional arguments"):
        spire.vmap(add, in_axes=(0,))(x3, x3)
    with pytest.raises(ValueError, match=r"in_axes 2 is out of range for argument 0, a tensor of shape \[3, 2"):
        spire.vmap(lambda a: a, in_axes=2)(x3)
    with pytest.raises(ValueError, match="does not match the structure"):
        spire.vmap(lambda p: p["a"], in_axes=({"b": 0},))({"a": x3})
    with pytest.raises(TypeError, match="out_axes must be an int"):
        spire.vmap(add, out_axes=None)
    with pytest.raises(TypeError, match="in_axes must be an int, None, or a tuple"):
        spire.vmap(add, in_axes="0")
    with pytest.raises(ValueError, match="out_axes 3 is out of range"):
        spire.vmap(lambda a: a, out_axes=3)(x3)
    with pytest.raises(spire.AutodiffError, match="grad inside vmap is not supported"):
        spire.vmap(spire.grad(lambda a: (a * a).sum()))(x3)
