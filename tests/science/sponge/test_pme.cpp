// Smooth PME: Madelung constants of NaCl and CsCl (published values), agreement with Ewald at a
// tight tolerance (energy, forces, virial), forces and virial against finite differences of the
// PME energy itself, OpenMM's mesh sizes for a tolerance, and the same bits on any thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/ewald.h"
#include "science/sponge/force_field.h"
#include "science/sponge/pme.h"
#include "tests/science/sponge/support_charges.h"
#include "tests/science/sponge/support_forces.h"

namespace spire::sponge {
namespace {

using testing::Cell;
using testing::evaluate;
using testing::periodic_cell;
using testing::random_charges;

TEST(Pme, MadelungNaCl) {
  const testing::Charges c = testing::rock_salt(2, {0.13, 0.07, 0.21});  // off the mesh points
  PmeCoulomb pme({.cutoff = 1.0, .alpha = 4.6, .grid = {60, 60, 60}, .order = 8});
  const ForceResult r = evaluate(pme, c.system, c.state);
  EXPECT_NEAR(-r.energy() * 0.5 / (c.system.size() / 2.0), testing::kMadelungNaCl, 1e-8);
  for (const Vec3& f : r.forces) EXPECT_LT(norm(f), 1e-6);
}

TEST(Pme, MadelungCsCl) {
  const testing::Charges c = testing::cesium_chloride(3);
  PmeCoulomb pme({.cutoff = 1.5, .alpha = 2.8, .grid = {45, 45, 45}, .order = 8});
  const double r0 = std::sqrt(3.0) / 2;
  EXPECT_NEAR(-evaluate(pme, c.system, c.state).energy() * r0 / (c.system.size() / 2.0), testing::kMadelungCsCl,
              1e-8);
}

TEST(Pme, AgreesWithEwaldAtTightTolerance) {
  for (bool triclinic : {false, true}) {
    testing::Charges r = random_charges(60, periodic_cell(triclinic), 0.4, 31 + triclinic);
    EwaldCoulomb ewald({.cutoff = 0.95, .alpha = 3.5, .kmax = {19, 19, 19}});
    PmeCoulomb pme({.cutoff = 0.95, .alpha = 3.5, .grid = {64, 60, 64}, .order = 8});
    const ForceResult e = evaluate(ewald, r.system, r.state), p = evaluate(pme, r.system, r.state);
    EXPECT_NEAR(p.energy(), e.energy(), 1e-8 * std::fabs(e.energy())) << "triclinic " << triclinic;
    double rms = 0, worst = 0;
    for (size_t i = 0; i < e.forces.size(); ++i) {
      rms += norm2(e.forces[i]);
      worst = std::max(worst, norm(p.forces[i] - e.forces[i]));
    }
    rms = std::sqrt(rms / e.forces.size());
    EXPECT_LT(worst, 1e-6 * rms) << "triclinic " << triclinic;
    for (int k = 0; k < 9; ++k)
      EXPECT_NEAR(p.virial.m[k], e.virial.m[k], 1e-7 * std::fabs(e.virial.trace())) << "triclinic " << triclinic;
  }
}

TEST(Pme, ForcesAreMinusTheGradient) {
  for (bool triclinic : {false, true}) {
    const testing::Charges r = random_charges(40, periodic_cell(triclinic), 0.7, 41 + triclinic);
    PmeCoulomb pme({.cutoff = 0.95, .tolerance = 1e-4});  // OpenMM's mesh; order 5
    const testing::ForceErrors e = testing::fd_force_errors(pme, r.system, r.state, 3, 1e-6);
    EXPECT_LT(e.worst, 1e-6 * e.scale) << "triclinic " << triclinic;
  }
}

TEST(Pme, VirialIsTheBoxDerivative) {
  for (bool triclinic : {false, true}) {
    SCOPED_TRACE(triclinic ? "triclinic" : "orthorhombic");
    const testing::Charges r = random_charges(40, periodic_cell(triclinic), 0.7, 51 + triclinic);
    PmeCoulomb pme({.cutoff = 0.95, .tolerance = 1e-4});
    testing::expect_virial_is_box_derivative(pme, r.system, r.state, 1e-6, 2e-6);
  }
}

// OpenMM 8.6.1's CPU platform chooses these meshes (getPMEParametersInContext after an energy
// evaluation, rc = 1 nm: raw 17 -> 18, 25 -> 25, 37 -> 40; over L = 2..8 nm also 26 -> 27, 22 -> 22).
TEST(Pme, MeshSizesAsOpenMM) {
  const double alpha = ewald_alpha(1.0, 5e-4);
  EXPECT_NEAR(alpha, 2.628260884878466, 1e-12);
  EXPECT_EQ(pme_grid(Box::orthorhombic(2.0, 3.0, 4.5), alpha, 5e-4), (std::array<int, 3>{18, 25, 40}));
  EXPECT_EQ(pme_fft_size(37), 40);
  EXPECT_EQ(pme_fft_size(17), 18);
  EXPECT_EQ(pme_fft_size(49), 49);
  EXPECT_EQ(pme_fft_size(26), 27);
  EXPECT_EQ(pme_fft_size(22), 22);
  EXPECT_EQ(pme_fft_size(121), 125);
  EXPECT_EQ(pme_fft_size(62), 63);
  PmeCoulomb pme({.cutoff = 1.0});
  testing::Charges r = random_charges(20, Cell::orthorhombic, 0, 3);
  r.state.box = Box::orthorhombic(2.0, 3.0, 4.5);
  evaluate(pme, r.system, r.state);
  EXPECT_EQ(pme.grid(), (std::array<int, 3>{18, 25, 40}));
}

// Large enough that every stage runs threaded (a 50^3 mesh, 2e5 pairs).
TEST(Pme, SameBitsOnAnyThreadCount) {
  testing::Charges r = random_charges(1400, Cell::triclinic, 0.3, 9);
  PmeCoulomb pme({.cutoff = 0.95, .tolerance = 1e-5});
  testing::expect_same_bits_on_threads(pme, r.system, r.state, 3);
}

// The production path: a ForceField with its cell-list neighbour list (cutoff + skin) gives what
// the brute-force pair list gives.
TEST(Pme, ThroughAForceFieldAndItsNeighbourList) {
  testing::Charges r = random_charges(300, Cell::triclinic, 0.2, 17);
  auto pme = std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 0.85});
  ForceField field(0.1);
  field.add(pme);
  field.check(r.system, r.state);
  const ForceResult& listed = field.compute(r.system, r.state);
  ASSERT_NE(field.neighbors(), nullptr);
  PmeCoulomb reference({.cutoff = 0.85});
  const ForceResult brute = evaluate(reference, r.system, r.state);
  EXPECT_NEAR(listed.energy(), brute.energy(), 1e-12 * std::fabs(brute.energy()));
  for (size_t i = 0; i < brute.forces.size(); ++i)
    EXPECT_LT(norm(listed.forces[i] - brute.forces[i]), 1e-10 * (1 + norm(brute.forces[i])));
}

// Pairs beyond the cutoff are skipped, not added as zeros: a list with a wider reach (a larger
// skin, or one built earlier) gives the same bits as long as the rows keep their order.
TEST(Pme, DirectSumDoesNotDependOnTheListsReach) {
  testing::Charges r = random_charges(400, Cell::orthorhombic, 0.0, 23);
  ErfTable table(3.2, 0.9);
  BrutePairList tight, wide;
  tight.build(r.system, r.state, 0.9);
  wide.build(r.system, r.state, 1.05);
  ASSERT_GT(wide.view().pairs, tight.view().pairs);
  PairAccumulator acc;
  ForceResult a, b;
  a.reset(400);
  b.reset(400);
  const double ea = add_ewald_direct(r.system, r.state, tight.view(), table, acc, a);
  const double eb = add_ewald_direct(r.system, r.state, wide.view(), table, acc, b);
  EXPECT_EQ(ea, eb);
  for (size_t i = 0; i < 400; ++i) EXPECT_EQ(a.forces[i], b.forces[i]);
  EXPECT_EQ(a.virial.m, b.virial.m);
}

TEST(Pme, BadInputIsRefused) {
  EXPECT_THROW(PmeCoulomb({.cutoff = 1, .order = 2}), ValueError);
  EXPECT_THROW(PmeCoulomb({.cutoff = 1, .order = 13}), ValueError);
  EXPECT_THROW(PmeCoulomb({.cutoff = 1, .grid = {4, 32, 32}}), ValueError);
  EXPECT_THROW(PmeCoulomb({.cutoff = 1, .alpha = -2}), ValueError);
  testing::Charges r = random_charges(10, Cell::orthorhombic, 0, 1);
  r.state.box = Box::none();
  PmeCoulomb pme;
  EXPECT_THROW(pme.check(r.system, r.state), ValueError);
}

}  // namespace
}  // namespace spire::sponge
