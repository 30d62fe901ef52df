"""A physics-informed neural network (PINN) for the 1D heat equation.

    u_t = k u_xx  for x in [0, 1], t in [0, 1],   u(0, t) = u(1, t) = 0,   u(x, 0) = sin(pi x),

whose solution is u = exp(-k pi^2 t) sin(pi x). A tanh MLP u(x, t) is trained on the squared PDE
residual at random collocation points plus the squared misfit of the initial and boundary values.
The derivatives the residual needs come from Taylor mode, one jet per derivative:
``spire.derivative(u, 2, e_x)`` gives u_xx (a second-order jet along x) and
``spire.derivative(u, 1, e_t)`` gives u_t; reverse mode then differentiates both passes with
respect to the weights. Adam finds the basin, L-BFGS with a strong-Wolfe line search converges.
Prints the relative L2 error against the exact solution on a 101x101 grid of (x, t), and the wall
time.

    PYTHONPATH=python python3 examples/pinn_heat1d.py [--seed 0] [--k 0.1]
"""

import argparse
import math
import time

import spire
from pinn_common import DTYPE, grid_points, mlp, mlp_params, relative_l2, train


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--k", type=float, default=0.1, help="diffusivity")
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--interior", type=int, default=1000, help="collocation points")
    ap.add_argument("--edge", type=int, default=100, help="points on the initial line and on each boundary")
    ap.add_argument("--data-weight", type=float, default=10.0, help="weight of the initial/boundary terms")
    ap.add_argument("--adam-steps", type=int, default=1000)
    ap.add_argument("--lbfgs-iterations", type=int, default=2000)
    args = ap.parse_args()
    k = args.k

    def exact(z):
        return spire.exp(-k * math.pi ** 2 * z[..., 1]) * spire.sin(math.pi * z[..., 0])

    t0 = time.perf_counter()
    gen = spire.random.Generator(args.seed)
    params = mlp_params([2, args.width, args.width, args.width, 1], gen)
    z = spire.random.uniform((args.interior, 2), 0.0, 1.0, DTYPE, gen)
    # Initial line t = 0 and the two boundaries x = 0, x = 1, with their exact values.
    s = spire.random.uniform((3, args.edge), 0.0, 1.0, DTYPE, gen)
    o, l = spire.zeros(args.edge, dtype=DTYPE), spire.ones(args.edge, dtype=DTYPE)
    z_data = spire.concat([spire.stack([s[0], o], 1), spire.stack([o, s[1]], 1), spire.stack([l, s[2]], 1)], 0)
    u_data = exact(z_data)

    def u(p):
        return mlp(params, p)

    u_xx = spire.derivative(u, 2, spire.tensor([1.0, 0.0], dtype=DTYPE))
    u_t = spire.derivative(u, 1, spire.tensor([0.0, 1.0], dtype=DTYPE))

    def loss_fn():
        residual = u_t(z) - k * u_xx(z)
        return (residual ** 2).mean() + args.data_weight * ((u(z_data) - u_data) ** 2).mean()

    grid = grid_points(101)
    u_grid = exact(grid)

    def error():
        with spire.no_grad():
            return relative_l2(u(grid), u_grid)

    return train(params, loss_fn, error, args.adam_steps, args.lbfgs_iterations, t0, "101x101 (x, t) grid")


if __name__ == "__main__":
    main()
