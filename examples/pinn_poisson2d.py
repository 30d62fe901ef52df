"""A physics-informed neural network (PINN) for the 2D Poisson equation.

    -Laplacian(u) = f  on [0, 1]^2,   u = 0 on the boundary,
    f = 2 pi^2 sin(pi x) sin(pi y),   so that u = sin(pi x) sin(pi y).

A tanh MLP u(x, y) is trained on the squared PDE residual at random collocation points plus the
squared boundary values. The residual needs the network's Laplacian at every point:
``spire.laplacian`` computes it in one forward-Laplacian pass (the value, d first-order tangents and
one summed second-order term), and reverse mode differentiates that pass with respect to the
weights. Adam finds the basin, L-BFGS with a strong-Wolfe line search converges. Prints the
relative L2 error against the exact solution on a 101x101 grid, and the wall time.

    PYTHONPATH=python python3 examples/pinn_poisson2d.py [--seed 0] [--lbfgs-iterations 2000]
"""

import argparse
import math
import time

import spire
from spire import optim

DTYPE = spire.float64  # float32 stalls above a relative error of 1e-3


def mlp_params(widths, gen):
    """Glorot-normal weights and zero biases of a multilayer perceptron, as leaves to optimize."""
    params = []
    for n_in, n_out in zip(widths[:-1], widths[1:]):
        sd = math.sqrt(2.0 / (n_in + n_out))
        params.append(spire.random.normal((n_in, n_out), 0.0, sd, DTYPE, gen).requires_grad_())
        params.append(spire.zeros(n_out, dtype=DTYPE).requires_grad_())
    return params


def mlp(params, x):
    """The network at points x ([..., 2]) -> [...]: tanh on every hidden layer."""
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = spire.tanh(h)
    return h[..., 0]


def exact(x):
    return spire.sin(math.pi * x[..., 0]) * spire.sin(math.pi * x[..., 1])


def boundary_points(n, gen):
    """n random points on each side of the unit square."""
    s = spire.random.uniform((n,), 0.0, 1.0, DTYPE, gen)
    o, l = spire.zeros(n, dtype=DTYPE), spire.ones(n, dtype=DTYPE)
    return spire.concat([spire.stack([s, o], 1), spire.stack([s, l], 1),
                         spire.stack([o, s], 1), spire.stack([l, s], 1)], 0)


def grid_points(n):
    t = spire.linspace(0.0, 1.0, n, dtype=DTYPE)
    x = spire.broadcast_to(t.reshape(n, 1), (n, n))
    y = spire.broadcast_to(t.reshape(1, n), (n, n))
    return spire.stack([x, y], -1).reshape(n * n, 2)


def relative_l2(u, v):
    return math.sqrt(float(((u - v) ** 2).sum()) / float((v ** 2).sum()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--interior", type=int, default=1000, help="collocation points")
    ap.add_argument("--per-side", type=int, default=64, help="boundary points on each side")
    ap.add_argument("--boundary-weight", type=float, default=100.0)
    ap.add_argument("--adam-steps", type=int, default=1000)
    ap.add_argument("--lbfgs-iterations", type=int, default=2000)
    args = ap.parse_args()

    t0 = time.perf_counter()
    gen = spire.random.Generator(args.seed)
    params = mlp_params([2, args.width, args.width, args.width, 1], gen)
    x = spire.random.uniform((args.interior, 2), 0.0, 1.0, DTYPE, gen)
    xb = boundary_points(args.per_side, gen)
    f = 2 * math.pi ** 2 * exact(x)

    def u(p):
        return mlp(params, p)

    laplacian_u = spire.laplacian(u)

    def loss_fn():
        residual = laplacian_u(x) + f  # -Laplacian(u) = f
        return (residual ** 2).mean() + args.boundary_weight * (u(xb) ** 2).mean()

    grid = grid_points(101)
    u_grid = exact(grid)

    def error():
        with spire.no_grad():
            return relative_l2(u(grid), u_grid)

    adam = optim.Adam(params, lr=1e-3)
    for step in range(args.adam_steps):
        adam.zero_grad()
        loss = loss_fn()
        loss.backward()
        adam.step()
    print(f"Adam   {args.adam_steps:5d} steps       loss {float(loss):.3e}  "
          f"rel. L2 error {error():.3e}  ({time.perf_counter() - t0:.1f} s)")

    lbfgs = optim.LBFGS(params, max_iter=100, history_size=50, tolerance_grad=1e-10,
                        tolerance_change=1e-14, line_search_fn="strong_wolfe")

    def closure():
        lbfgs.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    report = 500
    while lbfgs.iterations < args.lbfgs_iterations:
        before = lbfgs.iterations
        loss = lbfgs.step(closure)
        if lbfgs.iterations >= report:
            report += 500
            print(f"L-BFGS {lbfgs.iterations:5d} iterations  loss {float(loss):.3e}  "
                  f"rel. L2 error {error():.3e}  ({time.perf_counter() - t0:.1f} s)")
        if lbfgs.iterations == before:
            break  # converged to the tolerances: no iteration left to make

    err = error()
    wall = time.perf_counter() - t0
    print(f"final relative L2 error {err:.3e} on a 101x101 grid "
          f"({lbfgs.iterations} L-BFGS iterations, {lbfgs.function_evaluations} loss evaluations)")
    print(f"wall time {wall:.1f} s")
    return err


if __name__ == "__main__":
    main()
