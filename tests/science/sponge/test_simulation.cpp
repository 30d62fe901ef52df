// Simulation and observables: kinetic tensor, temperature and pressure against hand-computed values
// and against finite differences of the energy; the reporting schedule; callbacks; progress lines.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "engine/core/error.h"
#include "science/sponge/simulation.h"
#include "tests/science/sponge/support_io_doubles.h"

namespace spire::sponge {
namespace {

using testing::quiet;
using testing::NoisyVerlet;
using testing::toy;

// 1 kJ/mol/nm^3 in bar from the SI definition: 1e3 J / N_A per 1e-27 m^3, 1 bar = 1e5 Pa.
constexpr double kKjPerMolNm3InBar = 1e3 / 6.02214076e23 / 1e-27 / 1e5;
constexpr double kGasConstantKj = 1.380649e-23 * 6.02214076e23 / 1e3;  // N_A k_B in kJ/(mol K), exact (SI 2019)

System two_particles(const Units& units) {
  System s;
  s.units = units;
  s.add_particle(2, 0, "A");
  s.add_particle(3, 0, "A");
  return s;
}

State two_states() {
  State st;
  st.positions = {{0.1, 0.2, 0.3}, {1.0, 1.1, 1.2}};
  st.velocities = {{1, 2, 3}, {-1, 0, 2}};
  st.box = Box::orthorhombic(2, 3, 4);
  return st;
}

TEST(SpongeObservables, KineticTensorTemperatureAndIdealGasPressureByHand) {
  const System s = two_particles(Units::md());
  const State st = two_states();
  ForceResult none;
  none.reset(2);
  const Observables o = compute_observables(s, st, none, true);
  // sum m v v^T: xx = 2 + 3, yy = 8, zz = 18 + 12, xy = 4, xz = 6 - 6, yz = 12.
  EXPECT_DOUBLE_EQ(o.kinetic_tensor(0, 0), 5);
  EXPECT_DOUBLE_EQ(o.kinetic_tensor(1, 1), 8);
  EXPECT_DOUBLE_EQ(o.kinetic_tensor(2, 2), 30);
  EXPECT_DOUBLE_EQ(o.kinetic_tensor(0, 1), 4);
  EXPECT_DOUBLE_EQ(o.kinetic_tensor(1, 0), 4);
  EXPECT_DOUBLE_EQ(o.kinetic_tensor(0, 2), 0);
  EXPECT_DOUBLE_EQ(o.kinetic_tensor(1, 2), 12);
  EXPECT_DOUBLE_EQ(o.kinetic_energy, 21.5);
  EXPECT_EQ(o.degrees_of_freedom, 3);  // 6 - 3 for the centre of mass
  EXPECT_NEAR(o.temperature, 43.0 / (3 * kGasConstantKj), 1e-9);
  EXPECT_DOUBLE_EQ(o.volume, 24);
  // Ideal gas: P = 2K / (3V) in kJ/mol/nm^3, shown in bar.
  EXPECT_NEAR(o.pressure, 43.0 / 72.0 * kKjPerMolNm3InBar, 1e-12 * o.pressure);
  EXPECT_NEAR(o.pressure_tensor(0, 1), 4.0 / 24.0 * kKjPerMolNm3InBar, 1e-12);
  EXPECT_NEAR(o.pressure_tensor(2, 2), 30.0 / 24.0 * kKjPerMolNm3InBar, 1e-12);

  const Observables no_com = compute_observables(s, st, none, false);
  EXPECT_EQ(no_com.degrees_of_freedom, 6);
  EXPECT_NEAR(no_com.temperature, 43.0 / (6 * kGasConstantKj), 1e-9);
  EXPECT_DOUBLE_EQ(no_com.pressure, o.pressure);  // the pressure uses K itself, not N_dof k_B T
}

TEST(SpongeObservables, ReducedUnitsAndNoBox) {
  const System s = two_particles(Units::lj());
  State st = two_states();
  ForceResult none;
  none.reset(2);
  const Observables o = compute_observables(s, st, none, true);
  EXPECT_DOUBLE_EQ(o.temperature, 43.0 / 3);  // k_B = 1
  EXPECT_DOUBLE_EQ(o.pressure, 43.0 / 72.0);
  st.box = Box::none();
  const Observables free = compute_observables(s, st, none, true);
  EXPECT_TRUE(std::isnan(free.pressure) && std::isnan(free.volume) && std::isnan(free.pressure_tensor(0, 0)));
  EXPECT_DOUBLE_EQ(free.kinetic_energy, 21.5);
}

// The configurational pressure tensor against finite differences of the energy under a strain of
// one axis: P_aa = -(1/V) dU/d(eps_aa), and the scalar against an isotropic scaling.
TEST(SpongeObservables, VirialPressureMatchesStrainDerivativeOfEnergy) {
  auto t = toy(Units::md());
  t.state.velocities.assign(4, Vec3{});
  ForceField ff = t.forces();
  const ForceResult& r = ff.compute(t.system, t.state);
  const Observables o = compute_observables(t.system, t.state, r, true);
  const double V = t.state.box.volume();
  auto energy_strained = [&](int axis, double eps) {
    State s = t.state;
    Mat3 mu = Mat3::identity();
    for (int a = 0; a < 3; ++a)
      if (axis < 0 || a == axis) mu(a, a) = 1 + eps;
    s.box = t.state.box.scaled(mu);
    for (Vec3& x : s.positions)
      for (int a = 0; a < 3; ++a)
        if (axis < 0 || a == axis) x[a] *= 1 + eps;
    ForceField f2 = t.forces();
    return f2.compute(t.system, s).energy();
  };
  const double h = 1e-6;
  for (int a = 0; a < 3; ++a) {
    const double dU = (energy_strained(a, h) - energy_strained(a, -h)) / (2 * h);
    EXPECT_NEAR(o.pressure_tensor(a, a), -dU / V / constants::kBar, 1e-6 * std::abs(dU / V / constants::kBar) + 1e-6)
        << "axis " << a;
  }
  // Isotropic: lambda = 1 + eps scales V by lambda^3, so P = -dU/dV = -(dU/d eps) / (3 V).
  const double dU = (energy_strained(-1, h) - energy_strained(-1, -h)) / (2 * h);
  EXPECT_NEAR(o.pressure, -dU / (3 * V) / constants::kBar, 1e-6 * std::abs(o.pressure) + 1e-6);
  EXPECT_NE(o.pressure, 0);
}

// Records the steps it is asked to report, and checks that forces are current when it is.
class Recorder : public Reporter {
 public:
  std::string name() const override { return "recorder"; }
  void report(const Simulation& sim) override {
    steps.push_back(sim.state().step);
    ForceField fresh = testing::toy().forces();
    const ForceResult& r = fresh.compute(sim.system(), sim.state());
    max_force_error = std::max(max_force_error, std::abs(r.energy() - sim.forces().energy()));
    for (size_t i = 0; i < r.forces.size(); ++i)
      max_force_error = std::max(max_force_error, norm(r.forces[i] - sim.forces().forces[i]));
  }
  void finish(const Simulation&) override { ++finishes; }
  std::vector<int64_t> steps;
  int finishes = 0;
  double max_force_error = 0;
};

TEST(SpongeSimulation, ReportsAtMultiplesOfTheIntervalOnceEach) {
  auto t = toy();
  Simulation one(t.system, t.state, t.forces(), std::make_shared<NoisyVerlet>(0.001, 1.0, 2.5, 7), quiet(7));
  auto a = std::make_shared<Recorder>();
  auto b = std::make_shared<Recorder>();
  one.add_reporter(a, 3);
  one.add_reporter(b, 1);
  one.run(5);
  one.run(5);  // continues from step 5: no second record of it
  one.run(0);  // reports nothing new: step 10 was reported
  EXPECT_EQ(a->steps, (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(b->steps.size(), 11u);
  EXPECT_EQ(b->steps.back(), 10);
  EXPECT_EQ(a->finishes, 3);
  EXPECT_EQ(one.state().step, 10);
  EXPECT_DOUBLE_EQ(one.state().time, 10 * 0.001);
  EXPECT_EQ(a->max_force_error, 0);  // forces at every report are those of the state reported

  // The same steps in one run: same bits as two runs.
  Simulation whole(t.system, t.state, t.forces(), std::make_shared<NoisyVerlet>(0.001, 1.0, 2.5, 7), quiet(7));
  whole.run(10);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(whole.state().positions[i], one.state().positions[i]);
    EXPECT_EQ(whole.state().velocities[i], one.state().velocities[i]);
  }
}

TEST(SpongeSimulation, RunUntilRoundsToTheNearestWholeStep) {
  auto t = toy();
  Simulation sim(t.system, t.state, t.forces(), std::make_shared<NoisyVerlet>(0.002, 1.0, 2.5, 7), quiet(7));
  sim.run_until(0.01);  // 0.01 / 0.002 = 4.999999999999999 in doubles
  EXPECT_EQ(sim.state().step, 5);
  sim.run_until(0.0131);  // 1.55 steps more: up to 2
  EXPECT_EQ(sim.state().step, 7);
  sim.run_until(0.001);  // already past
  EXPECT_EQ(sim.state().step, 7);
}

TEST(SpongeSimulation, CallbackChangesAreSeenByReportersAndTheNextStep) {
  auto t = toy();
  Simulation sim(t.system, t.state, t.forces(), std::make_shared<NoisyVerlet>(0.001, 0.0, 0.0, 7), quiet(7));
  auto rec = std::make_shared<Recorder>();
  sim.add_reporter(rec, 1);
  int calls = 0;
  sim.add_callback(2, [&](Simulation& s) {
    ++calls;
    s.modify_state().positions[0].x += 0.01;
  });
  sim.run(6);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(rec->steps.size(), 7u);
  EXPECT_EQ(rec->max_force_error, 0);
  // Without friction or noise the dynamics is velocity Verlet: the total momentum stays what it was
  // (the springs are pair forces) though the callback moved a particle.
  Vec3 p0, p1;
  for (int i = 0; i < 4; ++i) {
    p0 += t.state.velocities[i] * t.system.mass[i];
    p1 += sim.state().velocities[i] * t.system.mass[i];
  }
  EXPECT_NEAR(norm(p1 - p0), 0, 1e-12);
}

TEST(SpongeSimulation, ProgressLinesShowSpeedInTheSystemsUnits) {
  for (const Units& u : {Units::md(), Units::lj()}) {
    auto t = toy(u);
    std::ostringstream out;
    SimulationOptions o = quiet(7);
    o.progress = &out;
    o.progress_seconds = 1e-12;  // a line after every step
    Simulation sim(t.system, t.state, t.forces(), std::make_shared<NoisyVerlet>(0.001, 1.0, 2.5, 7), o);
    sim.run(4);
    const std::string text = out.str();
    const std::string speed = u.name == "md" ? " ns/day" : " tau/day";
    EXPECT_NE(text.find("step 3 (3/4, 75.0%)"), std::string::npos) << text;
    EXPECT_NE(text.find(speed), std::string::npos) << text;
    EXPECT_NE(text.find("ETA "), std::string::npos) << text;
    EXPECT_NE(text.find("4 steps in"), std::string::npos) << text;
    EXPECT_GT(sim.speed_per_day(), 0);
  }
}

TEST(SpongeSimulation, BadInputIsNamed) {
  auto t = toy();
  State short_state = t.state;
  short_state.positions.pop_back();
  try {
    Simulation sim(t.system, short_state, t.forces(), std::make_shared<NoisyVerlet>(0.001, 1.0, 2.5, 7), quiet(7));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("3 positions for a system of 4"), std::string::npos) << e.what();
  }
  Simulation sim(t.system, t.state, t.forces(), std::make_shared<NoisyVerlet>(0.001, 1.0, 2.5, 7), quiet(7));
  EXPECT_THROW(sim.add_reporter(std::make_shared<Recorder>(), 0), ValueError);
  EXPECT_THROW(sim.run(-1), ValueError);
  EXPECT_THROW(sim.observables(), ValueError);  // before any force evaluation
  sim.prepare();
  EXPECT_NEAR(sim.observables().kinetic_energy,
              0.5 * (15.999 * 0.14 + 1.008 * (1.21 + 0.49 + 0.16) + 15.999 * (0.0025 + 0.0625 + 0.09) +
                     1.008 * (0.81 + 0.36 + 1.44)),
              1e-12);
}

}  // namespace
}  // namespace spire::sponge
