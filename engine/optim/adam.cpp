#include "engine/optim/adam.h"

#include <cmath>

#include "engine/ops/elementwise.h"
#include "engine/ops/optim_update.h"

namespace spire::optim {

const std::vector<OptionField<AdamOptions>>& AdamOptions::fields() {
  static const std::vector<OptionField<AdamOptions>> f{
      {"lr", &AdamOptions::lr},
      {"betas.0", &AdamOptions::beta1},
      {"betas.1", &AdamOptions::beta2},
      {"eps", &AdamOptions::eps},
      {"weight_decay", &AdamOptions::weight_decay},
      {"amsgrad", &AdamOptions::amsgrad},
      {"maximize", &AdamOptions::maximize},
  };
  return f;
}

void AdamOptions::check(const std::string& who) const {
  check_option(lr >= 0, who, "lr", lr, ">= 0");
  check_option(eps >= 0, who, "eps", eps, ">= 0");
  check_option(beta1 >= 0 && beta1 < 1, who, "beta1 (betas[0])", beta1, "in [0, 1)");
  check_option(beta2 >= 0 && beta2 < 1, who, "beta2 (betas[1])", beta2, "in [0, 1)");
  check_option(weight_decay >= 0, who, "weight_decay", weight_decay, ">= 0");
}

Adam::Adam(Tensors params, AdamOptions options) : Adam(one_group(std::move(params), options), options) {}

Adam::Adam(std::vector<ParamGroup<AdamOptions>> groups, AdamOptions defaults)
    : Adam(std::move(groups), defaults, false, "Adam") {}

Adam::Adam(std::vector<ParamGroup<AdamOptions>> groups, AdamOptions defaults, bool decoupled, const char* optimizer)
    : OptimizerOf(optimizer, defaults, std::move(groups)), decoupled_(decoupled) {}

AdamW::AdamW(Tensors params, AdamOptions options) : AdamW(one_group(std::move(params), options), options) {}

AdamW::AdamW(std::vector<ParamGroup<AdamOptions>> groups, AdamOptions defaults)
    : Adam(std::move(groups), defaults, true, "AdamW") {}

void Adam::save_state(StateDict& s) const {
  for (size_t i = 0; i < state_.size(); ++i) {
    const State& st = state_[i];
    if (st.step == 0) continue;
    s.set(state_key(int64_t(i), "step"), st.step);
    s.set(state_key(int64_t(i), "exp_avg"), st.m);
    s.set(state_key(int64_t(i), "exp_avg_sq"), st.v);
    if (st.v_max.defined()) s.set(state_key(int64_t(i), "max_exp_avg_sq"), st.v_max);
  }
}

void Adam::load_state(const StateDict& state, const std::vector<int64_t>& saved,
                      const std::vector<AdamOptions>& options) {
  std::vector<State> loaded(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    const int64_t k = saved[i];
    if (!state.contains(state_key(k, "step"))) continue;
    State& st = loaded[i];
    st.step = state.integer(state_key(k, "step"));
    st.m = param_state(state, state_key(k, "exp_avg"), i);
    st.v = param_state(state, state_key(k, "exp_avg_sq"), i);
    // Required with amsgrad, as in PyTorch; kept when present (amsgrad switched off since).
    std::string vmax = state_key(k, "max_exp_avg_sq");
    if (options[group_of(i)].amsgrad || state.contains(vmax)) st.v_max = param_state(state, vmax, i);
  }
  state_ = std::move(loaded);
}

Tensor Adam::step(const Closure& closure) {
  state_.resize(params_.size());  // groups added since the last step
  return step_each(closure, [&](size_t group, size_t i, Tensor& p, Tensor g) {
    const AdamOptions& o = options_[group];
    State& s = state_[i];
    if (s.step++ == 0) {
      s.m = zeros_like(p);
      s.v = zeros_like(p);
    }
    // Lazily, as PyTorch does when amsgrad is switched on for a group later.
    if (o.amsgrad && !s.v_max.defined()) s.v_max = zeros_like(p);
    // One pass over memory where the device has the fused kernel (step_each has already negated
    // the gradient of a maximizing group); the same formula in engine ops elsewhere.
    if (fused_update_available("adam_update", p) && g.dtype() == p.dtype() && s.m.dtype() == p.dtype()) {
      AdamHyper h{.lr = o.lr, .beta1 = o.beta1, .beta2 = o.beta2, .eps = o.eps, .weight_decay = o.weight_decay,
                  .decoupled = decoupled_, .amsgrad = o.amsgrad, .step = s.step};
      AdamUpdate u = adam_update(p, g, s.m, s.v, o.amsgrad ? s.v_max : Tensor(), h);
      s.m = u.exp_avg;
      s.v = u.exp_avg_sq;
      if (o.amsgrad) s.v_max = u.max_exp_avg_sq;
      p.set_data(u.param);
      return;
    }
    Tensor q = p;
    if (o.weight_decay != 0) {
      if (decoupled_) q = mul(p, 1 - o.lr * o.weight_decay);
      else g = add(g, mul(p, o.weight_decay));
    }
    s.m = add(mul(s.m, o.beta1), mul(g, 1 - o.beta1));
    s.v = add(mul(s.v, o.beta2), mul(square(g), 1 - o.beta2));
    Tensor v = s.v;
    if (o.amsgrad) v = s.v_max = maximum(s.v_max, s.v);
    double t = double(s.step);
    double step_size = o.lr / (1 - std::pow(o.beta1, t));
    double bias_correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, t));
    Tensor denom = add(div(sqrt(v), bias_correction2_sqrt), o.eps);
    p.set_data(sub(q, mul(div(s.m, denom), step_size)));
  });
}

}  // namespace spire::optim
