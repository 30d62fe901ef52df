// The Integrator contract's defaults (integrator.h).
#include "science/sponge/integrator.h"

#include <cmath>
#include <limits>

#include "engine/core/error.h"

namespace spire::sponge {

Integrator::Integrator(double dt) : dt_(dt) {
  SPIRE_CHECK(std::isfinite(dt) && dt > 0, ValueError, "integrator: time step ", dt,
              " must be finite and > 0 (in the system's time unit: ps in md, tau in lj)");
}

double Integrator::conserved_energy(const System&, const State&, const ForceField&) const {
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace spire::sponge
