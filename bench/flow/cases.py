"""Problems with exact solutions, shared by the flow benchmarks (bench/flow/run.py) and the
validation report (tests/validate/flow.py). Each case gives the Spire job (as spire.flow.PDE's
keyword arguments), the exact solution, and the same problem for Dedalus and py-pde
(bench/flow/peers.py)."""
import math

import numpy as np


class Case:
    """name; job(n, dt, scheme, t_end) -> spire.flow.PDE kwargs; exact(x, t) (and y for 2D)."""

    def __init__(self, name, equation, parameters, domain, initial, exact, t_end, bc=None, dims=1,
                 dealias=1.5):
        self.name, self.equation, self.parameters = name, equation, parameters
        self.domain, self.initial, self.exact, self.t_end = domain, initial, exact, t_end
        self.bc, self.dims, self.dealias = bc, dims, dealias

    def job(self, n, dt=None, scheme="sbdf2", t_end=None, snapshots=2, tolerance=None, basis=None):
        basis = basis or ("fourier" if self.domain.get("periodic", True) else "chebyshev")
        time = {"t_end": t_end or self.t_end, "snapshots": snapshots}
        time.update({"tolerance": tolerance} if tolerance else {"dt": dt})
        eq = {"equations": self.equation} if isinstance(self.equation, list) else {"equation": self.equation}
        kw = dict(**eq, parameters=self.parameters, domain=self.domain,
                  initial=self.initial, time=time,
                  discretization={"basis": basis, "n": n if self.dims == 1 else [n, n],
                                  "dealias": self.dealias, "scheme": scheme})
        if self.bc:
            kw["bc"] = self.bc
        return kw


# Viscous Burgers u_t + u u_x = nu u_xx on [0, 2 pi), exact by Cole-Hopf: u = -2 nu phi_x / phi with
# phi = a0 + a1 exp(-nu t) cos(x) solving the heat equation. a1/a0 = 0.9 makes a steep front whose
# Fourier modes decay as 0.63^m: spectral accuracy needs n ~ 128.
NU_B, A0, A1 = 0.1, 1.0, 0.9


def burgers_exact(x, t):
    e = A1 * np.exp(-NU_B * t)
    return 2 * NU_B * e * np.sin(x) / (A0 + e * np.cos(x))


BURGERS = Case(
    "burgers", "dt(u) + u*dx(u) - nu*dx(dx(u)) = 0", {"nu": NU_B},
    {"x": [0.0, 2 * math.pi], "periodic": True},
    {"u": f"2*nu*{A1}*sin(x)/({A0} + {A1}*cos(x))"}, burgers_exact, 1.0)

# KdV u_t + 6 u u_x + u_xxx = 0: the soliton u = c/2 sech^2(sqrt(c)/2 (x - c t - x0)) on a periodic
# domain wide enough that its tails (e^-30) are below round-off.
C_K, X0_K = 1.0, -10.0


def kdv_exact(x, t):
    return 0.5 * C_K / np.cosh(0.5 * math.sqrt(C_K) * (x - C_K * t - X0_K)) ** 2


KDV = Case(
    "kdv", "dt(u) + 6*u*dx(u) + dx(dx(dx(u))) = 0", {},
    {"x": [-30.0, 30.0], "periodic": True},
    {"u": f"0.5*{C_K}*sech(0.5*sqrt({C_K})*(x - ({X0_K})))^2"}, kdv_exact, 5.0)

# Heat u_t = nu u_xx on [0, 1] with u(0) = u(1) = 0: u = sin(pi x) exp(-nu pi^2 t) (Chebyshev).
NU_H = 0.1


def heat_exact(x, t):
    return np.sin(math.pi * x) * np.exp(-NU_H * math.pi ** 2 * t)


HEAT_DIRICHLET = Case(
    "heat_dirichlet", "dt(u) - nu*dx(dx(u)) = 0", {"nu": NU_H}, {"x": [0.0, 1.0], "periodic": False},
    {"u": "sin(pi*x)"}, heat_exact, 1.0, bc={"left": "dirichlet: 0", "right": "dirichlet: 0"})

# Fisher-KPP u_t = u_xx + u (1 - u), Ablowitz & Zeppetella's travelling wave
# u = (1 + exp(x/sqrt(6) - 5 t/6))^-2 on [-20, 40] with its own values as time-dependent Dirichlet data.
def fisher_exact(x, t):
    return (1 + np.exp(x / math.sqrt(6) - 5 * t / 6)) ** -2


def _fisher_text(xv):
    return f"(1 + exp({xv}/sqrt(6) - 5*t/6))^(-2)"


FISHER = Case(
    "fisher_kpp", "dt(u) - dx(dx(u)) = u*(1 - u)", {}, {"x": [-20.0, 40.0], "periodic": False},
    {"u": "(1 + exp(x/sqrt(6)))^(-2)"}, fisher_exact, 4.0,
    bc={"left": "dirichlet: " + _fisher_text(-20.0), "right": "dirichlet: " + _fisher_text(40.0)})

# Allen-Cahn u_t = eps u_xx + u - u^3: the standing front u = tanh(x / sqrt(2 eps)) (Chebyshev,
# Neumann ends far enough from the front (14 widths) that its u_x there is below 1e-11).
EPS_AC = 0.01


def allen_cahn_exact(x, t):
    return np.tanh(x / math.sqrt(2 * EPS_AC))


ALLEN_CAHN = Case(
    "allen_cahn", "dt(u) - eps*dx(dx(u)) = u - u^3", {"eps": EPS_AC}, {"x": [-2.0, 2.0], "periodic": False},
    {"u": "tanh(x/sqrt(2*eps))"}, allen_cahn_exact, 1.0,
    bc={"left": "neumann: 0", "right": "neumann: 0"})

# Nagumo u_t = u_xx + u (1 - u)(u - a): the travelling front u = 1 / (1 + exp(-(x - c t)/sqrt(2)))
# with c = sqrt(2) (a - 1/2) (the stable state u = 1 invades for a < 1/2), on a bounded domain with
# Dirichlet data from the front itself.
A_N = 0.25
C_N = math.sqrt(2) * (A_N - 0.5)


def nagumo_exact(x, t):
    return 1 / (1 + np.exp(-(x - C_N * t) / math.sqrt(2)))


def _nagumo_text(xv):
    return f"1/(1 + exp(-({xv} - {C_N!r}*t)/sqrt(2)))"


NAGUMO = Case(
    "nagumo", "dt(u) - dx(dx(u)) = u*(1 - u)*(u - a)", {"a": A_N}, {"x": [-30.0, 30.0], "periodic": False},
    {"u": "1/(1 + exp(-x/sqrt(2)))"}, nagumo_exact, 4.0,
    bc={"left": "dirichlet: " + _nagumo_text(-30.0), "right": "dirichlet: " + _nagumo_text(30.0)})

# 2D Navier-Stokes in vorticity form on [0, 2 pi)^2: the Taylor-Green vortex w = 2 cos x cos y e^(-2 nu t).
NU_NS = 0.05


def taylor_green_exact(x, y, t):
    return 2 * np.cos(x)[:, None] * np.cos(y)[None, :] * math.exp(-2 * NU_NS * t)


TAYLOR_GREEN = Case(
    "taylor_green",
    ["dt(w) + dy(psi)*dx(w) - dx(psi)*dy(w) - nu*laplacian(w) = 0", "laplacian(psi) + w = 0"],
    {"nu": NU_NS}, {"x": [0.0, 2 * math.pi], "y": [0.0, 2 * math.pi], "periodic": True},
    {"w": "2*cos(x)*cos(y)"}, taylor_green_exact, 1.0, dims=2)

ALL = [BURGERS, KDV, HEAT_DIRICHLET, FISHER, ALLEN_CAHN, NAGUMO, TAYLOR_GREEN]
