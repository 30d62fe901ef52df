// Unit systems: the md constants against CODATA 2018's exact and recommended SI values (computed
// here from SI, not copied), and the lj system's unit values.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/sponge/units.h"

namespace spire::sponge {
namespace {

// CODATA 2018 (NIST SP 961): k_B, N_A and e are exact since the 2019 SI; eps0 is measured.
constexpr double kB_SI = 1.380649e-23;        // J/K
constexpr double kNA_SI = 6.02214076e23;      // 1/mol
constexpr double kE_SI = 1.602176634e-19;     // C
constexpr double kEps0_SI = 8.8541878128e-12; // F/m

TEST(Units, MdConstantsFromSI) {
  // k_B N_A in kJ/(mol K).
  EXPECT_NEAR(constants::kBoltzmann, kB_SI * kNA_SI / 1e3, 1e-16);
  EXPECT_EQ(constants::kAvogadro, kNA_SI);
  // e^2 N_A / (4 pi eps0) in kJ nm/mol: J m -> kJ nm is 1e9 / 1e3.
  double coulomb = kE_SI * kE_SI * kNA_SI / (4 * std::numbers::pi * kEps0_SI) * 1e9 / 1e3;
  EXPECT_NEAR(constants::kCoulomb / coulomb, 1.0, 1e-10);
  // 1 bar = 1e5 Pa = 1e5 J/m^3 = 1e-22 J/nm^3, times N_A, in kJ.
  EXPECT_NEAR(constants::kBar, 1e5 * 1e-27 * kNA_SI / 1e3, 1e-17);
  EXPECT_EQ(constants::kKcal, 4.184);
  EXPECT_EQ(constants::kAngstrom, 0.1);
}

TEST(Units, MdSystem) {
  Units u = Units::md();
  EXPECT_EQ(u.name, "md");
  EXPECT_EQ(u.boltzmann, constants::kBoltzmann);
  EXPECT_EQ(u.coulomb, constants::kCoulomb);
  EXPECT_EQ(u.pressure_unit, constants::kBar);
  EXPECT_EQ(u.length, "nm");
  EXPECT_EQ(u.time, "ps");
  EXPECT_EQ(u.energy, "kJ/mol");
  EXPECT_EQ(u.mass, "amu");
  EXPECT_EQ(u.charge, "e");
  EXPECT_EQ(u.temperature, "K");
  EXPECT_EQ(u.pressure, "bar");
  // Thermal energy at 300 K: 2.494 kJ/mol (the textbook RT).
  EXPECT_NEAR(u.boltzmann * 300, 2.4943387854459718, 1e-14);
}

TEST(Units, LjSystem) {
  Units u = Units::lj();
  EXPECT_EQ(u.name, "lj");
  EXPECT_EQ(u.boltzmann, 1);
  EXPECT_EQ(u.coulomb, 1);
  EXPECT_EQ(u.pressure_unit, 1);
  EXPECT_EQ(u.length, "sigma");
  EXPECT_EQ(u.energy, "epsilon");
}

TEST(Units, ByName) {
  EXPECT_EQ(Units::by_name("md").name, "md");
  EXPECT_EQ(Units::by_name("lj").name, "lj");
  try {
    Units::by_name("real");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("'real'"), std::string::npos) << m;
    EXPECT_NE(m.find("md"), std::string::npos) << m;
    EXPECT_NE(m.find("lj"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace spire::sponge
