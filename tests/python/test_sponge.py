"""spire.sponge, the Python face of the MD package, against references computed here with NumPy:
Lennard-Jones energies, forces and virials by brute-force pair sums (every cutoff mode, mixed types,
orthorhombic and triclinic cells) and the analytic tail corrections; LAMMPS's published in.lj step-0
energy and pressure; PME and Ewald Coulomb energies and forces of a water box against a converged
Ewald sum written in NumPy; bonded energies against their formulas and forces against finite
differences; energy conservation and its dt^2 scaling in NVE; step callbacks (the same bits as
changing the state between two runs); H5MD files read back with h5py; PDB columns read by slicing;
checkpoints that restart bit for bit; the GIL released during runs; and the errors of bad input.

(The comparison with OpenMM, which `make test` machines may not have, is
tests/validate/sponge_openmm_python.py.)"""
import _thread
import itertools
import math
import os
import threading
import time

import h5py
import numpy as np
import pytest

import spire
import spire.sponge as md

FCC_DENSITY = 0.8442  # LAMMPS's in.lj


# ---- NumPy references ----

def min_image(d, box):
    """Nearest images of displacements d (M, 3) in a cell with rows a, b, c (reduced form), by trying
    the 27 neighbouring images of the reduced displacement: exact for |d| < half the smallest width."""
    h = np.asarray(box, float)
    s = d @ np.linalg.inv(h)
    s -= np.round(s)
    d = s @ h
    best = d.copy()
    for shift in itertools.product((-1, 0, 1), repeat=3):
        cand = d + np.asarray(shift, float) @ h
        closer = np.sum(cand * cand, axis=1) < np.sum(best * best, axis=1)
        best[closer] = cand[closer]
    return best


def all_pairs(n):
    i, j = np.triu_indices(n, k=1)
    return i, j


def lj_pair_numpy(r, eps, sig, mode, rc, rs):
    """U(r) and F(r) = -dU/dr of a pair under each cutoff mode, written from the definitions:
    cut (LAMMPS lj/cut), shifted (U - U(rc)), force_switch (GROMACS: the force of each r^-a gets
    A (r - rs)^2 + B (r - rs)^3 beyond rs; the potential is the force's integral, zero at rc)."""
    def full(r):
        s6 = (sig / r) ** 6
        return 4 * eps * (s6 * s6 - s6), 24 * eps * (2 * s6 * s6 - s6) / r

    if mode in ("cut", "shifted"):
        u, f = full(r)
        if mode == "shifted":
            u = u - full(np.asarray(rc))[0]
        return np.where(r < rc, u, 0.0), np.where(r < rc, f, 0.0)
    assert mode == "force_switch"

    def switched(a):  # potential and force of r^-a with GROMACS's force switch
        big_a = -a * ((a + 4) * rc - (a + 1) * rs) / (rc ** (a + 2) * (rc - rs) ** 2)
        big_b = a * ((a + 3) * rc - (a + 1) * rs) / (rc ** (a + 2) * (rc - rs) ** 3)
        x = np.maximum(r, rs) - rs
        w = rc - rs
        force = a * r ** -(a + 1) + big_a * x ** 2 + big_b * x ** 3
        pot = (r ** -a - rc ** -a + big_a / 3 * (w ** 3 - x ** 3) + big_b / 4 * (w ** 4 - x ** 4))
        return pot, force

    p12, f12 = switched(12)
    p6, f6 = switched(6)
    u = 4 * eps * (sig ** 12 * p12 - sig ** 6 * p6)
    f = 4 * eps * (sig ** 12 * f12 - sig ** 6 * f6)
    return np.where(r < rc, u, 0.0), np.where(r < rc, f, 0.0)


def lj_numpy(positions, box, types, params, mode, rc, rs=0.0):
    """Energy, forces and virial W = sum r_ij f_ij^T over every pair closer than rc (brute force)."""
    n = len(positions)
    i, j = all_pairs(n)
    rij = min_image(positions[i] - positions[j], box)  # r_i - r_j
    r = np.linalg.norm(rij, axis=1)
    eps = np.array([params[(min(types[a], types[b]), max(types[a], types[b]))][0] for a, b in zip(i, j)])
    sig = np.array([params[(min(types[a], types[b]), max(types[a], types[b]))][1] for a, b in zip(i, j)])
    u, f = lj_pair_numpy(r, eps, sig, mode, rc, rs)
    fij = (f / r)[:, None] * rij  # force on i due to j
    forces = np.zeros((n, 3))
    np.add.at(forces, i, fij)
    np.add.at(forces, j, -fij)
    return u.sum(), forces, rij.T @ fij


def ewald_numpy(positions, charges, box_edge, alpha, rc, exclusions, k_coulomb):
    """A converged Ewald sum for a cubic cell: direct-space pairs closer than rc (minimum image,
    exclusions left out), the reciprocal sum to exp(-k^2 / 4 alpha^2) < 1e-17, the self term and the
    excluded pairs' erf correction. Energy and forces."""
    erf, erfc = np.vectorize(math.erf), np.vectorize(math.erfc)
    n = len(positions)
    h = np.eye(3) * box_edge
    excluded = set(map(tuple, exclusions))
    i, j = all_pairs(n)
    keep = np.array([(a, b) not in excluded for a, b in zip(i, j)])
    d = min_image(positions[i] - positions[j], h)
    r = np.linalg.norm(d, axis=1)
    qq = k_coulomb * charges[i] * charges[j]
    inside = keep & (r < rc)
    e_dir = np.sum(qq[inside] * erfc(alpha * r[inside]) / r[inside])
    # -d/dr erfc(a r)/r = erfc(a r)/r^2 + 2a/sqrt(pi) exp(-a^2 r^2)/r
    fr = np.where(inside, qq * (erfc(alpha * r) / r ** 2 + 2 * alpha / math.sqrt(math.pi)
                                * np.exp(-(alpha * r) ** 2) / r), 0.0)
    # excluded pairs: -k q q erf(a r)/r, force -d/dr of it
    ex = ~keep
    e_exc = -np.sum(qq[ex] * erf(alpha * r[ex]) / r[ex])
    fr = fr + np.where(ex, -qq * (erf(alpha * r) / r ** 2 - 2 * alpha / math.sqrt(math.pi)
                                  * np.exp(-(alpha * r) ** 2) / r), 0.0)
    fij = (fr / r)[:, None] * d
    forces = np.zeros((n, 3))
    np.add.at(forces, i, fij)
    np.add.at(forces, j, -fij)
    e_self = -k_coulomb * alpha / math.sqrt(math.pi) * np.sum(charges ** 2)

    volume = box_edge ** 3
    kmax = int(math.ceil(2 * alpha * math.sqrt(39.2) * box_edge / (2 * math.pi)))
    ns = np.arange(-kmax, kmax + 1)
    kv = 2 * math.pi * ns / box_edge
    ex_ = np.exp(1j * np.outer(kv, positions[:, 0]))  # [n, particle]
    ey_ = np.exp(1j * np.outer(kv, positions[:, 1]))
    ez_ = np.exp(1j * np.outer(kv, positions[:, 2]))
    e_rec = 0.0
    f_rec = np.zeros((n, 3))
    ky, kz = np.meshgrid(kv, kv, indexing="ij")
    for a, kx in enumerate(kv):
        k2 = kx * kx + ky * ky + kz * kz
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(k2 > 0, np.exp(-k2 / (4 * alpha * alpha)) / k2, 0.0)
        phase = ex_[a][None, None, :] * ey_[:, None, :] * ez_[None, :, :]  # [ny, nz, particle]
        s = np.tensordot(phase, charges, axes=([2], [0]))  # structure factor [ny, nz]
        e_rec += np.sum(g * np.abs(s) ** 2)
        im = np.imag(np.conj(s)[:, :, None] * phase)  # Im(S* e^{ik.r_j})
        w = g[:, :, None] * im
        f_rec[:, 0] += kx * np.sum(w, axis=(0, 1))
        f_rec[:, 1] += np.einsum("yz,yzp->p", ky, w)
        f_rec[:, 2] += np.einsum("yz,yzp->p", kz, w)
    e_rec *= k_coulomb * 2 * math.pi / volume
    f_rec *= k_coulomb * 4 * math.pi / volume * charges[:, None]
    return e_dir + e_rec + e_self + e_exc, forces + f_rec


def reaction_field_numpy(positions, charges, box_edge, rc, eps_solvent, exclusions, k_coulomb):
    """k q_i q_j (1/r + k_rf r^2 - c_rf) over non-excluded pairs closer than rc (minimum image)."""
    k_rf = (eps_solvent - 1) / ((2 * eps_solvent + 1) * rc ** 3)
    c_rf = 1 / rc + k_rf * rc ** 2
    excluded = set(map(tuple, exclusions))
    i, j = all_pairs(len(positions))
    keep = np.array([(a, b) not in excluded for a, b in zip(i, j)])
    d = min_image(positions[i] - positions[j], np.eye(3) * box_edge)
    r = np.linalg.norm(d, axis=1)
    inside = keep & (r < rc)
    qq = k_coulomb * charges[i] * charges[j]
    energy = np.sum(np.where(inside, qq * (1 / r + k_rf * r * r - c_rf), 0.0))
    fr = np.where(inside, qq * (1 / r ** 2 - 2 * k_rf * r), 0.0)
    fij = (fr / r)[:, None] * d
    forces = np.zeros((len(positions), 3))
    np.add.at(forces, i, fij)
    np.add.at(forces, j, -fij)
    return energy, forces


def fcc_two_types(cells, seed, box_kind):
    """A perturbed fcc crystal of two types (every third particle B) in an orthorhombic cell, or the
    same particles in a triclinic cell of the same volume."""
    state = md.lattice("fcc", cells, density=FCC_DENSITY)
    rng = np.random.default_rng(seed)
    system = md.System(units="lj")
    for k in range(len(state)):
        system.add_particle(1.0, 0.0, "B" if k % 3 == 2 else "A")
    positions = state.positions + rng.normal(scale=0.08, size=(len(state), 3))
    if box_kind == "triclinic":
        edge = state.box.a[0]
        state.box = md.Box.triclinic([edge, 0, 0], [0.3 * edge, edge, 0], [-0.2 * edge, 0.25 * edge, edge])
    state.positions = positions
    return system, state


# ---- Lennard-Jones ----

@pytest.mark.parametrize("mode,box_kind", [("cut", "orthorhombic"), ("shifted", "orthorhombic"),
                                           ("force_switch", "orthorhombic"), ("cut", "triclinic")])
def test_lj_energy_forces_and_virial_match_a_numpy_brute_force_sum(mode, box_kind):
    system, state = fcc_two_types(3, seed=7, box_kind=box_kind)
    rc, rs = 2.0, 1.6
    lj = md.LennardJones(rc, mode=mode, switch_distance=rs if mode == "force_switch" else 0.0,
                         types={"A": (1.0, 1.0), "B": (0.6, 1.15)})
    lj.set_pair("A", "B", 0.8, 1.05)  # an explicit pair instead of Lorentz-Berthelot
    ff = md.ForceField([lj], skin=0.3)
    result = ff.compute(system, state)

    names = system.type_names
    types = [names[t] for t in system.types]
    params = {("A", "A"): (1.0, 1.0), ("B", "B"): (0.6, 1.15), ("A", "B"): (0.8, 1.05)}
    energy, forces, virial = lj_numpy(state.positions, state.box.vectors, types, params, mode, rc, rs)

    assert list(result.energies) == ["lj"]
    assert result.energies["lj"] == pytest.approx(energy, rel=1e-12, abs=1e-12)
    assert result.energy == result.energies["lj"]
    np.testing.assert_allclose(result.forces, forces, rtol=0, atol=1e-10 * np.abs(forces).max())
    np.testing.assert_allclose(result.virial, virial, rtol=0, atol=1e-11 * np.abs(virial).max())
    assert result.forces.shape == (len(state), 3) and result.forces.dtype == np.float64
    assert result.virial.shape == (3, 3)
    # The kernel's pair functions are the same ones.
    r = np.linspace(0.9, 2.4, 31)
    u, f = lj_pair_numpy(r, 0.8, 1.05, mode, rc, rs)
    np.testing.assert_allclose(lj.pair_energy(0.8, 1.05, r), u, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(lj.pair_force(0.8, 1.05, r), f, rtol=1e-12, atol=1e-14)
    assert lj.parameters("B", "A") == (0.8, 1.05)
    # Lorentz-Berthelot without the override: sigma arithmetic, epsilon geometric.
    plain = md.LennardJones(rc, types={"A": (1.0, 1.0), "B": (0.6, 1.15)})
    assert plain.parameters("A", "B") == pytest.approx((math.sqrt(0.6), 1.075))
    plain.mixing = "geometric"
    assert plain.parameters("A", "B") == pytest.approx((math.sqrt(0.6), math.sqrt(1.15)))


def test_tail_corrections_add_the_analytic_energy_and_pressure_of_a_uniform_fluid():
    system, state = fcc_two_types(3, seed=11, box_kind="orthorhombic")
    rc = 2.0
    types = {"A": (1.0, 1.0), "B": (0.6, 1.15)}
    plain = md.ForceField([md.LennardJones(rc, types=types)], skin=0.3).compute(system, state)
    tail = md.ForceField([md.LennardJones(rc, types=types, tail_correction=True)], skin=0.3).compute(system, state)

    volume = state.box.volume
    counts = {name: int(np.sum(system.types == k)) for k, name in enumerate(system.type_names)}
    e_tail = p_tail = 0.0
    for a, b in itertools.product(counts, repeat=2):
        eps = math.sqrt(types[a][0] * types[b][0])
        sig = 0.5 * (types[a][1] + types[b][1])
        # (2 pi / V) N_a N_b int_rc^inf r^2 U dr and (2 pi / 3 V^2) N_a N_b int_rc^inf r^3 F dr
        e_tail += 2 * math.pi / volume * counts[a] * counts[b] * 4 * eps * (sig ** 12 / (9 * rc ** 9)
                                                                          - sig ** 6 / (3 * rc ** 3))
        p_tail += 2 * math.pi / (3 * volume ** 2) * counts[a] * counts[b] * 4 * eps * (
            4 * sig ** 12 / (3 * rc ** 9) - 2 * sig ** 6 / rc ** 3)
    assert tail.energy - plain.energy == pytest.approx(e_tail, rel=1e-10)
    np.testing.assert_allclose(tail.virial - plain.virial, np.eye(3) * volume * p_tail, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(tail.forces, plain.forces)


def test_in_lj_step_zero_energy_and_pressure_are_lammps_published_values():
    # bench/in.lj: lattice fcc 0.8442, 20x20x20 cells, mass 1, velocity create 1.44, lj/cut 2.5.
    # LAMMPS's log: Step 0  Temp 1.44  E_pair -6.7733681  TotEng -4.6134356  Press -5.0197073.
    state = md.lattice("fcc", 20, density=FCC_DENSITY)
    assert len(state) == 32000
    system = md.identical_particles(len(state), mass=1.0, type="A", units="lj")
    md.maxwell_boltzmann(system, state, temperature=1.44, seed=87287)
    lj = md.LennardJones(2.5, types={"A": (1.0, 1.0)})
    sim = md.Simulation(system, state, md.ForceField([lj], skin=0.3), md.VelocityVerlet(0.005))
    n = len(state)
    assert sim.temperature == pytest.approx(1.44, rel=1e-12)
    assert sim.degrees_of_freedom == 3 * n - 3
    assert sim.energies["lj"] / n == pytest.approx(-6.7733681, rel=1e-7)
    assert sim.total_energy / n == pytest.approx(-4.6134356, rel=1e-7)
    assert sim.pressure == pytest.approx(-5.0197073, rel=1e-7)
    assert sim.volume == pytest.approx(n / FCC_DENSITY, rel=1e-12)
    assert np.trace(sim.pressure_tensor) / 3 == pytest.approx(sim.pressure, rel=1e-12)
    # The pressure is (2 K + tr W) / (3 V): the observables and the force field's virial agree.
    assert sim.pressure == pytest.approx((2 * sim.kinetic_energy + np.trace(sim.virial)) / (3 * sim.volume),
                                         rel=1e-12)


# ---- Coulomb ----

@pytest.fixture(scope="module")
def water64():
    system, state = md.water_box("spce", molecules=64, density=0.997, seed=3)
    return system, state


@pytest.mark.parametrize("method", ["pme", "ewald"])
def test_pme_and_ewald_match_a_converged_numpy_ewald_sum_on_a_water_box(water64, method):
    system, state = water64
    edge = state.box.a[0]
    assert state.box.is_orthorhombic and np.allclose(np.diag(state.box.vectors), edge)
    rc, tol = 0.5, 1e-6
    force = (md.PmeCoulomb(cutoff=rc, tolerance=tol) if method == "pme"
             else md.EwaldCoulomb(cutoff=rc, tolerance=tol))
    result = md.ForceField([force], skin=0.1).compute(system, state)
    alpha = md.ewald_alpha(rc, tol)
    assert force.alpha == pytest.approx(alpha, rel=1e-15)
    assert alpha == pytest.approx(math.sqrt(-math.log(2 * tol)) / rc, rel=1e-15)

    energy, forces = ewald_numpy(state.positions, system.charges, edge, alpha, rc, system.exclusions,
                                 md.Units.md().coulomb)
    # At this tolerance PME is within 1e-7 of the converged sum and Ewald within 4e-7.
    assert result.energies["coulomb"] == pytest.approx(energy, rel=1e-6)
    rms = math.sqrt(np.mean(np.sum(forces * forces, axis=1)))
    assert np.max(np.linalg.norm(result.forces - forces, axis=1)) < 3e-5 * rms
    if method == "pme":
        assert force.grid == md.pme_grid(state.box, alpha, tol)


def test_reaction_field_matches_its_pair_formula_on_a_water_box(water64):
    system, state = water64
    rf = md.ReactionFieldCoulomb(cutoff=0.5, epsilon_solvent=78.3)
    result = md.ForceField([rf], skin=0.1).compute(system, state)
    energy, forces = reaction_field_numpy(state.positions, system.charges, state.box.a[0], 0.5, 78.3,
                                          system.exclusions, md.Units.md().coulomb)
    assert rf.k_rf == pytest.approx(77.3 / (157.6 * 0.5 ** 3), rel=1e-14)
    assert result.energies["coulomb"] == pytest.approx(energy, rel=1e-11)
    np.testing.assert_allclose(result.forces, forces, rtol=0, atol=1e-9 * np.abs(forces).max())


# ---- bonded terms ----

def chain_system():
    """Five atoms in a bent chain with every bonded term (md units), in a large box."""
    positions = np.array([[1.00, 1.00, 1.00], [1.15, 1.02, 1.01], [1.21, 1.15, 0.97],
                          [1.36, 1.17, 1.05], [1.43, 1.30, 1.00]])
    system = md.System()
    for q in (0.2, -0.1, 0.05, -0.3, 0.15):
        system.add_particle(12.0, q, "C")
    system.bonds = [(k, k + 1, 0.15 + 0.01 * k, 2.0e5 + 1e4 * k) for k in range(4)]
    system.angles = [(k, k + 1, k + 2, 1.9 + 0.05 * k, 400.0 + 20 * k) for k in range(3)]
    system.add_torsion(0, 1, 2, 3, 3, 0.3, 2.5)
    system.add_torsion(1, 2, 3, 4, 2, math.pi, 1.5)
    system.add_improper(1, 0, 2, 3, 0.2, 80.0)
    state = md.State(positions, box=md.Box.orthorhombic(4.0))
    return system, state


def dihedral(p0, p1, p2, p3):
    """IUPAC dihedral in (-pi, pi] (Blondel and Karplus 1996)."""
    b1, b2, b3 = p1 - p0, p2 - p1, p3 - p2
    return math.atan2(np.linalg.norm(b2) * np.dot(b1, np.cross(b2, b3)),
                      np.dot(np.cross(b1, b2), np.cross(b2, b3)))


def test_bonded_energies_match_their_formulas_and_forces_are_minus_the_energy_gradient():
    system, state = chain_system()
    terms = [md.HarmonicBonds(), md.HarmonicAngles(), md.PeriodicTorsions(), md.HarmonicImpropers()]
    ff = md.ForceField(terms)
    result = ff.compute(system, state)
    x = state.positions
    e_bonds = sum(0.5 * k * (np.linalg.norm(x[j] - x[i]) - r0) ** 2 for i, j, r0, k in system.bonds)
    e_angles = 0.0
    for i, j, k, t0, kt in system.angles:
        u, v = x[i] - x[j], x[k] - x[j]
        theta = math.acos(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))
        e_angles += 0.5 * kt * (theta - t0) ** 2
    e_torsions = sum(kp * (1 + math.cos(n * dihedral(x[i], x[j], x[k], x[l]) - ph))
                     for i, j, k, l, n, ph, kp in system.torsions)
    (i, j, k, l, xi0, kx), = system.impropers
    dxi = (dihedral(x[i], x[j], x[k], x[l]) - xi0 + math.pi) % (2 * math.pi) - math.pi
    e_impropers = 0.5 * kx * dxi ** 2
    expected = {"bonds": e_bonds, "angles": e_angles, "torsions": e_torsions, "impropers": e_impropers}
    assert list(result.energies) == list(expected)
    for term, e in expected.items():
        assert result.energies[term] == pytest.approx(e, rel=1e-11), term

    # Central differences of the total energy.
    h = 1e-6
    numeric = np.zeros_like(x)
    for p in range(len(x)):
        for c in range(3):
            for sign in (1, -1):
                moved = x.copy()
                moved[p, c] += sign * h
                e = ff.compute(system, md.State(moved, box=state.box)).energy
                numeric[p, c] -= sign * e / (2 * h)
    np.testing.assert_allclose(result.forces, numeric, rtol=0, atol=1e-5 * np.abs(numeric).max())


def test_restraints_and_external_field_have_their_closed_form_energies():
    system, state = chain_system()
    refs = state.positions[[0, 3]] + np.array([[0.01, -0.02, 0.0], [0.0, 0.03, 0.01]])
    field = np.array([2.0, -1.0, 0.5])
    gravity = np.array([0.0, 0.0, -9.8e-3])
    ff = md.ForceField([md.PositionRestraints([0, 3], refs, [500.0, 800.0]),
                        md.ExternalField(electric_field=field, acceleration=gravity)])
    result = ff.compute(system, state)
    x, q, m = state.positions, system.charges, system.masses
    e_restraint = 0.5 * 500.0 * np.sum((x[0] - refs[0]) ** 2) + 0.5 * 800.0 * np.sum((x[3] - refs[1]) ** 2)
    f_field = q[:, None] * field + m[:, None] * gravity
    assert result.energies["restraints"] == pytest.approx(e_restraint, rel=1e-12)
    assert result.energies["external_field"] == pytest.approx(-np.sum(f_field * x), rel=1e-12)
    expected = f_field.copy()
    expected[0] -= 500.0 * (x[0] - refs[0])
    expected[3] -= 800.0 * (x[3] - refs[1])
    np.testing.assert_allclose(result.forces, expected, rtol=1e-12, atol=1e-12)


def test_exclude_bonded_excludes_pairs_within_three_bonds_and_scales_the_1_4_pairs():
    system, _ = chain_system()
    system.exclude_bonded(coulomb14=1 / 1.2, lj14=0.5)
    # Graph distances along the chain 0-1-2-3-4: pairs within 3 bonds are excluded, those at 3 are 1-4.
    assert system.exclusions == [(i, j) for i in range(5) for j in range(i + 1, 5) if j - i <= 3]
    assert sorted((i, j) for i, j, _, _ in system.pairs14) == [(0, 3), (1, 4)]
    assert all(c == pytest.approx(1 / 1.2) and l == 0.5 for _, _, c, l in system.pairs14)
    assert system.is_excluded(3, 0) and not system.is_excluded(0, 4)


# ---- dynamics ----

def lj_liquid(cells=4, temperature=1.44, seed=5, mode="force_switch"):
    """in.lj's fluid (4 cells: 256 atoms, cutoff 2.5; 3 cells: 108 atoms, cutoff 2.1 to fit the box),
    force-switched 0.4 sigma before the cutoff so that energy conservation is limited by dt alone."""
    state = md.lattice("fcc", cells, density=FCC_DENSITY)
    system = md.identical_particles(len(state), mass=1.0, type="A", units="lj")
    md.maxwell_boltzmann(system, state, temperature=temperature, seed=seed)
    rc = 2.5 if cells >= 4 else 2.1
    lj = md.LennardJones(rc, mode=mode, switch_distance=rc - 0.4 if mode == "force_switch" else 0.0,
                         types={"A": (1.0, 1.0)})
    return system, state, md.ForceField([lj], skin=0.3)


def energy_trace(dt, time_span):
    system, state, ff = lj_liquid()
    sim = md.Simulation(system, state, ff, md.VelocityVerlet(dt))
    energies = [sim.total_energy]
    sim.add_callback(lambda s: energies.append(s.total_energy))
    sim.run(int(round(time_span / dt)))
    return np.array(energies)


def test_nve_conserves_energy_and_its_fluctuations_scale_as_dt_squared():
    coarse = energy_trace(0.004, 0.8)
    fine = energy_trace(0.002, 0.8)
    e0 = abs(coarse[0])
    assert np.max(np.abs(coarse - coarse[0])) / e0 < 2e-4
    assert np.max(np.abs(fine - fine[0])) / e0 < 5e-5
    ratio = np.std(coarse) / np.std(fine)
    assert 3.0 < ratio < 5.3, f"fluctuations scale by {ratio:.2f} when dt halves (dt^2 gives 4)"


def test_a_callback_changes_velocities_with_the_same_bits_as_setting_them_between_runs():
    def make():
        system, state, ff = lj_liquid(cells=3)
        return md.Simulation(system, state, ff, md.VelocityVerlet(0.004))

    between = make()
    between.run(6)
    between.velocities = 0.5 * between.velocities
    between.run(6)

    inside = make()
    seen = []

    def halve(sim):
        seen.append((sim.step, sim is inside))
        if sim.step == 6:
            sim.velocities = 0.5 * sim.velocities

    inside.add_callback(halve, interval=3)
    inside.run(12)
    assert seen == [(3, True), (6, True), (9, True), (12, True)]
    assert inside.step == between.step == 12
    assert inside.time == pytest.approx(12 * 0.004, rel=1e-15)
    np.testing.assert_array_equal(inside.positions, between.positions)
    np.testing.assert_array_equal(inside.velocities, between.velocities)
    assert inside.energies == between.energies


def test_a_callback_that_stops_the_particles_leaves_zero_kinetic_energy_and_recomputed_forces():
    system, state, ff = lj_liquid(cells=3)
    sim = md.Simulation(system, state, ff, md.VelocityVerlet(0.004))
    shift = np.array([0.1, -0.2, 0.3])

    def stop_and_move(s):
        s.velocities = np.zeros_like(s.velocities)
        s.positions = s.positions + shift

    sim.add_callback(stop_and_move, interval=5)
    sim.run(5)
    assert sim.kinetic_energy == 0.0 and sim.temperature == 0.0
    # The forces are those at the moved positions: a rigid translation leaves the energy alone.
    fresh = ff.compute(system, sim.state)
    assert sim.energies["lj"] == pytest.approx(fresh.energies["lj"], rel=1e-12)
    np.testing.assert_allclose(sim.forces, fresh.forces, rtol=0, atol=1e-11)


def test_an_exception_in_a_callback_stops_the_run_and_propagates():
    system, state, ff = lj_liquid(cells=3)
    sim = md.Simulation(system, state, ff, md.VelocityVerlet(0.004))

    def fail(s):
        if s.step == 4:
            raise RuntimeError("stop here")

    sim.add_callback(fail)
    with pytest.raises(RuntimeError, match="stop here"):
        sim.run(10)
    assert sim.step == 4
    sim.run(2)  # still usable
    assert sim.step == 6


def test_python_reporters_receive_the_simulation_at_every_interval():
    system, state, ff = lj_liquid(cells=3)
    sim = md.Simulation(system, state, ff, md.VelocityVerlet(0.004))

    class Recorder:
        def __init__(self):
            self.rows, self.finished = [], 0

        def report(self, s):
            self.rows.append((s.step, s.temperature, s.potential_energy))

        def finish(self, s):
            self.finished += 1

    rec = sim.add_reporter(Recorder(), 4)
    sim.run(8)
    sim.run(4)
    assert [r[0] for r in rec.rows] == [0, 4, 8, 12]  # the shared step 8 is reported once
    assert rec.finished == 2
    sim.run_until(16 * 0.004)
    assert sim.step == 16 and rec.rows[-1][0] == 16
    assert rec.rows[-1][1] == sim.temperature and rec.rows[-1][2] == sim.potential_energy


@pytest.mark.parametrize("kind", ["bussi", "berendsen", "nose_hoover", "langevin", "mc_barostat",
                                  "berendsen_barostat"])
def test_every_ensemble_runs_and_keeps_its_conserved_quantity(kind):
    system, state, ff = lj_liquid(cells=3, temperature=1.2)
    t = 1.2
    integrator = {
        "bussi": lambda: md.VelocityVerlet(0.004, md.BussiThermostat(t, 0.1, seed=3)),
        "berendsen": lambda: md.VelocityVerlet(0.004, md.BerendsenThermostat(t, 0.1)),
        "nose_hoover": lambda: md.VelocityVerlet(0.004, md.NoseHooverChain(t, 0.2)),
        "langevin": lambda: md.LangevinMiddle(0.004, t, 1.0, seed=3),
        "mc_barostat": lambda: md.LangevinMiddle(0.004, t, 1.0, seed=3,
                                                 barostat=md.MonteCarloBarostat(1.0, t, frequency=5, seed=4)),
        "berendsen_barostat": lambda: md.VelocityVerlet(
            0.004, md.BussiThermostat(t, 0.1, seed=3),
            barostat=md.BerendsenBarostat(1.0, compressibility=0.05, time_constant=0.5, frequency=2)),
    }[kind]()
    sim = md.Simulation(system, state, ff, integrator)
    start, total, volume = sim.conserved_energy, sim.total_energy, sim.volume
    sim.run(150)
    assert sim.step == 150 and math.isfinite(sim.temperature)
    # The crystal melts and the thermostat puts in about 1 epsilon per atom; the conserved quantity
    # (K + U - heat + the thermostat's and barostat's terms) stays within 1e-3 of it.
    assert abs(sim.total_energy - total) > 0.3 * len(state)
    assert abs(sim.conserved_energy - start) < 2e-3 * len(state)
    if "barostat" in kind:
        assert sim.volume != volume
        assert integrator.barostat.name in ("monte_carlo", "berendsen_barostat")
    if kind == "mc_barostat":
        assert integrator.barostat.attempts == 30


def test_lbfgs_and_fire_bring_a_perturbed_crystal_back_to_the_lattice_energy():
    state = md.lattice("fcc", 3, density=FCC_DENSITY)
    system = md.identical_particles(len(state), units="lj")
    lj = md.LennardJones(2.0, mode="force_switch", switch_distance=1.6, types={"A": (1.0, 1.0)})
    ff = md.ForceField([lj], skin=0.3)
    lattice_energy = ff.compute(system, state).energy
    rng = np.random.default_rng(1)
    for minimize in (md.minimize_lbfgs, md.minimize_fire):
        perturbed = state.copy()
        perturbed.positions = state.positions + rng.normal(scale=0.03, size=(len(state), 3))
        assert ff.compute(system, perturbed).energy > lattice_energy + 1.0
        result = minimize(system, perturbed, ff, force_tolerance=1e-6)
        assert result.converged and result.max_force <= 1e-6, result
        assert result.energy == pytest.approx(lattice_energy, rel=1e-9)
        assert ff.compute(system, perturbed).energy == pytest.approx(result.energy, rel=1e-12)


# ---- outputs ----

def argon(cells=3):
    """fcc argon in md units (OpenMM-style parameters) at 40 K."""
    state = md.lattice("fcc", cells, constant=0.5256)
    system = md.identical_particles(len(state), mass=39.948, type="Ar", units="md")
    md.maxwell_boltzmann(system, state, temperature=40.0, seed=3)
    ff = md.ForceField([md.LennardJones(0.7, types={"Ar": (0.996, 0.3405)})], skin=0.05)
    return system, state, ff


def test_h5md_trajectory_reads_back_with_h5py(tmp_path):
    system, state, ff = argon()
    sim = md.Simulation(system, state, ff, md.VelocityVerlet(0.002))
    path = tmp_path / "argon.h5"
    writer = sim.add_reporter(md.H5mdWriter(path, force=True, author="pytest"), 5)
    log = tmp_path / "thermo.txt"
    thermo = sim.add_reporter(md.ThermoLog(str(log), csv=tmp_path / "thermo.csv"), 10)
    potential = {0: sim.potential_energy}
    sim.add_callback(lambda s: potential.__setitem__(s.step, s.potential_energy), interval=5)
    sim.run(20)
    assert writer.frames == 5 and not writer.is_open

    with h5py.File(path, "r") as f:
        assert f.attrs["complete"] == 1
        assert list(f["h5md"].attrs["version"]) == [1, 1]
        assert f["h5md/creator"].attrs["name"] == b"Spire"
        assert f["h5md/author"].attrs["name"] == b"pytest"
        g = f["particles/all"]
        np.testing.assert_array_equal(g["position/step"][()], [0, 5, 10, 15, 20])
        np.testing.assert_allclose(g["position/time"][()], 0.002 * np.arange(0, 21, 5), rtol=1e-12)
        assert g["position/value"].shape == (5, len(state), 3)
        assert g["position/value"].attrs["unit"] == "nm"
        assert g["velocity/value"].attrs["unit"] == "nm ps-1"
        assert g["force/value"].attrs["unit"] == "kJ mol-1 nm-1"
        np.testing.assert_array_equal(g["position/value"][0], state.positions)
        np.testing.assert_array_equal(g["position/value"][-1], sim.positions)
        np.testing.assert_array_equal(g["velocity/value"][-1], sim.velocities)
        np.testing.assert_array_equal(g["force/value"][-1], sim.forces)
        np.testing.assert_allclose(g["box/edges/value"][()], np.full((5, 3), state.box.a[0]), rtol=0)
        np.testing.assert_array_equal(g["species"][()], np.zeros(len(state)))
        np.testing.assert_array_equal(g["mass"][()], np.full(len(state), 39.948))
        obs = f["observables"]
        pe = obs["potential_energy/value"][()]
        np.testing.assert_array_equal(pe, [potential[s] for s in range(0, 21, 5)])
        assert pe[-1] == sim.potential_energy
        np.testing.assert_array_equal(obs["energies/lj/value"][()], pe)
        assert obs["temperature/value"][-1] == pytest.approx(sim.temperature, rel=1e-12)
        assert obs["temperature/value"][0] == pytest.approx(40.0, rel=1e-12)
        assert obs["pressure/value"].attrs["unit"] == "bar"
        assert obs["pressure/value"][-1] == pytest.approx(sim.pressure, rel=1e-12)
        np.testing.assert_allclose(obs["pressure_tensor/value"][-1], sim.pressure_tensor, rtol=1e-12)

    assert thermo.columns[:5] == ["Step", "Temp", "E_pair", "E_mol", "TotEng"]
    rows = [line.split() for line in log.read_text().splitlines()]
    assert rows[0] == thermo.columns and [int(r[0]) for r in rows[1:]] == [0, 10, 20]
    assert float(rows[-1][1]) == pytest.approx(sim.temperature, rel=1e-6)
    csv = np.genfromtxt(tmp_path / "thermo.csv", delimiter=",", names=True)
    assert list(csv["Step"]) == [0, 10, 20]
    assert csv["E_lj"][-1] == pytest.approx(sim.energies["lj"], rel=1e-12)


def test_thermo_log_writes_to_python_file_objects(capsys):
    system, state, ff = argon()
    sim = md.Simulation(system, state, ff, md.VelocityVerlet(0.002))
    sim.add_reporter(md.ThermoLog(), 2)  # sys.stdout at each write: what capsys sees
    sim.run(4)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["Step", "Temp", "E_pair"]
    assert [int(line.split()[0]) for line in lines[1:]] == [0, 2, 4]


def test_checkpoint_restore_continues_a_langevin_run_bit_for_bit(tmp_path):
    def make():
        system, state, ff = argon()
        integrator = md.LangevinMiddle(0.002, temperature=60.0, friction=5.0, seed=11)
        return md.Simulation(system, state, ff, integrator, seed=11)

    straight = make()
    straight.run(20)

    first = make()
    first.add_reporter(md.CheckpointWriter(tmp_path / "run.chk"), 10)
    first.run(10)
    first.save_checkpoint(tmp_path / "saved.chk")
    for path in ("run.chk", "saved.chk"):
        second = make()
        second.restore(tmp_path / path)
        assert second.step == 10 and second.time == pytest.approx(0.02, rel=1e-15)
        second.run(10)
        np.testing.assert_array_equal(second.positions, straight.positions)
        np.testing.assert_array_equal(second.velocities, straight.velocities)
        assert second.integrator.heat == straight.integrator.heat

    other = md.Simulation(*argon(cells=4), md.LangevinMiddle(0.002, 60.0, 5.0, seed=11), seed=11)
    with pytest.raises(ValueError, match="particle"):
        other.restore(tmp_path / "run.chk")
    with pytest.raises(spire.SpireIOError, match="missing.chk"):
        other.restore(tmp_path / "missing.chk")


def test_pdb_files_have_the_fixed_columns_and_read_back(tmp_path):
    system, state = md.water_box("tip3p", molecules=8, seed=2)
    path = tmp_path / "water.pdb"
    md.write_pdb(path, system, state, conect=True, title="eight waters")
    records = path.read_text().splitlines()
    cryst = next(r for r in records if r.startswith("CRYST1"))
    edge = state.box.a[0]
    assert float(cryst[6:15]) == pytest.approx(10 * edge, abs=1e-3)  # angstrom
    assert float(cryst[33:40]) == 90.0
    atoms = [r for r in records if r.startswith(("ATOM", "HETATM"))]
    assert len(atoms) == 24 and all(r.startswith("HETATM") for r in atoms)
    xyz = np.array([[float(r[30:38]), float(r[38:46]), float(r[46:54])] for r in atoms]) / 10
    np.testing.assert_allclose(xyz, state.positions, atol=5e-5)
    assert [r[12:16].strip() for r in atoms[:3]] == ["OW", "HW1", "HW2"]
    assert all(r[17:20] == "HOH" for r in atoms)

    pdb = md.read_pdb(path)
    assert len(pdb) == 24 and pdb.atom_names[:3] == ["OW", "HW1", "HW2"]
    np.testing.assert_allclose(pdb.positions, state.positions, atol=5e-5)
    np.testing.assert_allclose(pdb.box.vectors, state.box.vectors, atol=1e-4)
    assert (0, 1) in pdb.bonds and (0, 2) in pdb.bonds
    read = pdb.system()
    assert read.type_names == ["O", "H"] and read.masses[0] == pytest.approx(15.999, abs=1e-3)


# ---- the GIL ----

def test_runs_release_the_gil():
    state = md.lattice("fcc", 10, density=FCC_DENSITY)
    system = md.identical_particles(len(state), units="lj")
    md.maxwell_boltzmann(system, state, 1.44, seed=1)
    ff = md.ForceField([md.LennardJones(2.5, types={"A": (1.0, 1.0)})], skin=0.3)
    sim = md.Simulation(system, state, ff, md.VelocityVerlet(0.005))
    start = time.perf_counter()
    sim.run(5)
    per_step = (time.perf_counter() - start) / 5
    steps = max(10, int(0.4 / per_step))
    done = threading.Event()
    ticks = []

    def work():
        sim.run(steps)
        done.set()

    th = threading.Thread(target=work)
    th.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.002)
    th.join()
    assert len(ticks) >= 5, f"the main thread ticked {len(ticks)} times during {steps} steps"


def test_ctrl_c_stops_a_run_between_steps_and_leaves_the_simulation_usable():
    system, state, ff = lj_liquid(cells=3)
    sim = md.Simulation(system, state, ff, md.VelocityVerlet(0.002))
    start = time.perf_counter()
    sim.run(200)
    steps = int(5.0 / ((time.perf_counter() - start) / 200))  # about 5 s of steps
    timer = threading.Timer(0.2, _thread.interrupt_main)  # as SIGINT would
    start = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sim.run(steps)
    timer.join()
    assert time.perf_counter() - start < 2.0
    stopped = sim.step
    assert 200 < stopped < 200 + steps
    sim.run(3)
    assert sim.step == stopped + 3


# ---- platforms ----

def test_platforms_list_cpu_first_and_a_simulation_names_where_it_runs():
    names = md.platforms()
    assert names[0] == "cpu"
    assert names[1:] == sorted(names[1:])  # the registered platforms, in name order
    assert md.platforms is spire.sponge.platforms
    system, state, ff = lj_liquid(cells=3)
    default = md.Simulation(system, state, ff, md.VelocityVerlet(0.004))
    explicit = md.Simulation(system, state, ff, md.VelocityVerlet(0.004), platform="cpu")
    assert default.platform == explicit.platform == "cpu" and explicit.device == "cpu"
    default.run(5)
    explicit.run(5)
    np.testing.assert_array_equal(default.positions, explicit.positions)
    assert default.energies == explicit.energies


def test_an_unknown_platform_is_named_with_the_platforms_there_are():
    system, state, ff = lj_liquid(cells=3)
    with pytest.raises(spire.ConfigError, match=r"unknown platform 'nosuch'; this build has: cpu"):
        md.Simulation(system, state, ff, md.VelocityVerlet(0.004), platform="nosuch")
    with pytest.raises(spire.ConfigError, match="cpu takes no device index"):
        md.Simulation(system, state, ff, md.VelocityVerlet(0.004), platform="cpu:1")
    # The integrator of a refused simulation is free for another.
    integrator = md.VelocityVerlet(0.004)
    with pytest.raises(ValueError, match="nosuch"):
        md.Simulation(system, state, ff, integrator, platform="nosuch")
    assert md.Simulation(system, state, ff, integrator).platform == "cpu"


# ---- arrays in and out, and the errors of bad input ----

def test_arrays_copy_in_and_out():
    system, state, ff = lj_liquid(cells=3)
    pos = state.positions
    pos[0] += 1.0  # a copy: the state is unchanged
    assert not np.array_equal(pos, state.positions)
    sim = md.Simulation(system, state, ff, md.VelocityVerlet(0.004))
    state.positions = pos  # the simulation holds its own copy
    assert not np.array_equal(sim.positions, pos)
    assert system.masses.dtype == np.float64 and system.types.dtype == np.int64
    system.charges = np.linspace(-1, 1, len(system))
    assert system.charges[-1] == 1.0
    assert len(system) == 108 and system.type_names == ["A"]
    named = md.System()
    named.add_particle(12.011, 0.1, "C", name="CA", residue="ALA", residue_id=7)
    named.add_particle(1.008, 0.0, "H")
    assert named.atom_names == ["CA", "H"] and named.residue_names == ["ALA", "UNK"]
    assert named.residue_ids == [7, 2] and list(named.types) == [0, 1]
    assert md.Box.orthorhombic(2.0).volume == 8.0
    box = md.Box.triclinic([2, 0, 0], [0.5, 2, 0], [0.3, -0.4, 2])
    np.testing.assert_array_equal(box.vectors, [[2, 0, 0], [0.5, 2, 0], [0.3, -0.4, 2]])
    assert not box.is_orthorhombic and box.volume == 8.0


def test_bad_input_raises_errors_that_say_what_is_allowed():
    with pytest.raises(ValueError, match=r"shape \(N, 3\)"):
        md.State(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="not finite"):
        md.State([[0.0, 0.0, float("nan")]])
    with pytest.raises(spire.ConfigError, match="cut.*shifted.*force_switch"):
        md.LennardJones(2.5, mode="smooth")
    with pytest.raises(spire.ConfigError, match="md.*lj"):
        md.System(units="si")
    with pytest.raises(ValueError, match="exactly one of density"):
        md.lattice("fcc", 3, density=0.8, constant=1.6)
    with pytest.raises(spire.ConfigError, match="sc.*bcc.*fcc"):
        md.lattice("hcp", 3, density=0.8)
    with pytest.raises(ValueError, match=r"\(i, j, length, k\)"):
        md.System().bonds = [(0, 1, 0.1)]
    with pytest.raises(ValueError, match="must lie along x"):
        md.Box.triclinic([1, 0.1, 0], [0, 1, 0], [0, 0, 1])
    with pytest.raises(spire.ConfigError, match="molecule.*atom"):
        md.MonteCarloBarostat(1.0, 300.0, scaling="box")

    system, state, ff = lj_liquid(cells=3)
    with pytest.raises(ValueError, match="107 rows for 108 particles"):
        state.velocities = np.zeros((107, 3))
    other = md.System(units="lj")
    other.add_particle(1.0, 0.0, "A")
    with pytest.raises(ValueError, match="1 particles"):
        md.Simulation(other, state, ff, md.VelocityVerlet(0.004))
    # A type without parameters, named, when the simulation is made (not in the middle of a run).
    unknown = md.identical_particles(len(state), type="Xe", units="lj")
    with pytest.raises(spire.ConfigError, match="Xe"):
        md.Simulation(unknown, state, ff, md.VelocityVerlet(0.004))
    # A cutoff (plus skin) longer than half the box.
    small, small_state = md.identical_particles(4, units="lj"), md.lattice("fcc", 1, density=FCC_DENSITY)
    with pytest.raises(ValueError, match="cutoff"):
        md.ForceField([md.LennardJones(2.5, types={"A": (1, 1)})]).compute(small, small_state)
    integrator = md.VelocityVerlet(0.004)
    sim = md.Simulation(system, state, ff, integrator)
    with pytest.raises(ValueError, match="another Simulation"):
        md.Simulation(system, state, ff, integrator)
    with pytest.raises(ValueError, match="report"):
        sim.add_reporter(object(), 10)
    with pytest.raises(ValueError, match=">= 1"):
        sim.add_reporter(md.ThermoLog(None, csv=os.devnull), 0)
    with pytest.raises(ValueError, match=r"\(N, 3\)|rows"):
        sim.positions = np.zeros(5)
    with pytest.raises(spire.ConfigError, match="fire, lbfgs"):
        sim.minimize(1.0, method="steepest")
