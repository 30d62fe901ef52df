// Integrators advance a State by one time step with the forces of a ForceField. On entry to
// step() the force field holds the forces at the current positions (result()); on return it holds
// those at the new positions, so velocity Verlet and its relatives evaluate forces once per step.
// prepare() computes them the first time (and after anything outside the integrator changed the
// positions or the box: a barostat move, a restart).
//
// Randomness (Langevin noise, Bussi's draws, Monte Carlo moves) comes from Philox keyed by the
// run's seed and counted by step and particle (engine/random/philox.h): the same seed gives the
// same bits, and a restart from a checkpoint continues the same stream without saving generator
// state.
//
// Thermostat and barostat variables (Nose-Hoover chain positions and momenta, ...) are saved and
// restored with save_state() / load_state() as named arrays, so checkpoints restart bit for bit.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "science/sponge/force_field.h"

namespace spire::sponge {

using IntegratorState = std::map<std::string, std::vector<double>>;

class Integrator {
 public:
  virtual ~Integrator() = default;
  virtual std::string name() const = 0;
  double dt() const { return dt_; }

  // Evaluates the forces at the current state.
  virtual void prepare(const System& system, State& state, ForceField& forces) {
    forces.compute(system, state);
  }
  // One step: positions, velocities, box (under a barostat), state.time += dt, state.step += 1.
  virtual void step(const System& system, State& state, ForceField& forces) = 0;
  // The constraint forces' virial over the latest step (zero without constraints): the pressure is
  // (sum m v v^T + ForceResult::virial + constraint_virial()) / V.
  virtual Mat3 constraint_virial() const { return {}; }
  // Total energy plus the thermostat's and barostat's terms: constant up to the discretisation
  // error. NaN from an integrator that defines none (logs then show the total energy alone).
  virtual double conserved_energy(const System& system, const State& state, const ForceField& forces) const;
  // Whether the centre of mass is held still, so the temperature counts 3 degrees of freedom
  // fewer. Yes unless the integrator says otherwise (LAMMPS's compute temp counts 3N - 3).
  virtual bool removes_com_motion() const { return true; }
  virtual IntegratorState save_state() const { return {}; }
  virtual void load_state(const IntegratorState&) {}

 protected:
  explicit Integrator(double dt);
  double dt_;
};

}  // namespace spire::sponge
