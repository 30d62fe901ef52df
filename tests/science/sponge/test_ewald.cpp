// Ewald summation: Madelung constants of NaCl and CsCl (published values), forces and virial
// against finite differences of the energy, the direct-space table against erfc, the excluded-pair
// and 1-4 corrections against plain Coulomb, the neutralising background (a charged cell's energy
// does not depend on alpha), and the same bits on one thread and on several.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/ewald.h"
#include "tests/science/sponge/support_charges.h"
#include "tests/science/sponge/support_forces.h"

namespace spire::sponge {
namespace {

using testing::Cell;
using testing::evaluate;
using testing::periodic_cell;
using testing::random_charges;

TEST(Ewald, MadelungNaCl) {
  const testing::Charges c = testing::rock_salt(2);  // 64 ions, L = 2, r0 = 1/2
  EwaldCoulomb ewald({.cutoff = 1.0, .tolerance = 1e-10});
  const ForceResult r = evaluate(ewald, c.system, c.state);
  const double pairs = c.system.size() / 2.0;
  EXPECT_NEAR(-r.energy() * 0.5 / pairs, testing::kMadelungNaCl, 1e-9);
  for (const Vec3& f : r.forces) EXPECT_LT(norm(f), 1e-9);  // every ion at a centre of symmetry
}

TEST(Ewald, MadelungCsCl) {
  const testing::Charges c = testing::cesium_chloride(3);
  EwaldCoulomb ewald({.cutoff = 1.5, .tolerance = 1e-10});
  const ForceResult r = evaluate(ewald, c.system, c.state);
  const double r0 = std::sqrt(3.0) / 2;
  EXPECT_NEAR(-r.energy() * r0 / (c.system.size() / 2.0), testing::kMadelungCsCl, 1e-9);
}

TEST(Ewald, ForcesAreMinusTheGradient) {
  for (bool triclinic : {false, true}) {
    const testing::Charges r = random_charges(40, periodic_cell(triclinic), 0.7, 11 + triclinic);
    EwaldCoulomb ewald({.cutoff = 0.95, .tolerance = 1e-5});
    const testing::ForceErrors e = testing::fd_force_errors(ewald, r.system, r.state, 5, 1e-6);
    EXPECT_LT(e.worst, 1e-6 * e.scale) << "triclinic " << triclinic;
  }
}

// W_ab = -dU/d(eps_ab) with positions and box deformed by (1 + eps): upper-triangular components
// keep the box in reduced form, and the virial is symmetric.
TEST(Ewald, VirialIsTheBoxDerivative) {
  for (bool triclinic : {false, true}) {
    SCOPED_TRACE(triclinic ? "triclinic" : "orthorhombic");
    const testing::Charges r = random_charges(40, periodic_cell(triclinic), 0.7, 21 + triclinic);
    EwaldCoulomb ewald({.cutoff = 0.95, .tolerance = 1e-6});
    testing::expect_virial_is_box_derivative(ewald, r.system, r.state, 1e-6, 2e-6);
    const Mat3 w = evaluate(ewald, r.system, r.state).virial;
    for (int a = 0; a < 3; ++a)
      for (int b = a + 1; b < 3; ++b) EXPECT_NEAR(w(a, b), w(b, a), 1e-9 * std::fabs(w.trace()));
  }
}

// With the background term a charged cell's energy is independent of alpha (all that alpha
// changes is how the same sum is split), which fails without it by pi Q^2 / (2 V) (1/a1^2 - 1/a2^2).
TEST(Ewald, ChargedCellEnergyDoesNotDependOnAlpha) {
  testing::Charges r = random_charges(30, Cell::triclinic, 1.3, 5);
  // Both alphas large enough that the direct sum's truncation (erfc(alpha rc)) is below 1e-9.
  EwaldCoulomb a({.cutoff = 0.95, .alpha = 4.5, .kmax = {21, 21, 21}});
  EwaldCoulomb b({.cutoff = 0.95, .alpha = 5.0, .kmax = {23, 23, 23}});
  const double ea = evaluate(a, r.system, r.state).energy(), eb = evaluate(b, r.system, r.state).energy();
  EXPECT_NEAR(ea, eb, 1e-9 * std::fabs(ea));
  const double jump = M_PI * 1.3 * 1.3 / (2 * r.state.box.volume()) * (1 / (4.5 * 4.5) - 1 / (5.0 * 5.0)) * constants::kCoulomb;
  EXPECT_GT(jump, 1e5 * 1e-9 * std::fabs(ea));  // the test would notice a missing background term
}

// Excluding a pair removes exactly its nearest-image plain Coulomb energy; a 1-4 pair then adds
// back scale k q_i q_j / r.
TEST(Ewald, ExclusionsRemoveThePlainCoulombPair) {
  testing::Charges r = random_charges(30, Cell::orthorhombic, 0.0, 8);
  r.system.topology = Topology{};
  EwaldCoulomb ewald({.cutoff = 0.95, .tolerance = 1e-8});
  const double full = evaluate(ewald, r.system, r.state).energy();
  const int i = 3, j = 17;
  const double dist = norm(r.state.box.min_image(r.state.positions[j] - r.state.positions[i]));
  const double plain = constants::kCoulomb * r.system.charge[i] * r.system.charge[j] / dist;
  r.system.topology.exclusions = {{i, j}};
  const double excluded = evaluate(ewald, r.system, r.state).energy();
  EXPECT_NEAR(full - excluded, plain, 1e-9 * std::fabs(full));
  r.system.topology.pairs14 = {{i, j, 0.5, 0.5}};
  const double scaled = evaluate(ewald, r.system, r.state).energy();
  EXPECT_NEAR(scaled - excluded, 0.5 * plain, 1e-9 * std::fabs(full));
  // A 1-4 pair that is not excluded is refused.
  r.system.topology.exclusions.clear();
  EXPECT_THROW(ewald.check(r.system, r.state), ValueError);
}

TEST(Ewald, TableMatchesErfc) {
  const double alpha = 3.1, rc = 1.2;
  ErfTable table(alpha, rc);
  double worst_e = 0, worst_f = 0;
  for (int k = 1; k < 5000; ++k) {
    const double r = 0.02 + (rc - 0.02) * k / 5000.0;
    const double exact = std::erfc(alpha * r) / r;
    const double exact_f = std::erfc(alpha * r) / (r * r) + 2 * alpha / std::sqrt(M_PI) * std::exp(-alpha * alpha * r * r) / r;
    worst_e = std::max(worst_e, std::fabs((1 / r - table.value(r)) - exact) * r);
    worst_f = std::max(worst_f, std::fabs((1 / (r * r) + table.derivative(r)) - exact_f) * r * r);
  }
  EXPECT_LT(worst_e, 1e-13);  // relative to the bare 1/r and 1/r^2
  EXPECT_LT(worst_f, 1e-10);
}

// The direct-space sum against an O(N^2) loop with erfc.
TEST(Ewald, DirectSumMatchesBruteForce) {
  testing::Charges r = random_charges(50, Cell::triclinic, 0.0, 3);
  const double alpha = 3.0, rc = 0.95;
  ErfTable table(alpha, rc);
  BrutePairList list;
  list.build(r.system, r.state, rc + 0.1);  // with a skin: pairs beyond the cutoff are skipped
  PairAccumulator acc;
  ForceResult out;
  out.reset(r.system.size());
  const double e = add_ewald_direct(r.system, r.state, list.view(), table, acc, out);
  double ref = 0;
  std::vector<Vec3> f(r.system.size());
  for (int i = 0; i < 50; ++i)
    for (int j = i + 1; j < 50; ++j) {
      if (r.system.topology.excluded(i, j)) continue;
      const Vec3 d = r.state.box.min_image(r.state.positions[j] - r.state.positions[i]);
      const double x = norm(d);
      if (x >= rc) continue;
      const double kqq = constants::kCoulomb * r.system.charge[i] * r.system.charge[j];
      ref += kqq * std::erfc(alpha * x) / x;
      const double s = kqq * (std::erfc(alpha * x) / x + 2 * alpha / std::sqrt(M_PI) * std::exp(-alpha * alpha * x * x)) / (x * x);
      f[i] -= s * d;
      f[j] += s * d;
    }
  EXPECT_NEAR(e, ref, 1e-11 * std::fabs(ref));
  for (int i = 0; i < 50; ++i)
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(out.forces[i][a], f[i][a], 1e-8 * (1 + std::fabs(f[i][a])));
}

// Large enough that the reciprocal sum runs threaded.
TEST(Ewald, SameBitsOnAnyThreadCount) {
  testing::Charges r = random_charges(300, Cell::triclinic, 0.3, 9);
  EwaldCoulomb ewald({.cutoff = 0.95, .tolerance = 1e-5});
  testing::expect_same_bits_on_threads(ewald, r.system, r.state, std::max(2, omp_get_max_threads()));
}

TEST(Ewald, BadInputIsRefused) {
  EXPECT_THROW(EwaldCoulomb({.cutoff = -1}), ValueError);
  EXPECT_THROW(EwaldCoulomb({.cutoff = 1, .tolerance = 0.7}), ValueError);
  EXPECT_THROW(EwaldCoulomb({.cutoff = 1, .kmax = {5, 0, 5}}), ValueError);
  testing::Charges r = random_charges(10, Cell::orthorhombic, 0, 1);
  EwaldCoulomb big({.cutoff = 1.5});
  EXPECT_THROW(big.check(r.system, r.state), ValueError);  // beyond half the box
  r.state.box = Box::none();
  EwaldCoulomb ewald;
  EXPECT_THROW(ewald.check(r.system, r.state), ValueError);
}

}  // namespace
}  // namespace spire::sponge
