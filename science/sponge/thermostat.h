// Thermostats that act on the velocities as a whole: Bussi's stochastic velocity rescaling
// (bussi.h), Berendsen's weak coupling (berendsen.h) and Nose-Hoover chains (nose_hoover.h).
//
// How they compose with an integrator. Each of them only ever multiplies every velocity by one
// factor, which depends on the kinetic energy alone, so an integrator takes any of them as a
// component (VelocityVerlet(dt, thermostat)) and applies it as the outer half steps of a Trotter
// splitting, the scheme of Martyna, Tuckerman, Tobias and Klein (1996) for Nose-Hoover chains and
// of Bussi, Donadio and Parrinello (2007) for their thermostat:
//
//   thermostat(dt/2)  kick(dt/2)  drift(dt)  constrain  forces  kick(dt/2)  constrain  thermostat(dt/2)
//
// The integrator computes the kinetic energy K of the mobile particles, asks scale(K, dt/2, ...)
// for the factor and applies it. A uniform factor keeps constrained relative velocities orthogonal
// to their bonds and a zero total momentum zero, so neither constraints nor centre-of-mass removal
// need any further step. Langevin dynamics acts on each particle separately and is its own
// integrator (langevin.h).
//
// Degrees of freedom. The target kinetic energy is (N_dof / 2) k_B T with N_dof from
// System::degrees_of_freedom (3N minus constraints, minus 3 when the integrator removes the
// centre-of-mass motion), given to setup() by the integrator before a run.
//
// Conserved quantity. conserved_energy() is the thermostat's term in the integrator's conserved
// quantity (md_integrator.h): minus the energy it has put into the system (Bussi, Berendsen), or
// the chain's kinetic and potential energy (Nose-Hoover). It is part of save_state(), so a restart
// continues it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "science/sponge/integrator.h"

namespace spire::sponge {

class Thermostat {
 public:
  virtual ~Thermostat() = default;
  virtual std::string name() const = 0;
  // Target temperature in the system's temperature unit (K in md, epsilon/k_B in lj).
  double temperature() const { return temperature_; }
  // The coupling time (Bussi and Berendsen's tau, the chain's period), in the system's time unit.
  double time_constant() const { return time_constant_; }

  // Before a run: the degrees of freedom of the kinetic energy and k_B (System::units.boltzmann).
  // Does not touch the thermostat's variables, so it may follow load_state().
  virtual void setup(int64_t degrees_of_freedom, double boltzmann);
  // The factor by which every velocity is to be multiplied after the thermostat has acted for
  // `interval` on the kinetic energy `kinetic`, and the thermostat's variables advanced. `step` (the
  // step being taken) and `half` (0 before its first kick, 1 after its last) count random draws.
  virtual double scale(double kinetic, double interval, int64_t step, int half) = 0;
  // The thermostat's term in the conserved quantity.
  virtual double conserved_energy() const = 0;
  // Its variables, under keys that start with "thermostat.".
  virtual void save_state(IntegratorState& out) const = 0;
  virtual void load_state(const IntegratorState& in) = 0;

  int64_t degrees_of_freedom() const { return dof_; }
  double kT() const { return kT_; }

 protected:
  // temperature > 0 and time_constant > 0: ValueError naming the thermostat otherwise.
  Thermostat(const char* who, double temperature, double time_constant);
  // ValueError unless setup() has been called with at least one degree of freedom.
  void check_setup(const char* who) const;

  double temperature_, time_constant_;
  int64_t dof_ = 0;
  double kT_ = 0;
};

using ThermostatPtr = std::shared_ptr<Thermostat>;

}  // namespace spire::sponge
