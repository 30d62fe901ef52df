// Nose-Hoover chains with MTK's Suzuki-Yoshida propagator (nose_hoover.h).
#include "science/sponge/nose_hoover.h"

#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/saved_state.h"

namespace spire::sponge {

namespace {
std::vector<double> suzuki_yoshida_weights(int order) {
  switch (order) {
    case 1:
      return {1.0};
    case 3: {
      const double w = 1.0 / (2.0 - std::cbrt(2.0));
      return {w, 1.0 - 2.0 * w, w};
    }
    case 5: {
      const double w = 1.0 / (4.0 - std::cbrt(4.0));
      return {w, w, 1.0 - 4.0 * w, w, w};
    }
    case 7: {
      // Yoshida (Phys. Lett. A 150, 262, 1990), solution A, as tabulated by MTK (1996).
      const double w1 = 0.784513610477560, w2 = 0.235573213359357, w3 = -1.17767998417887;
      const double w0 = 1.0 - 2.0 * (w1 + w2 + w3);
      return {w1, w2, w3, w0, w3, w2, w1};
    }
    default:
      throw ValueError(detail::cat("nose_hoover: suzuki_yoshida = ", order, " is not an allowed order (1, 3, 5 or 7)"));
  }
}
}  // namespace

NoseHooverChain::NoseHooverChain(double temperature, double period, NoseHooverOptions options)
    : Thermostat("nose_hoover", temperature, period), options_(options) {
  SPIRE_CHECK(options.chain_length >= 1, ValueError, "nose_hoover: chain_length = ", options.chain_length,
              " must be >= 1");
  SPIRE_CHECK(options.multiple_steps >= 1, ValueError, "nose_hoover: multiple_steps = ", options.multiple_steps,
              " must be >= 1");
  weights_ = suzuki_yoshida_weights(options.suzuki_yoshida);
  xi_.assign(size_t(options.chain_length), 0.0);
  v_xi_.assign(size_t(options.chain_length), 0.0);
  q_.assign(size_t(options.chain_length), 0.0);
}

void NoseHooverChain::setup(int64_t degrees_of_freedom, double boltzmann) {
  Thermostat::setup(degrees_of_freedom, boltzmann);
  const double tau2 = time_constant_ * time_constant_;
  for (size_t j = 0; j < q_.size(); ++j) q_[j] = (j == 0 ? double(dof_) : 1.0) * kT_ * tau2;
}

double NoseHooverChain::chain_force(int j, double twice_kinetic) const {
  if (j == 0) return (twice_kinetic - double(dof_) * kT_) / q_[0];
  return (q_[j - 1] * v_xi_[j - 1] * v_xi_[j - 1] - kT_) / q_[j];
}

double NoseHooverChain::scale(double kinetic, double interval, int64_t step, int half) {
  check_setup("nose_hoover");
  const int m = options_.chain_length;
  double factor = 1, k2 = 2 * kinetic;
  for (int c = 0; c < options_.multiple_steps; ++c)
    for (double w : weights_) {
      const double delta = w * interval / options_.multiple_steps;
      // From the chain's end down to the particles: each v_j is kicked by its force between two
      // damping factors from v_{j+1} (the exponential splitting of MTK's eq. 30).
      v_xi_[m - 1] += 0.5 * delta * chain_force(m - 1, k2);
      for (int j = m - 2; j >= 0; --j) {
        const double a = std::exp(-0.25 * delta * v_xi_[j + 1]);
        v_xi_[j] = (v_xi_[j] * a + 0.5 * delta * chain_force(j, k2)) * a;
      }
      const double s = std::exp(-delta * v_xi_[0]);
      factor *= s;
      k2 *= s * s;
      for (int j = 0; j < m; ++j) xi_[j] += delta * v_xi_[j];
      for (int j = 0; j < m - 1; ++j) {
        const double a = std::exp(-0.25 * delta * v_xi_[j + 1]);
        v_xi_[j] = (v_xi_[j] * a + 0.5 * delta * chain_force(j, k2)) * a;
      }
      v_xi_[m - 1] += 0.5 * delta * chain_force(m - 1, k2);
    }
  return factor;
}

double NoseHooverChain::conserved_energy() const {
  double e = 0;
  for (size_t j = 0; j < q_.size(); ++j) {
    e += 0.5 * q_[j] * v_xi_[j] * v_xi_[j];
    e += (j == 0 ? double(dof_) : 1.0) * kT_ * xi_[j];
  }
  return e;
}

void NoseHooverChain::save_state(IntegratorState& out) const {
  out["thermostat.nose_hoover.xi"] = xi_;
  out["thermostat.nose_hoover.v_xi"] = v_xi_;
}

void NoseHooverChain::load_state(const IntegratorState& in) {
  xi_ = saved_values(in, "thermostat.nose_hoover.xi", xi_.size());
  v_xi_ = saved_values(in, "thermostat.nose_hoover.v_xi", v_xi_.size());
}

}  // namespace spire::sponge
