// Berendsen's weak-coupling thermostat (berendsen.h).
#include "science/sponge/berendsen.h"

#include <algorithm>
#include <cmath>

#include "science/sponge/saved_state.h"

namespace spire::sponge {

BerendsenThermostat::BerendsenThermostat(double temperature, double time_constant)
    : Thermostat("berendsen", temperature, time_constant) {}

double BerendsenThermostat::scale(double kinetic, double interval, int64_t step, int half) {
  check_setup("berendsen");
  if (!(kinetic > 0)) return 1;  // T = 0: nothing to scale
  const double t_ratio = 0.5 * double(dof_) * kT_ / kinetic;  // T0 / T
  const double lambda2 = 1 + (interval / time_constant_) * (t_ratio - 1);
  // GROMACS's bounds keep one step from reversing or exploding the velocities when far from T0.
  const double lambda = std::clamp(std::sqrt(std::max(lambda2, 0.0)), 0.8, 1.25);
  heat_ += (lambda * lambda - 1) * kinetic;
  return lambda;
}

void BerendsenThermostat::save_state(IntegratorState& out) const { out["thermostat.berendsen.heat"] = {heat_}; }

void BerendsenThermostat::load_state(const IntegratorState& in) {
  heat_ = saved_value(in, "thermostat.berendsen.heat");
}

}  // namespace spire::sponge
