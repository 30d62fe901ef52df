// MD job files (science/sponge/job.h): every table parsed into its settings; unknown keys and bad
// values refused with messages naming the key and what is allowed; the simulation a job builds
// against the same system built by hand with the package's APIs (energies, a minimisation, then a
// few steps, bit for bit) and against LAMMPS's in.lj step-0 energy and pressure; PDB systems against
// the water box they were written from; and a run stopped through SimulationOptions::stop and
// resumed from its checkpoint against one uninterrupted run (state and files bit for bit).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "engine/data/hdf5_util.h"
#include "science/sponge/bonded.h"
#include "science/sponge/bussi.h"
#include "science/sponge/checkpoint.h"
#include "science/sponge/constraints.h"
#include "science/sponge/job.h"
#include "science/sponge/langevin.h"
#include "science/sponge/lattice.h"
#include "science/sponge/monte_carlo_barostat.h"
#include "science/sponge/pdb.h"
#include "science/sponge/pme.h"
#include "science/sponge/velocities.h"
#include "science/sponge/velocity_verlet.h"
#include "science/sponge/water.h"
#include "tests/common/temp_dir.h"

namespace spire::sponge {
namespace {

using data::Hdf5Id;
using fixtures::read_all;

// The job's scratch directory: sponge_job_<test><tag>_<pid>.
struct TempDir : fixtures::TempDir {
  explicit TempDir(const std::string& tag = "") : fixtures::TempDir("sponge_job" + tag + "_") {}
};

// The ConfigError message of parsing `toml`, "" when it parses.
std::string error_of(const std::string& toml) {
  try {
    parse_md_job(toml, "job.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const char* kLjHeader = R"(units = "lj"
[system]
lattice = { kind = "fcc", density = 0.8442, cells = [4, 4, 4] }
[forces.lj]
cutoff = 2.5
[run]
steps = 10
)";

TEST(SpongeJob, ParsesEveryTable) {
  const MdJob job = parse_md_job(R"(units = "lj"
[system]
lattice = { kind = "bcc", constant = 1.7, cells = [3, 4, 5], mass = 2.0, type = "Ar" }
[forces]
skin = 0.4
[forces.lj]
cutoff = 2.2
mode = "force_switch"
switch_distance = 2.0
tail = true
mixing = "geometric"
types.Ar = { epsilon = 1.5, sigma = 1.1 }
types.Kr = { epsilon = 2.0, sigma = 1.2 }
pairs.Ar.Kr = { epsilon = 1.7, sigma = 1.15 }
[forces.coulomb]
method = "ewald"
tolerance = 1e-5
kmax = [7, 9, 11]
[forces.external_field]
acceleration = [0.0, 0.0, -0.1]
[forces.restraints]
k = 50.0
particles = [0, 5]
[integrator]
kind = "verlet"
dt = 0.004
remove_com_motion = false
constraint_tolerance = 1e-8
thermostat = { kind = "nose_hoover", temperature = 1.2, tau = 0.5, chain = 4, multiple_steps = 2, suzuki_yoshida = 5 }
barostat = { kind = "monte_carlo", pressure = [1.0, 2.0, 3.0], axes = ["x", "z"], frequency = 10, scaling = "atom" }
[velocities]
temperature = 1.3
seed = 7
zero_momentum = false
[minimize]
method = "lbfgs"
force_tolerance = 1e-3
max_iterations = 50
[run]
time = 2.0
seed = 11
progress = 0
resume = true
[output]
thermo = { interval = 20, file = "log.csv", normalize = false }
h5md = { file = "traj.h5", interval = 40, velocity = false, force = true, float32 = true, author = "Ada" }
checkpoint = { file = "run.chk", interval = 100 }
)",
                                 "job.toml");
  EXPECT_EQ(job.units.name, "lj");
  const LatticeSettings& l = job.system.lattice;
  EXPECT_EQ(job.system.builder, "lattice");
  EXPECT_EQ(l.kind, "bcc");
  EXPECT_EQ(l.constant, 1.7);
  EXPECT_EQ(l.density, 0);
  EXPECT_EQ(l.cells, (std::array<int, 3>{3, 4, 5}));
  EXPECT_EQ(l.mass, 2.0);
  EXPECT_EQ(l.type, "Ar");
  EXPECT_EQ(job.forces.skin, 0.4);
  const LJSettings& lj = job.forces.lj;
  EXPECT_TRUE(lj.enabled);
  EXPECT_EQ(lj.cutoff, 2.2);
  EXPECT_EQ(lj.mode, "force_switch");
  EXPECT_EQ(lj.switch_distance, 2.0);
  EXPECT_TRUE(lj.tail);
  EXPECT_EQ(lj.mixing, "geometric");
  ASSERT_EQ(lj.types.size(), 2u);
  EXPECT_EQ(lj.types.at("Kr").epsilon, 2.0);
  EXPECT_EQ(lj.types.at("Ar").sigma, 1.1);
  ASSERT_EQ(lj.pairs.size(), 1u);
  EXPECT_EQ(lj.pairs.begin()->first, (std::pair<std::string, std::string>{"Ar", "Kr"}));
  EXPECT_EQ(lj.pairs.begin()->second.sigma, 1.15);
  const CoulombSettings& c = job.forces.coulomb;
  EXPECT_TRUE(c.enabled);
  EXPECT_EQ(c.method, "ewald");
  EXPECT_EQ(c.cutoff, 2.2);  // the Lennard-Jones cutoff
  EXPECT_EQ(c.tolerance, 1e-5);
  EXPECT_EQ(c.kmax, (std::array<int, 3>{7, 9, 11}));
  EXPECT_TRUE(job.forces.external_field.enabled);
  EXPECT_EQ(job.forces.external_field.acceleration, (Vec3{0, 0, -0.1}));
  EXPECT_EQ(job.forces.external_field.electric, Vec3{});
  EXPECT_TRUE(job.forces.restraints.enabled);
  EXPECT_EQ(job.forces.restraints.k, 50);
  EXPECT_EQ(job.forces.restraints.particles, (std::vector<int>{0, 5}));
  const IntegratorSettings& in = job.integrator;
  EXPECT_EQ(in.kind, "verlet");
  EXPECT_EQ(in.dt, 0.004);
  EXPECT_FALSE(in.remove_com_motion);
  EXPECT_EQ(in.constraint_tolerance, 1e-8);
  EXPECT_EQ(in.thermostat.kind, "nose_hoover");
  EXPECT_EQ(in.thermostat.temperature, 1.2);
  EXPECT_EQ(in.thermostat.tau, 0.5);
  EXPECT_EQ(in.thermostat.nose_hoover.chain_length, 4);
  EXPECT_EQ(in.thermostat.nose_hoover.multiple_steps, 2);
  EXPECT_EQ(in.thermostat.nose_hoover.suzuki_yoshida, 5);
  EXPECT_EQ(in.barostat.kind, "monte_carlo");
  EXPECT_TRUE(in.barostat.anisotropic);
  EXPECT_EQ(in.barostat.pressure, (Vec3{1, 2, 3}));
  EXPECT_EQ(in.barostat.axes, (std::array<bool, 3>{true, false, true}));
  EXPECT_EQ(in.barostat.frequency, 10);
  EXPECT_EQ(in.barostat.scaling, "atom");
  EXPECT_EQ(in.barostat.temperature, 1.2);  // the thermostat's
  EXPECT_TRUE(job.velocities.enabled);
  EXPECT_EQ(job.velocities.temperature, 1.3);
  EXPECT_EQ(job.velocities.seed, 7u);
  EXPECT_FALSE(job.velocities.zero_momentum);
  EXPECT_TRUE(job.minimize.enabled);
  EXPECT_EQ(job.minimize.method, "lbfgs");
  EXPECT_EQ(job.minimize.force_tolerance, 1e-3);
  EXPECT_EQ(job.minimize.max_iterations, 50);
  EXPECT_EQ(job.run.steps, -1);
  EXPECT_EQ(job.run.time, 2.0);
  EXPECT_EQ(total_steps(job), 500);  // 2.0 / 0.004
  EXPECT_EQ(job.run.seed, 11u);
  EXPECT_EQ(job.run.progress_seconds, 0);
  EXPECT_TRUE(job.run.resume);
  EXPECT_EQ(job.thermo.interval, 20);
  EXPECT_EQ(job.thermo.file, "log.csv");
  EXPECT_EQ(job.thermo.normalize, false);
  EXPECT_TRUE(job.h5md.enabled);
  EXPECT_EQ(job.h5md.file, "traj.h5");
  EXPECT_EQ(job.h5md.interval, 40);
  EXPECT_TRUE(job.h5md.position && !job.h5md.velocity && job.h5md.force && job.h5md.observables && job.h5md.float32);
  EXPECT_EQ(job.h5md.author, "Ada");
  EXPECT_EQ(job.checkpoint.file, "run.chk");
  EXPECT_EQ(job.checkpoint.interval, 100);
}

TEST(SpongeJob, DefaultsFollowTheUnits) {
  const MdJob lj = parse_md_job(kLjHeader, "job.toml");
  EXPECT_EQ(lj.integrator.kind, "verlet");
  EXPECT_EQ(lj.integrator.dt, 0.005);  // LAMMPS's lj default
  EXPECT_EQ(lj.forces.skin, 0.3);      // LAMMPS's neighbor 0.3 bin
  EXPECT_EQ(lj.forces.lj.mode, "cut");
  EXPECT_FALSE(lj.forces.lj.tail);
  EXPECT_FALSE(lj.forces.coulomb.enabled || lj.velocities.enabled || lj.minimize.enabled || lj.h5md.enabled);
  EXPECT_EQ(lj.integrator.thermostat.kind, "");
  EXPECT_EQ(lj.integrator.barostat.kind, "");
  EXPECT_EQ(total_steps(lj), 10);
  EXPECT_EQ(lj.run.seed, 0u);
  EXPECT_EQ(lj.thermo.interval, 100);
  EXPECT_EQ(lj.thermo.file, "thermo.csv");
  EXPECT_FALSE(lj.thermo.normalize.has_value());
  EXPECT_EQ(lj.checkpoint.file, "checkpoint.h5");
  EXPECT_EQ(lj.checkpoint.interval, 0);
  EXPECT_TRUE(lj.integrator.remove_com_motion);
}

// Restraints and external fields: the terms, their references (the built positions) and the
// centre-of-mass motion left alone, since those forces move it.
TEST(SpongeJob, RestraintsAndExternalFieldsAreTermsThatMoveTheCentreOfMass) {
  const MdJob job = parse_md_job(std::string(kLjHeader) + R"([forces.restraints]
k = 20.0
types = ["A"]
[forces.external_field]
electric = [0.5, 0.0, 0.0]
[velocities]
temperature = 1.0
[minimize]
force_tolerance = 1e-6
)",
                                 "job.toml");
  EXPECT_FALSE(job.integrator.remove_com_motion);
  const BuiltSystem built = build_system(job);
  const ForceField ff = make_force_field(job, built.system, built.state);
  ASSERT_EQ(ff.terms().size(), 3u);
  EXPECT_EQ(ff.terms()[1]->name(), "external_field");
  EXPECT_EQ(dynamic_cast<const ExternalField&>(*ff.terms()[1]).electric_field(), (Vec3{0.5, 0, 0}));
  const auto& r = dynamic_cast<const PositionRestraints&>(*ff.terms()[2]);
  ASSERT_EQ(r.restraints().size(), 256u);
  for (size_t i = 0; i < 256; ++i) {
    EXPECT_EQ(r.restraints()[i].particle, int(i));
    EXPECT_EQ(r.restraints()[i].reference, built.state.positions[i]);
    EXPECT_EQ(r.restraints()[i].k, 20.0);
  }
  std::unique_ptr<Simulation> sim = make_simulation(job);
  sim->prepare();
  EXPECT_FALSE(sim->removes_com_motion());
  EXPECT_EQ(sim->observables().degrees_of_freedom, 3 * 256);
  // Uncharged particles feel no electric field; the restraints hold the minimised lattice in place.
  EXPECT_EQ(sim->forces().energy_of("external_field"), 0.0);
  EXPECT_EQ(sim->forces().energy_of("restraints"), 0.0);
  EXPECT_NEAR(sim->observables().temperature, 1.0, 1e-12);

}

TEST(SpongeJob, ParsesWaterAndPdbSystems) {
  const MdJob water = parse_md_job(R"(units = "md"
[system]
water = { model = "tip3p", molecules = 100, density = 1.0, seed = 3, clash_distance = 0.2 }
[forces.lj]
cutoff = 0.8
[forces.coulomb]
method = "reaction_field"
epsilon_solvent = 80.0
[integrator]
kind = "langevin"
temperature = 300.0
friction = 2.0
[integrator.barostat]
kind = "berendsen"
pressure = 1.0
[minimize]
[run]
steps = 5
)",
                                   "job.toml");
  EXPECT_EQ(water.system.builder, "water");
  EXPECT_EQ(water.system.water.model, "tip3p");
  EXPECT_EQ(water.system.water.molecules, 100);
  EXPECT_EQ(water.system.water.density, 1.0);
  EXPECT_EQ(water.system.water.seed, 3u);
  EXPECT_EQ(water.system.water.clash_distance, 0.2);
  EXPECT_EQ(water.forces.skin, 0.1);  // nm
  EXPECT_EQ(water.forces.coulomb.method, "reaction_field");
  EXPECT_EQ(water.forces.coulomb.epsilon_solvent, 80.0);
  EXPECT_EQ(water.forces.coulomb.cutoff, 0.8);
  EXPECT_EQ(water.integrator.dt, 0.001);  // ps
  EXPECT_EQ(water.integrator.kind, "langevin");
  EXPECT_EQ(water.integrator.temperature, 300.0);
  EXPECT_EQ(water.integrator.friction, 2.0);
  EXPECT_EQ(water.integrator.barostat.kind, "berendsen");
  EXPECT_FALSE(water.integrator.barostat.anisotropic);
  EXPECT_EQ(water.integrator.barostat.pressure, (Vec3{1, 1, 1}));
  EXPECT_TRUE(water.minimize.enabled);
  EXPECT_EQ(water.minimize.method, "fire");
  EXPECT_EQ(water.minimize.force_tolerance, 10);  // GROMACS's emtol

  const char* rest = R"(
[forces.lj]
cutoff = 0.9
types.Na = { epsilon = 0.3, sigma = 0.25 }
[forces.coulomb]
method = "pme"
order = 6
grid = [24, 24, 30]
alpha = 3.5
[run]
steps = 1
)";
  const MdJob plain = parse_md_job(std::string("units = \"md\"\n[system]\npdb = \"box.pdb\"\n") + rest, "a/job.toml", "a");
  EXPECT_EQ(plain.system.builder, "pdb");
  EXPECT_EQ(plain.system.pdb.file, "box.pdb");
  EXPECT_EQ(plain.system.pdb.path, (std::filesystem::path("a") / "box.pdb").string());  // beside the job file
  EXPECT_EQ(plain.forces.coulomb.order, 6);
  EXPECT_EQ(plain.forces.coulomb.grid, (std::array<int, 3>{24, 24, 30}));
  EXPECT_EQ(plain.forces.coulomb.alpha, 3.5);
  const MdJob table = parse_md_job(
      std::string("units = \"md\"\n[system]\npdb = { file = \"/abs/box.pdb\", charges = { Na = 1.0, Cl = -1.0 }, "
                  "water = \"spce\" }\n") + rest, "a/job.toml", "a");
  EXPECT_EQ(table.system.pdb.path, "/abs/box.pdb");
  EXPECT_EQ(table.system.pdb.charges.at("Cl"), -1.0);
  EXPECT_EQ(table.system.pdb.water, "spce");
}

TEST(SpongeJob, UnknownKeysAreNamedWithTheAllowedOnes) {
  struct Case {
    std::string toml, expected;
  };
  const std::string lj = kLjHeader;
  const Case cases[] = {
      {"bogus = 1\n" + lj, "unknown key bogus at the top level; allowed: units, system, forces, integrator, velocities, "
                           "minimize, run, output"},
      {"units = \"lj\"\n[system]\nlattice = { kind = \"fcc\", density = 0.8, cells = [2, 2, 2], colour = 1 }\n"
       "[run]\nsteps = 1\n",
       "unknown key colour in [system.lattice]; allowed: kind, density, constant, cells, mass, type"},
      {"units = \"lj\"\n[system]\nlattice = { kind = \"fcc\", density = 0.8, cells = [2, 2, 2] }\ncrystal = 1\n"
       "[run]\nsteps = 1\n",
       "unknown key crystal in [system]; allowed: lattice, water, pdb"},
      {"units = \"lj\"\n[system]\nlattice = { density = 0.8, cells = [2, 2, 2] }\npdb = \"a.pdb\"\n[run]\nsteps = 1\n",
       "[system] needs exactly one of lattice = {...}, water = {...} or pdb = \"file.pdb\"; it has lattice, pdb"},
      {lj + "[forces]\nskim = 0.3\n", "unknown key skim in [forces]; allowed: skin, lj, coulomb, external_field, "
                                      "restraints"},
      {lj + "[forces.lj.types.A]\nepsilon = 1.0\nsigma = 1.0\nrmin = 1.1\n",
       "unknown key rmin in [forces.lj.types.A]; allowed: epsilon, sigma"},
      {lj + "[forces.coulomb]\nmethod = \"ewald\"\norder = 5\n",
       "unknown key order in [forces.coulomb]; allowed: method, cutoff, tolerance, alpha, kmax"},
      {lj + "[forces.coulomb]\nmethod = \"reaction_field\"\ntolerance = 1e-5\n",
       "unknown key tolerance in [forces.coulomb]; allowed: method, cutoff, epsilon_solvent"},
      {lj + "[integrator]\nfriction = 1.0\n",
       "unknown key friction in [integrator]; allowed: kind, dt, temperature, remove_com_motion, constraint_tolerance, "
       "thermostat, barostat"},
      {lj + "[integrator.thermostat]\nkind = \"bussi\"\ntemperature = 1.0\nchain = 3\n",
       "unknown key chain in [integrator.thermostat]; allowed: kind, temperature, tau"},
      {lj + "[integrator.barostat]\nkind = \"monte_carlo\"\npressure = 1.0\ntemperature = 1.0\ntau = 2.0\n",
       "unknown key tau in [integrator.barostat]; allowed: kind, pressure, frequency, scaling, temperature"},
      {lj + "[velocities]\ntemperature = 1.0\nmomentum = false\n",
       "unknown key momentum in [velocities]; allowed: temperature, seed, zero_momentum"},
      {lj + "[minimize]\nforce_tolerance = 1e-3\nsteps = 10\n",
       "unknown key steps in [minimize]; allowed: method, force_tolerance, max_iterations"},
      {lj + "seed2 = 1\n", "unknown key seed2 in [run]; allowed: steps, time, seed, progress, resume"},
      {lj + "[output]\nxyz = { file = \"a.xyz\" }\n",
       "unknown key xyz in [output]; allowed: thermo, h5md, checkpoint"},
      {lj + "[output.h5md]\nimages = true\n",
       "unknown key images in [output.h5md]; allowed: file, interval, position, velocity, force, observables, float32, "
       "author"},
  };
  for (const Case& c : cases) {
    const std::string message = error_of(c.toml);
    EXPECT_NE(message.find(c.expected), std::string::npos) << "expected \"" << c.expected << "\" in \"" << message
                                                           << "\"\nfor\n" << c.toml;
    EXPECT_EQ(message.rfind("job.toml", 0), 0u) << message;  // every message names the file
  }
}

TEST(SpongeJob, BadValuesNameTheKeyAndWhatIsAllowed) {
  struct Case {
    std::string toml, expected;
  };
  const std::string lj = kLjHeader;
  const std::string bare = "units = \"lj\"\n[system]\nlattice = { density = 0.8, cells = [2, 2, 2] }\n[run]\nsteps = 1\n";
  const std::string water = "units = \"md\"\n[system]\nwater = { molecules = 10 }\n[run]\nsteps = 1\n";
  const Case cases[] = {
      {"[run]\nsteps = 1\n", "units is required: \"md\" (nm, ps, kJ/mol, amu, e, K, bar) or \"lj\""},
      {"units = \"real\"\n", "units must be one of md, lj, got \"real\""},
      {"units = \"lj\"\n[system]\nlattice = { kind = \"hcp\", density = 0.8, cells = [2, 2, 2] }\n",
       "system.lattice.kind must be one of fcc, bcc, sc, got \"hcp\""},
      {"units = \"lj\"\n[system]\nlattice = { density = 0.8, constant = 1.6, cells = [2, 2, 2] }\n",
       "[system.lattice] needs density (reduced, as LAMMPS's `lattice fcc 0.8442` in lj units) or constant (the cubic "
       "cell's edge), not both"},
      {"units = \"lj\"\n[system]\nlattice = { density = 0.8, cells = [2, 2] }\n",
       "system.lattice.cells must be three integers [x, y, z], got 2"},
      {"units = \"lj\"\n[system]\nlattice = { density = 0.8, cells = [2, 0, 2] }\n",
       "system.lattice.cells must be an array of integers >= 1, got an element 0"},
      {"units = \"lj\"\n[system]\nwater = { molecules = 10 }\n",
       "system.water builds a system in md units (nm, ps, kJ/mol); set units = \"md\""},
      {water + "[forces.lj]\ncutoff = 0.8\n",
       "the system has charges but [forces] has no coulomb table; add [forces.coulomb] with method = \"pme\", "
       "\"ewald\" or \"reaction_field\""},
      {water + "[forces.coulomb]\nmethod = \"pme\"\ncutoff = 0.8\n", "a water box needs [forces.lj] with a cutoff"},
      {water + "[forces.lj]\ncutoff = 0.8\n[forces.coulomb]\nmethod = \"p3m\"\n",
       "forces.coulomb.method must be one of pme, ewald, reaction_field, got \"p3m\""},
      {water + "[forces.lj]\ncutoff = 0.8\n[forces.coulomb]\norder = 2\n",
       "forces.coulomb.order must be an integer in [3, 12], got 2"},
      {water + "[forces.lj]\ncutoff = 0.8\n[forces.coulomb]\ntolerance = 0.7\n",
       "forces.coulomb.tolerance must be a number > 0 and <= 0.5, got 0.7"},
      {water + "[forces.lj]\ncutoff = 0.8\n[forces.coulomb]\nmethod = \"pme\"\n[minimize]\nmethod = \"lbfgs\"\n",
       "minimize.method = \"lbfgs\" cannot keep rigid water rigid; use method = \"fire\""},
      {bare + "[forces.lj]\ncutoff = 2.5\nmode = \"switch\"\n", "forces.lj.mode must be one of cut, shifted, force_switch, got \"switch\""},
      {bare + "[forces.lj]\nmode = \"cut\"\n", "[forces.lj] needs cutoff"},
      {bare + "[forces.lj]\ncutoff = 2.5\nmode = \"force_switch\"\n", "forces.lj.mode = \"force_switch\" needs switch_distance"},
      {bare + "[forces.lj]\ncutoff = 2.5\nmode = \"force_switch\"\nswitch_distance = 3.0\n",
       "forces.lj.switch_distance must be a number > 0 and <= 2.5, got 3"},
      {bare + "[forces.lj]\ncutoff = 2.5\nmixing = \"waldman\"\n",
       "forces.lj.mixing must be one of lorentz_berthelot, arithmetic, geometric, got \"waldman\""},
      {lj + "[forces.lj.types]\nA = { epsilon = 1.0 }\n", "[forces.lj.types.A] needs epsilon and sigma"},
      {lj + "[forces.restraints]\nk = 10.0\n", "[forces.restraints] needs particles = [i, ...] (indices) or types"},
      {lj + "[integrator]\nkind = \"leapfrog\"\n", "integrator.kind must be one of verlet, langevin, got \"leapfrog\""},
      {lj + "[integrator]\ndt = -0.001\n", "integrator.dt must be a number > 0, got -0.001"},
      {lj + "[integrator]\nkind = \"langevin\"\n", "kind = \"langevin\" needs integrator.temperature"},
      {lj + "[integrator]\nkind = \"langevin\"\ntemperature = 1.0\n[integrator.thermostat]\nkind = \"bussi\"\n",
       "[integrator.thermostat] goes with kind = \"verlet\"; kind = \"langevin\" is its own thermostat"},
      {lj + "[integrator.thermostat]\nkind = \"andersen\"\ntemperature = 1.0\n",
       "integrator.thermostat.kind must be one of nose_hoover, bussi, berendsen, got \"andersen\""},
      {lj + "[integrator.thermostat]\nkind = \"bussi\"\n", "[integrator.thermostat] needs temperature"},
      {lj + "[integrator.thermostat]\nkind = \"nose_hoover\"\ntemperature = 1.0\nsuzuki_yoshida = 4\n",
       "integrator.thermostat.suzuki_yoshida must be 1, 3, 5 or 7, got 4"},
      {lj + "[integrator.barostat]\nkind = \"monte_carlo\"\npressure = 1.0\n",
       "the monte_carlo barostat needs a temperature"},
      {lj + "[integrator.barostat]\nkind = \"monte_carlo\"\ntemperature = 1.0\n", "[integrator.barostat] needs pressure"},
      {lj + "[integrator.barostat]\nkind = \"monte_carlo\"\ntemperature = 1.0\npressure = [1.0, 1.0, 1.0]\n"
            "axes = [\"x\", \"w\"]\n",
       "integrator.barostat.axes holds \"w\"; the axes are \"x\", \"y\", \"z\""},
      {lj + "[integrator.barostat]\nkind = \"berendsen\"\npressure = 1.0\n",
       "the berendsen barostat in lj units needs compressibility and tau"},
      {lj + "[velocities]\nseed = 3\n", "[velocities] needs temperature"},
      {lj + "[velocities]\ntemperature = -1.0\n", "velocities.temperature must be a number >= 0, got -1"},
      {lj + "[minimize]\nmethod = \"cg\"\n", "minimize.method must be one of fire, lbfgs, got \"cg\""},
      {lj + "[minimize]\nmethod = \"fire\"\n", "[minimize] needs force_tolerance in lj units"},
      {"units = \"lj\"\n[system]\nlattice = { density = 0.8, cells = [2, 2, 2] }\n[run]\nsteps = 5\ntime = 1.0\n",
       "[run] needs steps (a number of steps) or time (in tau), not both"},
      {"units = \"lj\"\n[system]\nlattice = { density = 0.8, cells = [2, 2, 2] }\n",
       "[run] needs steps (a number of steps) or time (in tau), one of them"},
      {lj + "seed = -4\n", "run.seed must be an integer >= 0, got -4"},
      {lj + "[output.thermo]\ninterval = 0\n", "output.thermo.interval must be an integer >= 1, got 0"},
      {lj + "[output.h5md]\nposition = false\nvelocity = false\nobservables = false\n",
       "[output.h5md] writes nothing"},
      {lj + "[output.checkpoint]\nfile = \"\"\n", "output.checkpoint.file must not be empty"},
      {lj + "[integrator\n", "job.toml:8:"},  // a syntax error names the line
  };
  for (const Case& c : cases) {
    const std::string message = error_of(c.toml);
    EXPECT_NE(message.find(c.expected), std::string::npos) << "expected \"" << c.expected << "\" in \"" << message
                                                           << "\"\nfor\n" << c.toml;
  }
}

// [run] platform: "cpu" by default; a platform this build lacks (or a bad device index) is named
// with the platforms there are, under the key's name, before anything is built.
TEST(SpongeJob, PlatformKeyNamesThePlatformsThisBuildHas) {
  const std::string lj = kLjHeader;
  EXPECT_EQ(parse_md_job(lj, "job.toml").run.platform.name, "cpu");
  const MdJob cpu = parse_md_job(lj + "platform = \"cpu\"\n", "job.toml");
  EXPECT_EQ(cpu.run.platform.name, "cpu");
  EXPECT_EQ(cpu.run.platform.device, 0);
  EXPECT_EQ(make_simulation(cpu)->options().platform.name, "cpu");
  const std::string known = detail::join(platforms());
  const std::string unknown = error_of(lj + "platform = \"gpu\"\n");
  EXPECT_NE(unknown.find("job.toml: run.platform: unknown platform 'gpu'; this build has: " + known),
            std::string::npos) << unknown;
  EXPECT_NE(error_of(lj + "platform = \"cpu:1\"\n").find("run.platform: platform 'cpu:1': cpu takes no device index"),
            std::string::npos);
  EXPECT_NE(error_of(lj + "platform = 1\n").find("run.platform"), std::string::npos);
  EXPECT_NE(error_of(lj + "platforms = \"cpu\"\n").find("allowed: steps, time, seed, progress, resume, platform"),
            std::string::npos);
}

void expect_same_bits(const State& a, const State& b) {
  ASSERT_EQ(a.positions.size(), b.positions.size());
  for (size_t i = 0; i < a.positions.size(); ++i) {
    ASSERT_EQ(a.positions[i], b.positions[i]) << "particle " << i;
    ASSERT_EQ(a.velocities[i], b.velocities[i]) << "particle " << i;
  }
  EXPECT_EQ(a.box, b.box);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.time, b.time);
}

SimulationOptions quiet(uint64_t seed = 0) {
  SimulationOptions o;
  o.seed = seed;
  o.progress_seconds = 0;
  return o;
}

// LAMMPS's in.lj as a job on 4 x 4 x 4 cells (256 atoms): the same per-atom energy as LAMMPS's
// 32,000-atom step 0 (`0 1.44 -6.7733681 0 -4.6134356 -5.0197073`, test_in_lj.cpp; a perfect
// lattice's energy per atom does not depend on its size while the cutoff fits), and its pressure with
// the kinetic term rho T (N - 1) / N (LAMMPS's N_dof = 3N - 3) taken for N = 256 instead of 32,000.
TEST(SpongeJob, LatticeJobIsTheSystemBuiltByHandAndLammpsInLj) {
  const MdJob job = parse_md_job(R"(units = "lj"
[system]
lattice = { kind = "fcc", density = 0.8442, cells = [4, 4, 4] }
[forces.lj]
cutoff = 2.5
[velocities]
temperature = 1.44
seed = 87287
[run]
steps = 10
progress = 0
)",
                                 "in_lj.toml");
  std::unique_ptr<Simulation> sim = make_simulation(job);
  sim->prepare();

  const System system = identical_particles(256, 1.0, "A", Units::lj());
  State state = create_lattice(Lattice::with_density(LatticeType::fcc, 0.8442), 4, 4, 4);
  maxwell_boltzmann(system, state, 1.44, 87287);
  ForceField forces(0.3);
  auto lj = std::make_shared<LennardJones>(2.5);
  lj->set_type("A", 1.0, 1.0);
  forces.add(lj);
  Simulation hand(system, state, std::move(forces), std::make_shared<VelocityVerlet>(0.005), quiet());
  hand.prepare();

  expect_same_bits(sim->state(), hand.state());
  EXPECT_EQ(sim->forces().energies, hand.forces().energies);
  EXPECT_EQ(sim->integrator().name(), "velocity_verlet");
  EXPECT_NEAR(sim->forces().energy_of("lj") / 256, -6.7733681, 5e-8);
  const double rho = 0.8442, t = 1.44;
  EXPECT_NEAR(sim->observables().pressure, -5.0197073 - rho * t * (1.0 / 256 - 1.0 / 32000), 1e-7);
  EXPECT_NEAR(sim->observables().temperature, 1.44, 1e-12);

  sim->run(total_steps(job));
  hand.run(10);
  expect_same_bits(sim->state(), hand.state());
  EXPECT_EQ(sim->forces().energies, hand.forces().energies);
}

const char* kWaterJob = R"(units = "md"
[system]
water = { model = "spce", molecules = 216, seed = 5 }
[forces.lj]
cutoff = 0.8
[forces.coulomb]
method = "pme"
tolerance = 5e-4
[integrator]
kind = "langevin"
dt = 0.002
temperature = 300.0
friction = 1.0
[velocities]
temperature = 300.0
[minimize]
max_iterations = 20
[run]
steps = 5
seed = 9
progress = 0
)";

TEST(SpongeJob, WaterJobIsTheSystemBuiltByHand) {
  const MdJob job = parse_md_job(kWaterJob, "water.toml");
  MinimizeResult minimized;
  MakeOptions options;
  options.minimization = &minimized;
  std::unique_ptr<Simulation> sim = make_simulation(job, options);

  WaterBoxOptions box;
  box.molecules = 216;
  box.seed = 5;
  WaterBox w = water_box(WaterModel::spce(), box);
  ForceField forces(0.1);
  auto lj = std::make_shared<LennardJones>(0.8);
  lj->set_type("OW", WaterModel::spce().epsilon_o, WaterModel::spce().sigma_o);
  lj->set_type("HW", 0, 0);
  forces.add(lj);
  PmeOptions pme;
  pme.cutoff = 0.8;
  pme.tolerance = 5e-4;
  forces.add(std::make_shared<PmeCoulomb>(pme));
  FireOptions fire;
  fire.force_tolerance = 10;
  fire.max_iterations = 20;
  const MinimizeResult by_hand = minimize_fire(w.system, w.state, forces, fire);
  maxwell_boltzmann(w.system, w.state, 300.0, 9);
  Simulation hand(w.system, w.state, std::move(forces), std::make_shared<LangevinMiddle>(0.002, 300.0, 1.0, 9),
                  quiet(9));

  EXPECT_EQ(minimized.iterations, by_hand.iterations);
  EXPECT_EQ(minimized.energy, by_hand.energy);
  EXPECT_EQ(minimized.iterations, 20);  // far from 10 kJ/mol/nm after 20 iterations: stopped by the count
  sim->prepare();
  hand.prepare();
  expect_same_bits(sim->state(), hand.state());
  EXPECT_EQ(sim->forces().energies, hand.forces().energies);
  ASSERT_EQ(sim->forces().energies.size(), 2u);
  EXPECT_EQ(sim->forces().energies[0].first, "lj");
  EXPECT_EQ(sim->forces().energies[1].first, "coulomb");

  sim->run(total_steps(job));
  hand.run(5);
  expect_same_bits(sim->state(), hand.state());
  EXPECT_EQ(sim->forces().energies, hand.forces().energies);
  // SETTLE kept every molecule rigid (to round-off), and the temperature counts 6 per molecule - 3.
  EXPECT_LT(Constraints(sim->system()).max_deviation(sim->state().box, sim->state().positions), 1e-10);
  EXPECT_EQ(sim->observables().degrees_of_freedom, 6 * 216 - 3);
}

TEST(SpongeJob, PdbSystemsTakeChargesPerTypeAndWaterModels) {
  TempDir dir;
  WaterBoxOptions box;
  box.molecules = 8;
  box.density = 0.5;
  WaterBox w = water_box(WaterModel::spce(), box);
  System written = w.system;
  State state = w.state;
  written.add_particle(22.98976928, 0, "Na");
  written.add_particle(35.453, 0, "Cl");
  for (const char* name : {"NA", "CL"}) {
    written.atom_name.push_back(name);
    written.residue_name.push_back(name);
    written.residue_id.push_back(int(written.residue_id.size()));
  }
  state.positions.push_back({0.05, 0.06, 0.07});
  state.positions.push_back({0.45, 0.31, 0.52});
  write_pdb(dir.file("ions.pdb"), written, state);

  const std::string forces = R"(
[forces.lj]
cutoff = 0.5
types.Na = { epsilon = 0.0115980, sigma = 0.332840 }
types.Cl = { epsilon = 0.4184, sigma = 0.440104 }
[forces.coulomb]
method = "ewald"
[run]
steps = 1
)";
  const MdJob job = parse_md_job("units = \"md\"\n[system]\npdb = { file = \"ions.pdb\", charges = { Na = 1.0, Cl = "
                                 "-1.0 }, water = \"spce\" }\n" + forces,
                                 dir.file("job.toml"), dir.path());
  const BuiltSystem built = build_system(job);
  const System& s = built.system;
  ASSERT_EQ(s.size(), written.size());
  EXPECT_EQ(s.type_names, (std::vector<std::string>{"OW", "HW", "Na", "Cl"}));
  EXPECT_EQ(s.topology.waters.size(), 8u);
  EXPECT_EQ(s.topology.exclusions, w.system.topology.exclusions);
  for (int64_t i = 0; i < 24; ++i) {
    EXPECT_EQ(s.charge[i], w.system.charge[i]);
    EXPECT_EQ(s.mass[i], w.system.mass[i]);
    EXPECT_EQ(s.type_names[s.type[i]], w.system.type_names[w.system.type[i]]);
  }
  EXPECT_EQ(s.charge[24], 1.0);
  EXPECT_EQ(s.charge[25], -1.0);
  EXPECT_EQ(s.mass[24], element_mass("Na"));
  EXPECT_EQ(s.residue_name[0], "HOH");
  for (size_t i = 0; i < state.positions.size(); ++i)  // PDB's 0.001 angstrom = 1e-4 nm, rounded
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(built.state.positions[i][k], state.positions[i][k], 0.51e-4) << i;
  EXPECT_NEAR(built.state.box.a().x, state.box.a().x, 0.51e-4);
  // Its force field: the model's oxygen plus the job's ions.
  const ForceField ff = make_force_field(job, s, built.state);
  ASSERT_EQ(ff.terms().size(), 2u);
  const auto& lj = dynamic_cast<const LennardJones&>(*ff.terms()[0]);
  EXPECT_EQ(lj.parameters("OW", "OW").sigma, WaterModel::spce().sigma_o);
  EXPECT_EQ(lj.parameters("Na", "Na").epsilon, 0.0115980);
  EXPECT_NEAR(lj.parameters("OW", "Cl").sigma, 0.5 * (WaterModel::spce().sigma_o + 0.440104), 1e-15);

  // Without a water model every atom keeps its element's type, uncharged unless the job says.
  const MdJob plain = parse_md_job("units = \"md\"\n[system]\npdb = { file = \"ions.pdb\", charges = { Na = 1.0, "
                                   "Cl = -1.0 } }\n" + forces,
                                   dir.file("job.toml"), dir.path());
  const BuiltSystem p = build_system(plain);
  EXPECT_EQ(p.system.type_names, (std::vector<std::string>{"O", "H", "Na", "Cl"}));
  EXPECT_TRUE(p.system.topology.waters.empty());
  EXPECT_EQ(p.system.charge[0], 0.0);
  EXPECT_EQ(p.system.charge[25], -1.0);
  try {
    make_force_field(plain, p.system, p.state);
    ADD_FAILURE() << "no error for the types without parameters";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("[forces.lj] has no parameters for the type O; add [forces.lj.types.O] "
                                         "epsilon = ..., sigma = ..."),
              std::string::npos)
        << e.what();
  }
  const MdJob typo = parse_md_job("units = \"md\"\n[system]\npdb = { file = \"ions.pdb\", charges = { NA = 1.0 } }\n" +
                                      forces, dir.file("job.toml"), dir.path());
  try {
    build_system(typo);
    ADD_FAILURE() << "no error for a charge of a type the file lacks";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("system.pdb.charges names the type NA, which no atom of "), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("its types: O, H, Na, Cl"), std::string::npos) << e.what();
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<double> read_doubles(const std::string& path, const std::string& name) {
  Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  Hdf5Id ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  Hdf5Id space(H5Dget_space(ds), H5Sclose);
  std::vector<double> v(size_t(H5Sget_simple_extent_npoints(space)));
  if (!v.empty()) H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  return v;
}

std::string read_text(const std::string& path, const std::string& name) {
  Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  Hdf5Id ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  Hdf5Id type(H5Dget_type(ds), H5Tclose);
  char* s = nullptr;
  H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &s);
  std::string out = s ? s : "";
  H5free_memory(s);
  return out;
}

const char* kResumeJob = R"(units = "lj"
[system]
lattice = { kind = "fcc", density = 0.8442, cells = [4, 4, 4] }
[forces.lj]
cutoff = 2.5
[integrator]
kind = "langevin"
temperature = 1.44
barostat = { kind = "monte_carlo", pressure = 1.0, frequency = 7 }
[velocities]
temperature = 1.44
[run]
steps = 40
seed = 5
progress = 0
resume = true
[output]
thermo = { interval = 5 }
h5md = { interval = 10, force = true }
)";

// A run stopped through SimulationOptions::stop at step 25 (as Ctrl-C stops `spire md run`) and
// resumed from the checkpoint written when it stopped, in a fresh Simulation built from the job,
// against one uninterrupted run of the 40 steps: the same bits in the state, the thermo CSV and the
// H5MD trajectory, with a Monte Carlo barostat every 7 steps (not at the stop). This holds because the Lennard-Jones forces do not depend on when the neighbour
// list was built (the resumed run builds its list at step 25, the uninterrupted one's dates from an
// earlier step); with a kernel whose sums depend on the list's extra pairs the two agree only to
// round-off (about 1e-11 after 15 steps here) and this test says so.
TEST(SpongeJob, StoppedRunResumesFromItsCheckpoint) {
  TempDir whole_dir("_whole"), split_dir("_split");
  const MdJob job = parse_md_job(kResumeJob, "resume.toml");
  JobRun whole = start_job(job, whole_dir.path(), job.run.resume, nullptr);
  EXPECT_FALSE(whole.resumed);  // no checkpoint yet: a fresh run
  whole.simulation->run(whole.remaining_steps(job));
  EXPECT_FALSE(whole.simulation->interrupted());
  EXPECT_EQ(whole.simulation->state().step, 40);

  std::atomic<bool> stop{false};
  {
    JobRun first = start_job(job, split_dir.path(), job.run.resume, nullptr, &stop);
    first.simulation->add_callback(25, [&](Simulation&) { stop = true; });
    first.simulation->run(first.remaining_steps(job));
    EXPECT_TRUE(first.simulation->interrupted());
    EXPECT_EQ(first.simulation->state().step, 25);
  }
  EXPECT_EQ(read_checkpoint(checkpoint_path(job, split_dir.path())).state.step, 25);
  JobRun second = start_job(job, split_dir.path(), job.run.resume, nullptr);
  EXPECT_TRUE(second.resumed);
  EXPECT_EQ(second.simulation->state().step, 25);
  EXPECT_EQ(second.remaining_steps(job), 15);
  second.simulation->run(second.remaining_steps(job));
  EXPECT_EQ(second.remaining_steps(job), 0);

  expect_same_bits(second.simulation->state(), whole.simulation->state());
  EXPECT_EQ(second.simulation->forces().energies, whole.simulation->forces().energies);
  EXPECT_NE(whole.simulation->state().box, build_system(job).state.box);  // the barostat moved
  EXPECT_EQ(second.simulation->integrator().save_state(), whole.simulation->integrator().save_state());

  // The thermo CSV: the same rows (steps 0, 5, ..., 40) with the same digits.
  const std::string csv = read_all(split_dir.file("thermo.csv"));
  EXPECT_EQ(lines_of(csv).size(), 10u);  // header + 9 rows
  EXPECT_EQ(csv, read_all(whole_dir.file("thermo.csv")));

  // The trajectory: frames of steps 0, 10, 20, 30, 40 in both, and the job's text in parameters/job.
  const std::string h5_split = split_dir.file("trajectory.h5"), h5_one = whole_dir.file("trajectory.h5");
  EXPECT_EQ(read_doubles(h5_split, "particles/all/position/step"), (std::vector<double>{0, 10, 20, 30, 40}));
  for (const char* name : {"particles/all/position/step", "particles/all/position/value",
                           "particles/all/velocity/value", "particles/all/force/value",
                           "observables/potential_energy/value", "observables/pressure/value"})
    EXPECT_EQ(read_doubles(h5_split, name), read_doubles(h5_one, name)) << name;
  EXPECT_EQ(read_text(h5_split, "parameters/job"), job.toml);
}


}  // namespace
}  // namespace spire::sponge
