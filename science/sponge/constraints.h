// Holonomic distance constraints: SHAKE (Ryckaert, Ciccotti and Berendsen 1977) for positions and
// RATTLE (Andersen 1983) for velocities on the topology's Constraint list, and SETTLE (Miyamoto and
// Kollman 1992), the analytic solution of the same equations, for its RigidWater entries.
//
// Every integrator applies them the same way (md_integrator.h): after a drift, constrain_positions()
// moves the new positions back onto the constraints along the bond vectors of the positions before
// the drift (the reference, which satisfies them) and gives each velocity the same correction
// divided by dt, which is the constraint force's impulse; after the last kick,
// constrain_velocities() removes every relative velocity along a constrained bond.
//
// Virial. The constraint forces do work on the pressure: rigid water's pressure is wrong by
// thousands of bar without them. A correction Delta r_i made by a force f_i acting over the step is
// Delta r_i = position_factor f_i / m_i (dt^2 / 2 in velocity Verlet) and a velocity correction
// Delta v_i = velocity_factor f_i / m_i (dt / 2), so each call can add sum over constraints of
// r_ij (x) f_ij to a virial (force.h's convention). The integrator reports the mean of the two
// stages as its constraint_virial() (md_integrator.h).
//
// Tolerance: SHAKE iterates until every |r - d| / d <= tolerance, RATTLE until every
// |e_ij . v_ij| <= tolerance |v_ij| (e_ij the bond's direction); SETTLE is exact to round-off.
// ValueError naming the constraint when SHAKE or RATTLE does not converge in max_iterations or
// SETTLE finds the water too far from its geometry to be solved (a step far too long).
//
// Constraints that share particles form clusters, solved one after another in a fixed order;
// clusters and waters are independent, solved in parallel, and their virials summed per fixed
// chunk in chunk order: the same bits whatever the number of threads.
#pragma once
#include <cstdint>
#include <vector>

#include "science/sponge/state.h"
#include "science/sponge/system.h"

namespace spire::sponge {

struct ConstraintOptions {
  double tolerance = 1e-10;   // relative, > 0
  int max_iterations = 1000;  // SHAKE and RATTLE sweeps per cluster, >= 1
};

class Constraints {
 public:
  Constraints() = default;
  // From system.topology.constraints and .waters. ValueError naming the entry when a length is not
  // > 0, a constraint joins two fixed (mass 0) particles, a water has a fixed atom, hydrogens of
  // different masses (SETTLE's geometry needs them equal) or d_hh >= 2 d_oh, or a particle is in
  // more than one water or in a water and a Constraint.
  explicit Constraints(const System& system, ConstraintOptions options = {});

  bool empty() const { return bonds_.empty() && waters_.empty(); }
  // Constrained distances: one per Constraint, three per water.
  int64_t count() const { return int64_t(bonds_.size() + 3 * waters_.size()); }
  const ConstraintOptions& options() const { return options_; }

  // The largest |r - d| / d over every constrained distance (0 without constraints).
  double max_deviation(const Box& box, const std::vector<Vec3>& positions) const;
  // The largest |e_ij . v_ij| / |v_ij| over every constrained pair (0 where v_ij = 0).
  double max_velocity_deviation(const Box& box, const std::vector<Vec3>& positions,
                                const std::vector<Vec3>& velocities) const;

  // SHAKE and SETTLE: `positions` (after the drift) moved onto the constraints along the bonds of
  // `reference` (before it). When `velocities` is given each gets its particle's correction / dt.
  // When `virial` is given the constraint forces' virial is added to it, the force being
  // m Delta r / position_factor.
  void constrain_positions(const Box& box, const std::vector<Vec3>& reference, std::vector<Vec3>& positions,
                           std::vector<Vec3>* velocities, double dt, Mat3* virial, double position_factor) const;
  // RATTLE and SETTLE's velocity part: velocities projected onto the constraints at `positions`
  // (which satisfy them). The virial, when given, uses the force m Delta v / velocity_factor.
  void constrain_velocities(const Box& box, const std::vector<Vec3>& positions, std::vector<Vec3>& velocities,
                            Mat3* virial, double velocity_factor) const;

 private:
  struct Bond {
    int i, j;
    double length;
  };
  struct Water {
    int o, h1, h2;
    double d_oh, d_hh, m_o, m_h;
  };
  // One SHAKE cluster: bonds_[begin, end).
  struct Cluster {
    int64_t begin, end;
  };

  // out[k] = the min-imaged vector x_j - x_i of the cluster's bond k.
  void bond_vectors(const Cluster& c, const Box& box, const std::vector<Vec3>& x, std::vector<Vec3>& out) const;
  // Each returns false (and the index of the offending entry) when it fails.
  bool shake_cluster(const Cluster& c, const Box& box, const std::vector<Vec3>& reference,
                     std::vector<Vec3>& positions, std::vector<Vec3>* velocities, double dt, Mat3* virial,
                     double position_factor, int64_t& failed) const;
  bool rattle_cluster(const Cluster& c, const Box& box, const std::vector<Vec3>& positions,
                      std::vector<Vec3>& velocities, Mat3* virial, double velocity_factor, int64_t& failed) const;
  bool settle_positions(const Water& w, const Box& box, const std::vector<Vec3>& reference,
                        std::vector<Vec3>& positions, std::vector<Vec3>* velocities, double dt, Mat3* virial,
                        double position_factor) const;
  void settle_velocities(const Water& w, const Box& box, const std::vector<Vec3>& positions,
                         std::vector<Vec3>& velocities, Mat3* virial, double velocity_factor) const;

  ConstraintOptions options_;
  std::vector<double> inverse_mass_;  // 0 for fixed particles
  std::vector<Bond> bonds_;           // grouped by cluster, in topology order within each
  std::vector<int64_t> bond_source_;  // index in topology.constraints, for messages
  std::vector<Cluster> clusters_;
  std::vector<Water> waters_;
};

}  // namespace spire::sponge
