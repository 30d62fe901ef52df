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

  // lr, momentum, dampening, weight_decay, nesterov, maximize.
  static const std::vector<OptionField<SGDOptions>>& fields();
  void check(const std::string& who) const;
  static double SGDOptions::*momentum_field() { return &SGDOptions::momentum; }
};

class SGD : public OptimizerOf<SGDOptions> {
 public:
  // One group.
  explicit SGD(Tensors params, SGDOptions options = {});
  // A group each; a group without options takes `defaults`.
  explicit SGD(std::vector<ParamGroup<SGDOptions>> groups, SGDOptions defaults = {});
  Tensor step(const Closure& closure = {}) override;

 protected:
  // "state.<i>.momentum_buffer".
  void save_state(StateDict& s) const override;
  void load_state(const StateDict& s, const std::vector<int64_t>& saved_index,
                  const std::vector<SGDOptions>& options) override;

 private:
  Tensors momentum_buffer_;  // per parameter; undefined until its first update
};

}  // namespace spire::optim
