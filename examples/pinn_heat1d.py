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


def mlp(params, z):
    """The network at points z = (x, t) ([..., 2]) -> [...]: tanh on every hidden layer."""
    h = z
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = spire.tanh(h)
    return h[..., 0]


def grid_points(n):
    s = spire.linspace(0.0, 1.0, n, dtype=DTYPE)
    x = spire.broadcast_to(s.reshape(n, 1), (n, n))
    t = spire.broadcast_to(s.reshape(1, n), (n, n))
    return spire.stack([x, t], -1).reshape(n * n, 2)


def relative_l2(u, v):
    return math.sqrt(float(((u - v) ** 2).sum()) / float((v ** 2).sum()))


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
    print(f"final relative L2 error {err:.3e} on a 101x101 (x, t) grid "
          f"({lbfgs.iterations} L-BFGS iterations, {lbfgs.function_evaluations} loss evaluations)")
    print(f"wall time {wall:.1f} s")
    return err


if __name__ == "__main__":
    main()
