// What the particle integrators (velocity_verlet.h, langevin.h) share: constraints, centre-of-mass
// motion removal, an optional barostat, the constraint virial and the conserved quantity.
//
// A step of any of them (Integrator::step):
//   1. advance(): the scheme's own update of positions and velocities, with the thermostat's half
//      steps where it has one (thermostat.h). After every drift the constraints are applied to the
//      positions, with the same correction / dt given to the velocities (SHAKE, SETTLE); after the
//      last kick to the velocities (RATTLE, SETTLE's velocity part). The forces are computed once,
//      at the new positions.
//   2. state.time += dt, state.step += 1.
//   3. When remove_com_motion: the centre-of-mass velocity of the mobile particles is subtracted
//      (GROMACS's comm-mode linear every step, OpenMM's CMMotionRemover at frequency 1), and the
//      kinetic energy removed is counted as heat.
//   4. When a barostat is set and state.step is a multiple of its frequency: the barostat's move
//      (barostat.h), after which the forces are again those at the current positions.
//
// Degrees of freedom: System::degrees_of_freedom(remove_com_motion).
//
// Constraint virial. The constraint forces' virial over the latest step, the mean of the position
// stage (SHAKE/SETTLE, forces m Delta r / (dt^2 / 2)) and the velocity stage (RATTLE, forces
// m Delta v / (dt / 2)): add it to ForceResult::virial for the pressure (rigid water needs it).
// Zero before the first step and without constraints.
//
// Conserved quantity: K + U + the thermostat's term (thermostat.h) - heat - the barostat's work,
// where heat is the energy the integrator itself put in (Langevin's friction and noise, centre-of-
// mass removal). Constant up to the discretisation error for every ensemble, so its drift measures
// the integration error (GROMACS's "Conserved En.").
//
// prepare() builds the constraints for the system and applies them to the positions (SHAKE along
// the current bonds, SETTLE to the rigid geometry) and velocities only when they are violated by more
// than the tolerance, so preparing a state the integrator wrote (a restart) changes no bit; sets up
// the thermostat and barostat; and computes the forces. step() prepares by itself the first time.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "science/sponge/barostat.h"
#include "science/sponge/constraints.h"
#include "science/sponge/integrator.h"

namespace spire::sponge {

struct DynamicsOptions {
  // Subtract the centre-of-mass velocity after every step; the temperature then has 3 fewer degrees
  // of freedom. Turn off with position restraints, external fields or fixed particles, which
  // exchange momentum with the outside.
  bool remove_com_motion = true;
  ConstraintOptions constraints;
};

class MdIntegrator : public Integrator {
 public:
  void prepare(const System& system, State& state, ForceField& forces) override;
  void step(const System& system, State& state, ForceField& forces) final;
  IntegratorState save_state() const override;
  void load_state(const IntegratorState& state) override;

  const DynamicsOptions& options() const { return options_; }
  void set_barostat(BarostatPtr barostat) { barostat_ = std::move(barostat); }
  const BarostatPtr& barostat() const { return barostat_; }
  // Valid after prepare().
  int64_t degrees_of_freedom() const { return dof_; }
  const Constraints& constraints() const { return constraints_; }
  Mat3 constraint_virial() const override { return constraint_virial_; }
  bool removes_com_motion() const override { return options_.remove_com_motion; }
  // The energy the integrator itself has put into the system (see above).
  double heat() const { return heat_; }
  // K + U + thermostat term - heat - barostat work at `state`, with U from forces.result().
  double conserved_energy(const System& system, const State& state, const ForceField& forces) const override;

 protected:
  MdIntegrator(double dt, DynamicsOptions options);
  // The scheme's step (1. above). state.step is still the step's starting value.
  virtual void advance(const System& system, State& state, ForceField& forces) = 0;
  // Before a run, after the constraints and degrees of freedom are known: set up the thermostat.
  virtual void setup(const System& system) {}
  // The thermostat's term in the conserved quantity.
  virtual double thermostat_energy() const { return 0; }
  virtual void save_scheme(IntegratorState& out) const {}
  virtual void load_scheme(const IntegratorState& in) {}

  // v += h F / m for the mobile particles.
  void kick(const System& system, State& state, const ForceField& forces, double h) const;
  // r += h v for the mobile particles.
  void drift(const System& system, State& state, double h) const;
  // sum m v^2 / 2 over the mobile particles, in a fixed order.
  double kinetic_energy(const System& system, const std::vector<Vec3>& velocities) const;
  // v *= s for the mobile particles.
  void scale_velocities(const System& system, State& state, double s) const;
  // The end of every scheme's step, once its drifts have moved the positions dt away from reference_:
  // SHAKE/SETTLE (velocities corrected by Delta r / dt), the forces at the new positions, the last
  // half kick, RATTLE, and the constraint virial.
  void finish_step(const System& system, State& state, ForceField& forces);

  DynamicsOptions options_;
  Constraints constraints_;
  BarostatPtr barostat_;
  int64_t dof_ = 0;
  int64_t prepared_size_ = -1;  // the system size prepare() saw; -1 before it
  Mat3 constraint_virial_;
  // The virial of a velocity projection a scheme makes after its first kick (LangevinMiddle), with
  // the force m Delta v / (dt / 2): part of the position stage of constraint_virial_, which
  // finish_step adds it to and then clears.
  Mat3 kick_projection_virial_;
  double heat_ = 0;
  std::vector<Vec3> reference_;  // positions before the drift, SHAKE's reference
};

}  // namespace spire::sponge
