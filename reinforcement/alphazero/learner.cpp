#include "reinforcement/alphazero/learner.h"

#include "engine/autodiff/mode.h"
#include "engine/nn/functional/loss.h"
#include "engine/ops/elementwise.h"

namespace spire::rl::alphazero {

LossTensors alphazero_loss(PolicyValueNet& net, const Batch& batch) {
  Tensors out = net(Tensors{batch.observations});
  LossTensors l;
  l.policy = nn::functional::cross_entropy(out[0], batch.policies);  // soft targets: -sum q log softmax
  l.value = nn::functional::mse_loss(out[1], batch.values);
  l.total = l.policy + l.value;
  return l;
}

Learner::Learner(std::shared_ptr<PolicyValueNet> net, double lr, double weight_decay)
    : net_(std::move(net)), optimizer_(net_->parameters(), optim::AdamOptions{.lr = lr, .weight_decay = weight_decay}) {}

Losses Learner::step(const Batch& batch) {
  GradModeGuard grad(true);
  net_->train();
  optimizer_.zero_grad();
  LossTensors l = alphazero_loss(*net_, batch);
  l.total.backward();
  optimizer_.step();
  return {l.policy.item<double>(), l.value.item<double>()};
}

Losses Learner::train(const ReplayBuffer& buffer, int steps, int64_t batch_size, spire::Generator& gen) {
  Losses mean;
  for (int i = 0; i < steps; ++i) {
    Losses l = step(buffer.sample(batch_size, gen));
    mean.policy += l.policy / steps;
    mean.value += l.value / steps;
  }
  return mean;
}

}  // namespace spire::rl::alphazero
