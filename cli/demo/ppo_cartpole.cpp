// Step: PPO solves CartPole-v1: the algorithm written as dataflow fragments (two actors of four
// environments on threads, one learner), rl-baselines3-zoo's hyperparameters, 100 deterministic
// evaluation episodes every 2048 steps until the mean return reaches 475. About two seconds.
#include <cmath>

#include "cli/demo/demo.h"
#include "reinforcement/agents/job.h"

namespace spire::cli::demo {
namespace {

const char* kJob = R"(algorithm = "ppo"
seed = 0
policy = "single_process"
[env]
id = "CartPole-v1"
envs_per_actor = 4
[actors]
count = 2
[run]
total_steps = 200000
log_every = 40
[evaluation]
every_steps = 2048
episodes = 100
target = 475.0
[ppo]
n_steps = 32
batch_size = 256
gae_lambda = 0.8
gamma = 0.98
n_epochs = 20
ent_coef = 0.0
lr = 1e-3
lr_schedule = "linear"
clip_range = 0.2
clip_range_schedule = "linear"
)";

SPIRE_DEMO_STEP(210, "ppo", "PPO learns CartPole-v1 (actors and learner as dataflow fragments)", [](Context& c) {
  rl::agents::Job job = rl::agents::parse_job(kJob, "the demo's job");
  rl::dataflow::Trainer trainer(job.instance, job.settings);
  trainer.progress = [&](const std::string& line) {
    if (line.rfind("evaluation", 0) != 0) c.out << "  " << line << "\n";
  };
  rl::dataflow::Summary s = trainer.train();
  c.figure("environment steps to a mean evaluation return of 475", double(s.env_steps));
  c.figure("training time", s.seconds, "s");
  c.figure("evaluation return (100 episodes)", s.evaluation ? s.evaluation->mean_return() : NAN);
  c.check("solved within the budget (1 = yes)", s.stop_reason == "target" ? 1.0 : 0.0, 1.0, 0.0);
});

}  // namespace
}  // namespace spire::cli::demo
