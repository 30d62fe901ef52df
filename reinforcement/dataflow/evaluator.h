// Evaluation episodes of a deterministic policy, as Stable-Baselines3's evaluate_policy: `envs`
// environments run until environment i has finished its share of the episodes (episodes / envs,
// the first episodes % envs one more), so short episodes are not over-counted.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/tensor.h"

namespace spire::rl::dataflow {

struct Evaluation {
  std::vector<double> returns;
  std::vector<int64_t> lengths;
  double mean_return() const;
  double std_return() const;  // population standard deviation, as NumPy's std
  double mean_length() const;
};

// act: observations [envs, obs_dim] float32 -> int64 [envs] or float32 [envs, act_dim].
// Environment i is reset with seed + i.
Evaluation evaluate(const std::function<Tensor(const Tensor&)>& act, const std::string& env_id,
                    int64_t max_episode_steps, int64_t episodes, int64_t envs, uint64_t seed);

}  // namespace spire::rl::dataflow
