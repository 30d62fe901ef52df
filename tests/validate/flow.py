"""Validation of science/flow: exact solutions with convergence tables (spectral in space, the
designed order in time for every scheme), manufactured steady states of the PDEformer-1 family, and
side-by-side agreement with Dedalus 3 and py-pde on the same problems. Lines starting with
`figure:` go into `make validate`'s report; any failed expectation exits non-zero.

    PYTHONPATH=python python3 tests/validate/flow.py
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "flow"))
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402

import cases  # noqa: E402
import spire.flow  # noqa: E402

failures = []


def check(ok, what):
    print(("ok: " if ok else "FAILED: ") + what, flush=True)
    if not ok:
        failures.append(what)


def final_error(case, **job):
    sol = spire.flow.PDE(**case.job(**job)).solve()
    t = sol.t[-1]
    field = next(iter(sol.fields))
    u = sol[field][-1]
    exact = case.exact(sol.x, sol.y, t) if case.dims == 2 else case.exact(sol.x, t)
    assert sol.complete, sol.stop_reason
    return float(np.abs(u - exact).max())


def orders(errors):
    return [math.log2(a / b) for a, b in zip(errors, errors[1:])]


# ---- spectral accuracy in space ----------------------------------------------------------------
def spectral_convergence():
    ns = [16, 24, 32, 48, 64, 96, 128]
    errs = [final_error(cases.BURGERS, n=n, dt=1e-4, scheme="rk443", t_end=0.2) for n in ns]
    print("figure: Burgers (Fourier, Cole-Hopf) max error at t=0.2 vs n: "
          + ", ".join(f"n={n}: {e:.1e}" for n, e in zip(ns, errs)))
    check(errs[-1] < 1e-11 and all(b < a for a, b in zip(errs[:5], errs[1:6])),
          "Fourier: error falls with n to below 1e-11 (spectral)")
    ns = [6, 8, 10, 12, 14, 16, 20]
    errs = [final_error(cases.HEAT_DIRICHLET, n=n, dt=1e-4, scheme="rk443", t_end=0.1) for n in ns]
    print("figure: heat (Chebyshev, Dirichlet) max error at t=0.1 vs n: "
          + ", ".join(f"n={n}: {e:.1e}" for n, e in zip(ns, errs)))
    check(errs[-1] < 1e-11, "Chebyshev: error falls with n to below 1e-11 (spectral)")


# ---- the designed order in time -------------------------------------------------------------------
DESIGNED = {"sbdf1": 1, "sbdf2": 2, "sbdf3": 3, "rk222": 2, "rk443": 3, "etdrk4": 4}


def time_orders():
    dts = [0.04, 0.02, 0.01, 0.005]
    for scheme, p in DESIGNED.items():
        errs = [final_error(cases.BURGERS, n=128, dt=dt, scheme=scheme) for dt in dts]
        got = orders(errs)
        print(f"figure: Burgers {scheme} errors at dt = {', '.join(map(str, dts))}: "
              + ", ".join(f"{e:.2e}" for e in errs) + "; measured orders " + ", ".join(f"{o:.2f}" for o in got))
        check(abs(got[-1] - p) < 0.3, f"{scheme}: measured order {got[-1]:.2f}, designed {p}")
    for tol in (1e-6, 1e-9):
        e = final_error(cases.BURGERS, n=128, scheme="dopri5", tolerance=tol)
        print(f"figure: Burgers dopri5 at tolerance {tol:g}: max error {e:.1e}")
        check(e < 100 * tol, f"dopri5 at tolerance {tol:g}: error {e:.1e} within 100x the tolerance")
    dts = [0.02, 0.01, 0.005]
    errs = [final_error(cases.HEAT_DIRICHLET, n=24, dt=dt, scheme="sbdf2") for dt in dts]
    got = orders(errs)
    print("figure: heat (Chebyshev) sbdf2 measured orders " + ", ".join(f"{o:.2f}" for o in got))
    check(abs(got[-1] - 2) < 0.3, "Chebyshev with boundary conditions keeps sbdf2's second order")


# ---- exact solutions -----------------------------------------------------------------------------
def exact_solutions():
    for case, job, limit in [
        (cases.KDV, dict(n=256, dt=1e-3, scheme="rk443"), 1e-6),
        (cases.KDV, dict(n=256, dt=1e-3, scheme="etdrk4"), 1e-8),
        # The front's width is 0.14 in [-2, 2]: Chebyshev needs n ~ 256 for round-off.
        (cases.ALLEN_CAHN, dict(n=256, dt=1e-3, scheme="sbdf3"), 1e-9),
        (cases.NAGUMO, dict(n=96, dt=1e-3, scheme="rk443"), 1e-6),
        (cases.FISHER, dict(n=128, dt=1e-3, scheme="rk443"), 1e-6),
        (cases.TAYLOR_GREEN, dict(n=32, dt=1e-2, scheme="rk443"), 1e-8),
    ]:
        e = final_error(case, **job)
        print(f"figure: {case.name} ({job['scheme']}, n={job['n']}, dt={job['dt']:g}) max error at "
              f"t={case.t_end:g}: {e:.1e}")
        check(e < limit, f"{case.name} {job['scheme']}: error {e:.1e} < {limit:g}")


# ---- manufactured steady states of the PDEformer-1 family ------------------------------------------
def manufactured(periodic):
    """u* steady for u_t + f0(u) + s(x) + (f1(u) - kappa(x) u_x)_x = 0 with every term present:
    s(x) = -f0(u*) - (f1(u*) - kappa u*_x)_x, computed by SymPy; Robin ends on [-1, 1] when not
    periodic, with data from u*."""
    x = sp.symbols("x")
    if periodic:
        ustar = sp.sin(sp.pi * x) + sp.Rational(1, 2) * sp.cos(2 * sp.pi * x)
    else:
        ustar = sp.cos(x) + x / 3
    kappa = sp.Rational(1, 10) * (sp.Rational(3, 2) + sp.sin(sp.pi * x))
    c0, c1 = [0.3, -0.5, 0.2, -0.1], [0.1, 0.4, -0.3, 0.05]
    f0 = sum(c * ustar ** k for k, c in enumerate(c0))
    f1 = sum(c * ustar ** k for k, c in enumerate(c1))
    s = sp.simplify(-f0 - sp.diff(f1 - kappa * sp.diff(ustar, x), x))
    text = lambda e: sp.sstr(e).replace("**", "^")  # noqa: E731
    poly = lambda c: " + ".join(f"({v})*u^{k}" for k, v in enumerate(c))  # noqa: E731
    kw = dict(equation=f"dt(u) + {poly(c0)} + s + dx({poly(c1)} - kappa*dx(u)) = 0",
              parameters={}, initial={"u": text(ustar)},
              time={"t_end": 1.0, "snapshots": 2, "dt": 1e-3})
    kw["pde_coefficients"] = {"s": text(s), "kappa": text(kappa)}
    if periodic:
        kw["domain"] = {"x": [-1.0, 1.0], "periodic": True}
        kw["discretization"] = {"basis": "fourier", "n": 64, "scheme": "sbdf2"}
    else:
        kw["domain"] = {"x": [-1.0, 1.0], "periodic": False}
        kw["discretization"] = {"basis": "chebyshev", "n": 48, "scheme": "sbdf2"}
        du = sp.diff(ustar, x)
        left = float((2 * ustar - du).subs(x, -1))
        right = float((ustar + 3 * du).subs(x, 1))
        kw["bc"] = {"left": f"robin: 2*u - dx(u) = {left!r}", "right": f"robin: u + 3*dx(u) = {right!r}"}
    coefficients = kw.pop("pde_coefficients")
    sol = spire.flow.PDE(coefficients=coefficients, **kw).solve()
    exact = sp.lambdify(x, ustar, "numpy")(sol.x)
    e = float(np.abs(sol["u"][-1] - exact).max())
    name = "periodic" if periodic else "Chebyshev with Robin ends"
    print(f"figure: PDEformer-1 family, manufactured steady state ({name}): max deviation at t=1 {e:.1e}")
    check(e < 1e-8, f"manufactured steady state ({name}) stays put: {e:.1e}")


def chebyshev_interpolate(nodes, values, x):
    """The polynomial through values at Gauss-Lobatto nodes, at x: the barycentric formula with
    weights (-1)^j, halved at both ends (Berrut & Trefethen 2004)."""
    w = (-1.0) ** np.arange(len(nodes))
    w[0] *= 0.5
    w[-1] *= 0.5
    d = x[:, None] - nodes[None, :]
    exact = np.isclose(d, 0.0, atol=1e-14)
    d[exact] = 1.0
    c = w / d
    out = (c @ values) / c.sum(axis=1)
    hit = exact.any(axis=1)
    out[hit] = values[exact[hit].argmax(axis=1)]
    return out


# ---- side by side with Dedalus and py-pde ------------------------------------------------------------
def peers_agreement():
    import peers
    # Runge-Kutta schemes are the same method in both: the solutions agree to round-off. SBDF
    # differs in its first steps (Dedalus starts with lower-order SBDF steps, Spire with RK443 so
    # that the measured order is the designed one): there the two agree to their time errors.
    for case, n, dt, scheme in [(cases.BURGERS, 128, 1e-3, "rk443"), (cases.KDV, 256, 1e-3, "rk222"),
                                (cases.BURGERS, 128, 1e-3, "sbdf2")]:
        ud, _, _ = peers.dedalus_fourier_1d(case, n, dt, scheme)
        sol = spire.flow.PDE(**case.job(n=n, dt=dt, scheme=scheme)).solve()
        d = float(np.abs(sol["u"][-1] - ud).max())
        es = float(np.abs(sol["u"][-1] - case.exact(sol.x, case.t_end)).max())
        ed = float(np.abs(ud - case.exact(sol.x, case.t_end)).max())
        print(f"figure: {case.name} {scheme} n={n} dt={dt:g}: max |Spire - Dedalus| = {d:.1e} "
              f"(errors: Spire {es:.1e}, Dedalus {ed:.1e})")
        limit = 1e-10 if scheme.startswith("rk") else es + ed
        check(d <= limit, f"{case.name} {scheme} agrees with Dedalus: {d:.1e} <= {limit:.1e}")
    ud, xd, _, _ = peers.dedalus_heat_dirichlet(cases.HEAT_DIRICHLET, 32, 1e-3, "rk222")
    sol = spire.flow.PDE(**cases.HEAT_DIRICHLET.job(n=32, dt=1e-3, scheme="rk222")).solve()
    # Dedalus's Chebyshev grid is Gauss (interior) points, Spire's Gauss-Lobatto: compare through
    # the exact solution's error, which both resolve to the time error.
    ed = float(np.abs(ud - cases.heat_exact(xd.ravel(), 1.0)).max())
    es = float(np.abs(sol["u"][-1] - cases.heat_exact(sol.x, 1.0)).max())
    print(f"figure: heat Chebyshev rk222 n=32 dt=1e-3: error Spire {es:.2e}, Dedalus {ed:.2e}")
    check(abs(es - ed) < 0.1 * ed, "heat (Chebyshev): the same time error as Dedalus within 10%")
    wd, _, _ = peers.dedalus_taylor_green(cases.TAYLOR_GREEN, 32, 1e-2, "rk443")
    sol = spire.flow.PDE(**cases.TAYLOR_GREEN.job(n=32, dt=1e-2, scheme="rk443")).solve()
    d = float(np.abs(sol["w"][-1] - wd).max())
    print(f"figure: Taylor-Green 2D rk443 n=32: max |Spire - Dedalus| = {d:.1e}")
    check(d < 1e-8, f"Taylor-Green agrees with Dedalus: {d:.1e}")
    up, xp, _ = peers.pypde_solve(cases.ALLEN_CAHN, 512, 1e-7)
    sol = spire.flow.PDE(**cases.ALLEN_CAHN.job(n=256, dt=1e-3, scheme="sbdf2")).solve()
    us = chebyshev_interpolate(sol.x, sol["u"][-1], xp)  # on py-pde's cell centres
    d = float(np.abs(us - up).max())
    ep = float(np.abs(up - cases.allen_cahn_exact(xp, 1.0)).max())
    print(f"figure: Allen-Cahn: max |Spire - py-pde (n=512)| = {d:.1e}; py-pde's own error {ep:.1e}")
    check(d < 3 * ep + 1e-6, "Allen-Cahn agrees with py-pde to py-pde's discretisation error")


if __name__ == "__main__":
    for step in (spectral_convergence, time_orders, exact_solutions, lambda: manufactured(True),
                 lambda: manufactured(False), peers_agreement):
        try:
            step()
        except Exception as e:  # a crash in one part is a failure; the others still report
            check(False, f"{getattr(step, '__name__', 'step')} raised {type(e).__name__}: {e}")
    print(f"flow validation: {len(failures)} failed")
    sys.exit(1 if failures else 0)
