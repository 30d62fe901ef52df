// The cuda platform's force kernels run on the host (support_host_forces.h: every body in a plain
// loop, FFTW for cuFFT), against the CPU platform's ForceField on the same systems: energies per
// term, forces and virial within 1e-9 of their size (plus a few fixed-point quanta, 2.3e-10 each),
// for Lennard-Jones in every cutoff mode, PME and reaction field, every bonded term, orthorhombic,
// triclinic and box-less systems. And fixed-point sums that do not depend on the order.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "science/sponge/pme.h"
#include "science/sponge/reaction_field.h"
#include "science/sponge/water.h"
#include "tests/science/sponge/cuda/support_force_systems.h"
#include "tests/science/sponge/cuda/support_host_forces.h"

namespace spire::sponge::cuda {
namespace {

using testing::Agreement;
using testing::Charges;
using testing::expect_agree;
using testing::HostForceField;

constexpr double kRel = 1e-9;
constexpr double kAbs = 1e-8;  // a few dozen fixed-point quanta: each contribution rounds by 1.2e-10

Agreement compare(const System& system, ForceField& ff, const State& state, const char* what) {
  SCOPED_TRACE(what);
  ff.check(system, state);
  const ForceResult cpu = ff.compute(system, state);
  HostForceField device(system, ff);
  const ForceResult got = device.compute(state);
  const Agreement a = expect_agree(got, cpu, kRel, kAbs);
  std::printf("[ figures  ] %-44s energy %.1e  force %.1e  virial %.1e (relative)\n", what, a.energy, a.force, a.virial);
  return a;
}

TEST(CudaSpongeHostForces, LennardJonesInEveryCutoffMode) {
  for (bool triclinic : {false, true}) {
    const Charges c = testing::lj_lattice(5, triclinic, 3 + triclinic);
    struct Mode {
      LJCutoffMode mode;
      double switch_distance;
      bool tail;
      const char* name;
    };
    for (const Mode& m : {Mode{LJCutoffMode::cut, 0, true, "cut + tail"}, Mode{LJCutoffMode::shifted, 0, false, "shifted"},
                          Mode{LJCutoffMode::force_switch, 2.0, true, "force_switch + tail"}}) {
      ForceField ff(0.3);
      ff.add(testing::lj_ab(2.5, m.mode, m.switch_distance, m.tail));
      const std::string what = std::string("lj ") + m.name + (triclinic ? ", triclinic" : ", orthorhombic");
      compare(c.system, ff, c.state, what.c_str());
    }
  }
}

std::shared_ptr<LennardJones> spce_lj(double cutoff) {
  const WaterModel w = WaterModel::spce();
  auto lj = std::make_shared<LennardJones>(cutoff, LJCutoffMode::shifted);
  lj->set_type(kWaterOxygenType, w.epsilon_o, w.sigma_o);
  lj->set_type(kWaterHydrogenType, 0, 0);
  lj->set_tail_correction(true);
  return lj;
}

TEST(CudaSpongeHostForces, PmeOnWater) {
  WaterBox water = water_box(WaterModel::spce(), {.molecules = 216});
  ForceField ff(0.05);
  ff.add(spce_lj(0.85));
  ff.add(std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 0.85}));
  compare(water.system, ff, water.state, "spc/e water, lj + pme");
}

TEST(CudaSpongeHostForces, PmeWithMoleculesInATriclinicBox) {
  for (int order : {4, 5, 7}) {
    // Net charge 0.4: the neutralising background; chains: exclusions, 1-4 pairs, bonds.
    Charges c = testing::random_charges(300, testing::Cell::triclinic, 0.4, 17 + order);
    testing::spread_apart(c, 0.09);
    ForceField ff(0.1);
    auto lj = std::make_shared<LennardJones>(0.8, LJCutoffMode::cut);
    lj->set_type("X", 0.3, 0.1);
    ff.add(lj);
    ff.add(std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 0.8, .tolerance = 1e-5, .order = order}));
    ff.add(std::make_shared<HarmonicBonds>());
    const std::string what = "random charges, triclinic, pme order " + std::to_string(order);
    compare(c.system, ff, c.state, what.c_str());
  }
}

TEST(CudaSpongeHostForces, ReactionFieldWithAndWithoutABox) {
  for (testing::Cell cell : {testing::Cell::none, testing::Cell::orthorhombic, testing::Cell::triclinic}) {
    Charges c = testing::random_charges(250, cell, std::nullopt, 23 + int(cell));
    testing::spread_apart(c, 0.09);
    ForceField ff(0.1);
    auto lj = std::make_shared<LennardJones>(0.7, LJCutoffMode::shifted);
    lj->set_type("X", 0.2, 0.1);
    ff.add(lj);
    ff.add(std::make_shared<ReactionFieldCoulomb>(ReactionFieldOptions{.cutoff = 0.8}));
    const char* names[] = {"reaction field, no box", "reaction field, orthorhombic", "reaction field, triclinic"};
    compare(c.system, ff, c.state, names[int(cell)]);
  }
}

TEST(CudaSpongeHostForces, EveryBondedTermAcrossTheBoxFaces) {
  const Charges c = testing::bonded_molecules(5);
  ForceField ff(0.1);
  testing::add_bonded_terms(ff, c.state);
  const Agreement a = compare(c.system, ff, c.state, "bonded terms, triclinic, split molecules");
  // The chains do straddle the faces: some bond is longer than half the box unless minimum-imaged.
  double longest = 0;
  for (const Bond& b : c.system.topology.bonds)
    longest = std::max(longest, norm(c.state.positions[size_t(b.j)] - c.state.positions[size_t(b.i)]));
  EXPECT_GT(longest, 1.0);
  (void)a;
}

TEST(CudaSpongeHostForces, EverythingTogether) {
  Charges c = testing::bonded_molecules(8);
  ForceField ff(0.1);
  auto lj = std::make_shared<LennardJones>(0.75, LJCutoffMode::force_switch, 0.6);
  lj->set_type("X", 0.25, 0.12);
  lj->set_tail_correction(true);
  ff.add(lj);
  ff.add(std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 0.75, .tolerance = 1e-4}));
  testing::add_bonded_terms(ff, c.state);
  compare(c.system, ff, c.state, "lj + pme + bonded, triclinic");
}

TEST(CudaSpongeHostForces, FixedPointSumsDoNotDependOnTheOrder) {
  const Charges c = testing::bonded_molecules(11);
  ForceField ff(0.1);
  auto lj = std::make_shared<LennardJones>(0.75, LJCutoffMode::cut);
  lj->set_type("X", 0.25, 0.12);
  ff.add(lj);
  ff.add(std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 0.75}));
  testing::add_bonded_terms(ff, c.state);
  HostForceField in_order(c.system, ff), shuffled(c.system, ff);
  shuffled.shuffle_seed = 987654321;
  const ForceResult a = in_order.compute(c.state), b = shuffled.compute(c.state);
  EXPECT_EQ(in_order.force_fixed, shuffled.force_fixed);
  EXPECT_EQ(in_order.totals, shuffled.totals);
  EXPECT_EQ(in_order.mesh_fixed, shuffled.mesh_fixed);
  EXPECT_EQ(0, std::memcmp(a.forces.data(), b.forces.data(), a.forces.size() * sizeof(Vec3)));
  EXPECT_EQ(a.energies, b.energies);
  EXPECT_EQ(a.virial.m, b.virial.m);
  // The list's rows hold the same partners, in another order.
  ASSERT_EQ(in_order.offsets, shuffled.offsets);
  std::vector<int32_t> x = in_order.neighbors, y = shuffled.neighbors;
  for (size_t i = 0; i + 1 < in_order.offsets.size(); ++i) {
    std::sort(x.begin() + in_order.offsets[i], x.begin() + in_order.offsets[i + 1]);
    std::sort(y.begin() + in_order.offsets[i], y.begin() + in_order.offsets[i + 1]);
  }
  EXPECT_EQ(x, y);
}

TEST(CudaSpongeHostForces, FixedPointRoundsAndSaturates) {
  EXPECT_EQ(to_fixed(1.0), 4294967296LL);
  EXPECT_EQ(to_fixed(-0.5), -2147483648LL);
  EXPECT_EQ(from_fixed(to_fixed(3.25)), 3.25);
  EXPECT_EQ(to_fixed(1e300), (long long)kFixedLimit);
  EXPECT_EQ(to_fixed(-1e300), -(long long)kFixedLimit);
  EXPECT_EQ(to_fixed(std::nan("")), (long long)kFixedLimit);  // never a plausible value
  EXPECT_EQ(to_fixed(1.0, kMeshFixedScale), 1099511627776LL);
  long long slot = 0;
  accumulate(&slot, 0.1);
  accumulate(&slot, -0.3);
  EXPECT_NEAR(from_fixed(slot), -0.2, 2.4e-10);
}

}  // namespace
}  // namespace spire::sponge::cuda
