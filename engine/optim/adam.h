// Adam and AdamW, as torch.optim.Adam and torch.optim.AdamW. At step t (from 1), with g the
// gradient (negated when maximize):
//   Adam:  g = g + weight_decay p                     (L2 penalty, coupled to the moments)
//   AdamW: p = p (1 - lr weight_decay)                (decoupled weight decay)
//   m = beta1 m + (1 - beta1) g
//   v = beta2 v + (1 - beta2) g^2
//   vmax = max(vmax, v) with amsgrad (used instead of v below)
//   p = p - lr / (1 - beta1^t) m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
#pragma once
#include "engine/optim/optimizer.h"

namespace spire::optim {

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;  // AdamW's default is 1e-2
  bool amsgrad = false;
  bool maximize = false;
};

class Adam : public Optimizer {
 public:
  explicit Adam(Tensors params, AdamOptions options = {});
  Tensor step(const Closure& closure = {}) override;
  double lr() const override { return options_.lr; }
  void set_lr(double lr) override;
  const AdamOptions& options() const { return options_; }
  // Adds "state.<i>.step" (an integer), "state.<i>.exp_avg", "state.<i>.exp_avg_sq" and, with
  // amsgrad, "state.<i>.max_exp_avg_sq".
  StateDict state_dict() const override;
  void load_state_dict(const StateDict& state) override;
  bool has_momentum() const override { return true; }
  double momentum() const override { return options_.beta1; }  // beta1
  void set_momentum(double beta1) override;
  // The moment estimates of parameter i (undefined before its first update).
  const Tensor& exp_avg(size_t i) const { return state_.at(i).m; }
  const Tensor& exp_avg_sq(size_t i) const { return state_.at(i).v; }

 protected:
  Adam(Tensors params, AdamOptions options, bool decoupled, const char* optimizer);

 private:
  struct State {
    int64_t step = 0;  // per parameter: one that had no gradient on some step lags behind
    Tensor m, v, v_max;
  };
  AdamOptions options_;
  bool decoupled_;  // AdamW
  std::vector<State> state_;
};

class AdamW : public Adam {
 public:
  // AdamOptions with weight_decay = 1e-2, PyTorch's default for AdamW.
  static AdamOptions defaults() { return {.weight_decay = 1e-2}; }
  explicit AdamW(Tensors params, AdamOptions options = defaults());
};

}  // namespace spire::optim
