// The learner: minibatches from the replay buffer, loss = cross-entropy of the policy logits against
// search's visit distribution + mean squared error of the value against the game's outcome, one Adam
// step each (Adam's coupled weight decay is AlphaZero's L2 penalty).
#pragma once
#include <memory>

#include "engine/optim/adam.h"
#include "reinforcement/alphazero/network.h"
#include "reinforcement/alphazero/replay_buffer.h"

namespace spire::rl::alphazero {

struct Losses {
  double policy = 0, value = 0;
  double total() const { return policy + value; }
};

// The loss of the network on one batch (the graph recorded when gradients are on).
struct LossTensors {
  Tensor policy, value, total;
};
LossTensors alphazero_loss(PolicyValueNet& net, const Batch& batch);

class Learner {
 public:
  Learner(std::shared_ptr<PolicyValueNet> net, double lr, double weight_decay);
  // One gradient step on `batch`; returns the batch's losses before the step.
  Losses step(const Batch& batch);
  // `steps` steps on minibatches of `batch_size` drawn with gen; the mean losses.
  Losses train(const ReplayBuffer& buffer, int steps, int64_t batch_size, spire::Generator& gen);
  optim::Adam& optimizer() { return optimizer_; }

 private:
  std::shared_ptr<PolicyValueNet> net_;
  optim::Adam optimizer_;
};

}  // namespace spire::rl::alphazero
