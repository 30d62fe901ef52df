#include "reinforcement/alphazero/network_evaluator.h"

#include <algorithm>
#include <cmath>

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "engine/ops/shape.h"

namespace spire::rl::alphazero {

void legal_softmax(std::span<const float> logits, std::span<const uint8_t> mask, std::span<float> probs) {
  double top = -INFINITY;
  for (size_t a = 0; a < logits.size(); ++a)
    if (mask[a]) top = std::max(top, double(logits[a]));
  double total = 0;
  for (size_t a = 0; a < logits.size(); ++a) {
    double e = mask[a] ? std::exp(double(logits[a]) - top) : 0.0;
    probs[a] = float(e);
    total += e;
  }
  if (total > 0)
    for (size_t a = 0; a < logits.size(); ++a) probs[a] = float(double(probs[a]) / total);
}

NetworkEvaluator::NetworkEvaluator(std::shared_ptr<PolicyValueNet> net) : net_(std::move(net)) {
  SPIRE_CHECK(net_ != nullptr, ValueError, "NetworkEvaluator: the network is null");
}

void NetworkEvaluator::run(PolicyValueNet& net, std::span<const Game* const> states, std::vector<float>& logits,
                           std::vector<float>& values) {
  const int64_t n = int64_t(states.size()), A = net.num_actions();
  logits.assign(size_t(n * A), 0.0f);
  values.assign(size_t(n), 0.0f);
  if (n == 0) return;
  const auto& shape = net.observation_shape();
  const int64_t size = shape[0] * shape[1] * shape[2];
  Tensor x = empty({n, shape[0], shape[1], shape[2]}, DType::Float32);
  float* px = x.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    SPIRE_CHECK(states[i]->observation_size() == size && states[i]->num_actions() == A, ValueError,
                "NetworkEvaluator: the network expects observations of ", size, " values and ", A,
                " actions; the game '", states[i]->name(), "' has ", states[i]->observation_size(), " and ",
                states[i]->num_actions());
    states[i]->observation(std::span<float>(px + i * size, size_t(size)));
  }
  // Search sees the network as it is now, in eval mode; training resumes in the mode it left.
  NoGradGuard no_grad;
  const bool was_training = net.is_training();
  if (was_training) net.eval();
  Tensors out;
  try {
    out = net(Tensors{x});
  } catch (...) {
    if (was_training) net.train();
    throw;
  }
  if (was_training) net.train();
  Tensor l = contiguous(out[0]), v = contiguous(out[1]);
  std::copy_n(l.data<float>(), n * A, logits.begin());
  std::copy_n(v.data<float>(), n, values.begin());
}

void NetworkEvaluator::evaluate(const Leaves& leaves) {
  const size_t n = leaves.states.size();
  if (n == 0) return;
  const size_t A = size_t(leaves.num_actions);
  run(*net_, leaves.states, logits_, values_);
  std::vector<uint8_t> mask(A);
  for (size_t i = 0; i < n; ++i) {
    const Game& g = *leaves.states[i];
    g.legal_mask(mask);
    legal_softmax(std::span<const float>(logits_.data() + i * A, A), mask, leaves.priors.subspan(i * A, A));
    const double lo = g.min_return(), hi = g.max_return();
    leaves.values[i] = float(lo + (double(values_[i]) + 1.0) * 0.5 * (hi - lo));
  }
}

}  // namespace spire::rl::alphazero
