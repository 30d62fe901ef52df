// A run of an algorithm under a distribution policy: the runtime that places fragments, wires the
// channels, and does the learner's bookkeeping (step budget, episode statistics, evaluation,
// history files, checkpoints, progress, stopping).
//
//   Trainer run(algorithm, settings);       // on every rank of parallel::world()
//   Summary s = run.train();                // until the budget, the target, SIGINT or a callback
//
// Each rank builds only what the placement puts on it: its actors (one thread each, with their own
// environment pools), the learner on the learner's rank (on the calling thread), a relay for
// parameters on ranks with actors but no learner, an environment server on ranks that only hold
// environments. Failures: an actor that raises on the learner's rank makes train() raise its
// error; one that raises on another rank ends the whole job with its message and rank
// (parallel::abort_job); a rank that dies makes the others time out with a message, never hang.
//
// Files (when settings.checkpoint.dir is set): checkpoint.h5 (the learner's state and the run's
// counters; written atomically every checkpoint.every updates and at the end), history.csv (one row
// per update, appended as the run goes) and history.h5 (the same, rewritten at each checkpoint).
// A run resumed from checkpoint.h5 continues from the saved learner and counters; its actors start
// from fresh environment resets, so it is not bitwise the run that never stopped.
#pragma once
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/parallel/communicator.h"
#include "engine/train/logs.h"
#include "reinforcement/dataflow/evaluator.h"
#include "reinforcement/dataflow/fragment.h"
#include "reinforcement/dataflow/policy.h"

namespace spire::rl::dataflow {

class TrajectoryChannel;
class ParameterChannel;

struct EvaluationSettings {
  int64_t every_steps = 0;  // environment steps between evaluations; 0: only at the end
  int64_t episodes = 100;
  int64_t envs = 10;
  double target = NAN;      // stop once the mean evaluation return reaches it; NaN: never
  uint64_t seed_offset = 1000000;  // evaluation environment i is reset with seed + seed_offset + i
};

struct CheckpointSettings {
  int64_t every = 0;  // updates between checkpoints; 0: only at the end
  std::string dir;    // empty: no files
};

struct TrainerSettings {
  RunSettings run;
  std::string policy = "single_process";
  int64_t env_threads = 1;  // threads stepping each actor's environments
  // Intra-op threads of the learner's ops (actors always use one: their batches are a few rows,
  // and several actors' thread teams would contend for the cores). RL networks are small; raise
  // it for large ones.
  int learner_threads = 1;
  EvaluationSettings evaluation;
  CheckpointSettings checkpoint;
  int64_t log_every = 0;  // updates between progress lines; 0: about every 2% of the budget
  std::string job_text;   // the job file, kept in checkpoints for provenance
};

struct Summary {
  int64_t env_steps = 0, updates = 0, episodes = 0;
  std::string stop_reason;  // "budget", "target", "interrupted", "callback"
  double seconds = 0;
  std::optional<Evaluation> evaluation;  // the last one
};

class Trainer {
 public:
  Trainer(std::shared_ptr<Algorithm> algorithm, TrainerSettings settings,
          std::shared_ptr<parallel::Communicator> world = nullptr);  // null: parallel::world_ptr()
  ~Trainer();

  // Collective over the world. On the learner's rank the summary; elsewhere what that rank knows.
  Summary train();

  // Before train(): continues the run saved in a checkpoint (every rank calls it; only the
  // learner's rank reads the file).
  void resume(const std::string& checkpoint_path);
  // Writes the learner's checkpoint now (learner's rank only).
  void save(const std::string& path) const;

  bool is_learner() const { return learner_ != nullptr; }
  Learner* learner() { return learner_.get(); }  // null on other ranks
  const Placement& placement() const { return placement_; }
  const TrainerSettings& settings() const { return settings_; }
  const std::vector<train::Logs>& history() const { return history_; }
  int64_t env_steps() const { return env_steps_; }
  int64_t updates() const { return updates_; }
  // Evaluation episodes of the learner's deterministic policy (learner's rank only).
  Evaluation evaluate(int64_t episodes, int64_t envs, uint64_t seed);

  // Lines of progress; default: none (the CLI prints them).
  std::function<void(const std::string&)> progress;
  // After each update with its logs; returning false stops the run.
  std::function<bool(int64_t update, const train::Logs& logs)> callback;

 private:
  struct ActorHost;
  std::unique_ptr<VectorEnv> make_pool(int64_t count) const;
  void run_actor(ActorHost& host, TrajectoryChannel& trajectories, ParameterChannel& parameters);
  Summary run_learner(TrajectoryChannel& trajectories, ParameterChannel& parameters);
  Parameters current_parameters() const;
  void bookkeeping(train::Logs& logs, int64_t steps, const Episodes& finished, double seconds);
  std::string checkpoint_path() const;
  void write_files(bool final);

  std::shared_ptr<Algorithm> algorithm_;
  TrainerSettings settings_;
  std::shared_ptr<parallel::Communicator> world_;
  Placement placement_;
  std::unique_ptr<Learner> learner_;
  std::vector<train::Logs> history_;
  int64_t env_steps_ = 0, updates_ = 0, episodes_ = 0, next_evaluation_ = 0;
  std::vector<double> recent_returns_, recent_lengths_;  // the last 100 episodes
  std::optional<Evaluation> last_evaluation_;
  bool resumed_ = false;
  struct Files;
  std::unique_ptr<Files> files_;
};

}  // namespace spire::rl::dataflow
