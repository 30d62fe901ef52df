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

void ReactionFieldCoulomb::add(const System& system, const State& state, const NeighborList* neighbors,
                               ForceResult& out) {
  const PairList list = pairs(system, state, neighbors);
  double energy = add_reaction_field_direct(system, state, list, cutoff_, k_rf_, c_rf_, scratch_, out);
  energy += add_coulomb14(system, state, out);
  out.add_energy(name(), energy);
}

}  // namespace spire::sponge
