// Berendsen's weak-coupling thermostat (J. Chem. Phys. 81, 3684, 1984; GROMACS's berendsen,
// LAMMPS's fix temp/berendsen): velocities scaled by
//   lambda = sqrt(1 + (interval / tau) (T0 / T - 1)),  clamped to [0.8, 1.25] as GROMACS does,
// so T relaxes to T0 with time constant tau. It does NOT sample the canonical ensemble: the mean
// temperature is right but the kinetic energy fluctuates far less than it should (the test
// asserts this flaw), so use it to equilibrate and Bussi (bussi.h) or Nose-Hoover chains to sample.
// A Thermostat (thermostat.h). Conserved quantity: minus the energy it has added.
#pragma once
#include "science/sponge/thermostat.h"

namespace spire::sponge {

class BerendsenThermostat : public Thermostat {
 public:
  BerendsenThermostat(double temperature, double time_constant);
  std::string name() const override { return "berendsen"; }
  double scale(double kinetic, double interval, int64_t step, int half) override;
  double conserved_energy() const override { return -heat_; }
  void save_state(IntegratorState& out) const override;
  void load_state(const IntegratorState& in) override;
  double heat() const { return heat_; }

 private:
  double heat_ = 0;
};

}  // namespace spire::sponge
