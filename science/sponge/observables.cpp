// Kinetic energy, temperature and pressure of a state (observables.h).
#include "science/sponge/observables.h"

#include <limits>

#include "engine/core/error.h"

namespace spire::sponge {

Mat3 kinetic_tensor(const System& system, const std::vector<Vec3>& velocities) {
  SPIRE_CHECK(int64_t(velocities.size()) == system.size(), ValueError, "kinetic_tensor: ", velocities.size(),
              " velocities for a system of ", system.size(), " particles");
  // Six independent components accumulated in particle order: the same bits whatever the caller.
  double xx = 0, yy = 0, zz = 0, xy = 0, xz = 0, yz = 0;
  for (size_t i = 0; i < velocities.size(); ++i) {
    const double m = system.mass[i];
    if (m == 0) continue;
    const Vec3& v = velocities[i];
    xx += m * v.x * v.x;
    yy += m * v.y * v.y;
    zz += m * v.z * v.z;
    xy += m * v.x * v.y;
    xz += m * v.x * v.z;
    yz += m * v.y * v.z;
  }
  Mat3 k;
  k(0, 0) = xx, k(1, 1) = yy, k(2, 2) = zz;
  k(0, 1) = k(1, 0) = xy;
  k(0, 2) = k(2, 0) = xz;
  k(1, 2) = k(2, 1) = yz;
  return k;
}

double temperature(const System& system, double kinetic_energy, int64_t degrees_of_freedom) {
  if (degrees_of_freedom <= 0) return 0;
  return 2 * kinetic_energy / (double(degrees_of_freedom) * system.units.boltzmann);
}

Observables compute_observables(const System& system, const State& state, const ForceResult& forces,
                                bool remove_com_motion, const Mat3& extra_virial) {
  SPIRE_CHECK(int64_t(state.positions.size()) == system.size(), ValueError, "observables: the state has ",
              state.positions.size(), " positions for a system of ", system.size(), " particles");
  Observables o;
  o.kinetic_tensor = kinetic_tensor(system, state.velocities);
  o.kinetic_energy = 0.5 * o.kinetic_tensor.trace();
  o.potential_energy = forces.energy();
  o.degrees_of_freedom = system.degrees_of_freedom(remove_com_motion);
  o.temperature = temperature(system, o.kinetic_energy, o.degrees_of_freedom);
  o.conserved_energy = std::numeric_limits<double>::quiet_NaN();
  if (state.box.periodic()) {
    o.volume = state.box.volume();
    o.pressure_tensor = (o.kinetic_tensor + forces.virial + extra_virial) * (1 / (o.volume * system.units.pressure_unit));
    o.pressure = o.pressure_tensor.trace() / 3;
  } else {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    o.volume = nan;
    o.pressure = nan;
    o.pressure_tensor.m.fill(nan);
  }
  return o;
}

}  // namespace spire::sponge
