// The parts every velocity-scaling thermostat shares (thermostat.h).
#include "science/sponge/thermostat.h"

#include <cmath>

#include "engine/core/error.h"

namespace spire::sponge {

Thermostat::Thermostat(const char* who, double temperature, double time_constant)
    : temperature_(temperature), time_constant_(time_constant) {
  SPIRE_CHECK(std::isfinite(temperature) && temperature > 0, ValueError, who, ": temperature ", temperature,
              " must be finite and > 0");
  SPIRE_CHECK(std::isfinite(time_constant) && time_constant > 0, ValueError, who, ": time constant ",
              time_constant, " must be finite and > 0 (in the system's time unit)");
}

void Thermostat::setup(int64_t degrees_of_freedom, double boltzmann) {
  SPIRE_CHECK(degrees_of_freedom > 0, ValueError, name(), ": the system has ", degrees_of_freedom,
              " degrees of freedom; a thermostat needs at least one");
  SPIRE_CHECK(std::isfinite(boltzmann) && boltzmann > 0, ValueError, name(), ": k_B = ", boltzmann,
              " must be > 0");
  dof_ = degrees_of_freedom;
  kT_ = boltzmann * temperature_;
}

void Thermostat::check_setup(const char* who) const {
  SPIRE_CHECK(dof_ > 0, ValueError, who,
              ": used before setup(); an integrator calls it from prepare() with the system's degrees of freedom");
}

}  // namespace spire::sponge
