#include "reinforcement/agents/dqn.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "engine/nn/functional/loss.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"
#include "engine/optim/adam.h"
#include "engine/optim/clip.h"
#include "reinforcement/agents/networks.h"
#include "reinforcement/agents/replay.h"

namespace spire::rl::agents {

using dataflow::Parameters;
using dataflow::RunSettings;
using dataflow::Trajectory;

namespace {

// Generator streams: the learner's (network initialisation, replay sampling) and actor a's
// (exploration), so that no draw depends on where a fragment runs.
constexpr uint64_t kLearnerStream = 0x44514e00;  // "DQN\0"
constexpr uint64_t kActorStream = 0x44514e01;

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

// --- Configuration ---

DqnConfig DqnConfig::read(data::JobSection& s) {
  DqnConfig c;
  s.number("lr", c.lr, 0, kInf, true);
  s.string("lr_schedule", c.lr_schedule, {"constant", "linear"});
  s.integer("buffer_size", c.buffer_size, 1);
  s.integer("learning_starts", c.learning_starts, 0);
  s.integer("batch_size", c.batch_size, 1);
  s.number("tau", c.tau, 0, 1, true);
  s.number("gamma", c.gamma, 0, 1);
  s.integer("train_freq", c.train_freq, 1);
  s.integer("gradient_steps", c.gradient_steps, -1);
  SPIRE_CHECK(c.gradient_steps != 0, ConfigError, s.where(), ": ", s.name(),
              ".gradient_steps must be >= 1, or -1 (as many as train_freq), got 0");
  s.integer("target_update_interval", c.target_update_interval, 1);
  s.number("exploration_fraction", c.exploration_fraction, 0, 1);
  s.number("exploration_initial_eps", c.exploration_initial_eps, 0, 1);
  s.number("exploration_final_eps", c.exploration_final_eps, 0, 1);
  s.number("max_grad_norm", c.max_grad_norm, 0, kInf, true);
  s.integers("hidden", c.hidden, 1);
  s.string("activation", c.activation, activation_names());
  s.boolean("double", c.double_q);
  s.boolean("dueling", c.dueling);
  SPIRE_CHECK(!c.dueling || !c.hidden.empty(), ConfigError, s.where(), ": ", s.name(),
              ".dueling needs at least one hidden layer (the shared torso); hidden is []");
  s.integer("n_step", c.n_step, 1);
  s.boolean("prioritized", c.prioritized);
  s.number("alpha", c.alpha, 0, 1);
  s.number("beta", c.beta, 0, 1);
  s.number("beta_final", c.beta_final, 0, 1);
  s.number("priority_eps", c.priority_eps, 0, kInf, true);
  s.string("loss", c.loss, {"huber", "mse"});
  s.finish();
  return c;
}

std::string DqnConfig::to_toml() const {
  using data::toml_number;
  using data::toml_string;
  std::ostringstream o;
  auto flag = [](bool b) { return b ? "true" : "false"; };
  o << "[dqn]\n"
    << "lr = " << toml_number(lr) << "\n"
    << "lr_schedule = " << toml_string(lr_schedule) << "\n"
    << "buffer_size = " << buffer_size << "\n"
    << "learning_starts = " << learning_starts << "\n"
    << "batch_size = " << batch_size << "\n"
    << "tau = " << toml_number(tau) << "\n"
    << "gamma = " << toml_number(gamma) << "\n"
    << "train_freq = " << train_freq << "\n"
    << "gradient_steps = " << gradient_steps << "\n"
    << "target_update_interval = " << target_update_interval << "\n"
    << "exploration_fraction = " << toml_number(exploration_fraction) << "\n"
    << "exploration_initial_eps = " << toml_number(exploration_initial_eps) << "\n"
    << "exploration_final_eps = " << toml_number(exploration_final_eps) << "\n"
    << "max_grad_norm = " << toml_number(max_grad_norm) << "\n"
    << "hidden = [";
  for (size_t i = 0; i < hidden.size(); ++i) o << (i ? ", " : "") << hidden[i];
  o << "]\n"
    << "activation = " << toml_string(activation) << "\n"
    << "double = " << flag(double_q) << "\n"
    << "dueling = " << flag(dueling) << "\n"
    << "n_step = " << n_step << "\n"
    << "prioritized = " << flag(prioritized) << "\n"
    << "alpha = " << toml_number(alpha) << "\n"
    << "beta = " << toml_number(beta) << "\n"
    << "beta_final = " << toml_number(beta_final) << "\n"
    << "priority_eps = " << toml_number(priority_eps) << "\n"
    << "loss = " << toml_string(loss) << "\n";
  return o.str();
}

double linear_schedule(double start, double end, double fraction, double progress) {
  if (progress >= fraction) return end;
  return start + progress * (end - start) / fraction;
}

// --- Networks ---

QNetwork::QNetwork(int64_t obs_dim, int64_t num_actions, const std::vector<int>& hidden,
                   const std::string& activation, bool dueling, spire::Generator& gen)
    : Module("QNetwork"), num_actions_(num_actions), dueling_(dueling) {
  if (!dueling) {
    torso_ = register_module("q", mlp(obs_dim, hidden, num_actions, activation, 1.0, gen));
    return;
  }
  SPIRE_CHECK(!hidden.empty(), ValueError, "QNetwork: a dueling network needs at least one hidden layer");
  // The torso is an MLP whose last layer is the last hidden layer, followed by its activation.
  std::vector<int> inner(hidden.begin(), hidden.end() - 1);
  auto torso = mlp(obs_dim, inner, hidden.back(), activation, std::sqrt(2.0), gen);
  torso->append(make_activation(activation));
  torso_ = register_module("torso", torso);
  value_ = register_module("value", mlp(hidden.back(), {}, 1, activation, 1.0, gen));
  advantage_ = register_module("advantage", mlp(hidden.back(), {}, num_actions, activation, 1.0, gen));
}

Tensor QNetwork::forward(const Tensor& observations) {
  if (!dueling_) return (*torso_)(observations);
  Tensor h = (*torso_)(observations);
  Tensor a = (*advantage_)(h);
  return (*value_)(h) + (a - mean(a, {1}, true));
}

Tensor q_targets(QNetwork& online, QNetwork& target, const Tensor& returns, const Tensor& next_observations,
                 const Tensor& discounts, bool double_q) {
  NoGradGuard no_grad;
  Tensor next_q = target(next_observations);
  Tensor bootstrap;
  if (double_q) {
    Tensor best = argmax(online(next_observations), 1, true);
    bootstrap = squeeze(gather(next_q, 1, best), {1});
  } else {
    bootstrap = amax(next_q, {1});
  }
  return returns + discounts * bootstrap;
}

namespace {

// Checkpoints must not alias live tensors (a module's state_dict shares its parameters' memory).
optim::StateDict deep_copy(const optim::StateDict& in) {
  optim::StateDict out;
  for (const auto& [key, value] : in.items()) {
    if (auto* t = std::get_if<Tensor>(&value)) out.set(key, copy(t->detach()));
    else out.set(key, value);
  }
  return out;
}

optim::StateDict module_state(const nn::Module& m) {
  optim::StateDict out;
  for (const auto& [key, t] : m.state_dict()) out.set(key, copy(t.detach()));
  return out;
}

void load_module_state(nn::Module& m, const optim::StateDict& in) {
  nn::StateDict d;
  for (const auto& [key, value] : in.items()) d.insert(key, std::get<Tensor>(value));
  m.load_state_dict(d);
}

void check_discrete(const Space& action_space) {
  SPIRE_CHECK(action_space.is_discrete(), ConfigError, "dqn: needs a Discrete action space, got ",
              action_space.to_string());
}

// The exploration rate after `env_steps` of the run: 1 (uniform actions) until learning_starts,
// as SB3, then the linear schedule.
double exploration_rate(const DqnConfig& c, const RunSettings& run, int64_t env_steps) {
  if (env_steps < c.learning_starts) return 1.0;
  return linear_schedule(c.exploration_initial_eps, c.exploration_final_eps, c.exploration_fraction,
                         double(env_steps) / double(run.total_steps));
}

std::shared_ptr<QNetwork> make_q_network(const DqnConfig& c, const Space& obs_space, const Space& act_space,
                                         spire::Generator& gen) {
  return std::make_shared<QNetwork>(input_size(obs_space), act_space.n(), c.hidden, c.activation, c.dueling, gen);
}

// --- Actor ---

class DqnActor final : public dataflow::Actor {
 public:
  DqnActor(const DqnConfig& config, const RunSettings& run, int64_t index, dataflow::Environments& envs)
      : config_(config), run_(run), envs_(envs), gen_(run.seed, kActorStream + uint64_t(index)) {
    spire::Generator unused(run.seed, kLearnerStream);  // load() overwrites these weights
    net_ = make_q_network(config, envs.observation_space(), envs.action_space(), unused);
    net_->eval();
  }

  void load(const Parameters& p) override {
    load_parameters(*net_, p.tensors);
    env_steps_ = p.env_steps;
  }

  Trajectory collect() override {
    const int64_t T = config_.train_freq, N = envs_.num_envs(), D = envs_.obs_dim();
    const int64_t A = envs_.action_space().n(), start = envs_.action_space().start();
    if (!started_) {
      VectorBatch b = envs_.reset(run_.seed);
      current_.assign(b.obs.begin(), b.obs.end());
      ended_.assign(size_t(N), 0);
      episode_return_.assign(size_t(N), 0.0);
      episode_length_.assign(size_t(N), 0);
      started_ = true;
    }
    Tensor obs = empty({T, N, D}), last_obs = empty({N, D});
    Tensor actions = empty({T, N}, DType::Int64), rewards = empty({T, N});
    Tensor terminated = empty({T, N}, DType::Bool), truncated = empty({T, N}, DType::Bool);
    Tensor valid = empty({T, N}, DType::Bool);
    float *po = obs.data<float>(), *pr = rewards.data<float>();
    int64_t* pa = actions.data<int64_t>();
    bool *pterm = terminated.data<bool>(), *ptrunc = truncated.data<bool>(), *pvalid = valid.data<bool>();
    std::vector<int64_t> env_actions(static_cast<size_t>(N), 0);
    Trajectory out;
    for (int64_t t = 0; t < T; ++t) {
      // The learner's count at this step, had every actor stepped in lockstep.
      const double eps = exploration_rate(config_, run_, env_steps_ + t * run_.total_envs());
      Tensor u = uniform({2 * N}, 0.0, 1.0, DType::Float64, gen_);
      const double* pu = u.data<double>();
      const int64_t* greedy = nullptr;
      Tensor best;
      if (std::any_of(pu, pu + N, [&](double x) { return x >= eps; })) {
        NoGradGuard no_grad;
        best = argmax((*net_)(from_vector(current_, {N, D})), 1);
        greedy = best.data<int64_t>();
      }
      for (int64_t c = 0; c < N; ++c) {
        int64_t a = pu[c] < eps ? std::min(A - 1, int64_t(pu[N + c] * double(A))) : greedy[c];
        pa[t * N + c] = a;
        env_actions[size_t(c)] = a + start;
        pvalid[t * N + c] = !ended_[size_t(c)];
      }
      std::copy(current_.begin(), current_.end(), po + t * N * D);
      VectorBatch b = envs_.step(std::span<const int64_t>(env_actions));
      std::copy(b.obs.begin(), b.obs.end(), current_.begin());
      for (int64_t c = 0; c < N; ++c) {
        const size_t i = size_t(t * N + c);
        pr[i] = float(b.rewards[size_t(c)]);
        pterm[i] = b.terminated[size_t(c)] != 0;
        ptrunc[i] = b.truncated[size_t(c)] != 0;
        if (pvalid[i]) {
          episode_return_[size_t(c)] += b.rewards[size_t(c)];
          episode_length_[size_t(c)] += 1;
        }
        ended_[size_t(c)] = pterm[i] || ptrunc[i];
        if (ended_[size_t(c)]) {
          out.episodes.returns.push_back(episode_return_[size_t(c)]);
          out.episodes.lengths.push_back(episode_length_[size_t(c)]);
          episode_return_[size_t(c)] = 0;
          episode_length_[size_t(c)] = 0;
        }
      }
    }
    std::copy(current_.begin(), current_.end(), last_obs.data<float>());
    out.add("obs", obs);
    out.add("actions", actions);
    out.add("rewards", rewards);
    out.add("terminated", terminated);
    out.add("truncated", truncated);
    out.add("valid", valid);  // false on reset steps: their action was ignored
    out.add("last_obs", last_obs, 0);
    out.env_steps = T * N;
    return out;
  }

  optim::StateDict state_dict() const override {
    optim::StateDict s;
    s.set("generator.offset", int64_t(gen_.offset()));
    s.set("started", int64_t(started_));
    if (!started_) return s;
    const int64_t N = int64_t(ended_.size());
    s.set("observations", from_vector(current_, {N, envs_.obs_dim()}));
    std::vector<int64_t> ended(ended_.begin(), ended_.end());
    s.set("ended", from_vector(ended, {N}));
    s.set("episode_returns", from_vector(episode_return_, {N}));
    s.set("episode_lengths", from_vector(episode_length_, {N}));
    return s;
  }

  void load_state_dict(const optim::StateDict& s) override {
    gen_.set_offset(uint64_t(s.integer("generator.offset")));
    started_ = s.integer("started") != 0;
    if (!started_) return;
    const int64_t N = envs_.num_envs(), D = envs_.obs_dim();
    auto values = [&](const char* key, DType dtype, int64_t n) {
      Tensor t = contiguous(s.tensor(key));
      SPIRE_CHECK(t.dtype() == dtype && t.numel() == n, ValueError, "dqn actor: the saved '", key,
                  "' does not match ", N, " environments of ", D, " observation values");
      return t;
    };
    Tensor obs = values("observations", DType::Float32, N * D), ended = values("ended", DType::Int64, N);
    Tensor ret = values("episode_returns", DType::Float64, N), len = values("episode_lengths", DType::Int64, N);
    current_.assign(obs.data<float>(), obs.data<float>() + N * D);
    ended_.assign(ended.data<int64_t>(), ended.data<int64_t>() + N);
    episode_return_.assign(ret.data<double>(), ret.data<double>() + N);
    episode_length_.assign(len.data<int64_t>(), len.data<int64_t>() + N);
  }

 private:
  DqnConfig config_;
  RunSettings run_;
  dataflow::Environments& envs_;
  spire::Generator gen_;
  std::shared_ptr<QNetwork> net_;
  int64_t env_steps_ = 0;
  bool started_ = false;
  std::vector<float> current_;  // the observations the next step acts on
  std::vector<uint8_t> ended_;  // the last step ended the episode: the next one is a reset step
  std::vector<double> episode_return_;
  std::vector<int64_t> episode_length_;
};

// --- Learner ---

class DqnLearner final : public dataflow::Learner {
 public:
  DqnLearner(const DqnConfig& config, const RunSettings& run, const Space& obs_space, const Space& act_space)
      : config_(config),
        run_(run),
        action_start_(act_space.start()),
        gen_(run.seed, kLearnerStream),
        buffer_(config.buffer_size, input_size(obs_space),
                ReplayOptions{config.prioritized, config.alpha, config.priority_eps}),
        nstep_(run.total_envs(), input_size(obs_space), config.n_step, config.gamma) {
    q_ = make_q_network(config, obs_space, act_space, gen_);
    target_ = make_q_network(config, obs_space, act_space, gen_);
    load_parameters(*target_, copy_parameters(*q_));
    target_->eval();
    optimizer_ = std::make_unique<optim::Adam>(q_->parameters(), optim::AdamOptions{.lr = config.lr});
  }

  Parameters parameters() const override { return {version_, env_steps_, copy_parameters(*q_)}; }

  train::Logs update(std::vector<Trajectory> trajectories) override {
    SPIRE_CHECK(!trajectories.empty(), ValueError, "dqn learner: update() got no trajectories");
    int64_t steps = 0;
    for (const Trajectory& t : trajectories) steps += t.env_steps;
    store(trajectories);
    const int64_t before = env_steps_;
    env_steps_ += steps;
    ++version_;

    // SB3 updates the target every max(interval / n_envs, 1) vector steps while collecting, with
    // the online network the rollout acted with: the updates that fell inside this rollout.
    const int64_t period = std::max<int64_t>(config_.target_update_interval / run_.total_envs(), 1) * run_.total_envs();
    const int64_t target_updates = env_steps_ / period - before / period;
    if (target_updates > 0) update_target(config_.tau == 1.0 ? 1 : target_updates);

    // Every key from the first update on (NaN until learning starts): history files take their
    // columns from the first row.
    train::Logs logs{{"loss", NAN}, {"q_mean", NAN}};
    if (config_.prioritized) logs.set("is_weight", NAN);
    const double progress = std::min(1.0, double(env_steps_) / double(run_.total_steps));
    const double lr = config_.lr_schedule == "linear" ? config_.lr * (1.0 - progress) : config_.lr;
    optimizer_->set_lr(lr);
    if (env_steps_ > config_.learning_starts && buffer_.size() > 0) {
      const int64_t steps_now = config_.gradient_steps > 0 ? config_.gradient_steps : config_.train_freq;
      const double beta = config_.beta + progress * (config_.beta_final - config_.beta);
      double loss = 0, q_mean = 0, weight = 0;
      for (int64_t g = 0; g < steps_now; ++g) {
        GradientStep s = gradient_step(beta);
        loss += s.loss / double(steps_now);
        q_mean += s.q_mean / double(steps_now);
        weight += s.weight / double(steps_now);
      }
      gradient_steps_ += steps_now;
      logs.set("loss", loss);
      logs.set("q_mean", q_mean);
      if (config_.prioritized) logs.set("is_weight", weight);
    }
    logs.set("epsilon", exploration_rate(config_, run_, env_steps_));
    logs.set("buffer_size", double(buffer_.size()));
    logs.set("lr", lr);
    return logs;
  }

  Tensor act(const Tensor& observations) override {
    NoGradGuard no_grad;
    q_->eval();
    Tensor x = observations.dtype() == DType::Float32 ? observations : cast(observations, DType::Float32);
    Tensor a = argmax((*q_)(x), 1);
    return action_start_ == 0 ? a : add(a, Scalar(action_start_));
  }

  optim::StateDict state_dict() const override {
    optim::StateDict s;
    put(s, "q.", module_state(*q_));
    put(s, "target.", module_state(*target_));
    put(s, "optimizer.", deep_copy(optimizer_->state_dict()));
    put(s, "buffer.", buffer_.state_dict());
    put(s, "nstep.", nstep_.state_dict());
    s.set("generator.offset", int64_t(gen_.offset()));
    s.set("env_steps", env_steps_);
    s.set("version", version_);
    s.set("gradient_steps", gradient_steps_);
    return s;
  }

  void load_state_dict(const optim::StateDict& s) override {
    load_module_state(*q_, under(s, "q."));
    load_module_state(*target_, under(s, "target."));
    optimizer_->load_state_dict(deep_copy(under(s, "optimizer.")));
    buffer_.load_state_dict(under(s, "buffer."));
    nstep_.load_state_dict(under(s, "nstep."));
    gen_.set_offset(uint64_t(s.integer("generator.offset")));
    env_steps_ = s.integer("env_steps");
    version_ = s.integer("version");
    gradient_steps_ = s.integer("gradient_steps");
  }

 private:
  struct GradientStep {
    double loss, q_mean, weight;
  };

  // Every valid step into the n-step assembler, time step by time step and within one in global
  // environment order, so that the buffer does not depend on how environments are split into
  // actors.
  void store(const std::vector<Trajectory>& parts) {
    struct View {
      const float *obs, *last, *rewards;
      const int64_t* actions;
      const bool *terminated, *truncated, *valid;
      Tensor keep[7];
      int64_t first_env, n;
    };
    const int64_t D = buffer_.obs_dim();
    const int64_t T = parts[0]["actions"].shape(0);
    std::vector<View> views;
    for (const Trajectory& p : parts) {
      View v;
      v.keep[0] = contiguous(p["obs"]);
      v.keep[1] = contiguous(p["last_obs"]);
      v.keep[2] = contiguous(p["rewards"]);
      v.keep[3] = contiguous(p["actions"]);
      v.keep[4] = contiguous(p["terminated"]);
      v.keep[5] = contiguous(p["truncated"]);
      v.keep[6] = contiguous(p["valid"]);
      v.n = v.keep[3].shape(1);
      SPIRE_CHECK(v.keep[3].shape(0) == T && v.keep[0].shape(2) == D, ValueError, "dqn learner: actor ", p.actor,
                  "'s trajectory has ", v.keep[3].shape(0), " steps of observations of ", v.keep[0].shape(2),
                  " values; expected ", T, " and ", D);
      v.first_env = p.actor * run_.envs_per_actor;
      v.obs = v.keep[0].data<float>();
      v.last = v.keep[1].data<float>();
      v.rewards = v.keep[2].data<float>();
      v.actions = v.keep[3].data<int64_t>();
      v.terminated = v.keep[4].data<bool>();
      v.truncated = v.keep[5].data<bool>();
      v.valid = v.keep[6].data<bool>();
      views.push_back(std::move(v));
    }
    for (int64_t t = 0; t < T; ++t)
      for (const View& v : views)
        for (int64_t c = 0; c < v.n; ++c) {
          const int64_t i = t * v.n + c;
          if (!v.valid[i]) continue;
          const float* next = t + 1 < T ? v.obs + (i + v.n) * D : v.last + c * D;
          nstep_.push(v.first_env + c, std::span<const float>(v.obs + i * D, size_t(D)), v.actions[i],
                      double(v.rewards[i]), std::span<const float>(next, size_t(D)), v.terminated[i],
                      v.truncated[i], buffer_);
        }
  }

  void update_target(int64_t times) {
    NoGradGuard no_grad;
    Tensors online = q_->parameters(), target = target_->parameters();
    for (int64_t k = 0; k < times; ++k)
      for (size_t i = 0; i < online.size(); ++i) {
        if (config_.tau == 1.0) target[i].set_data(copy(online[i].detach()));
        else target[i].set_data(online[i].detach() * config_.tau + target[i].detach() * (1.0 - config_.tau));
      }
  }

  GradientStep gradient_step(double beta) {
    ReplaySample s = buffer_.sample(config_.batch_size, beta, gen_);
    Tensor y = q_targets(*q_, *target_, s.returns, s.next_observations, s.discounts, config_.double_q);
    GradModeGuard grad(true);
    q_->train();
    optimizer_->zero_grad();
    Tensor q = squeeze(gather((*q_)(s.observations), 1, unsqueeze(s.actions, 1)), {1});
    namespace F = nn::functional;
    Tensor loss;
    if (config_.prioritized) {
      Tensor each = config_.loss == "huber" ? F::huber_loss(q, y, F::Reduction::None) : F::mse_loss(q, y, F::Reduction::None);
      loss = mean(each * s.weights);
    } else {
      loss = config_.loss == "huber" ? F::huber_loss(q, y) : F::mse_loss(q, y);
    }
    loss.backward();
    optim::clip_grad_norm_(q_->parameters(), config_.max_grad_norm);
    optimizer_->step();
    GradientStep out{loss.item<double>(), mean(q.detach()).item<double>(), 1.0};
    if (config_.prioritized) {
      std::vector<double> errors = (q.detach() - y).to_vector();
      buffer_.update_priorities(s.slots, errors);
      out.weight = mean(s.weights).item<double>();
    }
    return out;
  }

  DqnConfig config_;
  RunSettings run_;
  int64_t action_start_;
  spire::Generator gen_;
  ReplayBuffer buffer_;
  NStepAssembler nstep_;
  std::shared_ptr<QNetwork> q_, target_;
  std::unique_ptr<optim::Adam> optimizer_;
  int64_t env_steps_ = 0, version_ = 0, gradient_steps_ = 0;
};

class Dqn final : public dataflow::Algorithm {
 public:
  Dqn(DqnConfig config, RunSettings run) : config_(std::move(config)), run_(std::move(run)) {}
  std::string name() const override { return "dqn"; }
  int64_t rollout_steps() const override { return config_.train_freq; }
  std::unique_ptr<dataflow::Actor> make_actor(int64_t index, dataflow::Environments& envs) override {
    check_discrete(envs.action_space());
    return std::make_unique<DqnActor>(config_, run_, index, envs);
  }
  std::unique_ptr<dataflow::Learner> make_learner(const Space& obs_space, const Space& act_space) override {
    check_discrete(act_space);  // before the buffer is allocated
    return std::make_unique<DqnLearner>(config_, run_, obs_space, act_space);
  }
  std::string to_toml() const override { return config_.to_toml(); }

 private:
  DqnConfig config_;
  RunSettings run_;
};

}  // namespace

std::unique_ptr<dataflow::Algorithm> make_dqn(data::JobSection& section, const RunSettings& run) {
  return std::make_unique<Dqn>(DqnConfig::read(section), run);
}

}  // namespace spire::rl::agents
