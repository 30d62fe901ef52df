// PPO and A2C (reinforcement/agents) against their definitions: generalized advantages against the
// direct sums of discounted TD errors over a hand-made rollout with terminated, truncated and
// autoreset steps; the clipped surrogate, value clipping and A2C's loss against the formulas
// evaluated here in double; the Normal policy's log-densities and entropies against the Gaussian
// density on the network's own outputs, with unclipped samples stored and clipped actions sent;
// same seed, same bits; two actors' trajectories against the same data joined by hand; a learner
// restored from its state_dict that continues bit for bit; the configuration's errors; and a short
// CartPole run that learns far beyond random play.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <numeric>

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "engine/ops/random.h"
#include "engine/ops/shape.h"
#include "tests/common/expect_error.h"
#include "reinforcement/agents/a2c.h"
#include "reinforcement/agents/gae.h"
#include "reinforcement/agents/networks.h"
#include "reinforcement/agents/ppo.h"
#include "tests/common/rl_fragment_loop.h"
#include "tests/common/rl_settings.h"
#include "tests/common/same_bits.h"

using namespace spire;
using namespace spire::rl;
using namespace spire::rl::agents;
using dataflow::Trajectory;

namespace {

using fixtures::same_bits;
using fixtures::cartpole_run;

std::unique_ptr<dataflow::Algorithm> make(const std::string& algorithm, const std::string& toml,
                                          const dataflow::RunSettings& run) {
  data::JobSection root = data::JobSection::parse(toml, "test.toml");
  data::JobSection section = root.table(algorithm.c_str());
  return algorithm == "ppo" ? make_ppo(section, run) : make_a2c(section, run);
}

bool same_parameters(const dataflow::Parameters& a, const dataflow::Parameters& b) {
  if (a.tensors.size() != b.tensors.size()) return false;
  for (size_t i = 0; i < a.tensors.size(); ++i)
    if (!same_bits(a.tensors[i], b.tensors[i])) return false;
  return true;
}

// Drives the algorithm's fragments as the single-process policy does.
struct Driver : fixtures::FragmentLoop {
  Driver(const std::string& name, const std::string& toml, const dataflow::RunSettings& run)
      : FragmentLoop(make(name, toml, run), run) {}
};

// One OpenMP thread for a scope: the learning runs' networks are too small to gain from more,
// and on a loaded machine waiting threads cost more than the work.
struct OneThread {
  int before = omp_get_max_threads();
  OneThread() { omp_set_num_threads(1); }
  ~OneThread() { omp_set_num_threads(before); }
};

// The mean return of `episodes` deterministic episodes per environment of `n` CartPole
// environments seeded from `seed`, acting with learner.act().
double evaluate(dataflow::Learner& learner, int64_t n, int64_t episodes, uint64_t seed) {
  VectorEnv env("CartPole-v1", n, {.num_threads = 1});
  VectorBatch b = env.reset(seed);
  std::vector<double> ret(size_t(n), 0.0);
  std::vector<int64_t> done(size_t(n), 0);
  std::vector<uint8_t> resetting(size_t(n), 0);
  double total = 0;
  int64_t finished = 0;
  while (finished < n * episodes) {
    Tensor obs = from_vector(std::vector<float>(b.obs.begin(), b.obs.end()), {n, 4});
    Tensor a = contiguous(learner.act(obs));
    std::vector<int64_t> actions(a.data<int64_t>(), a.data<int64_t>() + n);
    b = env.step(actions);
    for (size_t e = 0; e < size_t(n); ++e) {
      if (resetting[e]) {
        resetting[e] = 0;
        continue;
      }
      ret[e] += b.rewards[e];
      if (b.terminated[e] || b.truncated[e]) {
        if (done[e] < episodes) {
          total += ret[e];
          ++done[e];
          ++finished;
        }
        ret[e] = 0;
        resetting[e] = 1;
      }
    }
  }
  return total / double(n * episodes);
}

// --- Advantages ---

TEST(RlPpoGae, MatchesDirectSumsOverTerminatedTruncatedAndResetSteps) {
  // Two environments, 8 steps. Environment 0: terminated at t = 2 (t = 3 resets), truncated at
  // t = 5 (t = 6 resets). Environment 1: truncated at t = 3 (t = 4 resets), then runs past the end.
  const int64_t T = 8, N = 2;
  std::vector<float> terminated(T * N, 0), truncated(T * N, 0), valid(T * N, 1);
  auto at = [&](int64_t t, int64_t e) { return size_t(t * N + e); };
  terminated[at(2, 0)] = 1;
  valid[at(3, 0)] = 0;
  truncated[at(5, 0)] = 1;
  valid[at(6, 0)] = 0;
  truncated[at(3, 1)] = 1;
  valid[at(4, 1)] = 0;
  spire::Generator gen(3, 0);
  std::vector<double> r = uniform({T * N}, -1.0, 2.0, DType::Float64, gen).to_vector();
  std::vector<double> v = uniform({T * N}, -3.0, 3.0, DType::Float64, gen).to_vector();
  std::vector<float> rewards(r.begin(), r.end()), values(v.begin(), v.end()), last{0.75f, -1.25f};
  for (size_t i = 0; i < rewards.size(); ++i)
    if (!valid[i]) rewards[i] = 0;  // what an autoreset step returns
  const double gamma = 0.9, lambda = 0.8;
  Advantages out = generalized_advantages({T, N, rewards, values, terminated, truncated, valid, last}, gamma, lambda);

  for (int64_t e = 0; e < N; ++e)
    for (int64_t t = 0; t < T; ++t) {
      const size_t i = at(t, e);
      if (!valid[i]) {
        EXPECT_EQ(out.advantages[i], 0.0f) << "t " << t << " env " << e;
        continue;
      }
      // A_t = sum_k (gamma lambda)^k delta_{t+k} over the rest of the episode inside the rollout;
      // delta bootstraps from the next row's value (the final observation's, for a truncated
      // step) or the last value, except where the episode terminated.
      double expected = 0, discount = 1;
      for (int64_t k = t; k < T; ++k) {
        const size_t j = at(k, e);
        double next = k + 1 < T ? double(values[at(k + 1, e)]) : double(last[size_t(e)]);
        double delta = rewards[j] + (terminated[j] ? 0.0 : gamma * next) - values[j];
        expected += discount * delta;
        if (terminated[j] || truncated[j]) break;
        discount *= gamma * lambda;
      }
      EXPECT_NEAR(out.advantages[i], expected, 2e-6) << "t " << t << " env " << e;
      EXPECT_NEAR(out.returns[i], expected + values[i], 2e-6) << "t " << t << " env " << e;
    }
  // Spelled out: the truncated step bootstraps from its final observation's value (stored on the
  // autoreset row after it); the terminated one does not.
  EXPECT_NEAR(out.advantages[at(3, 1)], rewards[at(3, 1)] + gamma * values[at(4, 1)] - values[at(3, 1)], 1e-6);
  EXPECT_NEAR(out.advantages[at(2, 0)], rewards[at(2, 0)] - values[at(2, 0)], 1e-6);
}

// --- Losses ---

struct LossCase {
  std::vector<double> log_prob, old_log_prob, advantages, values, old_values, returns, entropy;
};

LossCase loss_case() {
  // Ratios exp(new - old) of about 0.5, 0.85, 1.0, 1.1, 1.35 and 2: inside and outside [0.8, 1.2],
  // with advantages of both signs; value changes inside and outside +-0.3.
  return {{-0.9, -1.2, -0.3, -2.0, -0.5, -0.1},
          {-0.2, -1.04, -0.3, -2.095, -0.8, -0.79},
          {1.5, -0.7, 0.2, -1.1, 0.9, -2.0},
          {0.5, 1.0, -0.2, 2.0, 0.1, -1.0},
          {0.4, 0.5, -0.1, 2.5, 0.35, -0.2},
          {1.0, 0.2, 0.3, 1.5, -0.4, -0.6},
          {0.6, 0.7, 0.65, 0.4, 0.9, 0.5}};
}

Tensor f64(const std::vector<double>& x) { return from_vector(x, {int64_t(x.size())}); }

std::vector<double> normalised(std::vector<double> a) {
  const double n = double(a.size());
  double m = std::accumulate(a.begin(), a.end(), 0.0) / n, ss = 0;
  for (double x : a) ss += (x - m) * (x - m);
  double sd = std::sqrt(ss / (n - 1));  // torch's std: Bessel's correction
  for (double& x : a) x = (x - m) / (sd + 1e-8);
  return a;
}

TEST(RlPpoLoss, ClippedSurrogateAndValueClippingMatchTheFormula) {
  const LossCase c = loss_case();
  const size_t n = c.log_prob.size();
  for (bool normalize : {true, false})
    for (double clip_vf : {0.0, 0.3}) {
      PpoLossSettings s{.clip_range = 0.2, .clip_range_vf = clip_vf, .ent_coef = 0.01, .vf_coef = 0.5,
                        .normalize_advantage = normalize};
      PpoLoss l = ppo_loss(f64(c.log_prob), f64(c.old_log_prob), f64(c.advantages), f64(c.values),
                           f64(c.old_values), f64(c.returns), f64(c.entropy), s);
      std::vector<double> adv = normalize ? normalised(c.advantages) : c.advantages;
      double policy = 0, value = 0, entropy = 0, kl = 0, clipped = 0;
      for (size_t i = 0; i < n; ++i) {
        double ratio = std::exp(c.log_prob[i] - c.old_log_prob[i]);
        double bounded = std::min(std::max(ratio, 0.8), 1.2);
        policy -= std::min(adv[i] * ratio, adv[i] * bounded) / double(n);
        double v = c.values[i];
        if (clip_vf > 0) v = c.old_values[i] + std::min(std::max(v - c.old_values[i], -clip_vf), clip_vf);
        value += (c.returns[i] - v) * (c.returns[i] - v) / double(n);
        entropy -= c.entropy[i] / double(n);
        kl += ((ratio - 1) - (c.log_prob[i] - c.old_log_prob[i])) / double(n);
        clipped += (std::abs(ratio - 1) > 0.2 ? 1.0 : 0.0) / double(n);
      }
      SCOPED_TRACE("normalize " + std::to_string(normalize) + ", clip_range_vf " + std::to_string(clip_vf));
      EXPECT_NEAR(l.policy.item<double>(), policy, 1e-12);
      EXPECT_NEAR(l.value.item<double>(), value, 1e-12);
      EXPECT_NEAR(l.entropy.item<double>(), entropy, 1e-12);
      EXPECT_NEAR(l.total.item<double>(), policy + 0.01 * entropy + 0.5 * value, 1e-12);
      EXPECT_NEAR(l.approx_kl.item<double>(), kl, 1e-12);
      EXPECT_NEAR(l.clip_fraction.item<double>(), clipped, 1e-12);
      EXPECT_NEAR(clipped, 0.5, 1e-12);  // the case does exercise clipping
    }
}

TEST(RlPpoLoss, GradientOfTheClippedSurrogateVanishesOutsideTheTrustRegion) {
  // d(policy loss)/d(log_prob_i) = -A_i r_i / n where the unclipped term is the minimum, else 0.
  const LossCase c = loss_case();
  const size_t n = c.log_prob.size();
  Tensor lp = f64(c.log_prob).set_requires_grad(true);
  PpoLoss l = ppo_loss(lp, f64(c.old_log_prob), f64(c.advantages), f64(c.values), f64(c.old_values),
                       f64(c.returns), f64(c.entropy), {.clip_range = 0.2, .normalize_advantage = false});
  l.policy.backward();
  std::vector<double> g = lp.grad().to_vector();
  for (size_t i = 0; i < n; ++i) {
    double ratio = std::exp(c.log_prob[i] - c.old_log_prob[i]), a = c.advantages[i];
    bool active = a * ratio <= a * std::min(std::max(ratio, 0.8), 1.2);
    EXPECT_NEAR(g[i], active ? -a * ratio / double(n) : 0.0, 1e-12) << i;
  }
}

TEST(RlA2cLoss, MatchesTheFormula) {
  const LossCase c = loss_case();
  const size_t n = c.log_prob.size();
  for (bool normalize : {false, true}) {
    A2cLoss l = a2c_loss(f64(c.log_prob), f64(c.advantages), f64(c.values), f64(c.returns), f64(c.entropy), 0.02,
                         0.25, normalize);
    std::vector<double> adv = normalize ? normalised(c.advantages) : c.advantages;
    double policy = 0, value = 0, entropy = 0;
    for (size_t i = 0; i < n; ++i) {
      policy -= adv[i] * c.log_prob[i] / double(n);
      value += (c.returns[i] - c.values[i]) * (c.returns[i] - c.values[i]) / double(n);
      entropy -= c.entropy[i] / double(n);
    }
    EXPECT_NEAR(l.policy.item<double>(), policy, 1e-12);
    EXPECT_NEAR(l.value.item<double>(), value, 1e-12);
    EXPECT_NEAR(l.entropy.item<double>(), entropy, 1e-12);
    EXPECT_NEAR(l.total.item<double>(), policy + 0.02 * entropy + 0.25 * value, 1e-12);
  }
}

// --- The policy ---

TEST(RlPpoPolicy, NormalLogProbabilityAndEntropyOfUnclippedSamples) {
  Space obs_space = Space::box(-10.0f, 10.0f, {3});
  Space act_space = Space::box({-1.0f, 0.5f}, {1.0f, 2.0f}, {2});
  PolicyConfig config;
  config.log_std_init = 1.0;
  spire::Generator init(5, 0), draws(6, 0);
  ActorCritic net(obs_space, act_space, config, init);
  const int64_t n = 64;
  Tensor obs = uniform({n, 3}, -2.0, 2.0, DType::Float32, draws);
  ActorCritic::Sample s = net.sample(obs, draws);
  ActorCritic::Evaluation e = net.evaluate(obs, s.actions);
  std::vector<double> mean = contiguous(net.mode(obs)).to_vector(), a = contiguous(s.actions).to_vector();
  std::vector<double> lp = s.log_prob.to_vector(), lp2 = e.log_prob.to_vector(), ent = e.entropy.to_vector();
  const double sigma = std::exp(1.0);
  int64_t outside = 0;
  for (int64_t i = 0; i < n; ++i) {
    double expected = 0;
    for (int64_t j = 0; j < 2; ++j) {
      double x = a[size_t(2 * i + j)], m = mean[size_t(2 * i + j)];
      expected += -(x - m) * (x - m) / (2 * sigma * sigma) - std::log(sigma) - 0.5 * std::log(2 * M_PI);
      outside += x < act_space.low()[size_t(j)] || x > act_space.high()[size_t(j)];
    }
    EXPECT_NEAR(lp[size_t(i)], expected, 1e-5) << i;
    EXPECT_NEAR(lp2[size_t(i)], expected, 1e-5) << i;
    EXPECT_NEAR(ent[size_t(i)], 2 * (0.5 + 0.5 * std::log(2 * M_PI) + 1.0), 1e-5);
  }
  EXPECT_GT(outside, n / 2);  // sigma e: most draws leave the bounds, and are stored as drawn

  // Sent to the environment: clipped element by element to that element's bounds.
  std::vector<float> sent(a.begin(), a.end());
  clip_to_bounds(act_space, sent);
  for (size_t k = 0; k < sent.size(); ++k) {
    float lo = act_space.low()[k % 2], hi = act_space.high()[k % 2];
    EXPECT_EQ(sent[k], float(std::min<double>(std::max<double>(a[k], lo), hi)));
  }
}

TEST(RlPpoPolicy, ActorStoresUnclippedPendulumActionsWithTheirLogProbabilities) {
  dataflow::RunSettings run;
  run.env = "Pendulum-v1";
  run.envs_per_actor = 3;
  run.seed = 11;
  Driver r("ppo", "[ppo]\nn_steps = 20\nlog_std_init = 1.5\n", run);
  std::vector<Trajectory> t = r.collect();
  const Trajectory& x = t[0];
  ASSERT_EQ(x["actions"].shape(), (Shape{20, 3, 1}));
  ASSERT_EQ(x["final_obs"].shape(), (Shape{3, 3}));
  EXPECT_EQ(x.env_steps, 60);
  // The learner's network is the one the actor acted with: its mean and sigma e^1.5 give the
  // stored log-probabilities of the stored (unclipped) actions.
  auto* learner = static_cast<OnPolicyLearner*>(r.learner.get());
  std::vector<double> mean = contiguous(learner->network().mode(reshape(x["obs"], {60, 3}))).to_vector();
  std::vector<double> a = contiguous(x["actions"]).to_vector(), lp = contiguous(x["log_prob"]).to_vector();
  const double sigma = std::exp(1.5);
  int64_t outside = 0;
  for (size_t i = 0; i < 60; ++i) {
    double expected = -(a[i] - mean[i]) * (a[i] - mean[i]) / (2 * sigma * sigma) - 1.5 - 0.5 * std::log(2 * M_PI);
    EXPECT_NEAR(lp[i], expected, 1e-5) << i;
    outside += std::abs(a[i]) > 2.0;
  }
  EXPECT_GT(outside, 10);
  // The deterministic action is the mean, clipped: an untrained policy's mean is near 0.
  Tensor act = r.learner->act(reshape(select(x["obs"], 0, 0), {3, 3}));
  EXPECT_EQ(act.shape(), (Shape{3, 1}));
  for (double v : act.to_vector()) EXPECT_LT(std::abs(v), 0.1);
}

TEST(RlPpoPolicy, DeterministicBoxActionIsTheClippedMean) {
  dataflow::RunSettings run;
  PpoConfig config;
  Space obs_space = Space::box(-1.0f, 1.0f, {2});
  Space act_space = Space::box({0.5f, -2.0f}, {1.0f, 2.0f}, {2});  // 0 lies below the first element's bounds
  auto learner = make_ppo_learner(config, run, obs_space, act_space);
  Tensor obs = from_vector(std::vector<float>{0.1f, -0.2f, 0.3f, 0.9f}, {2, 2});
  std::vector<double> mean = contiguous(static_cast<OnPolicyLearner&>(*learner).network().mode(obs)).to_vector();
  std::vector<double> act = learner->act(obs).to_vector();
  for (size_t k = 0; k < 4; ++k) {
    double lo = k % 2 ? -2.0 : 0.5, hi = k % 2 ? 2.0 : 1.0;
    EXPECT_EQ(act[k], std::min(std::max(mean[k], lo), hi)) << k;
  }
  EXPECT_EQ(act[0], 0.5);
}

// --- Rollouts ---

TEST(RlPpoActor, AutoresetStepsAreMaskedAndEpisodesCounted) {
  Driver r("ppo", "[ppo]\nn_steps = 64\n", cartpole_run(1, 4, 2, 1000));
  Trajectory t = r.collect()[0];
  std::vector<double> valid = t["valid"].to_vector(), term = t["terminated"].to_vector(),
                      trunc = t["truncated"].to_vector(), reward = t["reward"].to_vector();
  const size_t N = 4;
  // An invalid row follows exactly each ended episode; it earns nothing.
  int64_t ended = 0, invalid = 0;
  for (size_t i = 0; i < valid.size(); ++i) {
    bool done = term[i] || trunc[i];
    ended += done && i + N < valid.size();
    if (i + N < valid.size()) EXPECT_EQ(valid[i + N] == 0, done) << i;
    if (!valid[i]) {
      ++invalid;
      EXPECT_EQ(reward[i], 0.0);
    }
  }
  EXPECT_GT(ended, 0);
  EXPECT_EQ(invalid, ended);
  // CartPole pays 1 a step: an episode's return is its length, lengths add up to the valid rows of
  // the episodes that ended.
  ASSERT_EQ(t.episodes.returns.size(), t.episodes.lengths.size());
  EXPECT_GE(int64_t(t.episodes.returns.size()), ended);
  for (size_t k = 0; k < t.episodes.returns.size(); ++k)
    EXPECT_EQ(t.episodes.returns[k], double(t.episodes.lengths[k]));
}

TEST(RlPpoActor, LearnerBatchHoldsExactlyTheValidRows) {
  // A hand-made rollout of 3 steps of 2 CartPole-shaped environments; environment 1 terminated
  // at t = 0, so its t = 1 is an autoreset row.
  const int64_t T = 3, N = 2;
  spire::Generator gen(8, 0);
  Tensor obs = uniform({T, N, 4}, -1.0, 1.0, DType::Float32, gen);
  Trajectory t;
  t.env_steps = T * N;
  t.add("obs", obs);
  t.add("actions", from_vector(std::vector<int64_t>{0, 1, 1, 0, 1, 1}, {T, N}));
  t.add("log_prob", uniform({T, N}, -1.0, 0.0, DType::Float32, gen));
  t.add("value", uniform({T, N}, 0.0, 5.0, DType::Float32, gen));
  t.add("reward", from_vector(std::vector<float>{1, 1, 1, 0, 1, 1}, {T, N}));
  t.add("terminated", from_vector(std::vector<float>{0, 1, 0, 0, 0, 0}, {T, N}));
  t.add("truncated", zeros({T, N}));
  t.add("valid", from_vector(std::vector<float>{1, 1, 1, 0, 1, 1}, {T, N}));
  t.add("final_obs", uniform({N, 4}, -1.0, 1.0, DType::Float32, gen), 0);
  PolicyConfig config;
  spire::Generator init(1, 0);
  ActorCritic net(Space::box(-5.0f, 5.0f, {4}), Space::discrete(2), config, init);
  std::vector<Trajectory> parts{t};
  PreparedRollout r = prepare_rollout(parts, net, 0.99, 0.95);

  std::vector<float> value(6), reward(6), term(6), trunc(6, 0.0f), valid{1, 1, 1, 0, 1, 1};
  for (size_t i = 0; i < 6; ++i) {
    value[i] = float(t["value"].to_vector()[i]);
    reward[i] = float(t["reward"].to_vector()[i]);
    term[i] = float(t["terminated"].to_vector()[i]);
  }
  std::vector<float> last(2);
  {
    NoGradGuard no_grad;
    std::vector<double> v = net.value(t["final_obs"]).to_vector();
    last = {float(v[0]), float(v[1])};
  }
  Advantages adv = generalized_advantages({T, N, reward, value, term, trunc, valid, last}, 0.99, 0.95);
  const std::vector<size_t> rows{0, 1, 2, 4, 5};
  ASSERT_EQ(r.batch.size, 5);
  EXPECT_EQ(r.env_steps, 6);
  std::vector<double> o = obs.to_vector(), bo = r.batch.observations.to_vector(), ba = r.batch.advantages.to_vector(),
                      br = r.batch.returns.to_vector(), bv = r.batch.values.to_vector();
  double mean_r = 0, mean_d = 0, var_r = 0, var_d = 0;
  for (size_t k = 0; k < rows.size(); ++k) {
    for (size_t j = 0; j < 4; ++j) EXPECT_EQ(bo[4 * k + j], o[4 * rows[k] + j]);
    EXPECT_EQ(ba[k], adv.advantages[rows[k]]);
    EXPECT_EQ(br[k], adv.returns[rows[k]]);
    EXPECT_EQ(bv[k], value[rows[k]]);
    mean_r += br[k] / 5;
    mean_d += (br[k] - bv[k]) / 5;
  }
  for (size_t k = 0; k < rows.size(); ++k) {
    var_r += (br[k] - mean_r) * (br[k] - mean_r);
    var_d += (br[k] - bv[k] - mean_d) * (br[k] - bv[k] - mean_d);
  }
  EXPECT_NEAR(r.explained_variance, 1 - var_d / var_r, 1e-9);

  // Collected with parameters older than the learner's (version 0 < 1): log-probabilities and
  // values come from the learner's network, and the advantages from those values.
  PreparedRollout stale = prepare_rollout(parts, net, 0.99, 0.95, /*current_version=*/1);
  ActorCritic::Evaluation now;
  {
    NoGradGuard no_grad;
    now = net.evaluate(reshape(obs, {T * N, 4}), reshape(t["actions"], {T * N}));
  }
  std::vector<double> lp = now.log_prob.to_vector(), v = now.value.to_vector();
  std::vector<float> fresh(6);
  for (size_t i = 0; i < 6; ++i) fresh[i] = float(v[i]);
  Advantages fresh_adv = generalized_advantages({T, N, reward, fresh, term, trunc, valid, last}, 0.99, 0.95);
  std::vector<double> slp = stale.batch.log_prob.to_vector(), sv = stale.batch.values.to_vector(),
                      sa = stale.batch.advantages.to_vector();
  for (size_t k = 0; k < rows.size(); ++k) {
    EXPECT_EQ(slp[k], lp[rows[k]]);
    EXPECT_EQ(sv[k], v[rows[k]]);
    EXPECT_EQ(sa[k], fresh_adv.advantages[rows[k]]);
  }
  EXPECT_NE(slp[0], r.batch.log_prob.to_vector()[0]);  // the stored ones were random
}

// --- Determinism and checkpoints ---

TEST(RlPpoDeterminism, SameSeedSameBits) {
  const std::string toml = "[ppo]\nn_steps = 16\nbatch_size = 24\nn_epochs = 2\n";
  Driver a("ppo", toml, cartpole_run(2, 4, 9, 10000)), b("ppo", toml, cartpole_run(2, 4, 9, 10000));
  for (int k = 0; k < 3; ++k) {
    a.iterate();
    b.iterate();
  }
  EXPECT_TRUE(same_parameters(a.learner->parameters(), b.learner->parameters()));
  Driver c("ppo", toml, cartpole_run(2, 4, 10, 10000));
  c.iterate();
  EXPECT_FALSE(same_parameters(a.learner->parameters(), c.learner->parameters()));
}

// Fields of several trajectories joined along their environment axes, written out element by
// element: time-major fields are [T, N, ...], per-environment ones [N, ...].
Trajectory joined_by_hand(const std::vector<Trajectory>& parts) {
  Trajectory out;
  out.version = parts[0].version;  // every part acted with the same parameters
  for (size_t f = 0; f < parts[0].fields.size(); ++f) {
    const dataflow::Field& first = parts[0].fields[f];
    const int64_t T = first.env_axis == 1 ? first.value.shape(0) : 1;
    Shape shape = first.value.shape();
    int64_t width = 1;  // elements per (step, environment)
    for (size_t d = size_t(first.env_axis) + 1; d < shape.size(); ++d) width *= shape[d];
    int64_t total_envs = 0;
    for (const Trajectory& p : parts) total_envs += p.fields[f].value.shape(first.env_axis);
    shape[size_t(first.env_axis)] = total_envs;
    Tensor out_t = empty(shape, first.value.dtype());
    const size_t item = out_t.itemsize();
    auto* dst = static_cast<char*>(out_t.raw_data());
    for (int64_t t = 0; t < T; ++t) {
      int64_t e0 = 0;
      for (const Trajectory& p : parts) {
        Tensor src = contiguous(p.fields[f].value);
        const int64_t n = src.shape(first.env_axis);
        std::memcpy(dst + size_t((t * total_envs + e0) * width) * item,
                    static_cast<const char*>(src.raw_data()) + size_t(t * n * width) * item, size_t(n * width) * item);
        e0 += n;
      }
    }
    out.add(first.name, out_t, first.env_axis);
  }
  for (const Trajectory& p : parts) out.env_steps += p.env_steps;
  return out;
}

TEST(RlPpoDeterminism, TwoActorsUpdateAsTheirDataJoinedByHand) {
  for (std::string name : {"ppo", "a2c"}) {
    const std::string toml = name == "ppo" ? "[ppo]\nn_steps = 16\nbatch_size = 40\nn_epochs = 3\n" : "[a2c]\n";
    Driver a(name, toml, cartpole_run(2, 4, 21, 10000)), b(name, toml, cartpole_run(2, 4, 21, 10000));
    for (int k = 0; k < 3; ++k) {
      std::vector<Trajectory> ta = a.collect(), tb = b.collect();
      a.learner->update(std::move(ta));
      std::vector<Trajectory> one;
      one.push_back(joined_by_hand(tb));
      b.learner->update(std::move(one));
      ASSERT_TRUE(same_parameters(a.learner->parameters(), b.learner->parameters())) << name << " update " << k;
    }
  }
}

TEST(RlPpoCheckpoint, RestoredLearnerContinuesBitForBit) {
  for (std::string name : {"ppo", "a2c"}) {
    const std::string toml = name == "ppo"
                                 ? "[ppo]\nn_steps = 16\nbatch_size = 24\nn_epochs = 2\nlr_schedule = \"linear\"\n"
                                 : "[a2c]\nlr_schedule = \"linear\"\n";
    Driver a(name, toml, cartpole_run(1, 4, 4, 2000));
    a.iterate();
    a.iterate();
    optim::StateDict saved = a.learner->state_dict();
    std::vector<Trajectory> t = a.collect();
    std::vector<Trajectory> copy = t;
    a.learner->update(std::move(t));

    Driver b(name, toml, cartpole_run(1, 4, 99, 2000));  // another seed: everything must come from the state
    b.learner->load_state_dict(saved);
    EXPECT_EQ(b.learner->parameters().version, 2);
    b.learner->update(std::move(copy));
    EXPECT_TRUE(same_parameters(a.learner->parameters(), b.learner->parameters())) << name;
    EXPECT_EQ(a.learner->parameters().env_steps, b.learner->parameters().env_steps);
  }
}

// --- Configuration ---

TEST(RlPpoConfig, KeysAreCheckedAndWrittenBack) {
  dataflow::RunSettings run;
  expect_error_naming<ConfigError>([&] { make("ppo", "[ppo]\nclip_range = -0.1\n", run); }, {"ppo.clip_range", "-0.1"});
  expect_error_naming<ConfigError>([&] { make("ppo", "[ppo]\nlr_schedule = \"cosine\"\n", run); },
                                   {"ppo.lr_schedule", "linear"});
  expect_error_naming<ConfigError>([&] { make("ppo", "[ppo]\nnstep = 5\n", run); }, {"nstep", "n_steps"});
  expect_error_naming<ConfigError>([&] { make("a2c", "[a2c]\noptimizer = \"sgd\"\n", run); },
                                   {"a2c.optimizer", "rmsprop"});
  expect_error_naming<ConfigError>([&] { make("a2c", "[a2c]\nbatch_size = 5\n", run); }, {"batch_size"});
  auto ppo = make("ppo", "[ppo]\nn_steps = 32\ngae_lambda = 0.8\nhidden = [32]\n", run);
  EXPECT_EQ(ppo->name(), "ppo");
  EXPECT_EQ(ppo->rollout_steps(), 32);
  // What to_toml writes reads back as the same algorithm.
  auto again = make("ppo", ppo->to_toml(), run);
  EXPECT_EQ(again->to_toml(), ppo->to_toml());
  EXPECT_NE(ppo->to_toml().find("gae_lambda = 0.8"), std::string::npos) << ppo->to_toml();
  EXPECT_NE(ppo->to_toml().find("hidden = [32]"), std::string::npos) << ppo->to_toml();
  auto a2c = make("a2c", "", run);
  EXPECT_EQ(a2c->rollout_steps(), 5);
  EXPECT_EQ(make("a2c", a2c->to_toml(), run)->to_toml(), a2c->to_toml());
}

// --- Learning ---

TEST(RlPpoLearning, CartPoleFarBeyondRandomPlay) {
  // rl-zoo's CartPole-v1 hyperparameters; 30k steps. Random play averages about 22.
  const std::string toml =
      "[ppo]\nn_steps = 32\nbatch_size = 256\ngae_lambda = 0.8\ngamma = 0.98\nn_epochs = 20\nent_coef = 0.0\n"
      "lr = 1e-3\nlr_schedule = \"linear\"\nclip_range = 0.2\nclip_range_schedule = \"linear\"\n";
  OneThread one;
  Driver r("ppo", toml, cartpole_run(1, 8, 0, 30720));
  while (r.steps < r.run.total_steps) r.iterate();
  // Measured on seeds 0-15 (10 deterministic episodes each): 189 to 500; seed 0 gives 331.
  double score = evaluate(*r.learner, 10, 1, 1000000);
  EXPECT_GT(score, 120.0);
}

TEST(RlA2cLearning, CartPoleFarBeyondRandomPlay) {
  // SB3's defaults (rl-zoo's CartPole-v1 entry: 8 environments, ent_coef 0); 20k steps.
  OneThread one;
  Driver r("a2c", "[a2c]\nent_coef = 0.0\n", cartpole_run(1, 8, 0, 20000));
  while (r.steps < r.run.total_steps) r.iterate();
  // Measured on seeds 0-9 (10 deterministic episodes each): 163 to 500; seed 0 gives 500.
  double score = evaluate(*r.learner, 10, 1, 1000000);
  EXPECT_GT(score, 100.0);
}

}  // namespace
