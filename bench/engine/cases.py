"""What is timed: for each benchmark case and framework, a builder that returns (fn, result), where fn
is the zero-argument call to time and result() gives NumPy arrays to check against the other
frameworks. Builders run inside a worker process that has imported only NumPy and its one
framework (see workers.py), so thread pools of different libraries never compete."""
import math

import numpy as np

from pinn import pinn
from train_step import train_step

BATCH, WIDTH, LAYERS = 1024, 256, 4
N_ELEM = 1 << 24
N_FFT = 1 << 20


def _import(fw):
    if fw == "numpy":
        return np
    if fw == "spire":
        import spire
        return spire
    if fw == "torch":
        import torch
        return torch
    if fw == "jax":
        import jax
        jax.config.update("jax_platforms", "cpu")
        import jax.numpy  # noqa: F401
        return jax
    raise ValueError(fw)


def version(fw):
    m = _import(fw)
    if fw == "torch":
        return f"{m.__version__} ({m.get_num_threads()} threads)"
    return getattr(m, "__version__", "?")


def _sp(sp, a):
    return sp.from_numpy(np.ascontiguousarray(a).copy())


def _np(t):
    return np.asarray(t)


# ---------------------------------------------------------------------------------------------

def add(fw, n):
    a, b = np.ones(n, np.float32), np.full(n, 2.0, np.float32)
    m = _import(fw)
    if fw == "numpy":
        return (lambda: a + b), (lambda: a + b)
    if fw == "spire":
        sa, sb = _sp(m, a), _sp(m, b)
        return (lambda: sa + sb), (lambda: _np(sa + sb))
    if fw == "torch":
        ta, tb = m.from_numpy(a), m.from_numpy(b)
        return (lambda: ta + tb), (lambda: (ta + tb).numpy())
    raise ValueError(fw)


def matmul(fw, n, dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal((n, n)).astype(dtype)
    m = _import(fw)
    if fw == "numpy":
        return (lambda: a @ b), (lambda: a @ b)
    if fw == "spire":
        sa, sb = _sp(m, a), _sp(m, b)
        return (lambda: m.matmul(sa, sb)), (lambda: _np(m.matmul(sa, sb)))
    if fw == "torch":
        ta, tb = m.from_numpy(a), m.from_numpy(b)
        return (lambda: ta @ tb), (lambda: (ta @ tb).numpy())
    raise ValueError(fw)


# The MLP: 4 dense layers 256 -> 256, tanh after the first 3, batch 1024, float32,
# loss = mean(out * out), derivatives w.r.t. the 8 parameter tensors.

def mlp_data():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    params, direction = [], []
    for _ in range(LAYERS):
        params.append((rng.standard_normal((WIDTH, WIDTH)) / math.sqrt(WIDTH)).astype(np.float32))
        params.append((0.1 * rng.standard_normal(WIDTH)).astype(np.float32))
    for p in params:
        direction.append(rng.standard_normal(p.shape).astype(np.float32))
    return x, params, direction


def mlp_loss(x, params, matmul, tanh, mean):
    h = x
    for l in range(LAYERS):
        h = matmul(h, params[2 * l]) + params[2 * l + 1]
        if l + 1 < LAYERS:
            h = tanh(h)
    return mean(h * h)


def mlp(fw, what):
    """what: 'grad' (the framework's usual way), 'funcgrad' (torch.func.grad), or 'hvp'."""
    x, params, direction = mlp_data()
    m = _import(fw)
    if fw == "spire":
        sx = _sp(m, x)
        ps, vs = [_sp(m, p) for p in params], [_sp(m, v) for v in direction]

        def loss(p):
            return mlp_loss(sx, p, m.matmul, m.tanh, m.mean)

        if what == "grad":
            g = m.grad(loss)
            return (lambda: g(ps)), (lambda: [_np(t) for t in g(ps)])
        if what == "hvp":  # the result has the structure of primals: a 1-tuple holding the list
            h = lambda: m.hvp(loss, (ps,), (vs,))[0]  # noqa: E731
            return h, (lambda: [_np(t) for t in h()])
    if fw == "torch":
        from torch.func import grad as fgrad, jvp as fjvp
        tx = m.from_numpy(x)
        leaves = [m.from_numpy(p).clone().requires_grad_(True) for p in params]
        plain = tuple(m.from_numpy(p) for p in params)
        vs = tuple(m.from_numpy(v) for v in direction)

        def loss(*p):
            return mlp_loss(tx, p, m.matmul, m.tanh, m.mean)

        g_all = fgrad(loss, argnums=tuple(range(len(params))))
        if what == "grad":
            f = lambda: m.autograd.grad(loss(*leaves), leaves)  # noqa: E731
        elif what == "funcgrad":
            f = lambda: g_all(*plain)  # noqa: E731
        elif what == "hvp":
            f = lambda: fjvp(g_all, plain, vs)[1]  # noqa: E731
        return f, (lambda: [t.detach().numpy() for t in f()])
    if fw == "jax":
        jnp = m.numpy
        jx = jnp.asarray(x)
        ps = tuple(jnp.asarray(p) for p in params)
        vs = tuple(jnp.asarray(v) for v in direction)

        def loss(p):
            return mlp_loss(jx, p, jnp.matmul, jnp.tanh, jnp.mean)

        if what == "grad":
            g = m.jit(m.grad(loss))
            f = lambda: m.block_until_ready(g(ps))  # noqa: E731
        elif what == "hvp":
            h = m.jit(lambda p, v: m.jvp(m.grad(loss), (p,), (v,))[1])
            f = lambda: m.block_until_ready(h(ps, vs))  # noqa: E731
        return f, (lambda: [np.asarray(t) for t in f()])
    raise ValueError(f"{fw} {what}")


# Memory-bound work on 2^24 float32.

def _elem_input():
    return np.random.default_rng(2).uniform(-1, 1, N_ELEM).astype(np.float32)


ELEMENTWISE = {"axpb": lambda m, t: t * 1.5 + 0.25, "exp": lambda m, t: m.exp(t),
               "tanh": lambda m, t: m.tanh(t)}


def copy(fw):
    x = _elem_input()
    y = np.empty_like(x)
    return (lambda: np.copyto(y, x)), (lambda: y)


def elementwise(fw, op):
    x = _elem_input()
    m = _import(fw)
    f = ELEMENTWISE[op]
    if fw == "numpy":
        return (lambda: f(np, x)), (lambda: f(np, x))
    if fw == "spire":
        sx = _sp(m, x)
        return (lambda: f(m, sx)), (lambda: _np(f(m, sx)))
    if fw == "torch":
        tx = m.from_numpy(x)
        return (lambda: f(m, tx)), (lambda: f(m, tx).numpy())
    raise ValueError(fw)


def rfft(fw):
    x = np.random.default_rng(3).standard_normal(N_FFT)
    m = _import(fw)
    if fw == "numpy":
        return (lambda: np.fft.rfft(x)), (lambda: np.fft.rfft(x))
    if fw == "spire":
        sx = _sp(m, x)
        return (lambda: m.fft.rfft(sx)), (lambda: _np(m.fft.rfft(sx)))
    if fw == "torch":
        tx = m.from_numpy(x)
        return (lambda: m.fft.rfft(tx)), (lambda: m.fft.rfft(tx).numpy())
    raise ValueError(fw)


BUILDERS = {"add": add, "matmul": matmul, "mlp": mlp, "copy": copy, "elementwise": elementwise,
            "rfft": rfft, "pinn": pinn, "train_step": train_step}
