// Advantage actor-critic (Mnih et al. 2016, synchronous), as Stable-Baselines3's A2C: each update
// is one gradient step on the whole rollout of every actor (n_steps per environment, autoreset
// rows left out):
//   loss = -mean(A log pi(a|s)) + ent_coef (-mean(entropy)) + vf_coef mean((returns - V)^2),
// with RMSprop (alpha 0.99, eps 1e-5) by default, or Adam. Keys and defaults in docs/rl_ppo.md.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "engine/data/job_file.h"
#include "reinforcement/agents/on_policy.h"

namespace spire::rl::agents {

struct A2cConfig : OnPolicyConfig {
  std::string optimizer = "rmsprop";  // or "adam" (SB3's use_rms_prop = false)
  double rms_prop_eps = 1e-5;         // RMSprop's eps; its alpha is 0.99, as SB3's
  double adam_eps = 1e-5;

  A2cConfig() {
    n_steps = 5;
    lr = 7e-4;
    gamma = 0.99;
    gae_lambda = 1.0;
    normalize_advantage = false;
  }
  // Reads the [a2c] section (every key optional) and calls finish() on it.
  static A2cConfig read(data::JobSection& section);
  std::string to_toml() const;  // "[a2c]\n..."
};

// The terms of A2C's loss on a batch (total is what is minimised); all inputs [n], one dtype.
// Advantages normalised as PPO's when normalize_advantage.
struct A2cLoss {
  Tensor policy, value, entropy, total;  // entropy: -mean(entropy)
};
A2cLoss a2c_loss(const Tensor& log_prob, const Tensor& advantages, const Tensor& values, const Tensor& returns,
                 const Tensor& entropy, double ent_coef, double vf_coef, bool normalize_advantage);

std::unique_ptr<dataflow::Learner> make_a2c_learner(const A2cConfig& config, const dataflow::RunSettings& run,
                                                    const Space& observation_space, const Space& action_space);

// The algorithm behind the name "a2c": reads [a2c] from section.
std::unique_ptr<dataflow::Algorithm> make_a2c(data::JobSection& section, const dataflow::RunSettings& run);

}  // namespace spire::rl::agents
