// A pool of environments stepped by worker threads, in the manner of EnvPool, with Gymnasium 1.0's
// vector-environment conventions.
//
// Synchronous: reset(seed) and step(actions) return one row per environment, in environment order.
// Asynchronous (EnvPool's): send(actions, env_ids) queues work and returns at once; recv() returns
// the first batch_size environments to finish, with their ids, so a learner never waits for
// stragglers. Environments are stepped as they come, so which environments land in a batch
// depends on thread timing; each environment's own trajectory does not (it depends only on its
// seed and its actions).
//
// Autoreset is Gymnasium 1.0's "next step" mode: an environment that terminated or truncated is
// reset by the next step sent to it (its action is ignored), which returns the reset observation
// with reward 0 and both flags false. reset(seed) seeds environment i with seed + i, as
// gymnasium.vector.SyncVectorEnv; without a seed each environment continues its own stream.
//
// Results live in buffers the pool allocates once: stepping allocates nothing. A batch's spans stay
// valid until the next call that produces results (step/reset for the synchronous buffers; recv
// returns a ring slot that stays intact until the recv after next). The pool is driven from one
// thread at a time.
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "reinforcement/envs/env.h"

namespace spire::rl {

// One batch of results: rows [size, obs_dim] of observations and one entry per row elsewhere.
struct VectorBatch {
  std::span<const float> obs;
  std::span<const double> rewards;
  std::span<const uint8_t> terminated, truncated;
  std::span<const int32_t> env_id;
  int64_t size = 0;
};

struct VectorEnvOptions {
  int64_t batch_size = 0;   // recv()'s batch; 0: num_envs
  int64_t num_threads = 0;  // threads stepping, the caller's included; 0: the hardware's
};

class VectorEnv {
 public:
  using Factory = std::function<std::unique_ptr<Env>(int64_t index)>;
  // num_envs copies of make(id, max_episode_steps).
  VectorEnv(const std::string& id, int64_t num_envs, VectorEnvOptions options = {}, int64_t max_episode_steps = -1);
  VectorEnv(const Factory& factory, int64_t num_envs, VectorEnvOptions options = {});
  // The environments must share observation and action spaces.
  explicit VectorEnv(std::vector<std::unique_ptr<Env>> envs, VectorEnvOptions options = {});
  ~VectorEnv();
  VectorEnv(const VectorEnv&) = delete;
  VectorEnv& operator=(const VectorEnv&) = delete;

  int64_t num_envs() const { return static_cast<int64_t>(envs_.size()); }
  int64_t batch_size() const { return batch_size_; }
  int64_t num_threads() const { return threads_; }
  int64_t obs_dim() const { return obs_dim_; }
  int64_t act_dim() const { return act_dim_; }  // 1 for Discrete
  const Space& single_observation_space() const { return envs_[0]->observation_space(); }
  const Space& single_action_space() const { return envs_[0]->action_space(); }
  Env& env(int64_t i);

  // Synchronous: every environment, rows in environment order (env_id = 0..num_envs-1). Waits for
  // (and discards) any asynchronous work still under way.
  VectorBatch reset(std::optional<uint64_t> seed = std::nullopt, const ResetOptions& options = {});
  // One seed per environment (nullopt: it continues its generator), as Gymnasium's reset(seed=[...]).
  VectorBatch reset(std::span<const std::optional<uint64_t>> seeds, const ResetOptions& options = {});
  VectorBatch step(std::span<const int64_t> actions);  // Discrete: num_envs actions
  VectorBatch step(std::span<const float> actions);    // Box: num_envs x act_dim, row-major

  // Asynchronous: async_reset() resets every environment (seeds as reset()); send() queues one
  // action per listed environment (an empty env_ids means all, in order); recv() waits for the
  // next batch_size results.
  void async_reset(std::optional<uint64_t> seed = std::nullopt);
  void async_reset(std::span<const std::optional<uint64_t>> seeds);
  void send(std::span<const int64_t> actions, std::span<const int32_t> env_ids = {});
  void send(std::span<const float> actions, std::span<const int32_t> env_ids = {});
  VectorBatch recv();

  // Finishes queued work and stops the threads; the pool cannot step afterwards.
  void close();

 private:
  enum class Op : uint8_t { Step, Reset };
  // seed + i for environment i, or nullopt for all.
  std::vector<std::optional<uint64_t>> consecutive_seeds(std::optional<uint64_t> seed) const;
  void check_seeds(std::span<const std::optional<uint64_t>> seeds, const char* who) const;
  struct Buffers {
    std::vector<float> obs;
    std::vector<double> rewards;
    std::vector<uint8_t> terminated, truncated;
    std::vector<int32_t> env_id;
    void resize(int64_t rows, int64_t obs_dim);
    VectorBatch view(int64_t first, int64_t rows, int64_t obs_dim) const;
  };

  void init(VectorEnvOptions options);
  void check_open(const char* who) const;
  void check_started(const char* who) const;
  void check_discrete(std::span<const int64_t> actions, std::span<const int32_t> ids, const char* who) const;
  void check_box(std::span<const float> actions, int64_t rows, const char* who) const;
  // The environments send() addresses (all when env_ids is empty), checked: in range, distinct,
  // none still running.
  std::span<const int32_t> check_ids(std::span<const int32_t> env_ids, const char* who);
  void send_ids(std::span<const int32_t> ids, const char* who);
  void begin_async(const char* who);
  // Queues one task per id and wakes the workers.
  void publish(std::span<const int32_t> ids, bool async);
  VectorBatch run_sync();
  // Waits for every queued task and drops unreceived asynchronous results.
  void drain();
  void rethrow();

  // Workers (and the caller while it waits) claim a run of queued tasks and execute them.
  bool run_some(int64_t max_chunk);
  void run_task(int32_t e);
  void worker_loop();
  // Caller: sleeps until done() holds, stepping queued tasks meanwhile.
  template <class Done>
  void wait_until(Done done);
  void wake_caller();

  std::vector<std::unique_ptr<Env>> envs_;
  int64_t obs_dim_ = 0, act_dim_ = 1, batch_size_ = 0, num_batches_ = 0, threads_ = 1, async_chunk_ = 1;
  bool discrete_ = true, started_ = false, closed_ = false;

  // Per environment: the queued operation, its action, its reset seed and options, the next-step
  // autoreset flag, its latest observation (async: results are copied to a ring slot when done),
  // and whether the caller may send to it.
  std::vector<Op> op_;
  std::vector<int64_t> act_int_;
  std::vector<float> act_box_;
  std::vector<std::optional<uint64_t>> seed_;
  ResetOptions reset_options_;
  std::vector<uint8_t> autoreset_;
  std::vector<float> scratch_obs_;
  std::vector<uint8_t> in_flight_;
  std::vector<uint8_t> seen_;  // scratch for check_ids
  std::vector<int32_t> all_ids_;

  Buffers sync_;  // num_envs rows, row i = environment i
  Buffers ring_;  // num_batches_ * batch_size rows; batch k lives at (k % num_batches_) * batch_size
  std::unique_ptr<std::atomic<int64_t>[]> batch_filled_;

  // The task queue: a ring of num_envs cells (each environment is queued at most once), written by
  // the caller only. cell_free_[c % n] == c says cell c may be written (its previous task was read).
  std::atomic<bool> async_{false};  // the tasks queued are send()'s (results go to the ring)
  std::vector<int32_t> cells_;
  std::unique_ptr<std::atomic<uint64_t>[]> cell_free_;
  alignas(64) std::atomic<uint64_t> tail_{0};   // tasks published
  alignas(64) std::atomic<uint64_t> head_{0};   // tasks claimed
  alignas(64) std::atomic<uint64_t> done_{0};   // tasks finished
  alignas(64) std::atomic<uint64_t> results_{0};  // async result rows claimed
  alignas(64) std::atomic<uint32_t> wake_{0};     // bumped on publish and close; workers sleep on it
  std::atomic<int32_t> sleepers_{0};
  alignas(64) std::atomic<uint32_t> progress_{0};  // bumped for a sleeping caller
  std::atomic<bool> caller_sleeping_{false};
  std::atomic<bool> stop_{false};
  uint64_t published_ = 0;   // tail_, as the caller last wrote it
  uint64_t async_sent_ = 0;  // async tasks queued since the last drain
  uint64_t received_ = 0;    // async result rows handed out by recv() since the last drain

  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::vector<std::thread> workers_;
};

}  // namespace spire::rl
