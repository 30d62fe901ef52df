"""What the PINN examples share: a tanh MLP as a list of parameter tensors, the unit-square grid
on which the error is measured, and training (Adam to find the basin, then L-BFGS with a
strong-Wolfe line search to converge)."""

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


def grid_points(n):
    """The n x n grid on [0, 1]^2, as points [n * n, 2] (first coordinate major)."""
    t = spire.linspace(0.0, 1.0, n, dtype=DTYPE)
    a = spire.broadcast_to(t.reshape(n, 1), (n, n))
    b = spire.broadcast_to(t.reshape(1, n), (n, n))
    return spire.stack([a, b], -1).reshape(n * n, 2)


def relative_l2(u, v):
    return math.sqrt(float(((u - v) ** 2).sum()) / float((v ** 2).sum()))


def train(params, loss_fn, error, adam_steps, lbfgs_iterations, t0, grid_name):
    """Adam, then L-BFGS until `lbfgs_iterations` or convergence; prints progress and returns the
    final error."""
    adam = optim.Adam(params, lr=1e-3)
    for _ in range(adam_steps):
        adam.zero_grad()
        loss = loss_fn()
        loss.backward()
        adam.step()
    print(f"Adam   {adam_steps:5d} steps       loss {float(loss):.3e}  "
          f"rel. L2 error {error():.3e}  ({time.perf_counter() - t0:.1f} s)")

    lbfgs = optim.LBFGS(params, max_iter=100, history_size=50, tolerance_grad=1e-10,
                        tolerance_change=1e-14, line_search_fn="strong_wolfe")

    def closure():
        lbfgs.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    report = 500
    while lbfgs.iterations < lbfgs_iterations:
        before = lbfgs.iterations
        loss = lbfgs.step(closure)
        if lbfgs.iterations >= report:
            report += 500
            print(f"L-BFGS {lbfgs.iterations:5d} iterations  loss {float(loss):.3e}  "
                  f"rel. L2 error {error():.3e}  ({time.perf_counter() - t0:.1f} s)")
        if lbfgs.iterations == before:
            break  # converged to the tolerances: no iteration left to make

    err = error()
    print(f"final relative L2 error {err:.3e} on a {grid_name} "
          f"({lbfgs.iterations} L-BFGS iterations, {lbfgs.function_evaluations} loss evaluations)")
    print(f"wall time {time.perf_counter() - t0:.1f} s")
    return err
