#include "reinforcement/dataflow/trainer.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <numeric>
#include <sstream>
#include <thread>

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "engine/core/threads.h"
#include "engine/nn/checkpoint.h"
#include "engine/parallel/runtime.h"
#include "engine/train/history_logger.h"
#include "engine/train/progress_bar.h"
#include "reinforcement/dataflow/channels.h"
#include "reinforcement/dataflow/interrupt.h"
#include "reinforcement/dataflow/sharded_environments.h"

namespace spire::rl::dataflow {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Trainer::ActorHost {
  int64_t index = 0;
  std::unique_ptr<Environments> envs;
  std::unique_ptr<Actor> actor;
  std::thread thread;
};

struct Trainer::Files {
  std::unique_ptr<train::HistoryLogger> csv, h5;
};

namespace {

constexpr size_t kRecentEpisodes = 100;  // the window of episode statistics, as SB3's ep_rew_mean

double mean_of(const std::vector<double>& xs) {
  return xs.empty() ? NAN : std::accumulate(xs.begin(), xs.end(), 0.0) / double(xs.size());
}

void keep_last(std::vector<double>& xs, size_t n) {
  if (xs.size() > n) xs.erase(xs.begin(), xs.end() - ptrdiff_t(n));
}

std::string format_number(double x) {
  std::ostringstream s;
  s.precision(4);
  s << x;
  return s.str();
}

}  // namespace

Trainer::Trainer(std::shared_ptr<Algorithm> algorithm, TrainerSettings settings,
                 std::shared_ptr<parallel::Communicator> world)
    : algorithm_(std::move(algorithm)), settings_(std::move(settings)),
      world_(world ? std::move(world) : parallel::world_ptr()) {
  const RunSettings& run = settings_.run;
  SPIRE_CHECK(run.actors >= 1 && run.envs_per_actor >= 1 && run.total_steps >= 1 && settings_.env_threads >= 1,
              ConfigError, "trainer: actors.count, env.envs_per_actor, run.total_steps and env.threads must be >= 1");
  placement_ = make_policy(settings_.policy)->place(run, world_->size());
  if (world_->rank() == placement_.learner_rank) {
    std::unique_ptr<Env> probe = make(run.env, run.max_episode_steps);
    learner_ = algorithm_->make_learner(probe->observation_space(), probe->action_space());
  }
}

Trainer::~Trainer() = default;

std::unique_ptr<VectorEnv> Trainer::make_pool(int64_t count) const {
  return std::make_unique<VectorEnv>(settings_.run.env, count,
                                     VectorEnvOptions{.num_threads = std::min(settings_.env_threads, count)},
                                     settings_.run.max_episode_steps);
}

std::string Trainer::checkpoint_path() const {
  return settings_.checkpoint.dir.empty() ? "" : (fs::path(settings_.checkpoint.dir) / "checkpoint.h5").string();
}

void Trainer::save(const std::string& path) const {
  SPIRE_CHECK(learner_, ValueError, "Trainer::save: only the learner's rank (", placement_.learner_rank,
              ") holds the learner; this is rank ", world_->rank());
  nn::CheckpointData data;
  optim::StateDict counters;
  counters.set("env_steps", env_steps_);
  counters.set("updates", updates_);
  counters.set("episodes", episodes_);
  counters.set("next_evaluation", next_evaluation_);
  data.state = {{"learner", learner_->state_dict()}, {"run", counters}};
  data.epoch = updates_;
  data.step = env_steps_;
  data.metadata = {{"algorithm", algorithm_->name()},
                   {"algorithm_settings", algorithm_->to_toml()},
                   {"policy", settings_.policy},
                   {"job", settings_.job_text},
                   {"spire_version", SPIRE_VERSION}};
  nn::write_checkpoint(path, data);
}

void Trainer::resume(const std::string& path) {
  resumed_ = true;
  if (!learner_) return;
  nn::CheckpointData data = nn::read_checkpoint(path);
  const optim::StateDict* learner = nullptr;
  const optim::StateDict* counters = nullptr;
  for (auto& [name, state] : data.state) {
    if (name == "learner") learner = &state;
    if (name == "run") counters = &state;
  }
  SPIRE_CHECK(learner && counters, ValueError, path,
              " is not a checkpoint of an RL run (no /state/learner and /state/run)");
  for (auto& [key, value] : data.metadata)
    if (key == "algorithm")
      SPIRE_CHECK(value == algorithm_->name(), ValueError, path, " was written by a ", value, " run, not ",
                  algorithm_->name());
  learner_->load_state_dict(*learner);
  env_steps_ = counters->integer("env_steps");
  updates_ = counters->integer("updates");
  episodes_ = counters->integer("episodes");
  next_evaluation_ = counters->integer("next_evaluation");
}

Evaluation Trainer::evaluate(int64_t episodes, int64_t envs, uint64_t seed) {
  SPIRE_CHECK(learner_, ValueError, "Trainer::evaluate: only the learner's rank holds the learner");
  return dataflow::evaluate([&](const Tensor& obs) { return learner_->act(obs); }, settings_.run.env,
                            settings_.run.max_episode_steps, episodes, envs, seed);
}

void Trainer::write_files(bool final) {
  if (!learner_ || settings_.checkpoint.dir.empty()) return;
  save(checkpoint_path());
  if (!files_) return;
  files_->h5->flush();
  if (final) {
    files_->csv->on_train_end(train::History());
    files_->h5->on_train_end(train::History());
  }
}

void Trainer::bookkeeping(train::Logs& logs, int64_t steps, const Episodes& finished, double seconds) {
  episodes_ += int64_t(finished.returns.size());
  recent_returns_.insert(recent_returns_.end(), finished.returns.begin(), finished.returns.end());
  for (int64_t l : finished.lengths) recent_lengths_.push_back(double(l));
  keep_last(recent_returns_, kRecentEpisodes);
  keep_last(recent_lengths_, kRecentEpisodes);
  env_steps_ += steps;
  train::Logs out{{"env_steps", double(env_steps_)},
                  {"episodes", double(episodes_)},
                  {"episode_return", mean_of(recent_returns_)},
                  {"episode_length", mean_of(recent_lengths_)},
                  {"fps", seconds > 0 ? double(steps) / seconds : NAN},
                  {"eval_return", NAN},
                  {"eval_return_std", NAN}};
  for (auto& [k, v] : logs) out.set(k, v);
  logs = std::move(out);
}

Parameters Trainer::current_parameters() const {
  Parameters p = learner_->parameters();
  p.env_steps = env_steps_;  // the run's count, which exploration schedules follow
  return p;
}

Summary Trainer::run_learner(TrajectoryChannel& trajectories, ParameterChannel& parameters) {
  const RunSettings& run = settings_.run;
  const EvaluationSettings& ev = settings_.evaluation;
  NumThreadsGuard threads(settings_.learner_threads);
  const auto t0 = Clock::now();
  const int64_t steps0 = env_steps_;  // a resumed run's rate counts this session's steps
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  if (!settings_.checkpoint.dir.empty()) {
    fs::create_directories(settings_.checkpoint.dir);
    files_ = std::make_unique<Files>();
    const fs::path dir = settings_.checkpoint.dir;
    files_->csv = std::make_unique<train::HistoryLogger>(
        train::HistoryLoggerOptions{.path = (dir / "history.csv").string(), .append = resumed_});
    files_->h5 = std::make_unique<train::HistoryLogger>(
        train::HistoryLoggerOptions{.path = (dir / "history.h5").string(), .append = resumed_, .write_every = 0});
    files_->csv->on_train_begin();
    files_->h5->on_train_begin();
  }
  const int64_t per_update = algorithm_->rollout_steps() * run.total_envs();
  const int64_t log_every =
      settings_.log_every > 0 ? settings_.log_every : std::max<int64_t>(1, run.total_steps / per_update / 50);
  if (next_evaluation_ == 0 && ev.every_steps > 0) next_evaluation_ = ev.every_steps;
  auto evaluate_now = [&](train::Logs& logs) {
    last_evaluation_ = evaluate(ev.episodes, ev.envs, run.seed + ev.seed_offset);
    logs.set("eval_return", last_evaluation_->mean_return());
    logs.set("eval_return_std", last_evaluation_->std_return());
    if (progress)
      progress(detail::cat("evaluation after ", env_steps_, " steps: return ",
                           format_number(last_evaluation_->mean_return()),
                           " +/- ", format_number(last_evaluation_->std_return()), " over ", ev.episodes, " episodes"));
    return std::isfinite(ev.target) && last_evaluation_->mean_return() >= ev.target;
  };

  const size_t need = placement_.synchronous ? placement_.actor_rank.size() : 1;
  std::string reason;
  if (env_steps_ >= run.total_steps) {  // a finished run trained again, or resumed with the same budget
    parameters.publish(current_parameters(), kStop);
    trajectories.drain();
    write_files(true);
    return Summary{.stop_reason = "budget", .evaluation = last_evaluation_};
  }
  parameters.publish(current_parameters());
  auto t_round = Clock::now();
  for (;;) {
    int64_t flags = 0;
    std::vector<Trajectory> batch = trajectories.receive(need, flags);
    int64_t steps = 0;
    Episodes finished;
    for (const Trajectory& t : batch) {
      steps += t.env_steps;
      finished.append(t.episodes);
    }
    train::Logs logs = learner_->update(std::move(batch));
    ++updates_;
    const double round = std::chrono::duration<double>(Clock::now() - t_round).count();
    t_round = Clock::now();
    bookkeeping(logs, steps, finished, round);
    logs.set("time", elapsed());
    if (ev.episodes > 0 && ev.every_steps > 0 && env_steps_ >= next_evaluation_) {
      while (next_evaluation_ <= env_steps_) next_evaluation_ += ev.every_steps;
      if (evaluate_now(logs)) reason = "target";
    }
    const bool go_on = !callback || callback(updates_ - 1, logs);
    if (reason.empty() && env_steps_ >= run.total_steps) reason = "budget";
    if (reason.empty() && !go_on) reason = "callback";
    if (reason.empty() && (InterruptScope::requested() || (flags & kStopRequest))) reason = "interrupted";
    // The final evaluation, unless this update just had one.
    if (!reason.empty() && ev.episodes > 0 && std::isnan(logs.at("eval_return"))) evaluate_now(logs);
    history_.push_back(logs);
    if (files_) {
      files_->csv->on_epoch_end(updates_ - 1, logs);
      files_->h5->on_epoch_end(updates_ - 1, logs);
    }
    if (progress && (updates_ % log_every == 0 || env_steps_ >= run.total_steps)) {
      const double rate = double(env_steps_ - steps0) / std::max(elapsed(), 1e-9);
      std::ostringstream line;
      line << algorithm_->name() << " update " << updates_ << "  steps " << env_steps_ << "/" << run.total_steps << "  "
           << int64_t(rate) << " steps/s  ETA "
           << train::ProgressBar::format_time(double(std::max<int64_t>(0, run.total_steps - env_steps_)) / rate)
           << "  return " << format_number(logs.at("episode_return"));
      for (const char* key : {"loss", "entropy", "epsilon"})
        if (auto v = logs.get(key)) line << "  " << key << " " << format_number(*v);
      progress(line.str());
    }
    if (settings_.checkpoint.every > 0 && updates_ % settings_.checkpoint.every == 0 && reason.empty())
      write_files(false);
    if (!reason.empty()) {
      parameters.publish(current_parameters(), kStop);
      break;
    }
    parameters.publish(current_parameters());
  }
  trajectories.drain();
  Summary summary;
  summary.stop_reason = reason;
  write_files(true);
  summary.evaluation = last_evaluation_;
  summary.seconds = elapsed();
  if (progress)
    progress(detail::cat("stopped (", reason, ") after ", updates_, " updates, ", env_steps_, " environment steps, ",
                         episodes_, " episodes, ", format_number(summary.seconds), " s"));
  return summary;
}

void Trainer::run_actor(ActorHost& host, TrajectoryChannel& trajectories, ParameterChannel& parameters) {
  NumThreadsGuard one_thread(1);
  const bool learner_here = world_->rank() == placement_.learner_rank;
  try {
    auto latest = parameters.newest(-1, true);
    while (!(latest->flags & kStop)) {
      const int64_t version = latest->parameters->version;
      host.actor->load(*latest->parameters);
      Trajectory t = host.actor->collect();
      t.actor = host.index;
      t.version = version;
      trajectories.send(t, InterruptScope::requested() ? kStopRequest : 0);
      // Synchronous: the next round's parameters. Asynchronous: the newest there are, if any.
      if (placement_.synchronous) latest = parameters.newest(version, true);
      else if (auto newer = parameters.newest(version, false)) latest = newer;
    }
    trajectories.bye(host.index);
  } catch (...) {
    // Elsewhere than the learner's rank nobody could rethrow it: the job ends, naming the actor.
    if (!learner_here) {
      std::string what = "an exception not derived from std::exception";
      try {
        throw;
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      parallel::abort_job(detail::cat("actor ", host.index, " failed: ", what));
    }
    trajectories.fail(host.index, std::current_exception());
  }
}

Summary Trainer::train() {
  InterruptScope interrupts;
  const int me = world_->rank();
  const bool learner_here = me == placement_.learner_rank;
  const RunSettings& run = settings_.run;
  auto pool = [this](int64_t count) { return make_pool(count); };
  TrajectoryChannel trajectories(world_, placement_);
  ParameterChannel parameters(world_, placement_);

  // This rank's actors, each on its own thread with its own environments.
  std::vector<std::unique_ptr<ActorHost>> hosts;
  for (int64_t a : placement_.actors_on(me)) {
    auto host = std::make_unique<ActorHost>();
    host->index = a;
    const int64_t first = a * run.envs_per_actor;
    if (!placement_.env_rank.empty())
      host->envs = std::make_unique<ShardedEnvironments>(world_, placement_.env_rank, pool);
    else
      host->envs = std::make_unique<LocalEnvironments>(make_pool(run.envs_per_actor), first);
    host->actor = algorithm_->make_actor(a, *host->envs);
    hosts.push_back(std::move(host));
  }
  for (auto& h : hosts) {
    ActorHost* host = h.get();
    host->thread = std::thread([&, host] { run_actor(*host, trajectories, parameters); });
  }
  auto join_actors = [&] {
    for (auto& h : hosts)
      if (h->thread.joinable()) h->thread.join();
  };

  Summary summary;
  if (learner_here) {
    try {
      summary = run_learner(trajectories, parameters);
    } catch (...) {
      parameters.stop_local();  // local actors end after their rollout; remote ranks end with the job
      join_actors();
      throw;
    }
  } else if (!hosts.empty()) {
    parameters.relay();
  } else if (!placement_.env_rank.empty()) {
    serve_environments(*world_, placement_.actor_rank[0], placement_.env_rank, pool);
  }
  join_actors();
  hosts.clear();  // ends the environment servers of a sharded actor
  summary.env_steps = env_steps_;
  summary.updates = updates_;
  summary.episodes = episodes_;
  return summary;
}

}  // namespace spire::rl::dataflow
