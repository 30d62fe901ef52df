// Reaction field: energy and forces against an O(N^2) sum of OpenMM's formula (excluded pairs left
// out, 1-4 pairs plain Coulomb), forces and virial against finite differences, the pair energy
// vanishing at the cutoff, and OpenMM's k_rf and c_rf.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "engine/core/error.h"
#include "science/sponge/reaction_field.h"
#include "tests/science/sponge/support_charges.h"
#include "tests/science/sponge/support_forces.h"

namespace spire::sponge {
namespace {

using testing::Cell;
using testing::evaluate;
using testing::random_charges;

TEST(ReactionField, ConstantsAsOpenMM) {
  ReactionFieldCoulomb rf({.cutoff = 1.2, .epsilon_solvent = 78.3});
  const double krf = (78.3 - 1) / (2 * 78.3 + 1) / (1.2 * 1.2 * 1.2);
  EXPECT_DOUBLE_EQ(rf.k_rf(), krf);
  EXPECT_DOUBLE_EQ(rf.c_rf(), 3 * 78.3 / ((2 * 78.3 + 1) * 1.2));  // OpenMM's crf
  ReactionFieldCoulomb conductor({.cutoff = 1.2, .epsilon_solvent = INFINITY});
  EXPECT_DOUBLE_EQ(conductor.k_rf(), 0.5 / (1.2 * 1.2 * 1.2));
  EXPECT_DOUBLE_EQ(conductor.c_rf(), 1.5 / 1.2);
  // The pair energy goes to zero at the cutoff.
  const double rc = 1.2;
  EXPECT_NEAR(1 / rc + rf.k_rf() * rc * rc - rf.c_rf(), 0, 1e-15);
}

TEST(ReactionField, MatchesBruteForce) {
  for (Cell cell : {Cell::none, Cell::orthorhombic, Cell::triclinic}) {
    const testing::Charges r = random_charges(60, cell, std::nullopt, 7 + int(cell));
    const double rc = 0.9;
    ReactionFieldCoulomb rf({.cutoff = rc, .epsilon_solvent = 78.3});
    const ForceResult out = evaluate(rf, r.system, r.state);
    const double k = constants::kCoulomb;
    double energy = 0;
    std::vector<Vec3> f(60);
    auto add = [&](int i, int j, double e, double s, const Vec3& d) {
      energy += e;
      f[i] -= s * d;
      f[j] += s * d;
    };
    for (int i = 0; i < 60; ++i)
      for (int j = i + 1; j < 60; ++j) {
        if (r.system.topology.excluded(i, j)) continue;
        const Vec3 d = r.state.box.min_image(r.state.positions[j] - r.state.positions[i]);
        const double x = norm(d);
        if (x >= rc) continue;
        const double kqq = k * r.system.charge[i] * r.system.charge[j];
        add(i, j, kqq * (1 / x + rf.k_rf() * x * x - rf.c_rf()), kqq * (1 / (x * x * x) - 2 * rf.k_rf()), d);
      }
    ASSERT_FALSE(r.system.topology.pairs14.empty());
    for (const Pair14& p : r.system.topology.pairs14) {
      const Vec3 d = r.state.box.min_image(r.state.positions[p.j] - r.state.positions[p.i]);
      const double x = norm(d), kqq = p.coulomb_scale * k * r.system.charge[p.i] * r.system.charge[p.j];
      add(p.i, p.j, kqq / x, kqq / (x * x * x), d);
    }
    EXPECT_NEAR(out.energy_of("coulomb"), energy, 1e-12 * std::fabs(energy));
    for (int i = 0; i < 60; ++i)
      for (int a = 0; a < 3; ++a) EXPECT_NEAR(out.forces[i][a], f[i][a], 1e-10 * (1 + std::fabs(f[i][a])));
  }
}

TEST(ReactionField, ForcesAreMinusTheGradient) {
  const testing::Charges r = random_charges(40, Cell::orthorhombic, std::nullopt, 13);
  ReactionFieldCoulomb rf({.cutoff = 0.9});
  const ForceResult out = evaluate(rf, r.system, r.state);
  for (int i = 0; i < 40; i += 3)
    for (int a = 0; a < 3; ++a) {
      const double fd = testing::fd_force(rf, r.system, r.state, i, a, 1e-6);
      EXPECT_NEAR(out.forces[size_t(i)][a], fd, 1e-6 * (1 + std::fabs(fd))) << "particle " << i;
    }
}

TEST(ReactionField, VirialIsTheBoxDerivative) {
  const testing::Charges r = random_charges(40, Cell::triclinic, std::nullopt, 3);
  ReactionFieldCoulomb rf({.cutoff = 0.9});
  testing::expect_virial_is_box_derivative(rf, r.system, r.state, 1e-7, 1e-6);
}

TEST(ReactionField, BadInputIsRefused) {
  EXPECT_THROW(ReactionFieldCoulomb({.cutoff = 1, .epsilon_solvent = 0.5}), ValueError);
  EXPECT_THROW(ReactionFieldCoulomb({.cutoff = 0}), ValueError);
  testing::Charges r = random_charges(10, Cell::orthorhombic, std::nullopt, 1);
  r.system.charge.pop_back();
  ReactionFieldCoulomb rf;
  EXPECT_THROW(rf.check(r.system, r.state), ValueError);
}

}  // namespace
}  // namespace spire::sponge
