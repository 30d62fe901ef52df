// Drives an algorithm's fragments as the single-process policy does, with no runtime in between:
// one LocalEnvironments pool per actor (environment g seeded with seed + g), parameters loaded
// into every actor, trajectories handed to the learner in actor order. Tests compare what the
// runtime does against it, and test an algorithm without it.
#pragma once
#include <memory>
#include <vector>

#include "reinforcement/dataflow/fragment.h"

namespace spire::rl::fixtures {

struct FragmentLoop {
  dataflow::RunSettings run;
  std::unique_ptr<dataflow::Algorithm> algorithm;
  std::vector<std::unique_ptr<dataflow::LocalEnvironments>> envs;
  std::vector<std::unique_ptr<dataflow::Actor>> actors;
  std::unique_ptr<dataflow::Learner> learner;
  int64_t steps = 0;  // environment steps collected so far

  FragmentLoop(std::unique_ptr<dataflow::Algorithm> algo, dataflow::RunSettings settings)
      : run(std::move(settings)), algorithm(std::move(algo)) {
    for (int64_t a = 0; a < run.actors; ++a) {
      envs.push_back(std::make_unique<dataflow::LocalEnvironments>(
          std::make_unique<VectorEnv>(run.env, run.envs_per_actor, VectorEnvOptions{.num_threads = 1},
                                      run.max_episode_steps),
          a * run.envs_per_actor));
      actors.push_back(algorithm->make_actor(a, *envs.back()));
    }
    learner = algorithm->make_learner(envs[0]->observation_space(), envs[0]->action_space());
  }

  // One rollout of every actor with the learner's current parameters.
  std::vector<dataflow::Trajectory> collect() {
    dataflow::Parameters p = learner->parameters();
    std::vector<dataflow::Trajectory> t;
    for (size_t a = 0; a < actors.size(); ++a) {
      actors[a]->load(p);
      t.push_back(actors[a]->collect());
      t.back().actor = int64_t(a);
      t.back().version = p.version;
      steps += t.back().env_steps;
    }
    return t;
  }

  // One rollout of every actor, then one update.
  train::Logs iterate() { return learner->update(collect()); }
};

}  // namespace spire::rl::fixtures
