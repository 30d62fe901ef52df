#include "engine/optim/adam.h"

#include <cmath>

#include "engine/ops/elementwise.h"

namespace spire::optim {

Adam::Adam(Tensors params, AdamOptions options) : Adam(std::move(params), options, false, "Adam") {}

Adam::Adam(Tensors params, AdamOptions o, bool decoupled, const char* optimizer)
    : Optimizer(std::move(params), optimizer), options_(o), decoupled_(decoupled), state_(params_.size()) {
  check_option(o.lr >= 0, optimizer, "lr", o.lr, ">= 0");
  check_option(o.eps >= 0, optimizer, "eps", o.eps, ">= 0");
  check_option(o.beta1 >= 0 && o.beta1 < 1, optimizer, "beta1 (betas[0])", o.beta1, "in [0, 1)");
  check_option(o.beta2 >= 0 && o.beta2 < 1, optimizer, "beta2 (betas[1])", o.beta2, "in [0, 1)");
  check_option(o.weight_decay >= 0, optimizer, "weight_decay", o.weight_decay, ">= 0");
}

AdamW::AdamW(Tensors params, AdamOptions options) : Adam(std::move(params), options, true, "AdamW") {}

void Adam::set_lr(double lr) {
  check_option(lr >= 0, name_, "lr", lr, ">= 0");
  options_.lr = lr;
}

void Adam::set_momentum(double beta1) {
  check_option(beta1 >= 0 && beta1 < 1, name_, "beta1 (betas[0])", beta1, "in [0, 1)");
  options_.beta1 = beta1;
}

StateDict Adam::state_dict() const {
  StateDict s = Optimizer::state_dict();
  for (size_t i = 0; i < params_.size(); ++i) {
    const State& st = state_[i];
    if (st.step == 0) continue;
    s.set(state_key(i, "step"), st.step);
    s.set(state_key(i, "exp_avg"), st.m);
    s.set(state_key(i, "exp_avg_sq"), st.v);
    if (options_.amsgrad) s.set(state_key(i, "max_exp_avg_sq"), st.v_max);
  }
  return s;
}

void Adam::load_state_dict(const StateDict& state) {
  std::vector<State> loaded(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!state.contains(state_key(i, "step"))) continue;
    State& st = loaded[i];
    st.step = state.integer(state_key(i, "step"));
    st.m = param_state(state, state_key(i, "exp_avg"), i);
    st.v = param_state(state, state_key(i, "exp_avg_sq"), i);
    if (options_.amsgrad) st.v_max = param_state(state, state_key(i, "max_exp_avg_sq"), i);
  }
  Optimizer::load_state_dict(state);
  state_ = std::move(loaded);
}

Tensor Adam::step(const Closure& closure) {
  const AdamOptions& o = options_;
  return step_each(closure, o.maximize, [&](size_t i, Tensor& p, Tensor g) {
    State& s = state_[i];
    if (s.step++ == 0) {
      s.m = zeros_like(p);
      s.v = zeros_like(p);
      if (o.amsgrad) s.v_max = zeros_like(p);
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
