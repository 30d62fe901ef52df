// The policy and value networks of the on-policy agents (PPO, A2C), as Stable-Baselines3's
// MlpPolicy: two separate MLPs from the observation, one to the action distribution's parameters
// (pi) and one to the state value (vf). Discrete actions follow a categorical distribution over the
// logits; Box actions a diagonal normal whose log standard deviation is a parameter of its own,
// independent of the state (SB3's DiagGaussianDistribution, log_std_init).
//
// Box actions are sampled without bounds and stored so (the log-probabilities are of what was
// drawn); only the copy sent to the environment is clipped to the space's bounds, as SB3 does.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/nn/containers.h"
#include "engine/ops/random.h"
#include "reinforcement/envs/spaces.h"

namespace spire::rl::agents {

struct PolicyConfig {
  std::vector<int> hidden{64, 64};  // the layers of each of pi and vf (SB3's net_arch)
  std::string activation = "tanh";
  double log_std_init = 0.0;        // Box only
};

class ActorCritic : public nn::Module {
 public:
  // Weights orthogonal: gain sqrt(2) on hidden layers, 0.01 on the policy head, 1 on the value head.
  ActorCritic(const Space& observation_space, const Space& action_space, const PolicyConfig& config,
              spire::Generator& gen);

  bool continuous() const { return continuous_; }
  int64_t obs_dim() const { return obs_dim_; }
  int64_t act_dim() const { return act_dim_; }  // a Box's element count; 1 for Discrete
  const Space& action_space() const { return action_space_; }

  // Observations [n, obs_dim] float32. Actions are int64 [n] category indices (Discrete, without
  // the space's start) or float32 [n, act_dim] (Box, unclipped).
  struct Evaluation {
    Tensor log_prob, entropy, value;  // each [n]; log_prob and entropy summed over a Box's elements
  };
  // Recorded for gradients when gradient mode is on.
  Evaluation evaluate(const Tensor& observations, const Tensor& actions);
  Tensor value(const Tensor& observations);  // [n]

  struct Sample {
    Tensor actions, log_prob, value;
  };
  // Draws actions with gen, without history.
  Sample sample(const Tensor& observations, spire::Generator& gen);
  // The most probable action (Discrete: the index; Box: the mean, unclipped), without history.
  Tensor mode(const Tensor& observations);

  using Module::forward;
  Tensor forward(const Tensor& observations) override { return mode(observations); }

 private:
  Tensor pi(const Tensor& observations) { return (*pi_)(observations); }

  Space action_space_;
  bool continuous_;
  int64_t obs_dim_, act_dim_;
  std::shared_ptr<nn::Sequential> pi_, vf_;
  Tensor log_std_;
};

// Clips rows of Box actions (row-major, space.size() per row) to the space's bounds in place.
void clip_to_bounds(const Space& space, std::span<float> actions);

}  // namespace spire::rl::agents
