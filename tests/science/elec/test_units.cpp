// UnitScale (units.h) against SI values worked by hand: with a = 1 um, frequency 1 c/a is
// c / 1 um = 299.792458 THz (vacuum wavelength 1 um), time 1 a/c = 3.33564 fs.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "science/elec/units.h"

namespace spire::elec {
namespace {

TEST(UnitScale, ConvertsBetweenNormalisedAndSi) {
  const UnitScale um(1e-6);
  EXPECT_DOUBLE_EQ(um.frequency_to_si(1.0), 299792458e6);
  EXPECT_NEAR(um.frequency_from_si(193.4e12), 0.6451, 1e-4);  // 1550 nm telecom
  EXPECT_NEAR(um.wavelength_to_si(1 / 1.55), 1.55e-6, 1e-20);
  EXPECT_NEAR(um.frequency_from_wavelength_si(1.55e-6), 1 / 1.55, 1e-15);
  EXPECT_NEAR(um.time_to_si(1.0), 3.3356409519815204e-15, 1e-28);
  EXPECT_NEAR(um.time_from_si(um.time_to_si(42.0)), 42.0, 1e-12);
  EXPECT_DOUBLE_EQ(um.length_to_si(2.5), 2.5e-6);
  EXPECT_DOUBLE_EQ(um.length_from_si(2.5e-6), 2.5);
  // sigma in eps0 c / a: 1 for a = 1 um is 8.854e-12 * 2.998e8 / 1e-6 = 2654.4 S/m.
  EXPECT_NEAR(um.conductivity_to_si(1.0), 2654.4187, 1e-3);
  EXPECT_NEAR(um.conductivity_from_si(um.conductivity_to_si(0.37)), 0.37, 1e-14);
  // sqrt(mu0 / eps0) is the vacuum impedance.
  EXPECT_NEAR(std::sqrt(si::kVacuumPermeability / si::kVacuumPermittivity), si::kVacuumImpedance, 1e-6);
}

TEST(UnitScale, RejectsBadValues) {
  EXPECT_THROW(UnitScale(0), ValueError);
  EXPECT_THROW(UnitScale(-1e-6), ValueError);
  const UnitScale mm(1e-3);
  EXPECT_THROW(mm.wavelength_to_si(0), ValueError);
  EXPECT_THROW(mm.frequency_from_wavelength_si(-1), ValueError);
}

}  // namespace
}  // namespace spire::elec
