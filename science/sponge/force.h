// A force term: the energy of one kind of interaction, its forces on every particle, and its
// virial. Terms are independent and summed (force_field.h); each reports its energy under its own
// name, so logs and H5MD files show energies per term.
//
// Virial. W = sum over interactions of r_ij (x) f_ij (r_ij = r_i - r_j, f_ij the force on i due to
// j), i.e. W_ab = -sum_i r_i,a dU/dr_i,b written with in-box differences so that it is
// translation-invariant under periodic images; many-body terms add sum_k r_k' (x) f_k over their
// particles' unwrapped positions. The pressure tensor is P = (sum_i m_i v_i (x) v_i + W) / V, so
// P = (2 K + tr W) / (3 V) for the scalar. Terms whose energy depends on the volume explicitly
// (tail corrections, Ewald's reciprocal sum) add that derivative into W as well.
//
// A neural-network potential (a later issue) is a Force like any other: add() evaluates an
// engine Module on the positions (and box), takes forces as -dE/dr by the engine's reverse mode
// and the virial from the same gradient and dE/dbox; it may ask for a neighbour list (cutoff())
// or not. Nothing here assumes pair forces or analytic derivatives.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "science/sponge/state.h"
#include "science/sponge/system.h"

namespace spire::sponge {

class NeighborList;

struct ForceResult {
  std::vector<Vec3> forces;                              // accumulated over terms
  std::vector<std::pair<std::string, double>> energies;  // per term, in the order added
  Mat3 virial;                                           // accumulated over terms

  // Zero forces for n particles, no energies, zero virial.
  void reset(int64_t n);
  // Adds e to the energy of `term` (appended the first time).
  void add_energy(const std::string& term, double e);
  double energy() const;                       // the total
  double energy_of(const std::string& term) const;  // 0 when absent
};

class Force {
 public:
  virtual ~Force() = default;
  virtual std::string name() const = 0;  // "lj", "coulomb", "bonds", ...; the energy's key
  // The range of its pair interactions: > 0 asks for a neighbour list holding every pair closer
  // than cutoff() (+ the list's skin); 0 needs none.
  virtual double cutoff() const { return 0; }
  // Checks the term against the system once, before a run (parameters for every type, cutoff
  // within the box's reach, ...): ValueError or ConfigError naming what is wrong.
  virtual void check(const System& system, const State& state) const {}
  // Adds this term's forces, energy and virial at `state` into `out`. `neighbors` is up to date
  // for the current positions when cutoff() > 0 (null otherwise).
  virtual void add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) = 0;
};

using ForcePtr = std::shared_ptr<Force>;

}  // namespace spire::sponge
