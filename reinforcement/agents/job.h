// A `spire rl train` job file for the algorithms written as fragments (ppo, a2c, dqn):
//
//   algorithm = "ppo"                 # the registered algorithms (algorithms.h)
//   seed = 0
//   policy = "single_process"         # policy.h; `--policy` overrides
//   [env]         id = "CartPole-v1", envs_per_actor = 8, max_episode_steps = -1 (registered),
//                 threads = 1 (per actor's pool)
//   [actors]      count = 1
//   [run]         total_steps = 100000, log_every = 0 (automatic), learner_threads = 1
//   [evaluation]  every_steps = 0 (only at the end), episodes = 100, envs = 10, target (none)
//   [checkpoint]  every = 0 (updates; only at the end), dir = "" (the CLI's -o)
//   [ppo]         the algorithm's own settings (docs/rl_ppo.md, docs/rl_dqn.md)
//
// Unknown keys and bad values are ConfigErrors naming them and what is allowed.
#pragma once
#include <memory>
#include <string>

#include "reinforcement/dataflow/trainer.h"

namespace spire::rl::agents {

struct Job {
  std::string algorithm;
  dataflow::TrainerSettings settings;
  std::shared_ptr<dataflow::Algorithm> instance;
};

// policy: overrides the job's policy when not empty.
Job parse_job(const std::string& text, const std::string& where, const std::string& policy = "");
Job load_job(const std::string& path, const std::string& policy = "");
// The job a run's checkpoint was written by (its /meta/job), to evaluate or continue the run.
// ValueError naming the path when the file is not an RL run's checkpoint.
Job job_of_checkpoint(const std::string& checkpoint_path, const std::string& policy = "");

}  // namespace spire::rl::agents
