// Nose-Hoover chains (Martyna, Klein and Tuckerman, J. Chem. Phys. 97, 2635, 1992) propagated as
// Martyna, Tuckerman, Tobias and Klein (Mol. Phys. 87, 1117, 1996; "MTK"): the chain's Liouville
// operator over each half step is split into n_c sub-steps, each a Suzuki-Yoshida composition of
// order 1, 3, 5 or 7, so the thermostat is time-reversible and its conserved quantity
//   H' = K + U + sum_j Q_j v_j^2 / 2 + N_dof k_B T xi_1 + k_B T sum_{j >= 2} xi_j
// drifts only with the step size. Masses as LAMMPS's fix nvt (Tdamp = the period tau):
//   Q_1 = N_dof k_B T tau^2,  Q_j = k_B T tau^2 (j >= 2).
// A Thermostat (thermostat.h): VelocityVerlet(dt, std::make_shared<NoseHooverChain>(T, tau)) is
// MTK's NVT integrator. Saved state: the chain's positions xi and velocities v_xi.
#pragma once
#include <vector>

#include "science/sponge/thermostat.h"

namespace spire::sponge {

struct NoseHooverOptions {
  int chain_length = 3;    // M >= 1 (LAMMPS's tchain default)
  int multiple_steps = 1;  // n_c >= 1 sub-steps per half step (LAMMPS's tloop)
  int suzuki_yoshida = 3;  // order of the composition: 1, 3, 5 or 7
};

class NoseHooverChain : public Thermostat {
 public:
  // temperature and period > 0; options as above: ValueError naming the allowed values otherwise.
  NoseHooverChain(double temperature, double period, NoseHooverOptions options = {});
  std::string name() const override { return "nose_hoover"; }
  void setup(int64_t degrees_of_freedom, double boltzmann) override;
  double scale(double kinetic, double interval, int64_t step, int half) override;
  double conserved_energy() const override;
  void save_state(IntegratorState& out) const override;
  void load_state(const IntegratorState& in) override;

  const NoseHooverOptions& options() const { return options_; }
  const std::vector<double>& xi() const { return xi_; }
  const std::vector<double>& v_xi() const { return v_xi_; }
  const std::vector<double>& masses() const { return q_; }

 private:
  // The generalised force on chain element j given twice the particles' kinetic energy.
  double chain_force(int j, double twice_kinetic) const;

  NoseHooverOptions options_;
  std::vector<double> weights_;  // Suzuki-Yoshida
  std::vector<double> xi_, v_xi_, q_;
};

}  // namespace spire::sponge
