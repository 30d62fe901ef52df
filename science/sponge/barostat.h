// Barostats: Monte Carlo (monte_carlo_barostat.h, OpenMM's MonteCarloBarostat and
// MonteCarloAnisotropicBarostat) and Berendsen (berendsen_barostat.h).
//
// How they act. A barostat is a component of an integrator (MdIntegrator::set_barostat), applied
// after every `frequency`-th step (when state.step is a multiple of it, after the step's last
// thermostat half step and centre-of-mass removal), so the integrator's save_state() carries its
// variables and checkpoints restart it bit for bit. It changes the box by a scaling matrix mu
// (a' = mu a for each box vector; diagonal: isotropic or one axis at a time) and moves the
// positions with it:
//   molecule scaling: each molecule (connected by bonds, constraints and rigid waters, OpenMM's
//     definition) is translated so that its centre follows the box, its shape untouched;
//   atom scaling: each atom follows the box, except that atoms joined by constraints or rigid
//     water move as one group (their centre follows), so constraints stay satisfied.
// Centres are geometric centres of each group made whole by minimum image from its first atom.
// Velocities are left alone (OpenMM's and GROMACS's choice). After a move the barostat leaves
// the force field holding the forces at the final positions, so the next step needs no prepare().
//
// Pressures are given in the system's display unit (units.pressure_unit: bar in md) and
// temperatures in its temperature unit. work() is the energy the barostat's moves have put into
// the system (potential-energy change of every accepted move); the integrator's conserved
// quantity subtracts it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "science/sponge/force_field.h"
#include "science/sponge/integrator.h"

namespace spire::sponge {

class MdIntegrator;

enum class BarostatScaling { molecule, atom };

class Barostat {
 public:
  virtual ~Barostat() = default;
  virtual std::string name() const = 0;
  int64_t frequency() const { return frequency_; }
  BarostatScaling scaling() const { return scaling_; }

  // Before a run (the integrator's prepare()): the scaling groups and unit conversions. ValueError
  // without a periodic box. Leaves the barostat's variables alone, so it may follow load_state().
  virtual void setup(const System& system, const State& state);
  // One move at the current step (the integrator calls it when state.step % frequency() == 0).
  virtual void apply(const System& system, State& state, ForceField& forces, const MdIntegrator& integrator) = 0;

  double work() const { return work_; }
  // The number of independently scaled groups (molecules, or atoms and constraint groups).
  int64_t group_count() const { return int64_t(group_offsets_.empty() ? 0 : group_offsets_.size() - 1); }
  // Variables under keys that start with "barostat.".
  virtual void save_state(IntegratorState& out) const;
  virtual void load_state(const IntegratorState& in);

 protected:
  Barostat(const char* who, int64_t frequency, BarostatScaling scaling);
  // Moves every group's centre r to mu r (the positions were in `box`, about to become
  // box.scaled(mu)); the shape of each group is kept.
  void scale_positions(const Box& box, const Mat3& mu, std::vector<Vec3>& positions) const;
  // The pressure tensor (energy per volume) at the state: (sum m v v + W + W_constraints) / V.
  Mat3 pressure_tensor(const System& system, const State& state, const ForceField& forces,
                       const MdIntegrator& integrator) const;

  int64_t frequency_;
  BarostatScaling scaling_;
  double work_ = 0;
  // Groups: particles group_members_[group_offsets_[g] .. group_offsets_[g + 1]).
  std::vector<int64_t> group_offsets_;
  std::vector<int> group_members_;
};

using BarostatPtr = std::shared_ptr<Barostat>;

}  // namespace spire::sponge
