"""OpenMM's side of the science/sponge electrostatics and bonded validation.

Builds small deterministic systems here (TIP3P-geometry waters on a grid with orientations from a
fixed seed, and a charged twelve-atom chain with bonds, angles, proper torsions and 1-4 pairs,
in an orthorhombic and in a triclinic box), evaluates them with OpenMM's Reference platform
(double precision) term by term, and writes one plain-text file that
tests/validate/sponge_openmm.cpp reads to compute the same energies and forces with
spire::sponge and compare them (1e-5 relative or better).

    python3 tests/validate/peers/sponge_openmm_reference.py /tmp/sponge_openmm.txt
    build/.../sponge_openmm /tmp/sponge_openmm.txt      # (without an argument it runs this script)

File format (whitespace-separated, one record per line, in this order per system):
    system NAME
    box ax ay az bx by bz cx cy cz                     nm
    cutoff RC                                          nm
    pme ALPHA NX NY NZ TOLERANCE                       1/nm, mesh, OpenMM's ewaldErrorTolerance
    cpu_mesh NX NY NZ                                  the mesh OpenMM's CPU platform chooses
    reaction_field EPSILON_SOLVENT
    particles N          then N lines: charge mass x y z
    exclusions E         then E lines: i j
    pairs14 P            then P lines: i j coulomb_scale
    bonds B              then B lines: i j length k
    angles A             then A lines: i j k theta0 k
    torsions T           then T lines: i j k l periodicity phase k
    energy TERM VALUE    TERM in coulomb_pme, coulomb_ewald, coulomb_rf, bonds, angles, torsions (kJ/mol)
    forces TERM N        then N lines: fx fy fz  (kJ/mol/nm)
    end
"""
import math
import sys

import numpy as np
import openmm as mm

TOLERANCE = 5e-4
EPS_RF = 78.3
SCALE_QQ, SCALE_LJ = 1 / 1.2, 0.5  # AMBER's 1-4 scales


def fft_size(n):
    """Smallest size >= n made of 2, 3, 5, 7 and at most one 11 (OpenMM's CPU platform)."""
    while True:
        r = n
        for p in (2, 3, 5, 7):
            while r % p == 0:
                r //= p
        if r in (1, 11):
            return n
        n += 1


def widths(a, b, c):
    v = abs(np.dot(a, np.cross(b, c)))
    return [v / np.linalg.norm(np.cross(b, c)), v / np.linalg.norm(np.cross(c, a)), v / np.linalg.norm(np.cross(a, b))]


def build(name, box, n_grid, rng):
    a, b, c = (np.array(v, float) for v in box)
    h = np.array([a, b, c]).T  # columns a, b, c
    charges, masses, positions = [], [], []
    exclusions, bonds, angles, torsions = [], [], [], []

    # The chain: a zigzag backbone of twelve atoms through the middle of the cell.
    n_chain = 12
    centre = h @ np.array([0.5, 0.5, 0.5])
    chain_q = [0.35, -0.2, 0.15, -0.45, 0.3, 0.25, -0.3, 0.4, 0.1, -0.25, 0.3, 0.35]  # net +1
    x = centre - np.array([0.6, 0.0, 0.0])
    for i in range(n_chain):
        positions.append(x.copy())
        charges.append(chain_q[i])
        masses.append(12.011)
        step = np.array([0.125, 0.085 * (1 if i % 2 == 0 else -1), 0.02 * math.sin(i)])
        step += 0.02 * rng.standard_normal(3)
        x = x + step / np.linalg.norm(step) * (0.150 + 0.004 * (i % 3))
    for i in range(n_chain - 1):
        bonds.append((i, i + 1, 0.151 + 0.002 * (i % 4), 2.5e5 + 1e4 * i))
    for i in range(n_chain - 2):
        angles.append((i, i + 1, i + 2, 1.92 + 0.03 * (i % 3), 420.0 + 15 * i))
    for i in range(n_chain - 3):
        torsions.append((i, i + 1, i + 2, i + 3, 1 + i % 3, 0.4 * i, 1.5 + 0.2 * i))
        torsions.append((i, i + 1, i + 2, i + 3, 3, math.pi, 0.8))
    chain_xyz = np.array(positions)

    # Waters on a grid in fractional coordinates, dropped where they would overlap the chain.
    r_oh, hoh = 0.09572, math.radians(104.52)
    for gx in range(n_grid):
        for gy in range(n_grid):
            for gz in range(n_grid):
                o = h @ ((np.array([gx, gy, gz]) + 0.5) / n_grid)
                if np.min(np.linalg.norm(chain_xyz - o, axis=1)) < 0.32:
                    continue
                # A random orientation: two unit vectors at the HOH angle in a random frame.
                q = rng.standard_normal(4)
                q /= np.linalg.norm(q)
                w, qx, qy, qz = q
                rot = np.array([[1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - w * qz), 2 * (qx * qz + w * qy)],
                                [2 * (qx * qy + w * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - w * qx)],
                                [2 * (qx * qz - w * qy), 2 * (qy * qz + w * qx), 1 - 2 * (qx * qx + qy * qy)]])
                h1 = o + rot @ np.array([r_oh * math.sin(hoh / 2), 0, r_oh * math.cos(hoh / 2)])
                h2 = o + rot @ np.array([-r_oh * math.sin(hoh / 2), 0, r_oh * math.cos(hoh / 2)])
                first = len(positions)
                for xyz, qq, m in ((o, -0.834, 15.99943), (h1, 0.417, 1.007947), (h2, 0.417, 1.007947)):
                    positions.append(xyz)
                    charges.append(qq)
                    masses.append(m)
                exclusions += [(first, first + 1), (first, first + 2), (first + 1, first + 2)]
    positions = np.array(positions)

    cutoff = min(0.9, round(0.5 * min(widths(a, b, c)) - 0.11, 3))  # room for a 0.1 nm list skin
    alpha = math.sqrt(-math.log(2 * TOLERANCE)) / cutoff
    mesh = [fft_size(max(6, math.ceil(2 * alpha * box[d][d] / (3 * TOLERANCE ** 0.2)))) for d in range(3)]
    return dict(name=name, box=box, cutoff=cutoff, alpha=alpha, mesh=mesh, charges=charges, masses=masses,
                positions=positions, water_exclusions=exclusions, bonds=bonds, angles=angles, torsions=torsions)


def openmm_system(s, method):
    system = mm.System()
    system.setDefaultPeriodicBoxVectors(*(mm.Vec3(*v) for v in s["box"]))
    for m in s["masses"]:
        system.addParticle(m)
    nb = mm.NonbondedForce()
    for q in s["charges"]:
        nb.addParticle(q, 0.3, 0.0)  # Coulomb only: epsilon 0
    nb.setNonbondedMethod(method)
    nb.setCutoffDistance(s["cutoff"])
    nb.setEwaldErrorTolerance(TOLERANCE)
    nb.setReactionFieldDielectric(EPS_RF)
    nb.setUseDispersionCorrection(False)
    if method == mm.NonbondedForce.PME:
        nb.setPMEParameters(s["alpha"], *s["mesh"])
    for i, j in s["water_exclusions"]:
        nb.addException(i, j, 0.0, 0.3, 0.0)
    # The chain's exclusions and 1-4 pairs from its bonds (GROMACS nrexcl = 3, AMBER scales).
    nb.createExceptionsFromBonds([(i, j) for i, j, _, _ in s["bonds"]], SCALE_QQ, SCALE_LJ)
    nb.setForceGroup(0)
    system.addForce(nb)
    bf = mm.HarmonicBondForce()
    for i, j, r0, k in s["bonds"]:
        bf.addBond(i, j, r0, k)
    bf.setForceGroup(1)
    system.addForce(bf)
    af = mm.HarmonicAngleForce()
    for i, j, k, t0, kt in s["angles"]:
        af.addAngle(i, j, k, t0, kt)
    af.setForceGroup(2)
    system.addForce(af)
    tf = mm.PeriodicTorsionForce()
    for i, j, k, l, n, ph, kp in s["torsions"]:
        tf.addTorsion(i, j, k, l, n, ph, kp)
    tf.setForceGroup(3)
    system.addForce(tf)
    return system, nb


def evaluate(s, method, platform="Reference"):
    system, nb = openmm_system(s, method)
    context = mm.Context(system, mm.VerletIntegrator(0.001), mm.Platform.getPlatformByName(platform))
    context.setPositions([mm.Vec3(*p) for p in s["positions"]])
    out = {}
    for group, term in ((0, "coulomb"), (1, "bonds"), (2, "angles"), (3, "torsions")):
        st = context.getState(getEnergy=True, getForces=True, groups={group})
        out[term] = (st.getPotentialEnergy()._value, np.array(st.getForces(asNumpy=True)._value))
    return out, nb, context, system


def check_reference(s, method, reference):
    """OpenMM's Reference platform against its CPU platform (single precision): forces must agree to
    1e-3 of their rms, or the double-precision reference is not to be trusted for this cell."""
    try:
        cpu = evaluate(s, method, "CPU")[0]["coulomb"][1]
    except Exception:  # no CPU platform here: nothing to compare with
        return
    ref = reference[1]
    rms = math.sqrt(np.mean(np.sum(ref * ref, axis=1)))
    worst = np.max(np.linalg.norm(cpu - ref, axis=1))
    if worst > 1e-3 * rms:
        sys.exit(f"{s['name']}: OpenMM's Reference and CPU platforms disagree (largest force difference "
                 f"{worst:.3g} of rms {rms:.3g} kJ/mol/nm); choose another cell")


def write(f, s, results, exceptions, cpu_mesh):
    f.write(f"system {s['name']}\n")
    f.write("box " + " ".join(f"{x:.17g}" for v in s["box"] for x in v) + "\n")
    f.write(f"cutoff {s['cutoff']:.17g}\n")
    f.write(f"pme {s['alpha']:.17g} {' '.join(map(str, s['mesh']))} {TOLERANCE:.17g}\n")
    f.write(f"cpu_mesh {' '.join(map(str, cpu_mesh))}\n")
    f.write(f"reaction_field {EPS_RF:.17g}\n")
    f.write(f"particles {len(s['charges'])}\n")
    for q, m, p in zip(s["charges"], s["masses"], s["positions"]):
        f.write(f"{q:.17g} {m:.17g} {p[0]:.17g} {p[1]:.17g} {p[2]:.17g}\n")
    excl = sorted((min(i, j), max(i, j)) for i, j, _ in exceptions)
    f.write(f"exclusions {len(excl)}\n")
    for i, j in excl:
        f.write(f"{i} {j}\n")
    pairs = [(i, j, qq) for i, j, qq in exceptions if qq != 0]
    f.write(f"pairs14 {len(pairs)}\n")
    for i, j, qq in pairs:
        f.write(f"{i} {j} {qq / (s['charges'][i] * s['charges'][j]):.17g}\n")
    for key, rows in (("bonds", s["bonds"]), ("angles", s["angles"]), ("torsions", s["torsions"])):
        f.write(f"{key} {len(rows)}\n")
        for row in rows:
            f.write(" ".join(f"{x:.17g}" if isinstance(x, float) else str(x) for x in row) + "\n")
    for term, (energy, forces) in results.items():
        f.write(f"energy {term} {energy:.17g}\n")
        f.write(f"forces {term} {len(forces)}\n")
        for fx, fy, fz in forces:
            f.write(f"{fx:.17g} {fy:.17g} {fz:.17g}\n")
    f.write("end\n")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rng = np.random.default_rng(20240917)
    # (box, waters per edge of the grid). The triclinic cell is larger than the orthorhombic one:
    # OpenMM 8.6.1's Reference platform miscounts cutoff pairs in a 2.2 nm cell with all three tilts
    # (its CPU platform and a brute-force sum agree with each other there); see check_reference.
    boxes = {
        "orthorhombic": ([[2.2, 0, 0], [0, 2.2, 0], [0, 0, 2.2]], 7),
        "triclinic": ([[3.0, 0, 0], [1.05, 2.85, 0], [-0.75, 0.9, 2.76]], 9),
    }
    with open(sys.argv[1], "w") as f:
        f.write(f"# OpenMM {mm.__version__} Reference platform; written by {__file__}\n")
        for name, (box, n_grid) in boxes.items():
            s = build(name, box, n_grid, rng)
            pme, nb, _, _ = evaluate(s, mm.NonbondedForce.PME)
            results = {"coulomb_pme": pme["coulomb"], "bonds": pme["bonds"], "angles": pme["angles"],
                       "torsions": pme["torsions"]}
            results["coulomb_rf"] = evaluate(s, mm.NonbondedForce.CutoffPeriodic)[0]["coulomb"]
            check_reference(s, mm.NonbondedForce.PME, results["coulomb_pme"])
            check_reference(s, mm.NonbondedForce.CutoffPeriodic, results["coulomb_rf"])
            if name == "orthorhombic":  # OpenMM's Ewald takes rectangular boxes only
                results["coulomb_ewald"] = evaluate(s, mm.NonbondedForce.Ewald)[0]["coulomb"]
            exceptions = [nb.getExceptionParameters(k)[:3] for k in range(nb.getNumExceptions())]
            exceptions = [(i, j, qq._value if hasattr(qq, "_value") else qq) for i, j, qq in exceptions]
            # The mesh OpenMM's CPU platform picks for the tolerance, to check ours against.
            system, cpu_nb = openmm_system(s, mm.NonbondedForce.PME)
            cpu_nb.setPMEParameters(0.0, 0, 0, 0)
            try:
                ctx = mm.Context(system, mm.VerletIntegrator(0.001), mm.Platform.getPlatformByName("CPU"))
                ctx.setPositions([mm.Vec3(*p) for p in s["positions"]])
                ctx.getState(getEnergy=True)  # the CPU kernel settles its mesh on first use
                cpu_mesh = cpu_nb.getPMEParametersInContext(ctx)[1:]
            except Exception:  # no CPU platform: fall back to the formula
                cpu_mesh = s["mesh"]
            write(f, s, results, exceptions, cpu_mesh)
            print(f"{name}: {len(s['charges'])} particles, cutoff {s['cutoff']:.4f} nm, alpha {s['alpha']:.6f}/nm, "
                  f"mesh {s['mesh']}, OpenMM CPU mesh {list(cpu_mesh)}, PME Coulomb {pme['coulomb'][0]:.6f} kJ/mol")


if __name__ == "__main__":
    main()
