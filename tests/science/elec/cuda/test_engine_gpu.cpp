// The cuda platform of the FDTD solver on a GPU (label cuda: `make gpu-test`; a missing device is a
// failure): whole Simulations on "cuda" against the same ones on "cpu".
//   - The scenarios of support_compare.h (CPML with kappa and alpha, pec / pmc / periodic walls,
//     dielectric and conductor, point dipoles, a complex-amplitude sheet, repeated samples,
//     stateful distributed currents): every field sample, both energies and the state have the
//     CPU's bits, float64 and float32; checkpoints move between the platforms.
//   - A PEC cavity mode (support_cavity.h) run 400 steps: the CPU's bits, float64 and float32.
//   - A 48^3 problem with a 6-cell CPML (many thread blocks, every slab): the CPU's bits.
//   - The platform is listed, and cuda:N past the last device is refused naming the count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "engine/core/error.h"
#include "science/elec/cuda/device_info.h"
#include "science/elec/simulation_engine.h"
#include "tests/common/require_gpu.h"
#include "tests/science/elec/cuda/support_compare.h"
#include "tests/science/elec/support_cavity.h"

namespace spire::elec {
namespace {

TEST(ElecCudaGpu, PlatformIsRegistered) {
  REQUIRE_GPU();
  const std::vector<std::string> names = platforms();
  EXPECT_NE(std::find(names.begin(), names.end(), "cuda"), names.end());
  const cuda::DeviceMemoryInfo info = cuda::device_memory_info(0, false);
  std::printf("device 0: %s, %.0f GB/s peak\n", info.name.c_str(), info.peak_bandwidth / 1e9);
  EXPECT_GT(info.peak_bandwidth, 0);
}

TEST(ElecCudaGpu, MatchesTheCpuBitForBitFloat64) {
  REQUIRE_GPU();
  testing::expect_platform_matches_cpu("cuda", Precision::float64);
}

TEST(ElecCudaGpu, MatchesTheCpuBitForBitFloat32) {
  REQUIRE_GPU();
  testing::expect_platform_matches_cpu("cuda", Precision::float32);
}

TEST(ElecCudaGpu, CavityModeHasTheCpuBits) {
  REQUIRE_GPU();
  for (Precision precision : {Precision::float64, Precision::float32}) {
    SCOPED_TRACE(to_string(precision));
    const YeeLattice lattice(Dimensions::three, {1.0, 0.8, 1.2}, 12);
    Simulation cpu(lattice, MaterialArrays::vacuum(lattice), Boundaries(), 0.5, precision, "cpu");
    Simulation gpu(lattice, MaterialArrays::vacuum(lattice), Boundaries(), 0.5, precision, "cuda");
    const testing::CavityMode mode = testing::cavity_mode(cpu, {1, 2, 1});
    for (Simulation* sim : {&cpu, &gpu})
      for (Component c : lattice.components())
        if (is_electric(c))
          sim->set_field(c, [&](const Vec3& r) { return mode.e[size_t(axis_of(c))] * testing::cavity_pattern(mode, c, r); });
    cpu.run_steps(400);
    gpu.run_steps(400);
    EXPECT_EQ(testing::differing(cpu, gpu), 0);
    EXPECT_EQ(cpu.energy(), gpu.energy());
  }
}

TEST(ElecCudaGpu, LargeCpmlProblemHasTheCpuBits) {
  REQUIRE_GPU();
  const YeeLattice lattice(Dimensions::three, {48, 48, 48}, 1);
  for (Precision precision : {Precision::float64, Precision::float32}) {
    SCOPED_TRACE(to_string(precision));
    Simulation cpu(lattice, MaterialArrays::vacuum(lattice), Boundaries::pml_cells(6), 0.5, precision, "cpu");
    Simulation gpu(lattice, MaterialArrays::vacuum(lattice), Boundaries::pml_cells(6), 0.5, precision, "cuda");
    for (Simulation* sim : {&cpu, &gpu})
      sim->add_source(point_dipole(Component::Ez, {0.1, 0.2, 0.3}, std::make_shared<GaussianSource>(0.15, 0.1)));
    cpu.run_steps(60);
    gpu.run_steps(60);
    EXPECT_EQ(testing::differing(cpu, gpu), 0);
  }
}

TEST(ElecCudaGpu, RefusesADeviceItDoesNotHave) {
  REQUIRE_GPU();
  int count = 0;
  cudaGetDeviceCount(&count);
  const YeeLattice lattice(Dimensions::two_tm, {1, 1, 0}, 10);
  const std::string name = "cuda:" + std::to_string(count);
  try {
    Simulation sim(lattice, MaterialArrays::vacuum(lattice), Boundaries(), 0.5, Precision::float64, name);
    FAIL() << name << " was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(count) + " CUDA device"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spire::elec
