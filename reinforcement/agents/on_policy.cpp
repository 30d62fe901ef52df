#include "reinforcement/agents/on_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"
#include "engine/optim/clip.h"
#include "reinforcement/agents/gae.h"
#include "reinforcement/agents/networks.h"

namespace spire::rl::agents {

using dataflow::Episodes;
using dataflow::Parameters;
using dataflow::Trajectory;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string bool_toml(bool b) { return b ? "true" : "false"; }

std::string ints_toml(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// The values of a float32 tensor, contiguous, as a span valid while `keep` lives.
std::span<const float> floats(const Tensor& t, Tensor& keep) {
  SPIRE_CHECK(t.dtype() == DType::Float32, DTypeError, "on-policy rollout: expected a float32 field, got ",
              name(t.dtype()));
  keep = contiguous(t);
  return {keep.data<float>(), size_t(keep.numel())};
}

// SB3's explained_variance over the given rows: 1 - Var(returns - values) / Var(returns), NaN when
// Var(returns) is 0.
double explained_variance(std::span<const float> values, std::span<const float> returns,
                          const std::vector<int64_t>& rows) {
  const double n = double(rows.size());
  double mean_r = 0, mean_d = 0;
  for (int64_t i : rows) {
    mean_r += returns[size_t(i)] / n;
    mean_d += (double(returns[size_t(i)]) - values[size_t(i)]) / n;
  }
  double var_r = 0, var_d = 0;
  for (int64_t i : rows) {
    const double r = returns[size_t(i)], d = r - values[size_t(i)];
    var_r += (r - mean_r) * (r - mean_r);
    var_d += (d - mean_d) * (d - mean_d);
  }
  return var_r == 0 ? std::nan("") : 1.0 - var_d / var_r;
}

}  // namespace

const std::vector<std::string>& schedule_names() {
  static const std::vector<std::string> names{"constant", "linear"};
  return names;
}

double scheduled(const std::string& schedule, double initial, double progress_remaining) {
  if (schedule == "constant") return initial;
  SPIRE_CHECK(schedule == "linear", ValueError, "unknown schedule '", schedule, "'; allowed: constant, linear");
  return initial * progress_remaining;
}

void OnPolicyConfig::read(data::JobSection& s) {
  s.integer("n_steps", n_steps, 1);
  s.number("lr", lr, 0, kInf, true);
  s.string("lr_schedule", lr_schedule, schedule_names());
  s.number("gamma", gamma, 0, 1);
  s.number("gae_lambda", gae_lambda, 0, 1);
  s.number("ent_coef", ent_coef, 0, kInf);
  s.number("vf_coef", vf_coef, 0, kInf);
  s.number("max_grad_norm", max_grad_norm, 0, kInf, true);
  s.boolean("normalize_advantage", normalize_advantage);
  s.integers("hidden", policy.hidden, 1);
  s.string("activation", policy.activation, activation_names());
  s.number("log_std_init", policy.log_std_init, -20, 20);
}

std::string OnPolicyConfig::to_toml() const {
  using data::toml_number;
  using data::toml_string;
  return "n_steps = " + std::to_string(n_steps) + "\nlr = " + toml_number(lr) +
         "\nlr_schedule = " + toml_string(lr_schedule) + "\ngamma = " + toml_number(gamma) +
         "\ngae_lambda = " + toml_number(gae_lambda) + "\nent_coef = " + toml_number(ent_coef) +
         "\nvf_coef = " + toml_number(vf_coef) + "\nmax_grad_norm = " + toml_number(max_grad_norm) +
         "\nnormalize_advantage = " + bool_toml(normalize_advantage) + "\nhidden = " + ints_toml(policy.hidden) +
         "\nactivation = " + toml_string(policy.activation) + "\nlog_std_init = " + toml_number(policy.log_std_init) +
         "\n";
}

// ---------------------------------------------------------------------------------------------
// Actor

OnPolicyActor::OnPolicyActor(int64_t index, dataflow::Environments& envs, const PolicyConfig& policy,
                             int64_t n_steps, uint64_t seed)
    : envs_(envs), gen_(seed, kActorStream + uint64_t(index)), n_steps_(n_steps), seed_(seed) {
  spire::Generator init(seed, kLearnerStream);  // overwritten by load(); only the shapes matter
  net_ = std::make_shared<ActorCritic>(envs.observation_space(), envs.action_space(), policy, init);
}

void OnPolicyActor::load(const Parameters& parameters) { load_parameters(*net_, parameters.tensors); }

Trajectory OnPolicyActor::collect() {
  const int64_t N = envs_.num_envs(), D = net_->obs_dim(), A = net_->act_dim(), T = n_steps_;
  const bool box = net_->continuous();
  const Space& space = envs_.action_space();
  if (!started_) {
    VectorBatch b = envs_.reset(seed_);
    obs_.assign(b.obs.begin(), b.obs.end());
    resetting_.assign(size_t(N), 0);
    episode_return_.assign(size_t(N), 0.0);
    episode_length_.assign(size_t(N), 0);
    started_ = true;
  }
  const size_t rows = size_t(T * N);
  std::vector<float> obs(rows * size_t(D)), log_prob(rows), value(rows), reward(rows), terminated(rows),
      truncated(rows), valid(rows);
  std::vector<float> box_actions(box ? rows * size_t(A) : 0), send_box(box ? size_t(N * A) : 0);
  std::vector<int64_t> actions(box ? 0 : rows), send(box ? 0 : size_t(N));
  Episodes episodes;
  for (int64_t t = 0; t < T; ++t) {
    const size_t first = size_t(t * N);
    std::copy(obs_.begin(), obs_.end(), obs.begin() + std::ptrdiff_t(first * size_t(D)));
    ActorCritic::Sample s = net_->sample(from_vector(obs_, {N, D}), gen_);
    Tensor lp = contiguous(s.log_prob), v = contiguous(s.value), a = contiguous(s.actions);
    std::copy_n(lp.data<float>(), N, log_prob.begin() + std::ptrdiff_t(first));
    std::copy_n(v.data<float>(), N, value.begin() + std::ptrdiff_t(first));
    VectorBatch b;
    if (box) {
      std::copy_n(a.data<float>(), N * A, box_actions.begin() + std::ptrdiff_t(first * size_t(A)));
      std::copy_n(a.data<float>(), N * A, send_box.begin());
      clip_to_bounds(space, send_box);
      b = envs_.step(std::span<const float>(send_box));
    } else {
      const int64_t* idx = a.data<int64_t>();
      std::copy_n(idx, N, actions.begin() + std::ptrdiff_t(first));
      for (int64_t e = 0; e < N; ++e) send[size_t(e)] = idx[e] + space.start();
      b = envs_.step(std::span<const int64_t>(send));
    }
    for (size_t e = 0; e < size_t(N); ++e) {
      const size_t i = first + e;
      const bool done = b.terminated[e] || b.truncated[e];
      reward[i] = float(b.rewards[e]);
      terminated[i] = b.terminated[e] ? 1.0f : 0.0f;
      truncated[i] = b.truncated[e] ? 1.0f : 0.0f;
      valid[i] = resetting_[e] ? 0.0f : 1.0f;
      if (!resetting_[e]) {
        episode_return_[e] += b.rewards[e];
        ++episode_length_[e];
        if (done) {
          episodes.returns.push_back(episode_return_[e]);
          episodes.lengths.push_back(episode_length_[e]);
          episode_return_[e] = 0;
          episode_length_[e] = 0;
        }
      }
      resetting_[e] = done;
    }
    obs_.assign(b.obs.begin(), b.obs.end());
  }
  Trajectory traj;
  traj.env_steps = T * N;
  traj.episodes = std::move(episodes);
  traj.add("obs", from_vector(obs, {T, N, D}));
  traj.add("actions", box ? from_vector(box_actions, {T, N, A}) : from_vector(actions, {T, N}));
  traj.add("log_prob", from_vector(log_prob, {T, N}));
  traj.add("value", from_vector(value, {T, N}));
  traj.add("reward", from_vector(reward, {T, N}));
  traj.add("terminated", from_vector(terminated, {T, N}));
  traj.add("truncated", from_vector(truncated, {T, N}));
  traj.add("valid", from_vector(valid, {T, N}));
  traj.add("final_obs", from_vector(obs_, {N, D}), 0);
  return traj;
}

optim::StateDict OnPolicyActor::state_dict() const {
  optim::StateDict s;
  s.set("generator.seed", int64_t(gen_.seed()));
  s.set("generator.offset", int64_t(gen_.offset()));
  return s;
}

void OnPolicyActor::load_state_dict(const optim::StateDict& state) {
  const int64_t seed = state.integer("generator.seed"), offset = state.integer("generator.offset");
  gen_ = spire::Generator(uint64_t(seed), gen_.stream());
  gen_.set_offset(uint64_t(offset));
}

// ---------------------------------------------------------------------------------------------
// The learner's side of a rollout

PreparedRollout prepare_rollout(std::vector<Trajectory> trajectories, ActorCritic& net, double gamma,
                                double gae_lambda, int64_t current_version) {
  SPIRE_CHECK(!trajectories.empty(), ValueError, "on-policy update: got no trajectories");
  Trajectory t = dataflow::join(std::move(trajectories));
  const Tensor& obs = t["obs"];
  SPIRE_CHECK(obs.dim() == 3 && obs.shape(2) == net.obs_dim(), ShapeError,
              "on-policy update: expected obs [T, N, ", net.obs_dim(), "], got ", shape_str(obs.shape()));
  const int64_t T = obs.shape(0), N = obs.shape(1);
  Tensor last_values;
  {
    NoGradGuard no_grad;
    last_values = net.value(contiguous(t["final_obs"]));
    // Rollouts collected with older parameters (an asynchronous policy's actors act with whatever
    // they have): their log-probabilities and values are recomputed with the learner's network, so
    // the update starts from the current policy (ratio 1) and the clip bounds its step from there,
    // as RLlib's APPO does without V-trace. Keeping the acting policy's log-probabilities instead
    // clips most of a stale batch away and failed CartPole on 3 of 4 asynchronous runs that this
    // solved (docs/rl_ppo.md). Synchronous rollouts are never stale: nothing changes for them.
    if (t.version < current_version) {
      ActorCritic::Evaluation e =
          net.evaluate(flatten(contiguous(obs), 0, 1), flatten(contiguous(t["actions"]), 0, 1));
      for (auto& f : t.fields) {
        if (f.name == "value") f.value = reshape(e.value, {T, N});
        if (f.name == "log_prob") f.value = reshape(e.log_prob, {T, N});
      }
    }
  }
  Tensor k1, k2, k3, k4, k5, k6;
  GaeRollout g{.steps = T,
               .envs = N,
               .rewards = floats(t["reward"], k1),
               .values = floats(t["value"], k2),
               .terminated = floats(t["terminated"], k3),
               .truncated = floats(t["truncated"], k4),
               .valid = floats(t["valid"], k5),
               .last_values = floats(last_values, k6)};
  Advantages adv = generalized_advantages(g, gamma, gae_lambda);

  std::vector<int64_t> rows;
  for (size_t i = 0; i < g.valid.size(); ++i)
    if (g.valid[i] != 0) rows.push_back(int64_t(i));
  PreparedRollout out;
  out.env_steps = t.env_steps;
  out.episodes = std::move(t.episodes);
  const int64_t M = int64_t(rows.size());
  Batch& b = out.batch;
  b.size = M;
  if (M == 0) return out;
  out.explained_variance = explained_variance(g.values, adv.returns, rows);

  Tensor index = from_vector(rows, {M});
  // [T, N, ...] -> the valid rows of [T * N, ...]
  auto pick = [&](const Tensor& x) { return index_select(flatten(contiguous(x), 0, 1), 0, index); };
  b.observations = pick(obs);
  b.actions = pick(t["actions"]);
  b.log_prob = pick(t["log_prob"]);
  b.values = pick(t["value"]);
  b.advantages = index_select(from_vector(adv.advantages, {T * N}), 0, index);
  b.returns = index_select(from_vector(adv.returns, {T * N}), 0, index);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Learner

OnPolicyLearner::OnPolicyLearner(const Space& observation_space, const Space& action_space,
                                 const OnPolicyConfig& config, const dataflow::RunSettings& run)
    : config_(config), run_(run), gen_(run.seed, kLearnerStream) {
  net_ = std::make_shared<ActorCritic>(observation_space, action_space, config.policy, gen_);
}

Parameters OnPolicyLearner::parameters() const { return {version_, env_steps_, copy_parameters(*net_)}; }

train::Logs OnPolicyLearner::update(std::vector<Trajectory> trajectories) {
  PreparedRollout r = prepare_rollout(std::move(trajectories), *net_, config_.gamma, config_.gae_lambda, version_);
  env_steps_ += r.env_steps;
  const double progress_remaining =
      std::max(0.0, 1.0 - double(env_steps_) / double(std::max<int64_t>(run_.total_steps, 1)));
  train::Logs logs = optimize(r.batch, progress_remaining);
  logs.set("explained_variance", r.explained_variance);
  ++version_;
  return logs;
}

double OnPolicyLearner::set_scheduled_lr(double progress_remaining) {
  double lr = scheduled(config_.lr_schedule, config_.lr, progress_remaining);
  optimizer().set_lr(lr);
  return lr;
}

void OnPolicyLearner::step(const Tensor& loss) {
  optimizer().zero_grad();
  loss.backward();
  optim::clip_grad_norm_(optimizer().params(), config_.max_grad_norm);
  optimizer().step();
}

Tensor OnPolicyLearner::act(const Tensor& observations) {
  SPIRE_CHECK(observations.dim() == 2 && observations.shape(1) == net_->obs_dim() &&
                  observations.dtype() == DType::Float32,
              ShapeError, "act: expected float32 observations [n, ", net_->obs_dim(), "], got ",
              name(observations.dtype()), " ", shape_str(observations.shape()));
  Tensor mode = net_->mode(observations);
  const Space& space = net_->action_space();
  if (!net_->continuous()) return space.start() == 0 ? mode : mode + Scalar(space.start());
  Tensor clipped = copy(mode);
  clip_to_bounds(space, {clipped.data<float>(), size_t(clipped.numel())});
  return clipped;
}

optim::StateDict OnPolicyLearner::state_dict() const {
  optim::StateDict s;
  for (auto& [name, p] : net_->named_parameters()) s.set("network." + name, copy(p.detach()));
  const optim::StateDict opt = optimizer().state_dict();
  // A copy: optimizers may update their moments in place.
  for (auto& [key, value] : opt.items())
    s.set("optimizer." + key, std::holds_alternative<Tensor>(value) ? optim::StateValue(copy(std::get<Tensor>(value)))
                                                                    : value);
  s.set("generator.seed", int64_t(gen_.seed()));
  s.set("generator.offset", int64_t(gen_.offset()));
  s.set("version", version_);
  s.set("env_steps", env_steps_);
  return s;
}

void OnPolicyLearner::load_state_dict(const optim::StateDict& state) {
  std::vector<Tensor> values;
  for (auto& [name, p] : net_->named_parameters()) values.push_back(state.tensor("network." + name));
  optim::StateDict opt;
  const std::string prefix = "optimizer.";
  for (auto& [key, value] : state.items())
    if (key.compare(0, prefix.size(), prefix) == 0) opt.set(key.substr(prefix.size()), value);
  const int64_t seed = state.integer("generator.seed"), offset = state.integer("generator.offset"),
                version = state.integer("version"),
                env_steps = state.integer("env_steps");
  load_parameters(*net_, values);
  optimizer().load_state_dict(opt);
  gen_ = spire::Generator(uint64_t(seed), kLearnerStream);
  gen_.set_offset(uint64_t(offset));
  version_ = version;
  env_steps_ = env_steps;
}

}  // namespace spire::rl::agents
