// Monte Carlo barostats (monte_carlo_barostat.h), OpenMM's acceptance rule and step adaptation.
#include "science/sponge/monte_carlo_barostat.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/saved_state.h"

namespace spire::sponge {

MonteCarloBarostat::MonteCarloBarostat(double pressure, double temperature, MonteCarloBarostatOptions options)
    : MonteCarloBarostat(Vec3{pressure, pressure, pressure}, {true, true, true}, temperature, options) {
  anisotropic_ = false;
}

MonteCarloBarostat::MonteCarloBarostat(const Vec3& pressure, std::array<bool, 3> scale, double temperature,
                                       MonteCarloBarostatOptions options)
    : Barostat("monte_carlo_barostat", options.frequency, options.scaling),
      anisotropic_(true),
      pressure_(pressure),
      scale_(scale),
      temperature_(temperature),
      random_(options.seed) {
  SPIRE_CHECK(std::isfinite(temperature) && temperature > 0, ValueError, "monte_carlo_barostat: temperature ",
              temperature, " must be finite and > 0");
  for (int k = 0; k < 3; ++k)
    SPIRE_CHECK(std::isfinite(pressure[k]), ValueError, "monte_carlo_barostat: pressure ", pressure[k],
                " must be finite");
  SPIRE_CHECK(scale[0] || scale[1] || scale[2], ValueError,
              "monte_carlo_barostat: no axis to scale; enable at least one of x, y, z");
}

void MonteCarloBarostat::setup(const System& system, const State& state) {
  Barostat::setup(system, state);
  pressure_internal_ = pressure_ * system.units.pressure_unit;
  kT_ = system.units.boltzmann * temperature_;
}

void MonteCarloBarostat::apply(const System& system, State& state, ForceField& forces, const MdIntegrator&) {
  const uint64_t counter = uint64_t(attempts_++);
  double u_volume, u_accept;
  random_.uniforms(RandomTag::monte_carlo_barostat, counter, 0, u_volume, u_accept);
  int axis = 0;
  if (anisotropic_) {
    int enabled[3], count = 0;
    for (int k = 0; k < 3; ++k)
      if (scale_[k]) enabled[count++] = k;
    axis = enabled[philox::bounded(random_.block(RandomTag::monte_carlo_barostat, counter, 1), uint64_t(count))];
  }
  const double volume = state.box.volume();
  double& step = volume_scale_[size_t(axis)];
  if (step == 0) step = 0.01 * volume;
  const double delta_volume = step * 2 * (u_volume - 0.5);
  const double new_volume = volume + delta_volume;
  ++tried_[size_t(axis)];
  // A step sized for an earlier, larger box may reach through zero: such a move is rejected.
  if (new_volume > 0) {
    Mat3 mu = Mat3::identity();
    if (anisotropic_) {
      mu(axis, axis) = new_volume / volume;
    } else {
      const double s = std::cbrt(new_volume / volume);
      mu(0, 0) = mu(1, 1) = mu(2, 2) = s;
    }
    const double energy = forces.result().energy();
    const Box box = state.box;
    saved_positions_ = state.positions;
    scale_positions(box, mu, state.positions);
    state.box = box.scaled(mu);
    const double new_energy = forces.compute(system, state).energy();
    const double w = new_energy - energy + pressure_internal_[axis] * delta_volume -
                     double(group_count()) * kT_ * std::log(new_volume / volume);
    if (w > 0 && u_accept > std::exp(-w / kT_)) {
      state.positions.swap(saved_positions_);
      state.box = box;
      forces.compute(system, state);
    } else {
      ++passed_[size_t(axis)];
      ++accepted_total_;
      work_ += new_energy - energy;
    }
  }
  if (tried_[size_t(axis)] >= 10) {
    // Counts restart only when the step changes (OpenMM's rule), so a rate between 25% and 75%
    // keeps accumulating evidence.
    const double tried = double(tried_[size_t(axis)]), passed = double(passed_[size_t(axis)]);
    if (passed < 0.25 * tried) {
      step /= 1.1;
      tried_[size_t(axis)] = passed_[size_t(axis)] = 0;
    } else if (passed > 0.75 * tried) {
      step = std::min(step * 1.1, 0.3 * state.box.volume());
      tried_[size_t(axis)] = passed_[size_t(axis)] = 0;
    }
  }
}

void MonteCarloBarostat::save_state(IntegratorState& out) const {
  Barostat::save_state(out);
  out["barostat.monte_carlo.attempts"] = {double(attempts_), double(accepted_total_)};
  out["barostat.monte_carlo.volume_scale"] = {volume_scale_.begin(), volume_scale_.end()};
  out["barostat.monte_carlo.adaptation"] = {double(tried_[0]), double(tried_[1]), double(tried_[2]),
                                            double(passed_[0]), double(passed_[1]), double(passed_[2])};
}

void MonteCarloBarostat::load_state(const IntegratorState& in) {
  Barostat::load_state(in);
  const auto& a = saved_values(in, "barostat.monte_carlo.attempts", 2);
  attempts_ = int64_t(a[0]);
  accepted_total_ = int64_t(a[1]);
  const auto& v = saved_values(in, "barostat.monte_carlo.volume_scale", 3);
  std::copy(v.begin(), v.end(), volume_scale_.begin());
  const auto& t = saved_values(in, "barostat.monte_carlo.adaptation", 6);
  for (int k = 0; k < 3; ++k) {
    tried_[size_t(k)] = int64_t(t[size_t(k)]);
    passed_[size_t(k)] = int64_t(t[size_t(k) + 3]);
  }
}

}  // namespace spire::sponge
