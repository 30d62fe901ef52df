// Bussi, Donadio and Parrinello's stochastic velocity rescaling (J. Chem. Phys. 126, 014101,
// 2007; GROMACS's v-rescale, LAMMPS's fix temp/csvr): the kinetic energy
// follows the stochastic differential equation
//   dK = (K0 - K) dt / tau + 2 sqrt(K K0 / N_dof) dW / sqrt(tau),   K0 = (N_dof / 2) k_B T,
// integrated exactly over each interval, so the canonical kinetic-energy distribution is
// sampled for any tau, with the smooth dynamics of a weak coupling. A Thermostat (thermostat.h):
// VelocityVerlet(dt, std::make_shared<BussiThermostat>(T, tau, seed)).
//
// Draws: for (step, half) the counter 2 step + half of Philox stream "bussi" under the seed: one
// normal R1, and the sum of N_dof - 1 squared normals (drawn one by one below 64 degrees of
// freedom, as a gamma variate by Marsaglia and Tsang's method above, the same distribution).
// Conserved quantity: minus the energy the thermostat has added (its `heat`), saved with the state.
#pragma once
#include <cstdint>

#include "science/sponge/md_random.h"
#include "science/sponge/thermostat.h"

namespace spire::sponge {

class BussiThermostat : public Thermostat {
 public:
  // temperature and tau > 0 (system units).
  BussiThermostat(double temperature, double time_constant, uint64_t seed);
  std::string name() const override { return "bussi"; }
  double scale(double kinetic, double interval, int64_t step, int half) override;
  double conserved_energy() const override { return -heat_; }
  void save_state(IntegratorState& out) const override;
  void load_state(const IntegratorState& in) override;

  uint64_t seed() const { return random_.seed(); }
  // The energy the thermostat has put into the system so far.
  double heat() const { return heat_; }
  // The sum of n squared standard normals (chi-squared with n degrees of freedom) for `counter`.
  double sum_of_squared_normals(int64_t n, uint64_t counter) const;

 private:
  MdRandom random_;
  double heat_ = 0;
};

}  // namespace spire::sponge
