// BAOAB Langevin dynamics (langevin.h).
#include "science/sponge/langevin.h"

#include <cmath>

#include "engine/core/error.h"

namespace spire::sponge {

LangevinMiddle::LangevinMiddle(double dt, double temperature, double friction, uint64_t seed, DynamicsOptions options)
    : MdIntegrator(dt, options), temperature_(temperature), friction_(friction), random_(seed) {
  SPIRE_CHECK(std::isfinite(temperature) && temperature > 0, ValueError, "langevin_middle: temperature ",
              temperature, " must be finite and > 0");
  SPIRE_CHECK(std::isfinite(friction) && friction >= 0, ValueError, "langevin_middle: friction ", friction,
              " must be finite and >= 0 (1 / time unit)");
}

void LangevinMiddle::advance(const System& system, State& state, ForceField& forces) {
  const int64_t n = system.size();
  const double h = 0.5 * dt_;
  kick(system, state, forces, h);
  if (!constraints_.empty()) {
    // The kicked velocities projected onto the constraints before the O step, as OpenMM's
    // LangevinMiddleIntegrator does: friction and noise then act on the motion the constraints
    // allow only, so the middle kinetic energy and the heat are the constrained system's (without
    // it they count the velocity along rigid bonds that SHAKE removes later: 11% too hot for SPC/E
    // at 2 fs, and a conserved quantity that drifts). The impulse removed is the first half step's
    // constraint force.
    constraints_.constrain_velocities(state.box, state.positions, state.velocities, &kick_projection_virial_, h);
    reference_ = state.positions;
  }
  drift(system, state, h);

  if (friction_ > 0) {
    const double a = std::exp(-friction_ * dt_);
    const double kt = system.units.boltzmann * temperature_;
    const double b2 = -std::expm1(-2 * friction_ * dt_);  // 1 - a^2 without cancellation
    noise_.resize(size_t(n));
    const uint64_t step = uint64_t(state.step);
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int64_t i = 0; i < n; ++i) {
      const double m = system.mass[size_t(i)];
      noise_[size_t(i)] = m > 0 ? std::sqrt(b2 * kt / m) * random_.normal3(RandomTag::langevin, step, uint64_t(i))
                                : Vec3{};
    }
    // The noise in the constraints' tangent space (the mass-weighted projection keeps its
    // covariance k_B T (1 - a^2) / m there).
    if (!constraints_.empty()) constraints_.constrain_velocities(state.box, reference_, noise_, nullptr, 1);
    const double before = kinetic_energy(system, state.velocities);
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int64_t i = 0; i < n; ++i)
      if (system.mass[size_t(i)] > 0) state.velocities[size_t(i)] = a * state.velocities[size_t(i)] + noise_[size_t(i)];
    middle_kinetic_ = kinetic_energy(system, state.velocities);
    heat_ += middle_kinetic_ - before;
  } else {
    middle_kinetic_ = kinetic_energy(system, state.velocities);
  }

  drift(system, state, h);
  finish_step(system, state, forces);
}

}  // namespace spire::sponge
