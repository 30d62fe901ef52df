// UnitScale (units.h): the checks that keep a conversion from silently producing inf or nan.
#include "science/elec/units.h"

#include <cmath>

#include "engine/core/error.h"

namespace spire::elec {

UnitScale::UnitScale(double a_metres) : a_(a_metres) {
  SPIRE_CHECK(std::isfinite(a_metres) && a_metres > 0, ValueError,
              "UnitScale: the length unit a must be a finite length > 0 in metres, got ", a_metres);
}

double UnitScale::wavelength_to_si(double f) const {
  SPIRE_CHECK(std::isfinite(f) && f > 0, ValueError,
              "UnitScale::wavelength_to_si: frequency must be finite and > 0 (in c/a), got ", f);
  return a_ / f;
}

double UnitScale::frequency_from_wavelength_si(double metres) const {
  SPIRE_CHECK(std::isfinite(metres) && metres > 0, ValueError,
              "UnitScale::frequency_from_wavelength_si: wavelength must be finite and > 0 (metres), got ", metres);
  return a_ / metres;
}

}  // namespace spire::elec
