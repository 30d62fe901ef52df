#include "engine/optim/rmsprop.h"

#include "engine/ops/elementwise.h"
#include "engine/ops/optim_update.h"

namespace spire::optim {

const std::vector<OptionField<RMSpropOptions>>& RMSpropOptions::fields() {
  static const std::vector<OptionField<RMSpropOptions>> f{
      {"lr", &RMSpropOptions::lr},
      {"alpha", &RMSpropOptions::alpha},
      {"eps", &RMSpropOptions::eps},
      {"weight_decay", &RMSpropOptions::weight_decay},
      {"momentum", &RMSpropOptions::momentum},
      {"centered", &RMSpropOptions::centered},
      {"maximize", &RMSpropOptions::maximize},
  };
  return f;
}

void RMSpropOptions::check(const std::string& who) const {
  check_option(lr >= 0, who, "lr", lr, ">= 0");
  check_option(eps >= 0, who, "eps", eps, ">= 0");
  check_option(alpha >= 0, who, "alpha", alpha, ">= 0");
  check_option(momentum >= 0, who, "momentum", momentum, ">= 0");
  check_option(weight_decay >= 0, who, "weight_decay", weight_decay, ">= 0");
}

RMSprop::RMSprop(Tensors params, RMSpropOptions options) : RMSprop(one_group(std::move(params), options), options) {}

RMSprop::RMSprop(std::vector<ParamGroup<RMSpropOptions>> groups, RMSpropOptions defaults)
    : OptimizerOf("RMSprop", defaults, std::move(groups)) {}

Tensor RMSprop::step(const Closure& closure) {
  state_.resize(params_.size());  // groups added since the last step
  return step_each(closure, [&](size_t group, size_t i, Tensor& p, Tensor g) {
    const RMSpropOptions& o = options_[group];
    State& s = state_[i];
    if (s.step++ == 0) {
      s.square_avg = zeros_like(p);
      if (o.centered) s.grad_avg = zeros_like(p);
    }
    // Buffers appear lazily, so momentum switched on later (OneCycleLR) starts from zero, as in PyTorch.
    if (o.momentum > 0 && !s.momentum_buffer.defined()) s.momentum_buffer = zeros_like(p);
    if (o.centered && !s.grad_avg.defined()) s.grad_avg = zeros_like(p);
    // One pass over memory where the device has the fused kernel (step_each has already negated
    // the gradient of a maximizing group); the same formula in engine ops elsewhere.
    if (fused_update_available("rmsprop_update", p) && g.dtype() == p.dtype() && s.square_avg.dtype() == p.dtype()) {
      RMSpropHyper h{.lr = o.lr, .alpha = o.alpha, .eps = o.eps, .weight_decay = o.weight_decay,
                     .momentum = o.momentum, .centered = o.centered};
      RMSpropUpdate u = rmsprop_update(p, g, s.square_avg, o.centered ? s.grad_avg : Tensor(),
                                       o.momentum > 0 ? s.momentum_buffer : Tensor(), h);
      s.square_avg = u.square_avg;
      if (o.centered) s.grad_avg = u.grad_avg;
      if (o.momentum > 0) s.momentum_buffer = u.momentum_buffer;
      p.set_data(u.param);
      return;
    }
    if (o.weight_decay != 0) g = add(g, mul(p, o.weight_decay));
    s.square_avg = add(mul(s.square_avg, o.alpha), mul(square(g), 1 - o.alpha));
    Tensor avg;
    if (o.centered) {
      if (!s.grad_avg.defined()) s.grad_avg = zeros_like(p);
      s.grad_avg = add(s.grad_avg, mul(sub(g, s.grad_avg), 1 - o.alpha));  // torch's lerp_
      avg = add(sqrt(sub(s.square_avg, square(s.grad_avg))), o.eps);
    } else {
      avg = add(sqrt(s.square_avg), o.eps);
    }
    if (o.momentum > 0) {
      s.momentum_buffer = add(mul(s.momentum_buffer, o.momentum), div(g, avg));
      p.set_data(sub(p, mul(s.momentum_buffer, o.lr)));
    } else {
      p.set_data(sub(p, mul(div(g, avg), o.lr)));
    }
  });
}

void RMSprop::save_state(StateDict& d) const {
  for (size_t i = 0; i < state_.size(); ++i) {
    const State& s = state_[i];
    if (s.step == 0) continue;
    d.set(state_key(int64_t(i), "step"), s.step);
    d.set(state_key(int64_t(i), "square_avg"), s.square_avg);
    if (s.momentum_buffer.defined()) d.set(state_key(int64_t(i), "momentum_buffer"), s.momentum_buffer);
    if (s.grad_avg.defined()) d.set(state_key(int64_t(i), "grad_avg"), s.grad_avg);
  }
}

void RMSprop::load_state(const StateDict& state, const std::vector<int64_t>& saved,
                         const std::vector<RMSpropOptions>& options) {
  std::vector<State> loaded(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    const int64_t k = saved[i];
    if (!state.contains(state_key(k, "step"))) continue;
    State& s = loaded[i];
    s.step = state.integer(state_key(k, "step"));
    s.square_avg = param_state(state, state_key(k, "square_avg"), i);
    if (state.contains(state_key(k, "momentum_buffer")))
      s.momentum_buffer = param_state(state, state_key(k, "momentum_buffer"), i);
    // Required when centered, as in PyTorch; kept when present (centered switched off since).
    if (options[group_of(i)].centered || state.contains(state_key(k, "grad_avg")))
      s.grad_avg = param_state(state, state_key(k, "grad_avg"), i);
  }
  state_ = std::move(loaded);
}

}  // namespace spire::optim
