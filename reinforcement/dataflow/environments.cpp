#include "reinforcement/dataflow/environments.h"

namespace spire::rl::dataflow {

VectorBatch LocalEnvironments::reset(std::optional<uint64_t> seed) {
  if (!seed) return pool_->reset();
  // Environment j is the run's environment first_ + j.
  std::vector<std::optional<uint64_t>> seeds(static_cast<size_t>(num_envs()));
  for (size_t j = 0; j < seeds.size(); ++j) seeds[j] = *seed + uint64_t(first_) + j;
  return pool_->reset(seeds);
}

}  // namespace spire::rl::dataflow
