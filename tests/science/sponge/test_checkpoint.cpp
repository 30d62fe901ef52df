// Checkpoints: exact round trip of everything a run needs, atomic writes, restarts bit for bit
// (2N steps == N steps + checkpoint + restore into a fresh Simulation + N steps, for the state and for
// the thermo CSV and H5MD files written along the way), and restores into another system, integrator,
// time step or seed refused with the difference named.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "engine/data/hdf5_util.h"
#include "science/sponge/checkpoint.h"
#include "science/sponge/h5md.h"
#include "science/sponge/langevin.h"
#include "science/sponge/lattice.h"
#include "science/sponge/lennard_jones.h"
#include "science/sponge/monte_carlo_barostat.h"
#include "science/sponge/thermo.h"
#include "science/sponge/velocities.h"
#include "tests/common/temp_dir.h"
#include "tests/science/sponge/support_hdf5_read.h"
#include "tests/science/sponge/support_io_doubles.h"

namespace spire::sponge {
namespace {

using testing::quiet;
using fixtures::read_all;
using data::Hdf5Id;
using testing::NoisyVerlet;
using testing::Toy;
using testing::toy;

// A scratch directory named after the test.
struct TempDir : fixtures::TempDir {
  TempDir() : fixtures::TempDir("sponge_io_checkpoint_") {}
};

std::shared_ptr<NoisyVerlet> integrator(double dt = 0.002, uint64_t seed = 21) {
  return std::make_shared<NoisyVerlet>(dt, 5.0, 2.5, seed);
}

void expect_same_bits(const State& a, const State& b) {
  ASSERT_EQ(a.positions.size(), b.positions.size());
  for (size_t i = 0; i < a.positions.size(); ++i) {
    EXPECT_EQ(a.positions[i], b.positions[i]) << "particle " << i;
    EXPECT_EQ(a.velocities[i], b.velocities[i]) << "particle " << i;
  }
  EXPECT_EQ(a.box, b.box);
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.step, b.step);
}

TEST(SpongeCheckpoint, RoundTripIsExact) {
  TempDir dir;
  Toy t = toy();
  t.state.box = Box::triclinic({3, 0, 0}, {0.5, 3.2, 0}, {-0.4, 0.3, 3.4});
  Simulation sim(t.system, t.state, t.forces(), integrator(), quiet(0xDEADBEEFCAFEull));
  sim.run(7);
  const std::string path = dir.file("run.chk");
  sim.save_checkpoint(path);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"run.chk"}));  // no temporary left behind

  const Checkpoint c = read_checkpoint(path);
  expect_same_bits(c.state, sim.state());
  EXPECT_EQ(c.integrator, "noisy_verlet");
  EXPECT_EQ(c.dt, 0.002);
  EXPECT_EQ(c.seed, 0xDEADBEEFCAFEull);
  EXPECT_EQ(c.units, "md");
  EXPECT_EQ(c.integrator_state, sim.integrator().save_state());  // nested key and empty array included
  EXPECT_EQ(c.system_hash, system_hash(t.system));
  EXPECT_EQ(c.mass, t.system.mass);
}

TEST(SpongeCheckpoint, AFailedWriteLeavesThePreviousCheckpoint) {
  TempDir dir;
  Toy t = toy();
  const std::string path = dir.file("run.chk");
  Simulation sim(t.system, t.state, t.forces(), integrator(), quiet(21));
  sim.run(3);
  sim.save_checkpoint(path);
  // An integrator whose state cannot be written (an empty key) makes the next write fail midway.
  class BadKeys : public NoisyVerlet {
   public:
    using NoisyVerlet::NoisyVerlet;
    IntegratorState save_state() const override { return {{"", {1.0}}}; }
  } bad(0.002, 5.0, 2.5, 21);
  State later = sim.state();
  later.step = 99;
  EXPECT_THROW(write_checkpoint(path, t.system, later, bad, 21), ValueError);
  EXPECT_EQ(read_checkpoint(path).state.step, 3);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"run.chk"}));
  EXPECT_THROW(sim.save_checkpoint(dir.file("no/such/dir/run.chk")), IOError);
}

testing::DoubleArray read_dataset(const std::string& path, const std::string& name) {
  Hdf5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  return testing::read_doubles(file, name);
}

// Adds a thermo CSV, an H5MD trajectory and a checkpoint writer to `sim`, in `dir` under `tag`.
void add_outputs(Simulation& sim, const TempDir& dir, const std::string& tag, int64_t checkpoint_every) {
  ThermoOptions t;
  t.csv_path = dir.file(tag + ".csv");
  sim.add_reporter(std::make_shared<ThermoLog>(nullptr, t), 3);
  H5mdOptions h;
  h.path = dir.file(tag + ".h5");
  h.force = true;
  sim.add_reporter(std::make_shared<H5mdWriter>(h), 4);
  sim.add_reporter(std::make_shared<CheckpointWriter>(dir.file(tag + ".chk")), checkpoint_every);
}

TEST(SpongeCheckpoint, RestartIsBitForBitWithTheSameFiles) {
  TempDir dir;
  Toy t = toy();
  const int64_t n = 20;

  Simulation whole(t.system, t.state, t.forces(), integrator(), quiet(21));
  add_outputs(whole, dir, "whole", 1000);
  whole.run(2 * n);

  // The restarted run: checkpoints every 10 steps; it goes on to step 27 (its files then hold frames
  // and rows up to 27) and the checkpoint of step 20 is restored into a fresh Simulation, run to 2N.
  {
    Simulation first(t.system, t.state, t.forces(), integrator(), quiet(21));
    add_outputs(first, dir, "split", 10);
    first.run(n);
    std::filesystem::copy_file(dir.file("split.chk"), dir.file("at20.chk"));
    first.run(7);
  }
  Simulation second(t.system, State{t.state.positions, {}, t.state.box, 0, 0}, t.forces(), integrator(), quiet(21));
  add_outputs(second, dir, "split", 10);
  second.restore(dir.file("at20.chk"));
  EXPECT_EQ(second.state().step, n);
  second.run(n);

  expect_same_bits(second.state(), whole.state());
  EXPECT_EQ(dynamic_cast<const NoisyVerlet&>(second.integrator()).heat(),
            dynamic_cast<const NoisyVerlet&>(whole.integrator()).heat());
  EXPECT_EQ(read_all(dir.file("split.csv")), read_all(dir.file("whole.csv")));
  for (const char* name : {"particles/all/position/value", "particles/all/velocity/value", "particles/all/force/value",
                           "particles/all/position/step", "particles/all/position/time",
                           "particles/all/box/edges/value", "observables/pressure_tensor/value",
                           "observables/energies/springs/value"})
    EXPECT_EQ(read_dataset(dir.file("split.h5"), name), read_dataset(dir.file("whole.h5"), name)) << name;
}

// The same with the package's own pieces: Lennard-Jones over the neighbour list, Langevin dynamics
// and a Monte Carlo barostat changing the box every 5 steps (LAMMPS's in.lj system, 256 atoms). The
// restored run builds its neighbour list at the restart step while the whole run's list dates from
// an earlier step: bit-for-bit equality holds because the Lennard-Jones sums depend only on the
// pairs inside the cutoff (lennard_jones.cpp packs each row), not on when the list was built.
TEST(SpongeCheckpoint, RestartWithLennardJonesLangevinAndBarostatIsBitForBit) {
  TempDir dir;
  const System system = identical_particles(256, 1.0, "A", Units::lj());
  State start = create_lattice(Lattice::with_density(LatticeType::fcc, 0.8442), 4, 4, 4);
  maxwell_boltzmann(system, start, 1.44, 87287);
  auto forces = [] {
    ForceField ff(0.3);
    auto lj = std::make_shared<LennardJones>(2.5);
    lj->set_type("A", 1.0, 1.0);
    ff.add(lj);
    return ff;
  };
  auto integ = [] {
    auto i = std::make_shared<LangevinMiddle>(0.005, 1.44, 1.0, 99);
    MonteCarloBarostatOptions b;
    b.frequency = 5;
    b.seed = 99;
    i->set_barostat(std::make_shared<MonteCarloBarostat>(1.0, 1.44, b));
    return i;
  };
  const int64_t n = 33;  // not a multiple of the barostat's 5: the list was built steps earlier
  Simulation whole(system, start, forces(), integ(), quiet(99));
  whole.run(2 * n);
  Simulation first(system, start, forces(), integ(), quiet(99));
  first.run(n);
  first.save_checkpoint(dir.file("lj.chk"));
  Simulation second(system, start, forces(), integ(), quiet(99));
  second.restore(dir.file("lj.chk"));
  second.run(n);
  EXPECT_NE(whole.state().box, start.box);  // the barostat moved
  EXPECT_GT(whole.force_field().neighbors()->builds(), 3);
  EXPECT_EQ(second.state().step, whole.state().step);
  EXPECT_EQ(second.state().box, whole.state().box);  // the same barostat decisions
  EXPECT_GT(second.force_field().neighbors()->builds(), 0);
  int differ = 0;
  for (size_t i = 0; i < 256; ++i)
    differ += second.state().positions[i] != whole.state().positions[i] ||
              second.state().velocities[i] != whole.state().velocities[i];
  EXPECT_EQ(differ, 0) << "particles whose position or velocity bits differ after the restart";
}

TEST(SpongeCheckpoint, RestoreIntoAnotherRunNamesTheDifference) {
  TempDir dir;
  Toy t = toy();
  const std::string path = dir.file("run.chk");
  {
    Simulation sim(t.system, t.state, t.forces(), integrator(), quiet(21));
    sim.run(2);
    sim.save_checkpoint(path);
  }
  auto expect_error = [&](System system, std::shared_ptr<Integrator> integ, uint64_t seed, const std::string& text) {
    Simulation sim(system, t.state, t.forces(), integ, quiet(seed));
    try {
      sim.restore(path);
      ADD_FAILURE() << "no error; expected one naming " << text;
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  System heavier = t.system;
  heavier.mass[2] = 16.0;
  expect_error(heavier, integrator(), 21, "the mass of particle 2 is 15.999 in the checkpoint and 16 here");
  System bonded = t.system;
  bonded.topology.bonds.push_back({0, 1, 0.1, 1000});
  expect_error(bonded, integrator(), 21, "bonds has 0 entries in the checkpoint and 1 here");
  System renamed = t.system;
  renamed.type_names[1] = "HW";
  expect_error(renamed, integrator(), 21, "the type_names differ");
  System lj = t.system;
  lj.units = Units::lj();
  expect_error(lj, integrator(), 21, "in md units; this simulation's system is in lj units");
  expect_error(t.system, integrator(0.001), 21, "time step is 0.002; this simulation's is 0.001");
  expect_error(t.system, integrator(), 22, "construct the simulation with seed 21");
  class Other : public NoisyVerlet {
   public:
    using NoisyVerlet::NoisyVerlet;
    std::string name() const override { return "other"; }
  };
  expect_error(t.system, std::make_shared<Other>(0.002, 5.0, 2.5, 21), 21,
               "written by the integrator noisy_verlet; this simulation's is other");

  // Not a checkpoint at all.
  { std::ofstream(dir.file("notes.txt")) << "hello"; }
  EXPECT_THROW(read_checkpoint(dir.file("notes.txt")), IOError);
  EXPECT_THROW(read_checkpoint(dir.file("missing.chk")), IOError);
}

TEST(SpongeCheckpoint, FingerprintSeesEveryPart) {
  Toy t = toy();
  const uint64_t h = system_hash(t.system);
  EXPECT_EQ(h, system_hash(toy().system));  // deterministic
  System s = t.system;
  s.charge[0] = -0.42;
  EXPECT_NE(system_hash(s), h);
  s = t.system;
  s.topology.exclusions.push_back({0, 1});
  EXPECT_NE(system_hash(s), h);
  s = t.system;
  s.topology.waters.push_back({0, 1, 3, 0.1, 0.1633});
  EXPECT_NE(system_hash(s), h);
  EXPECT_EQ(system_fingerprint(t.system).size(), 13u);
}

}  // namespace
}  // namespace spire::sponge
