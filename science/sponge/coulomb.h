// What the Coulomb forces (Ewald, PME, reaction field) share: the cutoff and its checks, the
// direct-space pair sums over the neighbour list, the excluded-pair and 1-4 corrections, and the
// Ewald constants (self energy, the neutralising background of a charged cell).
//
// Energy of every Coulomb force, with k = units.coulomb (1/(4 pi eps0)):
//   direct      sum over listed pairs closer than the cutoff of k q_i q_j phi(r)
//               (Ewald, PME: erfc(alpha r)/r; reaction field: 1/r + k_rf r^2 - c_rf)
//   exclusions  Topology::exclusions are never in the direct sum (the neighbour list leaves them
//               out). Ewald and PME put every pair in their reciprocal sum, so they subtract
//               k q_i q_j erf(alpha r)/r for each excluded pair; reaction field leaves excluded
//               pairs out altogether, as OpenMM does.
//   1-4 pairs   Topology::pairs14 must be excluded (Topology::exclude_bonded does that) and are
//               added back as plain Coulomb, coulomb_scale k q_i q_j / r, with no cutoff: OpenMM's
//               exceptions and GROMACS's pairs with fudgeQQ, for every method.
// Distances are minimum-imaged in periodic boxes, which needs cutoff <= Box::max_cutoff() and
// excluded and 1-4 pairs closer than that (molecules smaller than half the box).
//
// The direct-space sums run in the pair kernel (nonbonded.h), alone or in one pass with
// Lennard-Jones when a ForceField holds both over the same cutoff: the same bits whatever the
// thread count and whenever the neighbour list was built; erfc from a spline (ErfTable).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "science/sponge/force.h"
#include "science/sponge/nonbonded.h"

namespace spire::sponge {

// OpenMM's splitting parameter for an ewaldErrorTolerance: alpha = sqrt(-ln(2 tol)) / rc, which
// makes erfc(alpha rc) about 2 tol. ValueError unless cutoff > 0 and 0 < tolerance < 0.5.
double ewald_alpha(double cutoff, double tolerance);

// The reciprocal vectors a*, b*, c* of a periodic box (the rows of the inverse of the matrix whose
// columns are a, b, c; no factor 2 pi): fractional coordinates are s_d = rec[d] . r.
std::array<Vec3, 3> reciprocal_vectors(const Box& box);

// Every non-excluded pair (i < j) closer than `range` (minimum image), by brute force: O(N^2). For a
// Coulomb force evaluated without a neighbour list (add() with neighbors == nullptr) and for tests.
class BrutePairList {
 public:
  void build(const System& system, const State& state, double range);
  PairList view() const { return {rows_.data(), sizes_.data(), int64_t(sizes_.size()), pairs_}; }

 private:
  std::vector<int32_t> neighbors_;  // the rows, and 16 entries of padding
  int64_t pairs_ = 0;
  std::vector<const int32_t*> rows_;
  std::vector<int32_t> sizes_;
};

// erf(alpha r) / r and its derivative, exact (std::erf, with series where cancellation would cost
// digits), for r >= 0; at r = 0 the limits 2 alpha / sqrt(pi) and 0.
double erf_over_r(double alpha, double r);
double erf_over_r_derivative(double alpha, double r);

// g(r) = erf(alpha r)/r on [0, cutoff] as a cubic Hermite spline through exact values and slopes,
// so erfc(alpha r)/r = 1/r - g(r) costs a table lookup instead of erfc and exp. Knots are spaced
// so that alpha h <= 1e-3: relative error below 1e-13 in the energy and 1e-10 in the force, and the
// force is the exact derivative of the tabulated energy (energy conservation is not spoiled).
// Coefficients are stored as four arrays (one per power of t) so that vectorized lookups gather
// with a single index.
class ErfTable {
 public:
  ErfTable() = default;
  ErfTable(double alpha, double cutoff);
  double alpha() const { return alpha_; }
  double cutoff() const { return cutoff_; }
  int64_t intervals() const { return int64_t(c_[0].size()); }
  double inverse_spacing() const { return inverse_h_; }
  // Interval k holds c0[k] + t (c1[k] + t (c2[k] + t c3[k])), t = r / h - k in [0, 1].
  const double* coefficients(int power) const { return c_[power].data(); }
  // The spline and its r-derivative (for tests; kernels inline the same arithmetic).
  double value(double r) const;
  double derivative(double r) const;

 private:
  double alpha_ = 0, cutoff_ = 0, inverse_h_ = 0;
  std::vector<double> c_[4];
};

// The working memory of the direct-space sums (the pair kernel's blocks and force windows), reused
// between calls.
using PairAccumulator = PairKernel;

// The direct-space Ewald sum over `list`: sum over pairs with r < table.cutoff() of
// k q_i q_j erfc(alpha r)/r; forces and virial added to `out`, energy returned.
double add_ewald_direct(const System& system, const State& state, const PairList& list, const ErfTable& table,
                        PairAccumulator& scratch, ForceResult& out);

// Reaction field (OpenMM's CutoffPeriodic / CutoffNonPeriodic): sum over pairs with r < cutoff of
// k q_i q_j (1/r + k_rf r^2 - c_rf); forces and virial added to `out`, energy returned.
double add_reaction_field_direct(const System& system, const State& state, const PairList& list, double cutoff,
                                 double k_rf, double c_rf, PairAccumulator& scratch, ForceResult& out);

// -k q_i q_j erf(alpha r)/r over Topology::exclusions (what the reciprocal sum counted but must
// not); forces and virial added to `out`, energy returned.
double add_ewald_exclusions(const System& system, const State& state, double alpha, ForceResult& out);
// The same with erf(alpha r)/r from `table` for the pairs closer than its cutoff (the direct sum's
// accuracy at a fifth of the cost: excluded pairs are bonded, short), exact for any farther.
double add_ewald_exclusions(const System& system, const State& state, const ErfTable& table, ForceResult& out);

// coulomb_scale k q_i q_j / r over Topology::pairs14; forces and virial added, energy returned.
double add_coulomb14(const System& system, const State& state, ForceResult& out);

// -k alpha / sqrt(pi) sum q_i^2: each charge's interaction with its own screening Gaussian.
double ewald_self_energy(const System& system, double alpha);

// The neutralising background of a cell with net charge Q: -k pi Q^2 / (2 V alpha^2). It goes as
// 1/V, so it adds E times the identity to the virial (out's virial updated here), energy returned.
double add_ewald_background(const System& system, const Box& box, double alpha, ForceResult& out);

// Base of the Coulomb forces: the cutoff, the checks every method shares, and the pair list.
class CoulombForce : public Force {
 public:
  std::string name() const override { return "coulomb"; }
  double cutoff() const override { return cutoff_; }
  // Charges sized to the system and finite, cutoff within the box's reach (periodic boxes), every
  // 1-4 pair excluded, excluded and 1-4 indices valid. ValueError naming the problem.
  void check(const System& system, const State& state) const override;
  // The direct-space pair sum (in the pair kernel), then everything else (add_rest).
  void add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) override;

 protected:
  CoulombForce(double cutoff, const char* method);
  // The neighbour list's rows, or without one a brute-force list of pairs within the cutoff.
  PairList pairs(const System& system, const State& state, const NeighborList* neighbors);
  // The direct-space pair function as the pair kernel takes it, for `system`'s charges.
  virtual CoulombPairTerm pair_term(const System& system) const = 0;
  // What the pair sum leaves out (reciprocal sum, self, exclusions, background, 1-4 pairs): forces
  // and virial added to out; returns the term's energy, pair_energy plus these.
  virtual double add_rest(const System& system, const State& state, double pair_energy, ForceResult& out) = 0;
  // ForceField hands this term's pairs to one pass together with Lennard-Jones's (pair_term,
  // add_rest).
  friend class ForceField;

  double cutoff_;
  const char* method_;  // for error messages: "ewald", "pme", "reaction field"
  PairAccumulator scratch_;
  BrutePairList brute_;
};

// Base of the Ewald-split methods (ewald.h, pme.h): the same splitting parameter, direct sum,
// self energy, excluded-pair correction, neutralising background and 1-4 pairs; only the
// reciprocal-space sum differs.
class EwaldSplitCoulomb : public CoulombForce {
 public:
  // direct + reciprocal + self + exclusions + background + 1-4, as one energy term.
  void add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) override;
  double alpha() const { return alpha_; }
  // The direct-space erf(alpha r)/r spline the kernels use (for other platforms' kernels).
  const ErfTable& table() const { return table_; }
  // The reciprocal-space part alone (energy returned, forces and virial added): for tests.
  virtual double add_reciprocal(const System& system, const State& state, ForceResult& out) = 0;

 protected:
  // alpha > 0 is used as given; alpha = 0 takes ewald_alpha(cutoff, tolerance). ValueError otherwise.
  EwaldSplitCoulomb(double cutoff, double tolerance, double alpha, const char* method);
  CoulombPairTerm pair_term(const System& system) const override;
  double add_rest(const System& system, const State& state, double pair_energy, ForceResult& out) override;

  double alpha_;
  ErfTable table_;
};

}  // namespace spire::sponge
