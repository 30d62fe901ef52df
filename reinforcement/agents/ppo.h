// Proximal policy optimisation (Schulman et al. 2017) with the clipped surrogate objective, as
// Stable-Baselines3's PPO: each update takes every actor's rollout as one batch of valid rows and
// runs n_epochs passes over it in shuffled minibatches of batch_size (the last one partial), each
// an Adam step on
//   loss = -mean(min(A r, A clip(r, 1 - eps, 1 + eps))) + ent_coef (-mean(entropy))
//          + vf_coef mean((returns - V')^2),
// r = exp(log pi(a|s) - log pi_old(a|s)), A the advantages (normalised per minibatch when
// normalize_advantage), V' the values, clipped to old +- clip_range_vf when that is > 0.
// Discrete and Box action spaces (actor_critic.h); keys and defaults in docs/rl_ppo.md.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "engine/data/job_file.h"
#include "reinforcement/agents/on_policy.h"

namespace spire::rl::agents {

struct PpoConfig : OnPolicyConfig {
  int64_t batch_size = 64;
  int64_t n_epochs = 10;
  double clip_range = 0.2;
  std::string clip_range_schedule = "constant";  // or "linear", as lr_schedule
  double clip_range_vf = 0;  // 0: values not clipped
  double target_kl = 0;      // > 0: stop the update's epochs once approx_kl > 1.5 target_kl, as SB3
  double adam_eps = 1e-5;

  PpoConfig() {
    n_steps = 2048;
    lr = 3e-4;
    gamma = 0.99;
    gae_lambda = 0.95;
    normalize_advantage = true;
  }
  // Reads the [ppo] section (every key optional) and calls finish() on it.
  static PpoConfig read(data::JobSection& section);
  std::string to_toml() const;  // "[ppo]\n..."
};

// The terms of the loss on one minibatch (total is what is minimised).
struct PpoLoss {
  Tensor policy, value, entropy, total;  // entropy: SB3's entropy_loss, -mean(entropy)
  Tensor approx_kl, clip_fraction;       // without history
};
struct PpoLossSettings {
  double clip_range = 0.2, clip_range_vf = 0, ent_coef = 0, vf_coef = 0.5;
  bool normalize_advantage = true;
};
// All inputs [n], of one floating dtype. Advantages are normalised as SB3 does: (A - mean) /
// (std + 1e-8), std with Bessel's correction, when normalize_advantage and n > 1.
PpoLoss ppo_loss(const Tensor& log_prob, const Tensor& old_log_prob, const Tensor& advantages, const Tensor& values,
                 const Tensor& old_values, const Tensor& returns, const Tensor& entropy, const PpoLossSettings& s);

std::unique_ptr<dataflow::Learner> make_ppo_learner(const PpoConfig& config, const dataflow::RunSettings& run,
                                                    const Space& observation_space, const Space& action_space);

// The algorithm behind the name "ppo": reads [ppo] from section.
std::unique_ptr<dataflow::Algorithm> make_ppo(data::JobSection& section, const dataflow::RunSettings& run);

}  // namespace spire::rl::agents
