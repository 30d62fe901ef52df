// Simulation state (simulation.h): a run saved halfway and loaded into a freshly built run of the
// same problem continues with the same bits as the uninterrupted run (CPML, dispersive media,
// float32 and float64, complex Bloch fields); distributed sources (source.h) are asked once per
// update interval and, fed the same currents, give the same bits as a profile source; platform
// names and bad state are refused naming what is allowed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "engine/core/error.h"
#include "science/elec/problem.h"
#include "science/elec/simulation_engine.h"

namespace spire::elec {
namespace {

Problem drude_block_problem(Precision precision, bool bloch) {
  Problem p;
  p.dimensions = Dimensions::three;
  p.cell_size = {1.2, 1.0, 1.4};
  p.resolution = 10;
  p.boundaries = Boundaries::pml_cells(3);
  if (bloch) {
    p.boundaries.set_bloch(0, 0.3);
  }
  Block b;
  b.size = {0.4, 0.4, 0.4};
  p.geometry.add(b, Medium::dielectric(2.0).with_susceptibility(Susceptibility::drude(1.0, 0.05, 1.0)));
  p.sources.push_back(point_dipole(Component::Ey, {0.1, 0.05, -0.3}, std::make_shared<GaussianSource>(1.0, 0.5)));
  p.sources.push_back(point_dipole(Component::Hz, {-0.1, 0.0, 0.2}, std::make_shared<GaussianSource>(0.8, 0.5)));
  p.precision = precision;
  return p;
}

// Every array of the state, bit for bit (the state of distributed sources aside).
void expect_same_state(SimulationState a, SimulationState b) {
  for (SimulationState* s : {&a, &b})
    s->erase(std::remove_if(s->begin(), s->end(), [](const StateArray& x) { return x.name.rfind("source/", 0) == 0; }),
             s->end());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].name, b[i].name);
    ASSERT_EQ(a[i].values.size(), b[i].values.size()) << a[i].name;
    EXPECT_EQ(std::memcmp(a[i].values.data(), b[i].values.data(), a[i].values.size() * sizeof(double)), 0)
        << a[i].name;
  }
}

TEST(SimulationState, ResumedRunHasTheSameBits) {
  for (Precision precision : {Precision::float64, Precision::float32})
    for (bool bloch : {false, true}) {
      SCOPED_TRACE(to_string(precision) + (bloch ? " bloch" : " real"));
      const Problem problem = drude_block_problem(precision, bloch);
      Simulation whole = build(problem);
      whole.run_steps(40);
      const SimulationState half = whole.save_state();
      whole.run_steps(40);

      Simulation resumed = build(problem);
      resumed.load_state(half);
      EXPECT_EQ(resumed.steps(), 40);
      resumed.run_steps(40);
      const SimulationState end = whole.save_state();
      expect_same_state(end, resumed.save_state());
      // The state covers the polarisations and the CPML, not just the fields.
      bool has_pol = false, has_psi = false;
      for (const StateArray& a : end) {
        has_pol = has_pol || a.name.rfind("pol/", 0) == 0;
        has_psi = has_psi || a.name.rfind("psi/", 0) == 0;
      }
      EXPECT_TRUE(has_pol);
      EXPECT_TRUE(has_psi);
    }
}

TEST(SimulationState, BadStateIsRefusedNamingTheArray) {
  const Problem problem = drude_block_problem(Precision::float64, false);
  Simulation sim = build(problem);
  SimulationState state = sim.save_state();
  SimulationState missing(state.begin(), state.end());
  missing.erase(missing.begin() + 1);
  try {
    sim.load_state(missing);
    FAIL() << "a state without " << state[1].name << " was accepted";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(state[1].name), std::string::npos) << e.what();
  }
  state[2].values.pop_back();
  try {
    sim.load_state(state);
    FAIL() << "a short array was accepted";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(state[2].name), std::string::npos) << e.what();
  }
}

// A distributed source that replays a profile, counting the times it is asked.
class ReplayedProfile : public DistributedCurrent {
 public:
  ReplayedProfile(std::shared_ptr<const TimeProfile> profile, size_t samples) : profile_(std::move(profile)), n_(samples) {}
  void currents(double t_mid, double dt, std::complex<double>* out) override {
    ++calls_;
    EXPECT_GT(t_mid, last_) << "asked twice or out of order";
    last_ = t_mid;
    for (size_t i = 0; i < n_; ++i) out[i] = profile_->current(t_mid, dt);
  }
  double start_time() const override { return profile_->start_time(); }
  double end_time() const override { return profile_->end_time(); }
  int calls() const { return calls_; }

 private:
  std::shared_ptr<const TimeProfile> profile_;
  size_t n_;
  int calls_ = 0;
  double last_ = -1e300;
};

TEST(SimulationState, DistributedSourceMatchesTheProfileSourceAndIsAskedOncePerInterval) {
  YeeLattice lattice(Dimensions::two_tm, {2, 2, 0}, 10);
  Boundaries bc = Boundaries::pml_cells(4);
  auto profile = std::make_shared<GaussianSource>(1.0, 1.0);  // on for t in [0, 10]
  for (Component c : {Component::Ez, Component::Hx}) {
    SCOPED_TRACE(to_string(c));
    const Source s = current_sheet(c, {0.05, -0.1, 0}, {0.6, 0, 0}, profile);
    Simulation reference(lattice, MaterialArrays::vacuum(lattice), bc);
    reference.add_source(s);
    Simulation distributed(lattice, MaterialArrays::vacuum(lattice), bc);
    SourceSamples samples = discretize(s, lattice, distributed.boundaries());
    auto replay = std::make_shared<ReplayedProfile>(profile, samples.index.size());
    samples.profile = nullptr;
    samples.distributed = replay;
    distributed.add_source(samples);
    for (int n = 0; n < 60; ++n) {
      reference.step();
      distributed.step();
      // The energy's trial half step asks a magnetic source for the coming interval, which the
      // next step then reuses instead of asking again.
      (void)distributed.energy();
      EXPECT_EQ(replay->calls(), n + 1 + (is_electric(c) ? 0 : 1));
    }
    expect_same_state(reference.save_state(), distributed.save_state());
  }
}

TEST(SimulationState, ResumeAfterAnEnergyKeepsTheCurrentsAlreadyAsked) {
  // The energy's trial half step asks a distributed magnetic source for the coming interval; a
  // checkpoint taken then must carry those currents, or the resumed run would advance it twice.
  YeeLattice lattice(Dimensions::two_tm, {2, 2, 0}, 10);
  Boundaries bc = Boundaries::pml_cells(4);
  auto profile = std::make_shared<GaussianSource>(1.0, 1.0);
  const Source s = current_sheet(Component::Hx, {0.05, -0.1, 0}, {0.6, 0, 0}, profile);
  auto make = [&] {
    auto sim = std::make_unique<Simulation>(lattice, MaterialArrays::vacuum(lattice), bc);
    SourceSamples samples = discretize(s, lattice, sim->boundaries());
    samples.distributed = std::make_shared<ReplayedProfile>(profile, samples.index.size());
    samples.profile = nullptr;
    sim->add_source(samples);
    return sim;
  };
  auto whole = make();
  whole->run_steps(20);
  (void)whole->energy();
  const SimulationState half = whole->save_state();
  whole->run_steps(20);
  auto resumed = make();
  resumed->load_state(half);
  resumed->run_steps(20);
  expect_same_state(whole->save_state(), resumed->save_state());
}

TEST(SimulationState, SourceSamplesAreChecked) {
  YeeLattice lattice(Dimensions::two_tm, {1, 1, 0}, 10);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice));
  SourceSamples s;
  s.component = Component::Ez;
  s.index = {0, lattice.samples()};
  s.weight = {1.0, 1.0};
  s.profile = std::make_shared<GaussianSource>(1.0, 1.0);
  EXPECT_THROW(sim.add_source(s), ValueError);  // index out of range
  s.index = {0};
  EXPECT_THROW(sim.add_source(s), ValueError);  // weights and samples differ
  s.weight = {1.0};
  s.component = Component::Ex;
  EXPECT_THROW(sim.add_source(s), ValueError);  // a 2D TM run carries no Ex
  s.component = Component::Ez;
  s.profile = nullptr;
  EXPECT_THROW(sim.add_source(s), ValueError);  // neither profile nor distributed currents
}

TEST(SimulationState, UnknownPlatformsAreRefusedNamingThoseThereAre) {
  YeeLattice lattice(Dimensions::two_tm, {1, 1, 0}, 10);
  try {
    Simulation sim(lattice, MaterialArrays::vacuum(lattice), Boundaries(), 0.5, Precision::float64, "tpu");
    FAIL() << "platform tpu accepted";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("tpu"), std::string::npos) << m;
    EXPECT_NE(m.find("cpu"), std::string::npos) << m;
  }
  EXPECT_THROW(Simulation(lattice, MaterialArrays::vacuum(lattice), Boundaries(), 0.5, Precision::float64, "cpu:1"),
               ConfigError);
  EXPECT_THROW(Simulation(lattice, MaterialArrays::vacuum(lattice), Boundaries(), 0.5, Precision::float64, "cuda:x"),
               ConfigError);
  const std::vector<std::string> names = platforms();
  EXPECT_NE(std::find(names.begin(), names.end(), "cpu"), names.end());
}

}  // namespace
}  // namespace spire::elec
