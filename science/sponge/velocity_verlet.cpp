// Velocity Verlet with an optional thermostat at the half steps (velocity_verlet.h).
#include "science/sponge/velocity_verlet.h"

namespace spire::sponge {

VelocityVerlet::VelocityVerlet(double dt, ThermostatPtr thermostat, DynamicsOptions options)
    : MdIntegrator(dt, options), thermostat_(std::move(thermostat)) {}

std::string VelocityVerlet::name() const {
  return thermostat_ ? "velocity_verlet+" + thermostat_->name() : "velocity_verlet";
}

void VelocityVerlet::setup(const System& system) {
  if (thermostat_) thermostat_->setup(dof_, system.units.boltzmann);
}

void VelocityVerlet::thermostat_half(const System& system, State& state, int half) {
  const double s = thermostat_->scale(kinetic_energy(system, state.velocities), 0.5 * dt_, state.step, half);
  scale_velocities(system, state, s);
}

void VelocityVerlet::advance(const System& system, State& state, ForceField& forces) {
  const double h = 0.5 * dt_;
  if (thermostat_) thermostat_half(system, state, 0);
  kick(system, state, forces, h);
  if (!constraints_.empty()) reference_ = state.positions;
  drift(system, state, dt_);
  finish_step(system, state, forces);
  if (thermostat_) thermostat_half(system, state, 1);
}

double VelocityVerlet::thermostat_energy() const { return thermostat_ ? thermostat_->conserved_energy() : 0; }

void VelocityVerlet::save_scheme(IntegratorState& out) const {
  if (thermostat_) thermostat_->save_state(out);
}

void VelocityVerlet::load_scheme(const IntegratorState& in) {
  if (thermostat_) thermostat_->load_state(in);
}

}  // namespace spire::sponge
