// DeviceForceField on a GPU against the CPU platform's ForceField: SPC/E water with PME, a
// Lennard-Jones fluid in every cutoff mode, charged molecules with every bonded term in a
// triclinic box, reaction field without a box. Forces, energies per term and virial agree to
// 1e-8 of their size; two evaluations give the same bits (fixed-point accumulation); the list is
// rebuilt when the CPU's would be. Skipped where no GPU is visible.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "science/sponge/cuda/device_buffer.h"
#include "science/sponge/cuda/device_force_field.h"
#include "science/sponge/ewald.h"
#include "science/sponge/pme.h"
#include "science/sponge/reaction_field.h"
#include "science/sponge/water.h"
#include "tests/common/require_gpu.h"
#include "tests/science/sponge/cuda/support_force_systems.h"

namespace spire::sponge::cuda {
namespace {

using testing::Charges;

constexpr double kRel = 1e-8;
constexpr double kAbs = 1e-8;

// A stream, device positions and forces, and the force field on the device (members in that
// order, so that a constructor that throws still releases what was made).
class OnDevice {
 public:
  OnDevice(const System& system, const ForceField& ff) : n_(system.size()) {
    x_.resize(size_t(3 * n_));
    f_.resize(size_t(3 * n_));
    forces_ = std::make_unique<DeviceForceField>(system, ff, stream_.s);
  }

  ForceResult compute(const State& state) {
    x_.upload(&state.positions[0].x, size_t(3 * n_), stream_.s);
    forces_->compute(x_.data(), state.box, f_.data());
    ForceResult out;
    out.forces.assign(size_t(n_), Vec3{});
    f_.download(&out.forces[0].x, size_t(3 * n_), stream_.s);
    forces_->download(out);
    return out;
  }
  int64_t builds() const { return forces_->list_builds(); }

 private:
  struct Stream {
    cudaStream_t s = nullptr;
    Stream() { SPIRE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
    ~Stream() { cudaStreamDestroy(s); }
  };
  int64_t n_;
  Stream stream_;
  DeviceBuffer<double> x_, f_;
  std::unique_ptr<DeviceForceField> forces_;
};

bool same_bits(const ForceResult& a, const ForceResult& b) {
  return a.forces.size() == b.forces.size() &&
         std::memcmp(a.forces.data(), b.forces.data(), a.forces.size() * sizeof(Vec3)) == 0 && a.energies == b.energies &&
         a.virial.m == b.virial.m;
}

// The device against the CPU at `state`, twice on the device (the same bits).
void check_against_cpu(const System& system, ForceField& ff, const State& state, const char* what) {
  SCOPED_TRACE(what);
  ff.check(system, state);
  const ForceResult cpu = ff.compute(system, state);
  OnDevice device(system, ff);
  const ForceResult first = device.compute(state);
  const testing::Agreement a = testing::expect_agree(first, cpu, kRel, kAbs);
  std::printf("[ figures  ] %-40s energy %.1e  force %.1e  virial %.1e (relative)\n", what, a.energy, a.force, a.virial);
  const ForceResult second = device.compute(state);
  EXPECT_TRUE(same_bits(first, second)) << "two evaluations differ";
  EXPECT_EQ(device.builds(), 1);
}

std::shared_ptr<LennardJones> spce_lj(double cutoff) {
  const WaterModel w = WaterModel::spce();
  auto lj = std::make_shared<LennardJones>(cutoff, LJCutoffMode::shifted);
  lj->set_type(kWaterOxygenType, w.epsilon_o, w.sigma_o);
  lj->set_type(kWaterHydrogenType, 0, 0);
  lj->set_tail_correction(true);
  return lj;
}

TEST(CudaSpongeForces, WaterWithPme) {
  REQUIRE_GPU();
  WaterBox water = water_box(WaterModel::spce(), {.molecules = 1000});
  ForceField ff(0.1);
  ff.add(spce_lj(1.0));
  ff.add(std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 1.0}));
  check_against_cpu(water.system, ff, water.state, "spc/e water (1000), lj + pme");
}

TEST(CudaSpongeForces, LennardJonesFluidInEveryCutoffMode) {
  REQUIRE_GPU();
  for (bool triclinic : {false, true}) {
    const Charges c = testing::lj_lattice(8, triclinic, 13 + triclinic);
    for (LJCutoffMode mode : {LJCutoffMode::cut, LJCutoffMode::shifted, LJCutoffMode::force_switch}) {
      ForceField ff(0.3);
      ff.add(testing::lj_ab(2.5, mode, mode == LJCutoffMode::force_switch ? 2.0 : 0.0, mode != LJCutoffMode::shifted));
      const std::string what = "lj " + to_string(mode) + (triclinic ? ", triclinic" : ", orthorhombic");
      check_against_cpu(c.system, ff, c.state, what.c_str());
    }
  }
}

TEST(CudaSpongeForces, MoleculesWithEveryTermInATriclinicBox) {
  REQUIRE_GPU();
  const Charges c = testing::bonded_molecules(21);
  ForceField ff(0.1);
  auto lj = std::make_shared<LennardJones>(0.75, LJCutoffMode::force_switch, 0.6);
  lj->set_type("X", 0.25, 0.12);
  lj->set_tail_correction(true);
  ff.add(lj);
  ff.add(std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 0.75, .tolerance = 1e-5}));
  testing::add_bonded_terms(ff, c.state);
  check_against_cpu(c.system, ff, c.state, "lj + pme + bonded, triclinic");
}

TEST(CudaSpongeForces, ReactionFieldWithoutABox) {
  REQUIRE_GPU();
  Charges c = testing::random_charges(2000, testing::Cell::none, std::nullopt, 31);
  testing::spread_apart(c, 0.09);
  ForceField ff(0.1);
  auto lj = std::make_shared<LennardJones>(0.8, LJCutoffMode::shifted);
  lj->set_type("X", 0.2, 0.1);
  ff.add(lj);
  ff.add(std::make_shared<ReactionFieldCoulomb>(ReactionFieldOptions{.cutoff = 0.8}));
  check_against_cpu(c.system, ff, c.state, "reaction field, no box");
}

TEST(CudaSpongeForces, ListIsRebuiltWhenTheCpuListWouldBe) {
  REQUIRE_GPU();
  const Charges c = testing::lj_lattice(6, true, 5);
  ForceField ff(0.3);
  ff.add(testing::lj_ab(2.5, LJCutoffMode::shifted, 0, false));
  OnDevice device(c.system, ff);
  device.compute(c.state);
  EXPECT_EQ(device.builds(), 1);
  State now = c.state;
  now.positions[100] += Vec3{0.14, 0, 0};  // under skin / 2: the list holds
  const ForceResult held = device.compute(now);
  EXPECT_EQ(device.builds(), 1);
  testing::expect_agree(held, ff.compute(c.system, now), kRel, kAbs);
  now.positions[200] += Vec3{0, 0.16, 0};  // over
  const ForceResult rebuilt = device.compute(now);
  EXPECT_EQ(device.builds(), 2);
  testing::expect_agree(rebuilt, ff.compute(c.system, now), kRel, kAbs);
  now.box = now.box.scaled(1.001);  // a new box
  device.compute(now);
  EXPECT_EQ(device.builds(), 3);
}

TEST(CudaSpongeForces, RefusesTermsWithoutAKernelAndBlownUpPositions) {
  REQUIRE_GPU();
  Charges c = testing::random_charges(40, testing::Cell::orthorhombic, 0.0, 3);
  ForceField ewald;
  ewald.add(std::make_shared<EwaldCoulomb>(EwaldOptions{.cutoff = 0.8}));
  EXPECT_THROW(OnDevice(c.system, ewald), ConfigError);
  ForceField ff(0.1);
  ff.add(std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 0.8}));
  OnDevice device(c.system, ff);
  c.state.positions[7].x = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(device.compute(c.state), ValueError);
}

}  // namespace
}  // namespace spire::sponge::cuda
