// The DFT of the current a source injects, accumulated during the run as the field DFTs are (dft.h):
//   I(f) = sum_n J(t_n + dt/2) exp(i 2 pi f (t_n + dt/2)) dt,
// J the profile's current over the E step from t_n to t_n + dt, centred in its interval (the
// current time_profile.h's current(t_mid, dt) gives that step). The radiation tests compare the
// flux of a dipole or line current with the analytic power of this current.
#pragma once
#include <complex>
#include <memory>
#include <numbers>
#include <vector>

#include "science/elec/simulation.h"
#include "science/elec/time_profile.h"

namespace spire::elec::testing {

class CurrentDft {
 public:
  // Registers a step callback on sim: create it before running, keep it alive while sim runs.
  CurrentDft(Simulation& sim, std::shared_ptr<const TimeProfile> profile, std::vector<double> frequencies)
      : profile_(std::move(profile)), frequencies_(std::move(frequencies)), values_(frequencies_.size()) {
    sim.add_step_callback(1, [this](Simulation& s) {
      const double dt = s.dt(), t_mid = s.time() - dt / 2;  // the E step just taken
      const double j = profile_->current(t_mid, dt).real();
      for (size_t i = 0; i < frequencies_.size(); ++i)
        values_[i] += j * std::exp(std::complex<double>(0, 2 * std::numbers::pi * frequencies_[i] * t_mid)) * dt;
    });
  }
  CurrentDft(const CurrentDft&) = delete;  // the callback holds this
  CurrentDft& operator=(const CurrentDft&) = delete;

  const std::vector<std::complex<double>>& values() const { return values_; }

 private:
  std::shared_ptr<const TimeProfile> profile_;
  std::vector<double> frequencies_;
  std::vector<std::complex<double>> values_;
};

}  // namespace spire::elec::testing
