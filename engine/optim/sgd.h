// Stochastic gradient descent with momentum and Nesterov momentum, as torch.optim.SGD:
//   g = grad + weight_decay p                 (negated first when maximize)
//   b = g on the first step, else momentum b + (1 - dampening) g
//   g = g + momentum b (nesterov) or b (momentum > 0)
//   p = p - lr g
#pragma once
#include "engine/optim/optimizer.h"

namespace spire::optim {

struct SGDOptions {
  double lr = 1e-3;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;
};

class SGD : public Optimizer {
 public:
  explicit SGD(Tensors params, SGDOptions options = {});
  Tensor step(const Closure& closure = {}) override;
  double lr() const override { return options_.lr; }
  void set_lr(double lr) override;
  const SGDOptions& options() const { return options_; }
  // Adds "state.<i>.momentum_buffer".
  StateDict state_dict() const override;
  void load_state_dict(const StateDict& state) override;
  bool has_momentum() const override { return true; }
  double momentum() const override { return options_.momentum; }
  void set_momentum(double momentum) override;

 private:
  SGDOptions options_;
  Tensors momentum_buffer_;  // per parameter; undefined until its first update
};

}  // namespace spire::optim
