// A small deterministic algorithm that exercises the dataflow runtime without any learning
// library: its learner's parameters are a running digest of every trajectory it was given (in the
// order given), and its actors act with those parameters and their own generator. Two runs give
// the same parameters only if the learner saw the same steps of the same environments, joined in
// the same order, acted with the same parameter versions: what the distribution policies promise.
#pragma once
#include <cmath>
#include <csignal>
#include <memory>
#include <vector>

#include "engine/ops/random.h"
#include "reinforcement/dataflow/fragment.h"

namespace spire::rl::fixtures {

class ProbeActor final : public dataflow::Actor {
 public:
  ProbeActor(int64_t index, dataflow::Environments& envs, const dataflow::RunSettings& run, int64_t steps)
      : envs_(envs), run_(run), steps_(steps), gen_(run.seed, 1000 + uint64_t(index)) {}
  void load(const dataflow::Parameters& p) override {
    const Tensor& w = p.tensors.at(0);
    w_.assign(w.data<double>(), w.data<double>() + w.numel());
  }
  dataflow::Trajectory collect() override {
    const int64_t n = envs_.num_envs(), d = envs_.obs_dim();
    if (obs_.empty()) {
      VectorBatch b = envs_.reset(run_.seed);
      obs_.assign(b.obs.begin(), b.obs.end());
      returns_.assign(size_t(n), 0.0);
      lengths_.assign(size_t(n), 0);
    }
    Tensor obs = empty({steps_, n, d}, DType::Float32), actions = empty({steps_, n}, DType::Int64);
    Tensor rewards = empty({steps_, n}, DType::Float64);
    dataflow::Trajectory t;
    for (int64_t s = 0; s < steps_; ++s) {
      Tensor noise = uniform({n}, -0.5, 0.5, DType::Float64, gen_);
      std::vector<int64_t> a(static_cast<size_t>(n));
      for (int64_t e = 0; e < n; ++e) {
        double score = noise.data<double>()[e];
        for (int64_t k = 0; k < d; ++k) score += w_[size_t(k)] * obs_[size_t(e * d + k)];
        a[size_t(e)] = score > 0 ? 1 : 0;
      }
      std::copy(obs_.begin(), obs_.end(), obs.data<float>() + s * n * d);
      std::copy(a.begin(), a.end(), actions.data<int64_t>() + s * n);
      VectorBatch b = envs_.step(a);
      obs_.assign(b.obs.begin(), b.obs.end());
      for (int64_t e = 0; e < n; ++e) {
        rewards.data<double>()[s * n + e] = b.rewards[size_t(e)];
        returns_[size_t(e)] += b.rewards[size_t(e)];
        ++lengths_[size_t(e)];
        if (b.terminated[size_t(e)] || b.truncated[size_t(e)]) {
          t.episodes.returns.push_back(returns_[size_t(e)]);
          t.episodes.lengths.push_back(lengths_[size_t(e)]);
          returns_[size_t(e)] = 0;
          lengths_[size_t(e)] = -1;  // the autoreset step that follows is not part of an episode
        }
      }
    }
    t.add("obs", obs);
    t.add("actions", actions);
    t.add("rewards", rewards);
    t.add("last_obs", from_vector(obs_, {n, d}), 0);
    t.env_steps = steps_ * n;
    return t;
  }

 private:
  dataflow::Environments& envs_;
  dataflow::RunSettings run_;
  int64_t steps_;
  spire::Generator gen_;
  std::vector<double> w_;
  std::vector<float> obs_;
  std::vector<double> returns_;
  std::vector<int64_t> lengths_;
};

class ProbeLearner final : public dataflow::Learner {
 public:
  explicit ProbeLearner(int64_t obs_dim) : w_(size_t(obs_dim), 0.0) {}
  dataflow::Parameters parameters() const override {
    dataflow::Parameters p;
    p.version = version_;
    p.tensors = {from_vector(w_, {int64_t(w_.size())})};
    return p;
  }
  train::Logs update(std::vector<dataflow::Trajectory> trajectories) override {
    dataflow::Trajectory t = dataflow::join(std::move(trajectories));
    const Tensor& obs = t["obs"];
    const Tensor& actions = t["actions"];
    const Tensor& last = t["last_obs"];
    const int64_t d = int64_t(w_.size()), rows = actions.numel();
    // Order-sensitive: each step's contribution is scaled by its position in the joined batch.
    double digest = 0;
    for (int64_t i = 0; i < rows; ++i) {
      const double sign = actions.data<int64_t>()[i] ? 1.0 : -1.0;
      for (int64_t k = 0; k < d; ++k) {
        const double x = obs.data<float>()[i * d + k];
        w_[size_t(k)] = 0.999 * w_[size_t(k)] + 1e-3 * sign * x * std::cos(0.01 * double(i));
        digest += x * double(i % 7 + 1);
      }
    }
    for (int64_t i = 0; i < last.numel(); ++i) digest += last.data<float>()[i] * double(i + 1);
    ++version_;
    return {{"loss", digest}};
  }
  Tensor act(const Tensor& observations) override {
    const int64_t n = observations.shape(0), d = int64_t(w_.size());
    std::vector<int64_t> a(static_cast<size_t>(n));
    for (int64_t e = 0; e < n; ++e) {
      double score = 0;
      for (int64_t k = 0; k < d; ++k) score += w_[size_t(k)] * observations.data<float>()[e * d + k];
      a[size_t(e)] = score > 0 ? 1 : 0;
    }
    return from_vector(a, {n});
  }
  optim::StateDict state_dict() const override {
    optim::StateDict s;
    s.set("w", parameters().tensors[0]);
    s.set("version", version_);
    return s;
  }
  void load_state_dict(const optim::StateDict& s) override {
    Tensor w = s.tensor("w");
    w_.assign(w.data<double>(), w.data<double>() + w.numel());
    version_ = s.integer("version");
  }
  const std::vector<double>& weights() const { return w_; }

 private:
  std::vector<double> w_;
  int64_t version_ = 0;
};

class ProbeAlgorithm final : public dataflow::Algorithm {
 public:
  ProbeAlgorithm(dataflow::RunSettings run, int64_t steps) : run_(std::move(run)), steps_(steps) {}
  std::string name() const override { return "probe"; }
  int64_t rollout_steps() const override { return steps_; }
  std::unique_ptr<dataflow::Actor> make_actor(int64_t index, dataflow::Environments& envs) override {
    return std::make_unique<ProbeActor>(index, envs, run_, steps_);
  }
  std::unique_ptr<dataflow::Learner> make_learner(const Space& obs, const Space&) override {
    return std::make_unique<ProbeLearner>(obs.size());
  }
  std::string to_toml() const override { return "[probe]\nsteps = " + std::to_string(steps_) + "\n"; }

 private:
  dataflow::RunSettings run_;
  int64_t steps_;
};

// The probe whose actor 1 misbehaves in its third rollout: it raises, or it sends its own process
// SIGINT (as Ctrl-C would).
class FaultyProbe final : public dataflow::Algorithm {
 public:
  enum class Fault { Raise, Interrupt };
  FaultyProbe(dataflow::RunSettings run, Fault fault) : probe_(run, 3), fault_(fault) {}
  std::string name() const override { return "faulty_probe"; }
  int64_t rollout_steps() const override { return 3; }
  std::unique_ptr<dataflow::Actor> make_actor(int64_t index, dataflow::Environments& envs) override {
    struct Faulty final : dataflow::Actor {
      std::unique_ptr<dataflow::Actor> inner;
      int64_t index = 0, rollouts = 0;
      Fault fault = Fault::Raise;
      void load(const dataflow::Parameters& p) override { inner->load(p); }
      dataflow::Trajectory collect() override {
        if (index == 1 && ++rollouts == 3) {
          if (fault == Fault::Raise) throw ValueError("deliberate failure in actor 1");
          std::raise(SIGINT);
        }
        return inner->collect();
      }
    };
    auto a = std::make_unique<Faulty>();
    a->inner = probe_.make_actor(index, envs);
    a->index = index;
    a->fault = fault_;
    return a;
  }
  std::unique_ptr<dataflow::Learner> make_learner(const Space& o, const Space& a) override {
    return probe_.make_learner(o, a);
  }
  std::string to_toml() const override { return ""; }

 private:
  ProbeAlgorithm probe_;
  Fault fault_;
};

}  // namespace spire::rl::fixtures
