// One actor's environments spread over ranks (SingleActorLearnerMultiEnv): each rank steps its
// contiguous block of them in its own pool, and the actor's rank scatters actions and gathers
// observations, rewards and flags, so the actor sees one vector environment in environment order.
// The environment g of the block on rank r is still seeded with seed + g.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "engine/parallel/communicator.h"
#include "reinforcement/dataflow/environments.h"

namespace spire::rl::dataflow {

// What makes the pool of a block of `count` environments (reset() seeds them by global index).
using PoolFactory = std::function<std::unique_ptr<VectorEnv>(int64_t count)>;

// On the actor's rank (`root`): the actor's view. env_rank[j] is the rank of environment j
// (non-decreasing: contiguous blocks).
class ShardedEnvironments final : public Environments {
 public:
  ShardedEnvironments(std::shared_ptr<parallel::Communicator> comm, std::vector<int> env_rank,
                      const PoolFactory& make_pool);
  ~ShardedEnvironments() override;  // ends the other ranks' serve loops
  int64_t num_envs() const override { return int64_t(env_rank_.size()); }
  int64_t first_global_index() const override { return 0; }
  const Space& observation_space() const override { return local_->single_observation_space(); }
  const Space& action_space() const override { return local_->single_action_space(); }
  VectorBatch reset(std::optional<uint64_t> seed) override;
  VectorBatch step(std::span<const int64_t> actions) override;
  VectorBatch step(std::span<const float> actions) override;

 private:
  template <class Send, class Local>
  VectorBatch exchange(const Send& send_block, const Local& local);
  std::shared_ptr<parallel::Communicator> comm_;
  std::vector<int> env_rank_;
  std::vector<int64_t> first_, count_;  // per rank: its block
  std::unique_ptr<VectorEnv> local_;
  // The assembled batch.
  std::vector<float> obs_;
  std::vector<double> rewards_;
  std::vector<uint8_t> terminated_, truncated_;
  std::vector<int32_t> ids_;
};

// On every other rank: steps this rank's block as the actor's rank asks, until it ends.
void serve_environments(parallel::Communicator& comm, int root, const std::vector<int>& env_rank,
                        const PoolFactory& make_pool);

}  // namespace spire::rl::dataflow
