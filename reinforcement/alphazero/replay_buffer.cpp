#include "reinforcement/alphazero/replay_buffer.h"

#include <algorithm>

#include "engine/core/error.h"

namespace spire::rl::alphazero {

ReplayBuffer::ReplayBuffer(int64_t capacity, std::vector<int64_t> observation_shape, int64_t num_actions)
    : capacity_(capacity), observation_shape_(std::move(observation_shape)), num_actions_(num_actions) {
  SPIRE_CHECK(capacity >= 1, ValueError, "ReplayBuffer: capacity must be >= 1, got ", capacity);
  SPIRE_CHECK(num_actions >= 1, ValueError, "ReplayBuffer: num_actions must be >= 1, got ", num_actions);
  obs_size_ = 1;
  for (int64_t d : observation_shape_) obs_size_ *= d;
  observations_.assign(size_t(capacity * obs_size_), 0.0f);
  policies_.assign(size_t(capacity * num_actions), 0.0f);
  values_.assign(size_t(capacity), 0.0f);
}

int64_t ReplayBuffer::slot(int64_t position) const {
  // Once full, the oldest sample sits where the next one will be written.
  return size_ < capacity_ ? position : (next_ + position) % capacity_;
}

void ReplayBuffer::add(std::span<const float> observation, std::span<const float> policy, float value) {
  SPIRE_CHECK(int64_t(observation.size()) == obs_size_ && int64_t(policy.size()) == num_actions_, ValueError,
              "ReplayBuffer.add: expected an observation of ", obs_size_, " values and a policy of ", num_actions_,
              ", got ", observation.size(), " and ", policy.size());
  std::copy(observation.begin(), observation.end(), observations_.begin() + next_ * obs_size_);
  std::copy(policy.begin(), policy.end(), policies_.begin() + next_ * num_actions_);
  values_[size_t(next_)] = value;
  next_ = (next_ + 1) % capacity_;
  size_ = std::min(size_ + 1, capacity_);
  ++added_;
}

Batch ReplayBuffer::gather(std::span<const int64_t> positions) const {
  const int64_t b = int64_t(positions.size());
  Shape obs_shape{b};
  obs_shape.insert(obs_shape.end(), observation_shape_.begin(), observation_shape_.end());
  Batch out{empty(obs_shape, DType::Float32), empty({b, num_actions_}, DType::Float32), empty({b}, DType::Float32)};
  float *po = out.observations.data<float>(), *pp = out.policies.data<float>(), *pv = out.values.data<float>();
  for (int64_t i = 0; i < b; ++i) {
    SPIRE_CHECK(positions[i] >= 0 && positions[i] < size_, ValueError, "ReplayBuffer: position ", positions[i],
                " is out of range [0, ", size_, ")");
    int64_t s = slot(positions[i]);
    std::copy_n(observations_.begin() + s * obs_size_, obs_size_, po + i * obs_size_);
    std::copy_n(policies_.begin() + s * num_actions_, num_actions_, pp + i * num_actions_);
    pv[i] = values_[size_t(s)];
  }
  return out;
}

Batch ReplayBuffer::sample(int64_t batch, spire::Generator& gen) const {
  SPIRE_CHECK(size_ > 0, ValueError, "ReplayBuffer.sample: the buffer is empty");
  SPIRE_CHECK(batch >= 1, ValueError, "ReplayBuffer.sample: batch must be >= 1, got ", batch);
  Tensor index = randint({batch}, 0, size_, DType::Int64, gen);
  const int64_t* p = index.data<int64_t>();
  return gather(std::span<const int64_t>(p, size_t(batch)));
}

optim::StateDict ReplayBuffer::state_dict() const {
  optim::StateDict out;
  std::vector<int64_t> all(static_cast<size_t>(size_));
  for (int64_t i = 0; i < size_; ++i) all[size_t(i)] = i;
  Batch b = gather(all);
  out.set("observations", b.observations);
  out.set("policies", b.policies);
  out.set("values", b.values);
  out.set("capacity", capacity_);
  out.set("total_added", added_);
  return out;
}

void ReplayBuffer::load_state_dict(const optim::StateDict& in) {
  const int64_t capacity = in.integer("capacity");
  SPIRE_CHECK(capacity == capacity_, ValueError, "ReplayBuffer.load_state_dict: the saved buffer has capacity ", capacity,
              ", this one ", capacity_);
  Tensor obs = in.tensor("observations"), pol = in.tensor("policies");
  Tensor val = in.tensor("values");
  const int64_t n = val.numel();
  SPIRE_CHECK(obs.numel() == n * obs_size_ && pol.numel() == n * num_actions_ && n <= capacity_ &&
                  obs.dtype() == DType::Float32 && pol.dtype() == DType::Float32 && val.dtype() == DType::Float32,
              ValueError, "ReplayBuffer.load_state_dict: the saved samples do not match observations of ", obs_size_,
              " values and policies of ", num_actions_);
  ReplayBuffer fresh(capacity_, observation_shape_, num_actions_);
  const float *po = obs.data<float>(), *pp = pol.data<float>(), *pv = val.data<float>();
  for (int64_t i = 0; i < n; ++i)
    fresh.add(std::span<const float>(po + i * obs_size_, size_t(obs_size_)),
              std::span<const float>(pp + i * num_actions_, size_t(num_actions_)), pv[i]);
  fresh.added_ = in.integer("total_added");
  *this = std::move(fresh);
}

}  // namespace spire::rl::alphazero
