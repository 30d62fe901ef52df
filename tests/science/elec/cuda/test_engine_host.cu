// The cuda platform's engine (science/elec/cuda/yee_engine.h) on a machine without a GPU: the same
// engine over a backend that runs the kernels' bodies on the host (host_backend.h), registered as
// platform "cuda_host", against the cpu platform (support_compare.h): every field sample, both
// energies and the whole state have the same bits after every few steps, in float64 and float32;
// checkpoints move between the platforms; set_field agrees. Also: the source entries' layering
// keeps the CPU's order of additions, and the platform refuses what it does not run, naming it
// (on "cuda" too, before any device is touched; and without a device, with the runtime's reason).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "engine/core/error.h"
#include "science/elec/cuda/source_batch.h"
#include "science/elec/cuda/yee_engine.h"
#include "science/elec/simulation_engine.h"
#include "tests/common/require_gpu.h"
#include "tests/science/elec/cuda/host_backend.h"
#include "tests/science/elec/cuda/support_compare.h"

namespace spire::elec::cuda {
namespace {

const bool kHostPlatform = [] {
  register_platform("cuda_host", [](const EngineConfig& cfg) -> std::unique_ptr<Simulation::Engine> {
    if (cfg.precision == Precision::float32)
      return std::make_unique<YeeEngine<float>>(cfg, std::make_unique<testing::HostBackend<float>>());
    return std::make_unique<YeeEngine<double>>(cfg, std::make_unique<testing::HostBackend<double>>());
  });
  return true;
}();

TEST(ElecCudaEngineHost, MatchesTheCpuBitForBitFloat64) {
  spire::elec::testing::expect_platform_matches_cpu("cuda_host", Precision::float64);
}

TEST(ElecCudaEngineHost, MatchesTheCpuBitForBitFloat32) {
  spire::elec::testing::expect_platform_matches_cpu("cuda_host", Precision::float32);
}

// A cavity mode set by set_field keeps its energy: the engine's energies are the discrete ones.
TEST(ElecCudaEngineHost, EnergyOfALosslessBoxIsConserved) {
  const YeeLattice lattice(Dimensions::three, {1.0, 0.8, 0.9}, 10);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice), Boundaries(), 0.5, Precision::float64, "cuda_host");
  for (Component c : lattice.components())
    if (is_electric(c))
      sim.set_field(c, [&](const Vec3& r) {
        return std::sin(3.14159 * (r.x + 0.5)) * std::sin(3.14159 * (r.y / 0.8 + 0.5)) * (int(c) + 1.0);
      });
  sim.run_steps(3);
  const double w0 = sim.energy();
  EXPECT_GT(w0, 0);
  sim.run_steps(200);
  EXPECT_NEAR(sim.energy(), w0, 1e-12 * w0);
}

// Entries hitting one sample are split into layers in CPU order; a real-weight profile source
// needs one value per half step, other sources one per sample.
TEST(ElecCudaEngineHost, SourceEntriesKeepTheCpuOrder) {
  auto pulse = std::make_shared<GaussianSource>(1.0, 1.0);
  std::vector<SourceSamples> sources(3);
  sources[0].component = Component::Ez;
  sources[0].index = {5, 6, 5, 5};
  sources[0].weight = {1.0, 2.0, 3.0, 4.0};
  sources[0].profile = pulse;
  sources[1].component = Component::Hx;  // the other kind: not in the electric batch
  sources[1].index = {5};
  sources[1].weight = {1.0};
  sources[1].profile = pulse;
  sources[2].component = Component::Ez;
  sources[2].index = {6, 5};
  sources[2].weight = {{1.0, 1.0}, 2.0};
  sources[2].profile = pulse;
  SourceBatch b;
  b.rebuild(sources, true, [](Component, int64_t i) { return 0.5 + double(i); });
  ASSERT_EQ(b.entries(), 6u);
  // Sample 5 is hit by entries 0, 2, 3 of source 0 and entry 1 of source 2: layers 0..3.
  ASSERT_EQ(b.layer_begin, (std::vector<int64_t>{0, 2, 4, 5, 6}));
  EXPECT_EQ(b.index, (std::vector<int64_t>{5, 6, 5, 6, 5, 5}));
  EXPECT_EQ(b.source, (std::vector<int32_t>{0, 0, 0, 2, 0, 2}));
  EXPECT_EQ(b.factor[0], 5.5 * 1.0);  // source_factor(5) * Re(weight)
  EXPECT_EQ(b.factor[3], 1.0);        // complex weights: the host forms the value
  EXPECT_EQ(b.upload_size(), 3u + 1u + 2u);  // on flags, one slot for source 0, two for source 2
  SourceCurrents currents;
  for (size_t i = 0; i < sources.size(); ++i) currents.add();
  std::vector<double> up;
  ASSERT_TRUE(b.fill(sources, currents, pulse->end_time() * 0.5, 0.05, up));
  EXPECT_EQ(up[0], 1.0);
  EXPECT_EQ(up[1], 0.0);  // the magnetic source is not this batch's
  EXPECT_EQ(up[2], 1.0);
  const std::complex<double> j = pulse->current(pulse->end_time() * 0.5, 0.05);
  EXPECT_EQ(up[3], j.real());
  EXPECT_DOUBLE_EQ(up[4], (6.5 * std::complex<double>(1.0, 1.0) * j).real());
  EXPECT_FALSE(b.fill(sources, currents, pulse->end_time() + 1, 0.05, up));  // every source off
}

TEST(ElecCudaEngineHost, RefusesWhatItDoesNotRun) {
  const YeeLattice lattice(Dimensions::two_tm, {1, 1, 0}, 10);
  Boundaries bloch;
  bloch.set_bloch(0, 0.2).set_periodic(1);
  try {
    Simulation sim(lattice, MaterialArrays::vacuum(lattice), bloch, 0.5, Precision::float64, "cuda_host");
    FAIL() << "Bloch boundaries were accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("Bloch"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("runs real fields"), std::string::npos) << e.what();
  }
  struct NoPolarization : PolarizationHook {
    using PolarizationHook::step;
    void step(Component, FieldPart, const double*, double*, int64_t) override {}
  };
  Simulation sim(lattice, MaterialArrays::vacuum(lattice), Boundaries(), 0.5, Precision::float64, "cuda_host");
  try {
    sim.set_polarization(std::make_shared<NoPolarization>());
    FAIL() << "a polarisation hook was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("dispersive"), std::string::npos) << e.what();
  }
}

TEST(ElecCudaEngineHost, CudaPlatformRefusesWithOrWithoutADevice) {
  const std::vector<std::string> names = platforms();
  ASSERT_NE(std::find(names.begin(), names.end(), "cuda"), names.end()) << "the library registers \"cuda\" on load";
  const YeeLattice lattice(Dimensions::two_tm, {1, 1, 0}, 10);
  Boundaries bloch;
  bloch.set_bloch(0, 0.2).set_periodic(1);
  EXPECT_THROW(Simulation(lattice, MaterialArrays::vacuum(lattice), bloch, 0.5, Precision::float64, "cuda"),
               ConfigError);
  if (spire::fixtures::have_gpu()) return;
  try {
    Simulation sim(lattice, MaterialArrays::vacuum(lattice), Boundaries(), 0.5, Precision::float32, "cuda");
    FAIL() << "platform cuda ran without a device";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("platform cuda:0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spire::elec::cuda
