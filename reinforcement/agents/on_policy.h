// What PPO and A2C share, written as dataflow fragments: the actor that collects n_steps of its
// environments with the current policy, and the learner's side of a rollout (joining the actors'
// trajectories, advantages, the valid rows as one batch, learning-rate schedules, checkpoints).
// The algorithms differ only in how they turn that batch into gradient steps (OnPolicyLearner::
// optimize).
//
// A trajectory of T steps of N environments holds, time-major ([T, N, ...]):
//   obs [T, N, obs_dim], actions [T, N] int64 (Discrete indices) or [T, N, act_dim] float32 (Box,
//   unclipped), log_prob, value, reward, terminated, truncated, valid [T, N] float32;
// and per environment ([N, obs_dim], env_axis 0) final_obs, the observation after the last step, to
// bootstrap from. valid is 0 on Gymnasium's autoreset steps (the step after an episode ended, whose
// action the environment ignored): they are masked out of every loss term and statistic.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/optim/optimizer.h"
#include "reinforcement/agents/actor_critic.h"
#include "reinforcement/dataflow/fragment.h"

namespace spire::rl::agents {

// Generator streams of an on-policy run: the learner draws the network's initial weights and the
// minibatch shuffles from (seed, kLearnerStream); actor a samples its actions from
// (seed, kActorStream + a), wherever it runs.
inline constexpr uint64_t kLearnerStream = 101;
inline constexpr uint64_t kActorStream = 1000;

// The settings PPO and A2C share (SB3's names).
struct OnPolicyConfig {
  int64_t n_steps = 2048;
  double lr = 3e-4;
  std::string lr_schedule = "constant";  // or "linear": lr * progress_remaining
  double gamma = 0.99, gae_lambda = 0.95;
  double ent_coef = 0.0, vf_coef = 0.5, max_grad_norm = 0.5;
  bool normalize_advantage = true;
  PolicyConfig policy;

  // Reads these keys of `section` (not finish()), checking each one's range.
  void read(data::JobSection& section);
  // "key = value" lines of these keys.
  std::string to_toml() const;
};

// SB3's schedules of progress_remaining (1 at the start of a run, 0 at its end): "constant" gives
// initial, "linear" initial * progress_remaining.
double scheduled(const std::string& schedule, double initial, double progress_remaining);
const std::vector<std::string>& schedule_names();

class OnPolicyActor final : public dataflow::Actor {
 public:
  OnPolicyActor(int64_t index, dataflow::Environments& envs, const PolicyConfig& policy, int64_t n_steps,
                uint64_t seed);
  void load(const dataflow::Parameters& parameters) override;
  dataflow::Trajectory collect() override;
  // "generator.seed" and "generator.offset". The environments' own state is not the actor's: a
  // resumed actor resets them with the run's seed on its first collect, as a new one does.
  optim::StateDict state_dict() const override;
  void load_state_dict(const optim::StateDict& state) override;

 private:
  dataflow::Environments& envs_;
  std::shared_ptr<ActorCritic> net_;
  spire::Generator gen_;
  int64_t n_steps_;
  uint64_t seed_;
  bool started_ = false;
  std::vector<float> obs_;           // the environments' current observations
  std::vector<uint8_t> resetting_;   // the environment's next step is an autoreset step
  std::vector<double> episode_return_;
  std::vector<int64_t> episode_length_;
};

// The valid rows of a joined rollout, in (step, environment) order, one tensor per field.
struct Batch {
  Tensor observations, actions, log_prob, values, advantages, returns;
  int64_t size = 0;
};

// Turns trajectories into a Batch: joined along their environments, advantages from
// generalized_advantages (the last values from `net` on the final observations), autoreset rows
// dropped. explained_variance is SB3's, of the values against the returns over those rows.
// Trajectories older than current_version (collected with older parameters) get their log_prob
// and value recomputed with `net` first; -1: keep them all as collected.
struct PreparedRollout {
  Batch batch;
  int64_t env_steps = 0;
  double explained_variance = 0;
  dataflow::Episodes episodes;
};
PreparedRollout prepare_rollout(std::vector<dataflow::Trajectory> trajectories, ActorCritic& net, double gamma,
                                double gae_lambda, int64_t current_version = -1);

class OnPolicyLearner : public dataflow::Learner {
 public:
  OnPolicyLearner(const Space& observation_space, const Space& action_space, const OnPolicyConfig& config,
                  const dataflow::RunSettings& run);
  dataflow::Parameters parameters() const override;
  train::Logs update(std::vector<dataflow::Trajectory> trajectories) override;
  Tensor act(const Tensor& observations) override;
  // "network.<parameter>", "optimizer.<key>", "generator.seed", "generator.offset", "version",
  // "env_steps".
  optim::StateDict state_dict() const override;
  void load_state_dict(const optim::StateDict& state) override;

  ActorCritic& network() { return *net_; }

 protected:
  // The gradient steps of one update on the rollout's batch; progress_remaining as SB3 computes it
  // after the rollout (1 - env steps so far / total_steps, at least 0). Returns the logs.
  virtual train::Logs optimize(const Batch& batch, double progress_remaining) = 0;
  virtual optim::Optimizer& optimizer() = 0;
  virtual const optim::Optimizer& optimizer() const = 0;
  // The learning rate of this update, set on the optimizer.
  double set_scheduled_lr(double progress_remaining);
  // Clips the gradients to max_grad_norm and steps the optimizer.
  void step(const Tensor& loss);

  OnPolicyConfig config_;
  dataflow::RunSettings run_;
  spire::Generator gen_;
  std::shared_ptr<ActorCritic> net_;
  int64_t version_ = 0, env_steps_ = 0;
};

// An on-policy algorithm: OnPolicyActors of n_steps, and the learner its factory makes.
class OnPolicyAlgorithm final : public dataflow::Algorithm {
 public:
  using LearnerFactory = std::function<std::unique_ptr<dataflow::Learner>(const Space&, const Space&)>;
  OnPolicyAlgorithm(std::string name, const OnPolicyConfig& config, const dataflow::RunSettings& run,
                    std::string toml, LearnerFactory learner)
      : name_(std::move(name)), config_(config), run_(run), toml_(std::move(toml)), learner_(std::move(learner)) {}
  std::string name() const override { return name_; }
  int64_t rollout_steps() const override { return config_.n_steps; }
  std::unique_ptr<dataflow::Actor> make_actor(int64_t index, dataflow::Environments& envs) override {
    return std::make_unique<OnPolicyActor>(index, envs, config_.policy, config_.n_steps, run_.seed);
  }
  std::unique_ptr<dataflow::Learner> make_learner(const Space& observation_space, const Space& action_space) override {
    return learner_(observation_space, action_space);
  }
  std::string to_toml() const override { return toml_; }

 private:
  std::string name_;
  OnPolicyConfig config_;
  dataflow::RunSettings run_;
  std::string toml_;
  LearnerFactory learner_;
};

}  // namespace spire::rl::agents
