#include "engine/optim/rmsprop.h"

#include "engine/ops/elementwise.h"

namespace spire::optim {

RMSprop::RMSprop(Tensors params, RMSpropOptions o)
    : Optimizer(std::move(params), "RMSprop"), options_(o), state_(params_.size()) {
  check_option(o.lr >= 0, "RMSprop", "lr", o.lr, ">= 0");
  check_option(o.eps >= 0, "RMSprop", "eps", o.eps, ">= 0");
  check_option(o.alpha >= 0, "RMSprop", "alpha", o.alpha, ">= 0");
  check_option(o.momentum >= 0, "RMSprop", "momentum", o.momentum, ">= 0");
  check_option(o.weight_decay >= 0, "RMSprop", "weight_decay", o.weight_decay, ">= 0");
}

void RMSprop::set_lr(double lr) {
  check_option(lr >= 0, "RMSprop", "lr", lr, ">= 0");
  options_.lr = lr;
}

void RMSprop::set_momentum(double momentum) {
  check_option(momentum >= 0, "RMSprop", "momentum", momentum, ">= 0");
  options_.momentum = momentum;
}

Tensor RMSprop::step(const Closure& closure) {
  const RMSpropOptions& o = options_;
  return step_each(closure, o.maximize, [&](size_t i, Tensor& p, Tensor g) {
    State& s = state_[i];
    if (s.step++ == 0) {
      s.square_avg = zeros_like(p);
      if (o.centered) s.grad_avg = zeros_like(p);
    }
    // Buffers appear lazily, so momentum switched on later (OneCycleLR) starts from zero, as in PyTorch.
    if (o.momentum > 0 && !s.momentum_buffer.defined()) s.momentum_buffer = zeros_like(p);
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

StateDict RMSprop::state_dict() const {
  StateDict d = Optimizer::state_dict();
  for (size_t i = 0; i < params_.size(); ++i) {
    const State& s = state_[i];
    if (s.step == 0) continue;
    d.set(state_key(i, "step"), s.step);
    d.set(state_key(i, "square_avg"), s.square_avg);
    if (s.momentum_buffer.defined()) d.set(state_key(i, "momentum_buffer"), s.momentum_buffer);
    if (s.grad_avg.defined()) d.set(state_key(i, "grad_avg"), s.grad_avg);
  }
  return d;
}

void RMSprop::load_state_dict(const StateDict& state) {
  std::vector<State> loaded(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!state.contains(state_key(i, "step"))) continue;
    State& s = loaded[i];
    s.step = state.integer(state_key(i, "step"));
    s.square_avg = param_state(state, state_key(i, "square_avg"), i);
    if (state.contains(state_key(i, "momentum_buffer")))
      s.momentum_buffer = param_state(state, state_key(i, "momentum_buffer"), i);
    if (options_.centered) s.grad_avg = param_state(state, state_key(i, "grad_avg"), i);
  }
  Optimizer::load_state_dict(state);
  state_ = std::move(loaded);
}

}  // namespace spire::optim
