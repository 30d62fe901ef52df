// Generalized advantage estimation (Schulman et al. 2016) over a rollout collected with Gymnasium's
// next-step autoreset, in Stable-Baselines3's form:
//   delta_t = r_t + gamma V(s_{t+1}) [not terminated_t] - V(s_t)
//   A_t     = delta_t + gamma lambda [not done_t] A_{t+1},   done = terminated or truncated
//   return_t = A_t + V(s_t)
// A truncated step still bootstraps from the value of its final observation: that observation is
// the next row's (the autoreset step that follows stores it), or the rollout's last observation.
// A terminated one does not. Autoreset steps (valid 0) carry no transition: their advantage is 0,
// their return their value, and they are to be left out of every loss.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace spire::rl::agents {

// Time-major rows: entry t * envs + e is environment e's step t. Flags are 0 or 1.
struct GaeRollout {
  int64_t steps = 0, envs = 0;
  std::span<const float> rewards, values, terminated, truncated, valid;
  std::span<const float> last_values;  // [envs]: V of the observation after the last step
};

struct Advantages {
  std::vector<float> advantages, returns;
};

// Sums in double, stored in float32.
Advantages generalized_advantages(const GaeRollout& rollout, double gamma, double lambda);

}  // namespace spire::rl::agents
