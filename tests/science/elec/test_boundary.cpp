// Boundaries (boundary.h): Meep's defaults, thickness in a or cells, Bloch phases, and the
// combinations the shared wall sample rules out, each rejected with its axis named.
#include <gtest/gtest.h>

#include <numbers>

#include "engine/core/error.h"
#include "science/elec/boundary.h"

namespace spire::elec {
namespace {

TEST(Boundaries, DefaultsAndResolution) {
  YeeLattice L(Dimensions::three, {2.0, 1.5, 1.0}, 10);
  const ResolvedBoundaries pec = resolve(Boundaries(), L);
  for (int a = 0; a < 3; ++a) {
    EXPECT_TRUE(pec.axis[size_t(a)].active);
    EXPECT_EQ(pec.axis[size_t(a)].wall, Wall::pec);
    EXPECT_EQ(pec.axis[size_t(a)].pml_low, 0);
  }
  EXPECT_FALSE(pec.has_pml());
  EXPECT_FALSE(pec.complex_fields());

  Boundaries b = Boundaries::pml(0.34);  // 3.4 cells -> 3
  b.set_pmc(1).set_bloch(2, 0.25);
  b.set(0, Side::high, BoundarySide{BoundaryKind::pml, 0, 5});
  const ResolvedBoundaries r = resolve(b, L);
  EXPECT_EQ(r.axis[0].pml_low, 3);
  EXPECT_EQ(r.axis[0].pml_high, 5);
  EXPECT_EQ(r.axis[0].wall, Wall::pec);  // a pml is backed by a metallic wall
  EXPECT_EQ(r.axis[1].wall, Wall::pmc);
  EXPECT_EQ(r.axis[2].wall, Wall::periodic);
  EXPECT_TRUE(r.axis[2].bloch);
  EXPECT_DOUBLE_EQ(r.axis[2].phase, 2 * std::numbers::pi * 0.25 * 1.0);
  EXPECT_TRUE(r.complex_fields());
  EXPECT_TRUE(r.has_pml());

  // A pml facing a pmc wall on the other side is backed by that pmc wall.
  Boundaries mixed;
  mixed.set(1, Side::low, BoundarySide{BoundaryKind::pml, 0, 4}).set(1, Side::high, BoundarySide{BoundaryKind::pmc});
  EXPECT_EQ(resolve(mixed, L).axis[1].wall, Wall::pmc);

  // Axes a problem lacks are ignored.
  YeeLattice tm(Dimensions::two_tm, {1, 1, 0}, 10);
  Boundaries only_z;
  only_z.set(2, Side::low, BoundarySide{BoundaryKind::periodic});
  EXPECT_FALSE(resolve(only_z, tm).axis[2].active);
}

TEST(Boundaries, RejectsCombinationsTheLatticeCannotHold) {
  YeeLattice L(Dimensions::three, {1.0, 1.0, 1.0}, 10);
  Boundaries one_sided;
  one_sided.set(0, Side::low, BoundarySide{BoundaryKind::periodic});
  try {
    resolve(one_sided, L);
    FAIL();
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("along x"), std::string::npos) << m;
    EXPECT_NE(m.find("both sides"), std::string::npos) << m;
  }
  Boundaries pec_pmc;
  pec_pmc.set(1, Side::low, BoundarySide{BoundaryKind::pec}).set(1, Side::high, BoundarySide{BoundaryKind::pmc});
  EXPECT_THROW(resolve(pec_pmc, L), ConfigError);
  EXPECT_THROW(resolve(Boundaries::pml_cells(5), L), ValueError);  // 5 + 5 cells of 10
  Boundaries bad_profile = Boundaries::pml_cells(2);
  bad_profile.pml_profile.reflection = 2;
  EXPECT_THROW(resolve(bad_profile, L), ValueError);
  EXPECT_THROW(Boundaries().set_pml(0, -1.0), ValueError);
  EXPECT_THROW(Boundaries().set_pml_cells(3, 2), ValueError);
  EXPECT_EQ(parse_boundary_kind("Metallic"), BoundaryKind::pec);
  EXPECT_EQ(parse_boundary_kind("bloch"), BoundaryKind::bloch);
  EXPECT_THROW(parse_boundary_kind("absorbing"), ConfigError);
}

}  // namespace
}  // namespace spire::elec
