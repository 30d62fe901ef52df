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
from pinn_common import DTYPE, grid_points, mlp, mlp_params, relative_l2, train


def exact(x):
    return spire.sin(math.pi * x[..., 0]) * spire.sin(math.pi * x[..., 1])


def boundary_points(n, gen):
    """n random points on each side of the unit square."""
    s = spire.random.uniform((n,), 0.0, 1.0, DTYPE, gen)
    o, l = spire.zeros(n, dtype=DTYPE), spire.ones(n, dtype=DTYPE)
    return spire.concat([spire.stack([s, o], 1), spire.stack([s, l], 1),
                         spire.stack([o, s], 1), spire.stack([l, s], 1)], 0)


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

    return train(params, loss_fn, error, args.adam_steps, args.lbfgs_iterations, t0, "101x101 grid")


if __name__ == "__main__":
    main()
