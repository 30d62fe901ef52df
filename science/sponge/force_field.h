// The sum of a system's force terms, with the one neighbour list they share (of the largest
// cutoff among them, plus the skin), and the result of the latest evaluation.
#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "science/sponge/force.h"
#include "science/sponge/neighbor_list.h"

namespace spire::sponge {

class ForceField {
 public:
  explicit ForceField(double skin = 0.1);  // the neighbour list's skin, in the system's lengths

  void add(ForcePtr force);
  const std::vector<ForcePtr>& terms() const { return terms_; }
  // Checks every term against the system and state (Force::check), once before a run.
  void check(const System& system, const State& state) const;
  // Evaluates every term at `state` (updating the neighbour list first) into result().
  const ForceResult& compute(const System& system, const State& state);
  const ForceResult& result() const { return result_; }
  // Replaces the latest evaluation with one made elsewhere: a device platform's forces, energies
  // and virial (platform.h), so that observables and reporters read them as they read compute()'s.
  void set_result(ForceResult result) { result_ = std::move(result); }
  // Null when no term has a cutoff.
  const NeighborList* neighbors() const { return list_.get(); }
  double skin() const { return skin_; }

 private:
  double skin_;
  std::vector<ForcePtr> terms_;
  std::unique_ptr<NeighborList> list_;
  ForceResult result_;
};

}  // namespace spire::sponge
