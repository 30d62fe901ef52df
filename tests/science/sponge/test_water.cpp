// Water models and boxes. Parameters against their published sources, re-derived here:
// TIP3P's sigma and epsilon from OpenMM's CHARMM-style R_min/2 = 1.7683 A and 0.152 kcal/mol,
// SPC/E's from Berendsen et al.'s A and B (to GROMACS's rounding), the dipole moments (SPC/E
// 2.35 D, Berendsen et al. 1987; TIP3P 2.35 D, Jorgensen et al. 1983). Boxes: density from the
// total mass and volume, rigid geometry of every molecule, no clash (brute force over all pairs),
// topology, determinism under the seed.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/sponge/water.h"

namespace spire::sponge {
namespace {

constexpr double kDebyePerENm = 48.0320471;  // 1 e nm = 1.602176634e-28 C m / 3.33564095e-30 C m

TEST(WaterModel, Tip3pFromOpenMM) {
  WaterModel m = WaterModel::tip3p();
  EXPECT_NEAR(m.sigma_o, 2 * 0.17683 / std::pow(2.0, 1.0 / 6), 1e-16);
  EXPECT_NEAR(m.epsilon_o, 0.152 * constants::kKcal, 1e-15);
  EXPECT_EQ(m.charge_o + 2 * m.charge_h, 0);
  EXPECT_NEAR(m.theta_hoh, 1.82421813418, 1e-11);  // tip3p.xml's angle in radians
  EXPECT_NEAR(m.dipole() * kDebyePerENm, 2.35, 0.005);
  EXPECT_NEAR(m.molar_mass(), 18.015324, 1e-12);
}

TEST(WaterModel, SpceFromBerendsen) {
  WaterModel m = WaterModel::spce();
  const double a = 0.37122, b = 0.3428;  // (kJ/mol)^(1/6) nm and (kJ/mol)^(1/12) nm
  EXPECT_NEAR(m.sigma_o, b * b / a, 2e-6);
  EXPECT_NEAR(m.epsilon_o, std::pow(a / b, 12) / 4, 5e-5);
  EXPECT_NEAR(m.charge_o + 2 * m.charge_h, 0, 1e-16);
  EXPECT_NEAR(m.theta_hoh, 1.91061193216, 1e-11);  // 109.47 degrees
  // GROMACS's spce.itp settles d_HH = 0.16330 (rounded).
  EXPECT_NEAR(m.d_hh(), 0.16330, 5e-6);
  EXPECT_NEAR(m.dipole() * kDebyePerENm, 2.35, 0.005);
  EXPECT_EQ(WaterModel::by_name("SPC/E").name, "spce");
  EXPECT_EQ(WaterModel::by_name("tip3p").name, "tip3p");
  EXPECT_THROW(WaterModel::by_name("tip4p"), ConfigError);
}

void check_box(const WaterModel& model, int64_t molecules, double density, double clash = 0.18) {
  WaterBoxOptions opt;
  opt.clash_distance = clash;
  opt.molecules = molecules;
  opt.density = density;
  opt.seed = 42;
  WaterBox w = water_box(model, opt);
  const System& s = w.system;
  const State& st = w.state;
  ASSERT_NO_THROW(s.check());
  ASSERT_EQ(s.size(), 3 * molecules);
  ASSERT_EQ(st.positions.size(), size_t(3 * molecules));
  // Density: total mass (amu -> g) over the volume (nm^3 -> cm^3).
  double mass = 0, charge = 0;
  for (int64_t i = 0; i < s.size(); ++i) mass += s.mass[i], charge += s.charge[i];
  double grams = mass / constants::kAvogadro, cm3 = st.box.volume() * 1e-21;
  EXPECT_NEAR(grams / cm3, density, 1e-12 * density);
  EXPECT_NEAR(charge, 0, 1e-10);
  EXPECT_TRUE(st.box.orthorhombic());
  // Topology: one rigid water per molecule, three exclusions each, nothing else.
  EXPECT_EQ(s.topology.waters.size(), size_t(molecules));
  EXPECT_EQ(s.topology.exclusions.size(), size_t(3 * molecules));
  EXPECT_TRUE(s.topology.constraints.empty());
  EXPECT_TRUE(s.topology.bonds.empty());
  EXPECT_EQ(s.degrees_of_freedom(true), 6 * molecules - 3);
  EXPECT_EQ(s.type_names, (std::vector<std::string>{"OW", "HW"}));
  EXPECT_EQ(s.atom_name[3], "OW");
  EXPECT_EQ(s.atom_name[5], "HW2");
  EXPECT_EQ(s.residue_name[4], "HOH");
  EXPECT_EQ(s.residue_id[4], 2);
  double closest = 1e9;
  for (size_t k = 0; k < s.topology.waters.size(); ++k) {
    const RigidWater& rw = s.topology.waters[k];
    EXPECT_EQ(rw.o, int(3 * k));
    EXPECT_NEAR(norm(st.positions[rw.h1] - st.positions[rw.o]), model.r_oh, 1e-14);
    EXPECT_NEAR(norm(st.positions[rw.h2] - st.positions[rw.o]), model.r_oh, 1e-14);
    EXPECT_NEAR(norm(st.positions[rw.h2] - st.positions[rw.h1]), rw.d_hh, 1e-14);
    EXPECT_NEAR(rw.d_hh, model.d_hh(), 1e-15);
    Vec3 s_o = st.box.to_fractional(st.positions[rw.o]);
    for (int c = 0; c < 3; ++c) EXPECT_TRUE(s_o[c] >= 0 && s_o[c] < 1);
    for (size_t l = 0; l < k; ++l)
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          closest = std::min(closest, norm(st.box.min_image(st.positions[3 * l + b] - st.positions[3 * k + a])));
  }
  EXPECT_GE(closest, opt.clash_distance) << model.name << " " << molecules;
}

TEST(WaterBox, SpceCube) { check_box(WaterModel::spce(), 216, 0.997, 0.2); }
TEST(WaterBox, Tip3pNotACube) { check_box(WaterModel::tip3p(), 100, 1.0); }
TEST(WaterBox, Small) { check_box(WaterModel::spce(), 8, 0.997); }

TEST(WaterBox, Deterministic) {
  WaterBoxOptions opt;
  opt.molecules = 27;
  WaterBox a = water_box(WaterModel::spce(), opt), b = water_box(WaterModel::spce(), opt);
  EXPECT_EQ(a.state.positions, b.state.positions);
  opt.seed = 2;
  WaterBox c = water_box(WaterModel::spce(), opt);
  EXPECT_NE(a.state.positions, c.state.positions);
  EXPECT_EQ(a.state.box, c.state.box);
  opt.molecules = 0;
  EXPECT_THROW(water_box(WaterModel::spce(), opt), ValueError);
  opt.molecules = 10;
  opt.density = -1;
  EXPECT_THROW(water_box(WaterModel::spce(), opt), ValueError);
}

}  // namespace
}  // namespace spire::sponge
