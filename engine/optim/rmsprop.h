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

  // lr, alpha, eps, weight_decay, momentum, centered, maximize.
  static const std::vector<OptionField<RMSpropOptions>>& fields();
  void check(const std::string& who) const;
  static double RMSpropOptions::*momentum_field() { return &RMSpropOptions::momentum; }
};

class RMSprop : public OptimizerOf<RMSpropOptions> {
 public:
  // One group.
  explicit RMSprop(Tensors params, RMSpropOptions options = {});
  // A group each; a group without options takes `defaults`.
  explicit RMSprop(std::vector<ParamGroup<RMSpropOptions>> groups, RMSpropOptions defaults = {});
  Tensor step(const Closure& closure = {}) override;

 protected:
  // "state.<i>.step", "state.<i>.square_avg", and "state.<i>.momentum_buffer" (momentum > 0) and
  // "state.<i>.grad_avg" (centered).
  void save_state(StateDict& s) const override;
  void load_state(const StateDict& s, const std::vector<int64_t>& saved_index,
                  const std::vector<RMSpropOptions>& options) override;

 private:
  struct State {
    int64_t step = 0;
    Tensor square_avg, grad_avg, momentum_buffer;
  };
  std::vector<State> state_;
};

}  // namespace spire::optim
