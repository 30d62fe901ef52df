#include "reinforcement/dataflow/sharded_environments.h"

#include <algorithm>
#include <cstring>

#include "engine/core/error.h"
#include "reinforcement/dataflow/channels.h"
#include "reinforcement/dataflow/messages.h"

namespace spire::rl::dataflow {
namespace {

enum Command : int64_t { kReset = 0, kStepDiscrete = 1, kStepBox = 2, kEnd = 3 };

// The block [first, first + count) of `rank`.
std::pair<int64_t, int64_t> block_of(const std::vector<int>& env_rank, int rank) {
  auto lo = std::lower_bound(env_rank.begin(), env_rank.end(), rank);
  auto hi = std::upper_bound(env_rank.begin(), env_rank.end(), rank);
  return {int64_t(lo - env_rank.begin()), int64_t(hi - lo)};
}

Tensor flags_tensor(std::span<const uint8_t> f) {
  Tensor t = empty({int64_t(f.size())}, DType::Bool);
  std::memcpy(t.raw_data(), f.data(), f.size());
  return t;
}

Message reply(const VectorBatch& b, int64_t obs_dim) {
  Message m;
  m.tensors.emplace_back("obs", from_vector(std::vector<float>(b.obs.begin(), b.obs.end()), {b.size, obs_dim}));
  m.tensors.emplace_back("rewards", from_vector(std::vector<double>(b.rewards.begin(), b.rewards.end()), {b.size}));
  m.tensors.emplace_back("terminated", flags_tensor(b.terminated));
  m.tensors.emplace_back("truncated", flags_tensor(b.truncated));
  return m;
}

}  // namespace

ShardedEnvironments::ShardedEnvironments(std::shared_ptr<parallel::Communicator> comm, std::vector<int> env_rank,
                                         const PoolFactory& make_pool)
    : comm_(std::move(comm)), env_rank_(std::move(env_rank)) {
  SPIRE_CHECK(std::is_sorted(env_rank_.begin(), env_rank_.end()), ValueError,
              "sharded environments: env_rank must list contiguous blocks (non-decreasing ranks)");
  for (int r = 0; r < comm_->size(); ++r) {
    auto [first, count] = block_of(env_rank_, r);
    first_.push_back(first);
    count_.push_back(count);
  }
  const int me = comm_->rank();
  SPIRE_CHECK(count_[size_t(me)] > 0, ValueError, "sharded environments: the actor's rank ", me,
              " must hold environments of its own");
  local_ = make_pool(count_[size_t(me)]);
  const int64_t n = num_envs();
  obs_.resize(size_t(n * local_->obs_dim()));
  rewards_.resize(size_t(n));
  terminated_.resize(size_t(n));
  truncated_.resize(size_t(n));
  ids_.resize(size_t(n));
  for (int64_t j = 0; j < n; ++j) ids_[size_t(j)] = int32_t(j);
}

ShardedEnvironments::~ShardedEnvironments() {
  Message end;
  end.numbers = {kEnd, 0, 0};
  for (int r = 0; r < comm_->size(); ++r)
    if (r != comm_->rank() && count_[size_t(r)] > 0) {
      try {
        send_message(*comm_, end, r, kEnvironmentTag);
      } catch (...) {  // the job is failing; the timeout or abort ends the other ranks
      }
    }
}

template <class Send, class Local>
VectorBatch ShardedEnvironments::exchange(const Send& send_block, const Local& local) {
  const int me = comm_->rank();
  const int64_t d = local_->obs_dim();
  for (int r = 0; r < comm_->size(); ++r)
    if (r != me && count_[size_t(r)] > 0) send_block(r, first_[size_t(r)], count_[size_t(r)]);
  auto place = [&](int64_t first, int64_t count, const float* obs, const double* rewards, const uint8_t* term,
                   const uint8_t* trunc) {
    std::copy(obs, obs + count * d, obs_.begin() + first * d);
    std::copy(rewards, rewards + count, rewards_.begin() + first);
    std::copy(term, term + count, terminated_.begin() + first);
    std::copy(trunc, trunc + count, truncated_.begin() + first);
  };
  VectorBatch mine = local(first_[size_t(me)], count_[size_t(me)]);
  place(first_[size_t(me)], count_[size_t(me)], mine.obs.data(), mine.rewards.data(), mine.terminated.data(),
        mine.truncated.data());
  for (int r = 0; r < comm_->size(); ++r) {
    if (r == me || count_[size_t(r)] == 0) continue;
    Message m = recv_message(*comm_, r, kEnvironmentTag);
    place(first_[size_t(r)], count_[size_t(r)], m.tensors[0].second.data<float>(), m.tensors[1].second.data<double>(),
          static_cast<const uint8_t*>(m.tensors[2].second.raw_data()),
          static_cast<const uint8_t*>(m.tensors[3].second.raw_data()));
  }
  const int64_t n = num_envs();
  return VectorBatch{obs_, rewards_, terminated_, truncated_, ids_, n};
}

VectorBatch ShardedEnvironments::reset(std::optional<uint64_t> seed) {
  return exchange(
      [&](int r, int64_t, int64_t) {
        Message m;
        m.numbers = {kReset, seed.has_value(), int64_t(seed.value_or(0))};
        send_message(*comm_, m, r, kEnvironmentTag);
      },
      [&](int64_t first, int64_t count) {
        if (!seed) return local_->reset();
        std::vector<std::optional<uint64_t>> seeds(static_cast<size_t>(count));
        for (int64_t j = 0; j < count; ++j) seeds[size_t(j)] = *seed + uint64_t(first + j);
        return local_->reset(seeds);
      });
}

VectorBatch ShardedEnvironments::step(std::span<const int64_t> actions) {
  SPIRE_CHECK(int64_t(actions.size()) == num_envs(), ValueError, "step: ", actions.size(), " actions for ", num_envs(),
              " environments");
  return exchange(
      [&](int r, int64_t first, int64_t count) {
        Message m;
        m.numbers = {kStepDiscrete, 0, 0};
        m.tensors.emplace_back("actions", from_vector(std::vector<int64_t>(actions.begin() + first,
                                                                           actions.begin() + first + count),
                                                      {count}));
        send_message(*comm_, m, r, kEnvironmentTag);
      },
      [&](int64_t first, int64_t count) { return local_->step(actions.subspan(size_t(first), size_t(count))); });
}

VectorBatch ShardedEnvironments::step(std::span<const float> actions) {
  const int64_t k = local_->act_dim();
  SPIRE_CHECK(int64_t(actions.size()) == num_envs() * k, ValueError, "step: ", actions.size(), " action values for ",
              num_envs(), " environments of ", k, " each");
  return exchange(
      [&](int r, int64_t first, int64_t count) {
        Message m;
        m.numbers = {kStepBox, 0, 0};
        m.tensors.emplace_back("actions", from_vector(std::vector<float>(actions.begin() + first * k,
                                                                         actions.begin() + (first + count) * k),
                                                      {count, k}));
        send_message(*comm_, m, r, kEnvironmentTag);
      },
      [&](int64_t first, int64_t count) {
        return local_->step(actions.subspan(size_t(first * k), size_t(count * k)));
      });
}

void serve_environments(parallel::Communicator& comm, int root, const std::vector<int>& env_rank,
                        const PoolFactory& make_pool) {
  auto [first, count] = block_of(env_rank, comm.rank());
  if (count == 0) return;
  std::unique_ptr<VectorEnv> pool = make_pool(count);
  for (;;) {
    Message m = recv_message(comm, root, kEnvironmentTag);
    VectorBatch b;
    switch (m.numbers.at(0)) {
      case kEnd:
        return;
      case kReset:
        if (!m.numbers[1]) {
          b = pool->reset();
        } else {
          std::vector<std::optional<uint64_t>> seeds(static_cast<size_t>(count));
          for (int64_t j = 0; j < count; ++j) seeds[size_t(j)] = uint64_t(m.numbers[2]) + uint64_t(first + j);
          b = pool->reset(seeds);
        }
        break;
      case kStepDiscrete: {
        const Tensor& a = m.tensors.at(0).second;
        b = pool->step(std::span<const int64_t>(a.data<int64_t>(), size_t(a.numel())));
        break;
      }
      case kStepBox: {
        const Tensor& a = m.tensors.at(0).second;
        b = pool->step(std::span<const float>(a.data<float>(), size_t(a.numel())));
        break;
      }
      default:
        throw ValueError(detail::cat("serve_environments: unknown command ", m.numbers[0]));
    }
    send_message(comm, reply(b, pool->obs_dim()), root, kEnvironmentTag);
  }
}

}  // namespace spire::rl::dataflow
