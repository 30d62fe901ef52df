"""The PINN training-step cases: a Laplacian loss on a batch of collocation points and its gradient
w.r.t. the network's parameters, next to the plain forward pass of the same network on the same
points, in Spire, PyTorch and JAX. Like cases.py, each builder returns (fn, result) and runs inside
its framework's worker process.

Model: u: R^d -> R, an MLP with HIDDEN_LAYERS tanh layers of WIDTH units and a linear output;
float32; N_POINTS points x uniform in [-1, 1]^d and a fixed source term s(x). The step is
loss = mean((laplacian(u)(x) - s(x))^2) and its gradient w.r.t. the 2 * (HIDDEN_LAYERS + 1)
parameter tensors (no optimizer update: every framework computes the same two things)."""
import math

import numpy as np

N_POINTS, WIDTH, HIDDEN_LAYERS = 4096, 64, 4
DIMS = (2, 8, 32)


def pinn_data(d):
    rng = np.random.default_rng(100 + d)
    x = rng.uniform(-1.0, 1.0, (N_POINTS, d)).astype(np.float32)
    # s = laplacian of sum_i sin(pi x_i): a smooth target of the size a Poisson problem has.
    s = (-math.pi ** 2 * np.sin(math.pi * x).sum(-1, keepdims=True)).astype(np.float32)
    sizes = [d] + [WIDTH] * HIDDEN_LAYERS + [1]
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) / math.sqrt(fan_in)).astype(np.float32))
        params.append((0.1 * rng.standard_normal(fan_out)).astype(np.float32))
    return x, s, params


def mlp(params, x, matmul, tanh):
    """[..., d] -> [..., 1]."""
    h = x
    n = len(params) // 2
    for l in range(n):
        h = matmul(h, params[2 * l]) + params[2 * l + 1]
        if l + 1 < n:
            h = tanh(h)
    return h


def _spire(d, what):
    from cases import _import, _np, _sp  # not at the top: cases.py imports this module
    sp = _import("spire")
    x, s, params = pinn_data(d)
    sx, ss = _sp(sp, x), _sp(sp, s)
    ps = [_sp(sp, p) for p in params]
    if what == "forward":
        f = lambda: mlp(ps, sx, sp.matmul, sp.tanh)  # noqa: E731
        return f, (lambda: _np(f()))
    def loss(p):
        lap = sp.laplacian(lambda pts: mlp(p, pts, sp.matmul, sp.tanh))(sx)
        r = lap - ss
        return sp.mean(r * r)

    vg = sp.value_and_grad(loss)
    f = lambda: vg(ps)  # noqa: E731

    def result():
        value, grads = f()
        return [_np(value)] + [_np(g) for g in grads]

    return f, result


def _torch(d, what):
    from cases import _import
    torch = _import("torch")
    x, s, params = pinn_data(d)
    tx, ts = torch.from_numpy(x), torch.from_numpy(s)
    leaves = [torch.from_numpy(p).clone().requires_grad_(True) for p in params]
    if what == "forward":
        def f():
            with torch.no_grad():
                return mlp(leaves, tx, torch.matmul, torch.tanh)
        return f, (lambda: f().numpy())

    def loss():
        # The usual PINN code: the input gradient with create_graph, then one more
        # autograd.grad per coordinate for the diagonal of the Hessian.
        xr = tx.clone().requires_grad_(True)
        u = mlp(leaves, xr, torch.matmul, torch.tanh)
        (g,) = torch.autograd.grad(u.sum(), xr, create_graph=True)
        lap = 0
        for i in range(d):
            (gi,) = torch.autograd.grad(g[:, i].sum(), xr, create_graph=True)
            lap = lap + gi[:, i:i + 1]
        return ((lap - ts) ** 2).mean()

    def f():
        value = loss()
        # The output bias does not reach the Laplacian: its gradient is zero, not an error.
        return value, torch.autograd.grad(value, leaves, allow_unused=True, materialize_grads=True)

    def result():
        value, grads = f()
        return [value.detach().numpy()] + [g.numpy() for g in grads]

    return f, result


def _jax(d, what, laplacian="hessian"):
    from cases import _import
    jax = _import("jax")
    jnp = jax.numpy
    x, s, params = pinn_data(d)
    jx, js = jnp.asarray(x), jnp.asarray(s)
    ps = tuple(jnp.asarray(p) for p in params)
    if what == "forward":
        fwd = jax.jit(lambda p, pts: mlp(p, pts, jnp.matmul, jnp.tanh))
        f = lambda: jax.block_until_ready(fwd(ps, jx))  # noqa: E731
        return f, (lambda: np.asarray(f()))

    if laplacian == "hessian":
        def lap_fn(p, pts):
            u = lambda q: mlp(p, q, jnp.matmul, jnp.tanh)[0]  # noqa: E731 -- one point: [d] -> []
            return jax.vmap(lambda q: jnp.trace(jax.hessian(u)(q)))(pts)[:, None]
    elif laplacian == "jet":
        from jax.experimental.jet import jet

        def lap_fn(p, pts):
            # Second-order jets along e_i (the same for every point), one per coordinate, mapped
            # over i: d2u/dx_i2 = 2nd coefficient; summed over i.
            u = lambda q: mlp(p, q, jnp.matmul, jnp.tanh)  # noqa: E731
            zero = jnp.zeros_like(pts)

            def second(e):
                _, (_, u2) = jet(u, (pts,), ((jnp.broadcast_to(e, pts.shape), zero),))
                return u2

            return jax.vmap(second)(jnp.eye(d, dtype=pts.dtype)).sum(0)
    else:
        raise ValueError(laplacian)

    def loss(p):
        r = lap_fn(p, jx) - js
        return jnp.mean(r * r)

    vg = jax.jit(jax.value_and_grad(loss))
    f = lambda: jax.block_until_ready(vg(ps))  # noqa: E731

    def result():
        value, grads = f()
        return [np.asarray(value)] + [np.asarray(g) for g in grads]

    return f, result


def pinn(fw, d, what, laplacian="hessian"):
    """what: 'forward' (u at the points) or 'step' (the loss and its gradient w.r.t. the
    parameters). laplacian: JAX's way, 'hessian' or 'jet'."""
    if fw == "spire":
        return _spire(d, what)
    if fw == "torch":
        return _torch(d, what)
    if fw == "jax":
        return _jax(d, what, laplacian)
    raise ValueError(fw)
