// Velocity Verlet (Swope, Andersen, Berens and Wilson 1982; LAMMPS's fix nve; OpenMM's
// VerletIntegrator is the same trajectory written as leapfrog, with half-step velocities),
// optionally with a thermostat applied at both ends of the step (thermostat.h):
//
//   [thermostat(dt/2)]  v += dt/2 F/m   r += dt v   SHAKE/SETTLE (v += correction / dt)
//   F = F(r)            v += dt/2 F/m   RATTLE/SETTLE on v            [thermostat(dt/2)]
//
// Without a thermostat it is NVE: time-reversible and symplectic, so the energy fluctuates with an
// amplitude proportional to dt^2 and does not drift. With NoseHooverChain it is MTK's NVT scheme,
// with BussiThermostat Bussi's. Positions and velocities are both at whole steps, so the state
// holds a consistent (r, v) for the kinetic energy, checkpoints and the pressure.
// Constraints, centre-of-mass removal and barostats as md_integrator.h.
#pragma once
#include "science/sponge/md_integrator.h"
#include "science/sponge/thermostat.h"

namespace spire::sponge {

class VelocityVerlet : public MdIntegrator {
 public:
  // dt > 0; thermostat may be null (NVE).
  explicit VelocityVerlet(double dt, ThermostatPtr thermostat = nullptr, DynamicsOptions options = {});
  // "velocity_verlet", or "velocity_verlet+<thermostat>" with one.
  std::string name() const override;
  const ThermostatPtr& thermostat() const { return thermostat_; }

 protected:
  void advance(const System& system, State& state, ForceField& forces) override;
  void setup(const System& system) override;
  double thermostat_energy() const override;
  void save_scheme(IntegratorState& out) const override;
  void load_scheme(const IntegratorState& in) override;

 private:
  void thermostat_half(const System& system, State& state, int half);
  ThermostatPtr thermostat_;
};

}  // namespace spire::sponge
