// YeeLattice (yee.h): dimensions, rounding to whole cells, carried components, storage order and
// the staggered positions of every component (Yee 1966, Meep's layout).
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "science/elec/yee.h"

namespace spire::elec {
namespace {

TEST(YeeLattice, ParsesDimensionsAndNamesTheAllowedOnes) {
  EXPECT_EQ(parse_dimensions("1d"), Dimensions::one);
  EXPECT_EQ(parse_dimensions("TM"), Dimensions::two_tm);
  EXPECT_EQ(parse_dimensions("2d_te"), Dimensions::two_te);
  EXPECT_EQ(parse_dimensions("3d"), Dimensions::three);
  try {
    parse_dimensions("4d");
    FAIL();
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("4d"), std::string::npos);
    EXPECT_NE(m.find("2d_tm"), std::string::npos);
  }
  for (Dimensions d : {Dimensions::one, Dimensions::two_tm, Dimensions::two_te, Dimensions::three})
    EXPECT_EQ(parse_dimensions(to_string(d)), d);
  EXPECT_EQ(to_string(Component::Hy), "Hy");
}

TEST(YeeLattice, RoundsExtentsToWholeCellsAndCarriesTheRightComponents) {
  YeeLattice three(Dimensions::three, {1.04, 0.66, 0.01}, 10);
  EXPECT_EQ(three.n(0), 10);
  EXPECT_EQ(three.n(1), 7);
  EXPECT_EQ(three.n(2), 1);  // at least one cell
  EXPECT_EQ(three.samples(), 70);
  EXPECT_DOUBLE_EQ(three.size().y, 0.7);
  EXPECT_EQ(three.components().size(), 6u);

  YeeLattice tm(Dimensions::two_tm, {2.0, 1.0, 5.0}, 4);  // z ignored
  EXPECT_EQ(tm.shape(), (std::array<int64_t, 3>{8, 4, 1}));
  EXPECT_FALSE(tm.has_axis(2));
  EXPECT_EQ(tm.size().z, 0);
  EXPECT_EQ(tm.components(), (std::vector<Component>{Component::Ez, Component::Hx, Component::Hy}));
  EXPECT_FALSE(tm.has(Component::Ex));

  YeeLattice te(Dimensions::two_te, {1.0, 1.0, 0}, 4);
  EXPECT_EQ(te.components(), (std::vector<Component>{Component::Ex, Component::Ey, Component::Hz}));
  YeeLattice one(Dimensions::one, {0, 0, 3.0}, 10);
  EXPECT_EQ(one.shape(), (std::array<int64_t, 3>{1, 1, 30}));
  EXPECT_EQ(one.components(), (std::vector<Component>{Component::Ex, Component::Hy}));

  EXPECT_THROW(YeeLattice(Dimensions::three, {1, 0, 1}, 10), ValueError);
  EXPECT_THROW(YeeLattice(Dimensions::one, {0, 0, 1}, 0), ValueError);
  EXPECT_THROW(YeeLattice(Dimensions::one, {0, 0, 1}, -2), ValueError);
  EXPECT_NO_THROW(YeeLattice(Dimensions::one, {0, 0, 1}, 10));  // x, y ignored in 1D
}

TEST(YeeLattice, StaggersComponentsAsYee) {
  YeeLattice L(Dimensions::three, {1.0, 2.0, 3.0}, 10);
  // z fastest.
  EXPECT_EQ(L.index(1, 2, 3), (1 * 20 + 2) * 30 + 3);
  const double dx = 0.1;
  // E_c half a cell along its own axis, H_c along the two others; cell origin at -size/2.
  const Vec3 ex = L.position(Component::Ex, 0, 0, 0), hy = L.position(Component::Hy, 2, 3, 4);
  EXPECT_DOUBLE_EQ(ex.x, -0.5 + 0.5 * dx);
  EXPECT_DOUBLE_EQ(ex.y, -1.0);
  EXPECT_DOUBLE_EQ(ex.z, -1.5);
  EXPECT_DOUBLE_EQ(hy.x, -0.5 + 2.5 * dx);
  EXPECT_DOUBLE_EQ(hy.y, -1.0 + 3 * dx);
  EXPECT_DOUBLE_EQ(hy.z, -1.5 + 4.5 * dx);
  EXPECT_EQ(L.offset(Component::Ez).z, 0.5);
  EXPECT_EQ(L.offset(Component::Hz).z, 0.0);
  EXPECT_EQ(L.offset(Component::Hz).x, 0.5);

  // 2D TM: Ez on the integer lattice, Hx at (i, j+1/2), Hy at (i+1/2, j); no z offset.
  YeeLattice tm(Dimensions::two_tm, {1.0, 1.0, 0}, 10);
  EXPECT_EQ(tm.offset(Component::Ez).x, 0.0);
  EXPECT_EQ(tm.offset(Component::Ez).z, 0.0);
  EXPECT_EQ(tm.offset(Component::Hx).y, 0.5);
  EXPECT_EQ(tm.offset(Component::Hx).z, 0.0);
  EXPECT_EQ(tm.offset(Component::Hy).x, 0.5);
  EXPECT_EQ(tm.position(Component::Ez, 3, 4, 0).z, 0.0);
  // 1D along z: Ex at integer z, Hy at half-integer.
  YeeLattice one(Dimensions::one, {0, 0, 1.0}, 10);
  EXPECT_EQ(one.offset(Component::Ex).z, 0.0);
  EXPECT_EQ(one.offset(Component::Ex).x, 0.0);
  EXPECT_EQ(one.offset(Component::Hy).z, 0.5);
}

}  // namespace
}  // namespace spire::elec
