// An RL algorithm written as dataflow fragments, in the manner of MindSpore Reinforcement and
// Launchpad: actors collect experience from their environments, a learner turns experience into
// new parameters, and the handles between them (trajectories one way, parameters the other) are
// the edges of the graph. An algorithm only says what each fragment does; a DistributionPolicy
// (policy.h) decides where fragments run (threads, MPI ranks) and turns the edges into queues or
// messages. The algorithm never knows which.
//
// The graph is fixed by the job: `actors` actors of `envs_per_actor` environments each, one
// learner. A policy moves fragments but never reshapes them, so every synchronous policy feeds the
// learner the same trajectories, bit for bit (an actor's network runs on its own environments'
// rows; a GEMM's bits may depend on its row count, so the row count must not depend on placement).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/data/job_file.h"
#include "engine/optim/state_dict.h"
#include "engine/train/logs.h"
#include "reinforcement/dataflow/environments.h"
#include "reinforcement/dataflow/trajectory.h"

namespace spire::rl::dataflow {

// The job's settings shared by every algorithm (the top level and [env], [actors], [run]).
struct RunSettings {
  uint64_t seed = 0;
  std::string env = "CartPole-v1";
  int64_t max_episode_steps = -1;  // < 0: the registered limit; 0: none
  int64_t envs_per_actor = 8;
  int64_t actors = 1;
  int64_t total_steps = 100000;  // the environment-step budget, over all actors
  int64_t total_envs() const { return envs_per_actor * actors; }
};

// Collects experience. Made once per actor index; lives on one thread of one rank.
class Actor {
 public:
  virtual ~Actor() = default;
  // Acts with these parameters from now on (copies what it needs).
  virtual void load(const Parameters& parameters) = 0;
  // One rollout of its environments (reset with the run's seed on the first call). Sets
  // fields, episodes and env_steps; the caller sets actor and version.
  virtual Trajectory collect() = 0;
  // Whatever a resumed run needs to continue acting as it would have (generator states).
  virtual optim::StateDict state_dict() const { return {}; }
  virtual void load_state_dict(const optim::StateDict& state) {}
};

// Learns. One per run, on the learner's rank.
class Learner {
 public:
  virtual ~Learner() = default;
  // What actors act with; version counts the updates done.
  virtual Parameters parameters() const = 0;
  // One update from trajectories (one per actor that reported, in actor order; a synchronous
  // policy passes every actor's). Returns the update's logs ("loss", "entropy", ...).
  virtual train::Logs update(std::vector<Trajectory> trajectories) = 0;
  // The deterministic action for evaluation: observations [n, obs_dim] float32 -> int64 [n]
  // (Discrete) or float32 [n, act_dim] (Box, within the space's bounds).
  virtual Tensor act(const Tensor& observations) = 0;
  // Everything a resumed run needs: networks, optimizer, replay buffer, generators, counters.
  virtual optim::StateDict state_dict() const = 0;
  virtual void load_state_dict(const optim::StateDict& state) = 0;
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual std::string name() const = 0;
  // Environment steps of each environment in one Actor::collect().
  virtual int64_t rollout_steps() const = 0;
  // Actor `index` over `envs` (which outlive it); parameters arrive by load() before collect().
  virtual std::unique_ptr<Actor> make_actor(int64_t index, Environments& envs) = 0;
  virtual std::unique_ptr<Learner> make_learner(const Space& observation_space, const Space& action_space) = 0;
  // The algorithm's own section as the job file would hold it ("[ppo]\nlr = ...\n"), for the
  // checkpoint's provenance and `--explain`.
  virtual std::string to_toml() const = 0;
};

// What makes an algorithm from its own table of the job file (the table named after it; absent:
// every default) and the run's shared settings. A factory calls finish() on its section. The
// algorithms by name are in reinforcement/agents/algorithms.h.
using AlgorithmFactory = std::function<std::unique_ptr<Algorithm>(data::JobSection& section, const RunSettings& run)>;

}  // namespace spire::rl::dataflow
