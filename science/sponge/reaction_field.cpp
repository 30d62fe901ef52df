// Reaction-field Coulomb (reaction_field.h).
#include "science/sponge/reaction_field.h"

#include <cmath>

#include "engine/core/error.h"

namespace spire::sponge {

ReactionFieldCoulomb::ReactionFieldCoulomb(const ReactionFieldOptions& options)
    : CoulombForce(options.cutoff, "reaction field") {
  const double eps = options.epsilon_solvent, rc = options.cutoff;
  SPIRE_CHECK(eps >= 1, ValueError, "reaction field: epsilon_solvent must be >= 1 (78.3 for water, infinity for a "
              "conductor), got ", eps);
  k_rf_ = std::isinf(eps) ? 1 / (2 * rc * rc * rc) : (eps - 1) / ((2 * eps + 1) * rc * rc * rc);
  c_rf_ = 1 / rc + k_rf_ * rc * rc;
}

CoulombPairTerm ReactionFieldCoulomb::pair_term(const System& system) const {
  CoulombPairTerm t;
  t.kind = CoulombPairKind::reaction_field;
  t.charge = system.charge.data();
  t.prefactor = system.units.coulomb;
  t.cutoff = cutoff_;
  t.k_rf = k_rf_, t.c_rf = c_rf_;
  return t;
}

double ReactionFieldCoulomb::add_rest(const System& system, const State& state, double pair_energy,
                                      ForceResult& out) {
  return pair_energy + add_coulomb14(system, state, out);
}

}  // namespace spire::sponge
