"""Molecular dynamics (science/sponge), in the style of OpenMM's Python API.

Declarative objects describe what is simulated; a Simulation runs it, with reporters written as the
run goes and step callbacks; positions, velocities, forces and tensors come out as NumPy arrays.

LAMMPS's ``bench/in.lj`` (fcc at reduced density 0.8442, lj/cut 2.5, T = 1.44, NVE)::

    import spire.sponge as md

    state = md.lattice("fcc", 20, density=0.8442)            # 32000 atoms, box from the origin
    system = md.identical_particles(len(state), mass=1.0, type="A", units="lj")
    md.maxwell_boltzmann(system, state, temperature=1.44, seed=87287)
    lj = md.LennardJones(cutoff=2.5, types={"A": (1.0, 1.0)})
    sim = md.Simulation(system, state, md.ForceField([lj], skin=0.3), md.VelocityVerlet(dt=0.005))
    sim.add_reporter(md.ThermoLog(), 50)                      # Step Temp E_pair E_mol TotEng ...
    sim.add_reporter(md.H5mdWriter("lj.h5", force=True), 100) # H5MD 1.1 (MDAnalysis, VMD)
    sim.run(100)
    sim.energies, sim.temperature, sim.pressure, sim.pressure_tensor, sim.positions

SPC/E water with PME, constraints by SETTLE, Langevin dynamics and a Monte Carlo barostat::

    system, state = md.water_box("spce", molecules=216)
    w = md.WaterModel.spce()
    lj = md.LennardJones(0.9, types={"OW": (w.epsilon_o, w.sigma_o), "HW": (0.0, 0.0)})
    ff = md.ForceField([lj, md.PmeCoulomb(cutoff=0.9)])
    integrator = md.LangevinMiddle(0.002, temperature=298.0, friction=1.0, seed=1,
                                   barostat=md.MonteCarloBarostat(1.0, 298.0))
    sim = md.Simulation(system, state, ff, integrator)
    sim.minimize(force_tolerance=100.0)
    sim.run(1000)

Units: ``"md"`` (nm, ps, kJ/mol, amu, e, K, bar: OpenMM's and GROMACS's) or ``"lj"`` (reduced).

Objects and what they hold:

* ``System``: particles (``add_particle``; ``masses``, ``charges``, ``types`` as arrays) and the
  topology (``bonds``, ``angles``, ``torsions``, ``impropers``, ``pairs14``, ``constraints``,
  ``waters``, ``exclusions`` as lists of tuples; ``exclude_bonded``).
* ``State``: ``positions`` and ``velocities`` ((N, 3) float64, copied in and out), ``box``,
  ``time``, ``step``. ``Box.orthorhombic``, ``Box.triclinic``, ``Box.none``.
* Builders: ``lattice``, ``identical_particles``, ``water_box``, ``add_water``,
  ``maxwell_boltzmann``, ``read_pdb`` / ``write_pdb``.
* Force terms: ``LennardJones``, ``PmeCoulomb``, ``EwaldCoulomb``, ``ReactionFieldCoulomb``,
  ``HarmonicBonds``, ``HarmonicAngles``, ``PeriodicTorsions``, ``HarmonicImpropers``,
  ``PositionRestraints``, ``ExternalField``; a ``ForceField`` sums them (``compute`` gives a
  ``ForceResult``: ``energies`` per term, ``forces``, ``virial``).
* Integrators: ``VelocityVerlet`` (NVE, or with ``BussiThermostat``, ``BerendsenThermostat``,
  ``NoseHooverChain``), ``LangevinMiddle``; barostats ``MonteCarloBarostat``,
  ``BerendsenBarostat``; minimisers ``minimize_fire``, ``minimize_lbfgs``
  (``Simulation.minimize``).
* ``Simulation``: ``run``, ``run_until``, ``add_reporter`` (``ThermoLog``, ``H5mdWriter``,
  ``CheckpointWriter``, or any object with ``report(simulation)``), ``add_callback`` (a function
  of the simulation, called after every n-th step, which may set positions and velocities),
  observables (``temperature``, ``kinetic_energy``, ``potential_energy``, ``energies``,
  ``pressure``, ``pressure_tensor``, ``volume``, ``conserved_energy``), ``save_checkpoint`` /
  ``restore`` (bit for bit).
* Platforms: ``Simulation(..., platform="cuda")`` (or ``"cuda:1"``) runs the steps on a GPU, with the
  same observables, reporters and checkpoints as ``"cpu"`` (a checkpoint restarts on either);
  ``platforms()`` lists what this build has (``["cpu", "cuda"]`` with CUDA).

Runs and force evaluations release the GIL; callbacks, Python reporters and output to Python files
take it back for their calls, and Ctrl-C stops a run between steps. Bad input raises
``spire.SpireValueError`` / ``spire.ConfigError`` (both ValueErrors) or ``spire.SpireIOError``
naming what was wrong and what is allowed.
"""
from __future__ import annotations

from ._C import _sponge

__all__ = [
    # units, cells, what is simulated
    "Units", "Box", "System", "State",
    # builders
    "lattice", "identical_particles", "WaterModel", "water_box", "add_water", "maxwell_boltzmann",
    "kinetic_energy", "kinetic_temperature", "PdbFile", "read_pdb", "write_pdb",
    "WATER_OXYGEN_TYPE", "WATER_HYDROGEN_TYPE",
    # forces
    "Force", "ForceResult", "ForceField", "LennardJones", "CoulombForce", "PmeCoulomb", "EwaldCoulomb",
    "ReactionFieldCoulomb", "HarmonicBonds", "HarmonicAngles", "PeriodicTorsions", "HarmonicImpropers",
    "PositionRestraints", "ExternalField", "ewald_alpha", "pme_grid",
    # dynamics
    "Integrator", "MdIntegrator", "VelocityVerlet", "LangevinMiddle",
    "Thermostat", "BussiThermostat", "BerendsenThermostat", "NoseHooverChain",
    "Barostat", "MonteCarloBarostat", "BerendsenBarostat",
    "MinimizeResult", "minimize_fire", "minimize_lbfgs",
    # running and output
    "Simulation", "Reporter", "ThermoLog", "H5mdWriter", "CheckpointWriter", "is_molecular_term", "platforms",
]

Units = _sponge.Units
Box = _sponge.Box
System = _sponge.System
State = _sponge.State
lattice = _sponge.lattice
identical_particles = _sponge.identical_particles
WaterModel = _sponge.WaterModel
water_box = _sponge.water_box
add_water = _sponge.add_water
maxwell_boltzmann = _sponge.maxwell_boltzmann
kinetic_energy = _sponge.kinetic_energy
kinetic_temperature = _sponge.kinetic_temperature
PdbFile = _sponge.PdbFile
read_pdb = _sponge.read_pdb
write_pdb = _sponge.write_pdb
WATER_OXYGEN_TYPE = _sponge.WATER_OXYGEN_TYPE
WATER_HYDROGEN_TYPE = _sponge.WATER_HYDROGEN_TYPE
Force = _sponge.Force
ForceResult = _sponge.ForceResult
ForceField = _sponge.ForceField
LennardJones = _sponge.LennardJones
CoulombForce = _sponge.CoulombForce
PmeCoulomb = _sponge.PmeCoulomb
EwaldCoulomb = _sponge.EwaldCoulomb
ReactionFieldCoulomb = _sponge.ReactionFieldCoulomb
HarmonicBonds = _sponge.HarmonicBonds
HarmonicAngles = _sponge.HarmonicAngles
PeriodicTorsions = _sponge.PeriodicTorsions
HarmonicImpropers = _sponge.HarmonicImpropers
PositionRestraints = _sponge.PositionRestraints
ExternalField = _sponge.ExternalField
ewald_alpha = _sponge.ewald_alpha
pme_grid = _sponge.pme_grid
Integrator = _sponge.Integrator
MdIntegrator = _sponge.MdIntegrator
VelocityVerlet = _sponge.VelocityVerlet
LangevinMiddle = _sponge.LangevinMiddle
Thermostat = _sponge.Thermostat
BussiThermostat = _sponge.BussiThermostat
BerendsenThermostat = _sponge.BerendsenThermostat
NoseHooverChain = _sponge.NoseHooverChain
Barostat = _sponge.Barostat
MonteCarloBarostat = _sponge.MonteCarloBarostat
BerendsenBarostat = _sponge.BerendsenBarostat
MinimizeResult = _sponge.MinimizeResult
minimize_fire = _sponge.minimize_fire
minimize_lbfgs = _sponge.minimize_lbfgs
Simulation = _sponge.Simulation
Reporter = _sponge.Reporter
ThermoLog = _sponge.ThermoLog
H5mdWriter = _sponge.H5mdWriter
CheckpointWriter = _sponge.CheckpointWriter
is_molecular_term = _sponge.is_molecular_term
platforms = _sponge.platforms
