#include "reinforcement/envs/vector_env.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "engine/core/error.h"

namespace spire::rl {

namespace {
// How long an idle thread spins before sleeping on a futex. Long enough to bridge the learner's
// Python between two step() calls (a wakeup through the kernel costs several microseconds, more
// than a batch of CartPole steps), short enough not to hold a core that others need.
constexpr auto kSpin = std::chrono::microseconds(50);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until ready() or kSpin has passed; true if ready.
template <class Ready>
bool spin_until(Ready ready) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 1;; ++i) {
    if (ready()) return true;
    cpu_relax();
    if ((i & 63) == 0 && std::chrono::steady_clock::now() - start > kSpin) return ready();
  }
}

const ResetOptions kNoOptions;
}  // namespace

void VectorEnv::Buffers::resize(int64_t rows, int64_t obs_dim) {
  obs.assign(static_cast<size_t>(rows * obs_dim), 0.0f);
  rewards.assign(static_cast<size_t>(rows), 0.0);
  terminated.assign(static_cast<size_t>(rows), 0);
  truncated.assign(static_cast<size_t>(rows), 0);
  env_id.assign(static_cast<size_t>(rows), 0);
}

VectorBatch VectorEnv::Buffers::view(int64_t first, int64_t rows, int64_t obs_dim) const {
  auto f = static_cast<size_t>(first), n = static_cast<size_t>(rows);
  VectorBatch b;
  b.obs = std::span<const float>(obs).subspan(f * static_cast<size_t>(obs_dim), n * static_cast<size_t>(obs_dim));
  b.rewards = std::span<const double>(rewards).subspan(f, n);
  b.terminated = std::span<const uint8_t>(terminated).subspan(f, n);
  b.truncated = std::span<const uint8_t>(truncated).subspan(f, n);
  b.env_id = std::span<const int32_t>(env_id).subspan(f, n);
  b.size = rows;
  return b;
}

VectorEnv::VectorEnv(const std::string& id, int64_t num_envs, VectorEnvOptions options, int64_t max_episode_steps) {
  SPIRE_CHECK(num_envs >= 1, ValueError, "VectorEnv: num_envs must be >= 1, got ", num_envs);
  for (int64_t i = 0; i < num_envs; ++i) envs_.push_back(make(id, max_episode_steps));
  init(options);
}

VectorEnv::VectorEnv(const Factory& factory, int64_t num_envs, VectorEnvOptions options) {
  SPIRE_CHECK(num_envs >= 1, ValueError, "VectorEnv: num_envs must be >= 1, got ", num_envs);
  for (int64_t i = 0; i < num_envs; ++i) envs_.push_back(factory(i));
  init(options);
}

VectorEnv::VectorEnv(std::vector<std::unique_ptr<Env>> envs, VectorEnvOptions options) : envs_(std::move(envs)) {
  init(options);
}

VectorEnv::~VectorEnv() { close(); }

namespace {
bool same_space(const Space& a, const Space& b) {
  if (a.kind() != b.kind()) return false;
  if (a.is_discrete()) return a.n() == b.n() && a.start() == b.start();
  return a.shape() == b.shape() && a.low() == b.low() && a.high() == b.high();
}
}  // namespace

void VectorEnv::init(VectorEnvOptions options) {
  const auto n = static_cast<int64_t>(envs_.size());
  SPIRE_CHECK(n >= 1, ValueError, "VectorEnv: num_envs must be >= 1, got 0");
  for (int64_t i = 0; i < n; ++i) {
    SPIRE_CHECK(envs_[i] != nullptr, ValueError, "VectorEnv: environment ", i, " is null");
    const Env& a = *envs_[0];
    const Env& b = *envs_[i];
    SPIRE_CHECK(same_space(a.observation_space(), b.observation_space()) && same_space(a.action_space(), b.action_space()),
                ValueError, "VectorEnv: the environments must share their spaces; environment 0 has ",
                a.observation_space().to_string(), " / ", a.action_space().to_string(), ", environment ", i, " has ",
                b.observation_space().to_string(), " / ", b.action_space().to_string());
  }
  SPIRE_CHECK(envs_[0]->observation_space().is_box(), ValueError, "VectorEnv: observations must be a Box, got ",
              envs_[0]->observation_space().to_string());
  batch_size_ = options.batch_size == 0 ? n : options.batch_size;
  SPIRE_CHECK(batch_size_ >= 1 && batch_size_ <= n, ValueError, "VectorEnv: batch_size must be in [1, num_envs=", n,
              "] (0: num_envs), got ", options.batch_size);
  SPIRE_CHECK(options.num_threads >= 0, ValueError, "VectorEnv: num_threads must be >= 0 (0: one per hardware thread), got ",
              options.num_threads);
  int64_t threads = options.num_threads;
  if (threads == 0) threads = std::max<int64_t>(1, std::thread::hardware_concurrency());
  threads = std::min(threads, n);  // a thread without an environment of its own only contends

  obs_dim_ = envs_[0]->observation_space().size();
  discrete_ = envs_[0]->action_space().is_discrete();
  act_dim_ = discrete_ ? 1 : envs_[0]->action_space().size();

  // A result row is reused only after the batch holding it and the batch after it were received:
  // at most num_envs rows are outstanding, so num_envs + batch_size rows suffice.
  num_batches_ = (n + batch_size_ - 1) / batch_size_ + 1;
  const auto un = static_cast<size_t>(n);
  op_.assign(un, Op::Reset);
  act_int_.assign(un, 0);
  act_box_.assign(un * static_cast<size_t>(act_dim_), 0.0f);
  seed_.assign(un, std::nullopt);
  autoreset_.assign(un, 0);
  scratch_obs_.assign(un * static_cast<size_t>(obs_dim_), 0.0f);
  in_flight_.assign(un, 0);
  seen_.assign(un, 0);
  all_ids_.resize(un);
  for (int64_t i = 0; i < n; ++i) all_ids_[i] = static_cast<int32_t>(i);
  sync_.resize(n, obs_dim_);
  sync_.env_id = all_ids_;
  ring_.resize(num_batches_ * batch_size_, obs_dim_);
  batch_filled_ = std::make_unique<std::atomic<int64_t>[]>(static_cast<size_t>(num_batches_));
  for (int64_t k = 0; k < num_batches_; ++k) batch_filled_[k].store(0);
  cells_.assign(un, 0);
  cell_free_ = std::make_unique<std::atomic<uint64_t>[]>(un);
  for (size_t c = 0; c < un; ++c) cell_free_[c].store(c);
  threads_ = threads;
  async_chunk_ = std::max<int64_t>(1, (batch_size_ + threads - 1) / threads);
  for (int64_t t = 1; t < threads; ++t) workers_.emplace_back([this] { worker_loop(); });
}

Env& VectorEnv::env(int64_t i) {
  SPIRE_CHECK(i >= 0 && i < num_envs(), ValueError, "VectorEnv.env: index ", i, " is out of range [0, ", num_envs(), ")");
  return *envs_[i];
}

void VectorEnv::check_open(const char* who) const {
  SPIRE_CHECK(!closed_, ValueError, "VectorEnv.", who, ": the pool is closed");
}

void VectorEnv::check_started(const char* who) const {
  SPIRE_CHECK(started_, ValueError, "VectorEnv.", who, ": call reset() or async_reset() first");
}

// ---------------------------------------------------------------------------------------------
// Synchronous API

std::vector<std::optional<uint64_t>> VectorEnv::consecutive_seeds(std::optional<uint64_t> seed) const {
  std::vector<std::optional<uint64_t>> seeds(envs_.size());
  if (seed)
    for (size_t i = 0; i < seeds.size(); ++i) seeds[i] = *seed + i;
  return seeds;
}

void VectorEnv::check_seeds(std::span<const std::optional<uint64_t>> seeds, const char* who) const {
  SPIRE_CHECK(static_cast<int64_t>(seeds.size()) == num_envs(), ValueError, "VectorEnv.", who, ": ", seeds.size(),
              " seeds for ", num_envs(), " environments (one per environment, or a single seed)");
}

VectorBatch VectorEnv::reset(std::optional<uint64_t> seed, const ResetOptions& options) {
  return reset(consecutive_seeds(seed), options);
}

VectorBatch VectorEnv::reset(std::span<const std::optional<uint64_t>> seeds, const ResetOptions& options) {
  check_open("reset");
  check_seeds(seeds, "reset");
  drain();
  for (size_t i = 0; i < envs_.size(); ++i) {
    op_[i] = Op::Reset;
    seed_[i] = seeds[i];
  }
  reset_options_ = options;
  started_ = true;
  return run_sync();
}

VectorBatch VectorEnv::step(std::span<const int64_t> actions) {
  check_open("step");
  check_started("step");
  check_discrete(actions, all_ids_, "step");
  drain();
  std::copy(actions.begin(), actions.end(), act_int_.begin());
  std::fill(op_.begin(), op_.end(), Op::Step);
  return run_sync();
}

VectorBatch VectorEnv::step(std::span<const float> actions) {
  check_open("step");
  check_started("step");
  check_box(actions, num_envs(), "step");
  drain();
  std::copy(actions.begin(), actions.end(), act_box_.begin());
  std::fill(op_.begin(), op_.end(), Op::Step);
  return run_sync();
}

VectorBatch VectorEnv::run_sync() {
  publish(all_ids_, false);
  const uint64_t target = published_;
  wait_until([&] { return done_.load() == target; });
  rethrow();
  return sync_.view(0, num_envs(), obs_dim_);
}

// ---------------------------------------------------------------------------------------------
// Asynchronous API

void VectorEnv::async_reset(std::optional<uint64_t> seed) { async_reset(consecutive_seeds(seed)); }

void VectorEnv::async_reset(std::span<const std::optional<uint64_t>> seeds) {
  check_open("async_reset");
  check_seeds(seeds, "async_reset");
  drain();
  for (size_t i = 0; i < envs_.size(); ++i) {
    op_[i] = Op::Reset;
    seed_[i] = seeds[i];
    in_flight_[i] = 1;
  }
  reset_options_.clear();
  started_ = true;
  publish(all_ids_, true);
  async_sent_ += static_cast<uint64_t>(num_envs());
}

void VectorEnv::send_ids(std::span<const int32_t> ids, const char* who) {
  const auto n = num_envs();
  for (int32_t e : ids) {
    SPIRE_CHECK(e >= 0 && e < n, ValueError, "VectorEnv.", who, ": env_id ", e, " is out of range [0, ", n, ")");
    SPIRE_CHECK(!seen_[e], ValueError, "VectorEnv.", who, ": env_id ", e, " appears more than once");
    SPIRE_CHECK(!in_flight_[e], ValueError, "VectorEnv.", who, ": environment ", e,
                " is still running or its result has not been received; recv() it before sending to it again");
    seen_[e] = 1;
  }
}

std::span<const int32_t> VectorEnv::check_ids(std::span<const int32_t> env_ids, const char* who) {
  std::span<const int32_t> ids = env_ids.empty() ? std::span<const int32_t>(all_ids_) : env_ids;
  try {
    send_ids(ids, who);
  } catch (...) {
    for (int32_t e : ids) if (e >= 0 && e < num_envs()) seen_[e] = 0;
    throw;
  }
  for (int32_t e : ids) seen_[e] = 0;
  return ids;
}

void VectorEnv::begin_async(const char* who) {
  check_open(who);
  check_started(who);
  // Leaving the synchronous mode: nothing is outstanding there (step() returns when done).
  if (!async_.load(std::memory_order_relaxed)) drain();
}

void VectorEnv::send(std::span<const int64_t> actions, std::span<const int32_t> env_ids) {
  begin_async("send");
  auto ids = check_ids(env_ids, "send");
  check_discrete(actions, ids, "send");
  for (size_t k = 0; k < ids.size(); ++k) {
    act_int_[ids[k]] = actions[k];
    op_[ids[k]] = Op::Step;
    in_flight_[ids[k]] = 1;
  }
  publish(ids, true);
  async_sent_ += ids.size();
}

void VectorEnv::send(std::span<const float> actions, std::span<const int32_t> env_ids) {
  begin_async("send");
  auto ids = check_ids(env_ids, "send");
  check_box(actions, static_cast<int64_t>(ids.size()), "send");
  const auto d = static_cast<size_t>(act_dim_);
  for (size_t k = 0; k < ids.size(); ++k) {
    std::copy_n(actions.data() + k * d, d, act_box_.data() + static_cast<size_t>(ids[k]) * d);
    op_[ids[k]] = Op::Step;
    in_flight_[ids[k]] = 1;
  }
  publish(ids, true);
  async_sent_ += ids.size();
}

VectorBatch VectorEnv::recv() {
  check_open("recv");
  check_started("recv");
  const auto b = static_cast<uint64_t>(batch_size_);
  SPIRE_CHECK(async_.load(std::memory_order_relaxed) && async_sent_ - received_ >= b, ValueError,
              "VectorEnv.recv: a batch needs batch_size=", b, " results but only ",
              async_.load(std::memory_order_relaxed) ? async_sent_ - received_ : 0,
              " environments are running or waiting; send() actions (or async_reset()) first");
  const auto k = static_cast<int64_t>((received_ / b) % static_cast<uint64_t>(num_batches_));
  wait_until([&] { return batch_filled_[k].load() == batch_size_; });
  batch_filled_[k].store(0, std::memory_order_relaxed);
  received_ += b;
  auto batch = ring_.view(k * batch_size_, batch_size_, obs_dim_);
  for (int32_t e : batch.env_id) in_flight_[e] = 0;
  rethrow();
  return batch;
}

// ---------------------------------------------------------------------------------------------
// Checks

void VectorEnv::check_discrete(std::span<const int64_t> actions, std::span<const int32_t> ids, const char* who) const {
  const Space& space = single_action_space();
  SPIRE_CHECK(discrete_, ValueError, "VectorEnv.", who, ": the action space is ", space.to_string(),
              "; pass float32 actions of shape [", ids.size(), ", ", act_dim_, "], not integers");
  SPIRE_CHECK(actions.size() == ids.size(), ShapeError, "VectorEnv.", who, ": got ", actions.size(), " actions for ",
              ids.size(), " environments");
  for (size_t k = 0; k < actions.size(); ++k)
    SPIRE_CHECK(space.contains(actions[k]), ValueError, "VectorEnv.", who, ": actions[", k, "] = ", actions[k],
                " is outside ", space.to_string(), " (allowed: ", space.start(), " to ", space.start() + space.n() - 1, ")");
}

void VectorEnv::check_box(std::span<const float> actions, int64_t rows, const char* who) const {
  const Space& space = single_action_space();
  SPIRE_CHECK(!discrete_, ValueError, "VectorEnv.", who, ": the action space is ", space.to_string(),
              "; pass one integer per environment, not floats");
  SPIRE_CHECK(static_cast<int64_t>(actions.size()) == rows * act_dim_, ShapeError, "VectorEnv.", who, ": got ",
              actions.size(), " floats; ", rows, " environments x ", space.to_string(), " need ", rows * act_dim_,
              " (shape [", rows, ", ", act_dim_, "])");
}

// ---------------------------------------------------------------------------------------------
// The task queue

void VectorEnv::publish(std::span<const int32_t> ids, bool async) {
  async_.store(async, std::memory_order_relaxed);  // the tail_ release below publishes it
  const auto n = static_cast<uint64_t>(num_envs());
  uint64_t t = published_;
  for (int32_t e : ids) {
    auto& free = cell_free_[t % n];
    // Each environment is queued at most once, so the cell's previous task was claimed; this only
    // waits out the instant between a worker's claim and its read of the cell.
    while (free.load(std::memory_order_acquire) != t) cpu_relax();
    cells_[t % n] = e;
    ++t;
  }
  published_ = t;
  tail_.store(t, std::memory_order_release);
  wake_.fetch_add(1);
  if (sleepers_.load() > 0) wake_.notify_all();
}

bool VectorEnv::run_some(int64_t max_chunk) {
  const auto n = static_cast<uint64_t>(num_envs());
  uint64_t h = head_.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t t = tail_.load(std::memory_order_acquire);
    if (h >= t) return false;
    // Guided scheduling: a share of what is left, so threads take contiguous runs of environments
    // (one claim per thread for a synchronous step) and the tail is shared out finely.
    const uint64_t left = t - h;
    uint64_t take = std::min<uint64_t>(left, (left + static_cast<uint64_t>(threads_) - 1) / static_cast<uint64_t>(threads_));
    take = std::min<uint64_t>(take, static_cast<uint64_t>(max_chunk));
    if (head_.compare_exchange_weak(h, h + take, std::memory_order_acquire, std::memory_order_relaxed)) {
      for (uint64_t c = h; c < h + take; ++c) {
        const int32_t e = cells_[c % n];
        cell_free_[c % n].store(c + n, std::memory_order_release);
        run_task(e);
      }
      done_.fetch_add(take);
      wake_caller();
      return true;
    }
  }
}

void VectorEnv::run_task(int32_t e) {
  const bool async = async_.load(std::memory_order_relaxed);
  const auto od = static_cast<size_t>(obs_dim_);
  Env& env = *envs_[e];
  float* obs = (async ? scratch_obs_.data() : sync_.obs.data()) + static_cast<size_t>(e) * od;
  std::span<float> obs_span(obs, od);
  Transition t;
  try {
    if (op_[e] == Op::Reset || autoreset_[e]) {
      // Gymnasium's next-step autoreset: the action is ignored and the reset's observation returned.
      const bool explicit_reset = op_[e] == Op::Reset;
      const std::optional<uint64_t> seed = explicit_reset ? seed_[e] : std::nullopt;
      env.reset_into(obs_span, seed, explicit_reset ? reset_options_ : kNoOptions);
      autoreset_[e] = 0;
    } else {
      t = discrete_ ? env.step_into(act_int_[e], obs_span)
                    : env.step_into(std::span<const float>(act_box_.data() + static_cast<size_t>(e) * act_dim_,
                                                           static_cast<size_t>(act_dim_)),
                                    obs_span);
      autoreset_[e] = t.terminated || t.truncated;
    }
  } catch (...) {
    std::lock_guard lock(error_mutex_);
    if (!error_) error_ = std::current_exception();
    std::fill(obs_span.begin(), obs_span.end(), 0.0f);
    t = Transition{};
  }
  if (!async) {
    sync_.rewards[e] = t.reward;
    sync_.terminated[e] = t.terminated;
    sync_.truncated[e] = t.truncated;
    return;
  }
  // Rows are claimed when a step finishes, so a batch holds the first environments to finish.
  const auto b = static_cast<uint64_t>(batch_size_);
  const uint64_t r = results_.fetch_add(1, std::memory_order_relaxed);
  const uint64_t row = r % (static_cast<uint64_t>(num_batches_) * b);
  std::memcpy(ring_.obs.data() + row * od, obs, od * sizeof(float));
  ring_.rewards[row] = t.reward;
  ring_.terminated[row] = t.terminated;
  ring_.truncated[row] = t.truncated;
  ring_.env_id[row] = e;
  batch_filled_[(r / b) % static_cast<uint64_t>(num_batches_)].fetch_add(1);
}

void VectorEnv::wake_caller() {
  if (caller_sleeping_.load()) {
    progress_.fetch_add(1);
    progress_.notify_one();
  }
}

template <class Done>
void VectorEnv::wait_until(Done done) {
  const int64_t chunk = async_.load(std::memory_order_relaxed) ? async_chunk_ : INT64_MAX;
  for (;;) {
    if (done()) return;
    if (run_some(chunk)) continue;
    // Everything is claimed: the rest is on the workers.
    if (spin_until(done)) return;
    caller_sleeping_.store(true);
    const uint32_t p = progress_.load();
    if (!done()) progress_.wait(p);
    caller_sleeping_.store(false);
  }
}

void VectorEnv::worker_loop() {
  for (;;) {
    const uint32_t w = wake_.load();
    const int64_t chunk = async_.load(std::memory_order_relaxed) ? async_chunk_ : INT64_MAX;
    if (run_some(chunk)) continue;
    if (stop_.load()) return;
    auto ready = [&] {
      return stop_.load(std::memory_order_relaxed) ||
             head_.load(std::memory_order_relaxed) < tail_.load(std::memory_order_relaxed);
    };
    if (spin_until(ready)) continue;
    sleepers_.fetch_add(1);
    if (!stop_.load() && head_.load() >= tail_.load()) wake_.wait(w);
    sleepers_.fetch_sub(1);
  }
}

void VectorEnv::drain() {
  wait_until([&] { return done_.load() == published_; });
  // Every task is done and the workers idle: the asynchronous bookkeeping starts over and
  // unreceived results are dropped.
  results_.store(0);
  received_ = async_sent_ = 0;
  for (int64_t k = 0; k < num_batches_; ++k) batch_filled_[k].store(0);
  std::fill(in_flight_.begin(), in_flight_.end(), 0);
  async_.store(false, std::memory_order_relaxed);
  std::lock_guard lock(error_mutex_);
  error_ = nullptr;
}

void VectorEnv::rethrow() {
  std::exception_ptr e;
  {
    std::lock_guard lock(error_mutex_);
    std::swap(e, error_);
  }
  if (e) std::rethrow_exception(e);
}

void VectorEnv::close() {
  if (closed_) return;
  wait_until([&] { return done_.load() == published_; });
  stop_.store(true);
  wake_.fetch_add(1);
  wake_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
  closed_ = true;
}

}  // namespace spire::rl
