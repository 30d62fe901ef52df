// The sum of force terms with their shared neighbour list (force_field.h).
#include "science/sponge/force_field.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/coulomb.h"
#include "science/sponge/lennard_jones.h"

namespace spire::sponge {
namespace {

// The longest range any term asks a neighbour list for; 0 when none does.
double longest_cutoff(const std::vector<ForcePtr>& terms) {
  double cutoff = 0;
  for (const ForcePtr& t : terms) cutoff = std::max(cutoff, t->cutoff());
  return cutoff;
}

}  // namespace

ForceField::ForceField(double skin) : skin_(skin) {
  SPIRE_CHECK(std::isfinite(skin) && skin >= 0, ValueError, "ForceField: the neighbour list's skin must be finite and >= 0, got ",
              skin);
}

void ForceField::add(ForcePtr force) {
  SPIRE_CHECK(force, ValueError, "ForceField::add: the force is null");
  const std::string name = force->name();
  for (const ForcePtr& t : terms_)
    SPIRE_CHECK(t->name() != name, ValueError, "ForceField::add: a term named '", name,
                "' is already present; energies are reported per name, so each term needs its own");
  const double cutoff = force->cutoff();
  SPIRE_CHECK(std::isfinite(cutoff) && cutoff >= 0, ValueError, "ForceField::add: term '", name,
              "' has cutoff ", cutoff, ": must be finite and >= 0");
  terms_.push_back(std::move(force));
  list_.reset();  // the list's range may have changed; built again on the next compute
}

void ForceField::check(const System& system, const State& state) const {
  system.check();
  SPIRE_CHECK(int64_t(state.positions.size()) == system.size(), ValueError, "ForceField: the state has ",
              state.positions.size(), " positions but the system has ", system.size(), " particles");
  const double cutoff = longest_cutoff(terms_);
  if (cutoff > 0 && state.box.periodic())
    SPIRE_CHECK(cutoff + skin_ <= state.box.max_cutoff(), ValueError, "ForceField: the longest cutoff ", cutoff,
                " plus the skin ", skin_, " exceeds half the box's smallest width (", state.box.max_cutoff(),
                "): shorten the cutoff or skin, or enlarge the box");
  for (const ForcePtr& t : terms_) t->check(system, state);
}

const ForceResult& ForceField::compute(const System& system, const State& state) {
  const double cutoff = longest_cutoff(terms_);
  if (cutoff > 0) {
    if (!list_ || list_->cutoff() != cutoff) list_ = std::make_unique<NeighborList>(cutoff, skin_);
    list_->update(system, state);
  } else {
    list_.reset();
  }
  result_.reset(int64_t(state.positions.size()));

  // Lennard-Jones and a Coulomb term over the same cutoff share one pass over the list: the
  // packing, the gathers and 1/r done once per pair. Each still reports its own energy, at its own
  // place in the order of the terms.
  LennardJones* lj = nullptr;
  CoulombForce* coulomb = nullptr;
  for (const ForcePtr& t : terms_) {
    if (!lj) lj = dynamic_cast<LennardJones*>(t.get());
    if (!coulomb) coulomb = dynamic_cast<CoulombForce*>(t.get());
  }
  // (An Ewald-split term without a periodic box goes its own way, to its own error message.)
  const bool fused = lj && coulomb && lj->cutoff() == coulomb->cutoff() && list_ &&
                     (state.box.periodic() || !dynamic_cast<EwaldSplitCoulomb*>(coulomb));
  bool paired = false;
  PairEnergies pair_energies;
  for (const ForcePtr& t : terms_) {
    const bool is_lj = fused && t.get() == lj, is_coulomb = fused && t.get() == coulomb;
    if (!is_lj && !is_coulomb) {
      t->add(system, state, t->cutoff() > 0 ? list_.get() : nullptr, result_);
      continue;
    }
    if (!paired) {
      const int64_t n = int64_t(state.positions.size());
      SPIRE_CHECK(list_->size() == n && system.size() == n && int64_t(system.charge.size()) == n &&
                      int64_t(system.type.size()) == n,
                  ValueError, "ForceField: ", n, " positions but ", system.size(), " particles, ", system.charge.size(),
                  " charges and ", system.type.size(), " types");
      const LJPairTerm lj_term = lj->pair_term(system);
      const CoulombPairTerm coulomb_term = coulomb->pair_term(system);
      pair_energies = lj->kernel_.add(list_->pair_list(), state, &lj_term, &coulomb_term, result_);
      paired = true;
    }
    if (is_lj)
      result_.add_energy(lj->name(), lj->add_rest(system, state, pair_energies.lj, result_));
    else
      result_.add_energy(coulomb->name(), coulomb->add_rest(system, state, pair_energies.coulomb, result_));
  }
  return result_;
}

}  // namespace spire::sponge
