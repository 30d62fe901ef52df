// An actor's environments, wherever they run: in this process (a VectorEnv) or spread over the
// ranks of a communicator (SingleActorLearnerMultiEnv). The actor sees one vector environment
// either way, with Gymnasium 1.0's next-step autoreset (see vector_env.h): after a step that
// terminated or truncated an environment, that environment's next step resets it (its action is
// ignored) and returns the reset observation with reward 0 and both flags false.
//
// Seeding: every environment of a run has a global index (actor a's environment j is
// a * envs_per_actor + j), and reset(seed) seeds environment g with seed + g, whatever process it
// lives in, so a run's environments do not depend on where the policy placed them.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "reinforcement/envs/vector_env.h"

namespace spire::rl::dataflow {

class Environments {
 public:
  virtual ~Environments() = default;
  virtual int64_t num_envs() const = 0;
  virtual int64_t first_global_index() const = 0;
  virtual const Space& observation_space() const = 0;
  virtual const Space& action_space() const = 0;
  int64_t obs_dim() const { return observation_space().size(); }
  // Rows in environment order; spans valid until the next call.
  virtual VectorBatch reset(std::optional<uint64_t> seed) = 0;
  virtual VectorBatch step(std::span<const int64_t> actions) = 0;  // Discrete: one per environment
  virtual VectorBatch step(std::span<const float> actions) = 0;    // Box: num_envs x act_dim
};

// Environments in this process.
class LocalEnvironments final : public Environments {
 public:
  LocalEnvironments(std::unique_ptr<VectorEnv> pool, int64_t first_global_index)
      : pool_(std::move(pool)), first_(first_global_index) {}
  int64_t num_envs() const override { return pool_->num_envs(); }
  int64_t first_global_index() const override { return first_; }
  const Space& observation_space() const override { return pool_->single_observation_space(); }
  const Space& action_space() const override { return pool_->single_action_space(); }
  VectorBatch reset(std::optional<uint64_t> seed) override;
  VectorBatch step(std::span<const int64_t> actions) override { return pool_->step(actions); }
  VectorBatch step(std::span<const float> actions) override { return pool_->step(actions); }
  VectorEnv& pool() { return *pool_; }

 private:
  std::unique_ptr<VectorEnv> pool_;
  int64_t first_;
};

}  // namespace spire::rl::dataflow
