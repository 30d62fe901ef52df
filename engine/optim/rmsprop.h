// RMSprop, as torch.optim.RMSprop (Hinton's lecture 6e; centered after Graves 2013). At each step,
// with g the gradient (negated when maximize):
//   g = g + weight_decay p
//   v = alpha v + (1 - alpha) g^2
//   centered: m = m + (1 - alpha) (g - m), and the denominator uses v - m^2 (a variance)
//   a = sqrt(v [- m^2]) + eps
//   momentum > 0: b = momentum b + g / a;  p = p - lr b
//   otherwise:    p = p - lr g / a
#pragma once
#include "engine/optim/optimizer.h"

namespace spire::optim {

struct RMSpropOptions {
  double lr = 1e-2;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum = 0;
  bool centered = false;
  bool maximize = false;
};

class RMSprop : public Optimizer {
 public:
  explicit RMSprop(Tensors params, RMSpropOptions options = {});
  Tensor step(const Closure& closure = {}) override;
  double lr() const override { return options_.lr; }
  void set_lr(double lr) override;
  const RMSpropOptions& options() const { return options_; }
  // Adds "state.<i>.step", "state.<i>.square_avg", and "state.<i>.momentum_buffer" (momentum > 0)
  // and "state.<i>.grad_avg" (centered).
  StateDict state_dict() const override;
  void load_state_dict(const StateDict& state) override;
  bool has_momentum() const override { return true; }
  double momentum() const override { return options_.momentum; }
  void set_momentum(double momentum) override;

 private:
  struct State {
    int64_t step = 0;
    Tensor square_avg, grad_avg, momentum_buffer;
  };
  RMSpropOptions options_;
  std::vector<State> state_;
};

}  // namespace spire::optim
