// Coulomb with a reaction field beyond the cutoff (OpenMM's NonbondedForce CutoffPeriodic and
// CutoffNonPeriodic, GROMACS's coulombtype = Reaction-Field): the medium beyond rc is a continuum
// of dielectric constant eps_solvent, and each pair closer than rc has
//
//   E = k q_i q_j (1/r + k_rf r^2 - c_rf),  k_rf = (eps - 1) / ((2 eps + 1) rc^3),
//                                           c_rf = 1/rc + k_rf rc^2 = 3 eps / ((2 eps + 1) rc)
//
// which vanishes at rc. As in OpenMM, excluded pairs are left out altogether (no reaction-field
// term for them, no self term) and 1-4 pairs are plain Coulomb scaled by coulomb_scale. Periodic
// boxes (minimum image) or none. eps_solvent = infinity is the conducting limit k_rf = 1/(2 rc^3).
#pragma once
#include "science/sponge/coulomb.h"

namespace spire::sponge {

struct ReactionFieldOptions {
  double cutoff = 1.0;
  double epsilon_solvent = 78.3;  // OpenMM's default reactionFieldDielectric
};

class ReactionFieldCoulomb : public CoulombForce {
 public:
  explicit ReactionFieldCoulomb(const ReactionFieldOptions& options = {});

  double k_rf() const { return k_rf_; }
  double c_rf() const { return c_rf_; }

 protected:
  CoulombPairTerm pair_term(const System& system) const override;
  double add_rest(const System& system, const State& state, double pair_energy, ForceResult& out) override;

 private:
  double k_rf_, c_rf_;
};

}  // namespace spire::sponge
