// Leaf evaluation by a policy-value network: the observations of all the leaves of one simulation
// step (one per tree of the batch) are stacked and run through the network in one call, without
// gradients and in eval mode (batch norm uses its running statistics); the logits are turned into a
// softmax over the legal actions only, and tanh's [-1, 1] is mapped onto the game's return range.
#pragma once
#include <memory>
#include <span>
#include <vector>

#include "reinforcement/alphazero/network.h"
#include "reinforcement/mcts/evaluator.h"

namespace spire::rl::alphazero {

class NetworkEvaluator final : public Evaluator {
 public:
  explicit NetworkEvaluator(std::shared_ptr<PolicyValueNet> net);
  void evaluate(const Leaves& leaves) override;
  const std::shared_ptr<PolicyValueNet>& network() const { return net_; }

  // The network's raw outputs for `states` (logits [n, A] row-major, values [n] in [-1, 1]).
  static void run(PolicyValueNet& net, std::span<const Game* const> states, std::vector<float>& logits,
                  std::vector<float>& values);

 private:
  std::shared_ptr<PolicyValueNet> net_;
  std::vector<float> logits_, values_;
};

// probs[a] = softmax of logits over the legal actions (mask[a] = 1), 0 elsewhere; computed in double
// from the largest legal logit, so that large logits neither overflow nor lose the small ones.
void legal_softmax(std::span<const float> logits, std::span<const uint8_t> mask, std::span<float> probs);

}  // namespace spire::rl::alphazero
