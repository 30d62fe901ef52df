// The settings RL tests run with: CartPole-v1 runs of a given shape, and trainer settings without
// evaluation (the tests check the learner, not the policy's returns).
#pragma once
#include <string>

#include "reinforcement/dataflow/trainer.h"

namespace spire::rl::fixtures {

inline dataflow::RunSettings cartpole_run(int64_t actors, int64_t envs_per_actor, uint64_t seed, int64_t total_steps) {
  dataflow::RunSettings run;
  run.env = "CartPole-v1";
  run.actors = actors;
  run.envs_per_actor = envs_per_actor;
  run.seed = seed;
  run.total_steps = total_steps;
  return run;
}

inline dataflow::TrainerSettings unevaluated(const dataflow::RunSettings& run, const std::string& policy) {
  dataflow::TrainerSettings s;
  s.run = run;
  s.policy = policy;
  s.evaluation.episodes = 0;
  return s;
}

}  // namespace spire::rl::fixtures
