// Experience replay for value-based agents: a ring of transitions sampled uniformly or in
// proportion to their priorities (Schaul, Quan, Antonoglou, Silver: "Prioritized Experience
// Replay", ICLR 2016, the proportional variant), and the n-step returns that fill it (Sutton 1988;
// Hessel et al.: "Rainbow", AAAI 2018), assembled per environment.
//
// A transition holds what the target needs and nothing the learner would have to recompute:
// (obs, action, return R, next_obs, discount), the target being R + discount * Q'(next_obs). An
// n-step transition sums k <= n rewards, R = r_0 + gamma r_1 + ... + gamma^(k-1) r_(k-1), and its
// discount is gamma^k, or 0 when the episode terminated inside it (no bootstrap).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ops/random.h"
#include "engine/optim/state_dict.h"

namespace spire::rl::agents {

// A binary tree over `capacity` leaves whose nodes hold the sum (and the minimum) of their
// subtrees: set() and find() take O(log capacity). Each node is recomputed from its two children,
// never updated incrementally, so the tree is a function of its leaves alone (no rounding drift,
// and a tree rebuilt from saved leaves has the same bits).
class SumTree {
 public:
  explicit SumTree(int64_t capacity);
  int64_t capacity() const { return capacity_; }
  void set(int64_t i, double value);  // value >= 0
  double get(int64_t i) const { return sum_[size_t(leaves_ + i)]; }
  double total() const { return sum_[1]; }
  // The smallest value among the leaves [0, count) that have been set (count: the leaves in use).
  double min() const { return min_[1]; }
  // The leaf i where the running sum of leaves 0..i first exceeds mass, for 0 <= mass < total():
  // leaf i is found with probability value_i / total for mass uniform in [0, total).
  int64_t find(double mass) const;

 private:
  int64_t capacity_, leaves_;  // leaves_: capacity rounded up to a power of two
  std::vector<double> sum_, min_;  // heap layout: node k has children 2k, 2k + 1; leaves at leaves_ + i
};

struct ReplayOptions {
  bool prioritized = false;
  double alpha = 0.6;         // priority exponent: P(i) = p_i^alpha / sum_k p_k^alpha
  double priority_eps = 1e-6;  // p_i = |td_i| + priority_eps: never 0, so every transition stays replayable
};

// A minibatch: tensors of `batch` rows, the storage slots they came from (for update_priorities)
// and the importance-sampling weights (ones when uniform).
struct ReplaySample {
  Tensor observations;       // [b, obs_dim] float32
  Tensor actions;            // [b] int64 (0-based action indices)
  Tensor returns;            // [b] float32
  Tensor next_observations;  // [b, obs_dim] float32
  Tensor discounts;          // [b] float32: gamma^k, 0 after termination
  Tensor weights;            // [b] float32
  std::vector<int64_t> slots;
};

class ReplayBuffer {
 public:
  ReplayBuffer(int64_t capacity, int64_t obs_dim, ReplayOptions options = {});

  // Overwrites the oldest transition once full. A new transition gets the largest priority seen
  // so far (1 at first), so that it is replayed at least once soon.
  void add(std::span<const float> observation, int64_t action, double ret, std::span<const float> next_observation,
           double discount);
  // `batch` transitions drawn with replacement: uniformly (randint on gen), or proportionally to
  // p^alpha by stratified sampling (one uniform draw in each of `batch` equal slices of the total
  // mass, as the paper's appendix B.2.1), with weights w_i = (N P(i))^-beta / max_k (N P(k))^-beta.
  // ValueError when empty.
  ReplaySample sample(int64_t batch, double beta, spire::Generator& gen) const;
  // Priorities |td| + priority_eps for the sampled slots (prioritized buffers only).
  void update_priorities(std::span<const int64_t> slots, std::span<const double> td_errors);

  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  int64_t obs_dim() const { return obs_dim_; }
  const ReplayOptions& options() const { return options_; }
  double max_priority() const { return max_priority_; }
  const SumTree& tree() const { return tree_; }

  // For checkpoints: the filled slots, the write position and the priorities (the tree is rebuilt
  // from its leaves, bit for bit).
  optim::StateDict state_dict() const;
  void load_state_dict(const optim::StateDict& in);

 private:
  int64_t capacity_, obs_dim_;
  ReplayOptions options_;
  std::vector<float> obs_, next_obs_, returns_, discounts_;
  std::vector<int64_t> actions_;
  int64_t size_ = 0, next_ = 0;
  double max_priority_ = 1.0;
  SumTree tree_;  // leaves p_i^alpha; unused (capacity 1) when uniform
};

// Turns one environment step at a time into n-step transitions, per environment: a transition
// leaves once it has n rewards, or when its episode ends. A termination ends it without a
// bootstrap (discount 0); a truncation bootstraps from the final observation (discount gamma^k).
// A sequence never crosses an episode boundary; reset steps are never pushed.
class NStepAssembler {
 public:
  NStepAssembler(int64_t num_envs, int64_t obs_dim, int64_t n, double gamma);
  void push(int64_t env, std::span<const float> observation, int64_t action, double reward,
            std::span<const float> next_observation, bool terminated, bool truncated, ReplayBuffer& out);
  int64_t pending(int64_t env) const { return int64_t(envs_[size_t(env)].actions.size()); }

  optim::StateDict state_dict() const;
  void load_state_dict(const optim::StateDict& in);

 private:
  // Emits the oldest pending step of env with its k pending rewards, bootstrapping from next.
  void emit(int64_t env, std::span<const float> next_observation, bool terminated, ReplayBuffer& out);
  struct Pending {
    std::vector<float> observations;  // k x obs_dim, oldest first
    std::vector<int64_t> actions;
    std::vector<double> rewards;
  };
  int64_t obs_dim_, n_;
  double gamma_;
  std::vector<Pending> envs_;
};

// Prefixed copies between state dicts, for the parts of a checkpoint: every entry of `part` as
// prefix + key into out; and the entries under prefix, without it.
void put(optim::StateDict& out, const std::string& prefix, const optim::StateDict& part);
optim::StateDict under(const optim::StateDict& in, const std::string& prefix);

}  // namespace spire::rl::agents
