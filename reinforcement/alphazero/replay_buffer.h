// The replay buffer of self-play samples: a ring of fixed capacity (the oldest sample is overwritten
// first) from which the learner draws uniform minibatches with the run's generator.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ops/random.h"
#include "engine/optim/state_dict.h"

namespace spire::rl::alphazero {

struct Batch {
  Tensor observations;  // [b, C, H, W] float32
  Tensor policies;      // [b, A] float32: search's visit distribution (the policy target)
  Tensor values;        // [b] float32: the final outcome from the view of the player to move
};

class ReplayBuffer {
 public:
  // observation_shape: {C, H, W}.
  ReplayBuffer(int64_t capacity, std::vector<int64_t> observation_shape, int64_t num_actions);

  void add(std::span<const float> observation, std::span<const float> policy, float value);
  // `batch` samples drawn uniformly with replacement (indices from randint on gen); ValueError when
  // the buffer is empty.
  Batch sample(int64_t batch, spire::Generator& gen) const;
  // The samples at the given positions (0 is the oldest held).
  Batch gather(std::span<const int64_t> positions) const;

  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  int64_t total_added() const { return added_; }  // every sample ever added, overwritten ones included
  int64_t observation_size() const { return obs_size_; }
  int64_t num_actions() const { return num_actions_; }

  // For checkpoints: the samples in age order and the counters.
  optim::StateDict state_dict() const;
  void load_state_dict(const optim::StateDict& in);

 private:
  int64_t slot(int64_t position) const;  // storage row of the position-th oldest sample

  int64_t capacity_;
  std::vector<int64_t> observation_shape_;
  int64_t obs_size_, num_actions_;
  std::vector<float> observations_, policies_, values_;
  int64_t size_ = 0, next_ = 0, added_ = 0;
};

}  // namespace spire::rl::alphazero
