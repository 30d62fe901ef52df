// Deep Q-learning (Mnih et al., Nature 2015) as dataflow fragments, with the usual extensions:
// double Q-learning targets (van Hasselt, Guez, Silver, AAAI 2016), dueling heads (Wang et al.,
// ICML 2016), n-step returns and prioritized replay (replay.h). Keys and defaults follow
// Stable-Baselines3's DQN; docs/rl_dqn.md lists them.
//
// Actors act epsilon-greedily with a copy of the online network and send every step, reset steps
// masked out; the learner owns the replay buffer, the online and target networks and Adam.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/data/job_file.h"
#include "engine/nn/containers.h"
#include "engine/ops/random.h"
#include "reinforcement/dataflow/fragment.h"

namespace spire::rl::agents {

struct DqnConfig {
  double lr = 1e-4;
  std::string lr_schedule = "constant";  // "linear": lr (1 - env_steps / total_steps), as SB3's linear schedule
  int64_t buffer_size = 1000000;
  int64_t learning_starts = 100;  // env steps of uniformly random actions before the first update
  int64_t batch_size = 32;
  double tau = 1.0;  // target <- tau online + (1 - tau) target, every target_update_interval env steps
  double gamma = 0.99;
  int64_t train_freq = 4;       // env steps per environment between updates (rollout_steps())
  int64_t gradient_steps = 1;   // per update; -1: train_freq
  int64_t target_update_interval = 10000;  // in env steps over all environments, as SB3
  double exploration_fraction = 0.1;
  double exploration_initial_eps = 1.0;
  double exploration_final_eps = 0.05;
  double max_grad_norm = 10;
  std::vector<int> hidden{64, 64};
  std::string activation = "relu";
  bool double_q = true;  // key "double"
  bool dueling = false;
  int64_t n_step = 1;
  bool prioritized = false;
  double alpha = 0.6, beta = 0.4, beta_final = 1.0, priority_eps = 1e-6;
  std::string loss = "huber";  // "huber" (SB3's smooth L1) or "mse"

  // Reads the [dqn] section (every key optional) and calls finish() on it.
  static DqnConfig read(data::JobSection& section);
  std::string to_toml() const;
};

// SB3's get_linear_fn: start -> end linearly over the first `fraction` of progress in [0, 1], then
// end.
double linear_schedule(double start, double end, double fraction, double progress);

// Q(s, .) for a batch of observations. Plain: an MLP from observations to one value per action.
// Dueling: a shared torso (the hidden layers, each followed by the activation), a value head
// (-> 1) and an advantage head (-> A), Q = V + A - mean_a A.
class QNetwork : public nn::Module {
 public:
  QNetwork(int64_t obs_dim, int64_t num_actions, const std::vector<int>& hidden, const std::string& activation,
           bool dueling, spire::Generator& gen);
  using Module::forward;
  Tensor forward(const Tensor& observations) override;  // [n, obs_dim] -> [n, A]
  bool dueling() const { return dueling_; }
  int64_t num_actions() const { return num_actions_; }
  // Dueling only: the submodules.
  nn::ModulePtr torso() const { return torso_; }
  nn::ModulePtr value_head() const { return value_; }
  nn::ModulePtr advantage_head() const { return advantage_; }

 private:
  int64_t num_actions_;
  bool dueling_;
  nn::ModulePtr torso_, value_, advantage_;  // plain: torso_ is the whole MLP
};

// The bootstrap targets R + discount * Q'(s', a*) of a batch (no gradient): a* = argmax_a Q(s', a)
// of the online network when double_q, else of the target network itself (max_a Q'(s', a)).
Tensor q_targets(QNetwork& online, QNetwork& target, const Tensor& returns, const Tensor& next_observations,
                 const Tensor& discounts, bool double_q);

// The algorithm behind register_algorithm("dqn"): reads [dqn] from section.
std::unique_ptr<dataflow::Algorithm> make_dqn(data::JobSection& section, const dataflow::RunSettings& run);

}  // namespace spire::rl::agents
