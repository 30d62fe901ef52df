#include "reinforcement/agents/job.h"

#include "engine/core/error.h"
#include "engine/data/job_file.h"
#include "engine/nn/checkpoint.h"
#include "reinforcement/agents/algorithms.h"
#include "reinforcement/envs/env.h"

namespace spire::rl::agents {

Job parse_job(const std::string& text, const std::string& where, const std::string& policy) {
  data::JobSection top = data::JobSection::parse(text, where);
  Job job;
  dataflow::TrainerSettings& s = job.settings;
  dataflow::RunSettings& run = s.run;
  s.job_text = text;
  job.algorithm = "ppo";
  top.string("algorithm", job.algorithm, registered_algorithms());
  int64_t seed = 0;
  top.integer("seed", seed, 0);
  run.seed = uint64_t(seed);
  top.string("policy", s.policy, dataflow::registered_policies());
  if (!policy.empty()) {
    auto known = dataflow::registered_policies();
    SPIRE_CHECK(std::find(known.begin(), known.end(), policy) != known.end(), ConfigError, "--policy \"", policy,
                "\" is not a distribution policy; allowed: ", detail::join(known));
    s.policy = policy;
  }

  data::JobSection env = top.table("env");
  env.string("id", run.env, registered_ids());
  env.integer("envs_per_actor", run.envs_per_actor, 1, 1 << 20);
  env.integer("max_episode_steps", run.max_episode_steps, -1);
  env.integer("threads", s.env_threads, 1, 1024);
  env.finish();

  data::JobSection actors = top.table("actors");
  actors.integer("count", run.actors, 1, 4096);
  actors.finish();

  data::JobSection r = top.table("run");
  r.integer("total_steps", run.total_steps, 1);
  r.integer("log_every", s.log_every, 0);
  r.integer("learner_threads", s.learner_threads, 1, 1024);
  r.finish();

  data::JobSection ev = top.table("evaluation");
  ev.integer("every_steps", s.evaluation.every_steps, 0);
  ev.integer("episodes", s.evaluation.episodes, 0);
  ev.integer("envs", s.evaluation.envs, 1, 4096);
  ev.number("target", s.evaluation.target, -1e300, 1e300);
  ev.finish();

  data::JobSection ck = top.table("checkpoint");
  ck.integer("every", s.checkpoint.every, 0);
  ck.string("dir", s.checkpoint.dir);
  ck.finish();

  data::JobSection own = top.table(job.algorithm.c_str());
  job.instance = make_algorithm(job.algorithm, own, run);
  top.finish();
  return job;
}

Job load_job(const std::string& path, const std::string& policy) {
  return parse_job(data::JobSection::read(path), path, policy);
}

Job job_of_checkpoint(const std::string& checkpoint_path, const std::string& policy) {
  nn::CheckpointData data = nn::read_checkpoint(checkpoint_path);
  for (const auto& [key, text] : data.metadata)
    if (key == "job") return parse_job(text, checkpoint_path + ":/meta/job", policy);
  throw ValueError(detail::cat(checkpoint_path, " holds no job (/meta/job): it is not the checkpoint of a run of ",
                               detail::join(registered_algorithms())));
}

}  // namespace spire::rl::agents
