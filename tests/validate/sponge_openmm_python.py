#!/usr/bin/env python3
"""spire.sponge against OpenMM, side by side, through the Python APIs of both.

An SPC/E water box built by spire.sponge.water_box (512 molecules, 0.997 g/cm^3) is relaxed with
Spire's FIRE (SETTLE keeping the waters rigid) and then run for 0.2 ps of Langevin dynamics at
300 K. At both snapshots the same system is given to OpenMM (NonbondedForce with PME at the alpha
and mesh Spire chose, the same Lennard-Jones parameters, intramolecular pairs excluded, no
dispersion correction), evaluated on OpenMM's Reference platform (double precision), and compared
term by term with Spire's energies (Lennard-Jones and PME Coulomb) and forces:

    energies   relative difference <= 1e-5 (the issue's bound)
    forces     largest difference <= 1e-4 of the rms force

It also checks that the mesh Spire picks for the error tolerance is the one OpenMM's CPU platform
picks by itself, and prints OpenMM's CPU-platform (mixed precision) energies as a figure.

    PYTHONPATH=python python3 tests/validate/sponge_openmm_python.py

Prints `figure:` lines with both sides, `ok:`/`FAILED:` per check; exits 1 on a failure, 2 when
OpenMM (pip install openmm) or spire.sponge cannot be imported.
"""
import math
import sys

import numpy as np

try:
    import openmm as mm
except ImportError as e:  # a missing reference is a failure, never a skip
    print(f"FAILED: OpenMM is needed for this comparison ({e}); install it with `pip install openmm`")
    sys.exit(2)
try:
    import spire.sponge as md
except ImportError as e:
    print(f"FAILED: spire.sponge cannot be imported ({e}); build the Python module, then run with PYTHONPATH=python")
    sys.exit(2)

MOLECULES = 512
CUTOFF = 1.0        # nm
TOLERANCE = 5e-4    # OpenMM's ewaldErrorTolerance
ENERGY_RTOL = 1e-5
FORCE_RTOL = 1e-4

failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAILED: ") + what)
    failures += 0 if ok else 1


def spire_setup():
    system, state = md.water_box("spce", molecules=MOLECULES, density=0.997, seed=2024)
    w = md.WaterModel.spce()
    lj = md.LennardJones(CUTOFF, types={md.WATER_OXYGEN_TYPE: (w.epsilon_o, w.sigma_o),
                                        md.WATER_HYDROGEN_TYPE: (0.0, 0.0)})
    pme = md.PmeCoulomb(cutoff=CUTOFF, tolerance=TOLERANCE)
    return system, state, md.ForceField([lj, pme], skin=0.1), lj, pme


def openmm_system(system, state, lj, alpha, mesh, coulomb):
    """One NonbondedForce holding either the Lennard-Jones part (charges 0) or the Coulomb part
    (epsilon 0), so that each term is compared on its own."""
    s = mm.System()
    s.setDefaultPeriodicBoxVectors(*(mm.Vec3(*v) for v in state.box.vectors))
    for m in system.masses:
        s.addParticle(float(m))
    nb = mm.NonbondedForce()
    names = system.type_names
    for q, t in zip(system.charges, system.types):
        eps, sig = lj.parameters(names[t], names[t])
        nb.addParticle(float(q) if coulomb else 0.0, sig if sig > 0 else 1.0, 0.0 if coulomb else eps)
    nb.setNonbondedMethod(mm.NonbondedForce.PME)
    nb.setCutoffDistance(CUTOFF)
    nb.setEwaldErrorTolerance(TOLERANCE)
    nb.setUseDispersionCorrection(False)
    nb.setUseSwitchingFunction(False)
    nb.setPMEParameters(alpha, *mesh)
    for i, j in system.exclusions:
        nb.addException(i, j, 0.0, 1.0, 0.0)
    s.addForce(nb)
    return s, nb


def openmm_evaluate(system, state, lj, alpha, mesh, coulomb, platform="Reference"):
    s, _ = openmm_system(system, state, lj, alpha, mesh, coulomb)
    context = mm.Context(s, mm.VerletIntegrator(0.001), mm.Platform.getPlatformByName(platform))
    context.setPositions([mm.Vec3(*p) for p in state.positions])
    st = context.getState(getEnergy=True, getForces=True)
    return st.getPotentialEnergy()._value, np.array(st.getForces(asNumpy=True)._value)


def openmm_cpu_mesh(system, state, lj):
    s, nb = openmm_system(system, state, lj, 0.0, (0, 0, 0), coulomb=True)
    context = mm.Context(s, mm.VerletIntegrator(0.001), mm.Platform.getPlatformByName("CPU"))
    context.setPositions([mm.Vec3(*p) for p in state.positions])
    context.getState(getEnergy=True)
    return tuple(nb.getPMEParametersInContext(context)[1:])


def compare(label, system, state, ff, lj, pme):
    spire_parts = {}
    for name, term in (("lj", lj), ("coulomb", pme)):
        r = md.ForceField([term], skin=ff.skin).compute(system, state)
        spire_parts[name] = (r.energies[name], r.forces)
    total = ff.compute(system, state)
    for name in ("lj", "coulomb"):
        assert total.energies[name] == spire_parts[name][0]
    alpha, mesh = pme.alpha, pme.grid
    for name, coulomb in (("lj", False), ("coulomb", True)):
        e_spire, f_spire = spire_parts[name]
        e_mm, f_mm = openmm_evaluate(system, state, lj, alpha, mesh, coulomb)
        rel = abs(e_spire - e_mm) / abs(e_mm)
        rms = math.sqrt(np.mean(np.sum(f_mm * f_mm, axis=1)))
        worst = float(np.max(np.linalg.norm(f_spire - f_mm, axis=1)))
        print(f"figure: {label} {name:8s} energy spire {e_spire:.10f} openmm {e_mm:.10f} kJ/mol "
              f"(relative difference {rel:.2e}); largest force difference {worst:.3e} of rms {rms:.3e} kJ/mol/nm")
        check(rel <= ENERGY_RTOL, f"{label}: {name} energy within {ENERGY_RTOL:g} relative of OpenMM's")
        check(worst <= FORCE_RTOL * rms, f"{label}: {name} forces within {FORCE_RTOL:g} of the rms force of OpenMM's")
    try:
        e_cpu = sum(openmm_evaluate(system, state, lj, alpha, mesh, c, "CPU")[0] for c in (False, True))
        print(f"figure: {label} total energy OpenMM CPU platform {e_cpu:.6f}, Spire {total.energy:.6f} kJ/mol "
              f"(relative difference {abs(e_cpu - total.energy) / abs(e_cpu):.2e}; "
              "OpenMM's CPU platform is mixed precision)")
    except Exception as e:  # no CPU platform on this machine: nothing to show
        print(f"figure: {label} OpenMM CPU platform unavailable ({e})")


def main():
    print(f"figure: OpenMM {mm.__version__}; {MOLECULES} SPC/E waters, cutoff {CUTOFF} nm, PME tolerance {TOLERANCE}")
    system, state, ff, lj, pme = spire_setup()
    result = md.minimize_fire(system, state, ff, force_tolerance=100.0, max_iterations=5000)
    print(f"figure: FIRE: {result.iterations} iterations, energy {result.energy:.4f} kJ/mol, "
          f"max force {result.max_force:.1f} kJ/mol/nm ({result.stop_reason})")
    check(result.converged, "FIRE relaxed the water box below 100 kJ/mol/nm")
    edge = state.box.a[0]
    print(f"figure: box {edge:.6f} nm, alpha {pme.alpha:.6f} /nm, Spire's mesh {pme.grid}")
    mesh = pme.grid
    check(mesh == md.pme_grid(state.box, pme.alpha, TOLERANCE), "the mesh in use is pme_grid's")
    try:
        cpu = openmm_cpu_mesh(system, state, lj)
        print(f"figure: OpenMM CPU platform's own mesh {cpu}")
        check(cpu == tuple(mesh), "Spire picks the mesh OpenMM's CPU platform picks for the tolerance")
    except Exception as e:
        print(f"figure: OpenMM CPU platform unavailable ({e}); mesh not compared")
    compare("minimised", system, state, ff, lj, pme)

    integrator = md.LangevinMiddle(0.002, temperature=300.0, friction=5.0, seed=7)
    sim = md.Simulation(system, state, ff, integrator, progress=None)
    sim.set_velocities_to_temperature(300.0, seed=7)
    sim.run(100)
    print(f"figure: after 0.2 ps of Langevin dynamics at 300 K: T = {sim.temperature:.1f} K, "
          f"U = {sim.potential_energy:.3f} kJ/mol, P = {sim.pressure:.1f} bar")
    compare("thermal", system, sim.state, ff, lj, pme)

    print(("ok: " if failures == 0 else "FAILED: ") + f"spire.sponge vs OpenMM: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
