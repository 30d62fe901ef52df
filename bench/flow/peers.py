"""The cases of bench/flow/cases.py solved by Spire's peers: Dedalus 3 (spectral, the same bases
and IMEX schemes) and py-pde (finite differences with explicit or implicit steppers). Each runner
returns (grid values at t_end, seconds of time stepping, steps), timing only the stepping: solver
construction, and py-pde's numba compilation (a warm-up run), are left out, which favours the peers."""
import logging
import math
import os
import time

import numpy as np

logging.disable(logging.INFO)  # Dedalus logs every solver build
# Dedalus asks for this itself (its threads only slow small transforms); Spire solves one thread.
os.environ.setdefault("OMP_NUM_THREADS", "1")


# ---- Dedalus ---------------------------------------------------------------------------------
def _dedalus():
    import dedalus.public as d3  # imported lazily: it starts MPI
    return d3


DEDALUS_SCHEMES = {"sbdf1": "SBDF1", "sbdf2": "SBDF2", "sbdf3": "SBDF3", "rk222": "RK222", "rk443": "RK443"}


def _step(solver, dt, t_end):
    """Dedalus's time loop, timed: (seconds, steps)."""
    steps = int(round(t_end / dt))
    start = time.perf_counter()
    for _ in range(steps):
        solver.step(dt)
    return time.perf_counter() - start, steps


def dedalus_fourier_1d(case, n, dt, scheme, t_end=None):
    """Burgers and KdV: RealFourier on the case's domain, dealias 3/2, the case's equation with the
    nonlinear terms on the right."""
    d3 = _dedalus()
    t_end = t_end or case.t_end
    x0, x1 = case.domain["x"]
    xc = d3.Coordinate("x")
    dist = d3.Distributor(xc, dtype=np.float64)
    xb = d3.RealFourier(xc, size=n, bounds=(x0, x1), dealias=case.dealias)
    u = dist.Field(name="u", bases=xb)
    dx = lambda A: d3.Differentiate(A, xc)  # noqa: E731
    ns = {"u": u, "dx": dx, **case.parameters}
    problem = d3.IVP([u], namespace=ns)
    if case.name == "burgers":
        problem.add_equation("dt(u) - nu*dx(dx(u)) = - u*dx(u)")
    elif case.name == "kdv":
        problem.add_equation("dt(u) + dx(dx(dx(u))) = - 6*u*dx(u)")
    else:
        raise ValueError(case.name)
    x = dist.local_grid(xb)
    u["g"] = case.exact(x, 0.0)
    solver = problem.build_solver(getattr(d3, DEDALUS_SCHEMES[scheme]))
    seconds, steps = _step(solver, dt, t_end)
    u.change_scales(1)
    return np.array(u["g"]), seconds, steps


def dedalus_heat_dirichlet(case, n, dt, scheme, t_end=None):
    """The heat equation on a Chebyshev basis with Dirichlet ends (first-order tau formulation of
    Dedalus 3's examples)."""
    d3 = _dedalus()
    t_end = t_end or case.t_end
    x0, x1 = case.domain["x"]
    xc = d3.Coordinate("x")
    dist = d3.Distributor(xc, dtype=np.float64)
    xb = d3.Chebyshev(xc, size=n, bounds=(x0, x1), dealias=case.dealias)
    u = dist.Field(name="u", bases=xb)
    tau1 = dist.Field(name="tau1")
    tau2 = dist.Field(name="tau2")
    dx = lambda A: d3.Differentiate(A, xc)  # noqa: E731
    lift_basis = xb.derivative_basis(1)
    lift = lambda A: d3.Lift(A, lift_basis, -1)  # noqa: E731
    ux = dx(u) + lift(tau1)
    problem = d3.IVP([u, tau1, tau2], namespace={"u": u, "ux": ux, "dx": dx, "lift": lift, "tau1": tau1,
                                                  "tau2": tau2, "nu": case.parameters["nu"], "x0": x0, "x1": x1})
    problem.add_equation("dt(u) - nu*dx(ux) + lift(tau2) = 0")
    problem.add_equation("u(x=x0) = 0")
    problem.add_equation("u(x=x1) = 0")
    x = dist.local_grid(xb)
    u["g"] = case.exact(x, 0.0)
    solver = problem.build_solver(getattr(d3, DEDALUS_SCHEMES[scheme]))
    seconds, steps = _step(solver, dt, t_end)
    u.change_scales(1)
    return np.array(u["g"]), np.array(x), seconds, steps


def dedalus_taylor_green(case, n, dt, scheme, t_end=None):
    """2D vorticity form on RealFourier x RealFourier; the stream function's mean is fixed by a
    gauge (a tau variable and integ(psi) = 0), as Dedalus requires."""
    d3 = _dedalus()
    t_end = t_end or case.t_end
    coords = d3.CartesianCoordinates("x", "y")
    dist = d3.Distributor(coords, dtype=np.float64)
    L = 2 * math.pi
    xb = d3.RealFourier(coords["x"], size=n, bounds=(0, L), dealias=case.dealias)
    yb = d3.RealFourier(coords["y"], size=n, bounds=(0, L), dealias=case.dealias)
    w = dist.Field(name="w", bases=(xb, yb))
    psi = dist.Field(name="psi", bases=(xb, yb))
    tau = dist.Field(name="tau")
    dx = lambda A: d3.Differentiate(A, coords["x"])  # noqa: E731
    dy = lambda A: d3.Differentiate(A, coords["y"])  # noqa: E731
    ns = {"w": w, "psi": psi, "tau": tau, "dx": dx, "dy": dy, "lap": d3.lap, "integ": d3.integ,
          "nu": case.parameters["nu"]}
    problem = d3.IVP([w, psi, tau], namespace=ns)
    problem.add_equation("dt(w) - nu*lap(w) = - dy(psi)*dx(w) + dx(psi)*dy(w)")
    problem.add_equation("lap(psi) + w + tau = 0")
    problem.add_equation("integ(psi) = 0")
    x, y = dist.local_grids(xb, yb)
    w["g"] = case.exact(x.ravel(), y.ravel(), 0.0)
    solver = problem.build_solver(getattr(d3, DEDALUS_SCHEMES[scheme]))
    seconds, steps = _step(solver, dt, t_end)
    w.change_scales(1)
    return np.array(w["g"]), seconds, steps


# ---- py-pde ----------------------------------------------------------------------------------
PYPDE_RHS = {
    "burgers": "-u*d_dx(u) + {nu}*laplace(u)",
    "kdv": "-6*u*d_dx(u) - d_dx(d_dx(d_dx(u)))",
    "heat_dirichlet": "{nu}*laplace(u)",
    "allen_cahn": "{eps}*laplace(u) + u - u**3",
}


def pypde_solve(case, n, tolerance, t_end=None):
    """py-pde on n cells (cell-centred finite differences, second order), with its adaptive
    Runge-Kutta (Dormand-Prince) stepper at `tolerance`. The seconds are py-pde's own account of
    its stepping (the controller's profiler["solver"]), without the numba compilation that each new
    stepper costs."""
    import pde
    t_end = t_end or case.t_end
    x0, x1 = case.domain["x"]
    periodic = case.domain.get("periodic", True)
    grid = pde.CartesianGrid([[x0, x1]], [n], periodic=periodic)
    x = grid.axes_coords[0]
    bc = "periodic" if periodic else ({"value": 0} if case.name == "heat_dirichlet" else {"derivative": 0})
    eq = pde.PDE({"u": PYPDE_RHS[case.name].format(**case.parameters)}, bc=bc)
    state = pde.ScalarField(grid, case.exact(x, 0.0))
    solver = pde.RungeKuttaSolver(eq, adaptive=True, tolerance=tolerance)
    controller = pde.Controller(solver, t_range=t_end, tracker=None)
    result = controller.run(state, dt=1e-4)
    return np.array(result.data), np.array(x), controller.info["profiler"]["solver"]
