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

  // lr, betas.0, betas.1 (torch's betas pair), eps, weight_decay, amsgrad, maximize.
  static const std::vector<OptionField<AdamOptions>>& fields();
  void check(const std::string& who) const;
  static double AdamOptions::*momentum_field() { return &AdamOptions::beta1; }
};

class Adam : public OptimizerOf<AdamOptions> {
 public:
  // One group.
  explicit Adam(Tensors params, AdamOptions options = {});
  // A group each; a group without options takes `defaults`.
  explicit Adam(std::vector<ParamGroup<AdamOptions>> groups, AdamOptions defaults = {});
  Tensor step(const Closure& closure = {}) override;
  // The moment estimates of parameter i (undefined before its first update).
  const Tensor& exp_avg(size_t i) const { return state_.at(i).m; }
  const Tensor& exp_avg_sq(size_t i) const { return state_.at(i).v; }

 protected:
  Adam(std::vector<ParamGroup<AdamOptions>> groups, AdamOptions defaults, bool decoupled, const char* optimizer);
  // "state.<i>.step" (an integer), "state.<i>.exp_avg", "state.<i>.exp_avg_sq" and, with amsgrad,
  // "state.<i>.max_exp_avg_sq".
  void save_state(StateDict& s) const override;
  void load_state(const StateDict& s, const std::vector<int64_t>& saved_index,
                  const std::vector<AdamOptions>& options) override;

 private:
  struct State {
    int64_t step = 0;  // per parameter: one that had no gradient on some step lags behind
    Tensor m, v, v_max;
  };
  bool decoupled_;  // AdamW
  std::vector<State> state_;
};

class AdamW : public Adam {
 public:
  // AdamOptions with weight_decay = 1e-2, PyTorch's default for AdamW.
  static AdamOptions defaults() { return {.weight_decay = 1e-2}; }
  explicit AdamW(Tensors params, AdamOptions options = defaults());
  explicit AdamW(std::vector<ParamGroup<AdamOptions>> groups, AdamOptions defaults = AdamW::defaults());
};

}  // namespace spire::optim
