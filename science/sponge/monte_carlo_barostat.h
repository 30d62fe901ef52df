// Monte Carlo barostats as OpenMM's MonteCarloBarostat (isotropic) and
// MonteCarloAnisotropicBarostat (Chow and Ferguson 1995; Aqvist et al. 2004). Every `frequency`
// steps one trial move of the volume, uniform in Delta V within +-volume_scale:
//   isotropic:   every box vector scaled by (V'/V)^(1/3);
//   anisotropic: one axis chosen at random among those enabled, its coordinate scaled by V'/V;
// positions scaled with the box (per molecule or per atom, barostat.h), the energy recomputed, and
// the move accepted with probability min(1, exp(-w / k_B T)) where
//   w = Delta U + P Delta V - N k_B T ln(V'/V),
// N the number of independently scaled groups and P the target pressure (of the chosen axis).
// This samples exp(-(U + P V) / k_B T) V^N: for an ideal gas <V> = (N + 1) k_B T / P. A rejected
// move restores positions and box and recomputes the forces.
//
// The step volume_scale starts at 1% of the volume and, as in OpenMM, once 10 or more attempts
// (per axis) have been counted it grows by 10% when more than 75% were accepted (at most 30% of the
// volume) or shrinks by 10% when fewer than 25% were, and the counts restart. Draws: Philox stream "monte_carlo_barostat", counter = the attempt number.
// State: attempts, the step sizes and the acceptance counts since the last adjustment.
#pragma once
#include <array>
#include <cstdint>

#include "science/sponge/barostat.h"
#include "science/sponge/md_random.h"

namespace spire::sponge {

struct MonteCarloBarostatOptions {
  int64_t frequency = 25;  // steps between moves (OpenMM's default)
  BarostatScaling scaling = BarostatScaling::molecule;
  uint64_t seed = 0;
};

class MonteCarloBarostat : public Barostat {
 public:
  // Isotropic at `pressure` (display units: bar in md) and `temperature` > 0 (the thermostat's).
  MonteCarloBarostat(double pressure, double temperature, MonteCarloBarostatOptions options = {});
  // Anisotropic: pressure per axis; only the axes with scale[axis] set move (at least one).
  MonteCarloBarostat(const Vec3& pressure, std::array<bool, 3> scale, double temperature,
                     MonteCarloBarostatOptions options = {});

  std::string name() const override { return anisotropic_ ? "monte_carlo_anisotropic" : "monte_carlo"; }
  void setup(const System& system, const State& state) override;
  void apply(const System& system, State& state, ForceField& forces, const MdIntegrator& integrator) override;
  void save_state(IntegratorState& out) const override;
  void load_state(const IntegratorState& in) override;

  bool anisotropic() const { return anisotropic_; }
  int64_t attempts() const { return attempts_; }
  int64_t accepted() const { return accepted_total_; }
  // The current maximum volume change per axis (all three equal when isotropic); 0 before the first move.
  const std::array<double, 3>& volume_scale() const { return volume_scale_; }

 private:
  bool anisotropic_;
  Vec3 pressure_;  // display units
  std::array<bool, 3> scale_;
  double temperature_;
  MdRandom random_;
  // From setup(): internal units.
  Vec3 pressure_internal_;
  double kT_ = 0;
  // Saved state.
  int64_t attempts_ = 0, accepted_total_ = 0;
  std::array<double, 3> volume_scale_{0, 0, 0};
  std::array<int64_t, 3> tried_{0, 0, 0}, passed_{0, 0, 0};
  std::vector<Vec3> saved_positions_;
};

}  // namespace spire::sponge
