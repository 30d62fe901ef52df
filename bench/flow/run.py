"""Spire's PDE solvers side by side with Dedalus 3 and py-pde on the same machine, in one run.
Prints a markdown section for bench/RESULTS.md.

    PYTHONPATH=python python3 bench/flow/run.py [--reps 5] [--quick] [--parts dedalus,pypde,generate]
        [--spire build/bin/spire]

dedalus: the same problem, n, scheme and dt in both (the bases, dealiasing and IMEX schemes are the
same, so the errors agree too); seconds of time stepping (Spire's Solver::run, Dedalus's
solver.step loop, solver construction left out of both), medians of --reps runs, alternating.
pypde: time to a given accuracy. py-pde is a finite-difference code, so equal n is not equal error:
each system runs a ladder of resolutions (Spire: n and dt; py-pde: n and the tolerance of its
adaptive Runge-Kutta) and the figure is the fastest run whose max error against the exact solution
is below the target. Both times are the stepping alone: Spire's Solver::run, and py-pde's own
profile of its stepper (its controller's profiler["solver"]), which leaves out the numba compilation
every new py-pde stepper costs (about 1.5 s here).
generate: samples per second of `spire pde generate examples/flow/pdeformer_family.toml` (the
PDEformer-1 family at n = 256 with 101 snapshots), on 1 and 2 threads.
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import cases  # noqa: E402
import peers  # noqa: E402


def spire_solve(case, **job):
    """(final grid values of the first field, seconds of Solver::run, solution)."""
    import spire.flow
    sol = spire.flow.PDE(**case.job(**job)).solve()
    field = next(iter(sol.fields))
    return sol[field][-1], sol.seconds, sol


def max_error(case, u, sol=None, x=None, t=None):
    t = case.t_end if t is None else t
    if case.dims == 2:
        return float(np.abs(u - case.exact(sol.x, sol.y, t)).max())
    return float(np.abs(u - case.exact(sol.x if x is None else x, t)).max())


def median_pair(f_spire, f_peer, reps):
    """Alternating runs of both; medians of the seconds."""
    a, b, last = [], [], None
    for _ in range(reps):
        ra = f_spire()
        rb = f_peer()
        a.append(ra[1])
        b.append(rb[1])
        last = (ra, rb)
    return statistics.median(a), statistics.median(b), last


def part_dedalus(reps, quick):
    rows = []
    runs = [(cases.BURGERS, 256, 1e-3, "sbdf2"), (cases.BURGERS, 256, 1e-3, "rk222"),
            (cases.BURGERS, 256, 1e-3, "rk443"), (cases.KDV, 256, 2e-4, "rk443"),
            (cases.HEAT_DIRICHLET, 64, 1e-3, "sbdf2"), (cases.TAYLOR_GREEN, 128, 1e-2, "rk443")]
    if quick:
        runs = runs[:1] + runs[4:5]
    for case, n, dt, scheme in runs:
        t_end = 1.0
        def spire_run():
            u, s, sol = spire_solve(case, n=n, dt=dt, scheme=scheme, t_end=t_end)
            return u, s, sol
        if case.name == "heat_dirichlet":
            def peer_run():
                u, x, s, _ = peers.dedalus_heat_dirichlet(case, n, dt, scheme, t_end)
                return (u, x), s
        elif case.dims == 2:
            def peer_run():
                w, s, _ = peers.dedalus_taylor_green(case, n, dt, scheme, t_end)
                return w, s
        else:
            def peer_run():
                u, s, _ = peers.dedalus_fourier_1d(case, n, dt, scheme, t_end)
                return u, s
        ts, tp, (rs, rp) = median_pair(spire_run, peer_run, reps)
        sol = rs[2]
        err_s = max_error(case, rs[0], sol, t=t_end)
        if case.name == "heat_dirichlet":
            (up, xp) = rp[0]
            err_p = float(np.abs(up - case.exact(xp.ravel(), t_end)).max())
        elif case.dims == 2:
            err_p = float(np.abs(rp[0] - case.exact(sol.x, sol.y, t_end)).max())
        else:
            err_p = float(np.abs(rp[0] - case.exact(sol.x, t_end)).max())
        size = f"{n}^2" if case.dims == 2 else str(n)
        rows.append(f"| {case.name} | {size} | {scheme} | {dt:g} | {ts * 1e3:.1f} | {tp * 1e3:.1f} | "
                    f"**{tp / ts:.1f}x** | {err_s:.1e} | {err_p:.1e} |")
        print(rows[-1], file=sys.stderr, flush=True)
    head = ("| problem | n | scheme | dt | Spire ms | Dedalus ms | Dedalus/Spire | Spire error | Dedalus error |\n"
            "|---|---|---|---|---|---|---|---|---|")
    return head + "\n" + "\n".join(rows)


def fastest_below(runs, target):
    """The (seconds, label, error) of the fastest run with error <= target, or None."""
    ok = [r for r in runs if r[2] <= target]
    return min(ok) if ok else None


DTS = (0.1, 0.05, 0.02, 0.01, 4e-3, 1e-3)


def ms(seconds):
    return f"{seconds * 1e3:.3g}"


def part_pypde(reps, quick):
    rows = []
    ladders = {
        cases.BURGERS: ([(n, dt) for n in (24, 32, 48, 64, 96, 128) for dt in DTS],
                        [(n, tol) for n in (128, 256, 512, 1024, 2048) for tol in (1e-4, 1e-6)], (1e-3, 1e-5)),
        cases.ALLEN_CAHN: ([(n, dt) for n in (48, 64, 96, 128, 192, 256) for dt in DTS],
                           [(n, tol) for n in (128, 256, 512, 1024) for tol in (1e-4, 1e-6)], (1e-3, 1e-4)),
    }
    if quick:
        ladders = {cases.BURGERS: ([(64, 4e-3)], [(256, 1e-4)], (1e-3,))}
    for case, (spire_ladder, pypde_ladder, targets) in ladders.items():
        spire_runs, pypde_runs = [], []
        for n, dt in spire_ladder:
            secs, err = [], None
            for _ in range(reps):
                u, s, sol = spire_solve(case, n=n, dt=dt, scheme="sbdf2")
                secs.append(s)
                err = max_error(case, u, sol)
            spire_runs.append((statistics.median(secs), f"n={n}, dt={dt:g}", err))
        for n, tol in pypde_ladder:
            secs, err = [], None
            for _ in range(reps):
                u, x, s = peers.pypde_solve(case, n, tol)
                secs.append(s)
                err = max_error(case, u, x=x)
            pypde_runs.append((statistics.median(secs), f"n={n}, tol={tol:g}", err))
            print(case.name, "py-pde", pypde_runs[-1], file=sys.stderr, flush=True)
        for target in targets:
            a, b = fastest_below(spire_runs, target), fastest_below(pypde_runs, target)
            if a is None or b is None:
                best = lambda runs: min(runs, key=lambda r: r[2])  # noqa: E731
                rows.append(f"| {case.name} | {target:g} | " + " | ".join(
                    f"{r[1]} ({r[2]:.1e})" if r else f"not reached (best {best(runs)[2]:.1e}: {best(runs)[1]})"
                    for r, runs in ((a, spire_runs), (b, pypde_runs))) + " | | | |")
                continue
            rows.append(f"| {case.name} | {target:g} | {a[1]} ({a[2]:.1e}) | {b[1]} ({b[2]:.1e}) | "
                        f"{ms(a[0])} | {ms(b[0])} | **{b[0] / a[0]:.3g}x** |")
            print(rows[-1], file=sys.stderr, flush=True)
    head = ("| problem | max error target | Spire run (error) | py-pde run (error) | Spire ms | py-pde ms | py-pde/Spire |\n"
            "|---|---|---|---|---|---|---|")
    return head + "\n" + "\n".join(rows)


GENERATE_JOB = os.path.join(REPO, "examples", "flow", "pdeformer_family.toml")


def part_generate(spire_bin, reps, quick):
    rows = []
    samples = 8 if quick else 64
    with tempfile.TemporaryDirectory() as tmp:
        job = GENERATE_JOB
        for threads in (1, 2):
            rates = []
            for rep in range(reps):
                out = os.path.join(tmp, f"data_{threads}_{rep}.h5")
                start = time.perf_counter()
                subprocess.run([spire_bin, "pde", "generate", job, "-o", out, "--samples", str(samples),
                                "--seed", "1", "--threads", str(threads), "--no-resume"],
                               check=True, capture_output=True)
                rates.append(samples / (time.perf_counter() - start))
            rows.append(f"| {threads} | {samples} | {statistics.median(rates):.1f} |")
    head = "| threads | samples | samples/s (median) |\n|---|---|---|"
    return head + "\n" + "\n".join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="one configuration per part (a smoke run)")
    ap.add_argument("--parts", default="dedalus,pypde,generate")
    ap.add_argument("--spire", default=os.path.join(REPO, "build", "bin", "spire"))
    args = ap.parse_args()
    parts = args.parts.split(",")
    import dedalus
    import pde
    import spire
    out = ["<!-- section:flow -->", "## PDE solvers (science/flow) against Dedalus and py-pde", "",
           f"{datetime.date.today()}, {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
           f"Spire {spire.__version__}, Dedalus {dedalus.__version__}, py-pde {pde.__version__}; "
           f"one thread each (OMP_NUM_THREADS=1). Medians of {args.reps} runs. Reproduce: "
           f"`PYTHONPATH=python python3 bench/flow/run.py --reps {args.reps}`.", ""]
    if "dedalus" in parts:
        out += ["Same problem, n, scheme and dt as Dedalus (t_end = 1; stepping only):", "",
                part_dedalus(args.reps, args.quick), ""]
    if "pypde" in parts:
        out += ["Time to a max-error target against py-pde (SBDF2 for Spire; the fastest run of each "
                "ladder that reaches the target):", "", part_pypde(args.reps, args.quick), ""]
    if "generate" in parts:
        out += ["PDEformer-1 family, n = 256, 101 snapshots, `spire pde generate` (whole command):", "",
                part_generate(args.spire, max(1, args.reps // 2), args.quick), ""]
    print("\n".join(out))


if __name__ == "__main__":
    main()
